/**
 * The `rootfs` backend: a Debian rootfs made once with debootstrap (cached), a cached toolchain layer stacked
 * on it, and a fresh overlayfs upper dir per sandbox. Every command enters with
 * `unshare --mount --pid --fork --kill-child` and mounts the overlay inside that private mount namespace, so
 * nothing stays mounted on this machine after a command ends, however it ends (see research/sandbox.md).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { CancelledError, ConfigError, SandboxError, errorMessage } from '../base/errors.js';
import {
  checkMountablePath,
  copyRepository,
  dieWithParent,
  findExecutable,
  makeSandboxId,
  passThroughOptions,
  removeTree,
  resolveSandboxCwd,
  runScriptLines,
  sandboxEnvAssignments,
} from './common.js';
import { QueuedSandbox } from './queued.js';
import { writeOwnerRecord } from './work-dirs.js';
import {
  prepareBuildCache,
  releaseBuildCache,
  requestCacheKey,
  sandboxBaseEnv,
  setUpBuildCache,
  BUILD_CACHE_SETUP_SCRIPT,
  buildCacheSetupFor,
  ccacheFromSetupOutput,
  type BuildCacheMount,
  type BuildCacheSetup,
} from './build-cache.js';
import {
  createSandboxCgroups,
  removeSandboxCgroups,
  sweepStaleCgroups,
  type IsolationReport,
  type NetworkMode,
  type SandboxCgroups,
} from './isolation.js';
import { runProcess } from '../base/process.js';
import { buildSeccompFilter, DENIED_SYSCALLS, seccompArch } from './seccomp.js';
import {
  gpuBwrapArgs,
  rootfsGpuEnv,
  rootfsGpuPassThrough,
  type GpuHostProbe,
  type GpuPassThrough,
} from './gpu.js';
import type { CreateSandboxRequest, ExecOptions, ExecResult, Sandbox, SandboxSettings } from './types.js';
import { readIfExists } from '../base/safe-fs.js';
import { KVM_DEVICE, kvmDevice, kvmNote, kvmPassing, probeKvm } from './kvm.js';
import { trustInstallScripts } from './trust.js';

/** Packages of the cached toolchain layer. Changing the list makes a new layer (the folder name has its hash). */
export const TOOLCHAIN_PACKAGES = [
  'build-essential',
  'cmake',
  'autoconf',
  'automake',
  'libtool',
  'autoconf-archive',
  'meson',
  'ninja-build',
  'pkg-config',
  'git',
  'ca-certificates',
  'file',
  'python3',
  'apt-file',
  'ccache',
] as const;

/** The script that installs the toolchain (the rootfs layer's, and the docker backend's toolchain image's). */
export const TOOLCHAIN_SCRIPT = [
  'set -e',
  'apt-get update',
  `apt-get install -y --no-install-recommends ${TOOLCHAIN_PACKAGES.join(' ')}`,
  'apt-file update',
  // Keep /var/lib/apt/lists (apt-get install and apt-file search work offline); drop downloaded .debs.
  'apt-get clean',
  // apt's binary caches of those lists, made once here: each sandbox's first apt command would spend half a
  // second making them again (apt-get clean removed them).
  'apt-cache gencaches',
  'rm -rf /tmp/* /var/tmp/* /root/.cache',
].join('\n');

const LAYER_FORMAT = 1;
const BASE_TIMEOUT_MS = 45 * 60_000;
const TOOLCHAIN_TIMEOUT_MS = 45 * 60_000;
const HEARTBEAT_MS = 30_000;
/** Folder inside the rootfs where each command's script is placed (a tmpfs, per command). */
const SCRIPT_DIR = '/run/buildbench';

export interface RootfsPaths {
  /** `<cacheDir>/rootfs/debian-<suite>` */
  suiteDir: string;
  /** `<suiteDir>/base`, holding `root/` (the rootfs) and `READY`. */
  baseDir: string;
  baseRoot: string;
  /** `<suiteDir>/toolchain-<hash>`, holding `root/` (an overlay upper used as a read-only layer) and `READY`. */
  toolchainDir: string;
  toolchainRoot: string;
  /** Lock folder guarding creation of the layers. */
  lockDir: string;
}

export function rootfsPaths(cacheDir: string, suite: string): RootfsPaths {
  if (!/^[a-z][a-z0-9-]*$/.test(suite)) {
    throw new ConfigError(
      `invalid Debian suite ${JSON.stringify(suite)}`,
      'use a Debian codename such as bookworm or trixie',
    );
  }
  const suiteDir = join(cacheDir, 'rootfs', `debian-${suite}`);
  const hash = createHash('sha256')
    .update(JSON.stringify({ LAYER_FORMAT, TOOLCHAIN_SCRIPT }))
    .digest('hex')
    .slice(0, 10);
  const baseDir = join(suiteDir, 'base');
  const toolchainDir = join(suiteDir, `toolchain-${hash}`);
  return {
    suiteDir,
    baseDir,
    baseRoot: join(baseDir, 'root'),
    toolchainDir,
    toolchainRoot: join(toolchainDir, 'root'),
    lockDir: join(suiteDir, '.lock'),
  };
}

export interface LayerOptions {
  cacheDir: string;
  suite: string;
  mirror: string;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}

export interface RootfsLayers {
  suite: string;
  baseRoot: string;
  toolchainRoot?: string;
  /** overlayfs `lowerdir` order: the top layer first. */
  lowerdirs: string[];
}

function isReady(layerDir: string): boolean {
  return existsSync(join(layerDir, 'READY'));
}

function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new CancelledError(`${what} was cancelled`);
}

// ---------------------------------------------------------------------------------------------------------
// Lock: an atomic mkdir holding the owner's pid and host name; a lock whose owner is gone is stale.

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(lockDir: string): Promise<LockOwner | undefined> {
  const text = await readIfExists(() => readFile(join(lockDir, 'owner.json'), 'utf8'));
  try {
    return text === undefined ? undefined : (JSON.parse(text) as LockOwner);
  } catch {
    return undefined; // half written: the lock's age decides
  }
}

async function lockIsStale(lockDir: string, owner: LockOwner | undefined): Promise<boolean> {
  if (owner) {
    if (owner.host === hostname()) return !pidAlive(owner.pid);
    // Another machine sharing the cache: trust it for 3 hours.
    return Date.now() - Date.parse(owner.since) > 3 * 3600_000;
  }
  // Created but the owner file not written yet (or the writer died in between).
  try {
    return Date.now() - (await stat(lockDir)).mtimeMs > 30_000;
  } catch {
    return false;
  }
}

