/**
 * The action's benchmark modes run as the runner runs them: INPUT_* variables, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files read back (test/helpers/action.ts), through the action's one entry `run()`.
 * The engine is a fake that writes result.json where the real one would (the real engine in the rootfs
 * sandbox: test/integration/action-bench.int.test.ts). The last block walks .github/workflows/benchmark.yml
 * as GitHub would: the matrix job's inputs, the expressions that hand its output to the run jobs, and a run
 * job's inputs, checked against what this repository's files and action.yml hold.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

import { EARLY_NOTE, run, type ActionDeps } from '../../../src/action/main.js';
import { FAILED_STEP_NOTE } from '../../../src/action/modes/common.js';
import { summaryOf } from '../../../src/action/modes/aggregate.js';
import { matrixOutput } from '../../../src/action/modes/matrix.js';
import { artifactName } from '../../../src/action/modes/task.js';
import type { BenchMatrix, MatrixChunk } from '../../../src/bench/matrix.js';
import type { RunRecord } from '../../../src/bench/types.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import { run as cli } from '../../../src/cli/main.js';
import type { BuildResult } from '../../../src/report/result.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';
import { setUpActionEnv, type ActionEnv } from '../../helpers/action.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

let env: ActionEnv | undefined;
afterEach(() => {
  env?.restore();
  env = undefined;
});

/** An engine that writes result.json into its --out, as runBuild does, and records what it was given. */
function writingEngine(result: BuildResult): { engine: ActionDeps['runBuild']; calls: BuildSettings[] } {
  const calls: BuildSettings[] = [];
  return {
    calls,
    engine: (settings) => {
      calls.push(settings);
      mkdirSync(settings.outDir, { recursive: true });
      writeFileSync(path.join(settings.outDir, 'result.json'), JSON.stringify(result, null, 2));
      return Promise.resolve(result);
    },
  };
}

const deps = (engine: ActionDeps['runBuild']): Partial<ActionDeps> => ({
  runBuild: engine,
  handleSignals: false,
});

async function cliMatrix(args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await cli(['matrix', ...args], {
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(t),
    env: {},
    cwd: ROOT,
  });
  expect(code).toBe(0);
  return out.join('');
}

describe('mode matrix', () => {
  it('sets the output matrix to what buildbench matrix prints, and counts the jobs per runner in the summary', async () => {
    env = setUpActionEnv({
      inputs: { mode: 'matrix', tasks: 'tasks/fixtures, tasks/examples', runs: '2' },
      env: { GITHUB_WORKSPACE: ROOT },
    });
    const fake = writingEngine(fakeResult());
    await run(deps(fake.engine));
    expect(env.errors()).toEqual([]);
    expect(fake.calls).toHaveLength(0);

    const outputs = env.outputs();
    const matrix = JSON.parse(outputs.matrix!) as BenchMatrix;
    expect(outputs.matrix).toBe(
      (await cliMatrix(['tasks/fixtures', 'tasks/examples', '--runs', '2'])).trimEnd(),
    );
    expect(outputs['matrix-size']).toBe(String(matrix.size));
    const entries = matrix.chunks.flatMap((c) => c.include);
    const taskFiles = new Set(entries.map((e) => e.file));
    expect(matrix.size).toBe(taskFiles.size * 2);
    for (const file of taskFiles) expect(existsSync(path.join(ROOT, file))).toBe(true);
    // tasks/examples has a task that needs a GPU and one that needs KVM; tasks/fixtures needs nothing.
    const runsOn = (prefix: string): string[] =>
      [
        ...new Set(entries.filter((e) => e.file.startsWith(prefix)).map((e) => e['runs-on'].join(','))),
      ].sort();
    expect(runsOn('tasks/fixtures/')).toEqual(['ubuntu-latest']);
    expect(runsOn('tasks/examples/')).toEqual(expect.arrayContaining(['self-hosted,gpu', 'self-hosted,kvm']));

    const summary = env.summary();
    expect(summary).toContain('## buildbench: benchmark matrix');
    expect(summary).toContain(`= **${matrix.size}** job(s), in 1 chunk(s) of at most 256.`);
    const fixtureJobs = entries.filter((e) => e['runs-on'].join(',') === 'ubuntu-latest').length;
    expect(summary).toContain(`| \`ubuntu-latest\` | ${fixtureJobs} |`);
  });

  it('takes chunk-size, runner-labels and default-runner', async () => {
    env = setUpActionEnv({
      inputs: {
        mode: 'matrix',
        tasks: 'tasks/examples',
        runs: '3',
        'chunk-size': '4',
        'runner-labels': 'gpu=gpu-box,linux\nkvm=kvm-box',
        'default-runner': 'self-hosted, small',
      },
      env: { GITHUB_WORKSPACE: ROOT },
    });
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);
    const matrix = JSON.parse(env.outputs().matrix!) as BenchMatrix;
    expect(matrix.chunks.every((c) => c.include.length <= 4)).toBe(true);
    expect(matrix.chunkIndices).toEqual(matrix.chunks.map((_, i) => i));
    const labels = new Set(matrix.chunks.flatMap((c) => c.include.map((e) => e['runs-on'].join(','))));
    expect([...labels].sort()).toEqual(expect.arrayContaining(['gpu-box,linux', 'kvm-box']));
    expect(
      [...labels].every((l) =>
        ['gpu-box,linux', 'kvm-box', 'gpu-box,linux,kvm-box', 'self-hosted,small'].includes(l),
      ),
    ).toBe(true);
  });
});

