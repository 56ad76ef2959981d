import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';

import { ConfigError } from '../../../src/base/errors.js';
import { chartSpec } from '../../../src/bench/chart.js';
import {
  LEADERBOARD_JSON_SCHEMA,
  writeLeaderboard,
  type Leaderboard,
  type SystemBoard,
} from '../../../src/bench/leaderboard.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';
import { writeFixtureRuns, writeRun } from './bench-fixtures.js';

const GOLDEN = path.resolve('test/fixtures/golden/bench');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Compares with the golden file, or rewrites it under UPDATE_GOLDEN=1. */
function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN, name);
  if (UPDATE) {
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw new Error(`${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

async function fixtureBoard(): Promise<{
  cwd: string;
  written: Awaited<ReturnType<typeof writeLeaderboard>>;
}> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'bb-leaderboard-'));
  await writeFixtureRuns(cwd);
  const written = await writeLeaderboard(['rules', 'downloads'], 'board', { cwd });
  return { cwd, written };
}

function system(board: Leaderboard, label: string): SystemBoard {
  const s = board.systems.find((x) => x.system === label);
  if (!s) throw new Error(`no system ${label} in ${board.systems.map((x) => x.system).join(', ')}`);
  return s;
}

describe('writeLeaderboard', () => {
  it('writes leaderboard.md, leaderboard.json and leaderboard.svg equal to the golden files', async () => {
    const { cwd, written } = await fixtureBoard();
    expect(written.files.markdown).toBe(path.join(cwd, 'board', 'leaderboard.md'));
    golden('leaderboard.md', await readFile(written.files.markdown, 'utf8'));
    golden('leaderboard.json', await readFile(written.files.json, 'utf8'));
    golden('leaderboard.svg', await readFile(written.files.svg, 'utf8'));
  });

  it('gives the same bytes twice (no timestamp, no order from the file system)', async () => {
    const a = await fixtureBoard();
    const b = await fixtureBoard();
    for (const f of ['markdown', 'json', 'svg'] as const)
      expect(await readFile(a.written.files[f], 'utf8')).toBe(await readFile(b.written.files[f], 'utf8'));
  });

  it('computes the numbers the golden files hold, by hand', async () => {
    const { leaderboard } = (await fixtureBoard()).written;
    expect(leaderboard.systems.map((s) => s.system)).toEqual(['hybrid (openai:gpt-4o-mini)', 'rules']);
    const rules = system(leaderboard, 'rules');
    // strict successes: alpha 1/2, beta 2/2, gamma 0/2 (one error) → 3 of 6 runs
    expect(rules.runs).toBe(6);
    expect(rules.rates).toEqual({ completion: 0.5, strict: 0.5, flexible: 0.5 });
    // pass@1 = mean(1/2, 1, 0) = 0.5; pass@2 = mean(1, 1, 0) = 2/3
    expect(rules.passAtK).toEqual([
      { k: 1, value: 0.5 },
      { k: 2, value: 0.666667 },
    ]);
    expect(rules.errors).toEqual([
      expect.objectContaining({ task: 'gamma', run: 1, where: 'rules/runs/gamma/1' }),
    ]);
    expect(rules.statuses).toEqual({ error: 1, failed: 2, success: 3 });
    expect(rules.failureCategories).toEqual({ 'link-error': 1, 'missing-dependency': 1 });
    expect(rules.wrongSelfStops).toEqual([
      { task: 'alpha', run: 2, claimed: 'success', verdict: 'failed', where: 'rules/runs/alpha/2' },
    ]);
    // alpha: README read, docs/BUILD.md not, twice (2 of 4); gamma run 2: README only, doc/ not (0 of 1);
    // gamma run 1 had no result; example.org is off GitHub, never fetched by rules
    expect(rules.retrieval).toEqual({
      scoredRuns: 3,
      unscoredRuns: 1,
      labelled: 5,
      consulted: 2,
      accuracy: 0.4,
      elsewhere: 2,
      offGithub: 2,
      elsewhereConsulted: 0,
    });
    expect(rules.costs.wallMs).toEqual({ n: 5, median: 40_000, p90: 300_000 });
    expect(rules.costs.tokens).toEqual({ n: 0, median: null, p90: null });
    expect(rules.analysis).toBeNull();

    const hybrid = system(leaderboard, 'hybrid (openai:gpt-4o-mini)');
    // strict: alpha 2/2, beta 1/2 (partial), gamma 1/2 → 4 of 6; flexible and completion 5 of 6
    expect(hybrid.rates).toEqual({ completion: 0.833333, strict: 0.666667, flexible: 0.833333 });
    expect(hybrid.passAtK).toEqual([
      { k: 1, value: 0.666667 },
      { k: 2, value: 1 },
    ]);
    // alpha: both labelled docs read twice (4/4), the example.org page fetched twice; gamma: doc/ read twice
    expect(hybrid.retrieval).toMatchObject({ labelled: 6, consulted: 6, accuracy: 1, elsewhereConsulted: 2 });
    expect(hybrid.costs.tokens).toEqual({ n: 6, median: 22_000, p90: 90_000 });
    expect(hybrid.costs.costUsd.median).toBeCloseTo(0.0075, 10);
    expect(hybrid.claims).toBe(2);
    expect(hybrid.wrongSelfStops).toEqual([]);
    expect(hybrid.analysis).toEqual({
      runs: 4,
      commands: 37,
      phases: { inspect: 8, install: 4, configure: 4, build: 17, patch: 0, test: 4, other: 0 },
      failures: 4,
      recoveries: { inspect: 3, adapt: 1, loop: 0, abort: 0, other: 0 },
      selfStops: { count: 4, correct: 4, wrong: 0 },
      unparsed: 1,
    });
    const beta = hybrid.rows.find((r) => r.task === 'beta')!;
    expect(beta.passAtK).toEqual([
      { k: 1, value: 0.5 },
      { k: 2, value: 1 },
    ]);
    expect(beta.failureCategories).toEqual({ 'missing-dependency': 1 });
  });

  it('writes leaderboard.json that its own JSON schema accepts, and the schema refuses a broken one', async () => {
    const { written } = await fixtureBoard();
    const json: unknown = JSON.parse(await readFile(written.files.json, 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(LEADERBOARD_JSON_SCHEMA);
    expect(validate(json)).toBe(true);
    const broken = structuredClone(json) as { systems: { rates: { strict: unknown } }[] };
    broken.systems[0]!.rates.strict = 'half';
    expect(validate(broken)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('/systems/0/rates/strict');
  });

  it('the chart is a Vega-Lite spec with grouped bars and pass@k, rendered to SVG with the systems named', async () => {
    const { written } = await fixtureBoard();
    const spec = chartSpec(written.leaderboard) as { hconcat: unknown[] };
    expect(spec.hconcat).toHaveLength(2);
    const svg = await readFile(written.files.svg, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    for (const text of ['rules', 'hybrid (openai:gpt-4o-mini)', 'strict', 'flexible', 'completion', 'pass@k'])
      expect(svg).toContain(`>${text}`);
    // the axis label of a long system name is on two lines, nothing cut
    expect(svg).toContain('<tspan x="0" dy="14">(openai:gpt-4o-mini)</tspan>');
    expect(svg).not.toContain('…');
    // the percentages are written on the bars: rules strict 50%, hybrid strict 67%
    expect(svg).toContain('>50%<');
    expect(svg).toContain('>67%<');
  });

  it('with uneven runs per task, pass@k stops at the fewest; table cells keep a pipe or a newline in their place', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-leaderboard-uneven-'));
    const rules = { strategy: 'rules' };
    for (const [n, result] of [fakeResult(), failedResult(), fakeResult()].entries())
      await writeRun(cwd, { ...rules, dir: `r/a/${n + 1}`, task: 'a', run: n + 1, result });
    await writeRun(cwd, {
      ...rules,
      dir: 'r/b|c/1',
      task: 'b|c',
      run: 1,
      status: 'error',
      error: 'checkout failed:\nfatal | bad ref',
    });
    const { leaderboard, files } = await writeLeaderboard(['r'], 'out', { cwd });
    const s = leaderboard.systems[0]!;
    expect([s.runsPerTask, s.maxRunsPerTask]).toEqual([1, 3]);
    // pass@1 = mean(2/3, 0)
    expect(s.passAtK).toEqual([{ k: 1, value: 0.333333 }]);
    expect(s.rows.find((r) => r.task === 'a')!.passAtK.map((p) => p.value)).toEqual([0.666667, 1, 1]);
    const md = await readFile(files.markdown, 'utf8');
    expect(md).toContain('2 tasks, 4 runs (1 to 3 per task; pass@k for k ≤ 1).');
    expect(md).toContain('(b\\|c run 1: checkout failed: fatal \\| bad ref)');
    expect(md).toMatch(/^\| b\\\|c \| 1 \| 0% \|/m);
  });

  it('gives a long system label room, so two systems do not write over each other', () => {
    const sys = (system: string) => ({
      system,
      runsPerTask: 1,
      rates: { completion: 1, strict: 1, flexible: 1 },
      passAtK: [{ k: 1, value: 1 }],
    });
    const width = (names: string[]) =>
      (
        chartSpec({ title: 't', tasks: [], counted: 2, systems: names.map(sys) }) as {
          hconcat: { width: number }[];
        }
      ).hconcat[0]!.width;
    expect(width(['rules', 'llm (openai:gpt-4o)'])).toBe(300);
    // '(anthropic:claude-sonnet-4-5-20250929)' is 38 characters: 38 × 6.6 + 16 = 267 px a system
    expect(width(['rules', 'llm (anthropic:claude-sonnet-4-5-20250929)'])).toBe(534);
  });

  it('still writes all three files when no run could be counted, with the problems listed', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-leaderboard-none-'));
    await writeRun(cwd, { dir: 'r/a/1', task: 'a', run: 1, strategy: 'rules', result: fakeResult() });
    await writeFile(path.join(cwd, 'r/a/1/result.json'), 'not json');
    const { leaderboard, files } = await writeLeaderboard(['r'], 'out', { cwd });
    expect([leaderboard.found, leaderboard.counted, leaderboard.systems]).toEqual([1, 0, []]);
    const md = await readFile(files.markdown, 'utf8');
    expect(md).toContain('0 tasks, 0 systems, 0 runs counted (1 run record found).');
    expect(md).toContain('No run could be counted: the notes below say why.');
    expect(md).toMatch(/^- r\/a\/1\/result\.json: not counted: not valid JSON/m);
    expect(await readFile(files.svg, 'utf8')).toMatch(/^<svg/);
  });

  it('refuses folders without any run record, naming them', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-leaderboard-empty-'));
    await expect(writeLeaderboard(['.'], 'out', { cwd })).rejects.toThrow(ConfigError);
    await expect(writeLeaderboard(['.'], 'out', { cwd })).rejects.toThrow(/no run\.json under \./);
    await expect(writeLeaderboard(['missing'], 'out', { cwd })).rejects.toThrow(
      /missing: cannot list the folder/,
    );
  });
});
