/**
 * Repairs known before the first script (issue 32): a failure predictable from the tree is repaired up front,
 * by the same rules that would repair it after a failed turn, so turn 0 usually passes. Today: an
 * unconditional `#include` of a header that the sandbox's C library removed (`<sys/sysctl.h>`, `<xlocale.h>`,
 * `<stropts.h>`). The compiler error such an include would print is read by the signature catalog; when the
 * catalog names a removed API (toolchain drift) and the header is not installed in the sandbox, the rule's
 * plan — a source change recorded as a patch — is applied before turn 0. An include of a header that is
 * installed is left alone, so a build that would have passed is never changed.
 *
 * And for a deploy with Python in it: a use of an API a newer NumPy, SciPy or Python removed (the migrations
 * table, verifiers/python-migrations.yaml) found in the repository's *.py files before turn 0 is migrated up
 * front, every such API at once, where the failed turns would find them one per turn (a 2019 artifact took
 * three turns: `collections.Mapping`, then `np.float`, then `np.int`). The table holds only documented drop-in
 * replacements (`np.float` is `float`), so a migration applied where the old API still worked changes nothing
 * the code does; files that use none of them are not touched.
 */
import { readFileUnder } from '../../base/safe-fs.js';
import { analyzeLog } from '../../knowledge/diagnose/log-parser.js';
import {
  defaultPythonMigrations,
  migrationAsEdit,
  migrationEdit,
  type PythonMigration,
} from '../../knowledge/repair/python-migrations.js';
import { firstMatchLine } from '../../knowledge/repair/source-edits.js';
import { walkTree } from '../../repo/walk.js';
import type { Finding } from '../../knowledge/diagnose/types.js';
import type { Repair, RepairKnowledge, StrategyServices } from '../../knowledge/repair/repair.js';
import { emptyFixes, type Recipe } from '../../recipe/model.js';
import type { RepoInfo } from '../../repo/types.js';

/** A repair applied before the first script, with the line of the tree that predicted its failure. */
export interface PreemptiveRepair {
  repair: Repair;
  /** `src/uptime.c:3: #include <sys/sysctl.h>` */
  evidence: string;
}

/** At most this many headers are checked (a sandbox look-up each). */
const MAX_CHECKED = 8;

export async function preemptiveRepairs(
  repo: RepoInfo,
  recipe: Recipe,
  knowledge: RepairKnowledge,
  services: StrategyServices,
): Promise<PreemptiveRepair[]> {
  // Without a way to see what the sandbox has, nothing is predicted: a guess could change a passing build.
  if (!services.findHeaders) return [];
  const out: PreemptiveRepair[] = [];
  const seen = new Set<string>();
  let checked = 0;
  for (const declaration of repo.declaredDeps ?? []) {
    if (declaration.kind !== 'header' || !declaration.required || seen.has(declaration.name)) continue;
    seen.add(declaration.name);
    // The error the compiler would print for this include, read as a failed turn's log would be.
    const line = `${declaration.source}:1: fatal error: ${declaration.name}: No such file or directory`;
    const finding: Finding | undefined = analyzeLog(line).rootCause;
    if (!finding || finding.category !== 'toolchain-drift') continue;
    if (checked++ >= MAX_CHECKED) break;
    if ((await services.findHeaders(declaration.name)).length > 0) continue; // installed: not needed
    const plans = await knowledge.propose(
      { rootCause: finding, findings: [finding], recipe, fixes: emptyFixes(), repo, output: line },
      services,
    );
    // Only a mechanical source change with its patch recorded: nothing that installs or reconfigures.
    const plan = plans.find((p) => (p.patches?.length ?? 0) > 0 && !p.recipe && !p.packages?.length);
    if (plan) out.push({ repair: plan, evidence: `${declaration.source}: ${declaration.text}` });
  }
  return out;
}

/** `-D<NAME>=OFF` of a switch for tests, examples, benchmarks or documentation (`-DBUILD_TESTING=OFF`). */
const EXTRA_SWITCH_OFF =
  /^-D(?:[A-Za-z0-9]+_)*(?:BUILD_|ENABLE_|WITH_)?(?:TESTS?|TESTING|EXAMPLES?|BENCHMARKS?|DOCS?|DOCUMENTATION)(?::BOOL)?=(?:OFF|0|FALSE|NO)$/i;

