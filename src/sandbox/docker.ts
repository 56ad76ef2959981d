/**
 * The `docker` backend: a fresh container per sandbox, driven through the docker CLI. The repository copy
 * lives on this machine and is bind-mounted at /workspace. Killing a `docker exec` client does not stop the
 * command inside, so every command runs under `timeout -k` inside the container and a cancel removes the
 * container (see research/sandbox.md).
 */
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { CancelledError, SandboxError, errorMessage } from '../base/errors.js';
import {
  checkMountablePath,
  copyRepository,
  findExecutable,
  makeSandboxId,
  passThroughOptions,
  removeTree,
  resolveSandboxCwd,
  runScriptLines,
  SANDBOX_PATH,
  sandboxEnvAssignments,
} from './common.js';
import { QueuedSandbox } from './queued.js';
import { writeOwnerRecord } from './work-dirs.js';
import {
  type BuildCacheMount,
  prepareBuildCache,
  releaseBuildCache,
  requestCacheKey,
  sandboxBaseEnv,
  setUpBuildCache,
} from './build-cache.js';
import { dockerIsolation, dockerIsolationArgs, type IsolationReport } from './isolation.js';
import { KVM_DEVICE, kvmDevice, kvmNote, kvmPassing, probeKvm } from './kvm.js';
import { runProcess, TIMEOUT_EXIT_CODE } from '../base/process.js';
import { changedInUpper, ensureRootfsLayers, isDirectory, rootfsPaths } from './rootfs.js';
import { ensureToolchainImage, type DockerToolchainImage } from './docker-toolchain.js';
import { hostProxySettings } from './host-network.js';
import { dockerGpuArgs, findCdiSpec, hostHasGpu } from './gpu.js';
import type { CreateSandboxRequest, ExecOptions, ExecResult, Sandbox, SandboxSettings } from './types.js';

/** Grace between `timeout`'s TERM and KILL inside the container, in seconds. */
const KILL_AFTER_S = 10;
/** The host-side limit is the command's limit plus this, in case the engine itself hangs. */
const BACKSTOP_MS = (KILL_AFTER_S + 10) * 1000;

function tail(text: string, n = 15): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** Runs the docker CLI; the result's output is stdout and stderr interleaved. */
export function docker(
  args: string[],
  options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    logPath?: string;
    onOutput?: (chunk: string) => void;
  } = {},
): Promise<ExecResult> {
  return runProcess('docker', args, { timeoutMs: options.timeoutMs ?? 120_000, ...options });
}

/** True when a Docker engine answers `docker info` within `timeoutMs`. */
export async function dockerAnswers(timeoutMs = 5000): Promise<boolean> {
  if (!(await findExecutable('docker'))) return false;
  try {
    const result = await docker(['info', '--format', '{{.ServerVersion}}'], { timeoutMs });
    return result.exitCode === 0 && result.output.trim().length > 0;
  } catch {
    return false;
  }
}

