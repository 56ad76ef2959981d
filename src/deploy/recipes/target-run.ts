/**
 * The target experiment as the last step of a deploy recipe. The hidden verifier runs it again in the final
 * environment and alone decides success; running it here too makes its failure part of the turn's log, which
 * is what layer 1 reads and the repair knowledge answers (a missing module, a removed API, a Python 2 script).
 * Without it a setup that installs cleanly would leave the strategy nothing to repair.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import { SOURCE_DEPLOY_ENV, type DeployGoal } from '../types.js';

/**
 * The line a turn prints just before the target runs: every setup step before it succeeded (turn scripts run
 * with `set -e`), so a turn that printed it set the environment up even when the target then failed.
 */
export const TARGET_RUN_MARKER = '### buildbench: the target experiment: ';

/** The step: from the target's cwd, with the deploy environment sourced, within the target's time limit. */
export function targetStep(goal: DeployGoal, marker?: string): Recipe['steps'][number] {
  const cwd = goal.target.cwd && goal.target.cwd !== '.' ? goal.target.cwd : '.';
  const seconds = Math.max(1, Math.ceil(goal.target.timeoutMs / 1000));
  return {
    purpose: 'build',
    command: [
      ...(marker ? [marker] : []),
      SOURCE_DEPLOY_ENV,
      `cd ${shq(cwd)}`,
      `echo ${shq(`${TARGET_RUN_MARKER}${goal.target.command}`)}`,
      `timeout -k 10s ${seconds}s bash -c ${shq(goal.target.command)}`,
    ].join('\n'),
  };
}

/**
 * The recipe with the target's run appended (once). `marker` (a shell comment, alternatives.ts) heads the
 * step: it names the alternatives the script tries, so a trajectory alone tells them.
 */
export function withTargetRun(recipe: Recipe, goal: DeployGoal, marker?: string): Recipe {
  return { ...recipe, steps: [...recipe.steps, targetStep(goal, marker)] };
}
