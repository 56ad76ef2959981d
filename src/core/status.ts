/**
 * The one place that decides a run's final status (`RunStatus`, base/status.ts) and the reason recorded
 * with it, from facts the stages gathered: how the agent loop ended (`LoopEnd`), what the final checks said
 * (hidden spec, probes), how the last script ended, the stop-gate's claims, and an error caught on the way;
 * then once more after finalize, from the recipe's replay (`decideAfterReplay`). The loop reports why it stopped,
 * the verifiers report what passed; neither decides the status. A script that did not run through — the run's
 * last one or the recipe's replay — is never SUCCESS (issue 31). The report never changes the status (the
 * runbook's SUCCESS/PARTIAL/FAILED label is a display of it beside the evidence).
 *
 * A deploy run (facts.deploy) is judged DeployBench's way: SUCCESS only when the target experiment and the
 * task's verifier both passed; PARTIAL when the setup ran through but one of them failed; FAILED when the setup
 * never ran through. A weaker check passing (a package imports, `--help` answers) is never a SUCCESS.
 */
import { howScriptEnded, lastScriptTurn, ranThrough, type LoopEnd } from '../agent/loop.js';
import type { TurnRecord } from '../agent/types.js';
import { ConfigError, SandboxError, errorMessage } from '../base/errors.js';
import type { RunStatus } from '../base/status.js';
import type { ClaimRecord } from '../verify/verification.js';

export interface StatusFacts {
  /** How the agent loop ended; undefined when the run stopped before it ended. */
  end?: LoopEnd;
  /** The final verification (after the hidden spec and probes); undefined when it did not run. */
  final?: { passed: boolean; completion: boolean; failures: readonly string[] };
  /** The stop-gate's decisions, in order. */
  claims: readonly ClaimRecord[];
  /**
   * An error that stopped the run (before finalize), with whether the run's signal had aborted by then and
   * whether the sandbox existed yet.
   */
  caught?: { error: unknown; aborted: boolean; beforeSandbox?: boolean };
  /** A deploy run's facts; absent for a build. */
  deploy?: DeployFacts;
  /** How the run's last script ended (`lastScriptOf`); undefined when no script ran. */
  lastScript?: LastScript;
  /**
   * Why the inferred expectation may miss the default build's product (`Expected.uncertain`); a build judged by
   * it is never SUCCESS. Absent when names were given or a hidden spec judged the run.
   */
  uncertainExpectation?: readonly string[];
}

/** How the last script of a run ended, with the evidence of its failure (the root cause layer 1 found). */
export interface LastScript {
  turn: number;
  exitCode: number | null;
  timedOut: boolean;
  /** The root cause's line for a person and where the log says it, when the script failed and one was found. */
  evidence?: string;
}

/** The run's last script as it ended: the last turn of `history` that ran one. */
export function lastScriptOf(history: readonly TurnRecord[]): LastScript | undefined {
  const record = lastScriptTurn(history);
  const o = record?.observation;
  if (!record || !o) return undefined;
  const { exitCode, timedOut } = o.exec;
  return {
    turn: record.turn,
    exitCode,
    timedOut,
    ...(!ranThrough(o.exec) && o.rootCause
      ? { evidence: `${o.rootCause.message} (log line ${o.rootCause.line})` }
      : {}),
  };
}

/** Why binaries that all exist are not a success: the script that made them did not run through. */
function notRunThroughReason(script: LastScript): string {
  return (
    `every expected binary exists, but the script of turn ${script.turn} ${howScriptEnded(script)} after them` +
    (script.evidence ? ` (${script.evidence})` : '') +
    ': a build that did not run through is not a success'
  );
}

/** One check of a deploy run as the status and result.json record it. */
export interface DeployCheckFact {
  name: string;
  passed: boolean;
  detail: string;
  /** The last lines its command printed, when it failed. */
  outputTail?: string;
}