describe('the matrix output', () => {
  it('is refused, naming the input, when it would not fit in the outputs of a job', () => {
    const entry = { task: 't', file: 'tasks/t.yml', run: 1, 'runs-on': ['ubuntu-latest'] };
    const matrix: BenchMatrix = {
      size: 300,
      chunkSize: 256,
      chunkIndices: [0, 1],
      chunks: [
        { include: Array.from({ length: 256 }, () => entry) },
        { include: Array.from({ length: 44 }, () => entry) },
      ],
    };
    const json = matrixOutput(matrix);
    expect(JSON.parse(json)).toEqual(matrix);
    expect(() => matrixOutput(matrix, json.length - 1)).toThrow(
      new RegExp(
        `^input tasks: the matrix of 300 runs is ${json.length} bytes of JSON, more than the ${json.length - 1} a job's outputs may hold`,
      ),
    );
  });
});

/**
 * A copy of one of this repository's folders in the workspace (a task's local repository must be in the
 * workspace or under repos-dir), as the task file at tasks/demo/ names it.
 */
function repoIn(workspace: string, from: string): string {
  const to = path.join(workspace, 'repos', path.basename(from));
  cpSync(path.join(ROOT, from), to, { recursive: true });
  return `../../repos/${path.basename(from)}`;
}

/** A task file in the workspace whose repository is (a copy of) test/fixtures/repos/make-hello. */
function taskIn(workspace: string, text?: string): string {
  const file = path.join(workspace, 'tasks', 'demo', 'hello.yml');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    text ??
      [
        'kind: build',
        `repository: ${repoIn(workspace, 'test/fixtures/repos/make-hello')}`,
        'expected: [hello]',
        'budgets: { maxTurns: 3, timeout: 7m }',
        '',
      ].join('\n'),
  );
  return 'tasks/demo/hello.yml';
}

