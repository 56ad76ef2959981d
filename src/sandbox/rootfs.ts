/**
 * The `rootfs` backend: a Debian rootfs made once with debootstrap (cached), a cached toolchain layer stacked
 * on it, and a fresh overlayfs upper dir per sandbox. Every command enters with
 * `unshare --mount --pid --fork --kill-child` and mounts the overlay inside that private mount namespace, so
 * nothing stays mounted on this machine after a command ends, however it ends (see research/sandbox.md).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { CancelledError, ConfigError, SandboxError } from '../core/errors.js';
import {
  checkMountablePath,
  checkTimeout,
  combineSignals,
  copyRepository,
  dieWithParent,
  findExecutable,
  makeSandboxId,
  passThroughOptions,
  removeTree,
  resolveSandboxCwd,
  sandboxEnvAssignments,
  SerialQueue,
} from './common.js';
import { BUILD_CACHE_MOUNT, prepareBuildCache, sandboxBaseEnv, setUpBuildCache } from './build-cache.js';
import { runProcess } from './process.js';
import type { CreateSandboxRequest, ExecOptions, ExecResult, Sandbox, SandboxSettings } from './types.js';

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

const TOOLCHAIN_SCRIPT = [
  'set -e',
  'apt-get update',
  `apt-get install -y --no-install-recommends ${TOOLCHAIN_PACKAGES.join(' ')}`,
  'apt-file update',
  // Keep /var/lib/apt/lists (apt-get install and apt-file search work offline); drop downloaded .debs.
  'apt-get clean',
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
  try {
    return JSON.parse(await readFile(join(lockDir, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
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
    if (/^\.(base|toolchain).*\.tmp-/.test(name) || /^\.lock\.stale-/.test(name)) {
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
  const { suite, onProgress, signal } = options;
  await removeStaleTemps(paths.suiteDir);
  if (existsSync(paths.toolchainDir)) await removeTree(paths.toolchainDir);
  const tmp = join(paths.suiteDir, `.toolchain.tmp-${process.pid}-${randomBytes(3).toString('hex')}`);
  const logPath = join(paths.suiteDir, 'toolchain.log');
  await prepareBuildDir(tmp);
  onProgress?.(
    `installing the build toolchain into a cached layer on Debian ${suite} (first run only, ~2-3 min; log: ${logPath})…`,
  );
  const started = Date.now();
  try {
    const run = await withHeartbeat(onProgress, 'installing the build toolchain', logPath, () =>
      runInOverlay({
        lowerdirs: [baseRoot],
        buildDir: tmp,
        workspace: join(tmp, 'workspace'),
        cwd: '/',
        envAssignments: sandboxEnvAssignments(undefined),
        script: TOOLCHAIN_SCRIPT,
        timeoutMs: TOOLCHAIN_TIMEOUT_MS,
        logPath,
        ...(signal ? { signal } : {}),
      }),
    );
    const result = run.result;
    if (result.cancelled) throw new CancelledError('installing the build toolchain was cancelled');
    if (!run.entered && !result.timedOut) {
      throw new SandboxError(
        `could not enter the base rootfs to install the toolchain:\n${lastLines(result.output)}`,
        'the rootfs sandbox needs root, util-linux unshare and overlayfs; see the log above',
      );
    }
    if (result.exitCode !== 0) {
      throw new SandboxError(
        `installing the build toolchain (${TOOLCHAIN_PACKAGES.join(' ')}) failed (${result.timedOut ? 'timed out' : `exit code ${result.exitCode}`}):\n${lastLines(result.output)}`,
        `see ${logPath}; check that the Debian mirror is reachable from this machine`,
      );
    }
    await rename(join(tmp, 'upper'), join(tmp, 'root'));
    for (const name of ['work', 'merged', 'workspace', 'cmd']) await removeTree(join(tmp, name));
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    await writeFile(
      join(tmp, 'READY'),
      JSON.stringify({
        format: LAYER_FORMAT,
        suite,
        packages: TOOLCHAIN_PACKAGES,
        createdAt: new Date().toISOString(),
        seconds,
      }) + '\n',
    );
    await rename(tmp, paths.toolchainDir);
    onProgress?.(`created the toolchain layer in ${seconds} s (${paths.toolchainRoot})`);
  } catch (error) {
    await removeTree(tmp).catch(() => undefined);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Entering a sandbox

/**
 * Runs as PID 1 of a fresh pid + mount namespace (`sh -c ENTRY_SCRIPT entry <lowerdir> <buildDir> <workspace>
 * <cwd> <build cache or ''> NAME=value...`). Everything it mounts lives in that namespace and disappears
 * with it.
 */
