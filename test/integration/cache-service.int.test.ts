/**
 * The real `@actions/cache` saves and restores over HTTP against test/fakes/fake-cache-server.ts, in both
 * protocols: v1 (REST, as on GHES) and v2 (twirp plus the Azure storage SDK, as on github.com, with the blob
 * host reached through HTTP_PROXY). A folder with a 10 MB random file goes up in chunks (v1, with a 4 MiB
 * chunk size) or in one Put Blob (v2 forces single shots below 128 MiB) and comes back in one GET (v1) or
 * in 4 MiB ranges (v2). The storage SDK's block upload, which the library only uses above 128 MiB, is
 * driven directly against IP-style URLs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { restoreCache, saveCache } from '@actions/cache';
import { BlockBlobClient } from '@azure/storage-blob';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../src/action/main.js';
import type { BuildSettings } from '../../src/core/settings.js';
import { fakeEngine, fakeResult } from '../fakes/build-result.js';

import {
  FAKE_GITHUB_TOKEN,
  FAKE_RUNTIME_TOKEN,
  startFakeCacheServer,
  type CacheProtocol,
  type FakeCacheServer,
} from '../fakes/fake-cache-server.js';
import { setUpActionEnv, type ActionEnv } from '../helpers/action.js';

const MiB = 1024 * 1024;
/** Blob requests, by IP-style path (`/devstoreaccount1/actions-cache/…`) or through the proxy (`/actions-cache/…`). */
const BLOB = /^(\/devstoreaccount1)?\/actions-cache\//;

let server: FakeCacheServer;
let env: ActionEnv | undefined;

beforeAll(async () => {
  server = await startFakeCacheServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  if (!env) return;
  env.restore();
  rmSync(env.dir, { recursive: true, force: true });
  env = undefined;
});

/** A runner-like environment (workspace, RUNNER_TEMP, captured stdout) talking to the fake in `protocol`. */
function useProtocol(protocol: CacheProtocol): ActionEnv {
  const actionEnv = setUpActionEnv();
  // The surrounding job's cache settings (ACTIONS_CACHE_MODE, CACHE_UPLOAD_CHUNK_SIZE, …) and proxies stay out.
  for (const key of Object.keys(process.env))
    if (/^(ACTIONS_|CACHE_|SEGMENT_DOWNLOAD_TIMEOUT_MINS$|(https?|all|no)_proxy$)/i.test(key))
      delete process.env[key];
  Object.assign(process.env, server.env(protocol));
  env = actionEnv;
  return actionEnv;
}

/** Writes files (relative path → contents) under `dir`, replacing what was there. */
function writeTree(dir: string, files: Record<string, Buffer | string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [name, contents] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), contents);
  }
}

/** The names under `dir` whose bytes differ from `expected`, or that are missing or extra. */
function differences(dir: string, expected: Record<string, Buffer | string>): string[] {
  const found = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)));
  const names = new Set([...found, ...Object.keys(expected)]);
  return [...names].sort().filter((name) => {
    const want = expected[name];
    if (want === undefined || !found.includes(name)) return true;
    return !readFileSync(path.join(dir, name)).equals(Buffer.from(want));
  });
}

/** `METHOD path` of the requests the fake received since `mark` (an earlier `server.requests.length`). */
function requestsSince(mark: number, pattern: RegExp): string[] {
  return server.requests
    .slice(mark)
    .filter((r) => pattern.test(r.path))
    .map((r) => `${r.method} ${r.path}`);
}

function output(actionEnv: ActionEnv): string {
  return actionEnv.stdout.join('');
}

/**
 * Runs `work` with setTimeout faked and the clock pushed ahead while it waits, so the twirp client's retry
 * sleeps (3 s, then ×1.5, five attempts) pass at once; real I/O still runs on the real event loop.
 */
async function withoutRetrySleeps<T>(work: () => Promise<T>): Promise<T> {
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate'],
  });
  try {
    let settled = false;
    const running = work().finally(() => {
      settled = true;
    });
    while (!settled) await jest.advanceTimersByTimeAsync(1000);
    return await running;
  } finally {
    jest.useRealTimers();
  }
}