export interface DeployFacts {
  /** Some turn's setup script ran to its end (exit 0 within its time limit). */
  setupRan: boolean;
  /** The target experiment's check, the last time it ran; undefined when it never ran. */
  target?: DeployCheckFact;
  /** The task's verifier checks (a hidden verifier runs once, after the loop); empty when none ran. */
  verifier: DeployCheckFact[];
}

export interface StatusDecision {
  status: RunStatus;
  reason: string;
}

/** The status a loop end stands for, before the final checks. */
function statusOfEnd(end: LoopEnd): RunStatus {
  switch (end.kind) {
    case 'verified':
      return 'success';
    case 'claim':
      return end.passed ? 'success' : end.completion ? 'partial' : 'failed';
    case 'limit':
      return 'limits_exceeded';
    default:
      return end.kind;
  }
}

/** The final checks run unless the loop ended because the run was cancelled or the sandbox failed. */
export function finalChecksRun(end: LoopEnd): boolean {
  return end.kind !== 'cancelled' && end.kind !== 'sandbox_error';
}

/**
 * The final status:
 * - an error that stopped the run: a configuration error before the sandbox existed is `failed` with its
 *   message; else `cancelled` when the run's signal aborted, `sandbox_error` for a SandboxError, else
 *   `failed`, with the error's message (and hint);
 * - else the loop's end: `verified` is success, an accepted claim is success/partial/failed by the verdict at
 *   that moment, a limit is `limits_exceeded`, and provider_error, stuck, stalled, sandbox_error, cancelled as named;
 * - a script that did not run through is never a success: a success whose last script exited non-zero or
 *   was stopped at its time limit is `partial`, with that reason and the root cause as evidence (the loop
 *   never ends `verified` after one; this holds whatever ended the loop);
 * - then the final checks (when they ran): a success whose final verification fails (a hidden spec) is
 *   `partial`; a run whose turn or stuck limit ended it after a script that made every expected binary and
 *   failed after them (the final verification passes) is `partial` with that reason, not `limits_exceeded` or
 *   `stuck`; a run whose strategy's last word was a SUCCESS claim the verifiers refused ends `partial` (some
 *   new binaries) or `failed` (none) instead of `limits_exceeded`/`stuck`: the strategy believed it was done,
 *   and the verifiers disagreed. Cancelled and sandbox_error are never changed by them;
 * - last, a build success judged by an uncertain expectation (a product of the default build whose name is
 *   computed when the build runs) is `partial`, with the reason: the verifiers cannot tell whether it was made.
 */
export function decideStatus(facts: StatusFacts): StatusDecision {
  if (facts.caught) {
    const { error, aborted, beforeSandbox } = facts.caught;
    // A configuration error before the sandbox exists is thrown to the user as well: failed, whatever else.
    if (beforeSandbox && error instanceof ConfigError) return { status: 'failed', reason: error.message };
    if (aborted) return { status: 'cancelled', reason: 'cancelled' };
    return {
      status: error instanceof SandboxError ? 'sandbox_error' : 'failed',
      reason: errorMessage(error),
    };
  }
  if (!facts.end) return { status: 'failed', reason: 'the run ended before the agent loop did' };
  if (facts.deploy) return decideDeploy(facts.end, facts.deploy);
  const decided = decideBuild(facts, facts.end);
  const doubts = facts.uncertainExpectation ?? [];
  if (decided.status !== 'success' || doubts.length === 0) return decided;
  return {
    status: 'partial',
    reason:
      `${decided.reason}; but the expectation is uncertain (${doubts.slice(0, 3).join('; ')}): the verifiers ` +
      `cannot tell whether the default build's product was made, so this is not a success`,
  };
}