/** Holds `lockDir` while `fn` runs; waits (visibly) while another live process holds it. */
export async function withCreationLock<T>(
  lockDir: string,
  what: string,
  options: { onProgress?: (message: string) => void; signal?: AbortSignal },
  fn: () => Promise<T>,
): Promise<T> {
  let told = false;
  for (;;) {
    throwIfAborted(options.signal, `waiting for the lock on ${what}`);
    try {
      await mkdir(lockDir);
      const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
      await writeFile(join(lockDir, 'owner.json'), JSON.stringify(me));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new SandboxError(
          `cannot create the lock ${lockDir}: ${(error as Error).message}`,
          'check that the cache folder (BUILDBENCH_CACHE_DIR) is writable',
        );
      }
    }
    const owner = await readOwner(lockDir);
    if (await lockIsStale(lockDir, owner)) {
      // Move it aside first (atomic), then check we moved the lock we judged, not a fresh one.
      const aside = `${lockDir}.stale-${randomBytes(4).toString('hex')}`;
      try {
        await rename(lockDir, aside);
        const moved = await readOwner(aside);
        const same = owner ? moved?.pid === owner.pid && moved.host === owner.host : moved === undefined;
        if (same) await rm(aside, { recursive: true, force: true });
        else await rename(aside, lockDir).catch(() => undefined);
      } catch {
        // someone else cleaned it up first
      }
      continue;
    }
    if (!told) {
      told = true;
      options.onProgress?.(
        `waiting for ${owner ? `process ${owner.pid} on ${owner.host}` : 'another process'} to finish creating ${what} (lock ${lockDir})…`,
      );
    }
    try {
      await sleep(1000, undefined, options.signal ? { signal: options.signal } : {});
    } catch {
      throw new CancelledError(`waiting for the lock on ${what} was cancelled`);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Removes half-made layers left by a process that died while creating them. Call only under the lock. */
async function removeStaleTemps(suiteDir: string): Promise<void> {
  for (const name of await readdir(suiteDir).catch(() => [] as string[])) {
    if (/^\.(base|toolchain|cache|trust).*\.tmp-/.test(name) || /^\.lock\.stale-/.test(name)) {
      await removeTree(join(suiteDir, name));
    }
  }
}

async function withHeartbeat<T>(
  onProgress: ((message: string) => void) | undefined,
  what: string,
  logPath: string,
  fn: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const timer = onProgress
    ? setInterval(() => {
        onProgress(`still ${what} (${Math.round((Date.now() - started) / 1000)} s so far; log: ${logPath})`);
      }, HEARTBEAT_MS)
    : undefined;
  try {
    return await fn();
  } finally {
    if (timer) clearInterval(timer);
  }
}

function securityMirror(mirror: string): string {
  const trimmed = mirror.replace(/\/+$/, '');
  return /\/debian$/.test(trimmed) ? `${trimmed}-security` : 'http://deb.debian.org/debian-security';
}

/** The sources.list written into the base: the suite, its updates and its security archive. */
export function sourcesList(suite: string, mirror: string): string {
  const m = mirror.replace(/\/+$/, '');
  if (['sid', 'unstable', 'experimental'].includes(suite)) return `deb ${m} ${suite} main\n`;
  return [
    `deb ${m} ${suite} main`,
    `deb ${m} ${suite}-updates main`,
    `deb ${securityMirror(m)} ${suite}-security main`,
    '',
  ].join('\n');
}

function lastLines(text: string, n = 15): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Layers

/** Makes the Debian base rootfs in the cache once (debootstrap --variant=minbase); returns its root. */
export async function ensureBaseRootfs(options: LayerOptions): Promise<string> {
  const paths = rootfsPaths(options.cacheDir, options.suite);
  if (isReady(paths.baseDir)) return paths.baseRoot;
  await mkdir(paths.suiteDir, { recursive: true });
  return withCreationLock(paths.lockDir, `the Debian ${options.suite} base rootfs`, options, async () => {
    if (isReady(paths.baseDir)) return paths.baseRoot;
    await createBase(paths, options);
    return paths.baseRoot;
  });
}

async function createBase(paths: RootfsPaths, options: LayerOptions): Promise<void> {
  const { suite, mirror, onProgress, signal } = options;
  const debootstrap = await findExecutable('debootstrap');
  if (!debootstrap) {
    throw new SandboxError(
      `the Debian ${suite} base rootfs is not cached in ${paths.baseDir} and debootstrap is not installed`,
      'install it (apt-get install debootstrap) or use another sandbox (--sandbox docker)',
    );
  }
  await removeStaleTemps(paths.suiteDir);
  if (existsSync(paths.baseDir)) await removeTree(paths.baseDir); // incomplete, from an older layout
  const tmp = join(paths.suiteDir, `.base.tmp-${process.pid}-${randomBytes(3).toString('hex')}`);
  const root = join(tmp, 'root');
  await mkdir(tmp, { recursive: true });
  const logPath = join(paths.suiteDir, 'base.log');
  onProgress?.(`creating the Debian ${suite} base rootfs (first run only, ~1-2 min; log: ${logPath})…`);
  const started = Date.now();
  try {
    // In a private mount namespace: debootstrap mounts /proc inside the target and must not leak it.
    const [command, args] = await dieWithParent('unshare', [
      '--mount',
      '--propagation',
      'private',
      debootstrap,
      '--variant=minbase',
      suite,
      root,
      mirror,
    ]);
    const result = await withHeartbeat(onProgress, `creating the Debian ${suite} base rootfs`, logPath, () =>
      runProcess(command, args, {
        env: { ...process.env, LC_ALL: 'C', DEBIAN_FRONTEND: 'noninteractive' },
        timeoutMs: BASE_TIMEOUT_MS,
        logPath,
        ...(signal ? { signal } : {}),
      }),
    );
    if (result.cancelled) throw new CancelledError(`creating the Debian ${suite} base rootfs was cancelled`);
    if (result.exitCode !== 0) {
      throw new SandboxError(
        `debootstrap of Debian ${suite} from ${mirror} failed (${result.timedOut ? 'timed out' : `exit code ${result.exitCode}`}):\n${lastLines(result.output)}`,
        `see ${logPath} and ${root}/debootstrap/debootstrap.log if present; check that ${mirror} is reachable`,
      );
    }
    await writeFile(join(root, 'etc/apt/sources.list'), sourcesList(suite, mirror));
    await writeFile(join(root, 'etc/apt/apt.conf.d/80buildbench'), 'Acquire::Retries "3";\n');
    await mkdir(join(root, SCRIPT_DIR.slice(1)), { recursive: true });
    await mkdir(join(root, 'workspace'), { recursive: true });
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    await writeFile(
      join(tmp, 'READY'),
      JSON.stringify({ format: LAYER_FORMAT, suite, mirror, createdAt: new Date().toISOString(), seconds }) +
        '\n',
    );
    await rename(tmp, paths.baseDir);
    onProgress?.(`created the Debian ${suite} base rootfs in ${seconds} s (${paths.baseRoot})`);
  } catch (error) {
    await removeTree(tmp).catch(() => undefined);
    throw error;
  }
}

/** Makes the base (if needed) and the toolchain layer on top of it once; returns the layers. */
export async function ensureRootfsLayers(
  options: LayerOptions & { toolchain?: boolean },
): Promise<RootfsLayers> {
  checkMountablePath(options.cacheDir, 'the cache folder');
  const paths = rootfsPaths(options.cacheDir, options.suite);
  const baseRoot = await ensureBaseRootfs(options);
  if (options.toolchain === false) return { suite: options.suite, baseRoot, lowerdirs: [baseRoot] };
  const layers: RootfsLayers = {
    suite: options.suite,
    baseRoot,
    toolchainRoot: paths.toolchainRoot,
    lowerdirs: [paths.toolchainRoot, baseRoot],
  };
  if (isReady(paths.toolchainDir)) return layers;
  return withCreationLock(paths.lockDir, `the Debian ${options.suite} toolchain layer`, options, async () => {
    if (isReady(paths.toolchainDir)) return layers;
    await createToolchain(paths, baseRoot, options);
    return layers;
  });
}

async function createToolchain(paths: RootfsPaths, baseRoot: string, options: LayerOptions): Promise<void> {
  const made = await createLayer(paths, options, {
    dir: paths.toolchainDir,
    lowerdirs: [baseRoot],
    script: TOOLCHAIN_SCRIPT,
    what: 'the build toolchain',
    tmpPrefix: 'toolchain',
    timeoutMs: TOOLCHAIN_TIMEOUT_MS,
    record: { packages: TOOLCHAIN_PACKAGES },
    onStart: () =>
      options.onProgress?.(
        `installing the build toolchain into a cached layer on Debian ${options.suite} (first run only, ~2-3 min; log: ${join(paths.suiteDir, 'toolchain.log')})…`,
      ),
    failure: (detail) =>
      new SandboxError(
        `installing the build toolchain (${TOOLCHAIN_PACKAGES.join(' ')}) failed (${detail})`,
        `see ${join(paths.suiteDir, 'toolchain.log')}; check that the Debian mirror is reachable from this machine`,
      ),
  });
  options.onProgress?.(`created the toolchain layer in ${made.seconds} s (${paths.toolchainRoot})`);
}

interface LayerPlan {
  /** The layer's folder (`root/` and `READY` once made). */
  dir: string;
  lowerdirs: string[];
  script: string;
  /** What the layer holds, for messages ("the build toolchain"). */
  what: string;
  /** Prefix of the temporary folder (`.<prefix>.tmp-…`, removed by removeStaleTemps if left behind). */
  tmpPrefix: 'toolchain' | 'cache' | 'trust';
  timeoutMs: number;
  /** Extra fields of READY. */
  record: Record<string, unknown>;
  onStart?: () => void;
  /** The error for a script that failed; `detail` says how, with the output's last lines. */
  failure: (detail: string) => Error;
  /** Checks the script's output; returns fields for READY, or throws. */
  check?: (output: string) => Record<string, unknown>;
}

/**
 * Runs our own `plan.script` (never the repository's) over `plan.lowerdirs` in a fresh overlay with this
 * machine's network, and keeps its upper dir as a read-only layer: `<dir>/root` and `<dir>/READY`, moved into
 * place at once so no half-made layer is ever used. Call under the creation lock.
 */
async function createLayer(
  paths: RootfsPaths,
  options: LayerOptions,
  plan: LayerPlan,
): Promise<{ seconds: number; fields: Record<string, unknown> }> {
  const { suite, signal } = options;
  await removeStaleTemps(paths.suiteDir);
  if (existsSync(plan.dir)) await removeTree(plan.dir);
  const tmp = join(paths.suiteDir, `.${plan.tmpPrefix}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`);
  const logPath = join(paths.suiteDir, `${plan.tmpPrefix}.log`);
  await prepareBuildDir(tmp);
  plan.onStart?.();
  const started = Date.now();
  try {
    const run = await withHeartbeat(options.onProgress, `installing ${plan.what}`, logPath, () =>
      runInOverlay({
        lowerdirs: plan.lowerdirs,
        buildDir: tmp,
        workspace: join(tmp, 'workspace'),
        cwd: '/',
        envAssignments: sandboxEnvAssignments(undefined),
        network: 'host', // our own script, not the repository's
        mounts: [],
        cgroupProcs: [],
        script: plan.script,
        timeoutMs: plan.timeoutMs,
        logPath,
        ...(signal ? { signal } : {}),
      }),
    );
    const result = run.result;
    if (result.cancelled) throw new CancelledError(`installing ${plan.what} was cancelled`);
    if (!run.entered && !result.timedOut) {
      throw new SandboxError(
        `could not enter the rootfs layers to install ${plan.what}:\n${lastLines(result.output)}`,
        'the rootfs sandbox needs root, util-linux unshare and overlayfs; see the log above',
      );
    }
    if (result.exitCode !== 0) {
      throw plan.failure(
        `${result.timedOut ? 'timed out' : `exit code ${result.exitCode}`}:\n${lastLines(result.output)}`,
      );
    }
    const fields = plan.check?.(result.output) ?? {};
    await rename(join(tmp, 'upper'), join(tmp, 'root'));
    for (const name of ['work', 'merged', 'workspace', 'cmd']) await removeTree(join(tmp, name));
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    await writeFile(
      join(tmp, 'READY'),
      JSON.stringify({
        format: LAYER_FORMAT,
        suite,
        ...plan.record,
        ...fields,
        createdAt: new Date().toISOString(),
        seconds,
      }) + '\n',
    );
    await rename(tmp, plan.dir);
    return { seconds, fields };
  } catch (error) {
    await removeTree(tmp).catch(() => undefined);
    throw error;
  }
}

/** `<suiteDir>/cache-<hash>`: the build cache's setup over one toolchain layer (its name is in the hash). */
export function buildCacheLayerDir(paths: RootfsPaths): string {
  const hash = createHash('sha256')
    .update(
      JSON.stringify({ LAYER_FORMAT, toolchain: basename(paths.toolchainDir), BUILD_CACHE_SETUP_SCRIPT }),
    )
    .digest('hex')
    .slice(0, 10);
  return join(paths.suiteDir, `cache-${hash}`);
}

/** The build cache's layer and what its setup found (`ccache`), stacked on the toolchain layer. */
export interface BuildCacheLayer {
  root: string;
  setup: BuildCacheSetup;
}

async function readCacheLayer(dir: string): Promise<BuildCacheLayer | undefined> {
  const text = await readIfExists(() => readFile(join(dir, 'READY'), 'utf8'));
  if (text === undefined) return undefined;
  try {
    const ready = JSON.parse(text) as { ccache?: unknown };
    return { root: join(dir, 'root'), setup: buildCacheSetupFor(ready.ccache === true) };
  } catch {
    return undefined;
  }
}

/**
 * The build cache's setup (BUILD_CACHE_SETUP_SCRIPT: apt's hooks that keep and offer packages, the ccache
 * links) made once into a cached layer over the toolchain, instead of run in each sandbox: a sandbox with the
 * cache then starts as fast as one without (one command, not two). The script is ours and nothing of a build
 * is in the layer. Returns undefined when the toolchain layer is not used.
 */
export async function ensureBuildCacheLayer(
  layers: RootfsLayers,
  options: LayerOptions,
): Promise<BuildCacheLayer | undefined> {
  if (!layers.toolchainRoot) return undefined;
  const paths = rootfsPaths(options.cacheDir, options.suite);
  const dir = buildCacheLayerDir(paths);
  const ready = await readCacheLayer(dir);
  if (ready) return ready;
  return withCreationLock(
    paths.lockDir,
    `the Debian ${options.suite} build-cache layer`,
    options,
    async () => {
      const again = await readCacheLayer(dir);
      if (again) return again;
      await createLayer(paths, options, {
        dir,
        lowerdirs: layers.lowerdirs,
        script: BUILD_CACHE_SETUP_SCRIPT,
        what: 'the build cache setup',
        tmpPrefix: 'cache',
        timeoutMs: 5 * 60_000,
        record: { toolchain: basename(paths.toolchainDir) },
        failure: (detail) =>
          new SandboxError(
            `the build cache setup failed (${detail})`,
            `see ${join(paths.suiteDir, 'cache.log')}`,
          ),
        check: (output) => {
          const ccache = ccacheFromSetupOutput(output);
          if (ccache === undefined)
            throw new SandboxError(
              `the build cache setup printed no \`ccache: yes|no\`:\n${lastLines(output)}`,
            );
          return { ccache };
        },
      });
      const made = await readCacheLayer(dir);
      if (!made) throw new SandboxError(`the build cache layer ${dir} was made but cannot be read`);
      return made;
    },
  );
}

/**
 * `<suiteDir>/trust-<hash>`: this machine's extra CA certificates installed over one stack of layers (the
 * layers' folders and the certificates themselves are in the hash, so a changed certificate makes a new one).
 */
export function trustLayerDir(paths: RootfsPaths, lowerdirs: readonly string[], script: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify({ LAYER_FORMAT, lowerdirs, script }))
    .digest('hex')
    .slice(0, 10);
  return join(paths.suiteDir, `trust-${hash}`);
}

/**
 * This machine's extra CA certificates made trusted (trust.ts's install scripts, ours, with no repository
 * code) once, in a cached layer over `lowerdirs`, instead of by two commands in every sandbox. Returns the
 * layer's root, to stack on top of `lowerdirs`.
 */
export async function ensureTrustLayer(
  lowerdirs: readonly string[],
  certificates: readonly string[],
  options: LayerOptions,
): Promise<string> {
  const paths = rootfsPaths(options.cacheDir, options.suite);
  const script = trustInstallScripts(certificates).join('\n');
  const dir = trustLayerDir(paths, lowerdirs, script);
  if (isReady(dir)) return join(dir, 'root');
  return withCreationLock(paths.lockDir, `the Debian ${options.suite} CA layer`, options, async () => {
    if (!isReady(dir)) {
      await createLayer(paths, options, {
        dir,
        lowerdirs: [...lowerdirs],
        script,
        what: "this machine's CA certificates",
        tmpPrefix: 'trust',
        timeoutMs: 2 * 60_000,
        record: { certificates: certificates.length },
        failure: (detail) =>
          new SandboxError(
            `installing this machine's CA certificates into a layer failed (${detail})`,
            `see ${join(paths.suiteDir, 'trust.log')}`,
          ),
      });
    }
    return join(dir, 'root');
  });
}

// ---------------------------------------------------------------------------------------------------------
// Entering a sandbox

/**
 * Runs as PID 1 of a fresh pid + mount namespace made by `unshare` (`sh -c ENTRY_SCRIPT entry <buildDir>
 * <lowerdir> <network> <cgroup.procs files, ':'-separated> <bubblewrap arguments…>`): it mounts the overlay in
 * that private namespace (so nothing stays mounted on this machine, however the command ends), joins the
 * sandbox's cgroups, and runs bubblewrap, which pivots into the overlay with the old root detached, mounts a
 * fresh /proc and a minimal /dev, cuts capabilities, sets no_new_privs and loads the seccomp filter. With
 * `isolated` networking, bubblewrap waits (--block-fd) until slirp4netns has given its new network namespace
 * a user-mode uplink. Everything it starts lives in this pid namespace and ends with it.
 */
export const ENTRY_SCRIPT = `
set -u
exec 2>&1
fail() { echo "buildbench sandbox setup: $*"; exit 125; }
B=$1 lower=$2 NET=$3 CGROUPS=$4
shift 4
M=$B/merged C=$B/cmd
mount -t proc proc /proc || fail "cannot mount /proc for the sandbox's pid namespace"
n=0
until mount -t overlay overlay -o "lowerdir=$lower,upperdir=$B/upper,workdir=$B/work" "$M"; do
  n=$((n + 1))
  [ "$n" -lt 30 ] || fail "cannot mount the overlay (lowerdir=$lower) at $M"
  sleep 0.1
done
if [ -n "$CGROUPS" ]; then
  IFS=:
  for f in $CGROUPS; do echo 0 > "$f" || fail "cannot join the cgroup $f"; done
  unset IFS
fi
rm -f "$C/entered" "$C/info" "$C/net.ready" "$C/go"
if [ "$NET" != isolated ]; then
  exec bwrap "$@" 5<"$C/seccomp.bpf" 9>"$C/entered"
fi
mkfifo "$C/go" || fail "cannot create $C/go"
bwrap --info-fd 3 --block-fd 4 "$@" 3>"$C/info" 4<>"$C/go" 5<"$C/seccomp.bpf" 9>"$C/entered" &
bw=$!
pid= i=0
until [ -n "$pid" ]; do
  pid=$(sed -n 's/.*"child-pid": *\\([0-9][0-9]*\\).*/\\1/p' "$C/info" 2>/dev/null)
  [ -n "$pid" ] && break
  kill -0 "$bw" 2>/dev/null || { wait "$bw"; exit $?; }
  i=$((i + 1)); [ "$i" -lt 4000 ] || { kill -KILL "$bw"; fail "bubblewrap did not start"; }
  sleep 0.005
done
slirp4netns --configure --mtu=65520 --disable-host-loopback --ready-fd 7 "$pid" tap0 7>"$C/net.ready" >"$C/slirp.log" 2>&1 &
sl=$! i=0
until [ -s "$C/net.ready" ]; do
  kill -0 "$sl" 2>/dev/null || { kill -KILL "$bw"; fail "user-mode networking (slirp4netns) did not start: $(tail -n 3 "$C/slirp.log")"; }
  i=$((i + 1)); [ "$i" -lt 4000 ] || { kill -KILL "$bw"; fail "user-mode networking (slirp4netns) did not start in time"; }
  sleep 0.005
done
# Opened read-write, the FIFO never blocks: when bubblewrap is already gone (it failed, or was killed while
# the network came up), a write-only open would wait for a reader forever and the sandbox would hang.
exec 6<>"$C/go"
printf go >&6
exec 6>&-
wait "$bw"
rc=$?
kill "$sl" 2>/dev/null
exit "$rc"
`;

/**
 * Inside the sandbox, before the command: says it got in (fd 9), then closes every descriptor but stdio — the
 * setup's, and any this process inherited from its own parent (a directory descriptor would lead out).
 */
const INNER_WRAPPER = [
  'printf x >&9',
  'for f in /proc/self/fd/*; do n=${f##*/}; case $n in 0 | 1 | 2) ;; *) eval "exec $n>&-" ;; esac; done',
  'cd -- "$1" || exit 1',
  ...runScriptLines(`${SCRIPT_DIR}/cmd.sh`, `${SCRIPT_DIR}/epilogue.sh`),
].join('\n');

const UNSHARE_ARGS = ['--mount', '--pid', '--fork', '--kill-child', '--propagation', 'private'];

/**
 * Capabilities a command keeps: Docker's default set without MKNOD (no device nodes at all: Docker relies on
 * its device cgroup for that) and, on this machine's own network, without NET_RAW.
 */
export function sandboxCapabilities(network: NetworkMode): string[] {
  const caps = [
    'CHOWN',
    'DAC_OVERRIDE',
    'FSETID',
    'FOWNER',
    'SETGID',
    'SETUID',
    'SETFCAP',
    'SETPCAP',
    'NET_BIND_SERVICE',
    'SYS_CHROOT',
    'KILL',
    'AUDIT_WRITE',
  ];
  return network === 'host' ? caps : [...caps, 'NET_RAW'];
}

/** Docker's masked paths (an empty read-only folder or /dev/null over them) and read-only paths. */
const MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];
const READONLY_PROC_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** A bind mount into the sandbox (the build cache's, see `buildCacheMounts`). */
type SandboxMount = BuildCacheMount;

interface BwrapPlan {
  buildDir: string;
  workspace: string;
  cwd: string;
  envAssignments: string[];
  network: NetworkMode;
  mounts: readonly SandboxMount[];
  /** Devices passed in (`--dev-bind` of a GPU's nodes, its libraries read-only: `gpuBwrapArgs`). */
  deviceArgs?: readonly string[];
  seccomp: boolean;
  /** Device nodes of this machine bound into the sandbox's minimal /dev (`/dev/kvm` for guest tasks). */
  devices?: readonly string[];
}

/** bubblewrap's arguments (the entry script adds the descriptors: 5 seccomp, 9 entered, 3/4 for networking). */
export function bwrapArguments(plan: BwrapPlan): string[] {
  const cmd = join(plan.buildDir, 'cmd');
  const args = ['--bind', join(plan.buildDir, 'merged'), '/', '--dev', '/dev'];
  for (const device of plan.devices ?? []) args.push('--dev-bind', device, device);
  args.push('--perms', '1777', '--tmpfs', '/dev/shm');
  args.push('--proc', '/proc');
  for (const path of READONLY_PROC_PATHS) if (existsSync(path)) args.push('--ro-bind', path, path);
  args.push('--ro-bind', '/sys', '/sys');
  for (const path of MASKED_PATHS) {
    const info = statSync(path, { throwIfNoEntry: false });
    if (info) args.push('--ro-bind', info.isDirectory() ? join(cmd, 'empty') : '/dev/null', path);
  }
  args.push('--bind', plan.workspace, '/workspace');
  for (const mount of plan.mounts)
    args.push(mount.readOnly ? '--ro-bind' : '--bind', mount.host, mount.target);
  args.push(...(plan.deviceArgs ?? []));
  args.push('--ro-bind', join(cmd, 'script'), SCRIPT_DIR);
  args.push('--ro-bind', join(cmd, 'resolv.conf'), '/etc/resolv.conf');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (plan.network !== 'host') args.push('--unshare-net');
  args.push('--hostname', 'buildbench', '--die-with-parent', '--new-session');
  if (plan.seccomp) args.push('--seccomp', '5');
  args.push('--cap-drop', 'ALL');
  for (const cap of sandboxCapabilities(plan.network)) args.push('--cap-add', `CAP_${cap}`);
  args.push('--clearenv');
  for (const assignment of plan.envAssignments) {
    const eq = assignment.indexOf('=');
    args.push('--setenv', assignment.slice(0, eq), assignment.slice(eq + 1));
  }
  args.push('--chdir', '/', '/bin/bash', '-c', INNER_WRAPPER, 'bash', plan.cwd);
  return args;
}

/** Creates `<dir>/{upper,work,merged,workspace,cmd}` and the setup files that do not change per command. */
async function prepareBuildDir(dir: string): Promise<void> {
  for (const name of ['upper', 'work', 'merged', 'workspace', 'cmd/script', 'cmd/empty']) {
    await mkdir(join(dir, name), { recursive: true });
  }
  await chmod(join(dir, 'cmd', 'empty'), 0o555);
  const arch = seccompArch();
  await writeFile(join(dir, 'cmd', 'seccomp.bpf'), arch ? buildSeccompFilter(arch) : Buffer.alloc(0));
}

async function hostResolvConf(): Promise<string> {
  return readFile('/etc/resolv.conf', 'utf8').catch(() => '');
}

interface OverlayRun {
  lowerdirs: string[];
  buildDir: string;
  workspace: string;
  /** Absolute path inside the sandbox. */
  cwd: string;
  envAssignments: string[];
  script: string;
  /** ExecOptions.epilogue. */
  epilogue?: string;
  timeoutMs: number;
  network: NetworkMode;
  /** Bind mounts besides the workspace (the build cache). */
  mounts: readonly SandboxMount[];
  /** Devices passed in (bubblewrap arguments). */
  deviceArgs?: readonly string[];
  /** `cgroup.procs` files the command joins before bubblewrap starts. */
  cgroupProcs: string[];
  /** Device nodes bound into /dev. */
  devices?: readonly string[];
  signal?: AbortSignal;
  logPath?: string;
  onOutput?: (chunk: string) => void;
  /** Ends the command when it prints nothing for this long (see ExecOptions.idleTimeoutMs). */
  idleTimeoutMs?: number;
}

/** One command in a fresh namespace over the overlay; `entered` is false when setting it up failed. */
async function runInOverlay(run: OverlayRun): Promise<{ result: ExecResult; entered: boolean }> {
  const cmdDir = join(run.buildDir, 'cmd');
  const marker = join(cmdDir, 'entered');
  await rm(marker, { force: true });
  await writeFile(
    join(cmdDir, 'script', 'cmd.sh'),
    run.script.endsWith('\n') ? run.script : `${run.script}\n`,
  );
  const epilogueFile = join(cmdDir, 'script', 'epilogue.sh');
  if (run.epilogue !== undefined) await writeFile(epilogueFile, `${run.epilogue}\n`);
  else await rm(epilogueFile, { force: true });
  await writeFile(
    join(cmdDir, 'resolv.conf'),
    run.network === 'isolated' ? `nameserver ${SLIRP_DNS}\n` : await hostResolvConf(),
  );
  const seccomp = seccompArch() !== undefined;
  const unshareArgs = [
    ...UNSHARE_ARGS,
    '/bin/sh',
    '-c',
    ENTRY_SCRIPT,
    'buildbench-entry',
    run.buildDir,
    run.lowerdirs.join(':'),
    run.network,
    run.cgroupProcs.join(':'),
    ...bwrapArguments({ ...run, seccomp }),
  ];
  // If this process dies, unshare gets SIGKILL and --kill-child ends the whole namespace.
  const [command, args] = await dieWithParent('unshare', unshareArgs);
  const result = await runProcess(command, args, {
    env: {
      PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      LC_ALL: 'C',
    },
    timeoutMs: run.timeoutMs,
    mergeStderr: false, // the entry script does exec 2>&1 itself
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.logPath ? { logPath: run.logPath } : {}),
    ...(run.onOutput ? { onOutput: run.onOutput } : {}),
    ...(run.idleTimeoutMs ? { idleTimeoutMs: run.idleTimeoutMs } : {}),
  });
  const entered = (await stat(marker).catch(() => undefined))?.size ?? 0;
  return { result, entered: entered > 0 };
}

