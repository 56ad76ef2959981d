import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  BUILD_CACHE_MOUNT,
  buildCacheLayout,
  BUILD_CACHE_SETUP_SCRIPT,
  buildCacheMounts,
  CCACHE_MAX_SIZE,
  collectDownloads,
  prepareBuildCache,
  pruneOldest,
  pruneRepositoryStores,
  releaseBuildCache,
  repositoryCacheKey,
  requestCacheKey,
  sandboxBaseEnv,
  setUpBuildCache,
  storesInUse,
} from '../../../src/sandbox/build-cache.js';
import { baseSandboxEnv, SANDBOX_PATH } from '../../../src/sandbox/common.js';
import type { ExecResult } from '../../../src/sandbox/types.js';

const tmp = (): Promise<string> => mkdtemp(join(tmpdir(), 'bb-build-cache-'));
const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

describe('prepareBuildCache', () => {
  it('creates apt/, ccache/ and incoming/, and a sandbox its own store and incoming folder', async () => {
    const root = join(await tmp(), 'cache');
    const key = repositoryCacheKey('url:github.com/a/b');
    const { layout, mounts } = await prepareBuildCache(root, { repoKey: key, sandboxId: 'box-1' });
    expect(existsSync(layout.apt)).toBe(true);
    expect(existsSync(join(layout.ccache, key))).toBe(true);
    expect(existsSync(join(layout.incoming, 'box-1'))).toBe(true);
    expect(mounts).toEqual(buildCacheMounts(root, key, 'box-1'));
    expect((await prepareBuildCache(root)).mounts).toEqual([]);
  });

  it('removes the store all repositories once shared, and its configuration', async () => {
    const root = join(await tmp(), 'cache');
    const { layout } = await prepareBuildCache(root);
    const key = repositoryCacheKey('path:/src/x');
    await mkdir(join(layout.ccache, '0', '1'), { recursive: true });
    await mkdir(join(layout.ccache, key));
    await writeFile(join(layout.ccache, 'ccache.conf'), 'prefix_command = /tmp/evil\n');
    await writeFile(join(layout.ccache, key, 'ccache.conf'), 'prefix_command = /tmp/evil\n');
    await prepareBuildCache(root);
    expect(await readdir(layout.ccache)).toEqual([key]);
    // a store's own ccache.conf stays (it is never read: CCACHE_CONFIGPATH=/dev/null)
    expect(existsSync(join(layout.ccache, key, 'ccache.conf'))).toBe(true);
  });

  it('takes the downloads of sandboxes into apt/ under their hash, and renames packages cached by name', async () => {
    const root = join(await tmp(), 'cache');
    const { layout } = await prepareBuildCache(root, { repoKey: repositoryCacheKey('a'), sandboxId: 'b-1' });
    const deb = Buffer.from('!<arch>\nnot really a package\n');
    await writeFile(join(layout.incoming, 'b-1', 'hello_2.10-3_amd64.deb'), deb);
    await writeFile(join(layout.apt, 'jq_1.6-2.1_amd64.deb'), 'jq');
    const { collected } = await prepareBuildCache(root);
    expect(collected).toBe(1);
    expect((await readdir(layout.apt)).sort()).toEqual([`${sha256(deb)}.deb`, `${sha256('jq')}.deb`].sort());
    expect(await readdir(join(layout.incoming, 'b-1'))).toEqual([]);
  });
});

