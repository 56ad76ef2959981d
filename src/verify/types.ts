/**
 * src/verify/ — judging (floor 1). It owns what counts as built: the artifact scan and ELF classification,
 * the scoring policy (vendored, submodule, test and scratch directories set aside), BUILD-BENCH's completion
 * / strict / flexible scores, layer-2 verifier specs and functional probes, and the verdict the loop's
 * stop-gate reads (`verifier.ts` puts them behind one object). It judges a tree; it does not decide the
 * run's status (core/status.ts does, from its verdicts).
 */

/** Artifacts a build produced and how they score. */

export type ArtifactKind = 'executable' | 'shared_library' | 'static_library' | 'elf_other';

export interface Artifact {
  /**
   * Relative to the repository root, '/'-separated. A name that is not UTF-8, or holds control characters
   * (a newline), shows those bytes as `\xNN`; `pathBase64` then holds the real bytes.
   */
  path: string;
  /** The path's bytes, base64, when `path` is only a display of them (see above). */
  pathBase64?: string;
  kind: ArtifactKind;
  size: number;
  /** Symbolic links in the tree that point at it (`src/kak` → `kak.opt`): an expected name may be one of theirs. */
  links?: string[];
}

/** A file's identity before a build, to tell new and rebuilt files from untouched ones. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  /** The relative path's bytes, when the map's key is only a display of them (see `Artifact.pathBase64`). */
  raw?: Buffer;
}

/** Relative path → stamp, taken before the first command runs. */
export type TreeSnapshot = Map<string, FileStamp>;

export type ExpectedSource = 'cli' | 'task' | 'inferred' | 'none';

export interface Expected {
  names: string[];
  source: ExpectedSource;
  /**
   * Inferred expectations only: why they may miss a product of the default build (a main target whose name is
   * computed when the build runs, repo/types.ts `ExpectedTarget.uncertain`), each with the build file and line. A
   * run judged by an uncertain expectation is PARTIAL at best (core/status.ts).
   */
  uncertain?: string[];
}

export interface Metrics {
  /** At least one new binary. */
  completion: boolean;
  /** Every expected name was produced (false when nothing is expected). */
  strict: boolean;
  /** At least one expected name was produced (false when nothing is expected). */
  flexible: boolean;
  matched: string[];
  missing: string[];
  /** Expected name → the artifact paths that matched it (evidence for reports). */
  matches?: Record<string, string[]>;
}

/** What the verifiers say about a tree: the loop's stop-gate reads it, the run's status is decided from it. */
export interface Verdict {
  /** The verifiers passed: the run may end with SUCCESS. */
  passed: boolean;
  metrics: Metrics;
  /** What is still wrong, for the next observation (`expected binary foo was not produced`). */
  failures: string[];
}

/**
 * What a strategy claims when it asks to finish: the one claim type of the agent's finish action, the
 * `claim` run event and the self-stop audit. The verifiers, not the claim, decide success.
 */
export type Claim = 'success' | 'partial' | 'impossible';
