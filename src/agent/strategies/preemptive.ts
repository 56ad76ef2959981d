/**
 * Repairs known before the first script (issue 32): a failure predictable from the tree is repaired up front,
 * by the same rules that would repair it after a failed turn, so turn 0 usually passes. Today: an
 * unconditional `#include` of a header that the sandbox's C library removed (`<sys/sysctl.h>`, `<xlocale.h>`,
 * `<stropts.h>`). The compiler error such an include would print is read by the signature catalog; when the
 * catalog names a removed API (toolchain drift) and the header is not installed in the sandbox, the rule's
 * plan — a source change recorded as a patch — is applied before turn 0. An include of a header that is
 * installed is left alone, so a build that would have passed is never changed.
 */
import { analyzeLog } from '../../knowledge/diagnose/log-parser.js';
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