/** slirp4netns's built-in DNS forwarder inside the sandbox's network namespace. */
const SLIRP_DNS = '10.0.2.3';

// ---------------------------------------------------------------------------------------------------------
// Availability and the sandbox itself

/** Host packages the rootfs backend runs with, by the program it needs from each. */
const HOST_TOOLS = { bwrap: 'bubblewrap', slirp4netns: 'slirp4netns', debootstrap: 'debootstrap' } as const;

/**
 * Packages this machine lacks for the rootfs backend (installable with apt-get): bubblewrap always,
 * debootstrap while no base is cached, slirp4netns for isolated networking (the default).
 */
export async function rootfsMissingPackages(
  settings: Pick<SandboxSettings, 'cacheDir' | 'suite' | 'network'>,
): Promise<string[]> {
  const missing: string[] = [];
  if (!(await findExecutable('bwrap'))) missing.push(HOST_TOOLS.bwrap);
  if ((settings.network ?? 'isolated') === 'isolated' && !(await findExecutable('slirp4netns'))) {
    missing.push(HOST_TOOLS.slirp4netns);
  }
  let baseCached = false;
  try {
    baseCached = isReady(rootfsPaths(settings.cacheDir, settings.suite).baseDir);
  } catch {
    // an invalid suite is reported by rootfsProblems
  }
  if (!baseCached && !(await findExecutable('debootstrap'))) missing.push(HOST_TOOLS.debootstrap);
  return missing;
}

