/**
 * The GPU check step as the turn's script and build.sh render it (each step in its own subshell), run by
 * bash on a simulated NVIDIA machine: a CPU-only torch fails the step with the check's error line, a CUDA
 * build passes it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { deployRecipes } from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import { createFakeGpu, type FakeGpu, type FakeTorch } from '../../fakes/fake-gpu.js';
import { repoInfo } from '../../fakes/repo-info.js';

const GOAL: DeployGoal = {
  target: { command: 'python3 train.py', cwd: '.', timeoutMs: 60_000, evidence: {} },
  requires: ['gpu'],
  registries: { mode: 'auto', mirrors: {} },
};

const fakes: FakeGpu[] = [];
afterEach(() => {
  while (fakes.length > 0) fakes.pop()!.cleanup();
});

function runTurn(torch: FakeTorch): { code: number; output: string } {
  const fake = createFakeGpu({
    devices: [{ name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' }],
    torch,
  });
  fakes.push(fake);
  const cwd = mkdtempSync(path.join(tmpdir(), 'bb-gpu-turn-'));
  try {
    // The setup and the GPU check only: the target itself (the recipe's last step) is not here.
    const recipe = deployRecipes(repoInfo(), GOAL)[0]!;
    const setup = {
      ...recipe,
      steps: recipe.steps.filter((s) => !s.command.includes('the target experiment')),
    };
    const script = renderScript(setup, emptyFixes());
    const r = spawnSync('bash', ['-c', script], {
      cwd,
      env: { ...fake.env, HOME: cwd },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('the GPU check step in a rendered turn', () => {
  it('fails the turn on a CPU-only torch, with the line the signature catches', () => {
    const { code, output } = runTurn({ version: '2.3.1+cpu', cuda: null, available: false });
    expect(code).not.toBe(0);
    expect(output).toContain('[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build');
  });

  it('passes with a CUDA build that sees the GPU', () => {
    const { code, output } = runTurn({
      version: '2.3.1+cu121',
      cuda: '12.1',
      available: true,
      arch: ['sm_90'],
    });
    expect(output).toContain(
      '[buildbench gpu] torch 2.3.1+cu121 built for CUDA 12.1; torch.cuda.is_available() is True',
    );
    expect(code).toBe(0);
  });
});
