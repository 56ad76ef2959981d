/** Picks and creates a sandbox backend from the settings (`auto` = docker, else rootfs; never silently the host). */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

import { ConfigError, SandboxError } from '../base/errors.js';
import { createDockerSandbox, dockerAnswers } from './docker.js';
import { createHostSandbox } from './host.js';
import { withHostNetwork } from './host-network.js';
import { readHostTrust } from './trust.js';
import { createRootfsSandbox, rootfsMissingPackages, rootfsProblems } from './rootfs.js';
import { checkMountablePath, findExecutable } from './common.js';
import type { CredentialsRemoval } from './git-credentials.js';
import { withOutputPolicy } from './output-policy.js';
import { DEFAULT_PIDS_LIMIT, defaultMemoryLimit } from './isolation.js';
import { runProcess } from '../base/process.js';
import { ensureSandboxFolders, markKeptOnDispose, sweepWorkRoot } from './work-dirs.js';
import {
  SANDBOX_CHOICES,
  type CreateSandboxRequest,
  type Sandbox,
  type SandboxChoice,
  type SandboxKind,
  type SandboxSettings,
} from './types.js';

export const DEFAULT_DOCKER_IMAGE = 'ubuntu:22.04';
export const DEFAULT_SUITE = 'bookworm';
export const DEFAULT_MIRROR = 'http://deb.debian.org/debian';

/** What `auto` looks at; injectable for tests. */
export interface SandboxProbes {
  dockerAnswers(): Promise<boolean>;
  rootfsProblems(settings: SandboxSettings): Promise<string[]>;
  /** Host packages the rootfs backend lacks here (installed with apt-get when root). */
  rootfsMissingPackages(settings: SandboxSettings): Promise<string[]>;
}

export const defaultProbes: SandboxProbes = {
  dockerAnswers: () => dockerAnswers(5000),
  rootfsProblems: (settings) => rootfsProblems(settings),
  rootfsMissingPackages: (settings) => rootfsMissingPackages(settings),
};

function absoluteDir(value: string, variable: string, home: string): string {
  const expanded = value === '~' ? home : value.startsWith('~/') ? join(home, value.slice(2)) : value;
  if (!isAbsolute(expanded)) {
    throw new ConfigError(
      `${variable}=${value} is not an absolute path`,
      `set ${variable} to an absolute folder`,
    );
  }
  return resolve(expanded);
}

/**
 * Settings from the environment: BUILDBENCH_CACHE_DIR (default ~/.cache/buildbench), BUILDBENCH_WORK_DIR
 * (default <cache>/work), BUILDBENCH_BUILD_CACHE (a folder, or `off`; default <cache>/build-cache),
 * BUILDBENCH_DOCKER_TOOLCHAIN (`off`: the docker backend runs the image as it is, no toolchain image); the host
 * backend is allowed when CI=true. Flags may override the result.
 */
export function defaultSandboxSettings(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const home = env.HOME || homedir();
  const cacheDir = env.BUILDBENCH_CACHE_DIR
    ? absoluteDir(env.BUILDBENCH_CACHE_DIR, 'BUILDBENCH_CACHE_DIR', home)
    : join(home, '.cache', 'buildbench');
  const workRoot = env.BUILDBENCH_WORK_DIR
    ? absoluteDir(env.BUILDBENCH_WORK_DIR, 'BUILDBENCH_WORK_DIR', home)
    : join(cacheDir, 'work');
  const buildCache = buildCacheFrom(env.BUILDBENCH_BUILD_CACHE, 'BUILDBENCH_BUILD_CACHE', cacheDir, { home });
  return {
    choice: 'auto',
    image: env.BUILDBENCH_IMAGE || DEFAULT_DOCKER_IMAGE,
    ...(['off', 'none', 'false', 'no', '0'].includes(
      (env.BUILDBENCH_DOCKER_TOOLCHAIN ?? '').trim().toLowerCase(),
    )
      ? { dockerToolchain: false }
      : {}),
    cacheDir,
    suite: env.BUILDBENCH_SUITE || DEFAULT_SUITE,
    mirror: env.BUILDBENCH_MIRROR || DEFAULT_MIRROR,
    workRoot,
    allowHost: env.CI === 'true',
    ...(buildCache ? { buildCache } : {}),
    memoryBytes: defaultMemoryLimit(),
    pids: DEFAULT_PIDS_LIMIT,
  };
}

/**
 * The build cache folder from a flag or variable: `off` (or `none`, `false`, `no`) turns it off, a path
 * names it (relative to `cwd` when given, else it must be absolute or start with `~/`), nothing means
 * `<cacheDir>/build-cache`. `what` names the flag or variable in errors.
 */
export function buildCacheFrom(
  value: string | undefined,
  what: string,
  cacheDir: string,
  where: { home?: string; cwd?: string } = {},
): string | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return join(cacheDir, 'build-cache');
  if (['off', 'none', 'false', 'no'].includes(text.toLowerCase())) return undefined;
  const home = where.home ?? (process.env.HOME || homedir());
  const dir = absoluteDir(where.cwd && !text.startsWith('~') ? resolve(where.cwd, text) : text, what, home);
  checkMountablePath(dir, what);
  return dir;
}

/** Checks a `--sandbox` value. */
export function parseSandboxChoice(value: string): SandboxChoice {
  if ((SANDBOX_CHOICES as readonly string[]).includes(value)) return value as SandboxChoice;
  throw new ConfigError(
    `unknown sandbox ${JSON.stringify(value)}`,
    `expected one of ${SANDBOX_CHOICES.join(', ')}`,
  );
}

