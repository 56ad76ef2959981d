/**
 * What a sandbox isolates, in one record that result.json and the RUNBOOK carry, and the resource limits
 * (cgroup v2, or the v1 controllers where a machine mounts those) the rootfs backend enforces.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { DevicePassing } from './kvm.js';

export const NETWORK_MODES = ['isolated', 'host', 'none'] as const;
/**
 * `isolated`: a network namespace of its own with user-mode networking (package mirrors reachable, this
 * machine's loopback services not); `host`: this machine's network; `none`: loopback only.
 */
export type NetworkMode = (typeof NETWORK_MODES)[number];

export interface ResourceLimits {
  /** Memory limit in bytes for everything the sandbox runs; undefined: none. */
  memoryBytes?: number;
  /** Most processes and threads at once; undefined: none. */
  pids?: number;
}

/** What one sandbox achieved: recorded in result.json (`sandbox.isolation`), stated in the RUNBOOK. */
export interface IsolationReport {
  /**
   * `container`: at least Docker's default container isolation (own mount, pid, ipc, uts namespaces; host file
   * system not in the mount namespace; capabilities cut; seccomp); `container+userns`: the same with root
   * mapped to an unprivileged host uid; `none`: commands run on this machine as this user.
   */
  level: 'container' | 'container+userns' | 'none';
  /** What set it up, e.g. `bubblewrap 0.8.0` or `docker`. */
  tool: string;
  /** Root inside is an unprivileged uid on this machine. */
  userNamespace: boolean;
  /** Capabilities the commands keep (names without CAP_), or undefined where the engine decides. */
  capabilities?: string[];
  noNewPrivs: boolean;
  /** The seccomp filter, e.g. `buildbench deny list (57 calls)` or `docker default`, or undefined when none. */
  seccomp?: string;
  network: { mode: NetworkMode; via?: string };
  limits: ResourceLimits & { enforced: boolean; how?: string };
  /** Devices the run asked for (`requires:`) and whether each reached the sandbox (kvm.ts). */
  devices?: { kvm?: DevicePassing };
  /** What fell short of the request, and why (in words). */
  notes: string[];
}

export const DEFAULT_PIDS_LIMIT = 16384;

/** Three quarters of this machine's memory: a runaway build cannot take the machine down with it. */
export function defaultMemoryLimit(total = totalmem()): number {
  return Math.floor((total * 3) / 4);
}

// ---------------------------------------------------------------------------------------------------------
// cgroups

const CGROUP_ROOT = '/sys/fs/cgroup';

/** One sandbox's cgroups: the `cgroup.procs` files a command joins, and the folders to remove at dispose. */
export interface SandboxCgroups {
  procs: string[];
  dirs: string[];
  how: string;
}

async function writeIfPresent(file: string, value: string): Promise<void> {
  if (existsSync(file)) await writeFile(file, value);
}

/**
 * Creates the cgroups of one sandbox with its limits, under `buildbench/<id>` of cgroup v2 (when the unified
 * hierarchy is mounted at /sys/fs/cgroup with the memory and pids controllers) or of the v1 memory and pids
 * hierarchies. Returns undefined with the reason when neither can be used, so the caller reports the limits
 * as not enforced instead of failing the build.
 */
