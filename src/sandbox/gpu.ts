/**
 * Passing this machine's NVIDIA GPU into a sandbox when a task requires one (`CreateSandboxRequest.devices.gpu`),
 * and saying what was passed in the isolation record.
 *
 * - `rootfs`: the driver's device nodes (/dev/nvidia0…, /dev/nvidiactl, /dev/nvidia-uvm*, /dev/nvidia-modeset,
 *   /dev/nvidia-caps/, /dev/dri/) are bound with device access, and the driver's user-space libraries
 *   (`libcuda.so*`, `libnvidia-*.so*`, as `ldconfig -p` lists them here) and `nvidia-smi` read-only under
 *   /usr/local/nvidia/{lib64,bin} — the folders NVIDIA's CUDA images put on LD_LIBRARY_PATH and PATH. The
 *   driver's libraries must match its kernel module, so they come from the host, never from a package.
 * - `docker`: `--device nvidia.com/gpu=all` when a CDI specification of the NVIDIA Container Toolkit exists
 *   (/etc/cdi, /var/run/cdi), else `--gpus all` (the toolkit's runtime hook).
 * - `host`: the GPU is there already; only the variables that choose devices (CUDA_VISIBLE_DEVICES, …), when
 *   this machine sets them, are kept through the cleared environment.
 *
 * With no GPU on this machine nothing is passed, and the record and the progress line say so up front.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

import { runProcess } from '../base/process.js';
import { findExecutable } from './common.js';
import type { PassedDevice } from './isolation.js';

/** Where the driver's libraries and nvidia-smi appear inside a rootfs sandbox. */
export const NVIDIA_ROOT = '/usr/local/nvidia';
export const NVIDIA_LIB_DIR = `${NVIDIA_ROOT}/lib64`;
export const NVIDIA_BIN_DIR = `${NVIDIA_ROOT}/bin`;

/** Variables that choose which GPUs a process sees: kept when this machine sets them (never secrets). */
export const GPU_SELECTION_VARS = [
  'CUDA_VISIBLE_DEVICES',
  'NVIDIA_VISIBLE_DEVICES',
  'CUDA_DEVICE_ORDER',
] as const;

/** CDI specifications the NVIDIA Container Toolkit writes (`nvidia-ctk cdi generate`). */
export const CDI_SPECS = [
  '/etc/cdi/nvidia.yaml',
  '/etc/cdi/nvidia.json',
  '/var/run/cdi/nvidia.yaml',
  '/var/run/cdi/nvidia.json',
];

/** A bind into the sandbox: a device node (with device access) or a read-only file. */
export interface GpuBind {
  host: string;
  target: string;
  kind: 'device' | 'file';
}

export interface GpuPassThrough {
  /** At least one /dev/nvidia<N> exists. */
  present: boolean;
  binds: GpuBind[];
  /** Variables to add inside (LD_LIBRARY_PATH, PATH additions are made by the backend, the selection vars). */
  env: Record<string, string>;
  record: PassedDevice;
}

/** Where the host's facts come from; injectable so tests can use a fake /dev tree and ldconfig output. */
export interface GpuHostProbe {
  /** The folder holding the device nodes (default /dev). */
  devDir: string;
  /** `ldconfig -p` output. */
  ldconfig(): Promise<string>;
  /** Path of nvidia-smi on this machine, if any. */
  nvidiaSmi(): Promise<string | undefined>;
  /** This machine's environment (for the selection variables). */
  env: NodeJS.ProcessEnv;
}

export const defaultGpuHostProbe: GpuHostProbe = {
  devDir: '/dev',
  ldconfig: async () => {
    const ldconfig =
      (await findExecutable('ldconfig')) ?? (existsSync('/sbin/ldconfig') ? '/sbin/ldconfig' : undefined);
    if (!ldconfig) return '';
    const result = await runProcess(ldconfig, ['-p'], { timeoutMs: 30_000 }).catch(() => undefined);
    return result?.exitCode === 0 ? result.output : '';
  },
  nvidiaSmi: () => findExecutable('nvidia-smi'),
  env: process.env,
};

