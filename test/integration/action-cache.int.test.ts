/**
 * The action's caches end to end: the real engine builds examples/hello twice in the docker sandbox, as two
 * workflow runs, with the real @actions/cache talking to test/fakes/fake-cache-server.ts (v2 as on
 * github.com, v1 as on GHES). The first run saves the build cache; the second, on a runner whose build cache
 * is gone, restores it, and compiles nothing ccache has not seen.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../src/action/main.js';
import type { BuildResult } from '../../src/report/result.js';
import { docker } from '../../src/sandbox/docker.js';
import {
  startFakeCacheServer,
  type CacheProtocol,
  type FakeCacheServer,
} from '../fakes/fake-cache-server.js';
import { setUpActionEnv, type ActionEnv } from '../helpers/action.js';
import { dockerHere, ensureTestDockerImage, TEST_DOCKER_IMAGE } from '../helpers/sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const describeDocker = (await dockerHere()) ? describe : describe.skip;

let server: FakeCacheServer;
let env: ActionEnv | undefined;

beforeAll(async () => {
  server = await startFakeCacheServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  if (!env) return;
  env.restore();
  rmSync(env.dir, { recursive: true, force: true });
  env = undefined;
});

/** ccache's counters in the build cache's store of the one repository built, read with the test image's ccache. */
async function ccacheStats(buildCache: string): Promise<Record<string, number>> {
  const r = await docker([
    'run',
    '--rm',
    '-v',
    `${buildCache}:/c`,
    '-e',
    'CCACHE_CONFIGPATH=/dev/null',
    TEST_DOCKER_IMAGE,
    'sh',
    '-c',
    'set -- /c/ccache/*/ && [ "$#" = 1 ] && CCACHE_DIR="$1" ccache --print-stats',
  ]);
  expect(r.exitCode).toBe(0);
  return Object.fromEntries(
    r.output
      .split('\n')
      .map((line) => line.split('\t'))
      .filter((f) => f.length === 2 && /^\d+$/.test(f[1]!))
      .map(([k, v]) => [k!, Number(v)]),
  );
}

describeDocker('the action with the Actions cache service', () => {
  for (const protocol of ['v2', 'v1'] as CacheProtocol[]) {
    it(
      `saves the build cache after one run and restores it in the next (${protocol})`,
      async () => {
        await ensureTestDockerImage();
        const runAction = async (runId: string, buildCache: string): Promise<ActionEnv> => {
          env?.restore();
          env = setUpActionEnv({
            inputs: {
              path: 'examples/hello',
              sandbox: 'docker',
              image: TEST_DOCKER_IMAGE,
              'max-turns': '3',
              timeout: '10m',
            },
            env: {
              ...server.env(protocol),
              GITHUB_WORKSPACE: ROOT,
              GITHUB_RUN_ID: runId,
              GITHUB_RUN_ATTEMPT: '1',
              BUILDBENCH_BUILD_CACHE: buildCache,
            },
          });
          await run({ handleSignals: false });
          expect(env.errors()).toEqual([]);
          expect(env.outputs().status).toBe('success');
          return env;
        };
        const tag = `${protocol}-${Date.now().toString(36)}`;
        // The same folder in both runs, as ~/.cache/buildbench/build-cache is on every runner (the cache's
        // version hashes the paths).
        const buildCache = path.join(setUpTmp(), 'build-cache');
        const first = await runAction(`${tag}-1`, buildCache);
        // One key per toolchain (the image), the same in every run.
        const key1 = `buildbench-build-v2-${process.platform}-${process.arch}-docker-${TEST_DOCKER_IMAGE.replace(/[^a-z0-9._-]+/g, '-')}`;
        expect(server.entries().map((e) => e.key)).toContain(key1);
        expect(first.summary()).toContain('### Caches');
        expect(first.summary()).toContain(`nothing restored; saved as \`${key1}\``);
        const result = JSON.parse(readFileSync(first.outputs()['result-path']!, 'utf8')) as BuildResult;
        expect(result.sandbox.buildCache).toBe(buildCache);
        const afterFirst = await ccacheStats(buildCache);
        // The build compiled (misses); its first turn was its replay, so nothing was compiled twice (no hits).
        expect(result.recipe?.replay.reusedTurn).toBe(0);
        expect(afterFirst.cache_miss).toBeGreaterThan(0);
        expect(afterFirst.direct_cache_hit ?? 0).toBe(0);

        // A new runner: its build cache folder does not exist yet.
        rmSync(buildCache, { recursive: true, force: true });
        const second = await runAction(`${tag}-2`, buildCache);
        expect(second.stdout.join('')).toContain(`buildbench cache: restored the build cache`);
        expect(second.summary()).toContain(`restored from \`${key1}\``);
        // Still one entry under the one key: the second run never adds another.
        expect(server.entries().filter((e) => e.key === key1 && e.protocol === protocol)).toHaveLength(1);
        const afterSecond = await ccacheStats(buildCache);
        // The new runner compiled nothing: every object came from the restored store.
        expect(afterSecond.cache_miss).toBe(afterFirst.cache_miss);
        expect(afterSecond.direct_cache_hit).toBe(afterFirst.cache_miss);
      },
      10 * 60_000,
    );
  }
});

/** A fresh folder outside any earlier run's. */
function setUpTmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'bb-action-cache-'));
}
