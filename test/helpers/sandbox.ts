/**
 * Shared settings for the sandbox integration tests. They use the default cache (BUILDBENCH_CACHE_DIR or
 * ~/.cache/buildbench), so the Debian base and the toolchain layer are built once and reused across test
 * files and runs.
 */
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { defaultSandboxSettings } from '../../src/sandbox/factory.js';
import { dockerAnswers, importRootfsImage, isCurrentRootfsImage } from '../../src/sandbox/docker.js';
import { rootfsProblems } from '../../src/sandbox/rootfs.js';
import type { Sandbox, SandboxChoice, SandboxSettings } from '../../src/sandbox/types.js';

/** Creating the base (~40 s-2 min) and the toolchain layer (~40 s-2 min) on a cold cache. */
export const LAYER_CREATION_TIMEOUT_MS = 15 * 60_000;

export const TEST_DOCKER_IMAGE =
  process.env.BUILDBENCH_TEST_DOCKER_IMAGE ?? 'buildbench/bookworm-toolchain:test';

export function sandboxTestSettings(
  choice: SandboxChoice,
  overrides: Partial<SandboxSettings> = {},
): SandboxSettings {
  return { ...defaultSandboxSettings(process.env), choice, ...overrides };
}

/** Why the rootfs backend cannot run here ('' when it can). */
export async function rootfsUnavailableReason(): Promise<string> {
  return (await rootfsProblems(sandboxTestSettings('rootfs'))).join('; ');
}

/**
 * Which backends the integration tests can use here: why rootfs cannot run ('' when it can), and whether a
 * Docker engine answers. BUILDBENCH_REQUIRE_ROOTFS=1 / BUILDBENCH_REQUIRE_DOCKER=1 (CI) turn a missing
 * backend into an error instead of skipped tests.
 */
export async function sandboxBackendsHere(): Promise<{ rootfsUnavailable: string; dockerUp: boolean }> {
  const rootfsUnavailable = await rootfsUnavailableReason();
  if (rootfsUnavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
    throw new Error(
      `BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${rootfsUnavailable}`,
    );
  }
  return { rootfsUnavailable, dockerUp: await dockerHere() };
}

/** Whether a Docker engine answers; with BUILDBENCH_REQUIRE_DOCKER=1 (CI) a missing one is an error. */
export async function dockerHere(): Promise<boolean> {
  const dockerUp = await dockerAnswers(5000);
  if (!dockerUp && process.env.BUILDBENCH_REQUIRE_DOCKER === '1') {
    throw new Error('BUILDBENCH_REQUIRE_DOCKER=1 but no Docker engine answers `docker info`');
  }
  return dockerUp;
}

/** A tiny repository with a .git folder and a source file. */
export async function makeFixtureRepo(): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'bb-sandbox-fixture-'));
  await mkdir(join(repo, '.git'));
  await writeFile(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await mkdir(join(repo, 'src'));
  await writeFile(
    join(repo, 'src', 'hello.c'),
    '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n',
  );
  await writeFile(join(repo, 'README.md'), '# fixture\n');
  return repo;
}

/** Host mount points at or below `dir` (this process's view, i.e. the host's). */
export function hostMountsUnder(dir: string): string[] {
  const prefix = resolve(dir);
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mountPoint) => mountPoint === prefix || mountPoint.startsWith(`${prefix}/`));
}

/** Command lines of host processes that contain `marker`. */
export function hostProcessesWith(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !/^\s*\d+\s+Z/.test(line) && !line.includes('ps -eo'));
}

/** Polls until `check` is true or `ms` pass. */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/**
 * Makes sure the docker test image exists and is current, importing it from the cached rootfs when it is the
 * default one. An engine keeps its images between runs: one imported from an older toolchain layer (other
 * packages) is stale, and is imported again.
 */
export async function ensureTestDockerImage(): Promise<void> {
  if (TEST_DOCKER_IMAGE !== 'buildbench/bookworm-toolchain:test') return;
  const cacheDir = sandboxTestSettings('rootfs').cacheDir;
  if (await isCurrentRootfsImage(TEST_DOCKER_IMAGE, cacheDir)) return;
  await importRootfsImage(cacheDir, TEST_DOCKER_IMAGE, { onProgress: (m) => console.log(m) });
}

/** A stock-like image: the bare Debian base, no compiler, no package lists, no apt-file. */
export const BARE_DOCKER_IMAGE = 'buildbench/bookworm-bare:test';

export async function ensureBareDockerImage(): Promise<void> {
  const cacheDir = sandboxTestSettings('rootfs').cacheDir;
  if (await isCurrentRootfsImage(BARE_DOCKER_IMAGE, cacheDir, { toolchain: false })) return;
  await importRootfsImage(cacheDir, BARE_DOCKER_IMAGE, {
    toolchain: false,
    onProgress: (m) => console.log(m),
  });
}

/**
 * What every backend does with ExecOptions.epilogue: it runs in the same command after a script that exits 0
 * (also by `exit 0`), sees the tree as the script left it, and adds nothing to the result (its output and
 * status are not the command's); after a failed script it does not run, and a later command runs alone.
 */
export async function expectEpilogueRuns(sandbox: Sandbox): Promise<void> {
  const saw = join(sandbox.hostWorkdir, '.epilogue-saw');
  const epilogue = 'echo from-epilogue; ls made-by-script > .epilogue-saw; exit 7';
  const ok = await sandbox.exec('echo built; touch made-by-script', { timeoutMs: 30_000, epilogue });
  expect([ok.exitCode, ok.output]).toEqual([0, 'built\n']);
  expect(readFileSync(saw, 'utf8')).toBe('made-by-script\n');
  const explicit = await sandbox.exec('rm -f .epilogue-saw; exit 0', { timeoutMs: 30_000, epilogue });
  expect(explicit.exitCode).toBe(0);
  expect(existsSync(saw)).toBe(true);
  const failed = await sandbox.exec('rm -f .epilogue-saw; exit 3', { timeoutMs: 30_000, epilogue });
  expect(failed.exitCode).toBe(3);
  expect(existsSync(saw)).toBe(false);
  const alone = await sandbox.exec('echo alone', { timeoutMs: 30_000 });
  expect(alone.output).toBe('alone\n');
  expect(existsSync(saw)).toBe(false);
}