describe('mode task', () => {
  it('runs one run of the task through the engine, records it and sets the outputs for the upload', async () => {
    env = setUpActionEnv({
      inputs: { mode: 'task', task: 'tasks/demo/hello.yml', run: '2', sandbox: 'rootfs' },
    });
    taskIn(env.workspace);
    // As the engine records names handed to it as `expect` (run-verify: source cli).
    const built = fakeResult();
    const fake = writingEngine({ ...built, expected: { ...built.expected, source: 'cli' } });
    await run(deps(fake.engine));
    expect(env.errors()).toEqual([]);
    expect(process.exitCode).not.toBe(1);

    // The engine got the task's run: its checkout, its budgets and expected binaries, the run's folder.
    expect(fake.calls).toHaveLength(1);
    const settings = fake.calls[0]!;
    const runDir = path.join(env.runnerTemp, 'buildbench-bench', 'runs', 'hello', '2');
    expect(settings).toMatchObject({
      outDir: runDir,
      expect: ['hello'],
      maxTurns: 3,
      timeoutMs: 7 * 60_000,
      strategy: 'rules',
      sandbox: { choice: 'rootfs' },
    });
    expect(existsSync(path.join(settings.source, 'Makefile'))).toBe(true); // the task's repository, as the runner gives it
    expect(settings.sandbox.workRoot.startsWith(path.join(env.runnerTemp, 'buildbench-work-'))).toBe(true);

    const outputs = env.outputs();
    expect(outputs).toMatchObject({
      status: 'success',
      completion: 'true',
      strict: 'true',
      flexible: 'true',
      'out-dir': runDir,
      'result-path': path.join(runDir, 'result.json'),
      'runbook-path': '',
      'artifact-name': 'buildbench-run-hello-2',
    });
    const record = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunRecord;
    expect(record).toMatchObject({
      schema: 'buildbench.run/v1',
      task: { id: 'hello', kind: 'build', expected: ['hello'] },
      run: 2,
      strategy: 'rules',
      status: 'success',
      result: 'result.json',
    });
    expect(env.summary()).toContain('## buildbench task `hello`, run 2: SUCCESS');
    expect(env.summary()).toContain("The expected binaries are the task file's: `tasks/demo/hello.yml`.");
    expect(env.summary()).not.toContain('input expect');
    expect(env.state().workRoot).toBe(settings.sandbox.workRoot);
  });

  it('runs a deploy task as a deploy: the goal, the verifier spec and the registries of the job', async () => {
    env = setUpActionEnv({
      inputs: { mode: 'task', task: 'tasks/demo/hello.yml' },
      env: { GOPROXY: 'https://goproxy.corp' },
    });
    const spec = path.join(env.workspace, 'tasks', 'demo', 'hello.spec.yml');
    taskIn(
      env.workspace,
      [
        'kind: deploy',
        `repository: ${repoIn(env.workspace, 'tasks/examples/sort-benchmark')}`,
        'target: { command: make && ./sortbench 10, timeout: 2m, evidence: { files: [results.json] } }',
        'verifier: { spec: hello.spec.yml }',
        '',
      ].join('\n'),
    );
    writeFileSync(spec, 'hidden: true\nchecks:\n  - command: ./sortbench 5\n');
    const fake = writingEngine(fakeResult());
    await run(deps(fake.engine));
    expect(env.errors()).toEqual([]);
    const settings = fake.calls[0]!;
    expect(settings.spec).toBe(spec);
    expect(settings.expect).toEqual([]);
    expect(settings.deploy).toMatchObject({
      target: { command: 'make && ./sortbench 10', cwd: '', timeoutMs: 120_000 },
      registries: { mode: 'auto', mirrors: { GOPROXY: 'https://goproxy.corp' } },
    });
  });

  it('a build that fails is a result, not a failed step; a repository that cannot be had is warned', async () => {
    env = setUpActionEnv({ inputs: { mode: 'task', task: 'tasks/demo/hello.yml' } });
    taskIn(env.workspace);
    await run(deps(writingEngine(failedResult()).engine));
    expect(env.errors()).toEqual([]);
    expect(process.exitCode).not.toBe(1);
    expect(env.outputs()).toMatchObject({
      status: 'failed',
      strict: 'false',
      'artifact-name': 'buildbench-run-hello-1',
    });
    env.restore();

    // A repository the runner cannot have (no mirror of it in repos-dir): recorded as an error, and warned.
    env = setUpActionEnv({ inputs: { mode: 'task', task: 'tasks/demo/hello.yml', 'repos-dir': 'mirrors' } });
    taskIn(env.workspace, 'kind: build\nrepository: octo/missing\n');
    mkdirSync(path.join(env.workspace, 'mirrors'));
    const fake = writingEngine(fakeResult());
    await run(deps(fake.engine));
    expect(env.errors()).toEqual([]);
    expect(fake.calls).toHaveLength(0);
    expect(env.outputs()).toMatchObject({
      status: 'error',
      'result-path': '',
      'artifact-name': 'buildbench-run-hello-1',
    });
    expect(env.commands('warning').join('\n')).toMatch(
      /buildbench: task hello run 1: .*octo\/missing.*mirror/,
    );
    const record = JSON.parse(
      readFileSync(path.join(env.outputs()['out-dir']!, 'run.json'), 'utf8'),
    ) as RunRecord;
    expect(record).toMatchObject({ status: 'error', task: { id: 'hello' } });
    expect(env.summary()).toContain('## buildbench task `hello`, run 1: ERROR');
  });

  it('stops the run when the job is cancelled (SIGTERM): no run.json, and the step fails saying so', async () => {
    env = setUpActionEnv({ inputs: { mode: 'task', task: 'tasks/demo/hello.yml' } });
    taskIn(env.workspace);
    const listeners = process.listenerCount('SIGTERM');
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const engine: ActionDeps['runBuild'] = (_settings, options) =>
      new Promise((resolve) => {
        started();
        options.signal?.addEventListener('abort', () => resolve(fakeResult({ status: 'cancelled' })));
      });
    const step = run({ runBuild: engine, handleSignals: true });
    await running;
    process.emit('SIGTERM', 'SIGTERM');
    await step;
    expect(env.errors()).toEqual(['buildbench: task hello run 1 was cancelled; nothing was recorded']);
    expect(existsSync(path.join(env.runnerTemp, 'buildbench-bench', 'runs', 'hello', '1', 'run.json'))).toBe(
      false,
    );
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
  });

  it('refuses a missing or invalid task file with one error naming the input and the file', async () => {
    const cases: [Record<string, string>, string | undefined, RegExp][] = [
      [{ mode: 'task' }, undefined, /^input task: required when mode is task \(expected a task file/],
      [{ mode: 'task', task: 'tasks/nope.yml' }, undefined, /^input task: 'tasks\/nope\.yml' does not exist/],
      [
        { mode: 'task', task: 'tasks/demo/hello.yml' },
        'kind: build\nrepository: octo/x\nrequires: [tpu]\n',
        /^input task: tasks\/demo\/hello\.yml:3: requires/,
      ],
      [{ mode: 'task', task: 'tasks/demo/hello.yml', run: '0' }, '', /^input run: '0' is not valid/],
    ];
    for (const [inputs, text, message] of cases) {
      env = setUpActionEnv({ inputs });
      if (text !== undefined) taskIn(env.workspace, text || undefined);
      const prev = process.cwd();
      process.chdir(env.workspace); // the runner's working directory is the workspace
      const fake = writingEngine(fakeResult());
      try {
        await run(deps(fake.engine));
      } finally {
        process.chdir(prev);
      }
      expect(fake.calls).toHaveLength(0);
      const errors = env.errors();
      expect(`${JSON.stringify(inputs)}: ${errors.length}`).toBe(`${JSON.stringify(inputs)}: 1`);
      expect(errors[0]).toMatch(message);
      expect(errors[0]).not.toMatch(/\n\s+at /);
      expect(process.exitCode).toBe(1);
      // The upload step still has a name for the out-dir holding the error file (once the task input is known).
      if (
        inputs.task !== undefined &&
        inputs.run === undefined &&
        existsSync(path.join(env.workspace, inputs.task))
      )
        expect(env.outputs()['artifact-name']).toBe('buildbench-run-hello-1');
      env.restore();
      env = undefined;
    }
  });

  it('names artifacts uniquely, within what upload-artifact accepts', () => {
    expect(artifactName('make-hello', 3)).toBe('buildbench-run-make-hello-3');
    expect(artifactName('a+b', 1)).toMatch(/^buildbench-run-a_b-[0-9a-f]{8}-1$/);
    expect(artifactName('a+b', 1)).not.toBe(artifactName('a_b', 1));
  });
});

/** A run folder as a task job leaves it (run.json + result.json), downloaded into its artifact's folder. */
function runFolder(results: string, id: string, n: number, result: BuildResult, strategy = 'rules'): void {
  const dir = path.join(results, artifactName(id, n));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result, null, 2));
  const record: RunRecord = {
    schema: 'buildbench.run/v1',
    task: { id, kind: 'build', suite: 'demo', expected: ['hello'] },
    run: n,
    strategy,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:02:00.000Z',
    status: result.status,
    result: 'result.json',
  };
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify(record, null, 2));
}

