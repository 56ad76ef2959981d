/**
 * The rules strategy's first-turn packages: what the build files declare (`RepoInfo.declaredDeps`) and, for a
 * deploy, the programs its target command runs, resolved in one batched look-up (`knowledge/repair/declared.ts`).
 * A look-up that fails is not fatal: the first recipe then runs without pre-installed packages and the repair
 * loop finds what is missing.
 */
import { targetPrograms } from '../../deploy/target-programs.js';
import type { DeployGoal } from '../../deploy/types.js';
import type { BuildDeclaration, RepoInfo } from '../../repo/types.js';
import { planPreinstall, type PreinstallPlan } from '../../knowledge/repair/declared.js';
import type { StrategyServices } from '../../knowledge/repair/repair.js';

/** The pre-install plan for the repository, or undefined when it declares nothing or nothing can resolve it. */
export async function preinstallFor(
  repo: RepoInfo,
  services: StrategyServices,
  goal?: DeployGoal,
): Promise<PreinstallPlan | undefined> {
  // A deploy's target runs programs too: those it and its scripts run are declared like the build files' needs
  // (deploy/target-programs.ts), so one a package ships and the sandbox lacks is there before the first script.
  if (!services.resolvePackages) return undefined;
  const programs: BuildDeclaration[] = goal
    ? await targetPrograms(repo.root, goal.target.command, goal.target.cwd)
    : [];
  const declared = [...(repo.declaredDeps ?? []), ...programs];
  if (declared.length === 0) return undefined;
  try {
    return await planPreinstall(declared, services);
  } catch (error) {
    return {
      packages: [],
      skipped: [
        {
          declaration: `${declared.length} declaration(s)`,
          why: `the look-up failed: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
      lookupMs: 0,
    };
  }
}
