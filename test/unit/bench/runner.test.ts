import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import {
  BENCH_FILE,
  RUN_FILE,
  runBench,
  runDirFor,
  runTask,
  type BenchEvent,
  type BenchOptions,
  type RunEngine,
  type RunRequest,
} from '../../../src/bench/runner.js';
import type { BenchManifest, BuildTask, RunRecord } from '../../../src/bench/types.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-bench-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string): string => path.join(root, `${name}-${counter++}`);

/** A local folder as the task's repository (used as it is: no commit, no branch). */
const repoDir = path.join(root, 'repo');
mkdirSync(repoDir);
writeFileSync(path.join(repoDir, 'Makefile'), 'all:\n\ttrue\n');

function task(id: string, source = repoDir): BuildTask {
  return {
    id,
    kind: 'build',
    repository: { source },
    requires: [],
    budgets: {},
    notes: [],
    file: path.join(root, 'tasks', `${id}.yml`),
    suite: 'unit',
    expected: [{ name: 'hello', label: 'hello (binary)' }],
    instructions: [{ url: 'https://example.org/build' }],
  };
}

function options(outDir: string, extra: Partial<BenchOptions> = {}): BenchOptions {
  return { outDir, runs: 2, concurrency: 2, strategy: 'rules', ...extra };
}

/** An engine that writes a result.json, takes `ms`, and counts the runs in flight. */
function fakeEngine(ms = 5, status = 'success') {
  const calls: RunRequest[] = [];
  let inFlight = 0;
  let most = 0;
  const engine: RunEngine = async (request) => {
    calls.push(request);
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      expect(existsSync(request.repoDir)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, ms));
      writeFileSync(path.join(request.runDir, 'result.json'), JSON.stringify({ status }));
      return { status };
    } finally {
      inFlight--;
    }
  };
  return { engine, calls, most: () => most };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

