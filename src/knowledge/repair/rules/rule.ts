/**
 * What a repair rule is, and the building blocks the rule families share: install what the package index
 * says provides a need, compiler flags through the recipe's wrappers, a fresh build directory, an
 * autotools recipe that regenerates `configure`, and the options a CMake project offers to turn a feature off.
 */
import path from 'node:path';
import { readFileUnder } from '../../../base/safe-fs.js';
import { inDir, shq } from '../../../base/shell.js';
import type { Recipe } from '../../../recipe/model.js';
import type { Finding } from '../../diagnose/types.js';
import type { Need } from '../needs.js';
import type { Repair, RepairInput, StrategyServices } from '../repair.js';
import type { RepairTables } from '../tables.js';

/** What a rule may read besides the failure: the read-only services and the repair tables. */
export interface RuleContext {
  services: StrategyServices;
  tables: RepairTables;
}

export type RuleFn = (
  finding: Finding,
  input: RepairInput,
  context: RuleContext,
) => Promise<Repair[]> | Repair[];

/** A repair rule: the signature ids (from `verifiers/signatures.yaml`) it answers, and how. */
export interface Rule {
  readonly ids: readonly string[];
  readonly propose: RuleFn;
  /**
   * Why the rule cannot decide from a log alone — what it reads in the tree, the recipe or the sandbox; absent
   * when a log is enough. The diagnosis of a CI log says so instead of proposing a fix.
   */
  readonly needsTree?: string;
}

/** Bounds on how much of a failure the rules look at. */
export const RULE_LIMITS = {
  /** Findings a proposal looks at: the root cause first, then the next findings that are not follow-up noise. */
  findingsTried: 10,
  /** Packages CMake reported "Could NOT find" before a failed download that are looked up (the first ones). */
  packagesBeforeDownload: 3,
  /** Bytes of a CMakeLists.txt read when looking for `option(...)` names. */
  cmakeListsBytes: 1024 * 1024,
} as const;

/** A named capture of the finding, trimmed; undefined when absent or blank. */
export function cap(finding: Finding, name: string): string | undefined {
  const value = finding.captures[name]?.trim();
  return value ? value : undefined;
}

/** Installs the package that provides what is missing, when the package index knows one. */
export async function installFor(
  rule: string,
  needs: Need[],
  what: string,
  services: StrategyServices,
  extra: string[] = [],
): Promise<Repair[]> {
  if (!services.resolvePackages || needs.length === 0) return [];
  const resolutions = await services.resolvePackages(needs);
  const found = resolutions.find((r) => r.package);
  if (!found && services.offline && !resolutions.some((r) => r.noPackageNeeded))
    return [lookupPlan(rule, needs, what)];
  // Already installed: the need is about search paths (see addIncludeDir), installing again cannot help.
  if (!found?.package || found.installed) return [];
  const packages = [...new Set([found.package, ...extra])];
  return [
    {
      rule,
      key: `pkg:${packages.join(',')}`,
      reason: `${what}; ${found.package} provides it (found via ${found.via})`,
      packages,
    },
  ];
}

/** Offline (a diagnosis): the package index would be asked for `needs` (most specific first). */
function lookupPlan(rule: string, needs: Need[], what: string): Repair {
  return {
    rule,
    key: `lookup:${needs.map((n) => `${n.kind}:${n.name}`).join(',')}`,
    reason: `${what}; the package that provides it is looked up in the package index`,
    lookups: needs,
  };
}

/**
 * Installs a package for each item (each a list of look-ups, most specific first), in one repair: what
 * several missing parts need at once. Items the index knows nothing of, or that are installed, are left out.
 */
export async function installEach(
  rule: string,
  items: Need[][],
  what: string,
  services: StrategyServices,
): Promise<Repair[]> {
  if (!services.resolvePackages || items.length === 0) return [];
  const resolutions = await services.resolvePackages(items.flat());
  if (services.offline && !resolutions.some((r) => r.package || r.noPackageNeeded))
    return [lookupPlan(rule, items.flat(), what)];
  const packages: string[] = [];
  const vias = new Set<string>();
  let offset = 0;
  for (const item of items) {
    const mine = resolutions.slice(offset, offset + item.length);
    offset += item.length;
    const found = mine.find((r) => r.package);
    if (found?.package && !found.installed && !packages.includes(found.package)) {
      packages.push(found.package);
      vias.add(found.via);
    }
  }
  if (packages.length === 0) return [];
  return [
    {
      rule,
      key: `pkg:${packages.join(',')}`,
      reason: `${what}; ${packages.join(', ')} provide${packages.length === 1 ? 's' : ''} them (found via ${[...vias].join(' and ')})`,
      packages,
    },
  ];
}