describe('mode aggregate', () => {
  it('merges the downloaded run folders into the leaderboard files, the outputs and the job summary', async () => {
    env = setUpActionEnv({ inputs: { mode: 'aggregate', results: 'results' } });
    const results = path.join(env.workspace, 'results');
    runFolder(results, 'hello', 1, fakeResult());
    runFolder(results, 'broken', 1, failedResult());
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);

    const dir = path.join(env.runnerTemp, 'buildbench-leaderboard');
    expect(env.outputs()).toMatchObject({
      'leaderboard-dir': dir,
      'leaderboard-path': path.join(dir, 'leaderboard.md'),
    });
    expect(readdirSync(dir).sort()).toEqual(['leaderboard.json', 'leaderboard.md', 'leaderboard.svg']);
    const board = JSON.parse(readFileSync(path.join(dir, 'leaderboard.json'), 'utf8')) as {
      found: number;
      counted: number;
      tasks: { id: string }[];
    };
    expect(board).toMatchObject({ found: 2, counted: 2 });
    expect(board.tasks.map((t) => t.id).sort()).toEqual(['broken', 'hello']);
    expect(readFileSync(path.join(dir, 'leaderboard.svg'), 'utf8')).toMatch(/^<svg/);

    const markdown = readFileSync(path.join(dir, 'leaderboard.md'), 'utf8');
    const summary = env.summary();
    expect(summary.trimEnd()).toBe(summaryOf(markdown).trimEnd());
    expect(summary).toContain('hello');
    expect(summary).toContain('broken');
    expect(summary).not.toMatch(/!\[[^\]]*\]\(leaderboard\.svg\)/);
  });

  it('fails with one error when there is nothing to aggregate, and warns of a run it cannot count', async () => {
    env = setUpActionEnv({ inputs: { mode: 'aggregate', results: 'results' } });
    mkdirSync(path.join(env.workspace, 'results'));
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toHaveLength(1);
    expect(env.errors()[0]).toMatch(/^input results: no run\.json under results \(expected the folder/);
    env.restore();

    env = setUpActionEnv({ inputs: { mode: 'aggregate', results: 'results' } });
    const results = path.join(env.workspace, 'results');
    runFolder(results, 'hello', 1, fakeResult());
    mkdirSync(path.join(results, 'torn'));
    writeFileSync(path.join(results, 'torn', 'run.json'), '{"schema": "buildbench.run/v1"');
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);
    expect(env.commands('warning').join('\n')).toMatch(/torn.*run\.json/);
  });

  it('warns naming the runs of the matrix that are missing, and the error files of failed task steps', async () => {
    env = setUpActionEnv({ inputs: { mode: 'aggregate', results: 'results' } });
    const results = path.join(env.workspace, 'results');
    for (const n of [1, 2, 3]) runFolder(results, 'hello', n, fakeResult());
    runFolder(results, 'broken', 1, failedResult());
    runFolder(results, 'broken', 3, failedResult());
    // The failed step of broken's run 2 uploaded its out-dir with the error file, and no run.json.
    mkdirSync(path.join(results, artifactName('broken', 2)));
    writeFileSync(
      path.join(results, artifactName('broken', 2), 'buildbench-error.txt'),
      'status: error\nthe sandbox could not be started\n',
    );
    expect(FAILED_STEP_NOTE).toBe(EARLY_NOTE); // the file main.ts writes is the one aggregate looks for
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);
    const warnings = env.commands('warning').filter((w) => w.includes('missing'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      '1 of 6 run(s) of the matrix are missing (2 task(s) × 3 run(s) per system): broken run 2.',
    );
    expect(warnings[0]).toContain(
      'Failed task steps uploaded: buildbench-run-broken-2 (the sandbox could not be started)',
    );
    env.restore();

    // A complete matrix: no such warning.
    env = setUpActionEnv({ inputs: { mode: 'aggregate', results: 'results' } });
    const complete = path.join(env.workspace, 'results');
    for (const n of [1, 2]) runFolder(complete, 'hello', n, fakeResult());
    for (const n of [1, 2]) runFolder(complete, 'broken', n, failedResult());
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);
    expect(env.commands('warning').filter((w) => w.includes('missing'))).toEqual([]);
  });

  it('refuses a results input that is missing or not a folder', async () => {
    for (const [inputs, message] of [
      [{ mode: 'aggregate' }, /^input results: required when mode is aggregate/],
      [{ mode: 'aggregate', results: 'nowhere' }, /^input results: 'nowhere' does not exist/],
    ] as const) {
      env = setUpActionEnv({ inputs });
      await run(deps(writingEngine(fakeResult()).engine));
      expect(env.errors()).toHaveLength(1);
      expect(env.errors()[0]).toMatch(message);
      env.restore();
      env = undefined;
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// .github/workflows/benchmark.yml, walked as GitHub runs it

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, string>;
}
interface Job {
  uses?: string;
  with?: Record<string, string>;
  strategy?: { matrix?: unknown };
  'runs-on'?: string;
  steps?: Step[];
}
interface Workflow {
  on: { workflow_dispatch?: { inputs: Record<string, { default?: string }> }; workflow_call?: unknown };
  jobs: Record<string, Job>;
}
const workflow = (name: string): Workflow =>
  parse(readFileSync(path.join(ROOT, '.github/workflows', name), 'utf8')) as Workflow;

/**
 * The value of `${{ a || b || 'literal' }}` over `inputs.*` and `vars.*` as a manual run with the default
 * inputs (and no repository variables) sees it; anything else is refused, so a new kind of expression in the
 * workflow makes this test say so rather than guess.
 */
function evaluate(text: string, inputs: Record<string, string>): string {
  const m = /^\$\{\{\s*(.+?)\s*\}\}$/.exec(text);
  if (!m) return text;
  for (const term of m[1]!.split('||').map((t) => t.trim())) {
    const literal = /^'([^']*)'$/.exec(term);
    if (literal) return literal[1]!;
    const input = /^inputs\.([\w-]+)$/.exec(term);
    if (input) {
      if (inputs[input[1]!]) return inputs[input[1]!]!;
      continue;
    }
    if (/^vars\.\w+$/.test(term)) continue;
    throw new Error(`cannot evaluate '${term}' in ${text}`);
  }
  return '';
}

