/**
 * The repair rules asked with no tree and no sandbox: what `buildbench diagnose` (and the App's comment on a
 * failed CI run) uses to say what the engine would do about a log's root cause. The rules are the same ones the
 * repair loop asks (one knowledge, two readers — issue 30); only their inputs differ:
 * - the services answer from the offline package tables (packages-fallback.yaml, then packages-common.yaml) and
 *   say `offline`, so a rule whose need no table row answers returns what it would look up in the package index;
 * - the repository is a folder that does not exist (a rule that reads the tree finds nothing there and stays
 *   silent, rather than reading the folder the diagnosis happens to run in), and the recipe is unknown.
 */
import type { Finding } from '../diagnose/types.js';
import { emptyFixes, type Recipe } from '../../recipe/model.js';
import type { RepoInfo } from '../../repo/types.js';
import type { FallbackTable } from './package-fallback.js';
import type { Need, Resolution } from './needs.js';
import type { Repair, RepairInput, StrategyServices } from './repair.js';
import { RULES, RuleKnowledge } from './rules/index.js';
import type { RepairTables } from './tables.js';

/** Where a diagnosis's rules "find" the repository: nowhere (an absolute path no checkout has). */
export const NO_TREE = '/nonexistent/buildbench-diagnosis-has-no-checkout';

/** Package look-ups answered from the offline tables, asked in order; a need none answers says so. */
export function offlineServices(tables: readonly FallbackTable[]): StrategyServices {
  const resolve = (need: Need): Resolution => {
    for (const table of tables) {
      const entry = table.lookup(need);
      if (!entry) continue;
      if (entry.packages.length === 0)
        return {
          need,
          candidates: [],
          via: 'fallback',
          noPackageNeeded: true,
          ...(entry.note ? { note: entry.note } : {}),
        };
      return {
        need,
        package: entry.packages[0]!,
        candidates: [...entry.packages],
        via: 'fallback',
        ...(entry.note ? { note: entry.note } : {}),
      };
    }
    return { need, candidates: [], via: 'none' };
  };
  return {
    offline: true,
    resolvePackages: (needs) => Promise.resolve(needs.map(resolve)),
    // no sandbox: nothing is known to be installed, and no header is found on a search path
    findHeaders: () => Promise.resolve([]),
    knownPackages: (names) => Promise.resolve([...names]),
  };
}

/** A recipe that says nothing: the log does not say which build system ran, or where. */
const UNKNOWN_RECIPE: Recipe = {
  id: 'log',
  system: 'documented',
  label: 'the build that wrote the log',
  evidence: 'a failed build log',
  dir: '',
  tools: [],
  steps: [],
};

function noRepository(): RepoInfo {
  return {
    root: NO_TREE,
    name: 'unknown',
    fileCount: 0,
    buildSystems: [],
    docs: [],
    ciFiles: [],
    dockerfiles: [],
    submodules: [],
    languages: {},
    mainSources: [],
    expectedTargets: [],
  };
}

/**
 * The build system a log shows by its failures: a CMake error comes from CMake, an autoconf or automake error
 * from autotools. The recipe stays unknown otherwise (a compile error says nothing of what drove it).
 */
export function systemOfLog(findings: readonly Finding[]): Recipe['system'] {
  for (const f of findings) {
    if (f.id.startsWith('cmake-')) return 'cmake';
    if (/^(?:autoconf|automake|configure-unexpanded|libtool-version)-/.test(f.id)) return 'autotools';
    if (f.id.startsWith('meson-')) return 'meson';
  }
  return UNKNOWN_RECIPE.system;
}

/** What the rules see of a log: its findings, the lines around them, and nothing of a tree. */
export function logRepairInput(
  rootCause: Finding,
  findings: readonly Finding[],
  output: string,
): RepairInput {
  return {
    rootCause,
    findings,
    recipe: { ...UNKNOWN_RECIPE, system: systemOfLog([rootCause, ...findings]) },
    fixes: emptyFixes(),
    repo: noRepository(),
    output,
  };
}

/**
 * The plans the repair rules make for a log's root cause (then for its next findings, as the repair loop asks),
 * best first, with offline services: what the engine would apply, computed without running anything.
 */
export async function plansForLog(
  rootCause: Finding,
  findings: readonly Finding[],
  output: string,
  packageTables: readonly FallbackTable[],
  repairTables?: RepairTables,
): Promise<Repair[]> {
  const knowledge = new RuleKnowledge(repairTables);
  return knowledge.propose(logRepairInput(rootCause, findings, output), offlineServices(packageTables));
}

/**
 * Why the engine's rule for a signature decides its fix only with the repository in hand (its `needsTree`), for a
 * diagnosis that found no plan; undefined when no rule answers the signature or one decides from a log alone.
 */
export function treeNeedOf(signatureId: string): string | undefined {
  const rules = RULES.filter((r) => r.ids.includes(signatureId));
  if (rules.length === 0 || rules.some((r) => r.needsTree === undefined)) return undefined;
  return rules.map((r) => r.needsTree).join('; ');
}