/**
 * The switches a CMake project's documentation turns off when it configures (`cmake -Bbuild -DBUILD_TESTING=OFF`,
 * ninja's README): the tests, examples, benchmarks and documentation the project's own binaries do not need.
 * Building them is work the person who follows the README does not do, and their downloads (a test framework
 * by FetchContent) can fail offline. Not when an expected binary is one of those (a `*_test`).
 */
export function documentedSwitchesOff(
  repo: RepoInfo,
  recipe: Recipe,
  expected: readonly string[],
): PreemptiveRepair[] {
  if (recipe.system !== 'cmake' || expected.some((n) => /test|bench|example|demo|doc/i.test(n))) return [];
  for (const block of repo.documented?.blocks ?? []) {
    if (block.from !== 'docs') continue;
    for (const line of block.text.split('\n')) {
      const words = line.trim().split(/\s+/);
      if (words[0] !== 'cmake') continue;
      const off = words.filter((w) => EXTRA_SWITCH_OFF.test(w));
      if (off.length === 0) continue;
      return [
        {
          repair: {
            rule: 'documented-switches',
            key: `documented-switches:${off.join(' ')}`,
            reason:
              `the documentation configures with ${off.join(' ')}: the tests, examples or documentation are ` +
              "not built, only the project's own binaries, as a person following it builds them",
            configureArgs: off,
          },
          evidence: `${block.source}: ${line.trim().slice(0, 160)}`,
        },
      ];
    }
  }
  return [];
}

/** How much of the tree the migration scan reads: files, bytes of one file, bytes in all. */
const MIGRATION_SCAN = { files: 400, fileBytes: 512 * 1024, totalBytes: 16 * 1024 * 1024 } as const;
/** Folders whose Python files are not the artifact's own (the edit program skips the same and links). */
const NOT_OWN = new Set(['.buildbench', '__pycache__']);

/**
 * The migrations of removed Python APIs the repository's *.py files use, each as a repair applied before the
 * first script with the first line that uses it as evidence; none for a repository without Python files.
 */
export async function preemptiveMigrations(
  repo: RepoInfo,
  table: readonly PythonMigration[] = defaultPythonMigrations(),
): Promise<PreemptiveRepair[]> {
  if (!repo.root || table.length === 0) return [];
  const tree = await walkTree(repo.root, { maxEntries: 50_000 });
  const files = tree.files
    .filter((f) => f.endsWith('.py') && !f.split('/').some((part) => NOT_OWN.has(part)))
    .slice(0, MIGRATION_SCAN.files);
  const evidence = new Map<string, string>();
  let total = 0;
  for (const file of files) {
    if (evidence.size === table.length || total >= MIGRATION_SCAN.totalBytes) break;
    let text: string;
    try {
      const bytes = await readFileUnder(repo.root, file, { maxBytes: MIGRATION_SCAN.fileBytes });
      total += bytes.length;
      text = bytes.toString('utf8');
    } catch {
      continue; // a link, gone, unreadable: the edit program skips it too
    }
    for (const m of table) {
      if (evidence.has(m.id)) continue;
      const line = firstMatchLine(migrationAsEdit(m), text);
      if (line === undefined) continue;
      const shown = (text.split('\n', line)[line - 1] ?? '').trim().slice(0, 120);
      evidence.set(m.id, `${file}:${line}: ${shown}`);
    }
  }
  return table
    .filter((m) => evidence.has(m.id))
    .map((m): PreemptiveRepair => {
      const reason = `${m.why} (${m.since}; ${m.source}), applied to every Python file before the first script`;
      return {
        repair: {
          rule: 'migrate-removed-python-api',
          key: `migrate:${m.id}`,
          reason,
          prelude: [migrationEdit([m])],
          patches: [{ file: `*.py files using removed ${m.module} names`, reason }],
          edits: [migrationAsEdit(m)],
        },
        evidence: evidence.get(m.id)!,
      };
    });
}
