/**
 * The GPU check run for real (bash and python3 on this machine) against a simulated NVIDIA machine
 * (test/fakes/fake-gpu.ts): a fake nvidia-smi, /proc/driver/nvidia/version, libcuda.so.1 and torch package.
 * No GPU is needed; what a real one prints was copied into the fakes.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  describeGpuEnvironment,
  gpuCheckScript,
  parseGpuCheck,
  type GpuCheckOptions,
} from '../../../src/verify/gpu.js';
import { createFakeGpu, type FakeGpu, type FakeGpuOptions } from '../../fakes/fake-gpu.js';

const H200 = { name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' };
const CUDA_TORCH = {
  version: '2.3.1+cu121',
  cuda: '12.1',
  available: true,
  arch: ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90'],
  device: 'NVIDIA H200',
  cudnn: 8902,
};

const fakes: FakeGpu[] = [];
afterEach(() => {
  while (fakes.length > 0) fakes.pop()!.cleanup();
});

function runCheck(
  machine: FakeGpuOptions,
  options: Partial<GpuCheckOptions> = {},
): { code: number; output: string } {
  const fake = createFakeGpu(machine);
  fakes.push(fake);
  const cwd = mkdtempSync(path.join(tmpdir(), 'bb-gpu-check-'));
  try {
    const script = gpuCheckScript({
      required: true,
      mode: 'check',
      procVersion: fake.procVersion,
      ...options,
    });
    const r = spawnSync('bash', ['-c', script], {
      cwd,
      env: { ...fake.env, HOME: cwd, LANG: 'C.UTF-8' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('the GPU check on a simulated machine', () => {
  it('records the device, driver, kernel module and framework of a working setup, and passes', () => {
    const { code, output } = runCheck({ devices: [H200], driverCuda: '12.4', torch: CUDA_TORCH });
    expect(code).toBe(0);
    expect(output).toContain('[buildbench gpu] device 0: NVIDIA H200, 143771 MiB, compute capability 9.0');
    expect(output).toContain('[buildbench gpu] driver 550.54.15 (supports CUDA up to 12.4)');
    expect(output).not.toContain('error:');
    const env = parseGpuCheck(output)!;
    expect(env).toMatchObject({
      devices: [{ name: 'NVIDIA H200', memory: '143771 MiB', computeCapability: '9.0' }],
      driver: '550.54.15',
      driverCuda: '12.4',
      frameworks: [{ name: 'torch', version: '2.3.1+cu121', cuda: '12.1', available: true, cudnn: 8902 }],
      problems: [],
    });
    expect(env.kernelModule).toMatch(/^NVRM version: NVIDIA UNIX x86_64 Kernel Module {2}550\.54\.15/);
    expect(describeGpuEnvironment(env)).toBe(
      'NVIDIA H200 (143771 MiB, compute capability 9.0); driver 550.54.15 (CUDA up to 12.4); nvcc 12.1; torch 2.3.1+cu121 (CUDA 12.1, sees the GPU)',
    );
  });

  it('fails on a CPU-only torch wheel on a machine with a GPU', () => {
    const { code, output } = runCheck({
      devices: [H200],
      torch: { version: '2.3.1+cpu', cuda: null, available: false },
    });
    expect(code).toBe(1);
    expect(output).toContain(
      '[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
    );
  });

  it('fails when the driver is older than the CUDA major version torch was built for, with torch’s own error', () => {
    const { code, output } = runCheck({
      devices: [{ name: 'Tesla T4', memoryMiB: 15360, computeCapability: '7.5' }],
      driver: '470.82.01',
      driverCuda: '11.4',
      torch: {
        ...CUDA_TORCH,
        available: false,
        initError:
          'The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx',
      },
    });
    expect(code).toBe(1);
    expect(output).toContain(
      '[buildbench gpu] error: the NVIDIA driver 470.82.01 supports CUDA up to 11.4, older than CUDA 12.1 that torch 2.3.1+cu121 was built for',
    );
    expect(output).toContain('The NVIDIA driver on your system is too old (found version 11040)');
  });

  it('only warns when a newer minor CUDA relies on minor version compatibility', () => {
    const { code, output } = runCheck({ devices: [H200], driverCuda: '12.0', torch: CUDA_TORCH });
    expect(code).toBe(0);
    expect(output).toContain(
      'warning: torch 2.3.1+cu121 was built for CUDA 12.1 and the driver supports CUDA up to 12.0',
    );
  });

  it('fails when torch has no kernels for the compute capability', () => {
    const { code, output } = runCheck({
      devices: [H200],
      torch: {
        ...CUDA_TORCH,
        version: '1.7.1+cu110',
        cuda: '11.0',
        arch: ['sm_37', 'sm_50', 'sm_60', 'sm_70', 'sm_80'],
      },
    });
    expect(code).toBe(1);
    expect(output).toContain(
      '[buildbench gpu] error: torch 1.7.1+cu110 has no kernels for NVIDIA H200 (compute capability 9.0, sm_90): it was built for sm_37 sm_50 sm_60 sm_70 sm_80',
    );
  });

  it('accepts PTX for an older capability and a cubin of the same major version', () => {
    const ptx = runCheck({ devices: [H200], torch: { ...CUDA_TORCH, arch: ['sm_80', 'compute_80'] } });
    expect(ptx.code).toBe(0);
    const a100 = { name: 'NVIDIA A10', memoryMiB: 23028, computeCapability: '8.6' };
    expect(runCheck({ devices: [a100], torch: { ...CUDA_TORCH, arch: ['sm_80'] } }).code).toBe(0);
  });

  it('prints the loader error of a missing libcudnn when torch does not import', () => {
    const { code, output } = runCheck({
      devices: [H200],
      torch: {
        ...CUDA_TORCH,
        importError: 'libcudnn.so.8: cannot open shared object file: No such file or directory',
      },
    });
    expect(code).toBe(1);
    expect(output).toContain(
      '[buildbench gpu] error: torch does not import: ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory',
    );
  });

  it('fails when libcuda.so.1 does not load although a device is listed', () => {
    const { code, output } = runCheck({ devices: [H200], libcuda: false });
    expect(code).toBe(1);
    expect(output).toMatch(
      /error: the CUDA driver library does not load: libcuda\.so\.1: cannot open shared object file/,
    );
  });

  it('says clearly that a required GPU is not visible, and only notes it when not required', () => {
    const none = runCheck({
      smiFailure:
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    });
    expect(none.code).toBe(1);
    expect(none.output).toContain(
      "[buildbench gpu] error: the task requires a GPU and no GPU is visible in the sandbox (nvidia-smi failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    );
    const optional = runCheck({ noSmi: true }, { required: false });
    expect(optional.code).toBe(0);
    expect(optional.output).toContain(
      'no GPU is visible in the sandbox (nvidia-smi is not installed or not passed into the sandbox',
    );
    expect(parseGpuCheck(optional.output)).toMatchObject({ devices: [], problems: [] });
  });

  it('reads an old driver without the compute_cap field, and report mode never fails', () => {
    const { code, output } = runCheck(
      {
        devices: [{ name: 'Tesla K80', memoryMiB: 11441 }],
        torch: { version: '2.3.1+cpu', cuda: null, available: false },
      },
      { mode: 'report' },
    );
    expect(code).toBe(0);
    const env = parseGpuCheck(output)!;
    expect(env.devices).toEqual([{ name: 'Tesla K80', memory: '11441 MiB' }]);
    expect(env.problems).toHaveLength(1);
  });

  it('sources the deploy environment first', () => {
    const { output } = runCheck({ devices: [H200] }, { envFile: 'missing-env.sh' });
    expect(output).toContain('[buildbench gpu] json');
  });
});

describe('parseGpuCheck', () => {
  it('is undefined without a record and tolerates a broken one', () => {
    expect(parseGpuCheck('nothing here\n')).toBeUndefined();
    expect(parseGpuCheck('[buildbench gpu] json {broken\n')).toBeUndefined();
  });
});
