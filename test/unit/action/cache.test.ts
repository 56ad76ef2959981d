import { describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  cacheSummaryLines,
  fingerprint,
  planCaches,
  restoreCaches,
  saveCaches,
  type CacheService,
} from '../../../src/action/cache.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { rootfsPaths } from '../../../src/sandbox/rootfs.js';

const ctx = { runId: '123', runAttempt: '2', platform: 'linux', arch: 'x64' };

/** An in-memory service with @actions/cache's semantics: exact key first, then restore keys as prefixes, newest first. */
function memoryService(available = true): CacheService & { saved: string[]; restored: string[] } {
  const entries: string[] = [];
  const svc = {
    saved: entries,
    restored: [] as string[],
    isFeatureAvailable: () => available,
    restoreCache: (_paths: string[], key: string, restoreKeys: string[] = []) => {
      const hit =
        entries.find((k) => k === key) ??
        restoreKeys.map((p) => [...entries].reverse().find((k) => k.startsWith(p))).find(Boolean);
      if (hit) svc.restored.push(hit);
      return Promise.resolve(hit);
    },
    saveCache: (_paths: string[], key: string) => {
      if (entries.includes(key)) return Promise.resolve(-1);
      entries.push(key);
      return Promise.resolve(entries.length);
    },
  };
  return svc;
}

const quiet = { info: () => undefined, warning: () => undefined };

describe('planCaches', () => {
  const sandbox = defaultSandboxSettings({ HOME: '/h' });

  it('keys the build cache per run and restores the newest by prefix', () => {
    const [build] = planCaches({ ...sandbox, image: 'ubuntu:22.04' }, 'docker', ctx);
    expect(build).toMatchObject({
      name: 'build',
      paths: ['/h/.cache/buildbench/build-cache'],
      key: 'buildbench-build-v1-linux-x64-docker-ubuntu-22.04-123-2',
      restoreKeys: ['buildbench-build-v1-linux-x64-docker-ubuntu-22.04-'],
      immutable: false,
    });
  });

  it('adds the rootfs layers under a key that names the toolchain layer', () => {
    const entries = planCaches(sandbox, 'rootfs', ctx);
    const paths = rootfsPaths(sandbox.cacheDir, 'bookworm');
    expect(entries.map((e) => e.name)).toEqual(['build', 'rootfs']);
    expect(entries[1]).toMatchObject({
      paths: [paths.baseDir, paths.toolchainDir],
      key: `buildbench-rootfs-v1-linux-x64-debian-bookworm-${paths.toolchainDir.split('/').pop()}`,
      immutable: true,
    });
  });

  it('has nothing to cache for the host sandbox, and no build entry without a build cache', () => {
    expect(planCaches(sandbox, 'host', ctx)).toEqual([]);
    const { buildCache: _omit, ...noBuildCache } = sandbox;
    expect(planCaches(noBuildCache, 'docker', ctx)).toEqual([]);
  });
});

describe('fingerprint', () => {
  it('changes with new files, not with ccache hits (counters, scratch, touched results)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-fingerprint-'));
    await mkdir(join(dir, 'ccache', 'a', 'tmp'), { recursive: true });
    await writeFile(join(dir, 'ccache', 'a', 'result'), 'object');
    const before = await fingerprint([dir]);
    expect(before).toBe('1 files, 6 bytes');
    await writeFile(join(dir, 'ccache', 'a', 'stats'), '12 0 3\n');
    await writeFile(join(dir, 'ccache', 'a', 'tmp', 'cpp_stdout.i'), 'scratch');
    await utimes(join(dir, 'ccache', 'a', 'result'), new Date(), new Date());
    expect(await fingerprint([dir])).toBe(before);
    await writeFile(join(dir, 'ccache', 'a', 'result2'), 'object');
    expect(await fingerprint([dir])).not.toBe(before);
  });
});

