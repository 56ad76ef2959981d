/**
 * Passing a GPU into sandboxes, on a fake /dev tree and fake `ldconfig -p` output (real devices are not here):
 * which nodes and libraries a rootfs sandbox binds and how, docker's flags with and without a CDI spec, the
 * host's kept variables, and the clear "no GPU here" record.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  dockerGpuArgs,
  driverLibraries,
  findCdiSpec,
  gpuBwrapArgs,
  hostGpuRecord,
  nvidiaDeviceNodes,
  rootfsGpuEnv,
  rootfsGpuPassThrough,
  type GpuHostProbe,
} from '../../../src/sandbox/gpu.js';
import { bwrapArguments } from '../../../src/sandbox/rootfs.js';

/** `ldconfig -p` of a machine with driver 550 (trimmed), 64- and 32-bit entries as it prints them. */
const LDCONFIG = `1234 libs found in cache \`/etc/ld.so.cache'
\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1
\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1
\tlibnvidia-ml.so.1 (libc6) => /lib/i386-linux-gnu/libnvidia-ml.so.1
\tlibnvidia-ptxjitcompiler.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1
\tlibnvidia-nvvm.so.4 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-nvvm.so.4
\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.12
\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6) => /lib/i386-linux-gnu/libcuda.so.1
\tlibcuda.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so
`;

const temps: string[] = [];
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

function fakeDev(names: string[], dirs: string[] = []): string {
  const dev = mkdtempSync(path.join(tmpdir(), 'bb-fake-dev-'));
  temps.push(dev);
  for (const name of names) writeFileSync(path.join(dev, name), '');
  for (const dir of dirs) mkdirSync(path.join(dev, dir));
  return dev;
}

function probe(devDir: string, over: Partial<GpuHostProbe> = {}): GpuHostProbe {
  return {
    devDir,
    ldconfig: () => Promise.resolve(LDCONFIG),
    nvidiaSmi: () => Promise.resolve('/usr/bin/nvidia-smi'),
    env: {},
    ...over,
  };
}

describe('the host’s GPU, found', () => {
  it('lists the driver’s device nodes in order, and its folders', () => {
    const dev = fakeDev(
      [
        'nvidia10',
        'nvidia1',
        'nvidia0',
        'nvidiactl',
        'nvidia-uvm',
        'nvidia-uvm-tools',
        'nvidia-modeset',
        'null',
        'nvidiafoo',
      ],
      ['nvidia-caps', 'dri'],
    );
    expect(nvidiaDeviceNodes(dev)).toEqual({
      nodes: [
        'nvidia0',
        'nvidia1',
        'nvidia10',
        'nvidia-modeset',
        'nvidia-uvm',
        'nvidia-uvm-tools',
        'nvidiactl',
      ],
      dirs: ['nvidia-caps', 'dri'],
    });
    expect(nvidiaDeviceNodes(path.join(dev, 'missing'))).toEqual({ nodes: [], dirs: [] });
  });

  it('takes the driver’s 64-bit libraries from ldconfig, each name once, and nothing of the toolkit', () => {
    expect(driverLibraries(LDCONFIG, 'x64')).toEqual([
      { name: 'libnvidia-ml.so.1', path: '/lib/x86_64-linux-gnu/libnvidia-ml.so.1' },
      { name: 'libnvidia-ptxjitcompiler.so.1', path: '/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1' },
      { name: 'libnvidia-nvvm.so.4', path: '/lib/x86_64-linux-gnu/libnvidia-nvvm.so.4' },
      { name: 'libcuda.so.1', path: '/lib/x86_64-linux-gnu/libcuda.so.1' },
      { name: 'libcuda.so', path: '/lib/x86_64-linux-gnu/libcuda.so' },
    ]);
  });
});

