/**
 * src/agent/ — the agent (floor 2): the loop, the strategies that propose each turn's script, the run's
 * event types, and the action / observation / turn-record model they share. The loop owns every limit of a
 * run (turns, wall clock, token and dollar budget, stuck detection, cancellation) and the stop-gate (a
 * SUCCESS claim counts only when the verifiers pass); it returns a typed `LoopEnd` and knows its
 * collaborators only as interfaces (a strategy, a sandbox, `analyze`, `verify`, `emit`). Strategies never
 * run commands; the model session they use lives in `llm/`, the verdict they are judged by in `verify/`.
 */
import path from 'node:path';
import type { Action, Observation, Strategy, TurnContext, TurnRecord } from './types.js';
import type { RunEvent } from './events.js';
import type { ExecResult, Sandbox } from '../sandbox/types.js';
import type { Finding, LogAnalysis } from '../knowledge/diagnose/types.js';
import type { Artifact, Claim, Verdict } from '../verify/types.js';
import { SandboxError } from '../base/errors.js';

/** The strategy's finish request as the loop recorded it (the last one, accepted or not). */
export interface LoopClaim {
  claim: Claim;
  reason: string;
  turn: number;
}

/**
 * Why the loop ended — a closed set; every end carries a human-readable `reason`. The loop does not decide
 * the run's status: the composition root maps a LoopEnd (with the final checks) to a RunStatus.
 * - `verified`: the verifiers passed after the script of `turn`.
 * - `claim`: the strategy finished and the stop-gate accepted it (a SUCCESS claim only when `passed`);
 *   `passed`/`completion` are the verdict at that moment.
 * - `limit`: the turn limit, the wall-clock deadline, or the token/dollar budget (from `limits.budget` or a
 *   strategy's `StrategyStop { cause: 'budget' }`) ran out before the verifiers passed.
 * - `provider_error`: the strategy's model provider failed (`StrategyStop { cause: 'provider_error' }`).
 * - `stuck`: the same script failed the same way `repeats` times.
 * - `stalled`: the script of `turn` printed nothing for `idleMs` and was ended for it (a deploy script waiting
 *   on a host, a `sleep` loop): not a build that is slow, one that does nothing.
 * - `sandbox_error`: the sandbox itself failed (not the script).
 * - `cancelled`: the run's signal aborted, before or during a turn.
 */
export type LoopEnd =
  | { kind: 'verified'; turn: number; reason: string }
  | { kind: 'claim'; claim: LoopClaim; passed: boolean; completion: boolean; reason: string }
  | { kind: 'limit'; limit: 'turns' | 'wall_clock' | 'budget'; reason: string }
  | { kind: 'provider_error'; reason: string }
  | { kind: 'stuck'; repeats: number; reason: string }
  | { kind: 'stalled'; turn: number; idleMs: number; reason: string }
  | { kind: 'sandbox_error'; reason: string }
  | { kind: 'cancelled'; reason: string };

/** The token and dollar budget as the loop sees it (`llm/budget.ts` `Budget` is one). */
export interface BudgetCheck {
  /** Why no further model call may be made, or undefined while there is budget left. */
  exhausted(): string | undefined;
  /** Marks the budget as what ended the run (for the usage record). */
  stop(reason: string): void;
}

export interface LoopDeps {
  strategy: Strategy;
  sandbox: Sandbox;
  /** Layer-1 reading of a turn's output (the full log file when there is one). */
  analyze: (output: string, logPath: string | undefined) => Promise<LogAnalysis>;
  /** Scans the tree for new binaries and judges them. Only this decides SUCCESS. */
  verify: () => Promise<{ artifacts: Artifact[]; verdict: Verdict }>;
  /** Where the loop's events go (`turn_start`, `turn_end`, `claim`, `step`); e.g. an EventBus's `emit`. */
  emit: (event: RunEvent) => void;
  /**
   * Asked before each later turn's script runs (never turn 0's): may put a fresh sandbox from the untouched
   * repository behind `sandbox` and `verify` (the composition root decides when that is sound); true when it
   * did, and the turn is recorded as `freshSandbox`, so a turn that passes there can stand as its replay.
   * A SandboxError from it (no fresh sandbox could be made) ends the loop as `sandbox_error`.
   */
  freshSandbox?: (turn: number, action: RunAction, history: readonly TurnRecord[]) => Promise<boolean>;
  /**
   * Asked right before each turn's script runs, with the command's time limit: a script the same sandbox
   * command runs after it when it exits 0 (ExecOptions.epilogue; the advisory run probe), or undefined. Its
   * output is not the turn's.
   */
  epilogue?: (timeoutMs: number) => Promise<string | undefined>;
  /**
   * Asked of a finish request other than SUCCESS (the verifiers judge that one): a reason to refuse it for now
   * (a deploy's `impossible` while alternatives are open), which the strategy reads on the turn's record, or
   * undefined when the claim stands. The composition root decides what a run's rules are.
   */
  refuseClaim?: (claim: FinishAction['claim'], history: readonly TurnRecord[]) => string | undefined;
}