/** Device nodes of the NVIDIA driver (and /dev/dri) that exist under `devDir`, folders last. */
export function nvidiaDeviceNodes(devDir: string): { nodes: string[]; dirs: string[] } {
  let names: string[];
  try {
    names = readdirSync(devDir);
  } catch {
    return { nodes: [], dirs: [] };
  }
  const wanted = /^nvidia(?:\d+|ctl|-uvm|-uvm-tools|-modeset)$/;
  const nodes = names.filter((n) => wanted.test(n)).sort(byDeviceName);
  const dirs = ['nvidia-caps', 'dri'].filter((n) => {
    const info = statSync(path.join(devDir, n), { throwIfNoEntry: false });
    return info?.isDirectory() === true;
  });
  return { nodes, dirs };
}

function byDeviceName(a: string, b: string): number {
  const na = /^nvidia(\d+)$/.exec(a)?.[1];
  const nb = /^nvidia(\d+)$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) return Number(na) - Number(nb);
  if (na !== undefined || nb !== undefined) return na !== undefined ? -1 : 1; // the GPUs first
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The ldconfig architecture tag of this process's libraries (`x86-64`, `AArch64`). */
function ldconfigArch(arch = process.arch): RegExp {
  if (arch === 'x64') return /x86-64/;
  if (arch === 'arm64') return /AArch64/;
  return /./;
}

/**
 * The driver's user-space libraries from `ldconfig -p` output: `libcuda.so*` and `libnvidia-*.so*` of this
 * architecture (not the 32-bit ones), each name once, as `{ name, path }`.
 */
export function driverLibraries(
  ldconfigOutput: string,
  arch = process.arch,
): { name: string; path: string }[] {
  const archTag = ldconfigArch(arch);
  const seen = new Set<string>();
  const out: { name: string; path: string }[] = [];
  for (const line of ldconfigOutput.split('\n')) {
    const m = /^\s*((?:libcuda|libnvidia-[\w.-]+?)\.so(?:\.[\w.]+)?) \(([^)]*)\) => (\/\S+)$/.exec(line);
    if (!m || (!m[1]!.startsWith('libcuda') && !m[1]!.startsWith('libnvidia-'))) continue;
    if (!archTag.test(m[2]!) || seen.has(m[1]!)) continue;
    seen.add(m[1]!);
    out.push({ name: m[1]!, path: m[3]! });
  }
  return out;
}

