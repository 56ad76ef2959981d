/**
 * A hand-made set of result folders for the leaderboard and compare tests: two systems (rules, and hybrid
 * with a model), three tasks (alpha, beta, gamma), N = 2 runs each, in two layouts (a bench folder's
 * `runs/<task>/<n>/`, and matrix artifacts downloaded into `job-*` folders). Among them: one run that could
 * not start (`status: error`), one wrong self-stop (a SUCCESS claim the stop-gate refused), retrieval that
 * read some labelled documents and missed others, and trajectory analyses on the hybrid runs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { BuildResult } from '../../../src/report/result.js';
import type { RunRecord } from '../../../src/bench/types.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';

export interface RunSpec {
  dir: string;
  task: string;
  run: number;
  strategy: string;
  model?: string;
  status?: string;
  error?: string;
  instructions?: string[];
  result?: BuildResult;
}

const ALPHA_URLS = [
  'https://github.com/acme/alpha',
  'https://github.com/acme/alpha/blob/main/docs/BUILD.md',
  'https://example.org/alpha/install.html',
];
const GAMMA_URLS = ['https://github.com/acme/gamma/tree/master/doc'];

export function record(spec: RunSpec): RunRecord {
  return {
    schema: 'buildbench.run/v1',
    task: {
      id: spec.task,
      kind: 'build',
      suite: 'fixtures',
      expected: ['hello'],
      ...(spec.instructions ? { instructions: spec.instructions } : {}),
    },
    run: spec.run,
    strategy: spec.strategy,
    ...(spec.model ? { model: spec.model } : {}),
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:01:00.000Z',
    status: spec.status ?? spec.result?.status ?? 'error',
    ...(spec.error ? { error: spec.error } : {}),
    ...(spec.result ? { result: 'result.json' } : {}),
  };
}

export async function writeRun(root: string, spec: RunSpec): Promise<void> {
  const dir = path.join(root, spec.dir);
  await mkdir(dir, { recursive: true });
  if (spec.result) await writeFile(path.join(dir, 'result.json'), JSON.stringify(spec.result, null, 2));
  await writeFile(path.join(dir, 'run.json'), JSON.stringify(record(spec), null, 2));
}

const timings = (totalMs: number): BuildResult['timings'] => ({
  startedAt: '2026-12-01T10:00:00.000Z',
  finishedAt: '2026-12-01T10:01:00.000Z',
  totalMs,
  prepareMs: 100,
});

const files = (...paths: string[]): NonNullable<BuildResult['retrieval']> => ({
  mode: 'offline',
  sufficient: true,
  rounds: 0,
  sources: paths.map((p) =>
    p.startsWith('http')
      ? { kind: 'page', url: p, round: 1, ok: true, chars: 900 }
      : { kind: 'file', path: p, round: 0, ok: true, chars: 1200 },
  ),
  notes: [],
});

const llm = (totalTokens: number, costUsd: number): NonNullable<BuildResult['llm']> => ({
  model: 'openai:gpt-4o-mini',
  calls: 4,
  inputTokens: totalTokens - 1000,
  outputTokens: 1000,
  totalTokens,
  costUsd,
});

const analysis = (commands: number, failures: number) => ({
  commands,
  phases: { inspect: 2, install: 1, configure: 1, build: commands - 5, patch: 0, test: 1, other: 0 },
  failures,
  recoveries: {
    inspect: failures > 0 ? 1 : 0,
    adapt: failures > 1 ? failures - 1 : 0,
    loop: 0,
    abort: 0,
    other: 0,
  },
  selfStops: { count: 1, correct: 1, wrong: 0 },
  ...(commands > 10 ? { unparsed: 1 } : {}),
});

const repo = (name: string): BuildResult['repo'] => ({ name, source: `/mirrors/acme+${name}` });

/** The twelve runs. */
export function fixtureRuns(): RunSpec[] {
  const rules = { strategy: 'rules' };
  const hybrid = { strategy: 'hybrid', model: 'openai:gpt-4o-mini' };
  const refusedClaim = {
    passed: false,
    checks: [],
    selfStop: {
      claimed: 'success' as const,
      verdict: 'failed' as const,
      wrong: true,
      refused: 1,
      claims: [{ turn: 3, claim: 'success' as const, reason: 'it built', accepted: false }],
    },
  };
  return [
    // rules: a bench folder
    {
      ...rules,
      dir: 'rules/runs/alpha/1',
      task: 'alpha',
      run: 1,
      instructions: ALPHA_URLS,
      result: fakeResult({ repo: repo('alpha'), timings: timings(40_000), retrieval: files('README.md') }),
    },
    {
      ...rules,
      dir: 'rules/runs/alpha/2',
      task: 'alpha',
      run: 2,
      instructions: ALPHA_URLS,
      result: failedResult({
        repo: repo('alpha'),
        timings: timings(95_000),
        retrieval: files('README.md', 'INSTALL'),
        claim: { claim: 'success', reason: 'it built', turn: 3 },
        verification: refusedClaim,
      }),
    },
    {
      ...rules,
      dir: 'rules/runs/beta/1',
      task: 'beta',
      run: 1,
      result: fakeResult({ repo: repo('beta'), timings: timings(20_000) }),
    },
    {
      ...rules,
      dir: 'rules/runs/beta/2',
      task: 'beta',
      run: 2,
      result: fakeResult({ repo: repo('beta'), timings: timings(22_000) }),
    },
    {
      ...rules,
      dir: 'rules/runs/gamma/1',
      task: 'gamma',
      run: 1,
      instructions: GAMMA_URLS,
      status: 'error',
      error: 'repository acme/gamma: no mirror under --repos-dir (looked for acme+gamma)',
    },
    {
      ...rules,
      dir: 'rules/runs/gamma/2',
      task: 'gamma',
      run: 2,
      instructions: GAMMA_URLS,
      result: failedResult({
        repo: repo('gamma'),
        timings: timings(300_000),
        retrieval: files('README.md'),
        rootCause: {
          id: 'undefined-reference',
          category: 'link-error',
          message: 'undefined reference to `deflate`',
          line: 80,
          excerpt: 'main.o: undefined reference to `deflate`',
          captures: {},
          turn: 2,
        },
      }),
    },
    // hybrid: matrix artifacts downloaded one folder per job
    ...[1, 2].map((n) => ({
      ...hybrid,
      dir: `downloads/job-${n}/buildbench-out`,
      task: 'alpha',
      run: n,
      instructions: ALPHA_URLS,
      result: {
        ...fakeResult({
          repo: repo('alpha'),
          strategy: 'hybrid',
          timings: timings(60_000 + n * 10_000),
          retrieval: files('README.md', 'docs/BUILD.md', 'https://example.org/alpha/install.html#linux'),
          llm: llm(12_000 * n, 0.004 * n),
          claim: { claim: 'success', reason: 'built hello', turn: 2 },
        }),
        analysis: analysis(9, 1),
      },
    })),
    {
      ...hybrid,
      dir: 'downloads/job-3/buildbench-out',
      task: 'beta',
      run: 1,
      result: {
        ...fakeResult({
          repo: repo('beta'),
          strategy: 'hybrid',
          timings: timings(30_000),
          llm: llm(8000, 0.002),
        }),
        analysis: analysis(7, 0),
      },
    },
    {
      ...hybrid,
      dir: 'downloads/job-4/buildbench-out',
      task: 'beta',
      run: 2,
      result: {
        ...fakeResult({
          repo: repo('beta'),
          strategy: 'hybrid',
          status: 'partial',
          metrics: { completion: true, strict: false, flexible: true },
          timings: timings(45_000),
          llm: llm(20_000, 0.007),
          rootCause: {
            id: 'missing-tool',
            category: 'missing-dependency',
            message: 'bison: command not found',
            line: 3,
            excerpt: 'bison: command not found',
            captures: { command: 'bison' },
            turn: 1,
          },
        }),
        analysis: analysis(12, 2),
      },
    },
    {
      ...hybrid,
      dir: 'downloads/job-5/buildbench-out',
      task: 'gamma',
      run: 1,
      instructions: GAMMA_URLS,
      result: failedResult({
        repo: repo('gamma'),
        strategy: 'hybrid',
        timings: timings(600_000),
        retrieval: files('README.md', 'doc/building.md'),
        llm: llm(90_000, 0.05),
      }),
    },
    {
      ...hybrid,
      dir: 'downloads/job-6/buildbench-out',
      task: 'gamma',
      run: 2,
      instructions: GAMMA_URLS,
      result: fakeResult({
        repo: repo('gamma'),
        strategy: 'hybrid',
        timings: timings(420_000),
        retrieval: files('doc/building.md'),
        llm: llm(70_000, 0.04),
      }),
    },
  ];
}

export async function writeFixtureRuns(root: string, runs: RunSpec[] = fixtureRuns()): Promise<void> {
  for (const spec of runs) await writeRun(root, spec);
}