const ENTRY_SCRIPT = `
set -u
exec 2>&1
fail() { echo "buildbench sandbox setup: $*"; exit 125; }
lower=$1 B=$2 WS=$3 CWD=$4 CACHE=$5
shift 5
M=$B/merged
n=0
until mount -t overlay overlay -o "lowerdir=$lower,upperdir=$B/upper,workdir=$B/work" "$M"; do
  n=$((n + 1))
  [ "$n" -lt 30 ] || fail "cannot mount the overlay (lowerdir=$lower) at $M"
  sleep 0.1
done
mkdir -p "$M/proc" "$M/sys" "$M/dev" "$M/workspace" "$M${SCRIPT_DIR}" "$M/etc" "$M/tmp" || fail "cannot create mount points in $M"
mount -t proc proc "$M/proc" || fail "cannot mount /proc"
mount -t sysfs -o ro sysfs "$M/sys" 2>/dev/null || mount --rbind -o ro /sys "$M/sys" 2>/dev/null || true
mount --rbind /dev "$M/dev" || fail "cannot bind /dev"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$M/dev/shm" || fail "cannot mount /dev/shm"
mount --bind "$WS" "$M/workspace" || fail "cannot bind the workspace $WS"
if [ -n "$CACHE" ]; then
  mkdir -p "$M${BUILD_CACHE_MOUNT}" && mount --bind "$CACHE" "$M${BUILD_CACHE_MOUNT}" || fail "cannot bind the build cache $CACHE"
fi
mount -t tmpfs -o mode=0755,size=64m tmpfs "$M${SCRIPT_DIR}" || fail "cannot mount ${SCRIPT_DIR}"
cp "$B/cmd/cmd.sh" "$M${SCRIPT_DIR}/cmd.sh" || fail "cannot copy the command script"
if [ -e /etc/resolv.conf ]; then
  rm -f "$M/etc/resolv.conf" 2>/dev/null
  cp -L /etc/resolv.conf "$M/etc/resolv.conf" 2>/dev/null || echo "buildbench sandbox setup: warning: could not copy /etc/resolv.conf"
fi
echo buildbench > /proc/sys/kernel/hostname 2>/dev/null || true
: > "$B/cmd/entered" || fail "cannot write $B/cmd/entered"
exec chroot "$M" /usr/bin/env -i "$@" /bin/bash -c 'cd -- "$1" || exit 1; exec /bin/bash ${SCRIPT_DIR}/cmd.sh' bash "$CWD"
`;

const UNSHARE_ARGS = [
  '--mount',
  '--pid',
  '--fork',
  '--kill-child',
  '--uts',
  '--ipc',
  '--propagation',
  'private',
];

/** Creates `<dir>/{upper,work,merged,workspace,cmd}`. */
async function prepareBuildDir(dir: string): Promise<void> {
  for (const name of ['upper', 'work', 'merged', 'workspace', 'cmd']) {
    await mkdir(join(dir, name), { recursive: true });
  }
}

interface OverlayRun {
  lowerdirs: string[];
  buildDir: string;
  workspace: string;
  /** Absolute path inside the sandbox. */
  cwd: string;
  envAssignments: string[];
  script: string;
  timeoutMs: number;
  /** The build cache folder on this machine, bind-mounted at BUILD_CACHE_MOUNT. */
  buildCache?: string;
  signal?: AbortSignal;
  logPath?: string;
  onOutput?: (chunk: string) => void;
}

/** One command in a fresh namespace over the overlay; `entered` is false when setting it up failed. */
async function runInOverlay(run: OverlayRun): Promise<{ result: ExecResult; entered: boolean }> {
  const cmdDir = join(run.buildDir, 'cmd');
  const marker = join(cmdDir, 'entered');
  await rm(marker, { force: true });
  await writeFile(join(cmdDir, 'cmd.sh'), run.script.endsWith('\n') ? run.script : `${run.script}\n`);
  const unshareArgs = [
    ...UNSHARE_ARGS,
    '/bin/sh',
    '-c',
    ENTRY_SCRIPT,
    'buildbench-entry',
    run.lowerdirs.join(':'),
    run.buildDir,
    run.workspace,
    run.cwd,
    run.buildCache ?? '',
    ...run.envAssignments,
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
  });
  return { result, entered: existsSync(marker) };
}

// ---------------------------------------------------------------------------------------------------------
// Availability and the sandbox itself

