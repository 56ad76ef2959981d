import type { ExecResult } from '../sandbox/types.js';
import type { RepoInfo } from '../repo/types.js';
import type { ScriptRecipe } from '../recipe/model.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { Artifact, Claim, Expected, Verdict } from '../verify/types.js';
import type { DeployGoal } from '../deploy/types.js';
import type { PreinstallPlan } from '../knowledge/repair/declared.js';

/** A package or variable a script has before any failure asked for it, and why. */
export interface UpFront {
  kind: 'package' | 'env';
  /** The package, or `NAME=value`. */
  what: string;
  why: string;
}

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
      /** The declared dependencies this (first) script installs up front, each with its declarations. */
      preinstall?: PreinstallPlan;
      /**
       * What else the strategy put into this script before any failure (a repair the tree predicts, the declared
       * headers' include roots), each package or variable with its own reason, for the deploy's installed list.
       */
      upFront?: UpFront[];
    }
  | {
      kind: 'finish';
      claim: Claim;
      reason: string;
      /** Set when the strategy cannot go on (budget spent, provider down): the loop ends with that limit. */
      stop?: StrategyStop;
    };

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
  /**
   * The script ran as the first command of a fresh sandbox made from the untouched repository (a repair turn
   * given one by `LoopDeps.freshSandbox`); turn 0's sandbox is always fresh and is not marked.
   */
  freshSandbox?: boolean;
}

export interface TurnContext {
  turn: number;
  maxTurns: number;
  repo: RepoInfo;
  expected: Expected;
  /** Repository root inside the sandbox. */
  workdir: string;
  history: readonly TurnRecord[];
  /** A deploy run's goal (the target experiment, never the hidden verifier); absent for a build. */
  goal?: DeployGoal;
}

/**
 * A strategy's typed signal that it cannot go on, carried by its last finish action: `budget` (the token or
 * dollar budget is spent) ends the loop as `{kind: 'limit', limit: 'budget'}`, `provider_error` (the model
 * provider failed after the client's retries) as `{kind: 'provider_error'}` — unless the verifiers pass.
 */
export interface StrategyStop {
  cause: 'budget' | 'provider_error';
  reason: string;
}

/** Proposes the next action from everything seen so far. Strategies never run commands themselves. */
export interface Strategy {
  readonly name: string;
  next(context: TurnContext): Promise<Action>;
}
