/**
 * The docker backend against a running engine. Without one the tests are skipped with a note, or fail when
 * BUILDBENCH_REQUIRE_DOCKER=1. The image is BUILDBENCH_TEST_DOCKER_IMAGE, default
 * buildbench/bookworm-toolchain:test, imported from the cached rootfs when missing (no registry needed).
 * To try it on a machine without systemd: `dockerd --data-root /var/lib/docker >/tmp/dockerd.log 2>&1 &`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SandboxError } from '../../src/base/errors.js';
import { createServices } from '../../src/knowledge/index.js';
import { ensurePackageState, packageStateFile } from '../../src/knowledge/repair/package-state.js';
import {
  BASE_ID_LABEL,
  ensureToolchainImage,
  toolchainImageTag,
} from '../../src/sandbox/docker-toolchain.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import {
  createDockerSandbox,
  docker,
  ensureDockerImage,
  isCurrentRootfsImage,
  ROOTFS_LAYERS_LABEL,
  type DockerSandbox,
} from '../../src/sandbox/docker.js';
import {
  dockerHere,
  ensureTestDockerImage,
  eventually,
  expectEpilogueRuns,
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  sandboxTestSettings,
  TEST_DOCKER_IMAGE,
} from '../helpers/sandbox.js';

const answers = await dockerHere();
if (!answers)
  console.warn(
    'skipping the docker sandbox tests: no Docker engine answers `docker info` (set BUILDBENCH_REQUIRE_DOCKER=1 to fail instead)',
  );
const describeDocker = answers ? describe : describe.skip;

const settings = sandboxTestSettings('docker', { image: TEST_DOCKER_IMAGE });

async function containerExists(name: string): Promise<boolean> {
  return (await docker(['container', 'inspect', name], { timeoutMs: 30_000 })).exitCode === 0;
}

/** Processes inside the container other than its init, sleep infinity and the ps itself. */
async function processesInside(sandbox: DockerSandbox): Promise<string[]> {
  const result = await docker(['exec', sandbox.container, 'ps', '-eo', 'args='], { timeoutMs: 30_000 });
  return result.output
    .split('\n')
    .filter((line) => line && !/^(\/sbin\/docker-init|sleep infinity|ps -eo)/.test(line));
}