describe('restoreCaches and saveCaches', () => {
  async function layout(): Promise<{ cacheDir: string; buildCache: string }> {
    const cacheDir = await mkdtemp(join(tmpdir(), 'bb-action-cache-'));
    const buildCache = join(cacheDir, 'build-cache');
    await mkdir(join(buildCache, 'apt'), { recursive: true });
    return { cacheDir, buildCache };
  }

  it('saves a build cache the build added to, and nothing when it added nothing', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const svc = memoryService();
    const run = async (runId: string, addFile?: string): Promise<string[]> => {
      const entries = planCaches(settings, 'docker', { ...ctx, runId });
      const restored = await restoreCaches(entries, svc, quiet);
      if (addFile) await writeFile(join(buildCache, 'apt', addFile), 'deb');
      return cacheSummaryLines(await saveCaches(entries, restored, svc, quiet));
    };
    expect(await run('1', 'a.deb')).toEqual([
      '- the build cache (package downloads and ccache): nothing restored; saved as `buildbench-build-v1-linux-x64-docker-ubuntu-22.04-1-2`',
    ]);
    expect(await run('2')).toEqual([
      '- the build cache (package downloads and ccache): restored from `buildbench-build-v1-linux-x64-docker-ubuntu-22.04-1-2` (not saved: the build added nothing to it)',
    ]);
    await run('3', 'b.deb');
    expect(svc.saved).toEqual([
      'buildbench-build-v1-linux-x64-docker-ubuntu-22.04-1-2',
      'buildbench-build-v1-linux-x64-docker-ubuntu-22.04-3-2',
    ]);
    // The newest entry wins a prefix match.
    await run('4');
    expect(svc.restored.at(-1)).toBe('buildbench-build-v1-linux-x64-docker-ubuntu-22.04-3-2');
  });

  it('saves the rootfs layers once, and only when they are complete', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const paths = rootfsPaths(cacheDir, 'bookworm');
    const svc = memoryService();
    const entries = planCaches(settings, 'rootfs', ctx).filter((e) => e.name === 'rootfs');
    await mkdir(paths.baseDir, { recursive: true });
    let out = await saveCaches(entries, await restoreCaches(entries, svc, quiet), svc, quiet);
    expect(out[0]?.note).toMatch(/does not exist/);
    await mkdir(paths.toolchainDir, { recursive: true });
    out = await saveCaches(entries, await restoreCaches(entries, svc, quiet), svc, quiet);
    expect(out[0]?.note).toBe('not saved: the layers are not complete');
    await writeFile(join(paths.baseDir, 'READY'), '{}');
    await writeFile(join(paths.toolchainDir, 'READY'), '{}');
    out = await saveCaches(entries, await restoreCaches(entries, svc, quiet), svc, quiet);
    expect(out[0]?.savedKey).toBe(entries[0]?.key);
    out = await saveCaches(entries, await restoreCaches(entries, svc, quiet), svc, quiet);
    expect(out[0]).toMatchObject({ restoredKey: entries[0]?.key });
    expect(out[0]?.savedKey).toBeUndefined();
    expect(svc.saved).toEqual([entries[0]?.key]);
  });

  it('says the service is not there, and never throws for a failing one', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const entries = planCaches(settings, 'docker', ctx);
    const none = await restoreCaches(entries, memoryService(false), quiet);
    expect(none[0]?.note).toMatch(/Actions cache service is not available/);
    const warnings: string[] = [];
    const broken: CacheService = {
      isFeatureAvailable: () => true,
      restoreCache: () => Promise.reject(new Error('socket hang up')),
      saveCache: () => Promise.reject(new Error('quota exceeded')),
    };
    const log = { info: () => undefined, warning: (m: string) => warnings.push(m) };
    const restored = await restoreCaches(entries, broken, log);
    await writeFile(join(buildCache, 'apt', 'x.deb'), 'deb');
    const saved = await saveCaches(entries, restored, broken, log);
    expect(warnings).toEqual([
      'buildbench cache: could not restore the build cache (package downloads and ccache): socket hang up',
      'buildbench cache: could not save the build cache (package downloads and ccache): quota exceeded',
    ]);
    expect(saved[0]?.savedKey).toBeUndefined();
  });
});