describe('rootfs: what is bound', () => {
  it('binds the nodes with device access, the libraries and nvidia-smi read-only on a tmpfs, and records it', async () => {
    const dev = fakeDev(['nvidia0', 'nvidiactl', 'nvidia-uvm', 'nvidia-uvm-tools'], ['dri']);
    const pass = await rootfsGpuPassThrough(
      probe(dev, { env: { CUDA_VISIBLE_DEVICES: '1', HOME: '/root' } }),
    );
    expect(pass.present).toBe(true);
    const args = gpuBwrapArgs(pass.binds);
    expect(args.slice(0, 6)).toEqual([
      '--dev-bind',
      path.join(dev, 'nvidia0'),
      '/dev/nvidia0',
      '--dev-bind',
      path.join(dev, 'nvidia-uvm'),
      '/dev/nvidia-uvm',
    ]);
    expect(args).toContain(path.join(dev, 'dri'));
    const tmpfs = args.indexOf('--tmpfs');
    expect(args[tmpfs + 1]).toBe('/usr/local/nvidia');
    expect(args.slice(tmpfs + 2, tmpfs + 5)).toEqual([
      '--ro-bind',
      '/lib/x86_64-linux-gnu/libnvidia-ml.so.1',
      '/usr/local/nvidia/lib64/libnvidia-ml.so.1',
    ]);
    expect(args.slice(-3)).toEqual(['--ro-bind', '/usr/bin/nvidia-smi', '/usr/local/nvidia/bin/nvidia-smi']);
    // every read-only bind comes after the tmpfs it lands on
    expect(args.lastIndexOf('--dev-bind')).toBeLessThan(tmpfs);
    expect(pass.record).toMatchObject({ device: 'gpu', passed: true });
    expect(pass.record.how).toBe(
      'bound /dev/nvidia0, /dev/nvidia-uvm, /dev/nvidia-uvm-tools, /dev/nvidiactl, /dev/dri with device access and 5 driver libraries and nvidia-smi read-only under /usr/local/nvidia',
    );
    expect(rootfsGpuEnv(pass, '/usr/bin:/bin')).toEqual({
      CUDA_VISIBLE_DEVICES: '1',
      LD_LIBRARY_PATH: '/usr/local/nvidia/lib64',
      PATH: '/usr/bin:/bin:/usr/local/nvidia/bin',
    });
  });

  it('says what is missing: no libcuda, no nvidia-smi, no nvidia-uvm', async () => {
    const dev = fakeDev(['nvidia0', 'nvidiactl']);
    const pass = await rootfsGpuPassThrough(
      probe(dev, { ldconfig: () => Promise.resolve(''), nvidiaSmi: () => Promise.resolve(undefined) }),
    );
    expect(pass.present).toBe(true);
    expect(gpuBwrapArgs(pass.binds)).not.toContain('--tmpfs');
    expect(pass.record.how).toContain(
      'missing here: libcuda.so (ldconfig -p lists none); nvidia-smi (not on PATH); /dev/nvidia-uvm',
    );
  });

  it('passes nothing and says so clearly when this machine has no GPU', async () => {
    const dev = fakeDev(['null', 'nvidiactl']);
    const pass = await rootfsGpuPassThrough(probe(dev));
    expect(pass).toMatchObject({ present: false, binds: [] });
    expect(pass.record).toEqual({
      device: 'gpu',
      passed: false,
      how: `the task requires a GPU and this machine has none (no ${dev}/nvidia0): nothing passed; GPU checks will fail`,
    });
    expect(rootfsGpuEnv(pass, '/usr/bin')).toEqual({});
  });

  it('puts the device arguments into bubblewrap’s command after /dev and the mounts', () => {
    const args = bwrapArguments({
      buildDir: '/w/b',
      workspace: '/w/b/workspace',
      cwd: '/workspace',
      envAssignments: ['PATH=/usr/bin'],
      network: 'host',
      mounts: [],
      deviceArgs: ['--dev-bind', '/dev/nvidia0', '/dev/nvidia0'],
      seccomp: false,
    });
    const at = args.indexOf('--dev-bind');
    expect(at).toBeGreaterThan(args.indexOf('/dev'));
    expect(at).toBeGreaterThan(args.indexOf('/workspace'));
    expect(args.slice(at, at + 3)).toEqual(['--dev-bind', '/dev/nvidia0', '/dev/nvidia0']);
  });
});

describe('docker and host', () => {
  it('uses CDI when the toolkit wrote a spec, else --gpus all, and keeps the device selection', () => {
    expect(
      dockerGpuArgs({ present: true, cdiSpec: '/etc/cdi/nvidia.yaml', env: { CUDA_VISIBLE_DEVICES: '0,1' } }),
    ).toEqual({
      args: ['--device', 'nvidia.com/gpu=all', '-e', 'CUDA_VISIBLE_DEVICES=0,1'],
      record: {
        device: 'gpu',
        passed: true,
        how: 'docker --device nvidia.com/gpu=all (CDI, /etc/cdi/nvidia.yaml)',
      },
    });
    expect(dockerGpuArgs({ present: true, env: {} })).toEqual({
      args: ['--gpus', 'all'],
      record: {
        device: 'gpu',
        passed: true,
        how: 'docker --gpus all (needs the NVIDIA Container Toolkit on this machine)',
      },
    });
    const none = dockerGpuArgs({ present: false, env: {}, devDir: '/dev' });
    expect(none.args).toEqual([]);
    expect(none.record.passed).toBe(false);
  });

  it('finds a CDI spec among the candidates', () => {
    const dev = fakeDev(['nvidia.yaml']);
    expect(findCdiSpec(['/nonexistent/nvidia.yaml', path.join(dev, 'nvidia.yaml')])).toBe(
      path.join(dev, 'nvidia.yaml'),
    );
    expect(findCdiSpec(['/nonexistent/nvidia.yaml'])).toBeUndefined();
  });

  it('host: keeps the selection variables this machine sets, and says when there is no GPU', () => {
    const dev = fakeDev(['nvidia0']);
    expect(
      hostGpuRecord(dev, { NVIDIA_VISIBLE_DEVICES: 'GPU-1', CUDA_DEVICE_ORDER: 'PCI_BUS_ID', SECRET: 'x' }),
    ).toEqual({
      env: { NVIDIA_VISIBLE_DEVICES: 'GPU-1', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
      record: {
        device: 'gpu',
        passed: true,
        how: 'the commands run on this machine, which has the GPU; kept NVIDIA_VISIBLE_DEVICES=GPU-1, CUDA_DEVICE_ORDER=PCI_BUS_ID',
      },
    });
    expect(hostGpuRecord(fakeDev([]), {}).record.passed).toBe(false);
  });
});