/**
 * What stops the rootfs backend from working here; empty when it can work. A missing slirp4netns stops it
 * only when isolated networking was asked for explicitly (by default the sandbox then uses this machine's
 * network, and says so).
 */
export async function rootfsProblems(
  settings: Pick<SandboxSettings, 'cacheDir' | 'suite' | 'network'>,
): Promise<string[]> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) {
    problems.push(
      'it needs root (it mounts an overlay and enters namespaces): run buildbench as root or with sudo',
    );
  }
  if (!(await findExecutable('unshare'))) problems.push('util-linux `unshare` must be installed');
  const filesystems = await readFile('/proc/filesystems', 'utf8').catch(() => '');
  if (!/\boverlay\b/.test(filesystems)) {
    problems.push(
      'the kernel has no overlayfs: run `modprobe overlay` (or use a kernel with CONFIG_OVERLAY_FS)',
    );
  }
  try {
    rootfsPaths(settings.cacheDir, settings.suite);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const missing = await rootfsMissingPackages(settings);
  if (missing.includes(HOST_TOOLS.bwrap)) {
    problems.push('bubblewrap (bwrap) is not installed: apt-get install bubblewrap');
  }
  if (missing.includes(HOST_TOOLS.slirp4netns) && settings.network === 'isolated') {
    problems.push(
      '--network isolated needs slirp4netns: apt-get install slirp4netns (or pass --network host)',
    );
  }
  if (missing.includes(HOST_TOOLS.debootstrap)) {
    problems.push('no cached base rootfs and debootstrap is not installed: apt-get install debootstrap');
  }
  return problems;
}

