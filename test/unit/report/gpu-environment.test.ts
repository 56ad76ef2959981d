/**
 * A GPU task's environment in the RUNBOOK: the device, driver, CUDA, toolkit and framework recorded in
 * result.json (`environment.gpu`), what the sandbox was given (`sandbox.isolation.devices`), and the problems.
 */
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';

import { loadReportInput, renderRunbook, type ReportInput } from '../../../src/report/runbook.js';

const GOLDEN = path.resolve('test/fixtures/golden');

describe('the RUNBOOK of a GPU task', () => {
  it('states the GPU environment and what was passed into the sandbox', async () => {
    const input = await loadReportInput(path.join(GOLDEN, 'success'));
    const isolation = input.result.sandbox.isolation ?? {
      level: 'container' as const,
      tool: 'bubblewrap 0.8.0',
      userNamespace: false,
      noNewPrivs: true,
      network: { mode: 'isolated' as const },
      limits: { enforced: false },
      notes: [],
    };
    const gpu: ReportInput = {
      ...input,
      result: {
        ...input.result,
        sandbox: {
          ...input.result.sandbox,
          isolation: {
            ...isolation,
            devices: [
              {
                device: 'gpu',
                passed: true,
                how: 'bound /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm with device access and 5 driver libraries and nvidia-smi read-only under /usr/local/nvidia',
              },
            ],
          },
        },
        environment: {
          gpu: {
            devices: [{ name: 'NVIDIA H200', memory: '143771 MiB', computeCapability: '9.0' }],
            driver: '550.54.15',
            driverCuda: '12.4',
            kernelModule:
              'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Fri Feb  9 19:57:28 UTC 2024',
            nvcc: '12.1',
            frameworks: [{ name: 'torch', version: '2.3.1+cpu', available: false }],
            problems: [
              'torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
            ],
            notes: [],
          },
        },
      },
    };
    const text = renderRunbook(gpu);
    expect(text).toContain(
      '- Device GPU: passed — bound /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm with device access and 5 driver libraries and nvidia-smi read-only under /usr/local/nvidia.',
    );
    expect(text).toContain(
      '- GPU: NVIDIA H200 (143771 MiB, compute capability 9.0); driver 550.54.15 (CUDA up to 12.4); nvcc 12.1; torch 2.3.1+cpu (CPU-only, does not see a GPU).',
    );
    expect(text).toContain(
      '  - Kernel module: `NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Fri Feb  9 19:57:28 UTC 2024`.',
    );
    expect(text).toContain('  - Problem: torch 2.3.1+cpu is a CPU-only build');
    expect(renderRunbook(input)).not.toContain('- GPU:');
  });
});