/** The id of `image` (`sha256:…`), or undefined when it is not on this machine. */
async function dockerImageId(image: string): Promise<string | undefined> {
  const inspect = await docker(['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 60_000 });
  const id = inspect.output.trim();
  return inspect.exitCode === 0 && id.startsWith('sha256:') ? id : undefined;
}

/** When the engine last answered `docker info` (this process); a later sandbox within a minute asks no more. */
let answeredAt = 0;

async function dockerAnsweredLately(): Promise<boolean> {
  if (Date.now() - answeredAt < 60_000) return true;
  const answers = await dockerAnswers(10_000);
  if (answers) answeredAt = Date.now();
  return answers;
}

/** Makes sure `image` is present (`docker image inspect`, else `docker pull`); returns its id. */
export async function ensureDockerImage(
  image: string,
  options: { onProgress?: (message: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  const present = await dockerImageId(image);
  if (present) return present;
  options.onProgress?.(`pulling the Docker image ${image}…`);
  const pull = await docker(['pull', image], {
    timeoutMs: 30 * 60_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (pull.cancelled) throw new CancelledError(`pulling the Docker image ${image} was cancelled`);
  if (pull.exitCode !== 0) {
    throw new SandboxError(
      `the Docker image ${image} is not on this machine and \`docker pull ${image}\` failed (${pull.timedOut ? 'timed out' : `exit code ${pull.exitCode}`}):\n${tail(pull.output)}`,
      'check that the registry is reachable, or `docker load`/`docker import` the image by hand, or use --sandbox rootfs',
    );
  }
  const pulled = await dockerImageId(image);
  if (!pulled) {
    throw new SandboxError(
      `\`docker pull ${image}\` succeeded but \`docker image inspect ${image}\` does not find it`,
      'check the engine (`docker images`)',
    );
  }
  return pulled;
}

export class DockerSandbox extends QueuedSandbox implements Sandbox {
  readonly kind = 'docker' as const;
  readonly workdir = '/workspace';
  /** Set when the container was removed because a command was cancelled. */
  private removed = false;
  /** What the container isolates (set when it is started). */
  isolation?: IsolationReport;
  /**
   * The container's writable layer on this machine (overlay2 as root), read to tell whether apt changed it;
   * looked up in the background once the container runs (`upperLookup`; undefined where it cannot be read).
   */
  upperDir?: string;
  /** The look-up of `upperDir`; the first command that is not a read-only query waits for it. */
  upperLookup?: Promise<void>;
  /** A command that may change the package database has run (where `upperDir` cannot be read). */
  private ranCommands = false;

  constructor(
    readonly id: string,
    /** The image asked for (the Dockerfile's FROM): the container runs `toolchain`'s image over it when set. */
    readonly image: string,
    readonly buildDir: string,
    /** The build cache folder on this machine (see build-cache.ts), or undefined. */
    readonly buildCache?: string,
    /** What the container mounts of the build cache (`buildCacheMounts`). */
    readonly cacheMounts: readonly BuildCacheMount[] = [],
    /** The toolchain image made over `image` (docker-toolchain.ts); undefined: `image` as it is. */
    readonly toolchain?: DockerToolchainImage,
  ) {
    super();
  }

  /** The image the container is started from. */
  get runImage(): string {
    return this.toolchain?.tag ?? this.image;
  }

  /** The toolchain image made over the base, when this sandbox made or reused one, for result.json. */
  get derivedImage(): Sandbox['derivedImage'] {
    const t = this.toolchain;
    if (!t) return undefined;
    return {
      tag: t.tag,
      id: t.id,
      baseId: t.baseId,
      ...(t.made.length > 0 ? { made: [...t.made], madeMs: t.madeMs } : {}),
    };
  }

  /**
   * The toolchain image's package lists, copied to this machine once; the package look-ups read them there
   * while the container's package database and lists are the image's.
   */
  get packageLists(): Sandbox['packageLists'] {
    const t = this.toolchain;
    if (!t) return undefined;
    return {
      listsDir: t.listsDir,
      cacheDir: t.cacheDir,
      stack: t.id.replace(/^sha256:/, '').slice(0, 12),
      // Only read-only queries so far: the image's, whatever the layer holds; after a command, the layer says.
      asImage: () => {
        if (!this.ranCommands) return true;
        const upper = this.upperDir;
        return (
          upper !== undefined &&
          isDirectory(upper) &&
          !changedInUpper(upper, ['var', 'lib']) &&
          !changedInUpper(upper, ['etc', 'apt'])
        );
      },
    };
  }

  get container(): string {
    return `bb-${this.id}`;
  }

  get hostWorkdir(): string {
    return join(this.buildDir, 'workspace');
  }

  describeLocation(): string {
    const image = this.toolchain ? `${this.toolchain.tag}, the toolchain over ${this.image}` : this.image;
    return `repository copy in ${this.hostWorkdir} (container ${this.container}, image ${image})`;
  }

  /** The container's bind mounts, as `docker run -v` values. */
  mounts(): string[] {
    return [
      `${this.hostWorkdir}:/workspace`,
      ...this.cacheMounts.map((m) => `${m.host}:${m.target}${m.readOnly ? ':ro' : ''}`),
    ];
  }

  protected async execNow(script: string, options: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    if (this.removed) {
      throw new SandboxError(
        `container ${this.container} was removed when an earlier command was cancelled`,
        'create a new sandbox for further commands',
      );
    }
    const cwd = resolveSandboxCwd(this.workdir, options.cwd);
    if (!options.offline && !this.ranCommands) {
      await this.upperLookup;
      this.ranCommands = true;
    }
    const env = sandboxEnvAssignments(options.env, sandboxBaseEnv(this.buildCache));
    const seconds = Math.max(0.001, options.timeoutMs / 1000);
    const args = [
      'exec',
      '-w',
      cwd,
      ...env.flatMap((assignment) => ['-e', assignment]),
      this.container,
      'timeout',
      '-k',
      String(KILL_AFTER_S),
      `${seconds}s`,
      'bash',
      '-c',
      ...(options.epilogue === undefined
        ? [script]
        : [
            // The script and the epilogue as the wrapper's arguments, each run by a bash of its own.
            [
              'd=$(mktemp -d) || exit 125',
              'printf "%s\\n" "$1" > "$d/cmd.sh" && printf "%s\\n" "$2" > "$d/epilogue.sh" || exit 125',
              ...runScriptLines('"$d/cmd.sh"', '"$d/epilogue.sh"'),
            ].join('\n'),
            'bash',
            script,
            options.epilogue,
          ]),
    ];
    const result = await docker(args, {
      timeoutMs: options.timeoutMs + BACKSTOP_MS,
      signal,
      ...passThroughOptions(options),
    });
    if (result.cancelled || result.stalled) {
      // The command keeps running inside after its client died: remove the container.
      this.removed = true;
      await docker(['rm', '-f', this.container], { timeoutMs: 60_000 }).catch(() => undefined);
      return result;
    }
    const reachedLimit = result.durationMs >= options.timeoutMs - 50;
    if (
      result.timedOut ||
      (reachedLimit && (result.exitCode === TIMEOUT_EXIT_CODE || result.exitCode === 137))
    ) {
      return { ...result, exitCode: TIMEOUT_EXIT_CODE, timedOut: true };
    }
    if (
      result.exitCode === 125 &&
      /Error response from daemon|Cannot connect to the Docker daemon/.test(result.output)
    ) {
      throw new SandboxError(
        `docker exec in container ${this.container} failed:\n${tail(result.output)}`,
        'check that the Docker engine is running and the container still exists (`docker ps -a`)',
      );
    }
    return result;
  }

  protected async release(options: { keep?: boolean }): Promise<void> {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    if (uid !== 0) {
      // Files written inside belong to root; give them back so this process can remove them (and the
      // build cache can be archived and restored by this user).
      const owner = `${uid}:${gid}`;
      const targets = ['/workspace', ...this.cacheMounts.filter((m) => !m.readOnly).map((m) => m.target)];
      const chown = this.removed
        ? await docker(
            [
              'run',
              '--rm',
              ...this.mounts().flatMap((m) => ['-v', m]),
              this.runImage,
              'chown',
              '-R',
              owner,
              ...targets,
            ],
            { timeoutMs: 300_000 },
          )
        : await docker(['exec', this.container, 'chown', '-R', owner, ...targets], { timeoutMs: 300_000 });
      if (chown.exitCode !== 0 && !options.keep) {
        throw new SandboxError(
          `could not give ${this.hostWorkdir} back to uid ${uid}:\n${tail(chown.output)}`,
          `remove it as root (sudo rm -rf ${this.buildDir}) and the container with docker rm -f ${this.container}`,
        );
      }
    }
    const rmResult = await docker(['rm', '-f', this.container], { timeoutMs: 120_000 });
    if (rmResult.exitCode !== 0 && !/No such container/i.test(rmResult.output)) {
      throw new SandboxError(
        `could not remove container ${this.container}:\n${tail(rmResult.output)}`,
        `remove it by hand: docker rm -f ${this.container}`,
      );
    }
    // The container is gone: nothing of it can touch the downloads while they are taken into the cache.
    if (this.buildCache) await releaseBuildCache(this.buildCache, this.id).catch(() => undefined);
    if (!options.keep) await removeTree(this.buildDir);
  }
}

/** A fresh container from `settings.image` with a copy of `request.repoDir` bind-mounted at /workspace. */
export async function createDockerSandbox(
  settings: SandboxSettings,
  request: CreateSandboxRequest,
): Promise<DockerSandbox> {
  if (!(await dockerAnsweredLately())) {
    throw new SandboxError(
      'no Docker engine answers `docker info`',
      'start one (e.g. `dockerd &` as root, or Docker Desktop), or use --sandbox rootfs',
    );
  }
  checkMountablePath(settings.workRoot, 'the work folder');
  const progress = request.onProgress;
  const baseId = await ensureDockerImage(settings.image, {
    ...(progress ? { onProgress: progress } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const id = makeSandboxId(request.name);
  const buildCache = settings.buildCache;
  const toolchain =
    settings.dockerToolchain === false
      ? undefined
      : await toolchainImageOrNone(settings, baseId, buildCache !== undefined, request);
  let cacheMounts: BuildCacheMount[] = [];
  if (buildCache) {
    checkMountablePath(buildCache, 'the build cache folder');
    ({ mounts: cacheMounts } = await prepareBuildCache(buildCache, {
      repoKey: requestCacheKey(request),
      sandboxId: id,
    }));
  }
  const sandbox = new DockerSandbox(
    id,
    settings.image,
    join(settings.workRoot, id),
    buildCache,
    cacheMounts,
    toolchain,
  );
  const gpu = request.devices?.gpu ? dockerGpuRequest() : undefined;
  if (gpu) progress?.(gpu.record.passed ? `GPU: ${gpu.record.how}` : `warning: ${gpu.record.how}`);
  try {
    await writeOwnerRecord(sandbox.buildDir, 'docker');
    await copyRepository(request.repoDir, sandbox.hostWorkdir, request.signal, request.onCopied);
    // The engine runs on this machine here (a remote engine's KVM is not checked from this side).
    const kvm = request.devices?.kvm
      ? kvmPassing(true, await probeKvm(), 'docker --device /dev/kvm')
      : undefined;
    if (kvm && !kvm.passed) progress?.(`warning: ${kvmNote(kvm)}`);
    const runArgs = (init: boolean): string[] => [
      'run',
      '-d',
      ...(init ? ['--init'] : []),
      '--name',
      sandbox.container,
      '--label',
      `buildbench.sandbox=${id}`,
      ...dockerIsolationArgs(settings),
      ...(gpu?.args ?? []),
      ...(kvm?.passed ? ['--device', KVM_DEVICE] : []),
      ...sandbox.mounts().flatMap((m) => ['-v', m]),
      '-w',
      '/workspace',
      sandbox.runImage,
      'sleep',
      'infinity',
    ];
    const runOptions = { timeoutMs: 300_000, ...(request.signal ? { signal: request.signal } : {}) };
    // --init reaps the zombies that commands leave behind; engines without docker-init run without it.
    let run = await docker(runArgs(true), runOptions);
    if (run.exitCode !== 0 && !run.cancelled && /docker-init|init binary|--init/i.test(run.output)) {
      await docker(['rm', '-f', sandbox.container], { timeoutMs: 60_000 });
      run = await docker(runArgs(false), runOptions);
    }
    if (run.cancelled) throw new CancelledError('starting the container was cancelled');
    sandbox.isolation = dockerIsolation(settings);
    const devices = [...(gpu ? [gpu.record] : []), ...(kvm ? [kvmDevice(kvm)] : [])];
    if (devices.length > 0) sandbox.isolation.devices = devices;
    const kvmSaid = kvm && kvmNote(kvm);
    if (kvmSaid) sandbox.isolation.notes.push(kvmSaid);
    if (run.exitCode !== 0) {
      throw new SandboxError(
        `could not start a container from ${sandbox.runImage}:\n${tail(run.output)}`,
        gpu?.record.passed && /could not select device driver|nvidia|CDI|unresolvable/i.test(run.output)
          ? 'the GPU could not be passed: install the NVIDIA Container Toolkit and restart the engine (or `nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`), or use --sandbox rootfs or host'
          : 'check `docker ps -a` and the engine log; the image must contain `sleep`, `timeout` and `bash`',
      );
    }
    sandbox.upperLookup = containerUpperDir(sandbox.container).then((dir) => {
      if (dir) sandbox.upperDir = dir;
    });
    // The toolchain image has the build cache's setup in it: nothing to run at each start.
    if (buildCache && !toolchain?.buildCacheSetup) await setUpBuildCache(sandbox, request);
  } catch (error) {
    await sandbox.dispose().catch(() => undefined);
    throw error;
  }
  return sandbox;
}

/**
 * The toolchain image over the base (made on the first build over it, docker-toolchain.ts), or undefined
 * with a warning when it cannot be made: the sandbox then runs the base image as it is.
 */
async function toolchainImageOrNone(
  settings: SandboxSettings,
  baseId: string,
  buildCacheSetup: boolean,
  request: CreateSandboxRequest,
): Promise<DockerToolchainImage | undefined> {
  const proxy = hostProxySettings(process.env);
  const proxyEnv: Record<string, string> = {};
  for (const [name, value] of proxy) {
    proxyEnv[name] = value;
    proxyEnv[name.toLowerCase()] = value;
  }
  try {
    const image = await ensureToolchainImage({
      baseId,
      cacheDir: settings.cacheDir,
      buildCacheSetup,
      proxyEnv,
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (image.made.length > 0) {
      request.onProgress?.(
        `toolchain image ${image.tag} ready in ${(image.madeMs / 1000).toFixed(1)} s (made: ${image.made.join(', ')}; first build over ${settings.image} only)`,
      );
    }
    return image;
  } catch (error) {
    if (error instanceof CancelledError || request.signal?.aborted) throw error;
    request.onProgress?.(
      `warning: no toolchain image over ${settings.image} (${errorMessage(error).split('\n')[0]}); running the image as it is`,
    );
    return undefined;
  }
}

/** The container's writable layer as a folder this process can read (overlay2), else undefined. */
async function containerUpperDir(container: string): Promise<string | undefined> {
  const result = await docker(
    ['inspect', '--format', '{{.GraphDriver.Name}}|{{index .GraphDriver.Data "UpperDir"}}', container],
    { timeoutMs: 60_000 },
  ).catch(() => undefined);
  const [driver, dir] = result?.exitCode === 0 ? result.output.trim().split('|') : [];
  return driver === 'overlay2' && dir && isDirectory(dir) ? dir : undefined;
}

/** The label an imported rootfs image carries: which cached layers it was made from. */
export const ROOTFS_LAYERS_LABEL = 'org.buildbench.rootfs-layers';

/**
 * The layers an image imported now would be made of, e.g. `debian-bookworm/toolchain-1a2b3c4d5e` (the
 * toolchain folder's name changes with its package list) or `debian-bookworm/base`.
 */
export function rootfsLayersId(cacheDir: string, suite: string, toolchain: boolean): string {
  const paths = rootfsPaths(cacheDir, suite);
  return `${basename(paths.suiteDir)}/${basename(toolchain ? paths.toolchainDir : paths.baseDir)}`;
}

/**
 * True when `tag` exists and was imported from the layers this version would use: an image imported by an
 * older version (another toolchain, or no label at all) is stale and must be imported again.
 */
export async function isCurrentRootfsImage(
  tag: string,
  cacheDir: string,
  options: { suite?: string; toolchain?: boolean } = {},
): Promise<boolean> {
  const inspect = await docker(
    ['image', 'inspect', '--format', `{{index .Config.Labels "${ROOTFS_LAYERS_LABEL}"}}`, tag],
    { timeoutMs: 60_000 },
  );
  if (inspect.exitCode !== 0) return false;
  const want = rootfsLayersId(cacheDir, options.suite ?? 'bookworm', options.toolchain ?? true);
  return inspect.output.trim() === want;
}

/**
 * Makes a Docker image from the cached Debian base + toolchain layers (creating them if needed):
 * the layers are mounted read-only as one overlay in a private mount namespace and streamed through
 * `tar --numeric-owner | docker import`. For machines where no registry is reachable (tests).
 */
export async function importRootfsImage(
  cacheDir: string,
  tag: string,
  options: {
    suite?: string;
    mirror?: string;
    /** Stack the toolchain layer (default); false imports the bare base, like a stock distribution image. */
    toolchain?: boolean;
    onProgress?: (message: string) => void;
    signal?: AbortSignal;
  } = {},
): Promise<void> {
  const suite = options.suite ?? 'bookworm';
  const toolchain = options.toolchain ?? true;
  const layers = await ensureRootfsLayers({
    cacheDir,
    suite,
    mirror: options.mirror ?? 'http://deb.debian.org/debian',
    toolchain,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const mountPoint = await mkdtemp(join(tmpdir(), 'bb-import-'));
  checkMountablePath(mountPoint, 'the temporary mount point');
  options.onProgress?.(
    `importing the Debian ${suite} ${toolchain ? 'toolchain' : 'base'} rootfs as Docker image ${tag}…`,
  );
  // A read-only overlay needs two lower layers; the bare base alone is archived as it is.
  const label = `${ROOTFS_LAYERS_LABEL}=${rootfsLayersId(cacheDir, suite, toolchain)}`;
  const script = [
    'set -euo pipefail',
    'src="$1"',
    'case "$1" in *:*) mount -t overlay overlay -o "ro,lowerdir=$1" "$2"; src="$2";; esac',
    `tar -C "$src" --numeric-owner -c . | docker import -c 'ENV PATH=${SANDBOX_PATH}' -c 'ENV LANG=C.UTF-8' -c "LABEL $4" - "$3"`,
  ].join('\n');
  try {
    const result = await runProcess(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '/bin/bash',
        '-c',
        script,
        'import',
        layers.lowerdirs.join(':'),
        mountPoint,
        tag,
        label,
      ],
      { timeoutMs: 30 * 60_000, ...(options.signal ? { signal: options.signal } : {}) },
    );
    if (result.cancelled) throw new CancelledError(`importing Docker image ${tag} was cancelled`);
    if (result.exitCode !== 0) {
      throw new SandboxError(
        `could not import the cached rootfs as Docker image ${tag} (exit code ${result.exitCode}):\n${tail(result.output)}`,
        'this needs root, overlayfs and a running Docker engine',
      );
    }
  } finally {
    // rmdir, never a recursive remove: if anything were still mounted there it must not be deleted.
    await rmdir(mountPoint).catch(() => undefined);
  }
}

/** How this machine passes its GPU to a container: CDI when the toolkit wrote a spec, else `--gpus all`. */
function dockerGpuRequest(): ReturnType<typeof dockerGpuArgs> {
  const cdiSpec = findCdiSpec();
  return dockerGpuArgs({ present: hostHasGpu(), ...(cdiSpec ? { cdiSpec } : {}), env: process.env });
}
