/**
 * GPU tasks (`requires: [gpu]`): every setup recipe ends with the GPU check (src/verify/gpu.ts), so the
 * classic mistakes — a CPU-only framework wheel, a driver older than the framework's CUDA, a driver library
 * that does not load, no kernels for this GPU — fail the setup with a layer-1 finding and its repair before
 * the target ever runs, and a GPU that is not there is said up front. The step is part of the recipe, so the
 * replay and build.sh run it too.
 */
import type { Recipe, RecipeStep } from '../recipe/model.js';
import { gpuCheckScript } from '../verify/gpu.js';
import { DEPLOY_ENV_FILE, type DeployGoal } from './types.js';

/** The first line of the check step: how repairs find it (they add their steps before it). */
export const GPU_CHECK_STEP_MARKER = '# buildbench: the GPU check (before the target runs)';

/** The GPU check as a recipe step, with the deploy environment sourced. */
export function gpuCheckStep(): RecipeStep {
  return {
    purpose: 'build',
    command: `${GPU_CHECK_STEP_MARKER}\n${gpuCheckScript({ required: true, mode: 'check', envFile: DEPLOY_ENV_FILE })}`,
  };
}

export function isGpuCheckStep(step: RecipeStep): boolean {
  return step.command.startsWith(GPU_CHECK_STEP_MARKER);
}

/** The recipe with the GPU check as its last step when the goal requires a GPU (once). */
export function withGpuCheck(recipe: Recipe, goal: Pick<DeployGoal, 'requires'>): Recipe {
  if (!goal.requires.includes('gpu') || recipe.steps.some(isGpuCheckStep)) return recipe;
  return { ...recipe, steps: [...recipe.steps, gpuCheckStep()] };
}

/**
 * The recipe with `step` added after the setup and before the GPU check (a repair's reinstall), replacing an
 * earlier step with the same first line (an earlier attempt of the same repair).
 */
export function withStepBeforeGpuCheck(recipe: Recipe, step: RecipeStep): Recipe {
  const head = (s: RecipeStep): string => s.command.split('\n')[0] ?? '';
  const steps = recipe.steps.filter((s) => head(s) !== head(step));
  const at = steps.findIndex(isGpuCheckStep);
  if (at < 0) steps.push(step);
  else steps.splice(at, 0, step);
  return { ...recipe, steps };
}
