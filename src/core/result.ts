import type { Artifact, Expected, Metrics } from '../verify/types.js';
import type { Finding } from '../knowledge/types.js';
import type { BuildSystem } from '../repo/types.js';

/** The closed set of outcomes (SWE-agent style exit statuses). */
export const RUN_STATUSES = [
  'success',
  'partial',
  'failed',
  'limits_exceeded',
  'stuck',
  'sandbox_error',
  'provider_error',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RESULT_SCHEMA = 'buildbench.result/v1';

export interface TurnSummary {
  turn: number;
  purpose: string;
  reason: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  rootCause?: Pick<Finding, 'id' | 'category' | 'message' | 'line'>;
  newArtifacts: number;
  log?: string;
}

/**
 * result.json — read by the Action, benchmarks and the bot. Fields are only ever added; `schema` changes
 * when a field changes meaning.
 */
export interface BuildResult {
  schema: typeof RESULT_SCHEMA;
  tool: { name: 'buildbench'; version: string };
  repo: { name: string; source: string; commit?: string };
  status: RunStatus;
  /** One sentence: why the run ended the way it did. */
  reason: string;
  metrics: Pick<Metrics, 'completion' | 'strict' | 'flexible'>;
  expected: Expected & { matched: string[]; missing: string[]; ignored: { name: string; why: string }[] };
  artifacts: (Artifact & { copiedTo?: string })[];
  /** The strategy's last claim (finish action), next to the verdict, for self-stop audits. */
  claim?: { claim: string; reason: string; turn: number };
  strategy: string;
  sandbox: { kind: string; image: string; keptAt?: string };
  buildSystems: Pick<BuildSystem, 'kind' | 'dir' | 'file'>[];
  rootCause?: Pick<Finding, 'id' | 'category' | 'message' | 'line' | 'excerpt' | 'captures'> & { turn: number };
  turns: TurnSummary[];
  timings: { startedAt: string; finishedAt: string; totalMs: number; prepareMs: number };
  files: { trajectory: string; logs: string; artifacts: string };
}
