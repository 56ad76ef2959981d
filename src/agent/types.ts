import type { ExecResult } from '../sandbox/types.js';
import type { RepoInfo } from '../repo/types.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { Artifact, Expected, Metrics } from '../verify/types.js';

/** What a strategy asks the harness to do next. */
export type Action =
  | {
      kind: 'run';
      /** A whole bash script, run from the repository root with `set -e` semantics left to the script. */
      script: string;
      /** Short label for progress and reports, e.g. `cmake (build/)`. */
      purpose: string;
      /** Why this script now: the finding it answers, or the evidence for the recipe. */
      reason: string;
      /** Source edits this script makes, recorded as patches with their reason. */
      patches?: { file: string; reason: string }[];
      /**
       * What the script is made of, when a strategy rendered it from a recipe: finalize minimises the
       * successful trajectory from this instead of parsing scripts. Absent for free-form scripts.
       */
      recipe?: ScriptRecipe;
    }
  | {
      kind: 'finish';
      claim: 'success' | 'partial' | 'impossible';
      reason: string;
    };

/** The purposes a build step can have, in the order a recipe runs them. */
export type StepPurpose = 'dependencies' | 'patch' | 'generate' | 'configure' | 'build';

/** The parts of a self-contained turn script (see renderScript), structured for finalize. */
export interface ScriptRecipe {
  /** Commands the script makes sure exist, with the package providing each (installed only when missing). */
  tools: { command: string; pkg: string }[];
  /** Packages installed before anything else (repairs). */
  packages: string[];
  /** Commands run before the steps that do not edit source files (safe.directory, chmod, fresh build dir). */
  prelude: string[];
  /** Commands run before the steps that edit source files (recorded in `patches`); finalize replaces them by the patch series. */
  edits: string[];
  /** Variables exported before the steps. */
  env: Record<string, string>;
  /** The steps, run from the repository root, each in its own subshell. */
  steps: { purpose: StepPurpose; command: string }[];
}

export interface Verdict {
  /** The verifiers passed: the run may end with SUCCESS. */
  passed: boolean;
  metrics: Metrics;
  /** What is still wrong, for the next observation (`expected binary foo was not produced`). */
  failures: string[];
}

export interface Observation {
  exec: Pick<
    ExecResult,
    'exitCode' | 'timedOut' | 'cancelled' | 'durationMs' | 'truncated' | 'totalBytes' | 'logTruncated'
  >;
  /** The captured output (head + tail). */
  output: string;
  logPath?: string;
  findings: Finding[];
  rootCause?: Finding;
  /** New binaries in the tree after this turn (cumulative). */
  artifacts: Artifact[];
  verdict: Verdict;
}

export interface TurnRecord {
  turn: number;
  action: Action;
  observation?: Observation;
  /** Gate refusals and other notes from the harness. */
  notes: string[];
}

export interface TurnContext {
  turn: number;
  maxTurns: number;
  repo: RepoInfo;
  expected: Expected;
  /** Repository root inside the sandbox. */
  workdir: string;
  history: readonly TurnRecord[];
}

/** Proposes the next action from everything seen so far. Strategies never run commands themselves. */
export interface Strategy {
  readonly name: string;
  next(context: TurnContext): Promise<Action>;
}
