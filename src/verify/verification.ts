/**
 * The audit trail of a run's verification, as result.json records it: every check that was made (artifact
 * names, layer-2 spec checks, functional probes) with its outcome, and the self-stop audit — what the
 * strategy claimed when it asked to finish next to what the verifiers said, so a benchmark can count wrong
 * self-stops (OSS-Build-Agent / BUILD-BENCH style).
 */
import { describeExclusion, type ExcludedArtifact } from './policy.js';
import { artifactBaseName } from './scoring.js';
import type { Claim, Expected, Metrics } from './types.js';

export type CheckSource = 'artifacts' | 'spec' | 'probe';

export interface VerificationCheck {
  /** `artifact hello`, `spec: prints greeting`, `probe run build/hello`. */
  name: string;
  passed: boolean;
  detail: string;
  source: CheckSource;
  /** Counts toward the verdict. Advisory checks (false) are recorded but never change the status. */
  required: boolean;
  /** From a hidden spec (run after the strategy finished). */
  hidden?: boolean;
  /** A failed spec check: the last lines its command printed (layer2.ts `outputTail`). */
  outputTail?: string;
}

export interface ClaimRecord {
  turn: number;
  claim: Claim;
  reason: string;
  /** The stop-gate let it through (a SUCCESS claim only when the verifiers passed). */
  accepted: boolean;
}

export interface SelfStop {
  /** The strategy's last claim; null when it never asked to finish. */
  claimed: Claim | null;
  /** What the verifiers said at the end of the run (hidden spec included). */
  verdict: 'passed' | 'failed';
  /**
   * The self-stop was wrong: a SUCCESS claim the verifiers did not back (refused by the stop-gate, or
   * overturned by a hidden spec), or a PARTIAL/IMPOSSIBLE claim while the verifiers passed.
   */
  wrong: boolean;
  /** SUCCESS claims the stop-gate refused. */
  refused: number;
  claims: ClaimRecord[];
}

export interface Verification {
  /** Every required check passed. */
  passed: boolean;
  checks: VerificationCheck[];
  spec?: { file: string; name?: string; hidden: boolean; checks: number };
  selfStop: SelfStop;
}

/** The artifact verifier's checks: one per expected name, or "any new binary" when none is expected. */
export function artifactChecks(
  metrics: Metrics,
  expected: Expected,
  excluded: readonly ExcludedArtifact[],
  required = true,
): VerificationCheck[] {
  if (expected.names.length === 0) {
    const note =
      excluded.length > 0
        ? `; ${excluded.length} binaries under vendored or test directories do not count`
        : '';
    return [
      {
        name: 'artifacts: any new binary',
        passed: metrics.completion,
        detail:
          (metrics.completion ? 'new binaries were built' : 'no new executable or library was built') + note,
        source: 'artifacts',
        required,
      },
    ];
  }
  const matched = new Set(metrics.matched);
  return [...metrics.matched, ...metrics.missing].map((name) => {
    if (matched.has(name)) {
      const paths = metrics.matches?.[name] ?? [];
      return {
        name: `artifact ${name}`,
        passed: true,
        detail: paths.length > 0 ? `built: ${paths.join(', ')}` : 'built',
        source: 'artifacts' as const,
        required,
      };
    }
    const base = artifactBaseName(name);
    const elsewhere = excluded.find((e) => artifactBaseName(e.path) === base);
    const detail = elsewhere
      ? `not built by the project; only ${elsewhere.path} (${describeExclusion(elsewhere)}), which does not count`
      : `not produced (${expected.source})`;
    return { name: `artifact ${name}`, passed: false, detail, source: 'artifacts' as const, required };
  });
}

/** The self-stop audit from the claims the stop-gate saw and the final verdict. */
export function auditSelfStop(
  claims: readonly ClaimRecord[],
  passed: boolean,
  /** The run's last script ran through (exit 0): a PARTIAL claim after one that did not is right (issue 31). */
  ranThrough = true,
): SelfStop {
  const last = claims[claims.length - 1];
  const refused = claims.filter((c) => c.claim === 'success' && !c.accepted).length;
  const claimed = last?.claim ?? null;
  const wrong =
    claimed !== null &&
    (refused > 0 || (claimed === 'success' && !passed) || (claimed !== 'success' && passed && ranThrough));
  return { claimed, verdict: passed ? 'passed' : 'failed', wrong, refused, claims: [...claims] };
}
