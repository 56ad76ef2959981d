import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  cacheChange,
  cacheSummaryLines,
  githubCacheReplacer,
  listCache,
  planCaches,
  restoreCaches,
  saveCaches,
  type CacheReplacer,
  type CacheService,
} from '../../../src/action/cache.js';
import { createGitHubClient } from '../../../src/github/client.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { rootfsPaths } from '../../../src/sandbox/rootfs.js';
import nock from '../../helpers/nock.js';

const ctx = { platform: 'linux', arch: 'x64' };
const MAX = 1024 ** 3;

/**
 * An in-memory service with GitHub's semantics: entries are immutable and scoped by ref; a restore looks in
 * the run's ref, then in the default branch's; `replacer` deletes in the run's ref only.
 */
function memoryService(ref = 'refs/heads/main', available = true) {
  const scopes = new Map<string, string[]>();
  const inScope = (r: string): string[] => {
    if (!scopes.has(r)) scopes.set(r, []);
    return scopes.get(r)!;
  };
  const svc = {
    ref,
    scopes,
    saves: 0,
    isFeatureAvailable: () => available,
    restoreCache: (_paths: string[], key: string, restoreKeys: string[] = []) => {
      for (const r of [svc.ref, 'refs/heads/main']) {
        const keys = inScope(r);
        const hit =
          keys.find((k) => k === key) ??
          restoreKeys.map((p) => [...keys].reverse().find((k) => k.startsWith(p))).find(Boolean);
        if (hit) return Promise.resolve(hit);
      }
      return Promise.resolve(undefined);
    },
    saveCache: (_paths: string[], key: string) => {
      const keys = inScope(svc.ref);
      if (keys.includes(key)) return Promise.resolve(-1);
      keys.push(key);
      svc.saves++;
      return Promise.resolve(svc.saves);
    },
    replacer: ((key: string) => {
      const keys = inScope(svc.ref);
      const i = keys.indexOf(key);
      if (i < 0) return Promise.resolve('absent' as const);
      keys.splice(i, 1);
      return Promise.resolve('deleted' as const);
    }) as CacheReplacer,
  };
  return svc satisfies CacheService;
}

function recorder() {
  const lines = { info: [] as string[], warning: [] as string[], notice: [] as string[] };
  return {
    lines,
    log: {
      info: (m: string) => lines.info.push(m),
      warning: (m: string) => lines.warning.push(m),
      notice: (m: string) => lines.notice.push(m),
    },
  };
}

describe('planCaches', () => {
  const sandbox = defaultSandboxSettings({ HOME: '/h' });

  it('keys the build cache by toolchain, the same in every run, with no restore keys', () => {
    const [build] = planCaches({ ...sandbox, image: 'ubuntu:22.04' }, 'docker', ctx);
    expect(build).toMatchObject({
      name: 'build',
      paths: ['/h/.cache/buildbench/build-cache'],
      key: 'buildbench-build-v2-linux-x64-docker-ubuntu-22.04',
      restoreKeys: [],
      immutable: false,
    });
    expect(planCaches({ ...sandbox, image: 'ubuntu:24.04' }, 'docker', ctx)[0]!.key).toBe(
      'buildbench-build-v2-linux-x64-docker-ubuntu-24.04',
    );
  });

  it('names the toolchain layer in both rootfs keys', () => {
    const entries = planCaches(sandbox, 'rootfs', ctx);
    const paths = rootfsPaths(sandbox.cacheDir, 'bookworm');
    const layer = paths.toolchainDir.split('/').pop()!;
    expect(entries.map((e) => e.name)).toEqual(['build', 'rootfs']);
    expect(entries[0]!.key).toBe(`buildbench-build-v2-linux-x64-rootfs-debian-bookworm-${layer}`);
    expect(entries[1]).toMatchObject({
      paths: [paths.baseDir, paths.toolchainDir],
      key: `buildbench-rootfs-v2-linux-x64-debian-bookworm-${layer}`,
      immutable: true,
    });
  });

  it('has nothing to cache for the host sandbox, and no build entry without a build cache', () => {
    expect(planCaches(sandbox, 'host', ctx)).toEqual([]);
    const { buildCache: _omit, ...noBuildCache } = sandbox;
    expect(planCaches(noBuildCache, 'docker', ctx)).toEqual([]);
  });
});

