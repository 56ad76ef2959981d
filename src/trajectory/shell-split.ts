/**
 * Splits a script (what a turn ran) into the sub-commands it runs: on top-level `&&`, `||`, `;`, `|`, `|&`,
 * `&` and newlines, walking into subshells, brace groups and `if`/`while`/`until`/`for`/`case` bodies (their
 * conditions and inner commands are sub-commands too). Function definitions run nothing: their bodies are
 * not counted, their names are listed.
 *
 * The shell parser decides, not a hand-written grammar: `sh-syntax` (mvdan/sh compiled to WebAssembly) parses
 * every piece. Its syntax tree as it reaches JavaScript carries only the top-level statements' ranges (and
 * their redirections), not the nodes inside them, so the finer cuts are made by proposing and checking: a
 * small scanner proposes the operators outside quotes, comments and heredoc bodies, and a cut is made only
 * where the parser, given the operator replaced by `;`, sees a new top-level statement begin. An operator
 * inside `$(…)`, backticks, a subshell, `[[ … ]]`, an `if` condition or a `case` pattern never passes that
 * check. Compound commands are entered by blanking their reserved words in command position and parsing what
 * is left. A script the parser rejects is split by lines instead (`parser: 'lines'`, with the parser's error).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The Go runtime the wasm needs, imported by name: sh-syntax's own side-effect import of it is dropped when
// the package is bundled (its package.json lists `vendors/wasm_exec.js` as having side effects, but the file
// is `wasm_exec.cjs`), so ncc's bundle had no `Go` global. Naming the module keeps it in the bundle.
import * as goRuntime from 'sh-syntax/vendors/wasm_exec';
import { getProcessor, type File as ShFile, type Node as ShNode, type Stmt as ShStmt } from 'sh-syntax';

/** The name the parser's WebAssembly has beside a bundle (`npm run package` copies it next to dist/index.js). */
export const BUNDLED_WASM = 'sh-syntax.wasm';

/**
 * The parser's WebAssembly. sh-syntax's own loader reads it relative to its lib/ folder, which a bundle does not
 * have, and ncc cannot carry it as an asset (a `new URL(…, import.meta.url)` to it came out of ncc's loaders
 * re-encoded as text, corrupt); so it is found at run time: through Node's resolution (src/, lib/, an
 * installed package), else beside the running module (the bundle). A file that is not valid WebAssembly is
 * passed over.
 */
async function loadWasm(): Promise<Uint8Array> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  try {
    // Spelled at run time so the bundler leaves the resolution to Node.
    candidates.push(createRequire(import.meta.url).resolve(['sh-syntax', 'main.wasm'].join('/')));
  } catch {
    // Not resolvable here (the bundle): the copy beside the module is next.
  }
  candidates.push(path.join(here, BUNDLED_WASM));
  for (const file of candidates) {
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes && wasm.validate(bytes)) return bytes;
  }
  throw new Error(`the shell parser's WebAssembly was not found (looked for ${candidates.join(', ')})`);
}

const runtimeLoaded = [goRuntime].length === 1;
/** The engine's WebAssembly API (Node's global; this project's TypeScript libs do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: unknown): Promise<unknown>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Compiled once; each parse instantiates it afresh (cheap), as sh-syntax runs one Go program per call. */
let compiled: Promise<object> | undefined;
const processor = getProcessor((imports: unknown) => {
  compiled ??= loadWasm().then((bytes) => wasm.compile(bytes));
  return compiled.then((module) => wasm.instantiate(module, imports));
});

/** Parses bash text; throws the parser's error. */
async function parseBash(text: string): Promise<ShFile> {
  if (!runtimeLoaded) throw new Error('the sh-syntax Go runtime did not load');
  return processor(text, { keepComments: false });
}

export interface SplitResult {
  /** The sub-commands in order, each on one line (continuations joined, whitespace collapsed). */
  commands: string[];
  /** `sh-syntax` when the parser read the script; `lines` when it rejected it and lines were used. */
  parser: 'sh-syntax' | 'lines';
  /** The parser's error, when it rejected the script. */
  error?: string;
  /** Functions the script defines (their bodies are not sub-commands: defining one runs nothing). */
  functions: string[];
}

/** How deep compound commands are entered (a script nested deeper is kept whole below this). */
const MAX_DEPTH = 24;

