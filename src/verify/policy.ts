/**
 * Which new binaries count toward completion / strict / flexible, the way BUILD-BENCH scores: binaries
 * under vendored code (third_party/, vendor/, external/, deps/, extern/, …), under git submodules and under
 * test, example and benchmark directories are products of someone else's code or of the test suite, not of
 * the project. They are set aside with the reason — never silently dropped: result.json lists them under
 * `excludedArtifacts`, and they are copied to `artifacts/` like the others (core/stages/collect.ts), so a
 * library whose only executables are its example programs still gives its user those programs.
 *
 * Rules:
 * - Test, benchmark, fuzzing, example and documentation directories are the ones inspection gives the
 *   `test` or `example` role (`repo/paths.roleOfDirName`), so the two never disagree.
 * - A directory component is matched case-insensitively anywhere in the path, so a CMake build tree that
 *   mirrors the source tree (`build/third_party/zlib/libz.a`, `build/tests/unit`) is treated like the
 *   source directory it mirrors.
 * - When the project itself lives inside such a directory (its main build root is `external/app/`, or a
 *   submodule holds the whole project), that part of the path is not held against it: only the components
 *   below the project root are looked at for paths inside it.
 * - Names the user or the task listed explicitly (`--expect`, a task label) count wherever they were built:
 *   asking for `test_runner` or a vendored `libz.a` by name means it is wanted. Inferred names get no
 *   such exemption.
 */
import { isWithin, roleOfDirName, VENDORED_DIRS as REPO_VENDORED_DIRS } from '../repo/paths.js';
import type { RepoInfo } from '../repo/types.js';
import { artifactBaseName, normalizeExpected } from './scoring.js';
import type { Artifact, Expected } from './types.js';

export type ExclusionReason = 'vendored' | 'submodule' | 'test';

/** A new binary that does not count toward the metrics, with why. */
export interface ExcludedArtifact extends Artifact {
  reason: ExclusionReason;
  /** The directory that decided it, e.g. `third_party` or `build/tests`. */
  dir: string;
}

export interface ScoringPolicy {
  /** The main build root, relative to the repository root ('' for the root itself). */
  projectRoot: string;
  /** Submodule paths, relative to the repository root. */
  submodules: string[];
  /** Base names (after `artifactBaseName`) that count wherever they are (explicitly expected names). */
  explicitNames: string[];
}

/**
 * Directory names holding other projects' code: inspection's list, less `contrib`, which often holds the
 * project's own extra tools (they are its products, not someone else's).
 */
export const VENDORED_DIRS: ReadonlySet<string> = new Set(
  [...REPO_VENDORED_DIRS].filter((d) => d !== 'contrib'),
);

/** The policy for a repository: its main build root and submodules; explicit names from `expected`. */
export function scoringPolicyFor(
  repo: Pick<RepoInfo, 'buildSystems' | 'submodules'> | undefined,
  expected: Expected,
): ScoringPolicy {
  const explicit = expected.source === 'cli' || expected.source === 'task';
  const { names } = normalizeExpected(explicit ? expected.names : []);
  return {
    projectRoot: repo?.buildSystems[0]?.dir ?? '',
    submodules: (repo?.submodules ?? [])
      .map((s) => s.path.replace(/^\.\/+|\/+$/g, ''))
      .filter((s) => s !== ''),
    explicitNames: [...new Set(names.map((n) => artifactBaseName(n)))],
  };
}

/** Index of `needle` as a contiguous run of components in `parts`, or -1. */
function indexOfRun(parts: readonly string[], needle: readonly string[], from: number): number {
  for (let i = from; i + needle.length <= parts.length; i++) {
    if (needle.every((part, j) => parts[i + j] === part)) return i;
  }
  return -1;
}

/**
 * Why a path (a file, relative to the repository root) does not count, or undefined when it does. Explicit
 * names are not considered here (see `partitionArtifacts`).
 */
export function exclusionOf(
  relPath: string,
  policy: Pick<ScoringPolicy, 'projectRoot' | 'submodules'>,
): { reason: ExclusionReason; dir: string } | undefined {
  const parts = relPath.split('/');
  const dirs = parts.slice(0, -1);
  // Components that belong to the project's own location are not held against it.
  const root = policy.projectRoot;
  const skip = root !== '' && isWithin(relPath, root) ? root.split('/').length : 0;
  const dirAt = (i: number): string => dirs.slice(0, i + 1).join('/');

  for (const sub of policy.submodules) {
    if (root !== '' && isWithin(root, sub)) continue; // the project itself is inside this submodule
    const run = sub.split('/');
    const at = indexOfRun(dirs, run, skip);
    if (at >= 0) return { reason: 'submodule', dir: dirAt(at + run.length - 1) };
  }
  for (let i = skip; i < dirs.length; i++) {
    const name = dirs[i]!.toLowerCase();
    if (VENDORED_DIRS.has(name)) return { reason: 'vendored', dir: dirAt(i) };
    // Test, benchmark, fuzzing, example and documentation directories: inspection's role table.
    if (roleOfDirName(name) !== undefined) return { reason: 'test', dir: dirAt(i) };
  }
  return undefined;
}

/** Splits artifacts into those that count and those set aside (with the reason); order is kept. */
export function partitionArtifacts(
  artifacts: readonly Artifact[],
  policy: ScoringPolicy,
): { counted: Artifact[]; excluded: ExcludedArtifact[] } {
  const explicit = new Set(policy.explicitNames);
  const counted: Artifact[] = [];
  const excluded: ExcludedArtifact[] = [];
  for (const artifact of artifacts) {
    const why = exclusionOf(artifact.path, policy);
    if (!why || explicit.has(artifactBaseName(artifact.path))) counted.push(artifact);
    else excluded.push({ ...artifact, ...why });
  }
  return { counted, excluded };
}

/** `third_party (vendored)`-style label for messages. */
export function describeExclusion(excluded: Pick<ExcludedArtifact, 'reason' | 'dir'>): string {
  const what =
    excluded.reason === 'vendored'
      ? 'vendored code'
      : excluded.reason === 'submodule'
        ? 'a git submodule'
        : 'a test, example or benchmark directory';
  return `under ${excluded.dir}/, ${what}`;
}