/** `FooBar` / `foo-bar` → the spellings a CMake package or pkg-config module commonly has. */
export function cmakeNeeds(name: string): Need[] {
  return [
    { kind: 'cmake', name },
    { kind: 'pkgconfig', name: name.toLowerCase() },
  ];
}

/** Flags that reach every compiler call through the recipe's wrappers (see renderScript). */
export function flags(rule: string, reason: string, c: string, cxx: string): Repair {
  const env: Record<string, string> = {};
  if (c) env.BB_EXTRA_CFLAGS = c;
  if (cxx) env.BB_EXTRA_CXXFLAGS = cxx;
  return { rule, key: `flags:${c}|${cxx}`, reason, env, prelude: [] };
}

/**
 * A flag repair must start from a fresh build: out-of-tree builds (CMake, meson) get a new build directory,
 * so they pick up the wrapped compilers (they cache the compiler's path). In-tree builds (make, autotools,
 * scripts) lose the object files earlier turns compiled without the new flags, which make would otherwise
 * only relink; files that came with the checkout are older than the script's start stamp and stay (without
 * the stamp, e.g. in a replayed recipe, nothing is deleted). Link-only flags need no recompilation.
 */
export function freshBuildDir(recipe: Recipe, objects = true): string[] {
  if (recipe.buildDir) return [`rm -rf ${shq(recipe.buildDir)}`];
  if (!objects) return [];
  return [
    `if [ -e "\${BB_STAMP:-}" ]; then find ${shq(recipe.dir || '.')} -name .git -prune -o -type f \\( -name '*.o' -o -name '*.lo' -o -name '*.obj' \\) -newer "$BB_STAMP" -print0 | xargs -0 -r rm -f; fi`,
  ];
}

export function withFreshDir(repair: Repair, recipe: Recipe, objects = true): Repair {
  return { ...repair, prelude: [...freshBuildDir(recipe, objects), ...(repair.prelude ?? [])] };
}

/** The autotools recipe with `autoreconf -fi` before configure (regenerates configure and the aux files). */
/**
 * How a repair regenerates the autotools files: the recipe with `autoreconf -fi` as its first step when it is
 * an autotools recipe; else, for a failure only autotools print (an undefined autoconf macro, a missing aux
 * file), `autoreconf -fi` before the build — also what a person reading a CI log is told, where no recipe is known.
 */
export function regenerating(recipe: Recipe): { recipe: Recipe } | { prelude: string[] } {
  const regenerated = regenerate(recipe);
  return regenerated ? { recipe: regenerated } : { prelude: [inDir(recipe.dir, 'autoreconf -fi')] };
}

/** The packages autoreconf -fi needs to regenerate a configure that uses Automake, Libtool and pkg-config macros. */
export const AUTORECONF_PACKAGES: readonly string[] = ['autoconf', 'automake', 'libtool', 'pkg-config'];

export function regenerate(recipe: Recipe): Recipe | undefined {
  if (recipe.system !== 'autotools') return undefined;
  const steps = recipe.steps.filter((s) => s.purpose !== 'generate');
  return {
    ...recipe,
    steps: [{ purpose: 'generate', command: inDir(recipe.dir, 'autoreconf -fi') }, ...steps],
  };
}

/** `option(NAME ...)` names in the recipe's CMakeLists.txt that could switch off a feature needing `pkg`. */
export async function cmakeOptionsFor(
  root: string,
  recipe: Recipe,
  pkg: string,
  tables: RepairTables,
): Promise<string[]> {
  const file = path.posix.join(recipe.dir || '.', 'CMakeLists.txt').replace(/^\.\//, '');
  let text = '';
  try {
    // a link that leads outside the checkout is not read (links inside are)
    text = (
      await readFileUnder(root, file, { follow: 'inside', maxBytes: RULE_LIMITS.cmakeListsBytes })
    ).toString('utf8');
  } catch {
    return [];
  }
  const options = new Set<string>();
  for (const m of text.matchAll(/\boption\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)/g)) options.add(m[1]!);
  const key = pkg.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  const testish = tables.testPackages.has(key);
  return [...options].filter((o) => {
    const upper = o.toUpperCase();
    if (
      key.length >= 3 &&
      upper.includes(key) &&
      /^(WITH|USE|ENABLE|BUILD|HAVE)_|_(SUPPORT|ENABLED?)$/.test(upper)
    )
      return true;
    return testish && /(^|_)(BUILD_)?(TESTS?|TESTING|BENCHMARKS?|EXAMPLES?)$/.test(upper);
  });
}
