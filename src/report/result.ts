import type { RunStatus } from '../base/status.js';
import type { IsolationReport } from '../sandbox/isolation.js';
import type { Artifact, Expected, Metrics } from '../verify/types.js';
import type { ExcludedArtifact } from '../verify/policy.js';
import type { Verification } from '../verify/verification.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { BuildSystem } from '../repo/types.js';
import type { ResultRecipe } from '../finalize/finalize.js';
import type { ResultPatch } from '../finalize/patches.js';

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
  /** Bytes the script printed in all (the log keeps at most `--max-log-size` of them). */
  logBytes?: number;
  /** True when the log kept only its head and tail (a marker line shows where bytes were dropped). */
  logTruncated?: boolean;
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
  /**
   * `copiedTo`: where the copy is, relative to the output folder (for a name shown escaped, with `pathBase64`,
   * the copy carries the real bytes). `copyError`: why the binary was not copied (a symbolic link on its path, …).
   */
  artifacts: (Artifact & { copiedTo?: string; copyError?: string })[];
  /** The strategy's last claim (finish action), next to the verdict, for self-stop audits. */
  claim?: { claim: string; reason: string; turn: number };
  strategy: string;
  /**
   * `keptWorkdir`: the kept build tree on this machine (`--keep`), re-checked by `buildbench verify`.
   * `buildCache`: the shared build cache folder the sandboxes mounted (package downloads, ccache).
   * `credentialsRemoved`: what was removed from the repository copy's git configuration, by name only
   * (`http.https://github.com/.extraheader`, `credential.helper`, `remote.origin.url (userinfo)`).
   */
  sandbox: {
    kind: string;
    image: string;
    keptAt?: string;
    keptWorkdir?: string;
    buildCache?: string;
    credentialsRemoved?: string[];
    /** What the sandbox isolated: namespaces, capabilities, seccomp, network, limits (see sandbox/isolation.ts). */
    isolation?: IsolationReport;
  };
  buildSystems: Pick<BuildSystem, 'kind' | 'dir' | 'file'>[];
  rootCause?: Pick<Finding, 'id' | 'category' | 'message' | 'line' | 'excerpt' | 'captures'> & {
    turn: number;
  };
  turns: TurnSummary[];
  timings: { startedAt: string; finishedAt: string; totalMs: number; prepareMs: number };
  /** `snapshot`: the tree before the build (`--keep` only), for `buildbench verify`. */
  files: { trajectory: string; logs: string; artifacts: string; snapshot?: string };
  /**
   * New binaries that do not count toward the metrics (vendored code, submodules, test/example/benchmark
   * directories), with the reason; listed so nothing is dropped silently.
   */
  excludedArtifacts?: ExcludedArtifact[];
  /** Every verifier check (artifacts, layer-2 spec, probes) and the self-stop audit. */
  verification?: Verification;
  /** The minimised recipe and its replay in a fresh sandbox (finalize; only after a successful build). */
  recipe?: ResultRecipe;
  /** Source changes the run made to files of the repository, one patch per file (finalize). */
  patches?: ResultPatch[];
  /** Model usage (llm and hybrid strategies): calls, tokens and dollars, retrieval included. */
  llm?: { model: string } & Record<string, unknown>;
  /** Where the build instructions came from (scored against BUILD-BENCH's labelled instruction URLs). */
  retrieval?: { mode: string; sufficient: boolean; rounds: number; sources: unknown[]; notes: string[] };
}
