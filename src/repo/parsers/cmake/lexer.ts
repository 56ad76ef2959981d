/**
 * The CMake reader: splits CMakeLists.txt text into command invocations (names, quoted, unquoted and
 * bracket arguments, line and bracket comments). It knows nothing about what the commands mean.
 */

export interface CMakeArg {
  value: string;
  quoted: boolean;
}

export interface CMakeCommand {
  /** Lower-cased command name. */
  name: string;
  args: CMakeArg[];
  line: number;
}

/** Splits CMake source into command invocations. Never throws; unbalanced input ends the last command. */
export function parseCMake(text: string): CMakeCommand[] {
  return new Lexer(text).commands();
}

const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';
const endsUnquoted = (c: string): boolean => isBlank(c) || c === '\n' || c === '(' || c === ')';

/** A cursor over the text: the position and the current line number. */
class Lexer {
  private readonly n: number;
  private i = 0;
  private line = 1;

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  private at(pos: number): string {
    return this.text[pos] ?? '';
  }

  commands(): CMakeCommand[] {
    const out: CMakeCommand[] = [];
    while (this.i < this.n) {
      const ch = this.at(this.i);
      if (ch === '\n') {
        this.line++;
        this.i++;
      } else if (ch === '#') {
        this.i = this.skipComment(this.i);
      } else if (/[A-Za-z_]/.test(ch)) {
        const command = this.command();
        if (command) out.push(command);
      } else {
        this.i++;
      }
    }
    return out;
  }

  /** A name and, when `(` follows, its arguments; a bare word is skipped. */
  private command(): CMakeCommand | undefined {
    const start = this.i;
    while (this.i < this.n && /[A-Za-z0-9_]/.test(this.at(this.i))) this.i++;
    const name = this.text.slice(start, this.i).toLowerCase();
    let j = this.i;
    while (this.at(j) === ' ' || this.at(j) === '\t') j++;
    if (this.at(j) !== '(') return undefined;
    const line = this.line;
    this.i = j + 1;
    return { name, args: this.args(), line };
  }

  /** Arguments up to the `)` that closes the command; nested parentheses are kept as `(` and `)` words. */
  private args(): CMakeArg[] {
    const args: CMakeArg[] = [];
    let depth = 1;
    while (this.i < this.n && depth > 0) {
      const c = this.at(this.i);
      if (c === '\n') {
        this.line++;
        this.i++;
      } else if (isBlank(c)) {
        this.i++;
      } else if (c === '#') {
        this.i = this.skipComment(this.i);
      } else if (c === '(') {
        depth++;
        args.push({ value: '(', quoted: false });
        this.i++;
      } else if (c === ')') {
        depth--;
        if (depth > 0) args.push({ value: ')', quoted: false });
        this.i++;
      } else if (c === '"') {
        args.push({ value: this.quoted(), quoted: true });
      } else if (this.bracketAt(this.i) >= 0) {
        const { end, body } = this.skipBracket(this.i, this.bracketAt(this.i));
        this.i = end;
        args.push({ value: body, quoted: true });
      } else {
        args.push({ value: this.unquoted(), quoted: false });
      }
    }
    return args;
  }

  /** A `"…"` argument from its opening quote, with `\n`, `\t` and `\;` escapes and line continuations. */
  private quoted(): string {
    let value = '';
    this.i++;
    while (this.i < this.n && this.at(this.i) !== '"') {
      const q = this.at(this.i);
      if (q === '\\' && this.i + 1 < this.n) {
        const e = this.at(this.i + 1);
        if (e === '\n') this.line++;
        else value += e === 'n' ? '\n' : e === 't' ? '\t' : e === ';' ? '\\;' : e;
        this.i += 2;
        continue;
      }
      if (q === '\n') this.line++;
      value += q;
      this.i++;
    }
    this.i++;
    return value;
  }

  /** An unquoted argument; escapes are kept as written. */
  private unquoted(): string {
    let value = '';
    while (this.i < this.n) {
      const u = this.at(this.i);
      if (endsUnquoted(u)) break;
      if (u === '\\' && this.i + 1 < this.n) {
        value += u + this.at(this.i + 1);
        this.i += 2;
        continue;
      }
      if (u === '"') {
        // A quote inside an unquoted argument (-DX="y") runs to its closing quote.
        const close = this.text.indexOf('"', this.i + 1);
        const end = close < 0 || this.text.slice(this.i, close).includes('\n') ? this.i + 1 : close + 1;
        value += this.text.slice(this.i, end);
        this.i = end;
        continue;
      }
      value += u;
      this.i++;
    }
    return value;
  }

  /** `[`, `=`*, `[` → number of `=`; -1 when not a bracket opener. */
  private bracketAt(pos: number): number {
    if (this.at(pos) !== '[') return -1;
    let j = pos + 1;
    while (this.at(j) === '=') j++;
    return this.at(j) === '[' ? j - pos - 1 : -1;
  }

  private skipBracket(pos: number, level: number): { end: number; body: string } {
    const open = pos + level + 2;
    const close = `]${'='.repeat(level)}]`;
    const at = this.text.indexOf(close, open);
    const end = at < 0 ? this.n : at + close.length;
    const body = this.text.slice(open, at < 0 ? this.n : at);
    for (const ch of this.text.slice(pos, end)) if (ch === '\n') this.line++;
    return { end, body: body.startsWith('\n') ? body.slice(1) : body };
  }

  /** The end of a `#` comment: a bracket comment's end, or the newline (not consumed). */
  private skipComment(pos: number): number {
    const level = this.bracketAt(pos + 1);
    if (level >= 0) return this.skipBracket(pos + 1, level).end;
    const nl = this.text.indexOf('\n', pos);
    return nl < 0 ? this.n : nl;
  }
}
