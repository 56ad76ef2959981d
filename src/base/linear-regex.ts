/**
 * Regular expressions that run in time linear in their input, for text a stranger wrote (build logs, CI job
 * logs): the patterns are compiled by RE2JS (`re2js`, a pure-JavaScript port of RE2/Go's regexp: automata,
 * no backtracking), so no line can make a match quadratic or worse. RE2's syntax is JavaScript's without
 * what needs backtracking: no lookahead or lookbehind, no backreferences — such a pattern is refused when it is
 * compiled, with the reason. Named groups are `(?<name>…)`.
 *
 * `test` runs the engine's DFA (a few ns a character); `exec` also finds the groups (slower, still linear), so
 * callers that mostly see lines that do not match test first.
 */
import { RE2JS } from 're2js';

/** A match: the matched text, where it starts, and the named groups (undefined when a group took no part). */
export interface LinearMatch {
  readonly 0: string;
  readonly index: number;
  readonly groups: Readonly<Record<string, string | undefined>>;
}

/** A pattern RE2JS refuses (a lookaround, a backreference, a bad flag): the reason in words. */
export class LinearSyntaxError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`${reason} (in /${pattern}/; patterns run on RE2, which has no lookaround or backreferences)`);
    this.name = 'LinearSyntaxError';
  }
}

/** JavaScript flag letters RE2JS understands: i, m, s; u is accepted and changes nothing (RE2 reads code points). */
function engineFlags(pattern: string, flags: string): number {
  let bits = 0;
  for (const flag of flags) {
    if (flag === 'i') bits |= RE2JS.CASE_INSENSITIVE;
    else if (flag === 'm') bits |= RE2JS.MULTILINE;
    else if (flag === 's') bits |= RE2JS.DOTALL;
    else if (flag !== 'u')
      throw new LinearSyntaxError(pattern, `flag "${flag}" is not supported (use i, m, s, u)`);
  }
  return bits;
}

/**
 * The names of the named groups `(?<name>` / `(?P<name>` of a pattern, in the order they open, read from its text
 * (escapes and character classes skipped): what RE2 would report, without compiling.
 */
export function scanGroupNames(source: string): string[] {
  const names: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (source[i + 1] === ']') i++; // `[]…]`: a leading ] is literal
      continue;
    }
    if (c !== '(' || source[i + 1] !== '?') continue;
    let j = i + 2;
    if (source[j] === 'P') j++;
    if (source[j] !== '<') continue;
    const end = source.indexOf('>', j);
    if (end < 0) break;
    names.push(source.slice(j + 1, end));
    i = end;
  }
  return names;
}

/** How a LinearRegex is made. */
export interface LinearRegexOptions {
  /**
   * Compile on first use instead of now: for a large trusted table of patterns (a catalog whose every pattern a
   * test compiles), of which one run uses a few. A syntax error then surfaces at first use.
   */
  deferred?: boolean;
}

/** A compiled linear-time pattern; stateless (no `lastIndex`), so one instance serves every caller. */
export class LinearRegex {
  private compiled: RE2JS | undefined;
  private readonly bits: number;

  constructor(
    readonly source: string,
    readonly flags = '',
    options: LinearRegexOptions = {},
  ) {
    this.bits = engineFlags(source, flags);
    if (!options.deferred) this.compiled = this.compile();
  }

  private compile(): RE2JS {
    try {
      return RE2JS.compile(this.source, this.bits);
    } catch (error) {
      throw new LinearSyntaxError(this.source, error instanceof Error ? error.message : String(error));
    }
  }

  private get re(): RE2JS {
    return (this.compiled ??= this.compile());
  }

  /** The names of the pattern's named groups, in the order they open. */
  get groupNames(): string[] {
    if (!this.compiled) return scanGroupNames(this.source);
    return Object.entries(this.compiled.namedGroups())
      .sort((a, b) => a[1] - b[1])
      .map(([name]) => name);
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    return this.re.test(text);
  }

  /** The leftmost match (the same one JavaScript's engine picks), or null. */
  exec(text: string): LinearMatch | null {
    if (!this.re.test(text)) return null;
    const m = this.re.exec(text) as (string[] & { index: number; groups?: Record<string, string> }) | null;
    if (!m) return null;
    return { 0: m[0] ?? '', index: m.index, groups: m.groups ?? {} };
  }

  /** `text` with every match replaced by `replacement` (a literal string). */
  replaceAll(text: string, replacement: string): string {
    if (!this.re.test(text)) return text;
    return this.re.matcher(text).replaceAll(() => replacement);
  }

  /** `text` cut at every match, as `String.prototype.split` with a RegExp does (empty pieces kept). */
  split(text: string): string[] {
    if (!this.re.test(text)) return [text];
    return this.re.split(text, -1);
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** Compiles `source` for linear-time matching; throws LinearSyntaxError when RE2 cannot run it. */
export function linearRegex(source: string, flags = ''): LinearRegex {
  return new LinearRegex(source, flags);
}

/** Every pattern written with `linear` (module constants of the sources), for the test that compiles them all. */
const written: LinearRegex[] = [];

/** The patterns written with `linear` in the modules loaded so far. */
export function writtenPatterns(): readonly LinearRegex[] {
  return written;
}

function writtenPattern(source: string, flags = ''): LinearRegex {
  const regex = new LinearRegex(source, flags, { deferred: true });
  written.push(regex);
  return regex;
}

/**
 * A linear-time pattern written as a template (`linear\`^\d+\``): the raw text is the pattern, so it is spelled
 * as a JavaScript regex literal would be. A flags string may follow via `linear('i')\`…\``. Meant for a module's
 * constants: each compiles on first use (a command that never reaches a pattern does not pay for it; issue 32),
 * and test/unit/base/linear-regex.test.ts compiles every one the sources write.
 */
export function linear(strings: TemplateStringsArray, ...values: string[]): LinearRegex;
export function linear(flags: string): (strings: TemplateStringsArray, ...values: string[]) => LinearRegex;
export function linear(
  first: TemplateStringsArray | string,
  ...values: string[]
): LinearRegex | ((strings: TemplateStringsArray, ...values: string[]) => LinearRegex) {
  if (typeof first === 'string') {
    return (strings, ...rest) => writtenPattern(String.raw(strings, ...rest), first);
  }
  return writtenPattern(String.raw(first, ...values));
}
