/**
 * The one-pass scanners of terminal-text.ts against the regular expressions they replaced, on random text made
 * of the characters those expressions care about (a fixed seed, so a failure repeats).
 */
import { describe, expect, it } from '@jest/globals';

import {
  ciTimestampLength,
  logLinePrefixLength,
  stripAnsi,
  trimTrailingCr,
} from '../../../../src/knowledge/diagnose/terminal-text.js';

// The expressions stripCiPrefixes and normalizeLogLine used before the scanners.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/;
const LINE_PREFIX = /^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z |#\d+ \d+(?:\.\d+)? )/;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function texts(alphabet: string[], count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * 24);
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
    return text;
  });
}

describe('terminal-text scanners', () => {
  it('stripAnsi removes what the ANSI expression removes', () => {
    const alphabet = [
      '\u001b',
      '[',
      ']',
      '\\',
      '\u0007',
      '0',
      ';',
      '?',
      ' ',
      '/',
      'm',
      'A',
      '_',
      '~',
      'x',
      '\u007f',
    ];
    for (const text of texts(alphabet, 20000, 1))
      expect([text, stripAnsi(text)]).toEqual([text, text.replace(ANSI, '')]);
    expect(stripAnsi('\u001b[1;32mok\u001b[0m \u001b]8;;https://x\u001b\\link\u001b]8;;\u0007')).toBe(
      'ok link',
    );
  });

  it('the timestamp and line prefixes are what the expressions matched', () => {
    const alphabet = ['1', '2', '0', '-', 'T', ':', '.', 'Z', ' ', '#', 'x'];
    const shaped = texts(alphabet, 20000, 2).map((tail, i) =>
      i % 2 === 0 ? `2024-05-01T10:00:00${tail}` : `#${tail}`,
    );
    for (const text of [...shaped, ...texts(alphabet, 5000, 3)]) {
      expect([text, ciTimestampLength(text)]).toEqual([text, TIMESTAMP.exec(text)?.[0].length ?? 0]);
      expect([text, logLinePrefixLength(text)]).toEqual([text, LINE_PREFIX.exec(text)?.[0].length ?? 0]);
    }
    expect(logLinePrefixLength('#12 0.345 RUN make')).toBe('#12 0.345 '.length);
    expect(ciTimestampLength('2024-05-01T10:00:00.1234567Z make')).toBe(28);
  });

  it('trimTrailingCr drops carriage returns at the end only', () => {
    for (const text of ['a\r\r', '\r\ra', 'a', '', '\r', 'a\rb\r'])
      expect(trimTrailingCr(text)).toBe(text.replace(/\r+$/, ''));
  });
});
