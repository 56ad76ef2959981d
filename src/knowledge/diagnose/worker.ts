/**
 * The diagnosis in a worker thread, for a process that must stay responsive while it reads a stranger's log
 * (the GitHub App: one 5 MiB job log must not hold up the next webhook). The worker diagnoses with a time
 * budget (DiagnoseOptions.budgetMs: it stops reading when the budget is spent and says so in `stoppedEarly`);
 * should it not answer even `graceMs` later, it is terminated and the answer says that the diagnosis did not
 * finish.
 *
 * Which file the worker runs: this module's own (`import.meta.url`), started with workerData that names its
 * role. Built (`lib/`, the App's image) that is worker.js. Under `tsx` (npm run bot) and jest it is this .ts
 * file, and a worker thread does not get tsx's loader from the process's execArgv (Node 20 applies a parent's
 * `--import` hooks to the main thread only), so the worker first registers tsx's loader itself, then imports
 * the file. In the ncc bundle this module is inlined into dist/index.js, so the worker runs the bundle itself:
 * its entry (src/action/index.ts) imports this module and calls `run()` only on the main thread, and the
 * statement at the end of this file serves the diagnosis.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

import { diagnoseLog, stoppedEarly, type DiagnoseFile, type Diagnosis } from './diagnosis.js';

/** What the worker is given: the log and the options that cross a thread (plain data). */
export interface DiagnosisJob {
  text: string;
  files?: DiagnoseFile[];
  secrets?: string[];
  budgetMs: number;
}

/** The workerData that makes a thread a diagnosis worker. */
interface WorkerData {
  role: typeof ROLE;
  job: DiagnosisJob;
}

const ROLE = 'buildbench:diagnose';

/** Default time a job log's diagnosis may take (a 5 MiB log takes about a second). */
export const DEFAULT_BUDGET_MS = 20_000;
/** How long after the budget a worker that has not answered is terminated. */
export const DEFAULT_GRACE_MS = 5_000;

export interface DiagnosisWorkerOptions {
  /** Milliseconds the diagnosis may read the log for (default DEFAULT_BUDGET_MS). */
  budgetMs?: number;
  /** Milliseconds after the budget before a silent worker is terminated (default DEFAULT_GRACE_MS). */
  graceMs?: number;
  /** The file the worker runs (default: this module's own file, or the bundle it was inlined into). */
  script?: URL;
}

/** The diagnosis of one job's log, as ci-failure.ts calls it. */
export type DiagnosisRunner = (
  text: string,
  options: { files?: readonly DiagnoseFile[]; secrets?: readonly string[] },
) => Promise<Diagnosis>;

function isJob(data: unknown): data is WorkerData {
  return typeof data === 'object' && data !== null && (data as { role?: unknown }).role === ROLE;
}

/** Runs a job where it stands (the worker's side; also what a test without threads can call). */
export function runDiagnosisJob(job: DiagnosisJob): Promise<Diagnosis> {
  return diagnoseLog(job.text, {
    ...(job.files ? { files: job.files } : {}),
    ...(job.secrets ? { secrets: job.secrets } : {}),
    budgetMs: job.budgetMs,
  });
}

/** Whether this thread is a diagnosis worker (started by `diagnoseInWorker`). */
export function isDiagnosisWorker(): boolean {
  return !isMainThread && isJob(workerData);
}

/**
 * Diagnoses `text` in a worker thread: the caller's event loop stays free however hostile the log is. Resolves
 * with the diagnosis (with `stoppedEarly` when the budget ran out); rejects when the worker cannot start or
 * fails.
 */
export function diagnoseInWorker(
  text: string,
  options: { files?: readonly DiagnoseFile[]; secrets?: readonly string[] } = {},
  config: DiagnosisWorkerOptions = {},
): Promise<Diagnosis> {
  const budgetMs = config.budgetMs ?? DEFAULT_BUDGET_MS;
  const graceMs = config.graceMs ?? DEFAULT_GRACE_MS;
  const job: DiagnosisJob = {
    text,
    ...(options.files ? { files: [...options.files] } : {}),
    ...(options.secrets ? { secrets: [...options.secrets] } : {}),
    budgetMs,
  };
  const data: WorkerData = { role: ROLE, job };
  const started = performance.now();
  return new Promise<Diagnosis>((resolve, reject) => {
    const worker = startWorker(config.script ?? new URL(import.meta.url), data);
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
      // The bundle's other modules may still be loading in the worker: the answer is in, it can go.
      void worker.terminate();
    };
    const timer = setTimeout(() => {
      const afterMs = performance.now() - started;
      settle(() =>
        resolve(
          stoppedEarly({ found: false, kind: 'no-error', reason: '' }, { afterMs, total: text.length }),
        ),
      );
    }, budgetMs + graceMs);
    worker.once('message', (diagnosis: Diagnosis) => settle(() => resolve(diagnosis)));
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the diagnosis worker exited (code ${code}) without an answer`))),
    );
  });
}

/**
 * A worker thread running `script` with `data`. A TypeScript file (a checkout run with tsx, or jest) is imported
 * after the worker registers tsx's loader (tsx is there wherever .ts files run); with no execArgv, so a loader
 * that a later Node does carry into workers is not registered twice.
 */
function startWorker(script: URL, data: WorkerData): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData: data });
  const api = tsxApi(script);
  const boot = `import(${JSON.stringify(api)}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(script.href)}))`;
  return new Worker(boot, { eval: true, workerData: data, execArgv: [] });
}

/** The URL of tsx's ESM API (`tsx/esm/api`, its `import` entry) as installed for `from`. */
function tsxApi(from: URL): string {
  // Spelled at run time, so that a bundler does not try to bundle a development tool.
  const manifest = createRequire(from).resolve(['tsx', 'package.json'].join('/'));
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown> })
    .exports;
  const entry = (exports?.['./esm/api'] as { import?: { default?: string } } | undefined)?.import?.default;
  if (!entry) throw new Error(`tsx at ${path.dirname(manifest)} has no ESM API (tsx/esm/api)`);
  return pathToFileURL(path.join(path.dirname(manifest), entry)).href;
}

/** The worker's side: diagnoses the job it was given and posts the answer. */
function serve(): void {
  const { job } = workerData as WorkerData;
  void runDiagnosisJob(job).then((diagnosis) => parentPort?.postMessage(diagnosis));
}

if (isDiagnosisWorker()) serve();
