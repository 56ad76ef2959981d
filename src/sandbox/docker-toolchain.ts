/**
 * The docker backend's toolchain image: the sandbox's image plus the rootfs toolchain layer's packages
 * (TOOLCHAIN_SCRIPT, with apt-file's Contents lists) and, when a build cache is used, the build cache's setup
 * (BUILD_CACHE_SETUP_SCRIPT), made once per base image and reused by every later sandbox. A container from a
 * stock image used to install ccache at every start, fetch the package lists and apt-file's index for the
 * package look-ups before the first script, then install build-essential in that script: 30-40 s a build
 * that the rootfs backend pays once per machine.
 *
 * The image is made by buildbench from the base image's id and a fixed script, never from anything a
 * repository's build wrote: `docker build` of a two-line Dockerfile, tagged by the base id and the scripts'
 * hash (a changed base or package list makes another image; the labels say which). Its package lists are
 * copied to this machine once (`docker cp`), so the package look-ups read a host-side Contents index and the
 * package state dump (package-state.ts) as the rootfs backend's do. A process-wide lock per image keeps
 * concurrent first builds from making it twice; `docker build` tags atomically, so even two machines sharing
 * an engine leave one whole image. An image that cannot be made (no apt in it, no mirror reachable) is a
 * warning: the sandbox then runs on the base image as before.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CancelledError, SandboxError, errorMessage } from '../base/errors.js';
import { runProcess } from '../base/process.js';
import type { ProcessResult } from '../base/process.js';
import { BUILD_CACHE_SETUP_SCRIPT } from './build-cache.js';
import { TOOLCHAIN_PACKAGES, TOOLCHAIN_SCRIPT, withCreationLock } from './rootfs.js';

/** Bump when the way the image is made changes: every base gets a new one. */
const IMAGE_FORMAT = 1;
/** The repository of the tags (`buildbench-toolchain:<base id>-<scripts' hash>`). */
export const TOOLCHAIN_IMAGE_REPOSITORY = 'buildbench-toolchain';
/** Labels of a toolchain image: the base image's id and the hash of what was run on it. */
export const BASE_ID_LABEL = 'org.buildbench.toolchain.base';
export const SCRIPTS_LABEL = 'org.buildbench.toolchain.scripts';
const MAKE_TIMEOUT_MS = 45 * 60_000;

/** A toolchain image ready to run, with its package lists on this machine. */
export interface DockerToolchainImage {
  /** The tag containers are started from. */
  tag: string;
  /** Its image id (`sha256:…`). */
  id: string;
  /** The base image's id. */
  baseId: string;
  /** The build cache's setup is in the image (no command at each start). */
  buildCacheSetup: boolean;
  /** The host folder of this image: `lists/` (its /var/lib/apt/lists) and the indexes made from them. */
  cacheDir: string;
  listsDir: string;
  /** How long this call spent making the image and copying its lists (0: both were there). */
  madeMs: number;
  /** What was made (`image`, `lists`), for the report; empty when everything was reused. */
  made: string[];
}

/** What is run on the base, in order, and its hash (in the tag and a label). */
export function toolchainScripts(buildCacheSetup: boolean): { scripts: string[]; hash: string } {
  const scripts = [
    ['export DEBIAN_FRONTEND=noninteractive', TOOLCHAIN_SCRIPT].join('\n'),
    ...(buildCacheSetup ? [BUILD_CACHE_SETUP_SCRIPT] : []),
  ];
  const hash = createHash('sha256')
    .update(JSON.stringify({ IMAGE_FORMAT, scripts }))
    .digest('hex')
    .slice(0, 10);
  return { scripts, hash };
}

/** The tag of the toolchain image for a base image id. */
export function toolchainImageTag(baseId: string, buildCacheSetup: boolean): string {
  const hex = baseId.replace(/^sha256:/, '').slice(0, 12);
  return `${TOOLCHAIN_IMAGE_REPOSITORY}:${hex}-${toolchainScripts(buildCacheSetup).hash}`;
}

/**
 * The Dockerfile that makes the image: the base by a tag naming its id (BuildKit resolves a local tag,
 * not every version an id), the scripts as root, the base's user restored. Exec-form RUNs take the scripts
 * as JSON strings, byte for byte.
 */
export function toolchainDockerfile(baseTag: string, scripts: readonly string[], user: string): string {
  return [
    `FROM ${baseTag}`,
    'USER root',
    ...scripts.map((script) => `RUN ${JSON.stringify(['/bin/sh', '-c', script])}`),
    ...(user !== '' && user !== 'root' && user !== '0' ? [`USER ${user}`] : []),
    '',
  ].join('\n');
}

