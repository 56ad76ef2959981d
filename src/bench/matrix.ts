/**
 * The GitHub Actions matrix of a benchmark: one entry per task × run, each with the runner labels its
 * task's `requires` maps to, cut into chunks GitHub accepts (a matrix generates at most 256 jobs).
 *
 * The shape (`buildbench matrix` prints it, the action's matrix mode sets it as the output `matrix`):
 *
 *     { "size": 600, "chunkSize": 256, "chunkIndices": [0, 1, 2],
 *       "chunks": [ { "include": [ { "task": "hello", "file": "tasks/fixtures/hello.yml", "run": 1,
 *                                    "runs-on": ["ubuntu-latest"] }, … ] }, … ] }
 *
 * A workflow fans out in two levels, so more than 256 runs still fit: a caller job with
 * `strategy.matrix.chunk: ${{ fromJSON(m).chunkIndices }}` calls a reusable workflow with
 * `toJSON(fromJSON(m).chunks[matrix.chunk])`, whose run job takes `strategy.matrix: ${{ fromJSON(inputs.matrix) }}`
 * (.github/workflows/benchmark.yml and benchmark-run.yml). `--chunk-index i` prints one chunk's
 * `{ "include": […] }` alone, for a workflow with a single level. The output is deterministic: entries are
 * ordered by task file, then id, then run, whatever order the tasks came in.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import type { Requirement, Task } from './types.js';

/** GitHub's limit: a job matrix generates at most this many jobs. */
export const GITHUB_MATRIX_LIMIT = 256;

export const REQUIREMENTS: readonly Requirement[] = ['gpu', 'kvm'];

/** The runner labels each requirement asks for unless a map says otherwise. */
export const DEFAULT_RUNNER_LABELS: Readonly<Record<Requirement, readonly string[]>> = {
  gpu: ['self-hosted', 'gpu'],
  kvm: ['self-hosted', 'kvm'],
};

/** Where a task that requires nothing runs. */
export const DEFAULT_RUNNER: readonly string[] = ['ubuntu-latest'];

export type RunnerLabels = Record<Requirement, string[]>;

export interface MatrixEntry {
  /** The task's id. */
  task: string;
  /** The task file, relative to the repository root, with `/` separators. */
  file: string;
  /** 1-based run index. */
  run: number;
  'runs-on': string[];
}

export interface MatrixChunk {
  include: MatrixEntry[];
}

export interface BenchMatrix {
  /** Entries in all chunks together (tasks × runs). */
  size: number;
  chunkSize: number;
  /** 0 … chunks.length-1: the caller job's matrix over chunks. */
  chunkIndices: number[];
  chunks: MatrixChunk[];
}

export interface MatrixOptions {
  /** Runs of each task (≥ 1). */
  runs: number;
  /** Entries per chunk, 1 … 256. */
  chunkSize: number;
  /** Requirement → labels; a requirement missing here takes its default. */
  labels?: Partial<RunnerLabels>;
  /** Labels for a task that requires nothing. */
  defaultRunner?: readonly string[];
  /** The repository root the entries' `file` is relative to; every task file must lie inside it. */
  root: string;
}

/** The labels a task's job runs on: the union of its requirements' labels (in order, once each), or the default. */
export function runnerLabelsFor(
  requires: readonly Requirement[],
  labels: Partial<RunnerLabels> = {},
  defaultRunner: readonly string[] = DEFAULT_RUNNER,
): string[] {
  const wanted = REQUIREMENTS.filter((r) => requires.includes(r));
  if (wanted.length === 0) return [...defaultRunner];
  const out: string[] = [];
  for (const r of wanted) {
    for (const label of labels[r] ?? DEFAULT_RUNNER_LABELS[r]) if (!out.includes(label)) out.push(label);
  }
  return out;
}