export async function createSandboxCgroups(
  id: string,
  limits: ResourceLimits,
  root = CGROUP_ROOT,
): Promise<{ cgroups?: SandboxCgroups; reason?: string }> {
  if (limits.memoryBytes === undefined && limits.pids === undefined) return { reason: 'no limits asked for' };
  try {
    const controllers = await readFile(join(root, 'cgroup.controllers'), 'utf8').catch(() => undefined);
    if (controllers !== undefined) {
      const have = controllers.trim().split(/\s+/);
      const need = ['memory', 'pids'].filter((c) => have.includes(c));
      if (need.length < 2)
        return {
          reason: `cgroup v2 lacks the ${['memory', 'pids'].filter((c) => !need.includes(c)).join(' and ')} controller`,
        };
      const parent = join(root, 'buildbench');
      await writeFile(join(root, 'cgroup.subtree_control'), '+memory +pids').catch(() => undefined);
      await mkdir(parent, { recursive: true });
      await writeFile(join(parent, 'cgroup.subtree_control'), '+memory +pids');
      const dir = join(parent, id);
      await mkdir(dir, { recursive: true });
      if (limits.memoryBytes !== undefined) {
        await writeFile(join(dir, 'memory.max'), String(limits.memoryBytes));
        await writeIfPresent(join(dir, 'memory.swap.max'), '0');
      }
      if (limits.pids !== undefined) await writeFile(join(dir, 'pids.max'), String(limits.pids));
      return { cgroups: { procs: [join(dir, 'cgroup.procs')], dirs: [dir], how: 'cgroup v2' } };
    }
    const memory = join(root, 'memory');
    const pids = join(root, 'pids');
    if (!existsSync(join(memory, 'cgroup.procs')) || !existsSync(join(pids, 'cgroup.procs'))) {
      return {
        reason: 'no cgroup v2 hierarchy with memory and pids, nor the v1 memory and pids controllers',
      };
    }
    const memDir = join(memory, 'buildbench', id);
    const pidsDir = join(pids, 'buildbench', id);
    await mkdir(memDir, { recursive: true });
    await mkdir(pidsDir, { recursive: true });
    if (limits.memoryBytes !== undefined) {
      await writeFile(join(memDir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    }
    if (limits.pids !== undefined) await writeFile(join(pidsDir, 'pids.max'), String(limits.pids));
    return {
      cgroups: {
        procs: [join(memDir, 'cgroup.procs'), join(pidsDir, 'cgroup.procs')],
        dirs: [memDir, pidsDir],
        how: 'cgroup v1 (memory, pids)',
      },
    };
  } catch (error) {
    return { reason: `could not create the sandbox's cgroups: ${(error as Error).message}` };
  }
}

/**
 * Removes the cgroups of sandboxes that are gone: empty ones under `buildbench/` made longer ago than
 * `olderThanMs` (a killed buildbench leaves its sandbox's behind). A live sandbox whose cgroup this removes
 * between two commands makes it again before the next one (`createSandboxCgroups` is idempotent).
 */
export async function sweepStaleCgroups(olderThanMs = 10 * 60_000, root = CGROUP_ROOT): Promise<number> {
  const parents = existsSync(join(root, 'cgroup.controllers'))
    ? [join(root, 'buildbench')]
    : [join(root, 'memory', 'buildbench'), join(root, 'pids', 'buildbench')];
  let removed = 0;
  for (const parent of parents) {
    for (const entry of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const dir = join(parent, entry.name);
      const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => 'unknown');
      const info = await stat(dir).catch(() => undefined);
      if (procs.trim() !== '' || !info || Date.now() - info.mtimeMs < olderThanMs) continue;
      if (
        await rmdir(dir).then(
          () => true,
          () => false,
        )
      )
        removed++;
    }
  }
  return removed;
}

/** Removes the cgroups once their processes are gone (they leave a moment after the namespace ends). */
export async function removeSandboxCgroups(cgroups: SandboxCgroups | undefined): Promise<void> {
  for (const dir of cgroups?.dirs ?? []) {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY' || attempt === 49) break;
        await sleep(100);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// docker and host

/** `docker run` flags for the settings' network and limits, and Docker's defaults tightened where cheap. */
export function dockerIsolationArgs(settings: {
  network?: NetworkMode;
  memoryBytes?: number;
  pids?: number;
}): string[] {
  const args = ['--security-opt', 'no-new-privileges', '--cap-drop', 'MKNOD'];
  if (settings.network === 'host') args.push('--network', 'host', '--cap-drop', 'NET_RAW');
  if (settings.network === 'none') args.push('--network', 'none');
  if (settings.memoryBytes !== undefined) args.push('--memory', String(settings.memoryBytes));
  if (settings.pids !== undefined) args.push('--pids-limit', String(settings.pids));
  return args;
}

/** What a docker container with `dockerIsolationArgs` isolates. */
export function dockerIsolation(settings: {
  network?: NetworkMode;
  memoryBytes?: number;
  pids?: number;
}): IsolationReport {
  const network = settings.network ?? 'isolated';
  return {
    level: 'container',
    tool: 'docker (the engine’s default seccomp profile and capabilities, less MKNOD)',
    userNamespace: false,
    noNewPrivs: true,
    seccomp: 'docker default',
    network: {
      mode: network,
      ...(network === 'isolated'
        ? { via: 'the default bridge (this machine’s loopback not reachable)' }
        : {}),
    },
    limits: {
      ...(settings.memoryBytes !== undefined ? { memoryBytes: settings.memoryBytes } : {}),
      ...(settings.pids !== undefined ? { pids: settings.pids } : {}),
      enforced: settings.memoryBytes !== undefined || settings.pids !== undefined,
      how: 'docker --memory / --pids-limit',
    },
    notes: ['root inside is root of this machine unless the engine runs with userns-remap or rootless'],
  };
}

/** The host backend isolates nothing: it says so. */
export const HOST_ISOLATION: IsolationReport = {
  level: 'none',
  tool: 'none (commands run on this machine, in a copy of the repository)',
  userNamespace: false,
  noNewPrivs: false,
  network: { mode: 'host' },
  limits: { enforced: false },
  notes: [
    'the host sandbox is for throwaway machines (CI runners, bare VMs): a build can change this machine',
  ],
};
