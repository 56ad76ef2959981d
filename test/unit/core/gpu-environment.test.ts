/**
 * The run records a GPU task's environment after the loop (core/stages/environment.ts): the GPU check in
 * report mode, run in the sandbox (here a host sandbox on a simulated NVIDIA machine), lands in the state
 * that result.json is made from; a run that requires no GPU does not run it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { recordEnvironment } from '../../../src/core/stages/environment.js';
import type { Opened, RunState } from '../../../src/core/stages/state.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { createHostSandbox } from '../../../src/sandbox/host.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { createFakeGpu, type FakeGpu } from '../../fakes/fake-gpu.js';
import { sandboxTestSettings } from '../../helpers/sandbox.js';

const GOAL: DeployGoal = {
  target: { command: 'python3 train.py', cwd: '.', timeoutMs: 60_000, evidence: {} },
  requires: ['gpu'],
  registries: { mode: 'auto', mirrors: {} },
};

describe('recording a GPU task’s environment', () => {
  let sandbox: Sandbox;
  let fake: FakeGpu;
  const temps: string[] = [];
  const saved = { PATH: process.env.PATH };

  beforeAll(async () => {
    fake = createFakeGpu({
      devices: [{ name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' }],
      torch: { version: '2.3.1+cu121', cuda: '12.1', available: true, arch: ['sm_90'] },
    });
    const repo = mkdtempSync(path.join(tmpdir(), 'bb-gpu-env-repo-'));
    writeFileSync(path.join(repo, 'train.py'), 'print(1)\n');
    const workRoot = mkdtempSync(path.join(tmpdir(), 'bb-gpu-env-work-'));
    temps.push(repo, workRoot, fake.dir);
    sandbox = await createHostSandbox(sandboxTestSettings('host', { allowHost: true, workRoot }), {
      repoDir: repo,
      name: 'gpu-env',
    });
    // The host sandbox takes PATH from this process; the deploy environment file brings the rest, as a
    // setup's activation lines would.
    process.env.PATH = fake.env.PATH;
    await sandbox.exec(
      [
        'mkdir -p .buildbench',
        `printf 'export PYTHONPATH=%s\\nexport LD_LIBRARY_PATH=%s\\nexport FAKE_TORCH=%q\\n' ${JSON.stringify(fake.env.PYTHONPATH)} ${JSON.stringify(fake.env.LD_LIBRARY_PATH)} ${JSON.stringify(fake.env.FAKE_TORCH)} > .buildbench/deploy-env.sh`,
      ].join('\n'),
      { timeoutMs: 10_000 },
    );
  });

  afterAll(async () => {
    process.env.PATH = saved.PATH;
    await sandbox.dispose();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  function state(deploy?: DeployGoal): RunState & { phases: string[] } {
    const phases: string[] = [];
    return {
      settings: { ...(deploy ? { deploy } : {}) },
      options: {},
      events: { emit: (e: { message: string }) => phases.push(e.message) },
      phases,
    } as unknown as RunState & { phases: string[] };
  }

  it('reads the device, driver and framework after the setup, for result.json', async () => {
    const s = state(GOAL);
    await recordEnvironment(s, { box: sandbox } as Opened);
    expect(s.gpu).toMatchObject({
      devices: [{ name: 'NVIDIA H200', computeCapability: '9.0' }],
      driver: '550.54.15',
      driverCuda: '12.4',
      nvcc: '12.1',
      frameworks: [{ name: 'torch', version: '2.3.1+cu121', cuda: '12.1', available: true }],
      problems: [],
    });
    expect(s.phases).toEqual(['GPU: 1 device(s), driver 550.54.15']);
  });

  it('does nothing for a run that requires no GPU', async () => {
    const s = state({ ...GOAL, requires: [] });
    await recordEnvironment(s, { box: sandbox } as Opened);
    expect(s.gpu).toBeUndefined();
    const build = state();
    await recordEnvironment(build, { box: sandbox } as Opened);
    expect(build.gpu).toBeUndefined();
  });
});