function docker(args: string[], timeoutMs: number, signal?: AbortSignal): Promise<ProcessResult> {
  return runProcess('docker', args, { timeoutMs, ...(signal ? { signal } : {}) });
}

function tail(text: string, n = 15): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** The image id and labels of `ref`, or undefined when there is no such image. */
async function inspectImage(
  ref: string,
): Promise<{ id: string; base: string; scripts: string; user: string } | undefined> {
  const format = `{{.Id}}|{{index .Config.Labels "${BASE_ID_LABEL}"}}|{{index .Config.Labels "${SCRIPTS_LABEL}"}}|{{.Config.User}}`;
  const result = await docker(['image', 'inspect', '--format', format, ref], 60_000);
  if (result.exitCode !== 0) return undefined;
  const [id = '', base = '', scripts = '', user = ''] = result.output.trim().split('|');
  return id.startsWith('sha256:') ? { id, base, scripts, user } : undefined;
}

/** The host folder of a toolchain image (by its id: an image made again elsewhere gets its own). */
export function toolchainImageDir(cacheDir: string, imageId: string): string {
  return join(cacheDir, 'docker', imageId.replace(/^sha256:/, '').slice(0, 16));
}

/** The toolchain images this process has made sure of, by tag (an image inspect each later sandbox). */
const ensured = new Map<string, DockerToolchainImage>();

/** Tags this process could not make, with why: tried once per process, not at every sandbox. */
const failed = new Map<string, string>();

/**
 * The toolchain image over the image `baseId` (made when missing), its package lists on this machine.
 * Throws SandboxError when it cannot be made (the caller runs the base image instead, with a warning).
 */
export async function ensureToolchainImage(options: {
  baseId: string;
  cacheDir: string;
  buildCacheSetup: boolean;
  /** Passed to `docker build` as build arguments (apt behind a proxy); never stored in the image. */
  proxyEnv?: Record<string, string>;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}): Promise<DockerToolchainImage> {
  const { baseId, cacheDir, buildCacheSetup } = options;
  const { scripts, hash } = toolchainScripts(buildCacheSetup);
  const tag = toolchainImageTag(baseId, buildCacheSetup);
  const known = ensured.get(tag);
  const current = await inspectImage(tag);
  const usable = current && current.base === baseId && current.scripts === hash ? current : undefined;
  if (known && usable?.id === known.id && existsSync(join(known.cacheDir, 'READY')))
    return { ...known, madeMs: 0, made: [] };
  const whyNot = failed.get(tag);
  if (whyNot !== undefined && !usable) throw new SandboxError(whyNot);
  if (usable) {
    const ready = await readyImage(tag, usable.id, baseId, cacheDir, buildCacheSetup);
    if (ready) {
      ensured.set(tag, ready);
      return ready;
    }
  }
  const started = Date.now();
  const lockDir = join(cacheDir, 'docker', `.lock-${tag.replace(/[^a-z0-9-]/g, '-')}`);
  await mkdir(join(cacheDir, 'docker'), { recursive: true });
  const made: string[] = [];
  const image = await withCreationLock(lockDir, `the toolchain image ${tag}`, options, async () => {
    let inside = await inspectImage(tag);
    if (!inside || inside.base !== baseId || inside.scripts !== hash) {
      try {
        await buildImage({ ...options, tag, scripts, hash });
      } catch (error) {
        if (!(error instanceof CancelledError)) failed.set(tag, errorMessage(error));
        throw error;
      }
      made.push('image');
      inside = await inspectImage(tag);
      if (!inside) throw new SandboxError(`docker build made no image ${tag}`);
    }
    const ready = await readyImage(tag, inside.id, baseId, cacheDir, buildCacheSetup);
    if (ready) return ready;
    await copyLists(tag, inside.id, cacheDir, options.signal);
    made.push('lists');
    const copied = await readyImage(tag, inside.id, baseId, cacheDir, buildCacheSetup);
    if (!copied) throw new SandboxError(`the package lists of ${tag} were copied but cannot be read`);
    return copied;
  });
  const result = { ...image, madeMs: Date.now() - started, made };
  ensured.set(tag, { ...result, madeMs: 0, made: [] });
  return result;
}

