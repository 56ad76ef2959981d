/**
 * `knowledge/repair/` owns repair: general fixes for failure signatures, never for one repository. The rules
 * (`rules/`, one file per family, assembled in `rules/index.ts`) map a finding from `knowledge/diagnose/` to
 * repairs; their tables are data (`verifiers/repairs.yaml`, loaded by `tables.ts`); the package resolver
 * (`packages.ts`, with `needs.ts`, `package-index.ts` and `package-fallback.ts`) answers which Debian/Ubuntu
 * package provides a missing file from the sandbox's own package index. This file holds the shapes a
 * strategy sees: the input, a `Repair`, the read-only services, and `applyRepair`.
 */
import type { Finding } from '../diagnose/types.js';
import type { RepoInfo } from '../../repo/types.js';
import type { DeployGoal } from '../../deploy/types.js';
import type { Need, Resolution } from './needs.js';
import type { SourceEdit } from './source-edits.js';
import type { ShippedSource } from './tables.js';
import { addFixes, type Recipe, type RecipeFixes } from '../../recipe/model.js';

/** What the repair knowledge sees: the failure and the recipe that produced it. */
export interface RepairInput {
  rootCause: Finding;
  findings: readonly Finding[];
  recipe: Recipe;
  fixes: RecipeFixes;
  repo: RepoInfo;
  /** The captured output of the failed turn. */
  output: string;
  /** A deploy run's goal; absent for a build. */
  goal?: DeployGoal;
}

/** A general fix for a failure signature. Never mentions a particular repository. */
export interface Repair {
  /** The knowledge rule that proposed it, e.g. `install-header-package`. */
  rule: string;
  /** Identity for "already tried": the same key is never applied twice in one run. */
  key: string;
  /** For a person and for patch messages: which error this fixes and why. */
  reason: string;
  packages?: string[];
  prelude?: string[];
  env?: Record<string, string>;
  configureArgs?: string[];
  /** Replace the current recipe (e.g. generate `configure` first, or build in another directory). */
  recipe?: Recipe;
  /** Source files the prelude edits, recorded as patches with this repair's reason. */
  patches?: { file: string; reason: string }[];
  /**
   * The prelude's source edits as data (source-edits.ts), where they are mechanical: the diagnosis of a log applies
   * them to the files given with `--file` and shows the diff; the engine runs the prelude.
   */
  edits?: SourceEdit[];
  /**
   * What the package index would be asked before this repair could name a package: only in a plan made with
   * offline services (`StrategyServices.offline`, the diagnosis of a log), where no table row answers. The
   * engine never receives such a plan: its services always ask the sandbox's index.
   */
  lookups?: Need[];
}

/** Read-only services a strategy may use; they never change the sandbox. */
export interface StrategyServices {
  /**
   * The answers come from offline tables, not from a sandbox (a log diagnosed with no tree and no sandbox): a
   * rule that would ask the package index and gets no package returns a plan that says what it would look up
   * (`Repair.lookups`) instead of nothing.
   */
  offline?: boolean;
  /** Looks up which distribution package provides a file or command (in the sandbox's package index). */
  resolvePackages?: (needs: Need[]) => Promise<Resolution[]>;
  /**
   * Installed files whose path ends in `/<header>` under the system include directories (/usr/include,
   * /usr/local/include and their subdirectories), for headers a package ships outside the default search path.
   */
  findHeaders?: (header: string) => Promise<string[]>;
  /**
   * The `{pkg, path}` entries of the package index whose file name matches one of `tails` (regexes over the last
   * path component, built from escaped names, each starting with a literal): for look-ups by path that the
   * per-kind needs do not make (a header in a versioned include folder, a program under a versioned name).
   * Absent where the sandbox has no host-side Contents index.
   */
  searchPaths?: (tails: readonly string[]) => Promise<{ pkg: string; path: string }[]>;
  /** Those of the package names the sandbox's package index knows (names a README gives may be another distribution's). */
  knownPackages?: (names: readonly string[]) => Promise<string[]>;
  /** What apt says of package names a build doc lists: installed, available, or (absent) unknown. */
  packageStatus?: (names: string[]) => Promise<Map<string, 'installed' | 'available'>>;
}

export interface RepairKnowledge {
  /** Candidate repairs for the failure, best first. */
  propose(input: RepairInput, services: StrategyServices): Promise<Repair[]>;
  /** What the distribution ships of projects builds download (the tables' `shipped_sources`); none: nothing. */
  readonly shippedSources?: readonly ShippedSource[];
}

/** Knowledge with no rules: the strategy moves on to the next recipe after any failure. */
export const NO_KNOWLEDGE: RepairKnowledge = {
  propose: () => Promise.resolve([]),
};

/** Applies a repair on top of the fixes so far (pure; see `addFixes` for how each part merges). */
export function applyRepair(fixes: RecipeFixes, repair: Repair): RecipeFixes {
  return addFixes(fixes, repair);
}
