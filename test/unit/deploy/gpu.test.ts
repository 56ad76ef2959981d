/**
 * A GPU task's setup recipes end with the GPU check (deploy/gpu.ts), once, and a repair's reinstall goes
 * before it; a task that requires no GPU gets no check.
 */
import { describe, expect, it } from '@jest/globals';

import {
  gpuCheckStep,
  isGpuCheckStep,
  withGpuCheck,
  withStepBeforeGpuCheck,
} from '../../../src/deploy/gpu.js';
import { deployRecipes } from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { repoInfo } from '../../fakes/repo-info.js';

const GOAL: DeployGoal = {
  target: { command: 'python3 train.py', cwd: '.', timeoutMs: 60_000, evidence: {} },
  requires: ['gpu'],
  registries: { mode: 'auto', mirrors: {} },
};

describe('the GPU check in a deploy recipe', () => {
  it('ends every recipe of a GPU task, once, right before the target runs', () => {
    const [recipe] = deployRecipes(repoInfo(), GOAL);
    expect(recipe!.steps).toHaveLength(2);
    expect(recipe!.steps[1]!.command).toContain('### buildbench: the target experiment');
    expect(isGpuCheckStep(recipe!.steps[0]!)).toBe(true);
    expect(recipe!.steps[0]!.command).toContain("python3 - 1 check '/proc/driver/nvidia/version'");
    expect(recipe!.steps[0]!.command).toContain(
      "if [ -f '.buildbench/deploy-env.sh' ]; then . ./.buildbench/deploy-env.sh; fi",
    );
    expect(withGpuCheck(recipe!, GOAL).steps).toHaveLength(2);
  });

  it('is not there when the task requires no GPU', () => {
    const [recipe] = deployRecipes(repoInfo(), { ...GOAL, requires: ['kvm'] });
    expect(recipe!.steps.some(isGpuCheckStep)).toBe(false);
  });

  it('keeps a repair’s step before it, replacing an earlier attempt of the same repair', () => {
    const [recipe] = deployRecipes(repoInfo(), GOAL);
    const step = (tag: string) => ({
      purpose: 'dependencies' as const,
      command: `# buildbench: install torch\npip install torch+${tag}`,
    });
    const once = withStepBeforeGpuCheck(recipe!, step('cu118'));
    const twice = withStepBeforeGpuCheck(once, step('cu121'));
    expect(twice.steps).toHaveLength(3);
    expect(twice.steps[0]!.command).toContain('pip install torch+cu121');
    expect(isGpuCheckStep(twice.steps[1]!)).toBe(true);
    expect(twice.steps[2]!.command).toContain('### buildbench: the target experiment');
    expect(gpuCheckStep().purpose).toBe('build');
  });
});