describeDocker('docker sandbox', () => {
  let repo: string;
  let sandbox: DockerSandbox;

  beforeAll(async () => {
    repo = await makeFixtureRepo();
    await ensureTestDockerImage();
    await ensureDockerImage(TEST_DOCKER_IMAGE);
    sandbox = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-int' });
  }, LAYER_CREATION_TIMEOUT_MS);

  afterAll(async () => {
    await sandbox?.dispose();
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('tells an image imported from the current rootfs layers from a stale one', async () => {
    const cacheDir = sandboxTestSettings('rootfs').cacheDir;
    expect(await isCurrentRootfsImage(TEST_DOCKER_IMAGE, cacheDir)).toBe(true);
    // An engine keeps images between runs: one from an older toolchain layer carries another label.
    const stale = 'buildbench/stale-label:test';
    const created = await docker(['create', TEST_DOCKER_IMAGE, 'true']);
    expect(created.exitCode).toBe(0);
    const id = created.output.trim().split('\n').pop()!;
    try {
      const commit = await docker([
        'commit',
        '--change',
        `LABEL ${ROOTFS_LAYERS_LABEL}=debian-bookworm/toolchain-0000000000`,
        id,
        stale,
      ]);
      expect(commit.exitCode).toBe(0);
      expect(await isCurrentRootfsImage(stale, cacheDir)).toBe(false);
      expect(await isCurrentRootfsImage('buildbench/no-such-image:test', cacheDir)).toBe(false);
    } finally {
      await docker(['rm', '-f', id]);
      await docker(['rmi', '-f', stale]);
    }
  });

  it('describes itself', () => {
    expect(sandbox.kind).toBe('docker');
    expect(sandbox.image).toBe(TEST_DOCKER_IMAGE);
    expect(sandbox.workdir).toBe('/workspace');
    expect(sandbox.container).toBe(`bb-${sandbox.id}`);
    expect(sandbox.describeLocation()).toContain(sandbox.hostWorkdir);
  });

  it('passes exit codes and output through, in /workspace with the .git folder', async () => {
    const result = await sandbox.exec('pwd; cat .git/HEAD; exit 4', { timeoutMs: 30_000 });
    expect(result.exitCode).toBe(4);
    expect(result.output).toBe('/workspace\nref: refs/heads/main\n');
    const sub = await sandbox.exec('pwd; touch made-inside', { timeoutMs: 30_000, cwd: 'src' });
    expect(sub.output).toBe('/workspace/src\n');
    expect(existsSync(join(sandbox.hostWorkdir, 'src', 'made-inside'))).toBe(true);
    expect(existsSync(join(repo, 'src', 'made-inside'))).toBe(false);
  });

  it('runs an epilogue after a script that exits 0, in the same command, its output and status not the result', async () => {
    await expectEpilogueRuns(sandbox);
  });

  it('lets only the allowlist and the given variables in', async () => {
    process.env.BB_PLANTED_SECRET = 'planted-secret-value';
    try {
      const result = await sandbox.exec('env', { timeoutMs: 30_000, env: { CC: 'gcc' } });
      expect(result.output).not.toContain('planted-secret-value');
      expect(result.output).toContain('CC=gcc');
      expect(result.output).toContain('DEBIAN_FRONTEND=noninteractive');
      expect(result.output).toContain('HOME=/root');
    } finally {
      delete process.env.BB_PLANTED_SECRET;
    }
  });

  it('keeps system changes across exec calls', async () => {
    await sandbox.exec('echo persisted > /usr/local/share/bb-state', { timeoutMs: 30_000 });
    const read = await sandbox.exec('cat /usr/local/share/bb-state', { timeoutMs: 30_000 });
    expect(read.output).toBe('persisted\n');
  });

  it('kills the command tree inside the container on timeout', async () => {
    const result = await sandbox.exec('sleep 3201 & sleep 3202', { timeoutMs: 1500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(await eventually(() => true)).toBe(true);
    expect((await processesInside(sandbox)).filter((p) => p.includes('sleep 320'))).toEqual([]);
  });

  it('caps the output', async () => {
    const result = await sandbox.exec('seq 1 200000', { timeoutMs: 60_000 });
    expect(result.truncated).toBe(true);
    expect(result.output).toMatch(/^1\n2\n[\s\S]*\n200000\n$/);
    expect(result.output.length).toBeLessThan(100_000 + 200);
  });
});

describeDocker('docker sandbox lifecycle', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
  });
  afterAll(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('cancel removes the container; later commands say so', async () => {
    const sandbox = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-cancel' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1000);
    const result = await sandbox.exec('sleep 3203', { timeoutMs: 60_000, signal: controller.signal });
    expect(result.cancelled).toBe(true);
    expect(await containerExists(sandbox.container)).toBe(false);
    await expect(sandbox.exec('true', { timeoutMs: 1000 })).rejects.toBeInstanceOf(SandboxError);
    await sandbox.dispose();
    expect(existsSync(join(settings.workRoot, sandbox.id))).toBe(false);
  });

  it('dispose removes the container and the working copy; keep keeps the working copy', async () => {
    const gone = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-gone' });
    expect(await containerExists(gone.container)).toBe(true);
    await gone.dispose();
    await gone.dispose();
    expect(await containerExists(gone.container)).toBe(false);
    expect(existsSync(join(settings.workRoot, gone.id))).toBe(false);

    const kept = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-kept' });
    await kept.exec('echo kept > out.txt', { timeoutMs: 30_000 });
    await kept.dispose({ keep: true });
    expect(await containerExists(kept.container)).toBe(false);
    expect(readFileSync(join(kept.hostWorkdir, 'out.txt'), 'utf8')).toBe('kept\n');
    await rm(join(settings.workRoot, kept.id), { recursive: true, force: true });
  });

  it('says clearly when the image cannot be had', async () => {
    await expect(
      createDockerSandbox(
        { ...settings, image: 'buildbench/does-not-exist:never' },
        { repoDir: repo, name: 'x' },
      ),
    ).rejects.toThrow(/docker pull buildbench\/does-not-exist:never/);
  }, 120_000);
});

describeDocker('docker toolchain image', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
    await ensureTestDockerImage();
  });
  afterAll(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  /** `sandbox` with its commands counted. */
  function counted(sandbox: Sandbox): { box: Sandbox; scripts: string[] } {
    const scripts: string[] = [];
    const box = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'exec')
          return (script: string, options: Parameters<Sandbox['exec']>[1]) => {
            scripts.push(script);
            return target.exec(script, options);
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { box, scripts };
  }

  it(
    'is made once over the base, reused by later sandboxes, and the package look-ups read its state on the host',
    async () => {
      const first = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-tc-1' });
      let second: DockerSandbox | undefined;
      try {
        const baseId = await ensureDockerImage(TEST_DOCKER_IMAGE);
        const tag = toolchainImageTag(baseId, settings.buildCache !== undefined);
        expect(first.image).toBe(TEST_DOCKER_IMAGE);
        expect(first.runImage).toBe(tag);
        expect(first.derivedImage).toMatchObject({ tag, baseId });
        const label = await docker([
          'image',
          'inspect',
          '--format',
          `{{index .Config.Labels "${BASE_ID_LABEL}"}}`,
          tag,
        ]);
        expect(label.output.trim()).toBe(baseId);
        const inside = await first.exec('command -v cc ccache apt-file | wc -l', { timeoutMs: 30_000 });
        expect(inside.output.trim()).toBe('3');

        second = await createDockerSandbox(settings, { repoDir: repo, name: 'docker-tc-2' });
        expect(second.derivedImage).toEqual({ tag, id: first.derivedImage!.id, baseId });

        // The package lists are on this machine, with apt-file's Contents files.
        const lists = second.packageLists!;
        expect(readdirSync(lists.listsDir).some((f) => /Contents-.*\.lz4$/.test(f))).toBe(true);
        expect(lists.asImage()).toBe(true);
        expect(await ensurePackageState(second)).toBe(true);
        expect(existsSync(packageStateFile(lists))).toBe(true);
        // Answered on the host: no command in the sandbox.
        const { box, scripts } = counted(second);
        const services = createServices(box);
        const status = await services.packageStatus!(['build-essential', 'libz-dev-no-such-package']);
        expect(status.get('build-essential')).toBe('installed');
        expect(await services.knownPackages!(['zlib1g-dev', 'no-such-package-here'])).toEqual(['zlib1g-dev']);
        const resolved = await services.resolvePackages!([{ kind: 'header', name: 'zlib.h' }]);
        expect(resolved[0]?.package).toBe('zlib1g-dev');
        expect(scripts).toEqual([]);
        // A command that changes the package database ends the image's answers.
        await second.exec('touch /var/lib/dpkg/buildbench-changed', { timeoutMs: 30_000 });
        expect(lists.asImage()).toBe(false);
      } finally {
        await first.dispose();
        await second?.dispose();
      }
    },
    LAYER_CREATION_TIMEOUT_MS,
  );

  it(
    'a changed base image gets a new toolchain image; the old one stays for the old base',
    async () => {
      const oldBase = await ensureDockerImage(TEST_DOCKER_IMAGE);
      const created = await docker(['create', TEST_DOCKER_IMAGE, 'true']);
      expect(created.exitCode).toBe(0);
      const container = created.output.trim().split('\n').pop()!;
      const changed = 'buildbench/changed-base:test';
      const cacheDir = await mkdtemp(join(tmpdir(), 'bb-docker-toolchain-'));
      let newBase: string | undefined;
      try {
        expect((await docker(['commit', '--change', 'LABEL changed=1', container, changed])).exitCode).toBe(
          0,
        );
        newBase = await ensureDockerImage(changed);
        expect(newBase).not.toBe(oldBase);
        const made = await ensureToolchainImage({ baseId: newBase, cacheDir, buildCacheSetup: false });
        expect(made.tag).toBe(toolchainImageTag(newBase, false));
        expect(made.tag).not.toBe(toolchainImageTag(oldBase, false));
        expect(made.made).toEqual(['image', 'lists']);
        expect(made.madeMs).toBeGreaterThan(0);
        const again = await ensureToolchainImage({ baseId: newBase, cacheDir, buildCacheSetup: false });
        expect(again).toMatchObject({ id: made.id, made: [], madeMs: 0 });
      } finally {
        await docker(['rm', '-f', container]);
        if (newBase) {
          await docker(['rmi', '-f', toolchainImageTag(newBase, false)]);
          await docker(['rmi', '-f', `buildbench-toolchain-base:${newBase.slice(7, 19)}`]);
        }
        await docker(['rmi', '-f', changed]);
        await rm(cacheDir, { recursive: true, force: true });
      }
    },
    LAYER_CREATION_TIMEOUT_MS,
  );
});