describe('collectDownloads', () => {
  it('takes only regular files with a package name, never through a link, and empties the folder', async () => {
    const dir = await tmp();
    const from = join(dir, 'in');
    const apt = join(dir, 'apt');
    await mkdir(from);
    await mkdir(apt);
    await writeFile(join(dir, 'secret'), 'host secret');
    await symlink(join(dir, 'secret'), join(from, 'libc6_2.36-9_amd64.deb'));
    await writeFile(join(from, 'notes.txt'), 'x');
    await writeFile(join(from, 'empty_1_all.deb'), '');
    await mkdir(join(from, 'dir_1_all.deb'));
    await writeFile(join(from, 'zlib1g_1%3a1.2.13_amd64.deb'), 'zlib');
    await writeFile(join(from, '.zlib1g_1.2.13_amd64.deb.42.part'), 'half'); // still being written
    expect(await collectDownloads(from, apt)).toBe(1);
    expect(await readdir(apt)).toEqual([`${sha256('zlib')}.deb`]);
    expect(await readdir(from)).toEqual(['.zlib1g_1.2.13_amd64.deb.42.part']);
    expect(await collectDownloads(from, apt, { all: true })).toBe(0);
    expect(await readdir(from)).toEqual([]);
  });

  it("releaseBuildCache takes a sandbox's downloads and removes its folder", async () => {
    const root = join(await tmp(), 'cache');
    const { layout } = await prepareBuildCache(root, { repoKey: repositoryCacheKey('a'), sandboxId: 'b-2' });
    await writeFile(join(layout.incoming, 'b-2', 'hello_2.10-3_amd64.deb'), 'hello');
    expect(await releaseBuildCache(root, 'b-2')).toBe(1);
    expect(existsSync(join(layout.incoming, 'b-2'))).toBe(false);
    expect(await readdir(layout.apt)).toEqual([`${sha256('hello')}.deb`]);
  });
});

describe('repository stores', () => {
  it('keys a store by a hash of the identity', () => {
    const key = repositoryCacheKey('url:github.com/a/b');
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(repositoryCacheKey('url:github.com/a/b')).toBe(key);
    expect(repositoryCacheKey('url:github.com/a/c')).not.toBe(key);
    expect(requestCacheKey({ repoDir: '/x', cacheKey: 'url:github.com/a/b' })).toBe(key);
    expect(requestCacheKey({ repoDir: '/src/x/../y' })).toBe(repositoryCacheKey('path:/src/y'));
  });

  it("mounts the repository's store and its own incoming folder read-write, apt/ read-only", () => {
    const key = repositoryCacheKey('k');
    expect(buildCacheMounts('/c', key, 'hello-1a2b3c4d')).toEqual([
      { host: `/c/ccache/${key}`, target: `${BUILD_CACHE_MOUNT}/ccache`, readOnly: false },
      { host: '/c/apt', target: `${BUILD_CACHE_MOUNT}/apt`, readOnly: true },
      { host: '/c/incoming/hello-1a2b3c4d', target: `${BUILD_CACHE_MOUNT}/incoming`, readOnly: false },
    ]);
    expect(() => buildCacheMounts('/c', '../x', 'a')).toThrow(/key/);
    expect(() => buildCacheMounts('/c', key, '../a')).toThrow(/sandbox id/);
  });

  it('keeps the most recently used stores', async () => {
    const dir = await tmp();
    const keys = ['a', 'b', 'c'].map((k) => repositoryCacheKey(k));
    for (const [i, key] of keys.entries()) {
      await mkdir(join(dir, key));
      const t = new Date(Date.UTC(2026, 0, 1 + i));
      await utimes(join(dir, key), t, t);
    }
    expect(await pruneRepositoryStores(dir, 2)).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([keys[1], keys[2]].sort());
  });

  it('never removes the store of a live sandbox, however old; a day-old user file no longer protects it', async () => {
    const root = await tmp();
    const layout = buildCacheLayout(root);
    const old = repositoryCacheKey('long-build');
    // The long build's sandbox is live (prepared, not released); eight newer repositories came after it.
    await prepareBuildCache(root, { repoKey: old, sandboxId: 'long-1' });
    const t = new Date(Date.UTC(2026, 0, 1));
    await utimes(join(layout.ccache, old), t, t);
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) {
      await prepareBuildCache(root, { repoKey: repositoryCacheKey(name), sandboxId: `${name}-1` });
      await releaseBuildCache(root, `${name}-1`);
    }
    expect(await readdir(layout.ccache)).toContain(old);
    expect(await storesInUse(layout.ccacheUsers)).toEqual(new Set([old]));
    // Released: it is an ordinary old store again, pruned at the next sandbox.
    await releaseBuildCache(root, 'long-1');
    await prepareBuildCache(root, { repoKey: repositoryCacheKey('j'), sandboxId: 'j-1' });
    expect(await readdir(layout.ccache)).not.toContain(old);
    // A crashed run's user file (never released) protects nothing after a day, and goes.
    const stale = join(layout.ccacheUsers, 'j-1');
    await utimes(stale, t, t);
    expect(await storesInUse(layout.ccacheUsers)).toEqual(new Set());
    expect(await readdir(layout.ccacheUsers)).toEqual([]);
  });
});

