import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import { compareResultSets, renderComparison } from '../../../src/bench/compare.js';
import { writeLeaderboard } from '../../../src/bench/leaderboard.js';
import { runCompareCommand, runLeaderboardCommand } from '../../../src/cli/compare.js';
import { run } from '../../../src/cli/main.js';
import type { BuildResult } from '../../../src/report/result.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';
import { writeFixtureRuns, writeRun } from './bench-fixtures.js';

const partial = (): BuildResult =>
  fakeResult({ status: 'partial', metrics: { completion: true, strict: false, flexible: true } });

/**
 * A: rules — one: 2/2 strict; two: 1/2; three: 0/2, flexible 1/2; four: 1/2; solo: 1/1.
 * B: llm   — one: 1/2 strict (loss); two: 2/2 (win); three: 0/2, flexible 2/2 (win on flexible); four: 1/2 (tie);
 *            extra: 1/1 (only in B).
 */
async function twoSets(): Promise<string> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'bb-compare-'));
  const runs: [string, string, BuildResult[]][] = [
    ['a', 'one', [fakeResult(), fakeResult()]],
    ['a', 'two', [fakeResult(), failedResult()]],
    ['a', 'three', [partial(), failedResult()]],
    ['a', 'four', [fakeResult({ timings: { ...fakeResult().timings, totalMs: 10_000 } }), failedResult()]],
    ['a', 'solo', [fakeResult()]],
    ['b', 'one', [fakeResult(), failedResult()]],
    ['b', 'two', [fakeResult(), fakeResult()]],
    ['b', 'three', [partial(), partial()]],
    ['b', 'four', [failedResult(), fakeResult({ timings: { ...fakeResult().timings, totalMs: 4_000 } })]],
    ['b', 'extra', [fakeResult()]],
  ];
  for (const [side, task, results] of runs)
    for (const [i, result] of results.entries())
      await writeRun(cwd, {
        dir: `${side}/runs/${task}/${i + 1}`,
        task,
        run: i + 1,
        strategy: side === 'a' ? 'rules' : 'llm',
        ...(side === 'b' ? { model: 'openai:m' } : {}),
        result,
      });
  return cwd;
}

function io(cwd: string): {
  out: string[];
  err: string[];
  stdout: (t: string) => void;
  stderr: (t: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
} {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd, env: {} };
}

describe('compareResultSets', () => {
  it('counts wins, losses and ties task by task, strict first, then flexible, with the deltas', async () => {
    const cwd = await twoSets();
    const c = await compareResultSets('a', 'b', {
      cwd,
      failIf: ['strict-dropped', 'flexible-dropped', 'any-loss'],
    });
    expect(c.a.system).toBe('rules');
    expect(c.b.system).toBe('llm (openai:m)');
    expect(c.common).toBe(4);
    expect(c.onlyInA).toEqual(['solo']);
    expect(c.onlyInB).toEqual(['extra']);
    const outcome = Object.fromEntries(c.tasks.map((t) => [t.task, [t.outcome, t.decidedBy]]));
    expect(outcome).toEqual({
      four: ['tie', undefined],
      one: ['loss', 'strict'],
      three: ['win', 'flexible'],
      two: ['win', 'strict'],
    });
    expect([c.wins, c.losses, c.ties]).toEqual([2, 1, 1]);
    const one = c.tasks.find((t) => t.task === 'one')!;
    expect(one.delta).toMatchObject({ strict: -0.5, flexible: -0.5, completion: -0.5, passAt1: -0.5 });
    const three = c.tasks.find((t) => t.task === 'three')!;
    expect(three.delta).toMatchObject({ strict: 0, flexible: 0.5, completion: 0.5 });
    // four: wall time medians 7.5s (10s and 5s) against 4.5s (5s and 4s)
    expect(c.tasks.find((t) => t.task === 'four')!.delta.wallMs).toBe(-3000);
    // over the common tasks: strict A (1 + .5 + 0 + .5)/4 = .5, B (.5 + 1 + 0 + .5)/4 = .5; flexible .625 → .75
    expect(c.overall.a.strict).toBe(0.5);
    expect(c.overall.b.strict).toBe(0.5);
    expect(c.overall.delta.flexible).toBe(0.125);
    expect(c.failIf.map((f) => [f.condition, f.holds])).toEqual([
      ['strict-dropped', false],
      ['flexible-dropped', false],
      ['any-loss', true],
    ]);
    const text = renderComparison(c);
    expect(text).toContain('B wins 2, loses 1, ties 1 of the 4 tasks both ran.');
    expect(text).toContain('Only in A (not compared): solo');
    expect(text).toMatch(/^one +100% +50% +−50 pp +−50 pp +−50 pp .* loss \(strict\)$/m);
    expect(text).toContain('--fail-if any-loss: FAIL (B lost 1: one)');
  });

  it('the other way round, strict and flexible dropped hold', async () => {
    const cwd = await twoSets();
    const c = await compareResultSets('b', 'a', { cwd, failIf: ['strict-dropped', 'flexible-dropped'] });
    expect([c.wins, c.losses, c.ties]).toEqual([1, 2, 1]);
    expect(c.failIf.map((f) => f.holds)).toEqual([false, true]);
    expect(c.failIf[1]!.detail).toBe('flexible 75% → 62.5% over the 4 tasks both ran');
  });

  it('reads a leaderboard.json as a side, and a folder that holds only one', async () => {
    const cwd = await twoSets();
    await writeLeaderboard(['a'], 'boards/a', { cwd });
    const fromFile = await compareResultSets('boards/a/leaderboard.json', 'b', { cwd });
    const fromFolder = await compareResultSets('boards/a', 'b', { cwd });
    const fromRuns = await compareResultSets('a', 'b', { cwd });
    expect(fromFile.tasks).toEqual(fromRuns.tasks);
    expect(fromFolder.tasks).toEqual(fromRuns.tasks);
  });

  it('refuses a side it cannot use, saying why', async () => {
    const cwd = await twoSets();
    const { files } = await writeLeaderboard(['a'], 'boards/a', { cwd });
    const board = JSON.parse(await readFile(files.json, 'utf8')) as {
      systems: { rates: { strict: unknown } }[];
    };
    board.systems[0]!.rates.strict = 'most';
    await writeFile(path.join(cwd, 'bad.json'), JSON.stringify(board));
    await expect(compareResultSets('bad.json', 'b', { cwd })).rejects.toThrow(
      /compare: .*bad\.json is not a buildbench leaderboard\.json: \/systems\/0\/rates\/strict must be number/,
    );
    await writeFile(path.join(cwd, 'half.json'), '{"schema": ');
    await expect(compareResultSets('half.json', 'b', { cwd })).rejects.toThrow(
      /half\.json: cannot be read as JSON/,
    );
    await expect(compareResultSets('nothing', 'b', { cwd })).rejects.toThrow(
      'compare: nothing: no such file or folder',
    );
    // both systems in one folder: a side must name its system
    await expect(compareResultSets('.', 'b', { cwd })).rejects.toThrow(
      'compare: . holds 2 systems (llm (openai:m), rules); choose one with --system-a',
    );
    const c = await compareResultSets('.', '.', { cwd, systemA: 'rules', systemB: 'llm (openai:m)' });
    expect(c.wins).toBe(2);
    await writeRun(cwd, { dir: 'c/x/1', task: 'other', run: 1, strategy: 'rules', result: fakeResult() });
    await expect(compareResultSets('a', 'c', { cwd })).rejects.toThrow(
      'compare: a and c have no task in common (5 and 1 tasks)',
    );
    await expect(compareResultSets('.', 'b', { cwd, systemA: 'hybrid' })).rejects.toThrow(
      "compare: . has no system 'hybrid'",
    );
  });
});