/** The image as ready when its lists were copied from this very image id. */
async function readyImage(
  tag: string,
  id: string,
  baseId: string,
  cacheDir: string,
  buildCacheSetup: boolean,
): Promise<DockerToolchainImage | undefined> {
  const dir = toolchainImageDir(cacheDir, id);
  const text = await readFile(join(dir, 'READY'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const ready = JSON.parse(text) as { id?: unknown };
    if (ready.id !== id) return undefined;
  } catch {
    return undefined;
  }
  return {
    tag,
    id,
    baseId,
    buildCacheSetup,
    cacheDir: dir,
    listsDir: join(dir, 'lists'),
    madeMs: 0,
    made: [],
  };
}

/** `docker build` of the toolchain Dockerfile over the base, tagged `tag` with its labels. */
async function buildImage(options: {
  baseId: string;
  tag: string;
  scripts: string[];
  hash: string;
  proxyEnv?: Record<string, string>;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}): Promise<void> {
  const { baseId, tag, scripts, hash } = options;
  const base = await inspectImage(baseId);
  if (!base) throw new SandboxError(`the base image ${baseId} is gone`);
  // A local tag naming the id: what FROM resolves without a registry, whichever builder the engine has.
  const baseTag = `${TOOLCHAIN_IMAGE_REPOSITORY}-base:${baseId.replace(/^sha256:/, '').slice(0, 12)}`;
  const tagged = await docker(['tag', baseId, baseTag], 60_000);
  if (tagged.exitCode !== 0)
    throw new SandboxError(`docker tag ${baseId} ${baseTag} failed:\n${tail(tagged.output)}`);
  const context = await mkdtemp(join(tmpdir(), 'bb-toolchain-image-'));
  options.onProgress?.(
    `making the toolchain image ${tag} (${TOOLCHAIN_PACKAGES.length} packages over ${baseTag}; first build over this image only, later builds reuse it)…`,
  );
  const started = Date.now();
  const timer = options.onProgress
    ? setInterval(
        () =>
          options.onProgress?.(
            `still making the toolchain image ${tag} (${Math.round((Date.now() - started) / 1000)} s so far)`,
          ),
        30_000,
      )
    : undefined;
  try {
    await writeFile(join(context, 'Dockerfile'), toolchainDockerfile(baseTag, scripts, base.user));
    const args = [
      'build',
      '--tag',
      tag,
      '--label',
      `${BASE_ID_LABEL}=${baseId}`,
      '--label',
      `${SCRIPTS_LABEL}=${hash}`,
      ...Object.entries(options.proxyEnv ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
      context,
    ];
    const result = await docker(args, MAKE_TIMEOUT_MS, options.signal);
    if (result.cancelled) throw new CancelledError(`making the toolchain image ${tag} was cancelled`);
    if (result.exitCode !== 0) {
      throw new SandboxError(
        `could not make the toolchain image ${tag} over ${baseId} (${result.timedOut ? 'timed out' : `exit code ${result.exitCode}`}):\n${tail(result.output)}`,
        'the image needs apt-get and a reachable package mirror; BUILDBENCH_DOCKER_TOOLCHAIN=off runs the image as it is',
      );
    }
    options.onProgress?.(`made the toolchain image ${tag} in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    if (timer) clearInterval(timer);
    await rm(context, { recursive: true, force: true });
  }
}

/** Copies the image's /var/lib/apt/lists to its host folder (`docker create` + `docker cp`), then READY. */
async function copyLists(tag: string, id: string, cacheRoot: string, signal?: AbortSignal): Promise<void> {
  const dir = toolchainImageDir(cacheRoot, id);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.lists.tmp-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  const created = await docker(['create', tag, 'true'], 60_000, signal);
  const container = created.output.trim().split('\n').pop() ?? '';
  if (created.exitCode !== 0 || !/^[0-9a-f]{12,64}$/.test(container)) {
    throw new SandboxError(`docker create ${tag} failed:\n${tail(created.output)}`);
  }
  try {
    const copied = await docker(['cp', `${container}:/var/lib/apt/lists`, tmp], 10 * 60_000, signal);
    if (copied.exitCode !== 0) {
      throw new SandboxError(`could not copy the package lists out of ${tag}:\n${tail(copied.output)}`);
    }
  } finally {
    await docker(['rm', '-f', container], 60_000).catch(() => undefined);
  }
  await rm(join(dir, 'lists'), { recursive: true, force: true });
  await rename(tmp, join(dir, 'lists'));
  await writeFile(join(dir, 'READY'), `${JSON.stringify({ id, tag })}\n`);
}
