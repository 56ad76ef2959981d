import { TARGET_RUN_MARKER } from '../../deploy/recipes/target-run.js';
import type { LoopOutcome } from '../../agent/loop.js';
import type { TurnRecord } from '../../agent/types.js';
import { TARGET_CHECK } from '../../deploy/target.js';
import type { Verification, VerificationCheck } from '../../verify/verification.js';
import {
  decideStatus,
  finalChecksRun,
  lastScriptOf,
  type DeployCheckFact,
  type DeployFacts,
} from '../status.js';
import type { Opened, RunState } from './state.js';

/**
 * Stage 5: the final checks — the hidden spec and the advisory run probes — unless the run was cancelled or
 * the sandbox failed; then the run's status is decided (core/status.ts) from how the loop ended, what the
 * final checks said and the stop-gate's claims (and for a deploy, the target's and the verifier's checks).
 */
export async function finishChecks(
  state: RunState,
  { verifier }: Opened,
  outcome: LoopOutcome,
): Promise<void> {
  if (finalChecksRun(outcome.end)) {
    await verifier.finish({ hiddenSpecFile: state.spec.hiddenFile, probes: !state.settings.deploy });
    state.final = {
      passed: verifier.report().passed,
      completion: verifier.metrics?.completion ?? false,
      failures: verifier.failures(),
    };
  }
  if (state.settings.deploy) {
    state.deployFacts = deployFacts(verifier.report(), outcome.history, state.spec.hiddenFile !== undefined);
  }
  state.decision = decideStatus({
    end: outcome.end,
    final: state.final,
    claims: state.claims,
    ...(state.deployFacts ? { deploy: state.deployFacts } : {}),
    lastScript: lastScriptOf(outcome.history),
    ...(state.expected.uncertain?.length && state.spec.hiddenFile === undefined
      ? { uncertainExpectation: state.expected.uncertain }
      : {}),
  });
}

/** The name the verification gives the target's check. */
export const TARGET_CHECK_NAME = `spec: ${TARGET_CHECK}`;

function fact(check: VerificationCheck): DeployCheckFact {
  return {
    name: check.name,
    passed: check.passed,
    detail: check.detail,
    ...(check.outputTail ? { outputTail: check.outputTail } : {}),
  };
}

/**
 * A deploy run's facts from its verification: the target's check (the last turn's), the task's verifier checks
 * (the hidden ones when the verifier is hidden, else the visible spec's other checks) and whether any setup
 * script ran to its end.
 */
export function deployFacts(
  report: Pick<Verification, 'checks'>,
  history: readonly TurnRecord[],
  hiddenVerifier: boolean,
): DeployFacts {
  const specChecks = report.checks.filter((c) => c.source !== 'artifacts');
  const target = specChecks.find((c) => !c.hidden && c.name === TARGET_CHECK_NAME);
  const verifier = hiddenVerifier
    ? specChecks.filter((c) => c.hidden)
    : specChecks.filter((c) => !c.hidden && c.name !== TARGET_CHECK_NAME && c.required);
  // A script that ended with exit 0, or one that reached the target's run (its setup steps all succeeded).
  const setupRan = history.some(
    (r) =>
      r.observation !== undefined &&
      ((r.observation.exec.exitCode === 0 && !r.observation.exec.timedOut) ||
        r.observation.output.includes(TARGET_RUN_MARKER)),
  );
  return { setupRan, ...(target ? { target: fact(target) } : {}), verifier: verifier.map(fact) };
}