/** A build run's status from how its loop ended, its last script, its final checks and its claims. */
function decideBuild(facts: StatusFacts, end: LoopEnd): StatusDecision {
  const status = statusOfEnd(end);
  const script = facts.lastScript;
  const failedAfter = script !== undefined && !ranThrough(script);
  if (status === 'success' && failedAfter) return { status: 'partial', reason: notRunThroughReason(script) };
  const reason = end.reason;
  const final = facts.final;
  if (!final || !finalChecksRun(end)) return { status, reason };
  const failing = final.failures.slice(0, 3).join('; ');
  if (failedAfter && final.passed && (status === 'limits_exceeded' || status === 'stuck')) {
    return { status: 'partial', reason: `${notRunThroughReason(script)}; the run ended: ${reason}` };
  }
  if (status === 'success' && !final.passed) {
    return {
      status: 'partial',
      reason: `the build passed during the run but the final verification failed: ${failing}`,
    };
  }
  const last = facts.claims[facts.claims.length - 1];
  if (last?.claim === 'success' && !last.accepted && (status === 'limits_exceeded' || status === 'stuck')) {
    return {
      status: final.completion ? 'partial' : 'failed',
      reason: `the strategy claimed success (turn ${last.turn}) but the verifiers did not pass: ${failing}`,
    };
  }
  return { status, reason };
}

/** The parts of a recipe's replay (finalize's `ReplayOutcome`) the status reads. */
export interface ReplayFacts {
  status: string;
  reason: string;
  exitCode?: number | null;
  timedOut?: boolean;
}

/**
 * The status once the recipe was replayed (finalize replays only a success's): a replay that ran build.sh to an
 * exit other than 0 in a fresh sandbox makes the success `partial`, with the replay's own reason — the recipe does
 * not run through, so the build is not reproduced. A replay that was skipped, could not start or was stopped at its
 * time limit (the run's wall clock may have cut it) leaves the status as it was: its recipe is simply not verified.
 */
export function decideAfterReplay(decision: StatusDecision, replay: ReplayFacts | undefined): StatusDecision {
  if (decision.status !== 'success' || !replay || replay.timedOut) return decision;
  const code = replay.exitCode;
  if (code === undefined || code === 0) return decision;
  return {
    status: 'partial',
    reason:
      `the build ran through in the run's sandbox, but the replay of its recipe in a fresh sandbox exited ` +
      `${code ?? 'without a status'} (${replay.reason}): a recipe that does not run through is not a success`,
  };
}

/** Ends that are about the run, not the deployment: they keep their own status. */
const DEPLOY_KEEPS: readonly LoopEnd['kind'][] = ['cancelled', 'sandbox_error', 'provider_error'];

/** The first thing that keeps a deploy from SUCCESS, as evidence: the check's name and what it showed. */
function deployFailure(deploy: DeployFacts): string | undefined {
  const { target, verifier } = deploy;
  if (!target) return 'the target experiment never ran';
  if (!target.passed) return `the target experiment failed: ${target.detail}`;
  if (verifier.length === 0) return 'the verifier did not run';
  const failing = verifier.find((c) => !c.passed);
  return failing ? `the verifier failed: ${failing.name}: ${failing.detail}` : undefined;
}

/**
 * A deploy's status: SUCCESS when the target and every verifier check passed; otherwise PARTIAL when the setup
 * ran through (a script got through every setup step, or the target itself ran, which shows an environment was
 * there) and FAILED when it never did, each with the failing evidence. Cancelled, sandbox and provider errors
 * keep their status: they say why the run stopped, not what the deployment did.
 */
function decideDeploy(end: LoopEnd, deploy: DeployFacts): StatusDecision {
  if (DEPLOY_KEEPS.includes(end.kind)) return { status: statusOfEnd(end), reason: end.reason };
  const failure = deployFailure(deploy);
  if (failure === undefined) {
    const checks = deploy.verifier.length;
    return {
      status: 'success',
      reason: `the target experiment ran and left its evidence (${deploy.target!.detail}), and the verifier passed (${checks} ${checks === 1 ? 'check' : 'checks'})`,
    };
  }
  // A limit or a stuck loop says why there was no further try; a claim's own words repeat the failure.
  const ended = end.kind === 'limit' || end.kind === 'stuck' ? `; the run ended: ${end.reason}` : '';
  if (deploy.setupRan || deploy.target?.passed === true) {
    return { status: 'partial', reason: `the setup ran through, but ${failure}${ended}` };
  }
  return { status: 'failed', reason: `the setup never ran through: ${failure}${ended}` };
}
