import type { LoopOutcome } from '../../agent/loop.js';
import { decideStatus, finalChecksRun } from '../status.js';
import type { Opened, RunState } from './state.js';

/**
 * Stage 5: the final checks — the hidden spec and the advisory run probes — unless the run was cancelled or
 * the sandbox failed; then the run's status is decided (core/status.ts) from how the loop ended, what the
 * final checks said and the stop-gate's claims.
 */
export async function finishChecks(
  state: RunState,
  { verifier }: Opened,
  outcome: LoopOutcome,
): Promise<void> {
  if (finalChecksRun(outcome.end)) {
    await verifier.finish({ hiddenSpecFile: state.spec.hiddenFile, probes: true });
    state.final = {
      passed: verifier.report().passed,
      completion: verifier.metrics?.completion ?? false,
      failures: verifier.failures(),
    };
  }
  state.decision = decideStatus({ end: outcome.end, final: state.final, claims: state.claims });
}