export interface LoopLimits {
  maxTurns: number;
  /** Absolute wall-clock deadline (ms since epoch). */
  deadline: number;
  turnTimeoutMs: number;
  /** A turn that prints nothing for this long is ended and the run with it (`stalled`); 0 or absent: never. */
  idleTimeoutMs?: number;
  logDir: string;
  signal?: AbortSignal;
  /** Extra variables for every script. */
  env?: Record<string, string>;
  /** The run's token and dollar budget: once it is spent the loop ends with `{kind: 'limit', limit: 'budget'}`. */
  budget?: BudgetCheck;
  /** The clock the deadline is read against (default `Date.now`). */
  now?: () => number;
}

export interface LoopOutcome {
  end: LoopEnd;
  history: TurnRecord[];
  /** The last verdict (undefined when nothing was judged). */
  verdict?: Verdict;
  artifacts: Artifact[];
  /** The strategy's last finish request, accepted or not. */
  claim?: LoopClaim;
  /** The root cause of the last failing turn that had one. */
  rootCause?: Finding & { turn: number };
}

/** How many times the same script may fail with the same root cause before the run is stuck. */
const STUCK_REPEATS = 2;

/** What the loop keeps between turns. */
interface LoopState {
  history: TurnRecord[];
  verdict?: Verdict;
  artifacts: Artifact[];
  claim?: LoopClaim;
  rootCause?: Finding & { turn: number };
  /** Script + root cause → how many times it failed that way. */
  seen: Map<string, number>;
  /** Set by `isStuck` after a turn; ends the loop unless the deadline passed too. */
  stuck?: LoopEnd;
}

type FinishAction = Extract<Action, { kind: 'finish' }>;
type RunAction = Extract<Action, { kind: 'run' }>;

/**
 * The agent loop: each turn the strategy proposes a whole script, the sandbox runs it, layer 1 reads the
 * log, verifiers judge the tree. The strategy may ask to finish; SUCCESS is recorded only when the
 * verifiers pass. Failed commands are observations, never exceptions.
 */
export async function runAgentLoop(
  base: Omit<TurnContext, 'turn' | 'history'>,
  deps: LoopDeps,
  limits: LoopLimits,
): Promise<LoopOutcome> {
  const now = limits.now ?? Date.now;
  const state: LoopState = { history: [], artifacts: [], seen: new Map() };
  const done = (end: LoopEnd): LoopOutcome => {
    const { history, verdict, artifacts, claim, rootCause } = state;
    return { end, history, verdict, artifacts, claim, rootCause };
  };

  for (let turn = 0; ; turn++) {
    const startedAt = now();
    const limit = limitReached(turn, limits, startedAt, state.stuck);
    if (limit) return done(limit);

    const action =
      budgetStop(limits.budget) ?? (await deps.strategy.next({ ...base, turn, history: state.history }));
    const record: TurnRecord = { turn, action, notes: [] };
    state.history.push(record);
    if (action.kind === 'finish') {
      const end = await gate(state, deps, action, record);
      if (end) return done(end);
      continue;
    }

    if (turn > 0 && deps.freshSandbox) {
      try {
        if (await deps.freshSandbox(turn, action, state.history.slice(0, -1))) record.freshSandbox = true;
      } catch (error) {
        if (error instanceof SandboxError) return done({ kind: 'sandbox_error', reason: error.message });
        throw error;
      }
    }
    deps.emit({ type: 'turn_start', turn, action });
    const exec = await execute(deps, action, turn, limits, limits.deadline - startedAt);
    if ('kind' in exec) return done(exec);
    const analysis = await observe(state, deps, record, exec);

    if (exec.cancelled) return done({ kind: 'cancelled', reason: `cancelled during turn ${turn}` });
    if (exec.stalled && !state.verdict?.passed) return done(stalledEnd(turn, action, limits));
    // The verifiers judge a build that ran through: a script that failed after its binaries were made
    // (documentation, tests) is not a success, and the strategy is told so and gets another turn.
    if (state.verdict?.passed && ranThrough(exec)) {
      return done({
        kind: 'verified',
        turn,
        reason: `the verifiers passed after turn ${turn} (${action.purpose})`,
      });
    }
    if (state.verdict?.passed) record.notes.push(notRunThrough(exec));
    state.stuck = isStuck(state.seen, action, analysis, exec.exitCode);
  }
}