describe('runBench', () => {
  it('runs every task N times, never more than C at once, each with a run.json written last', async () => {
    const out = fresh('all');
    // Long enough that two runs overlap even when the machine is busy (at 20 ms a loaded CI box saw only one).
    const fake = fakeEngine(300);
    const events: BenchEvent[] = [];
    const tasks = ['a', 'b', 'c'].map((id) => task(id));
    const outcome = await runBench(tasks, options(out, { runs: 3, concurrency: 2 }), {
      engine: fake.engine,
      onEvent: (e) => events.push(e),
    });
    expect(fake.calls).toHaveLength(9);
    expect(fake.most()).toBe(2);
    expect(outcome).toMatchObject({ ran: 9, skipped: 0, cut: 0, cancelled: false });
    expect(outcome.records.map((r) => `${r.task.id}/${r.run}`)).toEqual([
      'a/1',
      'a/2',
      'a/3',
      'b/1',
      'b/2',
      'b/3',
      'c/1',
      'c/2',
      'c/3',
    ]);
    for (const t of tasks) {
      for (const n of [1, 2, 3]) {
        const record = readJson<RunRecord>(path.join(runDirFor(out, t.id, n), RUN_FILE));
        expect(record).toMatchObject({
          schema: 'buildbench.run/v1',
          task: {
            id: t.id,
            kind: 'build',
            suite: 'unit',
            expected: ['hello'],
            instructions: ['https://example.org/build'],
          },
          run: n,
          strategy: 'rules',
          status: 'success',
          result: 'result.json',
          repository: { source: repoDir },
        });
      }
    }
    const manifest = readJson<BenchManifest>(path.join(out, BENCH_FILE));
    expect(manifest).toMatchObject({
      schema: 'buildbench.bench/v1',
      runs: 3,
      concurrency: 2,
      state: 'complete',
    });
    expect(manifest.tasks.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    expect(events[0]).toEqual({ type: 'plan', total: 9, done: 0, failed: 0, pending: 9, concurrency: 2 });
    expect(events.filter((e) => e.type === 'run-end')).toHaveLength(9);
    expect(events.at(-1)).toEqual({ type: 'end', cancelled: false });
    expect(existsSync(path.join(out, '.lock'))).toBe(false);
    expect(existsSync(path.join(out, '.work'))).toBe(false);
  });

  it('refuses a folder that holds a benchmark without --resume, and a non-empty folder that is not one', async () => {
    const out = fresh('refuse');
    await runBench([task('a')], options(out, { runs: 1 }), { engine: fakeEngine().engine });
    const again = runBench([task('a')], options(out, { runs: 1 }), { engine: fakeEngine().engine });
    await expect(again).rejects.toThrow(ConfigError);
    await expect(again).rejects.toThrow(/already holds a benchmark.*/);
    await expect(
      runBench([task('a')], options(out, { runs: 1 }), { engine: fakeEngine().engine }).catch(
        (e: ConfigError) => e.hint,
      ),
    ).resolves.toMatch(/--resume.*another --out/);

    const other = fresh('other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'notes.txt'), 'mine');
    await expect(runBench([task('a')], options(other), { engine: fakeEngine().engine })).rejects.toThrow(
      /not empty and holds no bench.json/,
    );
  });

  it('--resume skips finished runs (their files untouched) and redoes a folder without run.json', async () => {
    const out = fresh('resume');
    const tasks = [task('a'), task('b')];
    await runBench(tasks, options(out), { engine: fakeEngine().engine });
    // b/2 was cut off mid-way: its folder has a partial output and no run.json.
    const cutDir = runDirFor(out, 'b', 2);
    rmSync(path.join(cutDir, RUN_FILE));
    writeFileSync(path.join(cutDir, 'half-written.log'), 'partial');
    // a/2's run.json is corrupt (a torn write of another tool): it is redone too.
    writeFileSync(path.join(runDirFor(out, 'a', 2), RUN_FILE), '{"schema": "buildbench.run/v1", ');
    const before = new Map(
      [
        ['a', 1],
        ['b', 1],
      ].map(([id, n]) => {
        const file = path.join(runDirFor(out, id as string, n as number), RUN_FILE);
        return [file, { text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs }];
      }),
    );
    const fake = fakeEngine();
    const outcome = await runBench(tasks, options(out, { resume: true }), { engine: fake.engine });
    expect(fake.calls.map((c) => `${c.task.id}/${c.run}`).sort()).toEqual(['a/2', 'b/2']);
    expect(outcome).toMatchObject({ skipped: 2, ran: 2, cut: 0 });
    expect(outcome.records).toHaveLength(4);
    for (const [file, { text, mtime }] of before) {
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(statSync(file).mtimeMs).toBe(mtime);
    }
    expect(existsSync(path.join(cutDir, 'half-written.log'))).toBe(false);
    expect(readJson<RunRecord>(path.join(cutDir, RUN_FILE)).status).toBe('success');

    // A resumed benchmark is the same system under test.
    await expect(
      runBench(tasks, options(out, { resume: true, strategy: 'hybrid', model: 'openai:x' }), {
        engine: fakeEngine().engine,
      }),
    ).rejects.toThrow(/was run with rules, not hybrid with openai:x/);
  });

  it("a missing repository is that task's error in its run.json; the other tasks run", async () => {
    const out = fresh('missing');
    const fake = fakeEngine();
    const missing = task('gone', path.join(root, 'no-such-repo'));
    const outcome = await runBench([task('a'), missing, task('c')], options(out, { runs: 1 }), {
      engine: fake.engine,
    });
    expect(fake.calls.map((c) => c.task.id).sort()).toEqual(['a', 'c']);
    expect(outcome).toMatchObject({ ran: 3, cancelled: false });
    const record = readJson<RunRecord>(path.join(runDirFor(out, 'gone', 1), RUN_FILE));
    expect(record.status).toBe('error');
    expect(record.error).toContain(missing.file);
    expect(record.error).toContain('no-such-repo');
    expect(record.result).toBeUndefined();
  });

  it('an engine that throws is an error record, not a crash', async () => {
    const out = fresh('throws');
    const outcome = await runBench([task('a'), task('b')], options(out, { runs: 1 }), {
      engine: (request) =>
        request.task.id === 'a'
          ? Promise.reject(new ConfigError('a.yml: the spec file is missing'))
          : fakeEngine().engine(request),
    });
    expect(outcome.records.map((r) => [r.task.id, r.status, r.error])).toEqual([
      ['a', 'error', 'a.yml: the spec file is missing'],
      ['b', 'success', undefined],
    ]);
  });

  it('cancelling stops the running runs through the engine: no run.json for them, the manifest says so, resume redoes them', async () => {
    const out = fresh('cancel');
    const controller = new AbortController();
    const started: string[] = [];
    let finished = 0;
    const engine: RunEngine = async (request) => {
      started.push(`${request.task.id}/${request.run}`);
      if (started.length <= 2) {
        finished++;
        return { status: 'success' };
      }
      if (started.length === 4) controller.abort();
      // The engine hears the signal and ends its run as cancelled (runBuild's status).
      await new Promise<void>((resolve) => {
        if (request.signal.aborted) resolve();
        else request.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      writeFileSync(path.join(request.runDir, 'result.json'), '{"status":"cancelled"}');
      return { status: 'cancelled' };
    };
    const tasks = [task('a'), task('b'), task('c')];
    const outcome = await runBench(tasks, options(out, { signal: controller.signal }), { engine });
    expect(finished).toBe(2);
    expect(started).toHaveLength(4);
    expect(outcome).toMatchObject({ cancelled: true, ran: 2, cut: 4 });
    const withRecord = tasks.flatMap((t) =>
      [1, 2]
        .filter((n) => existsSync(path.join(runDirFor(out, t.id, n), RUN_FILE)))
        .map((n) => `${t.id}/${n}`),
    );
    expect(withRecord).toEqual(started.slice(0, 2).sort());
    expect(readJson<BenchManifest>(path.join(out, BENCH_FILE)).state).toBe('cancelled');

    const fake = fakeEngine();
    const resumed = await runBench(tasks, options(out, { resume: true }), { engine: fake.engine });
    expect(fake.calls).toHaveLength(4);
    expect(resumed).toMatchObject({ skipped: 2, ran: 4, cancelled: false });
    expect(readJson<BenchManifest>(path.join(out, BENCH_FILE)).state).toBe('complete');
  });

  it('checks its input: duplicate ids, ids that cannot name a folder, runs and concurrency', async () => {
    const engine = fakeEngine().engine;
    await expect(runBench([task('a'), task('a')], options(fresh('dup')), { engine })).rejects.toThrow(
      /task id 'a' is used twice/,
    );
    await expect(runBench([task('../x')], options(fresh('bad')), { engine })).rejects.toThrow(
      /cannot name a folder/,
    );
    await expect(runBench([task('a')], options(fresh('zero'), { runs: 0 }), { engine })).rejects.toThrow(
      /--runs/,
    );
    await expect(runBench([], options(fresh('none')), { engine })).rejects.toThrow(/no tasks/);
  });

  it("refuses a folder another live process is benchmarking into, and takes over a dead one's lock", async () => {
    const out = fresh('lock');
    mkdirSync(out);
    writeFileSync(path.join(out, '.lock'), `${process.ppid}\n`);
    await expect(
      runBench([task('a')], options(out, { runs: 1 }), { engine: fakeEngine().engine }),
    ).rejects.toThrow(/in use by another buildbench bench/);
    writeFileSync(path.join(out, '.lock'), '999999999\n');
    const outcome = await runBench([task('a')], options(out, { runs: 1 }), { engine: fakeEngine().engine });
    expect(outcome.ran).toBe(1);
  });
});

describe('runTask (the Action runs one task with it)', () => {
  it('writes one run folder with its run.json and answers the record', async () => {
    const out = fresh('one');
    const record = await runTask(
      task('solo'),
      3,
      { outDir: out, strategy: 'llm', model: 'openai:m' },
      {
        engine: fakeEngine(1, 'failed').engine,
      },
    );
    expect(record).toMatchObject({ run: 3, status: 'failed', model: 'openai:m', result: 'result.json' });
    expect(readJson<RunRecord>(path.join(out, 'runs', 'solo', '3', RUN_FILE))).toEqual(record);
  });
});