describe('pruneOldest', () => {
  it('removes the oldest files down to the target once over the limit', async () => {
    const dir = await tmp();
    for (const [i, name] of ['a.deb', 'b.deb', 'c.deb', 'd.deb'].entries()) {
      await writeFile(join(dir, name), Buffer.alloc(100));
      const t = new Date(Date.UTC(2026, 0, 1 + i));
      await utimes(join(dir, name), t, t);
    }
    expect(await pruneOldest(dir, 400, 100)).toBe(0); // at the limit: nothing to do
    expect(await pruneOldest(dir, 399, 200)).toBe(2);
    expect((await readdir(dir)).sort()).toEqual(['c.deb', 'd.deb']);
    expect(await pruneOldest(join(dir, 'missing'), 1, 0)).toBe(0);
  });
});

describe('sandboxBaseEnv', () => {
  it('is the allowlist alone without a build cache; with one, ccache leads PATH and reads no configuration file', () => {
    expect(sandboxBaseEnv(undefined)).toEqual(baseSandboxEnv());
    expect(sandboxBaseEnv('/c')).toEqual({
      ...baseSandboxEnv(),
      PATH: `/usr/lib/ccache:${SANDBOX_PATH}`,
      CCACHE_DIR: `${BUILD_CACHE_MOUNT}/ccache`,
      CCACHE_CONFIGPATH: '/dev/null',
      CCACHE_MAXSIZE: CCACHE_MAX_SIZE,
      CCACHE_DEPEND: 'true',
    });
  });
});

describe('setUpBuildCache', () => {
  const result = (output: string, exitCode = 0): ExecResult => ({
    exitCode,
    output,
    timedOut: false,
    cancelled: false,
    durationMs: 1,
    truncated: false,
    totalBytes: output.length,
  });

  it('runs the setup script and reads whether ccache is there', async () => {
    const scripts: string[] = [];
    const messages: string[] = [];
    const exec = (script: string): Promise<ExecResult> => {
      scripts.push(script);
      return Promise.resolve(result('ccache: yes\n'));
    };
    expect(await setUpBuildCache({ exec }, { onProgress: (m) => messages.push(m) })).toEqual({
      ccache: true,
    });
    expect(scripts).toEqual([BUILD_CACHE_SETUP_SCRIPT]);
    expect(messages).toEqual([]);
  });

  it('says so when ccache is missing or the setup failed, without throwing', async () => {
    const messages: string[] = [];
    const onProgress = (m: string): number => messages.push(m);
    const missing = await setUpBuildCache(
      { exec: () => Promise.resolve(result('ccache: no\n')) },
      { onProgress },
    );
    expect(missing.ccache).toBe(false);
    expect(missing.reason).toMatch(/ccache is not installed/);
    const failed = await setUpBuildCache(
      { exec: () => Promise.resolve(result('mkdir: cannot create directory\n', 1)) },
      { onProgress },
    );
    expect(failed.reason).toMatch(/setup failed \(exit code 1\); building without it: mkdir: cannot create/);
    expect(messages).toHaveLength(2);
  });
});