let bwrapVersion: Promise<string> | undefined;
function bubblewrapVersion(): Promise<string> {
  bwrapVersion ??= runProcess('bwrap', ['--version'], { timeoutMs: 10_000 }).then(
    (r) => r.output.trim().split('\n')[0] || 'bubblewrap',
    () => 'bubblewrap',
  );
  return bwrapVersion;
}

/** The isolation a rootfs sandbox with these settings achieves (see research/sandbox.md). */
async function rootfsIsolation(
  network: NetworkMode,
  limits: IsolationReport['limits'],
  notes: string[],
): Promise<IsolationReport> {
  const arch = seccompArch();
  return {
    level: 'container',
    tool: await bubblewrapVersion(),
    userNamespace: false,
    capabilities: sandboxCapabilities(network),
    noNewPrivs: true,
    ...(arch
      ? { seccomp: `buildbench deny list (${DENIED_SYSCALLS.length} calls, clone with namespace flags)` }
      : {}),
    network: {
      mode: network,
      ...(network === 'isolated' ? { via: 'slirp4netns (no route to this machine’s loopback)' } : {}),
    },
    limits,
    notes: [
      'root inside is root of this machine (no user namespace: the cached rootfs is owned by uid 0), with its capabilities cut to Docker’s default set less MKNOD',
      ...(arch ? [] : [`no seccomp filter: no syscall table for ${process.arch}`]),
      ...notes,
    ],
  };
}

