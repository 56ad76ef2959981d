/**
 * The benchmark runner: every task N times, at most C runs at once, each run one call of the engine (the
 * same `runBuild` as `buildbench build`, given by core/run-bench.ts, so one fresh sandbox per run). A bench
 * folder is `<out>/bench.json` (the manifest) and `<out>/runs/<task-id>/<n>/` (the engine's output folder:
 * result.json, trajectory.jsonl, RUNBOOK.md, logs/, artifacts/), with `run.json` written last, atomically,
 * once the run has ended. A folder without run.json is a run that was cut off: `--resume` deletes and redoes
 * it, and skips every run that has one, so a killed or cancelled benchmark continues where it stopped and
 * never counts a run half. A repository that is missing or cannot be checked out, or an engine that throws,
 * is that run's `error`, recorded in its run.json; the other runs go on.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { mapLimit } from '../base/concurrency.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import { createRepositories, type Repositories } from './repos.js';
import type { BenchManifest, RunRecord, Task } from './types.js';

export const BENCH_FILE = 'bench.json';
export const RUN_FILE = 'run.json';
/** Checkouts and clones of one benchmark (`checkouts/`, `clones/`); not results. */
export const WORK_FOLDER = '.work';
const LOCK_FILE = '.lock';
const MANIFEST_SCHEMA = 'buildbench.bench/v1';
const RUN_SCHEMA = 'buildbench.run/v1';
/** A task id is a folder name under runs/. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** What the engine gets for one run. */
export interface RunRequest {
  task: Task;
  /** 1-based. */
  run: number;
  /** The run's output folder (the engine's `--out`). */
  runDir: string;
  /** The repository checked out for this run (the engine's source; removed after the run). */
  repoDir: string;
  signal: AbortSignal;
}

/** One build of one task: runs the engine and answers its result (result.json's `status` is all it reads). */
export type RunEngine = (request: RunRequest) => Promise<{ status: string }>;

/** What identifies the system under test and where the bench folder is. */
export interface TaskRunOptions {
  /** The bench folder; the run's folder is `runs/<task-id>/<n>/` in it (see `runDirFor`). */
  outDir: string;
  /** Labels of the system under test, as run.json and the leaderboard carry them. */
  strategy: string;
  model?: string;
  /** `--repos-dir`: local mirrors `owner+name/`. */
  reposDir?: string;
  signal?: AbortSignal;
}

export interface TaskRunDeps {
  engine: RunEngine;
  /** Checkouts (default: `createRepositories` over `reposDir`, in `<outDir>/.work`). */
  repositories?: Repositories;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export interface BenchOptions extends TaskRunOptions {
  runs: number;
  concurrency: number;
  /** Continue the benchmark in `outDir` (skip runs with a run.json, redo the others). */
  resume?: boolean;
}

/** What the runner tells its observers (the progress display). */
export type BenchEvent =
  /** `done` runs have a run.json already (resume), `failed` of them did not succeed. */
  | { type: 'plan'; total: number; done: number; failed: number; pending: number; concurrency: number }
  | { type: 'run-start'; task: Task; run: number }
  | { type: 'run-end'; task: Task; run: number; record: RunRecord; durationMs: number }
  /** The run was cancelled mid-way: no run.json, resume redoes it. */
  | { type: 'run-cut'; task: Task; run: number }
  | { type: 'end'; cancelled: boolean };

export interface BenchDeps extends TaskRunDeps {
  onEvent?: (event: BenchEvent) => void;
}

export interface BenchOutcome {
  outDir: string;
  manifest: BenchManifest;
  /** Every run that has a run.json now, in task order then run order (earlier ones read back on resume). */
  records: RunRecord[];
  /** Runs that were already done before this invocation (resume). */
  skipped: number;
  /** Runs this invocation finished. */
  ran: number;
  /** Runs cut off or never started because the benchmark was cancelled (resume does them). */
  cut: number;
  cancelled: boolean;
}

/** `<outDir>/runs/<task-id>/<n>`. */
export function runDirFor(outDir: string, taskId: string, run: number): string {
  return path.join(outDir, 'runs', taskId, String(run));
}

/** Writes `file` whole or not at all (a temporary file renamed over it). */
async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, file);
}