describe('buildbench compare and leaderboard (CLI)', () => {
  it('exit 0 when no --fail-if condition holds, 1 when one does, with text or JSON', async () => {
    const cwd = await twoSets();
    const quiet = io(cwd);
    expect(await runCompareCommand(['a', 'b'], quiet)).toBe(0);
    expect(quiet.out.join('')).toContain('B wins 2, loses 1, ties 1');
    expect(await runCompareCommand(['a', 'b', '--fail-if', 'strict-dropped'], io(cwd))).toBe(0);
    expect(await runCompareCommand(['a', 'b', '--fail-if', 'strict-dropped,any-loss'], io(cwd))).toBe(1);
    expect(await runCompareCommand(['b', 'a', '--fail-if', 'flexible-dropped'], io(cwd))).toBe(1);
    const json = io(cwd);
    expect(await runCompareCommand(['a', 'b', '--json', '--fail-if', 'any-loss'], json)).toBe(1);
    const parsed = JSON.parse(json.out.join('')) as { schema: string; losses: number };
    expect(parsed).toMatchObject({ schema: 'buildbench.compare/v1', losses: 1 });
  });

  it('usage errors are ConfigErrors, exit 2 through the CLI', async () => {
    const cwd = await twoSets();
    await expect(runCompareCommand(['a'], io(cwd))).rejects.toThrow(ConfigError);
    await expect(runCompareCommand(['a', 'b', '--fail-if', 'worse'], io(cwd))).rejects.toThrow(
      "compare: --fail-if 'worse' is not a condition",
    );
    const cli = io(cwd);
    expect(await run(['compare', 'a'], cli)).toBe(2);
    expect(cli.err.join('')).toMatch(/^buildbench: compare: expected two result sets \(A and B\), got 1: a/);
    expect(await run(['compare', 'a', 'b', '--fail-if', 'any-loss'], io(cwd))).toBe(1);
    expect(await run(['compare', 'a', 'b', '--bogus'], io(cwd))).toBe(2);
    const help = io(cwd);
    expect(await run(['compare', '--help'], help)).toBe(0);
    expect(help.out.join('')).toContain('--fail-if <cond>');
  });

  it('buildbench leaderboard writes the three files and says where, exit 2 without runs', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-leaderboard-cli-'));
    await writeFixtureRuns(cwd);
    const one = io(cwd);
    expect(await run(['leaderboard', 'rules'], one)).toBe(0);
    expect(one.out.join('')).toContain(
      'rules: 6 runs over 3 tasks — strict 50%, flexible 50%, completion 50%',
    );
    expect(await readFile(path.join(cwd, 'rules', 'leaderboard.md'), 'utf8')).toContain('| rules | 6 |');
    const two = io(cwd);
    expect(
      await runLeaderboardCommand(['rules', 'downloads', '--out', 'board', '--title', 'Nightly'], two),
    ).toBe(0);
    expect(await readFile(path.join(cwd, 'board', 'leaderboard.md'), 'utf8')).toMatch(/^# Nightly\n/);
    await expect(runLeaderboardCommand(['rules', 'downloads'], io(cwd))).rejects.toThrow(/--out/);
    const empty = io(cwd);
    expect(await run(['leaderboard', 'board'], empty)).toBe(2);
    expect(empty.err.join('')).toContain('no run.json under board');
  });
});
