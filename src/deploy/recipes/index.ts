/**
 * `deployRecipes`: the setup recipes of a deploy run, from the ecosystems inspection found. A paper often
 * needs more than one ecosystem (Python driving a C extension, R plotting a Rust program's output), so the
 * first recipe is every ecosystem's best setup in one, in detection order; each alternative swaps one
 * ecosystem's setup for its next one. With no setup knowledge at all, one recipe that only records the
 * environment lets the target run as it is (its own failure then tells what is missing).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { Recipe } from '../../recipe/model.js';
import { alternativeMarker } from '../alternatives.js';
import type { RepoInfo } from '../../repo/types.js';
import { guestRecipe } from '../guest.js';
import { targetCommandParts } from '../target-programs.js';
import type { DeployGoal } from '../types.js';
import { cCppSetup } from './c-cpp.js';
import { withGpuCheck } from '../gpu.js';
import { javascriptSetup } from './javascript.js';
import { juliaSetup } from './julia.js';
import { pythonSetup } from './python.js';
import { rSetup } from './r.js';
import { fortranSetup } from './fortran.js';
import { goSetup } from './go.js';
import { haskellSetup } from './haskell.js';
import { javaSetup } from './java.js';
import { luaSetup } from './lua.js';
import { racketSetup } from './racket.js';
import { rustSetup } from './rust.js';
import type { EcosystemSetup } from './setup.js';
import { withTargetRun } from './target-run.js';

/** Every ecosystem's setup knowledge (one file each). */
export const SETUPS: readonly EcosystemSetup[] = [
  cCppSetup,
  pythonSetup,
  rSetup,
  juliaSetup,
  javascriptSetup,
  fortranSetup,
  rustSetup,
  goSetup,
  javaSetup,
  haskellSetup,
  luaSetup,
  racketSetup,
];

/** One recipe from the parts: tools in union, steps in order, labels and evidence joined. */
export function combineRecipes(parts: readonly Recipe[]): Recipe {
  const tools = new Map<string, Recipe['tools'][number]>();
  for (const part of parts) for (const tool of part.tools) tools.set(tool.command, tool);
  return {
    id: `deploy:${parts.map((p) => p.id).join('+')}`,
    system: 'deploy',
    label: parts.map((p) => p.label).join(' + '),
    evidence: parts.map((p) => p.evidence).join('; '),
    dir: '',
    tools: [...tools.values()],
    steps: parts.flatMap((p) => p.steps),
  };
}

/**
 * The setup recipes for a deploy run, best first; never empty. A GPU task's go on with the GPU check (gpu.ts),
 * and every one ends with the target's run (target-run.ts), so its failure is in the turn's log.
 */
export function deployRecipes(
  repo: RepoInfo,
  goal: DeployGoal,
  setups: readonly EcosystemSetup[] = SETUPS,
): Recipe[] {
  const own = ownScripts(repo.root);
  return setupRecipes(repo, goal, setups, own).map(({ recipe, parts }) =>
    withTargetRun(withGpuCheck(recipe, goal), goal, alternativeMarker(parts, own)),
  );
}

/** A setup recipe and the ids of the alternatives it combines. */
interface Combined {
  recipe: Recipe;
  parts: string[];
}

function setupRecipes(
  repo: RepoInfo,
  goal: DeployGoal,
  setups: readonly EcosystemSetup[],
  own: readonly string[],
): Combined[] {
  const parts = (repo.ecosystems ?? [])
    .map((eco) => setups.find((s) => s.kind === eco.kind)?.recipes(eco, { repo, goal }) ?? [])
    .filter((recipes) => recipes.length > 0);
  // A guest (kernel, bare-metal image) is built and booted whatever the ecosystems: its part comes last.
  const guest = guestRecipe(goal);
  if (guest) parts.push([guest]);
  const combined = (recipes: Recipe[]): Combined => ({
    recipe: combineRecipes(recipes),
    parts: recipes.map((r) => r.id),
  });
  const best = parts.map((recipes) => recipes[0]!);
  const out: Combined[] = [];
  // With no setup knowledge, a target that runs a program the tree lacks (`./fit`, which a build makes) cannot
  // run as it is: the repository's own build scripts come first then.
  const bareFirst = own.length === 0 || !targetNeedsBuilding(repo.root, goal);
  if (parts.length === 0 && bareFirst) out.push({ recipe: bareRecipe(), parts: [] });
  else if (parts.length > 0) out.push(combined(best));
  parts.forEach((recipes, i) => {
    for (const alternative of recipes.slice(1)) {
      out.push(combined(best.map((r, j) => (j === i ? alternative : r))));
    }
  });
  // The repository's own build scripts come after every setup's alternatives (the build tools failed).
  for (const file of own) {
    const recipe = ownScriptRecipe(file, best);
    out.push({ recipe, parts: [recipe.id] });
  }
  if (parts.length === 0 && !bareFirst) out.push({ recipe: bareRecipe(), parts: [] });
  const ids = new Set<string>();
  return out.filter((c) => !ids.has(c.recipe.id) && ids.add(c.recipe.id));
}

/**
 * Whether the target command runs a program by its path in the tree (`./fit`, `bin/solve`) that is not there:
 * something must build it first.
 */
export function targetNeedsBuilding(root: string, goal: DeployGoal): boolean {
  const { script } = targetCommandParts(goal.target.command.split('\n')[0] ?? '');
  if (!root || !script || script.includes('$') || path.isAbsolute(script)) return false;
  const rel = path.posix.normalize(path.posix.join(goal.target.cwd ?? '', script));
  if (rel.startsWith('..')) return false;
  try {
    lstatSync(path.join(root, rel));
    return false;
  } catch {
    return true;
  }
}

/**
 * The build scripts a repository may have of its own at its root, in the order they are tried: what its
 * authors run instead of (or around) the build tool. Only regular files (a link is not followed).
 */
export const OWN_SCRIPT_NAMES = ['build.sh', 'compile.sh', 'install.sh', 'setup.sh'] as const;

export function ownScripts(root: string): string[] {
  if (!root) return [];
  return OWN_SCRIPT_NAMES.filter((name) => {
    try {
      return lstatSync(path.join(root, name)).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The repository's own script as the setup: the tools the ecosystems' setups need (the JDK, cargo, …), then
 * `bash <script>` from the root.
 */
function ownScriptRecipe(file: string, best: readonly Recipe[]): Recipe {
  const tools = new Map<string, Recipe['tools'][number]>();
  for (const part of best) for (const tool of part.tools) tools.set(tool.command, tool);
  return {
    id: `own-script:${file}`,
    system: 'deploy',
    label: `the repository's own ${file}`,
    evidence: `the repository has its own ${file}: its authors' way of building it, tried after the build tools`,
    dir: '',
    tools: [...tools.values()],
    steps: [{ purpose: 'build', command: `bash ./${file}` }],
  };
}

/** No setup knowledge applies: the target runs in the environment as it is. */
function bareRecipe(): Recipe {
  return {
    id: 'deploy:as-is',
    system: 'deploy',
    label: 'no setup (the target as it is)',
    evidence: 'no manifest of a known ecosystem was found; the target runs in the sandbox as it is',
    dir: '',
    tools: [],
    steps: [],
  };
}