/** The run.json in `runDir` when it is a complete record of that run, else undefined. */
export async function readRunRecord(
  runDir: string,
  taskId: string,
  run: number,
): Promise<RunRecord | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path.join(runDir, RUN_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const record = value as Partial<RunRecord> | null;
  if (
    !record ||
    typeof record !== 'object' ||
    record.schema !== RUN_SCHEMA ||
    record.task?.id !== taskId ||
    record.run !== run ||
    typeof record.status !== 'string'
  ) {
    return undefined;
  }
  return record as RunRecord;
}

function taskPart(task: Task): RunRecord['task'] {
  return {
    id: task.id,
    kind: task.kind,
    ...(task.suite !== undefined ? { suite: task.suite } : {}),
    ...(task.kind === 'build'
      ? { expected: task.expected.map((e) => e.name), instructions: task.instructions.map((i) => i.url) }
      : {}),
    ...(task.requires.length > 0 ? { requires: task.requires } : {}),
  };
}

async function fileExists(file: string): Promise<boolean> {
  return open(file, 'r').then(
    async (handle) => {
      await handle.close();
      return true;
    },
    () => false,
  );
}

/**
 * One run of one task, in `runs/<task-id>/<n>/` of the bench folder: whatever the folder held goes, the
 * repository is checked out for the run, the engine runs, the checkout is removed, and run.json is written
 * last. Answers the run's record, or undefined when the run was cancelled (no run.json: resume redoes it).
 * A repository problem or an engine that throws is the record's `error` status and message; only a failure
 * to write into the bench folder rejects.
 */
export async function runTask(
  task: Task,
  run: number,
  options: TaskRunOptions,
  deps: TaskRunDeps,
): Promise<RunRecord | undefined> {
  const now = deps.now ?? Date.now;
  const signal = options.signal ?? new AbortController().signal;
  const repositories =
    deps.repositories ??
    createRepositories({
      workDir: path.join(options.outDir, WORK_FOLDER),
      ...(options.reposDir !== undefined ? { reposDir: options.reposDir } : {}),
    });
  const runDir = runDirFor(options.outDir, task.id, run);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  const startedAt = new Date(now()).toISOString();
  const { source, commit, branch } = task.repository;
  const repository: NonNullable<RunRecord['repository']> = {
    source,
    ...(commit ? { commit } : {}),
    ...(branch ? { branch } : {}),
  };
  let status: string;
  let error: string | undefined;
  try {
    const checkout = await repositories.checkout(task, path.join(task.id, String(run)), signal);
    if (checkout.commit) repository.checkedOut = checkout.commit;
    try {
      ({ status } = await deps.engine({ task, run, runDir, repoDir: checkout.dir, signal }));
    } finally {
      await checkout.cleanup().catch(() => undefined);
    }
  } catch (caught) {
    if (signal.aborted) return undefined;
    status = 'error';
    error = errorMessage(caught);
  }
  if (status === 'cancelled') return undefined;
  const resultFile = path.join(runDir, 'result.json');
  const record: RunRecord = {
    schema: RUN_SCHEMA,
    task: taskPart(task),
    run,
    strategy: options.strategy,
    ...(options.model !== undefined ? { model: options.model } : {}),
    startedAt,
    finishedAt: new Date(now()).toISOString(),
    status,
    ...(error !== undefined ? { error } : {}),
    ...((await fileExists(resultFile)) ? { result: 'result.json' } : {}),
    repository,
  };
  await writeJsonAtomic(path.join(runDir, RUN_FILE), record);
  return record;
}

function checkTasks(tasks: readonly Task[]): void {
  if (tasks.length === 0)
    throw new ConfigError('bench: no tasks to run', 'expected task files (.yml) or folders of them');
  const seen = new Map<string, string>();
  for (const task of tasks) {
    if (!SAFE_ID.test(task.id)) {
      throw new ConfigError(
        `${task.file}: task id '${task.id}' cannot name a folder`,
        'expected letters, digits, ., _, + and - (not starting with . or -)',
      );
    }
    const other = seen.get(task.id);
    if (other !== undefined) {
      throw new ConfigError(
        `task id '${task.id}' is used twice: ${other} and ${task.file}`,
        'give each task its own id',
      );
    }
    seen.set(task.id, task.file);
  }
}

