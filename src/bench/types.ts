/**
 * src/bench/ — benchmark suites (floor 3): task specs (`tasks/*.yml`, loaded and validated here), the
 * runner that runs each task N times through the same engine as `build` (given to it by core, which owns the
 * composition), the per-run records a benchmark folder holds, pass@k and the leaderboard, the comparison of
 * two result sets, and the GitHub Actions matrix. This file is the vocabulary the rest of the folder shares.
 */

import type { GuestSpec, Requirement, TargetEvidence } from '../deploy/types.js';

export type { Requirement, TargetEvidence };

export type TaskKind = 'build' | 'deploy';

/** Where a task's repository comes from. */
export interface RepositoryRef {
  /**
   * `owner/name` (GitHub), a git URL, or a local path (relative to the task file, absolute after loading).
   * With `--repos-dir`, `owner/name` and GitHub URLs resolve to a local mirror `<dir>/owner+name/`.
   */
  source: string;
  /** A commit to check out (full or abbreviated hash). */
  commit?: string;
  /** A branch to check out when no commit is given. */
  branch?: string;
}

/** One expected output of a build task, after cleaning; `label` is the benchmark's original text. */
export interface ExpectedBinary {
  name: string;
  label?: string;
}

/** A labelled URL a person followed to find the build instructions (retrieval accuracy is scored on it). */
export interface InstructionUrl {
  url: string;
  step?: number;
  /** The source benchmark's original text, when cleaning changed it (a `.git` suffix, a `?tab=` anchor). */
  label?: string;
}

/** A label of the source benchmark that is not an expected binary (an object file, a note), kept with why. */
export interface DroppedLabel {
  label: string;
  why: string;
}

/** Budgets a task sets for each of its runs (the bench's own flags fill what is missing). */
export interface TaskBudgets {
  maxTurns?: number;
  /** A duration as the CLI takes it (`900`, `20m`, `1h`). */
  timeout?: string;
  turnTimeout?: string;
  maxTokens?: number;
  maxCost?: number;
}

interface TaskBase {
  /** Unique within a benchmark: the `id` field, or the file's name without `.yml`. */
  id: string;
  kind: TaskKind;
  repository: RepositoryRef;
  requires: Requirement[];
  budgets: TaskBudgets;
  notes: string[];
  /** The suite the task belongs to (the folder it was loaded from, relative to the loader's root). */
  suite?: string;
  /** The absolute path of the file this task was loaded from (not a YAML field). */
  file: string;
}

/** BUILD-BENCH style: build the repository; the expected binaries decide strict/flexible. */
export interface BuildTask extends TaskBase {
  kind: 'build';
  /** Empty: the engine infers the main targets from the build files. */
  expected: ExpectedBinary[];
  instructions: InstructionUrl[];
  /** Labels of the source benchmark set aside by cleaning (never scored); the loader always fills it. */
  dropped?: DroppedLabel[];
}

/** DeployBench style: make the paper's target experiment run; a (hidden) layer-2 verifier decides. */
export interface DeployTask extends TaskBase {
  kind: 'deploy';
  paper?: { title: string; url?: string };
  target: {
    command: string;
    cwd?: string;
    timeout?: string;
    evidence: TargetEvidence;
  };
  /** A layer-2 spec file (src/verify/spec.ts), absolute after loading; hidden from the strategy by default. */
  verifier: { spec: string; hidden: boolean };
  /** A guest to build and boot under QEMU (kernel tasks). */
  guest?: GuestSpec;
}

export type Task = BuildTask | DeployTask;

/** `<bench>/bench.json`: what a benchmark folder was run with. Written at the start, updated at the end. */
export interface BenchManifest {
  schema: 'buildbench.bench/v1';
  createdAt: string;
  updatedAt: string;
  /** The system under test, as the leaderboard labels it: strategy, and model when there is one. */
  strategy: string;
  model?: string;
  runs: number;
  concurrency: number;
  tasks: { id: string; kind: TaskKind; file: string; suite?: string }[];
  /**
   * How the last invocation on this folder ended: `running` while it runs (also what a killed one leaves),
   * `complete` when every run has a run.json, `cancelled` when it was stopped (resume redoes the cut-off runs).
   */
  state?: 'running' | 'complete' | 'cancelled';
}

/**
 * `<run folder>/run.json`, written last (atomically) when a run has ended, so a folder without it is a run
 * that was cut off. Self-describing, so result folders downloaded from many matrix jobs can be merged
 * whatever their layout: the leaderboard reads every run.json it finds, and result.json beside it.
 */
export interface RunRecord {
  schema: 'buildbench.run/v1';
  task: {
    id: string;
    kind: TaskKind;
    suite?: string;
    /** Build tasks: the expected names after cleaning. */
    expected?: string[];
    /** Build tasks: the labelled instruction URLs (retrieval accuracy). */
    instructions?: string[];
    requires?: Requirement[];
  };
  /** 1-based index of this run of the task. */
  run: number;
  strategy: string;
  model?: string;
  startedAt: string;
  finishedAt: string;
  /**
   * The build's status (result.json's), or `error` when the run could not start (a repository that is
   * missing or cannot be checked out): a per-task error, counted as a failure, never a crash of the suite.
   */
  status: string;
  error?: string;
  /** result.json relative to the run folder, when the engine wrote one. */
  result?: string;
  /** The repository as the task names it, and the commit the run checked out (when known). */
  repository?: { source: string; commit?: string; branch?: string; checkedOut?: string };
}
