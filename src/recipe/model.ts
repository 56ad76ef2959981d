/**
 * `src/recipe/` owns how a repository is built as shell: the one recipe model (this file), the catalog of
 * per-build-system recipes (`catalog.yaml`, loaded and validated by `catalog.ts`; direct compilation in
 * `direct.ts`), the bash helper library every script runs with (`shell/bb-lib.sh`, read once by
 * `shell-lib.ts`, shellchecked in CI), and the renderers: a recipe with its repair fixes as a turn script
 * (`render-turn.ts`), a finished run's recipe as `build.sh` (`render-buildsh.ts`) and as a `Dockerfile`
 * (`render-dockerfile.ts`). It runs nothing and imports only `base/` and `repo/` types; the agent, the repair
 * knowledge and finalize import it.
 *
 * Three shapes of one idea: a `Recipe` is a way to build (tools + steps) before any repair; a turn runs a
 * recipe with `RecipeFixes` on top, recorded as a `ScriptRecipe`; finalize minimises the successful turns
 * into a `FinalRecipe`, which `build.sh` and the Dockerfile render.
 */
import type { BuildSystemKind } from '../repo/types.js';

/** The purposes a build step can have, in the order a recipe runs them. */
export type StepPurpose = 'dependencies' | 'patch' | 'generate' | 'configure' | 'build';

export const STEP_PURPOSES: readonly StepPurpose[] = [
  'dependencies',
  'patch',
  'generate',
  'configure',
  'build',
];

export interface RecipeStep {
  purpose: StepPurpose;
  command: string;
}

/** A command the recipe needs and the Debian/Ubuntu package(s) that provide it (space-separated). */
export interface ToolNeed {
  command: string;
  pkg: string;
}

/** One way to build the repository: a sequence of shell steps run from the repository root. */
export interface Recipe {
  id: string;
  /**
   * The build system the recipe drives; `direct` for direct compilation without one; `deploy` for the
   * environment setup of a deploy run (src/deploy/recipes/).
   */
  system: BuildSystemKind | 'direct' | 'deploy' | 'documented';
  /**
   * The out-of-tree build directory, relative to the repository root (`build`, `src/builddir`), for the
   * systems that build out of tree (cmake, meson); absent for in-tree builds.
   */
  buildDir?: string;
  /** Short label, e.g. `cmake (src/)`. */
  label: string;
  /** Why this recipe: the evidence from inspection. */
  evidence: string;
  /** Directory (relative to the repository root) where the build happens, '' for the root. */
  dir: string;
  /** Commands that make the recipe's tools available (idempotent: only installs what is missing). */
  tools: ToolNeed[];
  /** Steps in order; `@CONFIGURE_ARGS@` in a command stands for the fixes' configure arguments. */
  steps: RecipeStep[];
}

/** Extra state the repair knowledge adds on top of a recipe. */
export interface RecipeFixes {
  /** Packages to install before the recipe runs. */
  packages: string[];
  /** Shell commands run before the recipe (e.g. `git config --global --add safe.directory '*'`). */
  prelude: string[];
  /** Variables exported before the recipe (e.g. CFLAGS with -fcommon). */
  env: Record<string, string>;
  /** Extra arguments for the configure step (e.g. `-DBUILD_TESTING=OFF`). */
  configureArgs: string[];
}

export function emptyFixes(): RecipeFixes {
  return { packages: [], prelude: [], env: {}, configureArgs: [] };
}

/**
 * Adds fixes on top of the fixes so far (pure): packages and configure arguments are a set union, prelude
 * lines append, flag variables (CFLAGS, CXXFLAGS, …) accumulate with spaces, search paths (CPATH, …) with
 * colons, other variables are replaced.
 */
export function addFixes(fixes: RecipeFixes, more: Partial<RecipeFixes>): RecipeFixes {
  return {
    packages: [...new Set([...fixes.packages, ...(more.packages ?? [])])],
    prelude: [...fixes.prelude, ...(more.prelude ?? [])],
    env: mergeEnv(fixes.env, more.env ?? {}),
    configureArgs: [...new Set([...fixes.configureArgs, ...(more.configureArgs ?? [])])],
  };
}

function mergeEnv(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  const out = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const old = out[key];
    if (old && /FLAGS$/.test(key)) out[key] = `${old} ${value}`;
    else if (old && /(?:^|_)(?:CPATH|INCLUDE_PATH|LIBRARY_PATH|PKG_CONFIG_PATH)$/.test(key)) {
      out[key] = [...new Set([...old.split(':'), ...value.split(':')])].join(':');
    } else out[key] = value;
  }
  return out;
}

/** The parts of a self-contained turn script (see renderScript), structured for finalize. */
export interface ScriptRecipe {
  /** The build system the recipe drives (Recipe.system): the expectation follows it (issue 31). */
  system?: Recipe['system'];
  /** Commands the script makes sure exist, with the package providing each (installed only when missing). */
  tools: ToolNeed[];
  /** Packages installed before anything else (repairs). */
  packages: string[];
  /** Commands run before the steps that do not edit source files (safe.directory, chmod, fresh build dir). */
  prelude: string[];
  /** Commands run before the steps that edit source files (recorded in `patches`); finalize replaces them by the patch series. */
  edits: string[];
  /** Variables exported before the steps. */
  env: Record<string, string>;
  /** The steps, run from the repository root, each in its own subshell. */
  steps: RecipeStep[];
}

/** What a finished run's successful trajectory minimises to: what build.sh and the Dockerfile render. */
export interface FinalRecipe {
  mode: 'minimal' | 'full';
  /** The turn whose verifiers passed. */
  turn: number;
  /** Commands the build runs and the package providing each (installed only when the command is missing). */
  tools: ToolNeed[];
  /** Packages installed up front (what the repairs added, from every turn). */
  packages: string[];
  /** Patch files, relative to the recipe folder (`patches/0001-….patch`), applied in order. */
  patches: string[];
  /** Preparation commands (after the patches, before the environment). */
  prelude: string[];
  env: Record<string, string>;
  /** generate / configure / build steps, in order. */
  steps: RecipeStep[];
  /** `full` mode: every script up to the successful one, in order. */
  scripts: { turn: number; purpose: string; script: string; exitCode?: number | null }[];
  /** What a reader should know about how the recipe was made. */
  notes: string[];
}

/** The compiler wrappers are needed when a repair added extra compiler flags. */
export function needsCompilerWrappers(env: Readonly<Record<string, string>>): boolean {
  return Boolean(env.BB_EXTRA_CFLAGS || env.BB_EXTRA_CXXFLAGS);
}