export interface RootfsSandboxOptions {
  /** Stack the cached toolchain layer (default true); false uses the bare base. */
  toolchain?: boolean;
  /**
   * Check that the sandbox can be entered before returning it (default true): once per stack of layers in
   * this process, as a stack that ran a command once is known to work (a sandbox that cannot be entered
   * later still fails its first command with a SandboxError).
   */
  probe?: boolean;
  /** Where a GPU task's devices, driver libraries and nvidia-smi are found (tests pass a fake /dev tree). */
  gpuProbe?: GpuHostProbe;
}

export class RootfsSandbox extends QueuedSandbox implements Sandbox {
  readonly kind = 'rootfs' as const;
  readonly workdir = '/workspace';
  readonly image: string;
  /** Time its creation spent in its own commands (the first `true`, the build cache's setup). */
  setupCommandsMs = 0;

  constructor(
    readonly id: string,
    readonly buildDir: string,
    readonly layers: RootfsLayers,
    /** The build cache folder on this machine (see build-cache.ts), or undefined. */
    readonly buildCache?: string,
    readonly isolation: IsolationReport = {
      level: 'container',
      tool: 'bubblewrap',
      userNamespace: false,
      noNewPrivs: true,
      network: { mode: 'host' },
      limits: { enforced: false },
      notes: [],
    },
    private readonly cgroups?: SandboxCgroups,
    /** What the sandbox mounts of the build cache (`buildCacheMounts`). */
    private readonly mounts: readonly SandboxMount[] = [],
    /** The GPU passed in when the task requires one (gpu.ts). */
    readonly gpu?: GpuPassThrough,
    /** The request's host CA certificates are trusted already, from the CA layer (ensureTrustLayer). */
    readonly hostCertificatesInstalled = false,
  ) {
    super();
    this.image = `debian:${layers.suite}`;
  }

  get hostWorkdir(): string {
    return join(this.buildDir, 'workspace');
  }

