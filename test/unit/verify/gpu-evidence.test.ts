/**
 * The layer-2 `gpu:` expectation asks for evidence that the target USED the GPU, not only that one exists:
 * checks run for real in the host sandbox with a fake nvidia-smi on PATH that reports (or does not report)
 * the target's process among its compute apps; and the evidence parser on recorded samples.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createHostSandbox } from '../../../src/sandbox/host.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { gpuUseEvidence } from '../../../src/verify/gpu.js';
import { runSpec } from '../../../src/verify/layer2.js';
import { parseSpec } from '../../../src/verify/spec.js';
import { createFakeGpu, type FakeGpu, type FakeGpuOptions } from '../../fakes/fake-gpu.js';
import { sandboxTestSettings } from '../../helpers/sandbox.js';

const H200 = { name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' };

describe('GPU evidence from a check run in the host sandbox with a fake nvidia-smi', () => {
  let sandbox: Sandbox;
  const temps: string[] = [];
  const savedPath = process.env.PATH;

  beforeAll(async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'bb-gpu-evidence-repo-'));
    writeFileSync(path.join(repo, 'README'), 'x\n');
    const workRoot = mkdtempSync(path.join(tmpdir(), 'bb-gpu-evidence-work-'));
    temps.push(repo, workRoot);
    sandbox = await createHostSandbox(sandboxTestSettings('host', { allowHost: true, workRoot }), {
      repoDir: repo,
      name: 'gpu-evidence',
    });
  });

  afterAll(async () => {
    process.env.PATH = savedPath;
    await sandbox.dispose();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one check on a machine simulated by `machine`; the target is `gpu-train` (a copy of sleep). */
  async function check(machine: FakeGpuOptions, expectYaml: string, command = 'gpu-train 1.6') {
    const fake: FakeGpu = createFakeGpu(machine);
    temps.push(fake.dir);
    copyFileSync('/bin/sleep', path.join(fake.bin, 'gpu-train'));
    process.env.PATH = `${fake.bin}:${savedPath ?? '/usr/bin:/bin'}`;
    try {
      const spec = parseSpec(
        ['checks:', '  - name: trains', `    command: ${command}`, `    expect: ${expectYaml}`].join('\n'),
        'spec.yml',
      );
      return (await runSpec(spec, sandbox)).checks[0]!;
    } finally {
      process.env.PATH = savedPath;
    }
  }

  it('passes when the target’s own process is among the compute apps while it runs', async () => {
    const outcome = await check({ devices: [H200], computeAppNamed: 'gpu-train' }, '{ gpu: true }');
    expect(outcome.passed).toBe(true);
    const used = outcome.results.find((r) => r.what === 'gpu.used')!;
    expect(used.passed).toBe(true);
    expect(used.detail).toMatch(
      /^the target's process \d+ \(gpu-train\) was a compute process on the GPU \(512 MiB\) in [1-9]\d* of [1-9]\d* samples?$/,
    );
    expect(outcome.detail).toContain('nvidia-smi lists GPU 0: NVIDIA H200');
  });

  it('fails when a GPU exists but the target never shows up on it', async () => {
    const outcome = await check(
      { devices: [H200], computeApps: ['99999, /usr/bin/python3, 20480 MiB'] },
      '{ gpu: true }',
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.results.find((r) => r.what === 'gpu')?.passed).toBe(true);
    expect(outcome.detail).toMatch(
      /^no evidence that the target used the GPU: none of its processes was a compute process in [1-9]\d* nvidia-smi samples?, and no gpu\.pattern names the line where it reports the device$/,
    );
  });

  it('accepts the framework’s report of the device (the pattern) when the driver shows no process', async () => {
    const outcome = await check(
      { devices: [H200] },
      "{ gpu: { pattern: 'device: cuda:\\d' } }",
      '\'echo "training on device: cuda:0"; sleep 0.3\'',
    );
    expect(outcome.passed).toBe(true);
    expect(outcome.results.find((r) => r.what === 'gpu.used')?.detail).toBe(
      'the output reports the device: training on device: cuda:0',
    );
  });

  it('says nvidia-smi lists no device when the driver is not there, without a second failure', async () => {
    const outcome = await check(
      { smiFailure: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." },
      '{ gpu: true }',
      'sleep 0.1',
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.results.map((r) => r.what)).toEqual(['exit_code', 'gpu']);
    expect(outcome.detail).toMatch(/^nvidia-smi lists no device \(exit 9: NVIDIA-SMI has failed/);
  });
});

describe('gpuUseEvidence on recorded samples', () => {
  const before = '77, /usr/bin/Xorg, 40 MiB\nmem 0, 1000\n';

  it('matches a new compute process by name when the pid namespaces differ', () => {
    const samples = [
      '# sample 1',
      '4321, /opt/venv/bin/python3, 2048 MiB',
      'mem 0, 3100',
      'proc 12 timeout',
      'proc 13 python3',
    ].join('\n');
    expect(gpuUseEvidence(samples, before)).toEqual({
      samples: 1,
      kind: 'name',
      shown:
        "a compute process named /opt/venv/bin/python3 (2048 MiB; pid 4321 as the driver reports it) appeared while the target ran a process of that name (matched by name: the sandbox's pid namespace hides the driver's pids)",
    });
  });

  it('falls back to device memory, said to be weaker, only when no compute process is visible at all', () => {
    const samples = [
      '# sample 1',
      'mem 0, 1010',
      'proc 13 python3',
      '# sample 2',
      'mem 0, 5000',
      'proc 13 python3',
    ].join('\n');
    expect(gpuUseEvidence(samples, before)).toMatchObject({ samples: 2, kind: 'memory' });
    expect(gpuUseEvidence(samples, before).shown).toContain('weaker evidence');
    // A compute process that is not the target's: no memory fallback.
    expect(gpuUseEvidence(`${samples}\n88, other, 10 MiB`, before)).toEqual({ samples: 2 });
  });

  it('does not count a process that was there before the target started', () => {
    const samples = ['# sample 1', '77, /usr/bin/Xorg, 40 MiB', 'proc 13 Xorg'].join('\n');
    expect(gpuUseEvidence(samples, before)).toEqual({ samples: 1 });
  });
});