describe('what counts as a change', () => {
  it('lists files and sizes, not ccache counters, scratch, incoming folders, times or links', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-listing-'));
    await mkdir(join(dir, 'ccache', 'a', 'tmp'), { recursive: true });
    await mkdir(join(dir, 'incoming', 'sandbox-1'), { recursive: true });
    await writeFile(join(dir, 'ccache', 'a', 'result'), 'object');
    const before = await listCache([dir]);
    expect([...before.files]).toEqual([['0:ccache/a/result', 6]]);
    expect(before.bytes).toBe(6);
    await writeFile(join(dir, 'ccache', 'a', 'stats'), '12 0 3\n');
    await writeFile(join(dir, 'ccache', 'a', 'tmp', 'cpp_stdout.i'), 'scratch');
    await writeFile(join(dir, 'incoming', 'sandbox-1', 'x.deb'), 'deb');
    await symlink('/etc/passwd', join(dir, 'ccache', 'link'));
    await utimes(join(dir, 'ccache', 'a', 'result'), new Date(), new Date());
    expect(await listCache([dir])).toEqual(before);
  });

  it('is meaningful for a new package or a tenth more compiler cache, not for a few objects', () => {
    const listing = (files: Record<string, number>) => ({
      files: new Map(Object.entries(files)),
      bytes: Object.values(files).reduce((a, b) => a + b, 0),
    });
    const base = listing({ '0:apt/a.deb': 500, '0:ccache/k/1': 600, '0:ccache/k/2': 400 });
    expect(cacheChange(base, base)).toMatchObject({ meaningful: false, changedBytes: 0, baseBytes: 1000 });
    // One new object of 50 bytes: 5% of the compiler cache.
    expect(
      cacheChange(base, listing({ ...Object.fromEntries(base.files), '0:ccache/k/3': 50 })),
    ).toMatchObject({
      meaningful: false,
      changedFiles: 1,
      changedBytes: 50,
      summary: "0 new packages, 1 new or rewritten file (50 B) of the compiler cache's 1000 B",
    });
    // A rewritten manifest and a new object: 100 + 60 bytes, 16%.
    expect(
      cacheChange(
        base,
        listing({ '0:apt/a.deb': 500, '0:ccache/k/1': 600, '0:ccache/k/2': 100, '0:ccache/k/3': 60 }),
      ),
    ).toMatchObject({ meaningful: true, changedFiles: 2, changedBytes: 160 });
    expect(cacheChange(base, listing({ ...Object.fromEntries(base.files), '0:apt/b.deb': 5 }))).toMatchObject(
      {
        meaningful: true,
        newPackages: 1,
      },
    );
    // Pruned packages alone add nothing to save.
    expect(cacheChange(base, listing({ '0:ccache/k/1': 600, '0:ccache/k/2': 400 })).meaningful).toBe(false);
  });
});

