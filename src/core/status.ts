/**
 * The one place that decides a run's final status (`RunStatus`, base/status.ts) and the reason recorded
 * with it, from facts the stages gathered: how the agent loop ended (`LoopEnd`), what the final checks said
 * (hidden spec, probes), the stop-gate's claims, and an error caught on the way. The loop reports why it
 * stopped, the verifiers report what passed; neither decides the status. Finalize and the report never change
 * it (the runbook's SUCCESS/PARTIAL/FAILED label is a display of it beside the evidence).
 */
import type { LoopEnd } from '../agent/loop.js';
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
 * - then the final checks (when they ran): a success whose final verification fails (a hidden spec) is
 *   `partial`; a run whose strategy's last word was a SUCCESS claim the verifiers refused ends `partial` (some
 *   new binaries) or `failed` (none) instead of `limits_exceeded`/`stuck`: the strategy believed it was done,
 *   and the verifiers disagreed. Cancelled and sandbox_error are never changed by them.
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
  const status = statusOfEnd(facts.end);
  const reason = facts.end.reason;
  const final = facts.final;
  if (!final || !finalChecksRun(facts.end)) return { status, reason };
  const failing = final.failures.slice(0, 3).join('; ');
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
