/**
 * What a terminal shows of a log line, computed by hand-written scanners rather than regular expressions: they
 * run on every line of every log (tens of megabytes), where they are several times faster than a pattern on
 * the linear-time engine, and each is one pass that never looks at a character twice, so they are linear by
 * construction. test/unit/knowledge/diagnose/terminal-text.test.ts holds them to the regular expressions they
 * replace, on random text.
 */

const ESC = 0x1b;
const BEL = 0x07;

/** Where the escape sequence that starts at `i` (an ESC) ends, or -1 when none does. */
function escapeEnd(line: string, i: number): number {
  const kind = line.charCodeAt(i + 1);
  if (kind === 0x5b) {
    // CSI: ESC [ parameters (0x30-0x3F)* intermediates (0x20-0x2F)* final (0x40-0x7E)
    let j = i + 2;
    while (j < line.length && line.charCodeAt(j) >= 0x30 && line.charCodeAt(j) <= 0x3f) j++;
    while (j < line.length && line.charCodeAt(j) >= 0x20 && line.charCodeAt(j) <= 0x2f) j++;
    const final = line.charCodeAt(j);
    if (final >= 0x40 && final <= 0x7e) return j + 1;
  } else if (kind === 0x5d) {
    // OSC: ESC ] text up to BEL or ESC \
    let j = i + 2;
    while (j < line.length && line.charCodeAt(j) !== BEL && line.charCodeAt(j) !== ESC) j++;
    if (line.charCodeAt(j) === BEL) return j + 1;
    if (line.charCodeAt(j) === ESC && line.charCodeAt(j + 1) === 0x5c) return j + 2;
  }
  // A two-byte escape: ESC and one of @-Z or \ ] ^ _ (an OSC that did not finish is one too; `[` is not).
  return (kind >= 0x40 && kind <= 0x5a) || (kind >= 0x5c && kind <= 0x5f) ? i + 2 : -1;
}

/**
 * `line` without ANSI escape sequences: CSI (colours, cursor movement), OSC (titles, hyperlinks) and two-byte
 * escapes — what `/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g` removes.
 */
export function stripAnsi(line: string): string {
  let at = line.indexOf('\u001b');
  if (at < 0) return line;
  let out = '';
  let kept = 0;
  while (at >= 0) {
    const end = escapeEnd(line, at);
    if (end < 0) {
      at = line.indexOf('\u001b', at + 1);
      continue;
    }
    out += line.slice(kept, at);
    kept = end;
    at = line.indexOf('\u001b', end);
  }
  return out + line.slice(kept);
}

/** `line` without the carriage returns at its end. */
export function trimTrailingCr(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  return end === line.length ? line : line.slice(0, end);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** How many digits start at `i`. */
function digits(line: string, i: number): number {
  let j = i;
  while (isDigit(line.charCodeAt(j))) j++;
  return j - i;
}

/**
 * The length of the ISO-8601 UTC timestamp a GitHub Actions raw log starts each line with
 * (`2024-05-01T10:00:00.1234567Z`, the fraction optional), or 0 when the line does not start with one.
 */
export function ciTimestampLength(line: string): number {
  // YYYY-MM-DDTHH:MM:SS: digits at every position but these separators.
  const shape = 'dddd-dd-ddTdd:dd:dd';
  if (line.length < shape.length + 1) return 0;
  for (let i = 0; i < shape.length; i++) {
    const want = shape.charCodeAt(i);
    const got = line.charCodeAt(i);
    if (want === 100 /* d */ ? !isDigit(got) : got !== want) return 0;
  }
  let i = shape.length;
  if (line.charCodeAt(i) === 46 /* . */) {
    const n = digits(line, i + 1);
    if (n === 0) return 0;
    i += 1 + n;
  }
  return line.charCodeAt(i) === 90 /* Z */ ? i + 1 : 0;
}

/**
 * The length of a CI prefix the layer-1 parser drops: a GitHub Actions timestamp and one space, or a BuildKit
 * step prefix (`#12 0.345 `); 0 when there is none — what
 * `/^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z |#\d+ \d+(?:\.\d+)? )/` matches.
 */
export function logLinePrefixLength(line: string): number {
  const first = line.charCodeAt(0);
  if (isDigit(first)) {
    const n = ciTimestampLength(line);
    return n > 0 && line.charCodeAt(n) === 32 ? n + 1 : 0;
  }
  if (first !== 35 /* # */) return 0;
  const step = digits(line, 1);
  if (step === 0 || line.charCodeAt(1 + step) !== 32) return 0;
  let i = 2 + step;
  const whole = digits(line, i);
  if (whole === 0) return 0;
  i += whole;
  if (line.charCodeAt(i) === 46 /* . */) {
    const fraction = digits(line, i + 1);
    if (fraction > 0) i += 1 + fraction;
  }
  return line.charCodeAt(i) === 32 ? i + 1 : 0;
}
