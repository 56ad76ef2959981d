/**
 * The sandboxes `buildbench verify` opens on a build that already happened: a host sandbox in the tree itself,
 * and the kept rootfs build entered again (here only the reasons it cannot be; the re-entry itself is in
 * test/integration/verify.int.test.ts, which needs root and the cached layers).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { createInPlaceHostSandbox } from '../../../src/sandbox/host.js';
import { reenterKeptRootfs, rootfsPaths, rootfsProblems } from '../../../src/sandbox/rootfs.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bb-kept-test-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createInPlaceHostSandbox', () => {
  it('runs commands in the tree itself and leaves it in place on dispose', async () => {
    const tree = join(root, 'tree');
    await mkdir(tree);
    await writeFile(join(tree, 'built.txt'), 'made by hand\n');
    const work = join(root, 'work');
    await mkdir(work);
    const box = await createInPlaceHostSandbox(tree, { workRoot: work });
    expect(box.hostWorkdir).toBe(tree);
    expect(box.workdir).toBe(tree);
    expect(box.describeLocation()).toBe(`${tree} (commands run directly on this machine)`);
    expect(box.buildDir.startsWith(work)).toBe(true);
    const result = await box.exec('pwd; cat built.txt; echo new > probe.txt', { timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain(tree);
    expect(result.output).toContain('made by hand');
    await box.dispose();
    expect(existsSync(box.buildDir)).toBe(false);
    expect(readFileSync(join(tree, 'probe.txt'), 'utf8')).toBe('new\n');
  });

  it('puts its scratch folder in the temp folder when the work root does not exist', async () => {
    const box = await createInPlaceHostSandbox(root, { workRoot: join(root, 'no-such-dir') });
    expect(box.buildDir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(join(box.buildDir, 'cmd'))).toBe(true);
    await box.dispose();
    expect(existsSync(box.buildDir)).toBe(false);
    expect(existsSync(root)).toBe(true);
  });
});

describe('reenterKeptRootfs', () => {
  const settings = () => ({ ...defaultSandboxSettings({ HOME: root }), cacheDir: join(root, 'cache') });

  it('refuses a build that ran in another sandbox', async () => {
    const entered = await reenterKeptRootfs(
      join(root, 'b', 'workspace'),
      { kind: 'docker', image: 'x' },
      settings(),
    );
    expect(entered).toEqual({ why: 'the build ran in the docker sandbox, not rootfs' });
  });

  it('refuses a folder that is not a kept rootfs build (workspace beside upper/)', async () => {
    const build = join(root, 'kept');
    await mkdir(join(build, 'workspace'), { recursive: true });
    const rootfs = { kind: 'rootfs', image: 'debian:bookworm' };
    expect(await reenterKeptRootfs(join(build, 'elsewhere'), rootfs, settings())).toEqual({
      why: `${build} is not a kept rootfs build folder`,
    });
    expect(await reenterKeptRootfs(join(build, 'workspace'), rootfs, settings())).toEqual({
      why: `${build} is not a kept rootfs build folder`,
    });
  });

  it("gives a re-entered build the network the settings ask for, never silently this machine's", async () => {
    const build = join(root, 'kept3');
    await mkdir(join(build, 'workspace'), { recursive: true });
    await mkdir(join(build, 'upper'));
    const cached = settings();
    const paths = rootfsPaths(cached.cacheDir, 'bookworm');
    for (const dir of [paths.baseDir, paths.toolchainDir]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'READY'), '');
    }
    const problems = await rootfsProblems(cached);
    for (const network of ['isolated', 'none'] as const) {
      const entered = await reenterKeptRootfs(
        join(build, 'workspace'),
        { kind: 'rootfs', image: 'debian:bookworm' },
        { ...cached, network },
      );
      if (problems.length > 0) {
        expect(entered.why).toBe(problems.join('; '));
        continue;
      }
      expect(entered.sandbox?.isolation.network.mode).toBe(network);
      expect(entered.sandbox?.isolation.limits.enforced).toBe(false);
    }
  });

  it('says so when the layers of the suite are no longer cached', async () => {
    const build = join(root, 'kept2');
    await mkdir(join(build, 'workspace'), { recursive: true });
    await mkdir(join(build, 'upper'));
    const entered = await reenterKeptRootfs(
      join(build, 'workspace'),
      { kind: 'rootfs', image: 'debian:trixie' },
      settings(),
    );
    expect(entered.sandbox).toBeUndefined();
    // The backend's own problems (no root, no bubblewrap) come first; else the missing cached layers.
    const problems = await rootfsProblems(settings());
    expect(entered.why).toBe(
      problems.length > 0
        ? problems.join('; ')
        : `the rootfs layers for Debian trixie are no longer cached in ${join(root, 'cache')}`,
    );
  });
});