describe('benchmark.yml as GitHub runs it', () => {
  const bench = workflow('benchmark.yml');
  const chunkRun = workflow('benchmark-run.yml');
  const defaults = Object.fromEntries(
    Object.entries(bench.on.workflow_dispatch?.inputs ?? {}).map(([k, v]) => [k, String(v.default ?? '')]),
  );
  const action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, unknown>;
    outputs: Record<string, unknown>;
  };

  it('wires the jobs the way this test walks them', () => {
    expect(bench.jobs.matrix?.steps?.find((s) => s.id === 'matrix')?.uses).toBe('./');
    expect(bench.jobs.run?.strategy?.matrix).toEqual({
      chunk: '${{ fromJSON(needs.matrix.outputs.matrix).chunkIndices }}',
    });
    expect(bench.jobs.run?.uses).toBe('./.github/workflows/benchmark-run.yml');
    expect(bench.jobs.run?.with?.matrix).toBe(
      '${{ toJSON(fromJSON(needs.matrix.outputs.matrix).chunks[matrix.chunk]) }}',
    );
    const job = chunkRun.jobs.task!;
    expect(job.strategy?.matrix).toBe('${{ fromJSON(inputs.matrix) }}');
    expect(job['runs-on']).toBe('${{ matrix.runs-on }}');
    const step = job.steps?.find((s) => s.id === 'task');
    expect(step?.with).toMatchObject({ mode: 'task', task: '${{ matrix.file }}', run: '${{ matrix.run }}' });
    const upload = job.steps?.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with).toMatchObject({
      name: '${{ steps.task.outputs.artifact-name }}',
      path: '${{ steps.task.outputs.out-dir }}',
    });
    const aggregate = bench.jobs.aggregate!.steps!;
    expect(aggregate.find((s) => s.uses?.startsWith('actions/download-artifact@'))?.with?.pattern).toBe(
      'buildbench-run-*',
    );
    expect(aggregate.find((s) => s.id === 'aggregate')?.with?.mode).toBe('aggregate');
    // Every input the workflow gives the action is one action.yml declares.
    for (const s of [...bench.jobs.matrix!.steps!, ...aggregate, ...job.steps!].filter(
      (s) => s.uses === './',
    ))
      for (const name of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs)).toContain(name);
  });

  it("feeds the matrix job's output through fromJSON to run jobs whose task inputs are real files", async () => {
    const step = bench.jobs.matrix!.steps!.find((s) => s.id === 'matrix')!;
    const inputs = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(v, defaults)]),
    );
    expect(inputs).toMatchObject({ mode: 'matrix', tasks: 'tasks/fixtures', runs: '1', strategy: 'rules' });
    env = setUpActionEnv({ inputs, env: { GITHUB_WORKSPACE: ROOT } });
    await run(deps(writingEngine(fakeResult()).engine));
    expect(env.errors()).toEqual([]);
    const output = env.outputs().matrix!;
    env.restore();
    env = undefined;

    // run: strategy.matrix.chunk ← fromJSON(output).chunkIndices; with.matrix ← toJSON(….chunks[chunk]).
    const whole = JSON.parse(output) as BenchMatrix;
    expect(Array.isArray(whole.chunkIndices)).toBe(true);
    const entries = whole.chunkIndices.flatMap((chunk) => {
      const passed = JSON.stringify(whole.chunks[chunk]);
      // benchmark-run.yml: strategy.matrix ← fromJSON(inputs.matrix): an object with include, ≤ 256 entries.
      const matrix = JSON.parse(passed) as MatrixChunk;
      expect(Object.keys(matrix)).toEqual(['include']);
      expect(matrix.include.length).toBeGreaterThan(0);
      expect(matrix.include.length).toBeLessThanOrEqual(256);
      return matrix.include;
    });
    expect(entries).toHaveLength(whole.size);
    const fixtures = readdirSync(path.join(ROOT, 'tasks/fixtures')).filter((f) => f.endsWith('.yml'));
    expect(entries.map((e) => e.file).sort()).toEqual(fixtures.map((f) => `tasks/fixtures/${f}`).sort());
    for (const e of entries) {
      expect(Number.isInteger(e.run) && e.run >= 1).toBe(true);
      expect(e['runs-on']).toEqual(['ubuntu-latest']);
    }

    // One run job: mode task with task ← matrix.file, run ← matrix.run (the fake engine stands in for the build).
    const first = entries.find((e) => e.task === 'make-hello') ?? entries[0]!;
    env = setUpActionEnv({
      inputs: { mode: 'task', task: first.file, run: String(first.run) },
      env: { GITHUB_WORKSPACE: ROOT },
    });
    const fake = writingEngine(fakeResult());
    await run(deps(fake.engine));
    expect(env.errors()).toEqual([]);
    expect(fake.calls).toHaveLength(1);
    expect(env.outputs()['artifact-name']).toBe(`buildbench-run-${first.task}-${first.run}`);
    expect(existsSync(path.join(env.outputs()['out-dir']!, 'run.json'))).toBe(true);
    for (const name of ['artifact-name', 'out-dir', 'matrix', 'leaderboard-dir'])
      expect(Object.keys(action.outputs)).toContain(name);
  });

  it('has a workflow_dispatch input for suite, strategy, model and runs, and a schedule', () => {
    expect(Object.keys(defaults).sort()).toEqual(['model', 'runs', 'strategy', 'suite']);
    expect(Object.keys(bench.on)).toEqual(expect.arrayContaining(['schedule', 'workflow_dispatch']));
    expect(Object.keys(chunkRun.on)).toEqual(['workflow_call']);
  });
});