/** What stops the rootfs backend from working here; empty when it can work. */
export async function rootfsProblems(
  settings: Pick<SandboxSettings, 'cacheDir' | 'suite'>,
): Promise<string[]> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) {
    problems.push(
      'it needs root (it mounts an overlay and enters namespaces): run buildbench as root or with sudo',
    );
  }
  if (!(await findExecutable('unshare')) || !(await findExecutable('chroot'))) {
    problems.push('util-linux `unshare` and coreutils `chroot` must be installed');
  }
  const filesystems = await readFile('/proc/filesystems', 'utf8').catch(() => '');
  if (!/\boverlay\b/.test(filesystems)) {
    problems.push(
      'the kernel has no overlayfs: run `modprobe overlay` (or use a kernel with CONFIG_OVERLAY_FS)',
    );
  }
  let baseCached = false;
  try {
    baseCached = isReady(rootfsPaths(settings.cacheDir, settings.suite).baseDir);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (!baseCached && !(await findExecutable('debootstrap'))) {
    problems.push('no cached base rootfs and debootstrap is not installed: apt-get install debootstrap');
  }
  return problems;
}

export interface RootfsSandboxOptions {
  /** Stack the cached toolchain layer (default true); false uses the bare base. */
  toolchain?: boolean;
  /** Check that the sandbox can be entered before returning it (default true). */
  probe?: boolean;
}

export class RootfsSandbox implements Sandbox {
  readonly kind = 'rootfs' as const;
  readonly workdir = '/workspace';
  readonly image: string;
  private readonly queue = new SerialQueue();
  private readonly lifetime = new AbortController();
  private disposed = false;

  constructor(
    readonly id: string,
    readonly buildDir: string,
    readonly layers: RootfsLayers,
    /** The build cache folder on this machine (see build-cache.ts), or undefined. */
    readonly buildCache?: string,
  ) {
    this.image = `debian:${layers.suite}`;
  }

  get hostWorkdir(): string {
    return join(this.buildDir, 'workspace');
  }

  describeLocation(): string {
    return `build folder ${this.buildDir} (repository copy in ${this.hostWorkdir}, changes to the system in ${join(this.buildDir, 'upper')})`;
  }

  exec(script: string, options: ExecOptions): Promise<ExecResult> {
    return this.queue.run(() => this.execNow(script, options));
  }

  private async execNow(script: string, options: ExecOptions): Promise<ExecResult> {
    if (this.disposed) {
      throw new SandboxError(
        `sandbox ${this.id} was already disposed`,
        'create a new sandbox for further commands',
      );
    }
    checkTimeout(options.timeoutMs);
    const cwd = resolveSandboxCwd(this.workdir, options.cwd);
    const { result, entered } = await runInOverlay({
      lowerdirs: this.layers.lowerdirs,
      buildDir: this.buildDir,
      workspace: this.hostWorkdir,
      cwd,
      envAssignments: sandboxEnvAssignments(options.env, sandboxBaseEnv(this.buildCache)),
      script,
      timeoutMs: options.timeoutMs,
      ...(this.buildCache ? { buildCache: this.buildCache } : {}),
      signal: combineSignals(options.signal, this.lifetime.signal),
      ...passThroughOptions(options),
    });
    if (!entered && !result.timedOut && !result.cancelled) {
      throw new SandboxError(
        `could not enter the rootfs sandbox ${this.id} (exit code ${result.exitCode}):\n${lastLines(result.output)}`,
        `the build folder ${this.buildDir} must be on a filesystem that can hold an overlay upper dir (ext4, xfs, tmpfs; not overlayfs): set BUILDBENCH_WORK_DIR`,
      );
    }
    return result;
  }

  async dispose(options: { keep?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.lifetime.abort();
    await this.queue.idle();
    if (!options.keep) await removeTree(this.buildDir);
  }
}

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
  const layers = await ensureRootfsLayers({
    cacheDir: settings.cacheDir,
    suite: settings.suite,
    mirror: settings.mirror,
    toolchain: options.toolchain ?? true,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const id = makeSandboxId(request.name);
  const buildDir = join(settings.workRoot, id);
  await prepareBuildDir(buildDir);
  const buildCache = settings.buildCache;
  if (buildCache) {
    checkMountablePath(buildCache, 'the build cache folder');
    await prepareBuildCache(buildCache);
  }
  const sandbox = new RootfsSandbox(id, buildDir, layers, buildCache);
  try {
    await copyRepository(request.repoDir, sandbox.hostWorkdir, request.signal);
    if (options.probe ?? true) {
      const probe = await sandbox.exec('true', {
        timeoutMs: 60_000,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      if (probe.cancelled) throw new CancelledError('creating the sandbox was cancelled');
      if (probe.exitCode !== 0) {
        throw new SandboxError(
          `the rootfs sandbox ${id} does not run commands (\`true\` exited with ${probe.exitCode}):\n${lastLines(probe.output)}`,
          `the cached rootfs in ${layers.baseRoot} may be damaged: remove ${join(settings.cacheDir, 'rootfs')} to rebuild it`,
        );
      }
    }
    if (buildCache) await setUpBuildCache(sandbox, request);
  } catch (error) {
    await sandbox.dispose().catch(() => undefined);
    throw error;
  }
  return sandbox;
}
