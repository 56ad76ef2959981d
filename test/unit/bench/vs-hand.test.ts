/**
 * bench/vs-hand.ts's corpus file and its arithmetic: a bad entry is named with its field; the total ratio is
 * the sum over the sum of the compared repositories, the median the middle ratio; a repository whose hand
 * run failed or whose build did not verify is left out of the ratios.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { harnessPhases, readVsHandCorpus, vsHandResults } from '../../../bench/vs-hand.js';

const dir = mkdtempSync(join(tmpdir(), 'bb-vs-hand-'));
const script = join(dir, 'hand.sh');
writeFileSync(script, 'make\n');

describe('readVsHandCorpus', () => {
  it('reads entries with their defaults', () => {
    const entries = readVsHandCorpus(
      'c.json',
      JSON.stringify([
        { name: 'a', dir, hand: script, expect: ['a'] },
        { name: 'b', dir },
      ]),
    );
    expect(entries).toEqual([
      { name: 'a', dir, hand: script, expect: ['a'] },
      { name: 'b', dir, expect: [] },
    ]);
  });

  it("the committed corpus's form: the checkout under the source folder, the hand script beside the file", () => {
    const src = mkdtempSync(join(tmpdir(), 'bb-vs-hand-src-'));
    mkdirSync(join(src, 'tool'));
    const file = join(dir, 'corpus.json');
    const text = JSON.stringify([
      { name: 'tool', repo: 'o/tool', commit: 'abc', hand: 'hand.sh', expect: ['t'] },
    ]);
    expect(readVsHandCorpus(file, text, src)).toEqual([
      { name: 'tool', dir: join(src, 'tool'), hand: script, expect: ['t'] },
    ]);
    expect(() => readVsHandCorpus(file, text)).toThrow(/entry 1: no "dir", and BB_BENCH_VS_HAND_SRC/);
    expect(() => readVsHandCorpus(file, text.replace('"tool"', '"other"'), src)).toThrow(/entry 1: "dir"/);
  });

  it.each([
    ['{', /c\.json: not JSON/],
    ['{}', /c\.json: expected an array/],
    [JSON.stringify([{ name: 'a b', dir }]), /entry 1: "name"/],
    [JSON.stringify([{ name: 'a', dir: join(dir, 'nope') }]), /entry 1: "dir"/],
    [
      JSON.stringify([
        { name: 'a', dir },
        { name: 'b', dir, hand: join(dir, 'nope.sh') },
      ]),
      /entry 2: "hand"/,
    ],
    [JSON.stringify([{ name: 'a', dir, expect: 'a' }]), /entry 1: "expect"/],
  ])('refuses %s, naming what is wrong', (text, message) => {
    expect(() => readVsHandCorpus('c.json', text)).toThrow(message);
  });
});

describe('vsHandResults', () => {
  const row = (name: string, bbMs: number, handMs: number | undefined, success = true) => ({
    name,
    handSource: 'documented' as const,
    bbMs,
    ...(handMs !== undefined ? { handMs } : {}),
    turns: success ? 1 : 3,
    success,
    replayMs: 0,
    harnessMs: 0,
  });

  it('sums over the compared repositories and takes the middle ratio', () => {
    const results = vsHandResults([
      row('a', 12_000, 10_000), // 1.2×
      row('b', 3_000, 1_000), // 3×
      row('c', 11_000, 10_000), // 1.1×
      row('d', 50_000, undefined), // hand failed: left out
      row('e', 9_000, 1_000, false), // not verified: left out
    ]);
    const value = (name: string): number | undefined => results.find((r) => r.name === name)?.value;
    expect(value('vs_hand.compared')).toBe(3);
    expect(value('vs_hand.total_ratio')).toBe(1.24); // 26 s / 21 s
    expect(value('vs_hand.median_ratio')).toBe(1.2);
    expect(value('vs_hand.turns_per_success')).toBe(1);
    expect(value('vs_hand.b.ratio')).toBe(3);
    expect(value('vs_hand.d.ratio')).toBeUndefined();
  });

  it("reports the harness's time by phase, per repository's result and summed", () => {
    const timings = {
      startedAt: '',
      finishedAt: '',
      totalMs: 5_000,
      harnessMs: 900,
      beforeFirstScript: {
        totalMs: 400,
        sandboxMs: 100,
        harnessMs: 300,
        phases: { inspect: 120, build: 180 },
      },
    };
    const phases = harnessPhases(timings as never);
    expect(phases).toEqual({ inspect: 120, build: 180, sandbox_commands: 100, after_first_script: 600 });
    expect(harnessPhases({ totalMs: 1 } as never)).toBeUndefined();
    const results = vsHandResults([
      { ...row('a', 12_000, 10_000), phases: phases! },
      { ...row('b', 3_000, 1_000), phases: { inspect: 1_880, after_first_script: 400 } },
    ]);
    const value = (name: string): number | undefined => results.find((r) => r.name === name)?.value;
    expect(value('vs_hand.harness_by_phase.inspect')).toBe(2);
    expect(value('vs_hand.harness_by_phase.after_first_script')).toBe(1);
  });
});