/**
 * The fallback: one sub-command per line, `\` continuations joined, blank lines and comment lines dropped.
 */
export function splitLines(script: string): string[] {
  return script
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map(normalise)
    .filter((line) => line !== '');
}

/** The last few scripts split, by their text: a run's turns are split while they run (`splitScriptSoon`). */
const recent = new Map<string, Promise<SplitResult>>();
const RECENT_LIMIT = 16;

/**
 * Starts splitting `script` now, for a later `splitScript` of the same text to find done: the parser's
 * work then overlaps the command that runs the script (the trajectory analysis splits every turn's script
 * after the run). Bounded to the last few scripts.
 */
export function splitScriptSoon(script: string): void {
  void remembered(script);
}

function remembered(script: string): Promise<SplitResult> {
  const known = recent.get(script);
  if (known) return known;
  const split = splitUncached(script);
  recent.set(script, split);
  while (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value!);
  return split;
}

/** Splits a script into its sub-commands (see the file header). Never throws. */
export async function splitScript(script: string): Promise<SplitResult> {
  const result = await remembered(script);
  // Each caller gets its own arrays: a shared result is never changed through another's.
  return { ...result, commands: [...result.commands], functions: [...result.functions] };
}

async function splitUncached(script: string): Promise<SplitResult> {
  const functions: string[] = [];
  try {
    const commands = await splitText(script, 0, functions);
    return { commands, parser: 'sh-syntax', functions };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { commands: splitLines(script), parser: 'lines', error: message, functions: [] };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Text and the parser's byte offsets

/** Maps the parser's UTF-8 byte offsets to string indices. */
function byteIndex(text: string): (offset: number) => number {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return (offset) => offset;
  const map: number[] = [];
  let i = 0;
  for (const ch of text) {
    const bytes = Buffer.byteLength(ch);
    for (let b = 0; b < bytes; b++) map.push(i);
    i += ch.length;
  }
  map.push(text.length);
  return (offset) => map[Math.min(offset, map.length - 1)] ?? text.length;
}

function sliceNode(text: string, at: (offset: number) => number, node: ShNode): string {
  return text.slice(at(node.Pos.Offset), at(node.End.Offset));
}

/** One line: continuations joined, comment lines dropped, whitespace collapsed, `!`, `;` and `&` trimmed. */
function normalise(text: string): string {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .filter((line) => !/^\s*#/.test(line))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^!\s+/, '')
    .replace(/\s*[;&]+$/, '')
    .trim();
}

// ---------------------------------------------------------------------------------------------------------
// Splitting

/** The sub-commands of a text the parser accepts; throws when it does not. */
async function splitText(text: string, depth: number, functions: string[]): Promise<string[]> {
  const file = await parseBash(text);
  const at = byteIndex(text);
  const out: string[] = [];
  for (const stmt of file.Stmts) out.push(...(await splitStatement(text, at, stmt, depth, functions)));
  return out;
}

const FUNCTION_DEF = /^(?:function\s+([^\s(){};|&]+)|([^\s(){};|&$"'`=]+)\s*\(\s*\))/;
const COMPOUND_WORD = /^(?:if|while|until|for|select|case)(?=[\s;(]|$)/;

async function splitStatement(
  text: string,
  at: (offset: number) => number,
  stmt: ShStmt,
  depth: number,
  functions: string[],
): Promise<string[]> {
  if (!stmt.Cmd) return [];
  const cmd = sliceNode(text, at, stmt.Cmd);
  // The statement without the bodies of its own heredocs (its range runs to their ends).
  const bodies = stmt.Redirs.flatMap((r) => (r.Hdoc ? [r.Hdoc.Pos.Offset] : []));
  const whole = text.slice(at(stmt.Pos.Offset), at(Math.min(stmt.End.Offset, ...bodies)));
  const fn = FUNCTION_DEF.exec(cmd.trim());
  if (fn) {
    functions.push((fn[1] ?? fn[2])!);
    return [];
  }
  const pieces = await cutAtOperators(whole);
  if (pieces.length === 1) return (await enterCompound(cmd, depth, functions)) ?? keep(whole);
  const out: string[] = [];
  for (const piece of pieces) {
    const inner =
      depth < MAX_DEPTH && startsCompound(piece) ? await tryParse(piece, depth + 1, functions) : undefined;
    out.push(...(inner ?? keep(piece)));
  }
  return out;
}

function keep(text: string): string[] {
  const line = normalise(text);
  return line === '' ? [] : [line];
}

function startsCompound(piece: string): boolean {
  const t = piece.trimStart().replace(/^!\s+/, '');
  return t.startsWith('(') || t.startsWith('{') || COMPOUND_WORD.test(t) || FUNCTION_DEF.test(t);
}

/** The sub-commands of a piece, or undefined when the parser rejects it on its own. */
async function tryParse(text: string, depth: number, functions: string[]): Promise<string[] | undefined> {
  try {
    return await splitText(text, depth, functions);
  } catch {
    return undefined;
  }
}

/**
 * The inner sub-commands of a compound command (undefined for a simple command or a pipeline): a subshell or brace group its body, `if`/loops/`case` their
 * conditions and bodies. When the inner text cannot be parsed the compound is kept whole.
 */
async function enterCompound(cmd: string, depth: number, functions: string[]): Promise<string[] | undefined> {
  const t = cmd.trim();
  if (t.startsWith('((') || t.startsWith('[[')) return undefined;
  if (depth >= MAX_DEPTH) return undefined;
  if ((t.startsWith('(') && t.endsWith(')')) || (t.startsWith('{') && t.endsWith('}'))) {
    return (await tryParse(t.slice(1, -1), depth + 1, functions)) ?? keep(t);
  }
  if (COMPOUND_WORD.test(t)) return (await tryParse(blankReservedWords(t), depth + 1, functions)) ?? keep(t);
  return undefined;
}

/**
 * The statement cut at its top-level `&&`, `||`, `|` and `|&` (one piece when there are none). Every operator
 * the scanner proposes is checked with the parser: all at once first (the usual case: they all hold), one at
 * a time when that fails.
 */
async function cutAtOperators(stmt: string): Promise<string[]> {
  const { tokens, heredocs } = scanText(stmt);
  const candidates = tokens.filter(
    (t): t is OpToken => t.kind === 'op' && (t.op === '&&' || t.op === '||' || t.op === '|' || t.op === '|&'),
  );
  if (candidates.length === 0) return [stmt];
  // The statement's heredoc bodies follow it in the script, outside its range: closed for the parser.
  const closing = heredocs.map((word) => `\n${word}`).join('');
  const all = await cutsHolding(stmt, candidates, closing);
  let held = all;
  if (!all) {
    held = [];
    for (const c of candidates) if (await cutsHolding(stmt, [c], closing)) held.push(c);
  }
  const cuts = held ?? [];
  const pieces: string[] = [];
  let from = 0;
  for (const c of cuts) {
    pieces.push(stmt.slice(from, c.at));
    from = c.end;
  }
  pieces.push(stmt.slice(from));
  return pieces.filter((p) => normalise(p) !== '');
}

/**
 * The candidates when every one of them is a top-level cut: with each replaced by `;` (padded to its length),
 * the parser sees one more statement per candidate, each new one starting after its candidate.
 */
async function cutsHolding(
  stmt: string,
  candidates: OpToken[],
  closing: string,
): Promise<OpToken[] | undefined> {
  let probe = stmt;
  for (const c of candidates)
    probe = probe.slice(0, c.at) + ';'.padEnd(c.end - c.at, ' ') + probe.slice(c.end);
  probe += closing;
  let file: ShFile;
  try {
    file = await parseBash(probe);
  } catch {
    return undefined;
  }
  if (file.Stmts.length !== candidates.length + 1) return undefined;
  const at = byteIndex(probe);
  for (let i = 0; i < candidates.length; i++) {
    const next = file.Stmts[i + 1]!;
    const previous = file.Stmts[i]!;
    if (at(previous.End.Offset) > candidates[i]!.end || at(next.Pos.Offset) < candidates[i]!.end)
      return undefined;
  }
  return candidates;
}

// ---------------------------------------------------------------------------------------------------------
// The scanner: words and operators outside quotes, comments, `$(…)`, backticks and heredoc bodies

interface OpToken {
  kind: 'op';
  op: string;
  at: number;
  end: number;
}
interface WordToken {
  kind: 'word';
  text: string;
  at: number;
  end: number;
}
type Token = OpToken | WordToken;

const OPS = ['&&', '||', '|&', ';;&', ';;', ';&', '|', ';', '&', '(', ')', '\n'];

/** Index just past the closing quote `q` starting the search at `i` (backslash escapes when `escapes`). */
function skipQuoted(text: string, i: number, q: string, escapes: boolean): number {
  while (i < text.length) {
    const ch = text[i]!;
    if (escapes && ch === '\\') i += 2;
    else if (ch === q) return i + 1;
    else if (q === '"' && ch === '$' && text[i + 1] === '(') i = skipBalanced(text, i + 2, '(', ')');
    else if (q === '"' && ch === '`') i = skipQuoted(text, i + 1, '`', true);
    else i++;
  }
  return text.length;
}

/** Index just past the `close` matching an already-open `open`, quotes inside skipped. */
function skipBalanced(text: string, i: number, open: string, close: string): number {
  let depth = 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') i += 2;
    else if (ch === "'") i = skipQuoted(text, i + 1, "'", false);
    else if (ch === '"') i = skipQuoted(text, i + 1, '"', true);
    else if (ch === '`') i = skipQuoted(text, i + 1, '`', true);
    else if (ch === open) {
      depth++;
      i++;
    } else if (ch === close) {
      if (--depth === 0) return i + 1;
      i++;
    } else i++;
  }
  return text.length;
}

/** The heredoc delimiter word after `<<` / `<<-` at `i`, and where it ends. */
function heredocWord(text: string, i: number): { word: string; end: number } | undefined {
  const m = /^[ \t]*(?:'([^']*)'|"([^"]*)"|\\?([^\s;&|()<>]+))/.exec(text.slice(i));
  if (!m) return undefined;
  return { word: (m[1] ?? m[2] ?? m[3] ?? '').replace(/['"\\]/g, ''), end: i + m[0].length };
}

/** Tokens of a text: words (quotes, `$(…)`, `${…}` and backticks inside them) and operators. */
function scan(text: string): Token[] {
  return scanText(text).tokens;
}

/** The tokens, and the delimiters of heredocs whose bodies are not in the text (they follow it). */
function scanText(text: string): { tokens: Token[]; heredocs: string[] } {
  const tokens: Token[] = [];
  const heredocs: { word: string; tabs: boolean }[] = [];
  let i = 0;
  let wordAt = -1;
  const endWord = (end: number): void => {
    if (wordAt >= 0) tokens.push({ kind: 'word', text: text.slice(wordAt, end), at: wordAt, end });
    wordAt = -1;
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && text[i + 1] === '\n') {
      endWord(i);
      i += 2;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      endWord(i);
      i++;
      continue;
    }
    if (ch === '#' && wordAt < 0) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '\n') {
      endWord(i);
      tokens.push({ kind: 'op', op: '\n', at: i, end: i + 1 });
      i++;
      // Heredoc bodies begin on the next line: skipped to each delimiter line in turn.
      for (const doc of heredocs.splice(0)) {
        while (i < text.length) {
          const eol = text.indexOf('\n', i);
          const line = text.slice(i, eol < 0 ? text.length : eol);
          i = eol < 0 ? text.length : eol + 1;
          if ((doc.tabs ? line.replace(/^\t+/, '') : line) === doc.word) break;
        }
      }
      continue;
    }
    if (ch === '<' && text[i + 1] === '<' && text[i + 2] !== '<') {
      endWord(i);
      const tabs = text[i + 2] === '-';
      const w = heredocWord(text, i + (tabs ? 3 : 2));
      if (w) {
        heredocs.push({ word: w.word, tabs });
        i = w.end;
      } else i += 2;
      continue;
    }
    if ((ch === '>' || ch === '<') && (text[i + 1] === '&' || text[i + 1] === '|')) {
      if (wordAt < 0) wordAt = i;
      i += 2;
      continue;
    }
    if (ch === '&' && text[i + 1] === '>') {
      if (wordAt < 0) wordAt = i;
      i += 2;
      continue;
    }
    const op = OPS.find((o) => text.startsWith(o, i));
    if (op) {
      endWord(i);
      tokens.push({ kind: 'op', op, at: i, end: i + op.length });
      i += op.length;
      continue;
    }
    if (wordAt < 0) wordAt = i;
    if (ch === '\\') i += 2;
    else if (ch === "'") i = skipQuoted(text, i + 1, "'", false);
    else if (ch === '$' && text[i + 1] === "'") i = skipQuoted(text, i + 2, "'", true);
    else if (ch === '"') i = skipQuoted(text, i + 1, '"', true);
    else if (ch === '`') i = skipQuoted(text, i + 1, '`', true);
    else if (ch === '$' && text[i + 1] === '(') i = skipBalanced(text, i + 2, '(', ')');
    else if (ch === '$' && text[i + 1] === '{') i = skipBalanced(text, i + 2, '{', '}');
    else if ((ch === '<' || ch === '>') && text[i + 1] === '(') i = skipBalanced(text, i + 2, '(', ')');
    else i++;
  }
  endWord(text.length);
  return { tokens, heredocs: heredocs.map((doc) => doc.word) };
}

// ---------------------------------------------------------------------------------------------------------
// Entering compound commands: their reserved words in command position become blanks

const RESERVED = new Set(['if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}']);
/** After these, the next word is in command position. */
const LEADS = new Set([
  'then',
  'elif',
  'else',
  'do',
  'if',
  'while',
  'until',
  '!',
  '{',
  '}',
  'fi',
  'done',
  'esac',
]);
const CASE_ENDS = new Set([';;', ';&', ';;&']);

/**
 * A compound command with its reserved words blanked (same length, so offsets keep their meaning): `for NAME
 * in WORDS;` and `case WORD in` headers, `case` patterns and `esac` become spaces, `;;` becomes `;`. What is
 * left is the list of commands the compound runs.
 */
export function blankReservedWords(text: string): string {
  const chars = text.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (chars[k] !== '\n') chars[k] = ' ';
  };
  const tokens = scan(text);
  const cases: { pattern: boolean; parens: number }[] = [];
  let commandPosition = true;
  for (let n = 0; n < tokens.length; n++) {
    const t = tokens[n]!;
    const inCase = cases[cases.length - 1];
    if (inCase?.pattern) {
      // A pattern list: `(a|b)` up to its closing `)`; or `esac`.
      if (t.kind === 'word' && t.text === 'esac') {
        blank(t.at, t.end);
        cases.pop();
        commandPosition = false;
        continue;
      }
      if (t.kind === 'op' && t.op === '\n') continue;
      blank(t.at, t.end);
      if (t.kind === 'op' && t.op === '(') inCase.parens++;
      if (t.kind === 'op' && t.op === ')' && --inCase.parens <= 0) {
        inCase.pattern = false;
        commandPosition = true;
      }
      continue;
    }
    if (t.kind === 'op') {
      if (inCase && CASE_ENDS.has(t.op)) {
        chars[t.at] = ';';
        blank(t.at + 1, t.end);
        inCase.pattern = true;
        inCase.parens = 0;
      }
      commandPosition = t.op !== ')';
      continue;
    }
    if (!commandPosition) continue;
    if (t.text === 'for' || t.text === 'select') {
      // The header up to its `;` or newline outside `((…))`, or up to `do`.
      let depth = 0;
      let m = n + 1;
      for (; m < tokens.length; m++) {
        const u = tokens[m]!;
        if (u.kind === 'op' && u.op === '(') depth++;
        else if (u.kind === 'op' && u.op === ')') depth--;
        else if (depth <= 0 && u.kind === 'op' && (u.op === ';' || u.op === '\n')) break;
        else if (depth <= 0 && u.kind === 'word' && u.text === 'do') {
          m--;
          break;
        }
      }
      const last = tokens[Math.min(m, tokens.length - 1)]!;
      blank(t.at, last.end);
      n = m;
      commandPosition = true;
      continue;
    }
    if (t.text === 'case') {
      let m = n + 1;
      while (m < tokens.length && !(tokens[m]!.kind === 'word' && (tokens[m] as WordToken).text === 'in'))
        m++;
      blank(t.at, tokens[Math.min(m, tokens.length - 1)]!.end);
      cases.push({ pattern: true, parens: 0 });
      n = m;
      continue;
    }
    if (t.text === 'esac' && inCase) {
      blank(t.at, t.end);
      cases.pop();
      commandPosition = false;
      continue;
    }
    if (RESERVED.has(t.text)) {
      blank(t.at, t.end);
      commandPosition = LEADS.has(t.text);
      continue;
    }
    commandPosition = false;
  }
  return chars.join('');
}