/** The whole matrix of `tasks`, chunked. Throws ConfigError for no tasks, duplicate ids or a file outside `root`. */
export function buildMatrix(tasks: readonly Task[], options: MatrixOptions): BenchMatrix {
  if (!Number.isInteger(options.runs) || options.runs < 1)
    throw new ConfigError(`matrix: runs must be a whole number ≥ 1, got ${options.runs}`);
  if (
    !Number.isInteger(options.chunkSize) ||
    options.chunkSize < 1 ||
    options.chunkSize > GITHUB_MATRIX_LIMIT
  ) {
    throw new ConfigError(
      `matrix: chunk size must be a whole number from 1 to ${GITHUB_MATRIX_LIMIT}, got ${options.chunkSize}`,
      `GitHub runs at most ${GITHUB_MATRIX_LIMIT} jobs per matrix`,
    );
  }
  if (tasks.length === 0) throw new ConfigError('matrix: no tasks to put in the matrix');

  const seen = new Map<string, string>();
  const rows = tasks.map((task) => {
    const file = repoRelative(task.file, options.root);
    const earlier = seen.get(task.id);
    if (earlier !== undefined)
      throw new ConfigError(
        `matrix: task id '${task.id}' is used by both ${earlier} and ${file}`,
        'task ids must be unique within a benchmark',
      );
    seen.set(task.id, file);
    return { task, file };
  });
  rows.sort((a, b) => compare(a.file, b.file) || compare(a.task.id, b.task.id));

  const entries: MatrixEntry[] = [];
  for (const { task, file } of rows) {
    const runsOn = runnerLabelsFor(task.requires, options.labels, options.defaultRunner);
    for (let run = 1; run <= options.runs; run++)
      entries.push({ task: task.id, file, run, 'runs-on': [...runsOn] });
  }
  const chunks: MatrixChunk[] = [];
  for (let i = 0; i < entries.length; i += options.chunkSize)
    chunks.push({ include: entries.slice(i, i + options.chunkSize) });
  return {
    size: entries.length,
    chunkSize: options.chunkSize,
    chunkIndices: chunks.map((_, i) => i),
    chunks,
  };
}

/** One chunk by its index; a ConfigError naming `what` when there is no such chunk. */
export function matrixChunk(matrix: BenchMatrix, index: number, what = '--chunk-index'): MatrixChunk {
  const chunk = matrix.chunks[index];
  if (!Number.isInteger(index) || chunk === undefined)
    throw new ConfigError(
      `${what}: ${index} is out of range; the matrix has ${matrix.chunks.length} chunk(s) (0 to ${matrix.chunks.length - 1})`,
    );
  return chunk;
}

/**
 * Requirement → labels from `gpu=self-hosted,gpu`-style items (repeated flags, or lines of an input), over
 * the defaults. Throws ConfigError naming `what` for an item without `=`, an unknown requirement or no label.
 */
export function parseRunnerLabels(items: readonly string[], what: string): RunnerLabels {
  const out: RunnerLabels = { gpu: [...DEFAULT_RUNNER_LABELS.gpu], kvm: [...DEFAULT_RUNNER_LABELS.kvm] };
  const expected = `expected <requirement>=<label>[,<label>…] with a requirement of ${REQUIREMENTS.join(', ')}, e.g. gpu=self-hosted,gpu`;
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new ConfigError(`${what}: '${item}' has no '='`, expected);
    const name = item.slice(0, eq).trim();
    if (!(REQUIREMENTS as readonly string[]).includes(name))
      throw new ConfigError(`${what}: '${name}' is not a requirement a task can have`, expected);
    out[name as Requirement] = parseLabelList(item.slice(eq + 1), `${what} (${name})`);
  }
  return out;
}

/** `self-hosted, gpu` → ['self-hosted', 'gpu']; a ConfigError naming `what` when no label is left. */
export function parseLabelList(text: string, what: string): string[] {
  const labels: string[] = [];
  for (const part of text.split(',')) {
    const label = part.trim();
    if (label === '') continue;
    if (/\s/.test(label)) throw new ConfigError(`${what}: runner label '${label}' has white space in it`);
    if (!labels.includes(label)) labels.push(label);
  }
  if (labels.length === 0)
    throw new ConfigError(
      `${what}: no runner label given`,
      'expected comma-separated labels, e.g. self-hosted,gpu',
    );
  return labels;
}

function repoRelative(file: string, root: string): string {
  const rel = path.relative(path.resolve(root), path.resolve(root, file));
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    throw new ConfigError(
      `matrix: task file ${file} is outside ${path.resolve(root)}`,
      'the matrix names task files relative to the repository the workflow checks out; run from its root',
    );
  return rel.split(path.sep).join('/');
}

/** Code-unit order, so the output does not depend on the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
