/**
 * A small TOML reader for manifests (`pyproject.toml`, `Pipfile`, Julia's `Project.toml`/`Manifest.toml`).
 * No TOML parser is among the project's dependencies (only YAML ones), and a manifest needs only the common
 * subset: tables, arrays of tables, dotted and quoted keys, strings of the four kinds, numbers, booleans,
 * dates (kept as text), arrays over several lines and inline tables. It is written for reading what a
 * manifest declares, not for validating TOML: it is lenient where the spec is strict (duplicate keys: the
 * last wins), and throws `TomlError` with the line on what it cannot read, which detectors turn into a note.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export class TomlError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/;

class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  line(): number {
    let n = 1;
    for (let i = 0; i < this.pos && i < this.text.length; i++) if (this.text[i] === '\n') n++;
    return n;
  }

  fail(message: string): never {
    throw new TomlError(message, this.line());
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  advance(n = 1): void {
    this.pos += n;
  }

  done(): boolean {
    return this.pos >= this.text.length;
  }

  /** Skips spaces and tabs (and, with `newlines`, line breaks and comments too). */
  skip(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '#') while (!this.done() && this.peek() !== '\n') this.pos++;
      else if (newlines && c === '\n') this.pos++;
      else return;
    }
  }

  /** The end of a key/value line or header: only a comment may follow. */
  endOfLine(): void {
    this.skip(false);
    if (this.done()) return;
    if (this.peek() !== '\n') this.fail(`unexpected "${this.peek()}" after a value`);
    this.pos++;
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skip(false);
      const c = this.peek();
      if (c === '"' || c === "'") parts.push(this.string());
      else {
        const start = this.pos;
        while (BARE_KEY.test(this.peek())) this.pos++;
        if (this.pos === start) this.fail('expected a key');
        parts.push(this.text.slice(start, this.pos));
      }
      this.skip(false);
      if (this.peek() !== '.') return parts;
      this.pos++;
    }
  }

  string(): string {
    if (this.startsWith('"""')) return this.multiline('"""', true);
    if (this.startsWith("'''")) return this.multiline("'''", false);
    const quote = this.peek();
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') this.fail('unterminated string');
      this.pos++;
      if (c === quote) return out;
      if (c === '\\' && quote === '"') out += this.escape();
      else out += c;
    }
  }

  private multiline(delimiter: string, escapes: boolean): string {
    this.pos += 3;
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
    let out = '';
    for (;;) {
      if (this.done()) this.fail('unterminated multi-line string');
      if (this.startsWith(delimiter) && !this.text.startsWith(delimiter[0]!, this.pos + 3)) {
        this.pos += 3;
        return out;
      }
      const c = this.peek();
      this.pos++;
      if (c === '\\' && escapes) {
        if (/^[ \t]*\r?\n/.test(this.text.slice(this.pos, this.pos + 64))) {
          while (/[\s]/.test(this.peek())) this.pos++;
        } else out += this.escape();
      } else out += c;
    }
  }

  private escape(): string {
    const c = this.peek();
    this.pos++;
    const simple: Record<string, string> = {
      b: '\b',
      t: '\t',
      n: '\n',
      f: '\f',
      r: '\r',
      '"': '"',
      '\\': '\\',
    };
    if (simple[c] !== undefined) return simple[c];
    if (c === 'u' || c === 'U') {
      const len = c === 'u' ? 4 : 8;
      const hex = this.text.slice(this.pos, this.pos + len);
      if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) this.fail('bad unicode escape');
      this.pos += len;
      return String.fromCodePoint(parseInt(hex, 16));
    }
    return this.fail(`bad escape "\\${c}"`);
  }

  value(): TomlValue {
    this.skip(false);
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    const start = this.pos;
    while (!this.done() && !/[,\]}\n#]/.test(this.peek())) this.pos++;
    const raw = this.text.slice(start, this.pos).trim();
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (raw === '') this.fail('expected a value');
    const num = raw.replace(/_/g, '');
    if (/^[+-]?(\d+(\.\d+)?([eE][+-]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+|inf|nan)$/.test(num)) {
      return Number(num.replace(/^\+/, ''));
    }
    // dates and times are kept as text; nothing here needs them as dates
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(raw)) return raw;
    return this.fail(`cannot read the value "${raw}"`);
  }

  private array(): TomlValue[] {
    this.pos++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skip(true);
      if (this.peek() === ']') {
        this.pos++;
        return out;
      }
      out.push(this.value());
      this.skip(true);
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== ']') this.fail('expected "," or "]" in an array');
    }
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const out: TomlTable = {};
    for (;;) {
      this.skip(true);
      if (this.peek() === '}') {
        this.pos++;
        return out;
      }
      const key = this.key();
      if (this.peek() !== '=') this.fail('expected "=" after a key');
      this.pos++;
      assign(out, key, this.value(), this);
      this.skip(true);
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== '}') this.fail('expected "," or "}" in an inline table');
    }
  }
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The table at `path` under `root`, created as needed; the last element of an array of tables. */
function descend(root: TomlTable, path: readonly string[], reader: Reader): TomlTable {
  let table = root;
  for (const part of path) {
    let next = table[part];
    if (next === undefined) {
      next = {};
      table[part] = next;
    }
    if (Array.isArray(next)) next = next[next.length - 1];
    if (!isTable(next)) reader.fail(`"${part}" is not a table`);
    table = next;
  }
  return table;
}

function assign(table: TomlTable, key: readonly string[], value: TomlValue, reader: Reader): void {
  const parent = descend(table, key.slice(0, -1), reader);
  parent[key[key.length - 1]!] = value;
}

/** Parses TOML text into plain objects; throws TomlError (with the line) on what it cannot read. */
export function parseToml(text: string): TomlTable {
  const reader: Reader = new Reader(text.replace(/^\uFEFF/, ''));
  const root: TomlTable = {};
  let current = root;
  for (;;) {
    reader.skip(true);
    if (reader.done()) return root;
    if (reader.startsWith('[[')) {
      reader.advance(2);
      const path = reader.key();
      if (!reader.startsWith(']]')) reader.fail('expected "]]"');
      reader.advance(2);
      const parent = descend(root, path.slice(0, -1), reader);
      const name = path[path.length - 1]!;
      const existing = parent[name] ?? [];
      if (!Array.isArray(existing)) reader.fail(`"${name}" is not an array of tables`);
      const list = existing;
      const table: TomlTable = {};
      list.push(table);
      parent[name] = list;
      current = table;
    } else if (reader.peek() === '[') {
      reader.advance();
      const path = reader.key();
      if (reader.peek() !== ']') reader.fail('expected "]"');
      reader.advance();
      current = descend(root, path, reader);
    } else {
      const key = reader.key();
      if (reader.peek() !== '=') reader.fail('expected "=" after a key');
      reader.advance();
      assign(current, key, reader.value(), reader);
    }
    reader.endOfLine();
  }
}

/** The value at a dotted path of plain keys, or undefined. */
export function tomlGet(table: TomlTable, ...path: string[]): TomlValue | undefined {
  let value: TomlValue | undefined = table;
  for (const part of path) {
    if (!isTable(value)) return undefined;
    value = value[part];
  }
  return value;
}

/** The table at a path, or undefined when it is absent or not a table. */
export function tomlTable(table: TomlTable, ...path: string[]): TomlTable | undefined {
  const value = tomlGet(table, ...path);
  return isTable(value) ? value : undefined;
}
