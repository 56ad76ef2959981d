import type { Artifact, Expected, Verdict } from './types.js';
import { scoreArtifacts } from './scoring.js';

/**
 * The artifact verifier's verdict. With expected names the build passes only when every one was produced
 * (strict); with none, any new binary passes (completion).
 */
export function judgeArtifacts(artifacts: Artifact[], expected: Expected): Verdict {
  const metrics = scoreArtifacts(artifacts, expected);
  const failures: string[] = [];
  if (expected.names.length === 0) {
    if (!metrics.completion) failures.push('no new executable or library was built');
    return { passed: metrics.completion, metrics, failures };
  }
  for (const name of metrics.missing) {
    failures.push(`expected binary '${name}' (${expected.source}) was not produced`);
  }
  return { passed: metrics.strict, metrics, failures };
}
