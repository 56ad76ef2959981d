/** Layer-1 findings: what a build log says went wrong. Shared by strategies, verifiers, reports and the bot. */

/** What kind of failure a finding is; the signature catalog may only use these. */
export const FINDING_CATEGORIES = [
  'missing-dependency',
  'compile-error',
  'link-error',
  'toolchain-drift',
  'layout',
  'configure-error',
  'runtime-crash',
  'oom',
  'timeout',
  'gpu',
  'network',
  'permission',
  /** The runner or the CI service, not the build: out of disk, a cancelled job, a lost runner. */
  'infrastructure',
  'build-failed',
] as const;

export type FindingCategory = (typeof FINDING_CATEGORIES)[number];

export interface Finding {
  /** The catalog signature id, e.g. `missing-header`. */
  id: string;
  category: FindingCategory;
  /** One line for a person: what went wrong. */
  message: string;
  /** Named captures from the signature: header, library, pkgconfig, cmake_package, command, file, symbol, line, … */
  captures: Record<string, string>;
  /** 1-based line number in the log. */
  line: number;
  /** The matched line with a few lines of context. */
  excerpt: string;
  /** A hint for a person (from the catalog). */
  hint?: string;
  /** True for follow-up noise (`make: *** Error 2`) that is never the root cause when anything else matched. */
  followUp?: boolean;
}

export interface LogAnalysis {
  findings: Finding[];
  /** The first error in causal order, or undefined when nothing matched. */
  rootCause?: Finding;
  lines: number;
  bytes: number;
}