describe('restoreCaches and saveCaches', () => {
  async function layout(): Promise<{ cacheDir: string; buildCache: string }> {
    const cacheDir = await mkdtemp(join(tmpdir(), 'bb-action-cache-'));
    const buildCache = join(cacheDir, 'build-cache');
    await mkdir(join(buildCache, 'apt'), { recursive: true });
    await mkdir(join(buildCache, 'ccache', 'k'), { recursive: true });
    return { cacheDir, buildCache };
  }
  const KEY = 'buildbench-build-v2-linux-x64-docker-ubuntu-22.04';

  it('keeps one entry per branch: saved once, skipped when unchanged, replaced when it changed', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const svc = memoryService();
    const { lines, log } = recorder();
    const run = async (change?: () => Promise<void>, replace: CacheReplacer | null = svc.replacer) => {
      const entries = planCaches(settings, 'docker', ctx);
      const restored = await restoreCaches(entries, svc, log);
      await change?.();
      const saved = await saveCaches(entries, restored, svc, log, {
        maxBytes: MAX,
        ...(replace ? { replace } : {}),
      });
      return cacheSummaryLines(saved);
    };
    const put = (name: string, bytes: number) => () => writeFile(join(buildCache, name), 'x'.repeat(bytes));

    expect(await run(put('ccache/k/1', 1000))).toEqual([
      `- the build cache (package downloads and ccache): nothing restored; saved as \`${KEY}\``,
    ]);
    expect(await run()).toEqual([
      `- the build cache (package downloads and ccache): restored from \`${KEY}\` (not saved: the build changed too little (0 new packages, 0 new or rewritten files (0 B) of the compiler cache's 1000 B; it takes a new package or a tenth more))`,
    ]);
    expect(await run(put('ccache/k/2', 50))).toEqual([
      expect.stringContaining('not saved: the build changed too little'),
    ]);
    expect(await run(put('apt/zlib.deb', 10))).toEqual([
      `- the build cache (package downloads and ccache): restored from \`${KEY}\`; saved as \`${KEY}\``,
    ]);
    expect(lines.info).toContain(`buildbench cache: deleted this branch's older ${KEY}`);
    expect(svc.scopes.get('refs/heads/main')).toEqual([KEY]);
    expect(svc.saves).toBe(2);

    // A feature branch restores the default branch's entry and saves its own when it changed; main's stays.
    svc.ref = 'refs/heads/feature';
    expect(await run(put('apt/libssl.deb', 10))).toEqual([expect.stringContaining(`; saved as \`${KEY}\``)]);
    expect(svc.scopes.get('refs/heads/main')).toEqual([KEY]);
    expect(svc.scopes.get('refs/heads/feature')).toEqual([KEY]);

    // Without the permission to delete, the branch keeps its entry, and the notice says what to grant.
    const forbidden: CacheReplacer = () =>
      Promise.reject(Object.assign(new Error('Resource not accessible by integration'), { status: 403 }));
    const [line] = await run(put('apt/curl.deb', 10), forbidden);
    expect(line).toContain(
      `not saved: this branch already has an entry under ${KEY} and it could not be deleted (Resource not accessible by integration); give the job \`permissions: actions: write\` to keep it fresh`,
    );
    expect(lines.notice).toEqual([expect.stringContaining('permissions: actions: write')]);
    expect(await run(put('apt/git.deb', 10), null)).toEqual([
      expect.stringContaining('(no token to delete it with)'),
    ]);
    expect(svc.saves).toBe(3);
  });

  it('saves nothing over cache-max-size, with a notice', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const svc = memoryService();
    const { lines, log } = recorder();
    const entries = planCaches(settings, 'docker', ctx);
    const restored = await restoreCaches(entries, svc, log);
    await writeFile(join(buildCache, 'apt', 'big.deb'), 'x'.repeat(5000));
    const out = await saveCaches(entries, restored, svc, log, { maxBytes: 4096 });
    expect(out[0]?.note).toBe('not saved: 4.9 KB is over cache-max-size (4.0 KB)');
    expect(lines.notice).toEqual([
      'buildbench cache: the build cache (package downloads and ccache) is 4.9 KB, over cache-max-size (4.0 KB); not saved. Raise cache-max-size to cache it, or set cache: false.',
    ]);
    expect(svc.saves).toBe(0);
  });

  it('saves the rootfs layers once, and only when they are complete and under the cap', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const paths = rootfsPaths(cacheDir, 'bookworm');
    const svc = memoryService();
    const { log } = recorder();
    const entries = planCaches(settings, 'rootfs', ctx).filter((e) => e.name === 'rootfs');
    const save = async (maxBytes = MAX) =>
      saveCaches(entries, await restoreCaches(entries, svc, log), svc, log, {
        maxBytes,
        replace: svc.replacer,
      });
    await mkdir(paths.baseDir, { recursive: true });
    expect((await save())[0]?.note).toMatch(/does not exist/);
    await mkdir(paths.toolchainDir, { recursive: true });
    expect((await save())[0]?.note).toBe('not saved: the layers are not complete');
    await writeFile(join(paths.baseDir, 'READY'), '{}');
    await writeFile(join(paths.toolchainDir, 'READY'), 'x'.repeat(5000));
    expect((await save(4096))[0]?.note).toMatch(/over cache-max-size/);
    expect((await save())[0]?.savedKey).toBe(entries[0]?.key);
    const again = await save();
    expect(again[0]).toMatchObject({ restoredKey: entries[0]?.key });
    expect(again[0]?.savedKey).toBeUndefined();
    expect(svc.saves).toBe(1);
  });

  it('says the service is not there, and never throws for a failing one', async () => {
    const { cacheDir, buildCache } = await layout();
    const settings = { ...defaultSandboxSettings({ HOME: '/h' }), cacheDir, buildCache };
    const entries = planCaches(settings, 'docker', ctx);
    const none = await restoreCaches(entries, memoryService('refs/heads/main', false), recorder().log);
    expect(none[0]?.note).toMatch(/Actions cache service is not available/);
    const broken: CacheService = {
      isFeatureAvailable: () => true,
      restoreCache: () => Promise.reject(new Error('socket hang up')),
      saveCache: () => Promise.reject(new Error('quota exceeded')),
    };
    const { lines, log } = recorder();
    const restored = await restoreCaches(entries, broken, log);
    await writeFile(join(buildCache, 'apt', 'x.deb'), 'deb');
    const saved = await saveCaches(entries, restored, broken, log, { maxBytes: MAX });
    expect(lines.warning).toEqual([
      'buildbench cache: could not restore the build cache (package downloads and ccache): socket hang up',
      'buildbench cache: could not save the build cache (package downloads and ccache): quota exceeded',
    ]);
    expect(saved[0]?.savedKey).toBeUndefined();
  });
});

describe('githubCacheReplacer', () => {
  const API = 'https://api.github.com';
  afterAll(() => nock.restore());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const replacer = githubCacheReplacer(
    () =>
      createGitHubClient({ token: 't', baseUrl: API, retries: 0, throttle: false, fetch: globalThis.fetch }),
    { owner: 'octo', repo: 'hello' },
    'refs/pull/3/merge',
  );

  it("deletes this ref's entry by key, and says when the ref has none", async () => {
    nock.disableNetConnect();
    const scope = nock(API)
      .delete('/repos/octo/hello/actions/caches')
      .query({ key: 'k1', ref: 'refs/pull/3/merge' })
      .reply(200, { total_count: 1, actions_caches: [{ id: 5, key: 'k1' }] })
      .delete('/repos/octo/hello/actions/caches')
      .query({ key: 'k2', ref: 'refs/pull/3/merge' })
      .reply(404, { message: 'Not Found' })
      .delete('/repos/octo/hello/actions/caches')
      .query({ key: 'k3', ref: 'refs/pull/3/merge' })
      .reply(403, { message: 'Resource not accessible by integration' });
    expect(await replacer('k1')).toBe('deleted');
    expect(await replacer('k2')).toBe('absent');
    await expect(replacer('k3')).rejects.toThrow('Resource not accessible by integration');
    expect(scope.pendingMocks()).toEqual([]);
  });
});