/** The selection variables this machine sets. */
export function gpuSelectionEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of GPU_SELECTION_VARS) {
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** Says clearly, up front, that a task requires a GPU this machine does not have. */
function absent(devDir: string): GpuPassThrough {
  return {
    present: false,
    binds: [],
    env: {},
    record: {
      device: 'gpu',
      passed: false,
      how: `the task requires a GPU and this machine has none (no ${path.join(devDir, 'nvidia0')}): nothing passed; GPU checks will fail`,
    },
  };
}

/** What a rootfs sandbox binds for the GPU, from this machine's devices, ldconfig and nvidia-smi. */
export async function rootfsGpuPassThrough(
  probe: GpuHostProbe = defaultGpuHostProbe,
): Promise<GpuPassThrough> {
  const { nodes, dirs } = nvidiaDeviceNodes(probe.devDir);
  if (!nodes.some((n) => /^nvidia\d+$/.test(n))) return absent(probe.devDir);
  const binds: GpuBind[] = [...nodes, ...dirs].map((n) => ({
    host: path.join(probe.devDir, n),
    target: `/dev/${n}`,
    kind: 'device',
  }));
  const libraries = driverLibraries(await probe.ldconfig());
  for (const lib of libraries)
    binds.push({ host: lib.path, target: `${NVIDIA_LIB_DIR}/${lib.name}`, kind: 'file' });
  const smi = await probe.nvidiaSmi();
  if (smi) binds.push({ host: smi, target: `${NVIDIA_BIN_DIR}/nvidia-smi`, kind: 'file' });
  const missing = [
    ...(libraries.some((l) => l.name.startsWith('libcuda.so'))
      ? []
      : ['libcuda.so (ldconfig -p lists none)']),
    ...(smi ? [] : ['nvidia-smi (not on PATH)']),
    ...(nodes.includes('nvidia-uvm')
      ? []
      : ['/dev/nvidia-uvm (CUDA needs it: modprobe nvidia-uvm, or run nvidia-smi once as root)']),
  ];
  const devices = binds.filter((b) => b.kind === 'device').map((b) => b.target);
  return {
    present: true,
    binds,
    env: gpuSelectionEnv(probe.env),
    record: {
      device: 'gpu',
      passed: true,
      how: `bound ${devices.join(', ')} with device access and ${libraries.length} driver librar${libraries.length === 1 ? 'y' : 'ies'}${smi ? ' and nvidia-smi' : ''} read-only under /usr/local/nvidia${missing.length > 0 ? `; missing here: ${missing.join('; ')}` : ''}`,
      paths: binds.map((b) => b.target),
    },
  };
}

/** bubblewrap arguments for the binds (after `--dev /dev`, so the device nodes land in the sandbox's /dev). */
export function gpuBwrapArgs(binds: readonly GpuBind[]): string[] {
  const devices = binds.filter((b) => b.kind === 'device').flatMap((b) => ['--dev-bind', b.host, b.target]);
  const files = binds.filter((b) => b.kind === 'file').flatMap((b) => ['--ro-bind', b.host, b.target]);
  // The files' mount points go on a tmpfs, never into the overlay (no empty stand-ins left in the upper dir).
  return [...devices, ...(files.length > 0 ? ['--tmpfs', NVIDIA_ROOT] : []), ...files];
}

/** The environment additions inside a rootfs sandbox with the GPU bound: the library folder and nvidia-smi. */
export function rootfsGpuEnv(pass: GpuPassThrough, basePath: string): Record<string, string> {
  if (!pass.present) return {};
  return { ...pass.env, LD_LIBRARY_PATH: NVIDIA_LIB_DIR, PATH: `${basePath}:${NVIDIA_BIN_DIR}` };
}

/** `docker run` arguments that pass the GPU, and the record; `cdi` says whether a CDI spec exists here. */
export function dockerGpuArgs(options: {
  present: boolean;
  cdiSpec?: string;
  env: NodeJS.ProcessEnv;
  devDir?: string;
}): { args: string[]; record: PassedDevice } {
  if (!options.present) return { args: [], record: absent(options.devDir ?? '/dev').record };
  const selection = Object.entries(gpuSelectionEnv(options.env)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  if (options.cdiSpec) {
    return {
      args: ['--device', 'nvidia.com/gpu=all', ...selection],
      record: {
        device: 'gpu',
        passed: true,
        how: `docker --device nvidia.com/gpu=all (CDI, ${options.cdiSpec})`,
      },
    };
  }
  return {
    args: ['--gpus', 'all', ...selection],
    record: {
      device: 'gpu',
      passed: true,
      how: 'docker --gpus all (needs the NVIDIA Container Toolkit on this machine)',
    },
  };
}

/**
 * The host sandbox runs on this machine: its GPU is there as it is (a self-hosted GPU runner). Only the
 * device-selection variables this machine sets are kept through the cleared environment.
 */
export function hostGpuRecord(
  devDir = '/dev',
  env: NodeJS.ProcessEnv = process.env,
): { env: Record<string, string>; record: PassedDevice } {
  if (!hostHasGpu(devDir)) return { env: {}, record: absent(devDir).record };
  const kept = gpuSelectionEnv(env);
  const names = Object.entries(kept).map(([k, v]) => `${k}=${v}`);
  return {
    env: kept,
    record: {
      device: 'gpu',
      passed: true,
      how: `the commands run on this machine, which has the GPU${names.length > 0 ? `; kept ${names.join(', ')}` : ''}`,
    },
  };
}

/** The CDI specification of the NVIDIA Container Toolkit on this machine, if one exists. */
export function findCdiSpec(candidates: readonly string[] = CDI_SPECS): string | undefined {
  return candidates.find((file) => existsSync(file));
}

/** True when this machine has an NVIDIA GPU device node. */
export function hostHasGpu(devDir = '/dev'): boolean {
  return nvidiaDeviceNodes(devDir).nodes.some((n) => /^nvidia\d+$/.test(n));
}