function checkCounts(options: BenchOptions): void {
  for (const [name, value] of [
    ['--runs', options.runs],
    ['--concurrency', options.concurrency],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ConfigError(
        `${name}: '${String(value)}' is not valid; expected a whole number of at least 1`,
      );
    }
  }
}

/** Takes `<out>/.lock` for this process; a lock left by a process that is gone is taken over. */
async function lockBenchDir(outDir: string): Promise<() => Promise<void>> {
  const file = path.join(outDir, LOCK_FILE);
  const release = (): Promise<void> => rm(file, { force: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ConfigError(
          `--out: cannot write to '${outDir}': ${errorMessage(error)}`,
          'expected a writable directory',
        );
      }
    }
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
      throw new ConfigError(
        `--out: '${outDir}' is in use by another buildbench bench (process ${pid})`,
        'wait for it to end, or pass another --out',
      );
    }
    await rm(file, { force: true });
  }
  throw new ConfigError(`--out: cannot lock '${outDir}'`, 'is another buildbench bench starting on it?');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readManifest(file: string): Promise<BenchManifest | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${file}: cannot be read: ${errorMessage(error)}`);
  }
  let value: Partial<BenchManifest>;
  try {
    value = JSON.parse(text) as Partial<BenchManifest>;
  } catch (error) {
    throw new ConfigError(
      `${file}: not valid JSON: ${errorMessage(error)}`,
      'expected the bench.json a benchmark writes',
    );
  }
  if (value?.schema !== MANIFEST_SCHEMA || typeof value.strategy !== 'string') {
    throw new ConfigError(`${file}: not a bench manifest`, `expected schema ${MANIFEST_SCHEMA}`);
  }
  return value as BenchManifest;
}

/**
 * The manifest this invocation starts with: a new one, or the one a resumed benchmark left (which must have
 * been run with the same strategy and model: one folder is one system under test).
 */
async function startManifest(
  options: BenchOptions,
  tasks: readonly Task[],
  now: number,
): Promise<BenchManifest> {
  const file = path.join(options.outDir, BENCH_FILE);
  const old = await readManifest(file);
  if (old && !options.resume) {
    throw new ConfigError(
      `--out: '${options.outDir}' already holds a benchmark (bench.json)`,
      'pass --resume to continue it, or another --out for a new one',
    );
  }
  if (!old) {
    const entries = (await readdir(options.outDir)).filter((e) => e !== LOCK_FILE);
    if (entries.length > 0) {
      throw new ConfigError(
        `--out: '${options.outDir}' is not empty and holds no bench.json`,
        'expected a new or empty folder, or a bench folder to --resume',
      );
    }
  }
  if (old && (old.strategy !== options.strategy || old.model !== options.model)) {
    const label = (s: string, m?: string): string => (m ? `${s} with ${m}` : s);
    throw new ConfigError(
      `--resume: '${options.outDir}' was run with ${label(old.strategy, old.model)}, not ${label(options.strategy, options.model)}`,
      'resume with the same --strategy and --model, or pass another --out',
    );
  }
  const stamp = new Date(now).toISOString();
  return {
    schema: MANIFEST_SCHEMA,
    createdAt: old?.createdAt ?? stamp,
    updatedAt: stamp,
    strategy: options.strategy,
    ...(options.model !== undefined ? { model: options.model } : {}),
    runs: options.runs,
    concurrency: options.concurrency,
    tasks: tasks.map((t) => ({
      id: t.id,
      kind: t.kind,
      file: t.file,
      ...(t.suite !== undefined ? { suite: t.suite } : {}),
    })),
    state: 'running',
  };
}

/**
 * Runs every task `runs` times, at most `concurrency` at once, into the bench folder `outDir` (see the file
 * header). Refuses a folder that holds a benchmark unless `resume`. When `signal` aborts, the running runs are
 * cancelled through the engine (no run.json for them), no new one starts, and the manifest says `cancelled`.
 */
export async function runBench(
  tasks: readonly Task[],
  options: BenchOptions,
  deps: BenchDeps,
): Promise<BenchOutcome> {
  checkTasks(tasks);
  checkCounts(options);
  const now = deps.now ?? Date.now;
  const outDir = path.resolve(options.outDir);
  try {
    await mkdir(outDir, { recursive: true });
  } catch (error) {
    throw new ConfigError(
      `--out: cannot make '${outDir}': ${errorMessage(error)}`,
      'expected a writable directory',
    );
  }
  const release = await lockBenchDir(outDir);
  try {
    const manifest = await startManifest({ ...options, outDir }, tasks, now());
    await writeJsonAtomic(path.join(outDir, BENCH_FILE), manifest);
    // Checkouts a killed invocation left behind; the clones of URLs are kept (a complete one is reused).
    await rm(path.join(outDir, WORK_FOLDER, 'checkouts'), { recursive: true, force: true });
    const work = path.join(outDir, WORK_FOLDER);
    const repositories =
      deps.repositories ??
      createRepositories({
        workDir: work,
        ...(options.reposDir !== undefined ? { reposDir: options.reposDir } : {}),
      });

    const all = tasks.flatMap((task) =>
      Array.from({ length: options.runs }, (_, i) => ({ task, run: i + 1 })),
    );
    const done = new Map<string, RunRecord>();
    const key = (id: string, run: number): string => `${id}\u0000${run}`;
    const pending: typeof all = [];
    for (const item of all) {
      const record = await readRunRecord(runDirFor(outDir, item.task.id, item.run), item.task.id, item.run);
      if (record) done.set(key(item.task.id, item.run), record);
      else pending.push(item);
    }
    const skipped = done.size;
    const emit = (event: BenchEvent): void => {
      try {
        deps.onEvent?.(event);
      } catch {
        // An observer's failure never stops the benchmark.
      }
    };
    emit({
      type: 'plan',
      total: all.length,
      done: skipped,
      failed: [...done.values()].filter((r) => r.status !== 'success').length,
      pending: pending.length,
      concurrency: options.concurrency,
    });

    // One controller for the runs: the caller's signal, or a failure to write into the bench folder.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) controller.abort();
    let fatal: Error | undefined;
    let ran = 0;
    let cut = 0;
    const runOptions: TaskRunOptions = {
      outDir,
      strategy: options.strategy,
      ...(options.model !== undefined ? { model: options.model } : {}),
      signal: controller.signal,
    };
    try {
      await mapLimit(pending, options.concurrency, async ({ task, run }) => {
        if (controller.signal.aborted) {
          cut++;
          return;
        }
        emit({ type: 'run-start', task, run });
        const started = now();
        try {
          const record = await runTask(task, run, runOptions, { engine: deps.engine, repositories, now });
          if (record) {
            ran++;
            done.set(key(task.id, run), record);
            emit({ type: 'run-end', task, run, record, durationMs: now() - started });
          } else {
            cut++;
            emit({ type: 'run-cut', task, run });
          }
        } catch (error) {
          fatal ??= error instanceof Error ? error : new Error(String(error));
          controller.abort();
          cut++;
          emit({ type: 'run-cut', task, run });
        }
      });
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
    // Every run has ended and removed its checkout; the folders that held them go too.
    await rm(path.join(work, 'checkouts'), { recursive: true, force: true });
    await rmdir(work).catch(() => undefined); // kept when it holds clones of URLs
    const cancelled = controller.signal.aborted;
    const final: BenchManifest = {
      ...manifest,
      updatedAt: new Date(now()).toISOString(),
      state: cancelled ? 'cancelled' : 'complete',
    };
    await writeJsonAtomic(path.join(outDir, BENCH_FILE), final);
    emit({ type: 'end', cancelled });
    if (fatal !== undefined) throw fatal;
    const records = all.flatMap(({ task, run }) => done.get(key(task.id, run)) ?? []);
    return { outDir, manifest: final, records, skipped, ran, cut, cancelled };
  } finally {
    await release();
  }
}