/**
 * The backend to use. `auto`: docker when an engine answers `docker info` within a few seconds, else rootfs
 * when this machine can run it, else an error saying how to enable one. Never the host unless chosen.
 */
export async function resolveSandboxKind(
  settings: SandboxSettings,
  probes: SandboxProbes = defaultProbes,
): Promise<SandboxKind> {
  switch (settings.choice) {
    case 'docker':
    case 'rootfs':
      return settings.choice;
    case 'host':
      if (!settings.allowHost) {
        throw new ConfigError(
          'the host sandbox runs build commands directly on this machine and was not allowed',
          'pass --sandbox host explicitly (allowed by default only in CI), or use --sandbox rootfs or docker',
        );
      }
      return 'host';
    case 'auto': {
      if (await probes.dockerAnswers()) return 'docker';
      const problems = await probes.rootfsProblems(settings);
      if (problems.length === 0) return 'rootfs';
      throw new SandboxError(
        `no sandbox is available: no Docker engine answers \`docker info\`, and the rootfs sandbox cannot run (${problems.join('; ')})`,
        'start a Docker engine, or install debootstrap and run as root for the rootfs sandbox, or pass --sandbox host in CI or on a throwaway machine',
      );
    }
    default: {
      const never: never = settings.choice;
      throw new ConfigError(
        `unknown sandbox ${JSON.stringify(never)}`,
        `expected one of ${SANDBOX_CHOICES.join(', ')}`,
      );
    }
  }
}

/**
 * On a fresh Debian/Ubuntu machine the rootfs backend lacks only host packages (bubblewrap, slirp4netns,
 * debootstrap): as root with apt-get, install them (with visible progress) so the embedded default works in
 * one command. Returns true when every one of them is there afterwards.
 */
export async function installRootfsTools(
  packages: string[],
  request: CreateSandboxRequest,
): Promise<boolean> {
  if (packages.length === 0) return true;
  if (process.getuid?.() !== 0 || !(await findExecutable('apt-get'))) return false;
  request.onProgress?.(
    `installing ${packages.join(', ')} with apt-get (first run only; the rootfs sandbox needs them)…`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): Promise<number> =>
    runProcess('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
      timeoutMs: 10 * 60_000,
      env,
      signal: request.signal,
    }).then((r) => r.exitCode);
  if ((await install()) !== 0) {
    await runProcess('apt-get', ['update', '-q'], { timeoutMs: 10 * 60_000, env, signal: request.signal });
    if ((await install()) !== 0) return false;
  }
  return true;
}

/**
 * A fresh sandbox of the resolved kind with a copy of `request.repoDir` in its working directory. The copy's
 * git configuration has no credentials left (git-credentials.ts; `credentialsRemoved` names what went), and
 * every command's output is redacted and its log bounded by `settings.output` (output-policy.ts).
 */
export async function createSandbox(
  settings: SandboxSettings,
  request: CreateSandboxRequest,
  probes: SandboxProbes = defaultProbes,
): Promise<Sandbox> {
  await ensureSandboxFolders(settings);
  await sweepWorkRoot(settings.workRoot, request.onProgress);
  let removed: string[] = [];
  // The backend strips the copy's credentials as soon as it is copied (copyRepository); the values join
  // the redactor before any command's output is read.
  const onCopied = (credentials: CredentialsRemoval): void => {
    removed = credentials.removed;
    if (credentials.values.length > 0) settings.output?.addSecrets?.(credentials.values);
    for (const note of credentials.notes) request.onProgress?.(`repository copy: ${note}`);
    request.onCopied?.(credentials);
  };
  // This machine's extra CA certificates: the rootfs backend bakes them into a cached layer (no command in
  // each sandbox); docker gets them installed by withHostNetwork's commands; the host backend needs none.
  const trust = settings.choice === 'host' ? undefined : readHostTrust(process.env);
  const inner = markKeptOnDispose(
    await createBackend(
      settings,
      {
        ...request,
        onCopied,
        ...(trust && trust.certificates.length > 0 ? { hostCertificates: trust.certificates } : {}),
      },
      probes,
    ),
    settings.workRoot,
  );
  const networked =
    inner.kind === 'host'
      ? inner
      : await withHostNetwork(inner, {
          signal: request.signal,
          ...(trust ? { trust } : {}),
          trustInstalled: inner.hostCertificatesInstalled === true,
        });
  return withOutputPolicy(networked, settings.output ?? {}, removed);
}

async function createBackend(
  settings: SandboxSettings,
  request: CreateSandboxRequest,
  probes: SandboxProbes,
): Promise<Sandbox> {
  if (settings.choice === 'rootfs' || (settings.choice === 'auto' && !(await probes.dockerAnswers()))) {
    const missing = await probes.rootfsMissingPackages(settings);
    if (missing.length > 0) await installRootfsTools(missing, request);
  }
  const kind = await resolveSandboxKind(settings, probes);
  switch (kind) {
    case 'docker':
      try {
        return await createDockerSandbox(settings, request);
      } catch (error) {
        // `auto` found an engine but not the image (no registry here, say): the rootfs sandbox still works.
        if (settings.choice !== 'auto' || !(error instanceof SandboxError) || request.signal?.aborted)
          throw error;
        if ((await probes.rootfsProblems(settings)).length > 0) throw error;
        request.onProgress?.(
          `the docker sandbox is not usable (${error.message.split('\n')[0]}); using the rootfs sandbox instead`,
        );
        return createRootfsSandbox(settings, request);
      }
    case 'rootfs':
      return createRootfsSandbox(settings, request);
    case 'host':
      return createHostSandbox(settings, request);
  }
}
