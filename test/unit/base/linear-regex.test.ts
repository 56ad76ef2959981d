import { describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';

import {
  linear,
  linearRegex,
  LinearRegex,
  LinearSyntaxError,
  writtenPatterns,
} from '../../../src/base/linear-regex.js';

describe('linearRegex (RE2JS)', () => {
  it('refuses what needs backtracking: lookahead, lookbehind, backreferences', () => {
    for (const pattern of ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?<x>a)\\k<x>']) {
      expect(() => linearRegex(pattern)).toThrow(LinearSyntaxError);
    }
    expect(() => linearRegex('a', 'g')).toThrow(/flag "g"/);
  });

  it('finds the match JavaScript finds, with its named groups (absent ones undefined)', () => {
    const cases: [string, string][] = [
      [
        '(?<path>[^\\s:]+):(?<line>\\d+):(?:(?<column>\\d+):)? (?:fatal )?error: (?<error>.+)$',
        'a.c:3: error: x',
      ],
      ["multiple definition of ['‘’`](?<symbol>[^'‘’`]+)['‘’`]", "a.o: multiple definition of `foo'; b.o"],
      ['(?<a>x+?)(?<b>x*)$', 'xxxx'],
      ['(?:^|\\W)(?<variable>[A-Za-z_]\\w{0,127})-NOTFOUND', 'path: "/src/ZLIB_INCLUDE_DIR-NOTFOUND"'],
      ['(?<release>1\\.[0-7]|[5-7])(?:[^\\d.]|$)', 'option 1.5. option 6 is'],
    ];
    for (const [pattern, text] of cases) {
      const native = new RegExp(pattern).exec(text);
      const mine = linearRegex(pattern).exec(text);
      expect(mine?.[0]).toBe(native?.[0]);
      expect(mine?.index).toBe(native?.index);
      expect({ ...mine?.groups }).toEqual({ ...native?.groups });
    }
    expect(linearRegex('zzz').exec('abc')).toBeNull();
  });

  it('lists its named groups in order, and takes i, m, s, u', () => {
    expect(linearRegex('(?<b>x)(?<a>y)(z)').groupNames).toEqual(['b', 'a']);
    expect(linearRegex('ERROR', 'i').test('an error')).toBe(true);
    expect(linearRegex('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(linearRegex('a.b', 's').test('a\nb')).toBe(true);
    expect(linearRegex('‘(?<q>[^’]+)’', 'u').exec('x ‘y’')?.groups.q).toBe('y');
  });

  it('replaces every match with literal text and splits as String.split does', () => {
    expect(linear`\d+`.replaceAll('a1b22c', '$&')).toBe('a$&b$&c');
    expect(linear`x`.replaceAll('abc', '-')).toBe('abc');
    for (const text of ['a b  c', ' a\tb ', '', 'abc'])
      expect(linear`\s+`.split(text)).toEqual(text.split(/\s+/));
    expect(linear('i')`^a`).toBeInstanceOf(LinearRegex);
    expect(linear('i')`^a`.test('A')).toBe(true);
  });

  it('stays linear where a backtracking engine does not: (a+)+$ on a run of a', () => {
    const re = linearRegex('(a+)+$');
    const time = (n: number): number => {
      const text = `${'a'.repeat(n)}!`;
      const start = performance.now();
      expect(re.test(text)).toBe(false);
      return performance.now() - start;
    };
    time(1000);
    // Exponential for V8's backtracking engine at 30 characters; here 64 Ki is a few milliseconds.
    expect(time(64 * 1024)).toBeLessThan(2000);
  });

  it('every pattern the sources write with linear`…` compiles (each compiles on first use in a run)', async () => {
    // The modules that write patterns with the template (grep: linear`): loading them registers their constants.
    await import('../../../src/knowledge/diagnose/diagnosis.js');
    const sources = writtenPatterns().map((r) => r.source);
    expect(sources.length).toBeGreaterThanOrEqual(20);
    for (const regex of writtenPatterns()) expect(() => regex.test('')).not.toThrow();
    // a pattern the engine refuses surfaces at its first use, as a LinearSyntaxError naming it
    const bad = linear`(?=x)`;
    expect(() => bad.test('x')).toThrow(LinearSyntaxError);
  });
});
