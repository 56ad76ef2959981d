/**
 * Logs for the linear-time checks of the diagnosis (issue 28): a hostile CI log — 64 KiB lines that make a
 * backtracking pattern quadratic (runs of one `error` word, keyword soup that almost matches every signature,
 * nested brackets, runs of one character) — followed by the real fixture logs, and a benign log of real build
 * output (test/fixtures/logs/*.log repeated) of a given size. Both end up with the same root cause, from the
 * same real lines, so a test or the bench can ask that the hostile one is diagnosed to completion as well.
 * Used by test/unit/knowledge/diagnose/linear.test.ts, the bot's worker test and bench/diagnose-hostile.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { defaultSignatureCatalog } from '../../src/knowledge/diagnose/signatures.js';

const LOGS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/logs');

/** The real fixture logs, in file-name order, joined (each ends with a newline). */
export function realLogs(): string {
  return readdirSync(LOGS)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(LOGS, f), 'utf8');
      return text.endsWith('\n') ? text : `${text}\n`;
    })
    .join('');
}

/** Benign real build output of at least `bytes` characters: the fixture logs repeated. */
export function benignLog(bytes: number): string {
  const once = realLogs();
  return once.repeat(Math.max(1, Math.ceil(bytes / once.length)));
}

/** A line of `unit` repeated to `length` characters. */
function fill(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/**
 * Every keyword of the shipped catalog, joined, minus the keywords of any signature the line would then match:
 * a line on which every other signature is tried (and fails) at every keyword.
 */
export function keywordSoup(): string {
  const catalog = defaultSignatureCatalog();
  const dropped = new Set<string>();
  for (;;) {
    const words = [...new Set(catalog.signatures.flatMap((s) => s.keywords))].filter((k) => !dropped.has(k));
    const line = `${words.join(' ')} `;
    const hit = catalog.match(line) ?? catalog.match(fill(line, 4096));
    if (!hit) return line;
    for (const k of hit.signature.keywords) dropped.add(k);
  }
}

/**
 * The hostile lines, each `lineLength` characters long (no newline). `quiet` lines read as no error at all
 * (they keep the search for a raw error line going, as a log of `error` words does); `loud` ones look like
 * errors to that search but match no signature.
 */
export function hostileLines(lineLength = 64 * 1024): { quiet: string[]; loud: string[] } {
  const quarter = lineLength / 4;
  return {
    quiet: [
      fill('error ', lineLength),
      `${fill('(', quarter)}${fill('[', quarter)}${fill(']', quarter)}${fill(')', quarter)}`,
      fill('a', lineLength),
      `x${fill(' ', lineLength - 2)}x`,
      fill('multiple definition of x ', lineLength),
      fill('undefined reference to x ', lineLength),
      fill('1:', lineLength),
      fill('/', lineLength),
      fill('CMake Error at x(', lineLength),
      fill(' -NOTFOUND', lineLength),
    ],
    loud: [fill('xerror: ', lineLength), fill(keywordSoup(), lineLength)],
  };
}

/**
 * A hostile log of about `bytes` characters, then the real fixture logs once (the part that holds the root
 * cause, the same as `benignLog`'s). Its first four fifths are lines of `error` words, 16 KiB each (the longest
 * a raw-error search reads of a line, so the most lines that are worst for it), two thirds of the bytes, with
 * the other quiet hostile lines between them; the last fifth are the loud ones.
 */
export function hostileLog(bytes: number, lineLength = 64 * 1024): string {
  const { quiet, loud } = hostileLines(lineLength);
  const errors = fill('error ', 16 * 1024);
  const perQuiet = Math.max(1, Math.round((2 * lineLength) / errors.length));
  const tail = realLogs();
  const out: string[] = [];
  let size = tail.length;
  for (let i = 0; size < bytes; i++) {
    const line =
      size < bytes * 0.8
        ? i % (perQuiet + 1) === perQuiet
          ? (quiet[1 + (Math.floor(i / (perQuiet + 1)) % (quiet.length - 1))] as string)
          : errors
        : (loud[i % loud.length] as string);
    out.push(line);
    size += line.length + 1;
  }
  return `${out.join('\n')}\n${tail}`;
}