describe.each(['v1', 'v2'] as const)('@actions/cache against the fake cache service %s', (protocol) => {
  it('saves a folder and restores it by exact key and by restore-key prefix, byte for byte', async () => {
    const actionEnv = useProtocol(protocol);
    const dir = path.join(actionEnv.workspace, 'deps');
    const first = {
      'a.txt': 'alpha\n',
      'nested/b.json': '{"b":1}\n',
      'nested/deeper/big.bin': randomBytes(10 * MiB),
    };
    writeTree(dir, first);
    const key = `${protocol}-deps-1`;

    let mark = server.requests.length;
    const id = await saveCache([dir], key, { uploadChunkSize: 4 * MiB });
    expect(id).toBeGreaterThan(0);
    const saved = server.entries().find((e) => e.key === key);
    expect(saved).toMatchObject({ protocol, key });
    expect(saved!.size).toBeGreaterThan(10 * MiB);
    const uploads = requestsSince(mark, /^\/_apis\/artifactcache\/caches\/\d+$|actions-cache\//);
    if (protocol === 'v1') {
      // The 4 MiB chunk size splits the archive into three PATCHes, then the commit.
      expect(uploads.map((r) => r.replace(/ .*/, ''))).toEqual(['PATCH', 'PATCH', 'PATCH', 'POST']);
    } else {
      // saveCacheV2 forces 64 MiB blocks and 128 MiB single shots: one Put Blob, to the Azure host.
      expect(uploads).toEqual([expect.stringMatching(/^PUT \/actions-cache\/[^?]+\?.*sp=cw/)]);
    }

    rmSync(dir, { recursive: true });
    mark = server.requests.length;
    expect(await restoreCache([dir], key)).toBe(key);
    expect(differences(dir, first)).toEqual([]);
    const downloads = requestsSince(mark, BLOB).map((r) => r.replace(/\?.*/, ''));
    if (protocol === 'v1') {
      // GHES-style: the archive location is this server, fetched with one plain GET.
      expect(downloads).toEqual([expect.stringMatching(/^GET \/devstoreaccount1\/actions-cache\//)]);
    } else {
      // The storage SDK (the URL names *.blob.core.windows.net) reads the properties, then 4 MiB ranges.
      expect(downloads.map((r) => r.replace(/ .*/, ''))).toEqual(['HEAD', 'GET', 'GET', 'GET']);
      expect(downloads.every((r) => / \/actions-cache\//.test(r))).toBe(true);
    }

    const second = { 'a.txt': 'alpha, second\n' };
    writeTree(dir, second);
    expect(await saveCache([dir], `${protocol}-deps-2`)).toBeGreaterThan(0);

    rmSync(dir, { recursive: true });
    expect(await restoreCache([dir], `${protocol}-deps-9`, [`${protocol}-deps-`])).toBe(`${protocol}-deps-2`);
    expect(differences(dir, second)).toEqual([]);

    // Restore keys are tried in order: the first that matches wins over a newer entry for a later one.
    rmSync(dir, { recursive: true });
    expect(await restoreCache([dir], `${protocol}-deps-9`, [`${protocol}-deps-1`, `${protocol}-deps-`])).toBe(
      `${protocol}-deps-1`,
    );
    expect(differences(dir, first)).toEqual([]);
    expect(output(actionEnv)).not.toMatch(/^::(warning|error)/m);
  });

  it('keeps the first entry when the same key is saved again', async () => {
    const actionEnv = useProtocol(protocol);
    const dir = path.join(actionEnv.workspace, 'deps');
    const original = { 'lock.txt': 'one\n' };
    writeTree(dir, original);
    const key = `${protocol}-same-key`;
    expect(await saveCache([dir], key)).toBeGreaterThan(0);
    const before = server.entries().filter((e) => e.key === key);

    writeTree(dir, { 'lock.txt': 'two, and longer\n', 'extra.txt': 'extra\n' });
    expect(await saveCache([dir], key)).toBe(-1);
    expect(output(actionEnv)).toContain(
      `Unable to reserve cache with key ${key}, another job may be creating this cache`,
    );
    expect(server.entries().filter((e) => e.key === key)).toEqual(before);

    rmSync(dir, { recursive: true });
    expect(await restoreCache([dir], key)).toBe(key);
    expect(differences(dir, original)).toEqual([]);
  });

  it('returns undefined on a miss: an unknown key, or a known key saved for other paths', async () => {
    const actionEnv = useProtocol(protocol);
    const dir = path.join(actionEnv.workspace, 'deps');
    const other = path.join(actionEnv.workspace, 'other');
    writeTree(dir, { 'x.txt': 'x\n' });
    const key = `${protocol}-miss`;
    expect(await saveCache([dir], key)).toBeGreaterThan(0);

    expect(await restoreCache([dir], `${protocol}-absent`, [`${protocol}-absent-`])).toBeUndefined();
    // The version hashes the paths, so the same key under other paths is a different entry.
    expect(await restoreCache([other], key)).toBeUndefined();
    expect(readdirSync(actionEnv.workspace)).toEqual(['deps']);
    expect(output(actionEnv)).not.toMatch(/^::(warning|error)/m);
  });

  it('turns an injected 500 on the lookup into undefined instead of throwing', async () => {
    const actionEnv = useProtocol(protocol);
    const dir = path.join(actionEnv.workspace, 'deps');
    writeTree(dir, { 'x.txt': 'x\n' });
    const key = `${protocol}-flaky`;
    expect(await saveCache([dir], key)).toBeGreaterThan(0);
    rmSync(dir, { recursive: true });

    const lookup = protocol === 'v1' ? /^\/_apis\/artifactcache\/cache\?/ : /\/GetCacheEntryDownloadURL$/;
    const mark = server.requests.length;
    let restored: string | undefined;
    if (protocol === 'v1') {
      // v1 retries only 502, 503 and 504, so one 500 ends the restore.
      server.failNext(lookup, 500);
      restored = await restoreCache([dir], key);
    } else {
      // The twirp client retries a 500 up to five attempts; all five fail.
      server.failNext(lookup, 500, 5);
      restored = await withoutRetrySleeps(() => restoreCache([dir], key));
    }
    expect(restored).toBeUndefined();
    expect(requestsSince(mark, lookup)).toHaveLength(protocol === 'v1' ? 1 : 5);
    expect(output(actionEnv)).toMatch(/^::warning::Failed to restore: .*500/m);
    expect(readdirSync(actionEnv.workspace)).toEqual([]);

    // The entry is still there once the service recovers.
    expect(await restoreCache([dir], key)).toBe(key);
  });
});

describe('the Azure storage SDK against the fake blob endpoint (IP-style URLs)', () => {
  let ipServer: FakeCacheServer;
  beforeAll(async () => {
    ipServer = await startFakeCacheServer({ blobUrls: 'ip' });
  });
  afterAll(async () => {
    await ipServer.close();
  });

  async function twirp(method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(
      `${ipServer.url}twirp/github.actions.results.api.v1.CacheService/${method}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${FAKE_RUNTIME_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it('uploads in blocks (Put Block, Put Block List) and downloads in ranges', async () => {
    const data = randomBytes(3 * MiB + 12_345);
    const created = await twirp('CreateCacheEntry', { key: 'blocks', version: 'v-blocks' });
    expect(created).toMatchObject({ ok: true });
    const upload = new BlockBlobClient(created.signed_upload_url as string);
    await upload.uploadData(data, { maxSingleShotSize: MiB, blockSize: MiB, concurrency: 2 });
    const puts = ipServer.requests.filter((r) => r.method === 'PUT').map((r) => r.path);
    expect(puts.filter((p) => /^\/devstoreaccount1\/actions-cache\/.*comp=block(&|$)/.test(p))).toHaveLength(
      4,
    );
    expect(puts.filter((p) => /comp=blocklist/.test(p))).toHaveLength(1);

    expect(
      await twirp('FinalizeCacheEntryUpload', {
        key: 'blocks',
        version: 'v-blocks',
        size_bytes: String(data.length),
      }),
    ).toEqual({ ok: true, entry_id: expect.any(String) });
    const found = await twirp('GetCacheEntryDownloadURL', {
      key: 'blocks-newer',
      restore_keys: ['blo'],
      version: 'v-blocks',
    });
    expect(found).toMatchObject({ ok: true, matched_key: 'blocks' });

    const download = new BlockBlobClient(found.signed_download_url as string);
    expect((await download.getProperties()).contentLength).toBe(data.length);
    const copy = await download.downloadToBuffer(0, data.length, { blockSize: MiB, concurrency: 4 });
    expect(copy.equals(data)).toBe(true);
    // A plain `Range` header works too (http-client's concurrent download sends that).
    const tail = await fetch(found.signed_download_url as string, { headers: { range: 'bytes=3145728-' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes 3145728-${data.length - 1}/${data.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(data.subarray(3145728))).toBe(true);

    // The upload URL cannot read and the download URL cannot write.
    await expect(
      new BlockBlobClient(created.signed_upload_url as string).getProperties(),
    ).rejects.toMatchObject({
      statusCode: 403,
    });
    await expect(download.upload('x', 1)).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('the fake cache service refuses what the real one would', () => {
  const v1Headers = {
    authorization: `Bearer ${FAKE_RUNTIME_TOKEN}`,
    accept: 'application/json;api-version=6.0-preview.1',
    'content-type': 'application/json',
  };
  const v1 = (resource: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${server.url}_apis/artifactcache/${resource}`, {
      ...init,
      headers: { ...v1Headers, ...init.headers },
    });

  it('checks tokens, the v1 api-version, chunk ranges and commit sizes, and proxies only the blob host', async () => {
    expect((await v1('cache?keys=k&version=v', { headers: { authorization: 'Bearer wrong' } })).status).toBe(
      401,
    );
    expect((await v1('cache?keys=k&version=v', { headers: { accept: 'application/json' } })).status).toBe(
      400,
    );

    const reserved = await v1('caches', {
      method: 'POST',
      body: JSON.stringify({ key: 'refusals', version: 'v' }),
    });
    const { cacheId } = (await reserved.json()) as { cacheId: number };
    const chunk = (range: string, body: string): Promise<Response> =>
      v1(`caches/${cacheId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream', 'content-range': range },
        body,
      });
    expect((await chunk('bytes 0-9/*', 'too short')).status).toBe(400);
    expect((await chunk('bytes 4-7/*', 'late')).status).toBe(204);
    const commit = await v1(`caches/${cacheId}`, { method: 'POST', body: JSON.stringify({ size: 8 }) });
    expect(commit.status).toBe(400);
    expect(await commit.text()).toContain('gap or overlap at byte 0');
    expect((await chunk('bytes 0-3/*', 'head')).status).toBe(204);
    expect(
      (await v1(`caches/${cacheId}`, { method: 'POST', body: JSON.stringify({ size: 8 }) })).status,
    ).toBe(204);
    expect(server.entries()).toContainEqual({ key: 'refusals', version: 'v', size: 8, protocol: 'v1' });
    // Committed entries take no more chunks.
    expect((await chunk('bytes 0-3/*', 'more')).status).toBe(409);

    const twirp = (method: string, body: unknown): Promise<Response> =>
      fetch(`${server.url}twirp/github.actions.results.api.v1.CacheService/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FAKE_RUNTIME_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await twirp('CreateCacheEntry', { key: 'refusals', version: 'v' })).status).toBe(200);
    // Nothing was uploaded, so the size cannot match.
    expect(
      await (
        await twirp('FinalizeCacheEntryUpload', { key: 'refusals', version: 'v', size_bytes: '8' })
      ).json(),
    ).toMatchObject({ ok: false, message: expect.stringContaining('no bytes') });
    expect(await (await twirp('CreateCacheEntry', { key: 'refusals', version: 'v' })).json()).toEqual({
      code: 'already_exists',
      msg: 'cache entry with the same key, version, and scope already exists',
    });

    // As a proxy it answers only the storage account's host.
    const proxied = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      request(
        { host: hostname, port, path: 'http://example.com/', headers: { host: 'example.com' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(proxied).toBe(502);
  });
});

describe.each(['v1', 'v2'] as const)('the action keeps one build cache entry per branch (%s)', (protocol) => {
  it('saves once, skips an unchanged cache, replaces a changed one, respects the permission and the cap', async () => {
    const buildCache = path.join(mkdtempSync(path.join(tmpdir(), 'bb-cache-footprint-')), 'build-cache');
    const KEY = `buildbench-build-v2-${process.platform}-${process.arch}-docker-ubuntu-22.04`;
    /** One workflow run on a fresh runner (its build cache folder gone), whose build adds `files`. */
    const runAction = async (files: Record<string, Buffer>, inputs: Record<string, string> = {}) => {
      env?.restore();
      rmSync(buildCache, { recursive: true, force: true });
      env = setUpActionEnv({
        inputs: { sandbox: 'docker', image: 'ubuntu:22.04', token: FAKE_GITHUB_TOKEN, ...inputs },
        env: { ...server.env(protocol), GITHUB_API_URL: server.apiUrl, BUILDBENCH_BUILD_CACHE: buildCache },
      });
      writeFileSync(path.join(env.workspace, 'main.c'), 'int main(void) { return 0; }\n');
      const restoredHere: string[] = [];
      const engine = async (settings: BuildSettings) => {
        const root = settings.sandbox.buildCache!;
        mkdirSync(root, { recursive: true }); // as prepareBuildCache does
        restoredHere.push(
          ...readdirSync(root, { recursive: true, withFileTypes: true })
            .filter((d) => d.isFile())
            .map((d) => path.relative(root, path.join(d.parentPath, d.name))),
        );
        for (const [name, data] of Object.entries(files)) {
          mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
          writeFileSync(path.join(root, name), data);
        }
        return fakeEngine(fakeResult()).engine(settings);
      };
      const mark = server.requests.length;
      await run({ runBuild: engine, handleSignals: false });
      expect(env.errors()).toEqual([]);
      return {
        env,
        restoredHere: restoredHere.sort(),
        deletes: requestsSince(mark, /^\/repos\//),
        keys: server
          .entries()
          .filter((e) => e.protocol === protocol && e.key.startsWith('buildbench-'))
          .map((e) => e.key),
      };
    };
    const deb = (n: number) => randomBytes(n);

    const first = await runAction({ 'apt/zlib.deb': deb(20_000), 'ccache/k/o1': deb(30_000) });
    expect(first.env.summary()).toContain(`nothing restored; saved as \`${KEY}\``);
    expect(first.keys).toEqual([KEY]);

    // The next run restores it and adds nothing: no new entry, no deletion.
    const second = await runAction({});
    expect(second.restoredHere).toEqual(['apt/zlib.deb', 'ccache/k/o1']);
    expect(second.env.summary()).toContain(
      `restored from \`${KEY}\` (not saved: the build changed too little`,
    );
    expect(second.deletes).toEqual([]);
    expect(second.keys).toEqual([KEY]);

    // A new package: the branch's entry is deleted and saved again under the same key, with the package.
    const third = await runAction({ 'apt/libssl.deb': deb(5_000) });
    expect(third.deletes).toEqual([
      `DELETE /repos/octo/hello/actions/caches?key=${KEY}&ref=${encodeURIComponent('refs/heads/main')}`,
    ]);
    expect(third.env.summary()).toContain(`restored from \`${KEY}\`; saved as \`${KEY}\``);
    expect(third.keys).toEqual([KEY]);
    expect((await runAction({})).restoredHere).toEqual(['apt/libssl.deb', 'apt/zlib.deb', 'ccache/k/o1']);

    // A token without actions: write: the entry stays as it was, and a notice says what to grant.
    server.forbidDeletes();
    try {
      const fourth = await runAction({ 'apt/curl.deb': deb(5_000) });
      expect(fourth.env.commands('notice')).toEqual([
        expect.stringContaining(
          `this branch already has an entry under ${KEY} and it could not be deleted (Resource not accessible by integration)`,
        ),
      ]);
      expect(fourth.keys).toEqual([KEY]);
    } finally {
      server.forbidDeletes(false);
    }
    expect((await runAction({})).restoredHere).not.toContain('apt/curl.deb');

    // Over cache-max-size: not saved, not even deleted.
    const big = await runAction({ 'apt/huge.deb': deb(70_000) }, { 'cache-max-size': '64K' });
    expect(big.deletes).toEqual([]);
    expect(big.env.commands('notice')).toEqual([
      expect.stringContaining('over cache-max-size (64 KB); not saved'),
    ]);
    expect(big.keys).toEqual([KEY]);
  }, 60_000);
});