  /** The toolchain layer's package lists (with apt-file's Contents files); its indexes are cached beside the layer. */
  get packageLists(): Sandbox['packageLists'] {
    const root = this.layers.toolchainRoot;
    if (!root) return undefined;
    const stack = createHash('sha256').update(this.layers.lowerdirs.join(':')).digest('hex').slice(0, 12);
    const upper = join(this.buildDir, 'upper');
    return {
      listsDir: join(root, 'var/lib/apt/lists'),
      cacheDir: dirname(root),
      stack,
      asImage: () =>
        isDirectory(upper) &&
        !changedInUpper(upper, ['var', 'lib']) &&
        !changedInUpper(upper, ['etc', 'apt']),
    };
  }

  describeLocation(): string {
    return `build folder ${this.buildDir} (repository copy in ${this.hostWorkdir}, changes to the system in ${join(this.buildDir, 'upper')})`;
  }

  protected async execNow(script: string, options: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    const cwd = resolveSandboxCwd(this.workdir, options.cwd);
    const cgroupProcs = await this.ensureCgroups();
    const base = sandboxBaseEnv(this.buildCache);
    const gpuEnv = this.gpu ? rootfsGpuEnv(this.gpu, base.PATH ?? '') : {};
    const run = (): ReturnType<typeof runInOverlay> =>
      runInOverlay({
        lowerdirs: this.layers.lowerdirs,
        buildDir: this.buildDir,
        workspace: this.hostWorkdir,
        cwd,
        envAssignments: sandboxEnvAssignments(options.env, { ...base, ...gpuEnv }),
        script,
        ...(options.epilogue !== undefined ? { epilogue: options.epilogue } : {}),
        timeoutMs: options.timeoutMs,
        network: options.offline ? 'none' : this.isolation.network.mode,
        mounts: this.mounts,
        deviceArgs: this.gpu?.present ? gpuBwrapArgs(this.gpu.binds) : [],
        cgroupProcs,
        devices: this.isolation.devices?.some((d) => d.device === 'kvm' && d.passed) ? [KVM_DEVICE] : [],
        signal,
        ...passThroughOptions(options),
      });
    let { result, entered } = await run();
    // bubblewrap's netlink setup of a new namespace's loopback has failed once in a while under load
    // ("bwrap: loopback: Failed RTM_NEWADDR"); nothing of the command ran, so it is safe to try again.
    for (let retry = 0; retry < 2 && !entered && /^bwrap: loopback: /m.test(result.output); retry++) {
      ({ result, entered } = await run());
    }
    if (!entered && !result.timedOut && !result.cancelled) {
      throw new SandboxError(
        `could not enter the rootfs sandbox ${this.id} (exit code ${result.exitCode}):\n${lastLines(result.output)}`,
        `the build folder ${this.buildDir} must be on a filesystem that can hold an overlay upper dir (ext4, xfs, tmpfs; not overlayfs): set BUILDBENCH_WORK_DIR`,
      );
    }
    return result;
  }

  /** The cgroups a command joins, made again if a sweep removed them while the sandbox was idle. */
  private async ensureCgroups(): Promise<string[]> {
    if (!this.cgroups) return [];
    const limits = { memoryBytes: this.isolation.limits.memoryBytes, pids: this.isolation.limits.pids };
    if (this.cgroups.dirs.every((dir) => existsSync(dir))) return this.cgroups.procs;
    const { cgroups, reason } = await createSandboxCgroups(this.id, limits);
    if (!cgroups)
      throw new SandboxError(`the sandbox's cgroups are gone and cannot be made again: ${reason}`);
    return cgroups.procs;
  }

  protected async release(options: { keep?: boolean }): Promise<void> {
    await removeSandboxCgroups(this.cgroups);
    // The namespace is gone: nothing of it can touch the downloads while they are taken into the cache.
    if (this.buildCache) await releaseBuildCache(this.buildCache, this.id).catch(() => undefined);
    if (!options.keep) await removeTree(this.buildDir);
  }
}

/** The network a sandbox gets: the one asked for, else isolated where slirp4netns is installed, else host. */
async function chooseNetwork(asked: NetworkMode | undefined, notes: string[]): Promise<NetworkMode> {
  if (asked) return asked;
  if (await findExecutable('slirp4netns')) return 'isolated';
  notes.push(
    'network: this machine’s (slirp4netns is not installed, so the build can reach loopback services here); apt-get install slirp4netns for an isolated network',
  );
  return 'host';
}

/**
 * Whether a command in the sandbox wrote `parts` (a path under /) or replaced a folder on its way: the overlay's
 * upper folder holds it (a changed file, a whiteout of a removed one, a folder made anew). Read with lstat only,
 * a folder at a time, so a link a build made is never followed out of the upper folder (it counts as a change).
 */
/** True when an overlay upper folder holds `parts` (a path from its root): something in it was changed. */
export function changedInUpper(upper: string, parts: readonly string[]): boolean {
  let path = upper;
  for (const part of parts) {
    path = join(path, part);
    let info;
    try {
      info = lstatSync(path);
    } catch {
      return false; // not in the upper folder: the image's, untouched
    }
    if (!info.isDirectory() || part === parts[parts.length - 1]) return true;
  }
  return true;
}

/** A folder (not a link to one), read with lstat. */
export function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The stacks of layers (lowerdirs joined) a sandbox of this process has run `true` in. */
const probedStacks = new Set<string>();