/** Runs the turn's script within the turn timeout and the time left; a failing sandbox ends the loop. */
async function execute(
  deps: Pick<LoopDeps, 'sandbox' | 'epilogue'>,
  action: RunAction,
  turn: number,
  limits: LoopLimits,
  remainingMs: number,
): Promise<ExecResult | Extract<LoopEnd, { kind: 'sandbox_error' }>> {
  try {
    const timeoutMs = Math.max(1000, Math.min(limits.turnTimeoutMs, remainingMs));
    const epilogue = await deps.epilogue?.(timeoutMs);
    return await deps.sandbox.exec(action.script, {
      ...(epilogue !== undefined ? { epilogue } : {}),
      timeoutMs,
      logPath: path.join(limits.logDir, `turn-${String(turn).padStart(2, '0')}.log`),
      signal: limits.signal,
      env: limits.env,
      ...(limits.idleTimeoutMs ? { idleTimeoutMs: limits.idleTimeoutMs } : {}),
    });
  } catch (error) {
    if (error instanceof SandboxError) return { kind: 'sandbox_error', reason: error.message };
    throw error;
  }
}

/** The end of a run whose turn went silent for the idle limit. */
function stalledEnd(turn: number, action: RunAction, limits: LoopLimits): LoopEnd {
  const idleMs = limits.idleTimeoutMs ?? 0;
  const seconds = Math.round(idleMs / 1000);
  return {
    kind: 'stalled',
    turn,
    idleMs,
    reason: `turn ${turn} (${action.purpose}) printed nothing for ${seconds} s and was ended as stalled: a build prints as it works, a script that waits (on a host, a device, a sleep loop) does not`,
  };
}

/**
 * The limit that ends the loop before `turn`, if one does. The deadline is read once per turn; after a turn,
 * running out of time outranks being stuck, and both outrank the turn limit and a cancellation noticed
 * between turns (a cancellation during a turn ends it at once).
 */
function limitReached(
  turn: number,
  limits: LoopLimits,
  at: number,
  stuck: LoopEnd | undefined,
): LoopEnd | undefined {
  const late = limits.deadline - at <= 0;
  const wallClock: LoopEnd = { kind: 'limit', limit: 'wall_clock', reason: 'the wall-clock budget ran out' };
  if (turn > 0 && late) return wallClock;
  if (stuck) return stuck;
  if (turn >= limits.maxTurns) {
    return {
      kind: 'limit',
      limit: 'turns',
      reason: `the turn limit (${limits.maxTurns}) was reached before the verifiers passed`,
    };
  }
  if (limits.signal?.aborted) return { kind: 'cancelled', reason: `cancelled before turn ${turn}` };
  return late ? wallClock : undefined;
}

/** A spent budget ends the strategy's part as it would itself: a PARTIAL finish carrying the budget stop. */
function budgetStop(budget: BudgetCheck | undefined): FinishAction | undefined {
  const spent = budget?.exhausted();
  if (!spent) return undefined;
  budget?.stop(spent);
  return { kind: 'finish', claim: 'partial', reason: spent, stop: { cause: 'budget', reason: spent } };
}

/**
 * The stop-gate: a finish request is judged against the verifiers (judging the tree once if no turn did).
 * A SUCCESS claim they do not back is refused, noted on the turn's record for the strategy to see, and the
 * loop goes on (undefined); so is another claim the run's `refuseClaim` refuses (verifiers not passing). Any
 * other request ends the loop: with the strategy's stop when it carries one and the verifiers do not pass, else
 * as an accepted claim.
 */
