/**
 * A GPU task's rootfs sandbox for real, on a simulated NVIDIA machine (no GPU here): a fake /dev tree with
 * nvidia0/nvidiactl/nvidia-uvm, a fake libcuda.so.1 that `ldconfig -p` "lists", and a fake nvidia-smi are
 * bound in the way real ones would be; inside, the GPU check finds the device and loads libcuda, and the
 * layer-2 `gpu:` expectation sees the target's own process among the compute apps (the fake nvidia-smi
 * reports the processes of a given name by the pid the sandbox sees). Needs what the rootfs backend needs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { createRootfsSandbox, ensureRootfsLayers, type RootfsSandbox } from '../../src/sandbox/rootfs.js';
import { gpuCheckScript, parseGpuCheck } from '../../src/verify/gpu.js';
import { runSpec } from '../../src/verify/layer2.js';
import { parseSpec } from '../../src/verify/spec.js';
import { createFakeGpu, type FakeGpu } from '../fakes/fake-gpu.js';
import {
  hostMountsUnder,
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  rootfsUnavailableReason,
  sandboxTestSettings,
} from '../helpers/sandbox.js';

const unavailable = await rootfsUnavailableReason();
if (unavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
  throw new Error(`BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${unavailable}`);
}
if (unavailable) console.warn(`skipping the GPU rootfs tests: ${unavailable}`);
const describeRootfs = unavailable ? describe.skip : describe;

const settings = sandboxTestSettings('rootfs');

describeRootfs('a GPU task’s rootfs sandbox on a simulated NVIDIA machine', () => {
  let repo: string;
  let fake: FakeGpu;
  let sandbox: RootfsSandbox;

  beforeAll(async () => {
    repo = await makeFixtureRepo();
    fake = createFakeGpu({
      devices: [{ name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' }],
      computeAppNamed: 'gpu-train',
    });
    const dev = join(fake.dir, 'dev');
    mkdirSync(dev);
    for (const node of ['nvidia0', 'nvidiactl', 'nvidia-uvm']) writeFileSync(join(dev, node), '');
    copyFileSync('/bin/sleep', join(repo, 'gpu-train'));
    await ensureRootfsLayers({ ...settings, onProgress: (m) => console.log(m) });
    sandbox = await createRootfsSandbox(
      settings,
      { repoDir: repo, name: 'gpu-int', devices: { gpu: true } },
      {
        gpuProbe: {
          devDir: dev,
          ldconfig: () =>
            Promise.resolve(`\tlibcuda.so.1 (libc6,x86-64) => ${join(fake.dir, 'lib', 'libcuda.so.1')}\n`),
          nvidiaSmi: () => Promise.resolve(join(fake.bin, 'nvidia-smi')),
          env: { CUDA_VISIBLE_DEVICES: '0' },
        },
      },
    );
  }, LAYER_CREATION_TIMEOUT_MS);

  afterAll(async () => {
    await sandbox?.dispose();
    fake?.cleanup();
    if (repo) await rm(repo, { recursive: true, force: true });
    expect(hostMountsUnder(settings.workRoot)).toEqual([]);
  });

  it('records what was bound', () => {
    expect(sandbox.isolation.devices).toEqual([
      {
        device: 'gpu',
        passed: true,
        how: 'bound /dev/nvidia0, /dev/nvidia-uvm, /dev/nvidiactl with device access and 1 driver library and nvidia-smi read-only under /usr/local/nvidia',
        paths: [
          '/dev/nvidia0',
          '/dev/nvidia-uvm',
          '/dev/nvidiactl',
          '/usr/local/nvidia/lib64/libcuda.so.1',
          '/usr/local/nvidia/bin/nvidia-smi',
        ],
      },
    ]);
  });

  it('shows the device nodes, the driver library and nvidia-smi inside, read-only, and leaves no stand-ins', async () => {
    const r = await sandbox.exec(
      [
        'ls /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm',
        'echo "LD=$LD_LIBRARY_PATH CVD=$CUDA_VISIBLE_DEVICES"',
        'nvidia-smi -L',
        'touch /usr/local/nvidia/lib64/libcuda.so.1 2>&1 | sed "s/^.*: //"',
      ].join('\n'),
      { timeoutMs: 60_000 },
    );
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('LD=/usr/local/nvidia/lib64 CVD=0');
    expect(r.output).toContain('GPU 0: NVIDIA H200 (UUID: GPU-00000000-fake)');
    expect(r.output).toMatch(/Read-only file system/);
    // The mount points were on a tmpfs: nothing of the driver in the overlay's upper dir.
    expect(existsSync(join(sandbox.buildDir, 'upper', 'usr', 'local', 'nvidia', 'lib64'))).toBe(false);
  });

  it('passes the GPU check: device listed, libcuda.so.1 loads', async () => {
    const r = await sandbox.exec(gpuCheckScript({ required: true, mode: 'check' }), { timeoutMs: 120_000 });
    expect(r.output).toContain('[buildbench gpu] device 0: NVIDIA H200, 143771 MiB, compute capability 9.0');
    expect(r.exitCode).toBe(0);
    expect(parseGpuCheck(r.output)).toMatchObject({ driver: '550.54.15', problems: [] });
  });

  it('sees the target’s own process on the GPU while it runs', async () => {
    const spec = parseSpec(
      ['checks:', '  - name: trains', '    command: ./gpu-train 1.6', '    expect: { gpu: true }'].join('\n'),
      'spec.yml',
    );
    const [check] = (await runSpec(spec, sandbox)).checks;
    expect(check?.passed).toBe(true);
    expect(check?.results.find((r) => r.what === 'gpu.used')?.detail).toMatch(
      /^the target's process \d+ \(gpu-train\) was a compute process on the GPU \(512 MiB\)/,
    );
  });
});