/** A fresh rootfs sandbox with a copy of `request.repoDir` in /workspace. */
export async function createRootfsSandbox(
  settings: SandboxSettings,
  request: CreateSandboxRequest,
  options: RootfsSandboxOptions = {},
): Promise<RootfsSandbox> {
  const problems = await rootfsProblems(settings);
  if (problems.length > 0) {
    throw new SandboxError(
      `the rootfs sandbox cannot run on this machine: ${problems.join('; ')}`,
      'fix the above, or start a Docker engine and use --sandbox docker',
    );
  }
  checkMountablePath(settings.workRoot, 'the work folder');
  // The isolation record below names bubblewrap's version: asked now, its process runs while the layers, the
  // build folder and the cache are set up (once per process).
  void bubblewrapVersion();
  const layers = await ensureRootfsLayers({
    cacheDir: settings.cacheDir,
    suite: settings.suite,
    mirror: settings.mirror,
    toolchain: options.toolchain ?? true,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  // The build cache's setup is a cached layer (one command to start a sandbox, not two); where it cannot be
  // made, each sandbox runs the setup itself, as a docker one does.
  let cacheLayer: BuildCacheLayer | undefined;
  if (settings.buildCache) {
    try {
      cacheLayer = await ensureBuildCacheLayer(layers, {
        cacheDir: settings.cacheDir,
        suite: settings.suite,
        mirror: settings.mirror,
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      request.onProgress?.(
        `the build cache layer could not be made (${errorMessage(error)}); setting the cache up in the sandbox`,
      );
    }
  }
  const id = makeSandboxId(request.name);
  const buildDir = join(settings.workRoot, id);
  await mkdir(settings.workRoot, { recursive: true, mode: 0o700 });
  await prepareBuildDir(buildDir);
  await writeOwnerRecord(buildDir, 'rootfs');
  const buildCache = settings.buildCache;
  let cacheMounts: SandboxMount[] = [];
  if (buildCache) {
    checkMountablePath(buildCache, 'the build cache folder');
    ({ mounts: cacheMounts } = await prepareBuildCache(buildCache, {
      repoKey: requestCacheKey(request),
      sandboxId: id,
    }));
  }
  const notes: string[] = [];
  const network = await chooseNetwork(settings.network, notes);
  const limits = { memoryBytes: settings.memoryBytes, pids: settings.pids };
  await sweepStaleCgroups().catch(() => 0);
  const { cgroups, reason } = await createSandboxCgroups(id, limits);
  if (!cgroups && reason && (limits.memoryBytes !== undefined || limits.pids !== undefined)) {
    notes.push(`limits not enforced: ${reason}`);
    request.onProgress?.(`warning: the sandbox's memory and process limits are not enforced: ${reason}`);
  }
  const kvm = request.devices?.kvm
    ? kvmPassing(true, await probeKvm(), 'bubblewrap --dev-bind /dev/kvm /dev/kvm')
    : undefined;
  const kvmSaid = kvm && kvmNote(kvm);
  if (kvmSaid) notes.push(kvmSaid);
  if (kvm && !kvm.passed) request.onProgress?.(`warning: ${kvmSaid}`);
  const isolation = await rootfsIsolation(
    network,
    {
      ...(limits.memoryBytes !== undefined ? { memoryBytes: limits.memoryBytes } : {}),
      ...(limits.pids !== undefined ? { pids: limits.pids } : {}),
      enforced: cgroups !== undefined,
      ...(cgroups ? { how: cgroups.how } : {}),
    },
    notes,
  );
  const gpu = request.devices?.gpu ? await rootfsGpuPassThrough(options.gpuProbe) : undefined;
  if (gpu) request.onProgress?.(gpu.present ? `GPU: ${gpu.record.how}` : `warning: ${gpu.record.how}`);
  const devices = [...(gpu ? [gpu.record] : []), ...(kvm ? [kvmDevice(kvm)] : [])];
  if (devices.length > 0) isolation.devices = devices;
  let sandboxLayers = cacheLayer ? { ...layers, lowerdirs: [cacheLayer.root, ...layers.lowerdirs] } : layers;
  // This machine's extra CA certificates, as a cached layer on top; where it cannot be made, createSandbox
  // installs them with commands, as it does in a docker sandbox.
  let trustLayered = false;
  if (request.hostCertificates && request.hostCertificates.length > 0) {
    try {
      const root = await ensureTrustLayer(sandboxLayers.lowerdirs, request.hostCertificates, {
        cacheDir: settings.cacheDir,
        suite: settings.suite,
        mirror: settings.mirror,
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      sandboxLayers = { ...sandboxLayers, lowerdirs: [root, ...sandboxLayers.lowerdirs] };
      trustLayered = true;
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      request.onProgress?.(
        `the CA certificate layer could not be made (${errorMessage(error)}); installing them in the sandbox`,
      );
    }
  }
  const sandbox = new RootfsSandbox(
    id,
    buildDir,
    sandboxLayers,
    buildCache,
    isolation,
    cgroups,
    cacheMounts,
    gpu,
    trustLayered,
  );
  try {
    await copyRepository(request.repoDir, sandbox.hostWorkdir, request.signal, request.onCopied);
    const stack = sandboxLayers.lowerdirs.join(':');
    if ((options.probe ?? true) && !probedStacks.has(stack)) {
      const probeStarted = Date.now();
      const probe = await sandbox.exec('true', {
        timeoutMs: 60_000,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      sandbox.setupCommandsMs += Date.now() - probeStarted;
      if (probe.cancelled) throw new CancelledError('creating the sandbox was cancelled');
      if (probe.exitCode !== 0) {
        throw new SandboxError(
          `the rootfs sandbox ${id} does not run commands (\`true\` exited with ${probe.exitCode}):\n${lastLines(probe.output)}`,
          `the cached rootfs in ${layers.baseRoot} may be damaged: remove ${join(settings.cacheDir, 'rootfs')} to rebuild it`,
        );
      }
      probedStacks.add(stack);
    }
    if (buildCache && cacheLayer) {
      if (cacheLayer.setup.reason) request.onProgress?.(cacheLayer.setup.reason);
    } else if (buildCache) {
      const setupStarted = Date.now();
      await setUpBuildCache(sandbox, request);
      sandbox.setupCommandsMs += Date.now() - setupStarted;
    }
  } catch (error) {
    await sandbox.dispose().catch(() => undefined);
    throw error;
  }
  return sandbox;
}

/**
 * The rootfs sandbox of a build kept with `--keep`, entered again (`buildbench verify`): `tree` is its
 * `workspace` folder, beside the overlay `upper/` that holds what the build installed, stacked on the cached
 * layers of the Debian suite named by `image` (`debian:<suite>`). Returns why not when the build ran
 * elsewhere, the folder is not a kept rootfs build, this machine cannot run the backend, or the layers are
 * no longer cached. Dispose it with `{ keep: true }`.
 */
export async function reenterKeptRootfs(
  tree: string,
  build: { kind: string; image: string },
  settings: Pick<SandboxSettings, 'cacheDir' | 'suite' | 'network'>,
): Promise<{ sandbox?: RootfsSandbox; why?: string }> {
  if (build.kind !== 'rootfs') return { why: `the build ran in the ${build.kind} sandbox, not rootfs` };
  const buildDir = dirname(tree);
  if (basename(tree) !== 'workspace' || !existsSync(join(buildDir, 'upper'))) {
    return { why: `${buildDir} is not a kept rootfs build folder` };
  }
  const problems = await rootfsProblems(settings);
  if (problems.length > 0) return { why: problems.join('; ') };
  const suite = /^debian:([a-z][a-z0-9-]*)$/.exec(build.image)?.[1] ?? settings.suite;
  let paths: RootfsPaths;
  try {
    paths = rootfsPaths(settings.cacheDir, suite);
  } catch (error) {
    return { why: errorMessage(error) };
  }
  if (!isReady(paths.baseDir) || !isReady(paths.toolchainDir)) {
    return { why: `the rootfs layers for Debian ${suite} are no longer cached in ${settings.cacheDir}` };
  }
  const layers: RootfsLayers = {
    suite,
    baseRoot: paths.baseRoot,
    toolchainRoot: paths.toolchainRoot,
    lowerdirs: [paths.toolchainRoot, paths.baseRoot],
  };
  // The kept tree is the untrusted build's: it gets the network the settings ask for (isolated by
  // default), as the build did, never this machine's.
  const notes = ['re-entered kept build: no memory or process limits'];
  const network = await chooseNetwork(settings.network, notes);
  const isolation = await rootfsIsolation(network, { enforced: false }, notes);
  return { sandbox: new RootfsSandbox(basename(buildDir), buildDir, layers, undefined, isolation) };
}