async function gate(
  state: LoopState,
  deps: LoopDeps,
  action: FinishAction,
  record: TurnRecord,
): Promise<LoopEnd | undefined> {
  const verdict = state.verdict ?? (await deps.verify()).verdict;
  state.verdict = verdict;
  const claim: LoopClaim = { claim: action.claim, reason: action.reason, turn: record.turn };
  state.claim = claim;
  // A success claim needs the verifiers and a last script that ran through (exit 0).
  const lastRun = lastRunExec(state);
  const ranOk = lastRun === undefined || ranThrough(lastRun);
  const refusal =
    action.claim === 'success' || verdict.passed
      ? undefined
      : deps.refuseClaim?.(action.claim, state.history);
  const accepted = action.claim === 'success' ? verdict.passed && ranOk : refusal === undefined;
  deps.emit({
    type: 'claim',
    turn: record.turn,
    claim: action.claim,
    reason: action.reason,
    accepted,
    failures: verdict.failures,
  });
  if (!accepted) {
    record.notes.push(
      refusal !== undefined
        ? refusal
        : verdict.passed && lastRun
          ? `finish(success) refused: ${notRunThrough(lastRun)}`
          : `finish(success) refused by the verifiers: ${verdict.failures.join('; ')}`,
    );
    deps.emit({ type: 'step', turn: record.turn, action, notes: record.notes });
    return undefined;
  }
  const stop = action.stop;
  if (stop && !verdict.passed) {
    return stop.cause === 'budget'
      ? { kind: 'limit', limit: 'budget', reason: stop.reason }
      : { kind: 'provider_error', reason: stop.reason };
  }
  const { metrics } = verdict;
  // a claim the verifiers back is a success only when the last script ran through
  const passed = verdict.passed && ranOk;
  return { kind: 'claim', claim, passed, completion: metrics.completion, reason: action.reason };
}

/** How a script ended, as the run-through rule reads it. */
export interface ScriptEnd {
  exitCode: number | null;
  timedOut: boolean;
}

/** The script ran to its end: exit 0, within its time (issue 31; core/status.ts reads it too). */
export function ranThrough(exec: ScriptEnd): boolean {
  return exec.exitCode === 0 && !exec.timedOut;
}

/** How a script that did not run through ended, in words: `exited 2`, `was stopped at its time limit`. */
export function howScriptEnded(exec: ScriptEnd): string {
  return exec.timedOut ? 'was stopped at its time limit' : `exited ${exec.exitCode ?? 'without a status'}`;
}

/** Why binaries that exist are not a success: the script that made them failed afterwards. */
function notRunThrough(exec: ScriptEnd): string {
  return `every expected binary exists, but the script ${howScriptEnded(exec)} after them: a build that did not run through is not a success`;
}

/** The last turn of `history` that ran a script (a finish turn has no observation). */
export function lastScriptTurn(history: readonly TurnRecord[]): TurnRecord | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.observation) return history[i];
  return undefined;
}

/** The last turn that ran a script, as it ended. */
function lastRunExec(state: LoopState): ScriptEnd | undefined {
  return lastScriptTurn(state.history)?.observation?.exec;
}

/** Reads and judges a turn's outcome, records it as the turn's observation and emits `turn_end`. */
async function observe(
  state: LoopState,
  deps: LoopDeps,
  record: TurnRecord,
  exec: ExecResult,
): Promise<LogAnalysis> {
  const analysis = await deps.analyze(exec.output, exec.logPath);
  const judged = await deps.verify();
  state.verdict = judged.verdict;
  state.artifacts = judged.artifacts;
  const observation: Observation = {
    exec: {
      exitCode: exec.exitCode,
      timedOut: exec.timedOut,
      cancelled: exec.cancelled,
      durationMs: exec.durationMs,
      truncated: exec.truncated,
      totalBytes: exec.totalBytes,
      ...(exec.logTruncated !== undefined ? { logTruncated: exec.logTruncated } : {}),
    },
    output: exec.output,
    logPath: exec.logPath,
    findings: analysis.findings,
    rootCause: analysis.rootCause,
    artifacts: judged.artifacts,
    verdict: judged.verdict,
  };
  record.observation = observation;
  if (exec.timedOut)
    record.notes.push(`the script was stopped after ${Math.round(exec.durationMs / 1000)} s`);
  if (exec.stalled)
    record.notes.push(
      `the script printed nothing for the idle limit and was stopped after ${Math.round(exec.durationMs / 1000)} s`,
    );
  // Exit status 0 without the expected binaries is a failure too (a script that ignores its compiler's).
  if (analysis.rootCause && (exec.exitCode !== 0 || !judged.verdict.passed))
    state.rootCause = { ...analysis.rootCause, turn: record.turn };
  deps.emit({ type: 'turn_end', turn: record.turn, observation, notes: record.notes });
  return analysis;
}

/** Counts this failure (script + root cause); the stuck end once the same one repeats STUCK_REPEATS times. */
function isStuck(
  seen: Map<string, number>,
  action: RunAction,
  analysis: LogAnalysis,
  exitCode: number,
): LoopEnd | undefined {
  const key = `${action.script}\u0000${analysis.rootCause?.id ?? ''}:${analysis.rootCause?.message ?? exitCode}`;
  const count = (seen.get(key) ?? 0) + 1;
  seen.set(key, count);
  if (count < STUCK_REPEATS) return undefined;
  return {
    kind: 'stuck',
    repeats: count,
    reason: `the same script failed the same way ${count} times (${action.purpose})`,
  };
}
