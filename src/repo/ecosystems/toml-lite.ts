/**
 * A small reader for the TOML that manifests use (Cargo.toml, fpm.toml): tables, arrays of tables, dotted
 * keys, strings (basic, literal, multi-line), numbers, booleans, dates (kept as text), arrays and inline
 * tables. Enough to read what a manifest declares; not a validator: a line it cannot read is skipped and
 * counted, so an odd manifest gives a note, never an exception. No npm TOML parser is a dependency here.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export interface TomlResult {
  table: TomlTable;
  /** Lines (1-based) that could not be read. */
  skipped: number[];
}

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  peek(n = 0): string {
    return this.text[this.pos + n] ?? '';
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
  /** Skips spaces, tabs and (when `lines`) newlines and comments. */
  skip(lines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (lines && c === '\n') this.pos++;
      else if (c === '#') while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
      else return;
    }
  }
  line(): number {
    let n = 1;
    for (let i = 0; i < this.pos && i < this.text.length; i++) if (this.text[i] === '\n') n++;
    return n;
  }
}

class TomlSyntax extends Error {}

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '"': '"',
  '\\': '\\',
  b: '\b',
  f: '\f',
};

function readString(c: Cursor): string {
  const quote = c.peek();
  const multi = c.startsWith(quote.repeat(3));
  c.pos += multi ? 3 : 1;
  if (multi && c.peek() === '\n') c.pos++;
  let out = '';
  for (;;) {
    if (c.pos >= c.text.length) throw new TomlSyntax('unterminated string');
    if (multi ? c.startsWith(quote.repeat(3)) : c.peek() === quote) {
      c.pos += multi ? 3 : 1;
      return out;
    }
    const ch = c.peek();
    if (!multi && ch === '\n') throw new TomlSyntax('newline in string');
    if (quote === '"' && ch === '\\') {
      const next = c.peek(1);
      if (next === 'u' || next === 'U') {
        const len = next === 'u' ? 4 : 8;
        out += String.fromCodePoint(parseInt(c.text.slice(c.pos + 2, c.pos + 2 + len), 16) || 0xfffd);
        c.pos += 2 + len;
      } else if (multi && (next === '\n' || next === ' ' || next === '\r')) {
        c.pos++;
        c.skip(true);
      } else {
        out += ESCAPES[next] ?? next;
        c.pos += 2;
      }
      continue;
    }
    out += ch;
    c.pos++;
  }
}

function readKey(c: Cursor): string[] {
  const parts: string[] = [];
  for (;;) {
    c.skip(false);
    const ch = c.peek();
    if (ch === '"' || ch === "'") parts.push(readString(c));
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(c.text.slice(c.pos, c.pos + 256));
      if (!m) throw new TomlSyntax('expected a key');
      parts.push(m[0]);
      c.pos += m[0].length;
    }
    c.skip(false);
    if (c.peek() !== '.') return parts;
    c.pos++;
  }
}

function readValue(c: Cursor): TomlValue {
  c.skip(false);
  const ch = c.peek();
  if (ch === '"' || ch === "'") return readString(c);
  if (ch === '[') {
    c.pos++;
    const items: TomlValue[] = [];
    for (;;) {
      c.skip(true);
      if (c.peek() === ']') {
        c.pos++;
        return items;
      }
      items.push(readValue(c));
      c.skip(true);
      if (c.peek() === ',') c.pos++;
      else if (c.peek() !== ']') throw new TomlSyntax('expected , or ] in an array');
    }
  }
  if (ch === '{') {
    c.pos++;
    const table: TomlTable = {};
    for (;;) {
      c.skip(false);
      if (c.peek() === '}') {
        c.pos++;
        return table;
      }
      const key = readKey(c);
      if (c.peek() !== '=') throw new TomlSyntax('expected = in an inline table');
      c.pos++;
      setPath(table, key, readValue(c));
      c.skip(false);
      if (c.peek() === ',') c.pos++;
    }
  }
  const m = /^[A-Za-z0-9_+.:-]+(?: \d[\d:.+Z-]*)?/.exec(c.text.slice(c.pos, c.pos + 256));
  if (!m) throw new TomlSyntax('expected a value');
  c.pos += m[0].length;
  const raw = m[0];
  if (raw === 'true' || raw === 'false') return raw === 'true';
  const num = Number(raw.replaceAll('_', ''));
  return /^[+-]?[\d_]+(?:\.[\d_]+)?(?:[eE][+-]?\d+)?$/.test(raw) && Number.isFinite(num) ? num : raw;
}

function isTable(v: TomlValue | undefined): v is TomlTable {
  return typeof v === 'object' && !Array.isArray(v);
}

/** The table at `path` under `root`, made when missing (the last element of an array of tables). */
function tableAt(root: TomlTable, path: string[]): TomlTable {
  let t = root;
  for (const part of path) {
    let next = t[part];
    if (Array.isArray(next)) next = next[next.length - 1];
    if (!isTable(next)) {
      next = {};
      t[part] = next;
    }
    t = next;
  }
  return t;
}

function setPath(root: TomlTable, path: string[], value: TomlValue): void {
  const last = path[path.length - 1];
  if (last === undefined) return;
  tableAt(root, path.slice(0, -1))[last] = value;
}

/** Reads TOML text; never throws. */
export function parseToml(text: string): TomlResult {
  const c = new Cursor(text);
  const table: TomlTable = {};
  const skipped: number[] = [];
  let current = table;
  for (;;) {
    c.skip(true);
    if (c.pos >= text.length) break;
    const start = c.pos;
    try {
      if (c.startsWith('[[')) {
        c.pos += 2;
        const key = readKey(c);
        if (!c.startsWith(']]')) throw new TomlSyntax('expected ]]');
        c.pos += 2;
        const parent = tableAt(table, key.slice(0, -1));
        const name = key[key.length - 1] as string;
        const list = Array.isArray(parent[name]) ? parent[name] : [];
        parent[name] = list;
        current = {};
        list.push(current);
      } else if (c.peek() === '[') {
        c.pos++;
        const key = readKey(c);
        if (c.peek() !== ']') throw new TomlSyntax('expected ]');
        c.pos++;
        current = tableAt(table, key);
      } else {
        const key = readKey(c);
        if (c.peek() !== '=') throw new TomlSyntax('expected =');
        c.pos++;
        setPath(current, key, readValue(c));
      }
      c.skip(false);
      if (c.pos < text.length && c.peek() !== '\n') throw new TomlSyntax('trailing text');
    } catch (error) {
      if (!(error instanceof TomlSyntax)) throw error;
      c.pos = start;
      skipped.push(c.line());
      while (c.pos < text.length && c.peek() !== '\n') c.pos++;
    }
  }
  return { table, skipped };
}

/** The value at a dotted path, or undefined. */
export function tomlGet(table: TomlTable, ...path: string[]): TomlValue | undefined {
  let v: TomlValue | undefined = table;
  for (const part of path) {
    if (!isTable(v)) return undefined;
    v = v[part];
  }
  return v;
}

export function tomlTable(v: TomlValue | undefined): TomlTable | undefined {
  return isTable(v) ? v : undefined;
}

export function tomlString(v: TomlValue | undefined): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}
