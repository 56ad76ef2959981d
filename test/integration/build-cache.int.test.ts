/**
 * The shared build cache for real (src/sandbox/build-cache.ts): two fresh sandboxes in a row share package
 * downloads and ccache's store, in the rootfs and the docker backend; a compiler that is not installed stays
 * missing (ccache never stands in for it). Uses the Debian mirror, as the repair tests do.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createDockerSandbox } from '../../src/sandbox/docker.js';
import { buildCacheLayerDir, createRootfsSandbox, rootfsPaths } from '../../src/sandbox/rootfs.js';
import type { Sandbox, SandboxSettings } from '../../src/sandbox/types.js';
import {
  BARE_DOCKER_IMAGE,
  ensureBareDockerImage,
  ensureTestDockerImage,
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  sandboxBackendsHere,
  sandboxTestSettings,
  TEST_DOCKER_IMAGE,
} from '../helpers/sandbox.js';

const { rootfsUnavailable, dockerUp: dockerAvailable } = await sandboxBackendsHere();

/** A small package with dependencies of its own (3 .deb files). */
const PACKAGE = 'libjq-dev';
const SOURCE = 'int twice(int x) { return 2 * x; }';

const INSTALL = `apt-get install -y -q --no-install-recommends ${PACKAGE} 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends ${PACKAGE} 2>&1; }`;
const COMPILE = `printf '%s\\n' '${SOURCE}' > /tmp/twice.c && ccache -z >/dev/null && cc -O2 -c /tmp/twice.c -o /tmp/twice.o && ccache --print-stats`;

function stat(output: string, name: string): number {
  const m = new RegExp(`^${name}\\t(\\d+)$`, 'm').exec(output);
  return m ? Number(m[1]) : NaN;
}

function sharedCacheSuite(
  label: string,
  unavailable: string,
  settingsFor: (buildCache: string) => SandboxSettings,
  create: (settings: SandboxSettings, repo: string) => Promise<Sandbox>,
): void {
  (unavailable ? describe.skip : describe)(`${label} sandboxes with a shared build cache`, () => {
    let repo: string;
    let buildCache: string;
    let settings: SandboxSettings;

    beforeAll(async () => {
      repo = await makeFixtureRepo();
      buildCache = join(await mkdtemp(join(tmpdir(), 'bb-build-cache-int-')), 'cache');
      settings = settingsFor(buildCache);
    }, LAYER_CREATION_TIMEOUT_MS);

    afterAll(async () => {
      if (repo) await rm(repo, { recursive: true, force: true });
      if (buildCache) await rm(buildCache, { recursive: true, force: true });
    });

    it(
      'downloads a package once and compiles a file once',
      async () => {
        const first = await create(settings, repo);
        let install: string;
        let compile: string;
        try {
          expect(first.buildCache).toBe(buildCache);
          install = (await first.exec(INSTALL, { timeoutMs: 300_000 })).output;
          compile = (await first.exec(COMPILE, { timeoutMs: 60_000 })).output;
        } finally {
          await first.dispose();
        }
        expect(install).toMatch(/Setting up libjq-dev/);
        expect(install).not.toMatch(/Need to get 0 B/);
        // The downloads were taken into apt/ under their hash when the sandbox was released.
        const cached = readdirSync(join(buildCache, 'apt'));
        expect(cached.filter((f) => /^[0-9a-f]{64}\.deb$/.test(f)).length).toBeGreaterThanOrEqual(3);
        expect(stat(compile, 'cache_miss')).toBe(1);

        const second = await create(settings, repo);
        try {
          install = (await second.exec(INSTALL, { timeoutMs: 300_000 })).output;
          compile = (await second.exec(COMPILE, { timeoutMs: 60_000 })).output;
          // Only the cached packages the index names are offered, as links under their package's name.
          const offered = await second.exec(
            'ls -l /var/cache/apt/archives | grep -c "^l.*libjq.* -> /var/cache/buildbench/apt/" || true',
            {
              timeoutMs: 30_000,
            },
          );
          expect(offered.output.trim()).toBe('2');
        } finally {
          await second.dispose();
        }
        expect(install).toMatch(/Need to get 0 B\/[\d.]+ kB of archives/);
        expect(install).toMatch(/Setting up libjq-dev/);
        expect(stat(compile, 'direct_cache_hit')).toBe(1);
        // The image's own packages (debootstrap's) never enter the cache, and the second sandbox added nothing.
        expect(readdirSync(join(buildCache, 'apt')).sort()).toEqual(cached.sort());
      },
      LAYER_CREATION_TIMEOUT_MS,
    );

    it('compiles a build that writes dependency files without running the preprocessor on a miss', async () => {
      // -MD, as automake and CMake compile: ccache's depend mode hashes from the .d file instead.
      const compile = `printf '%s\\n' '${SOURCE} int thrice(int x) { return 3 * x; }' > /tmp/dep.c && ccache -z >/dev/null && cc -O2 -MD -MF /tmp/dep.d -c /tmp/dep.c -o /tmp/dep.o && ccache --print-stats`;
      const outputs: string[] = [];
      for (let i = 0; i < 2; i++) {
        const box = await create(settings, repo);
        try {
          outputs.push((await box.exec(compile, { timeoutMs: 60_000 })).output);
        } finally {
          await box.dispose();
        }
      }
      expect(stat(outputs[0]!, 'cache_miss')).toBe(1);
      expect(stat(outputs[0]!, 'preprocessed_cache_miss')).toBe(0);
      expect(stat(outputs[1]!, 'direct_cache_hit')).toBe(1);
    }, 120_000);

    it('leaves the build cache out when it is off', async () => {
      const { buildCache: _off, ...off } = settings;
      const box = await create(off, repo);
      try {
        const r = await box.exec(
          'echo "PATH=$PATH CCACHE_DIR=${CCACHE_DIR:-unset}"; test -e /var/cache/buildbench && echo mounted || true',
          { timeoutMs: 30_000 },
        );
        expect(r.output).toContain('CCACHE_DIR=unset');
        expect(r.output).not.toContain('/usr/lib/ccache');
        expect(r.output).not.toContain('mounted');
      } finally {
        await box.dispose();
      }
    });
  });
}

sharedCacheSuite(
  'rootfs',
  rootfsUnavailable,
  (buildCache) => sandboxTestSettings('rootfs', { buildCache }),
  (settings, repo) => createRootfsSandbox(settings, { repoDir: repo, name: 'build-cache-int' }),
);

(rootfsUnavailable ? describe.skip : describe)('the rootfs build cache setup', () => {
  it(
    'is a cached layer under each sandbox, not a command run in it',
    async () => {
      const repo = await makeFixtureRepo();
      const buildCache = await mkdtemp(join(tmpdir(), 'bb-build-cache-layer-'));
      const settings = sandboxTestSettings('rootfs', { buildCache });
      try {
        const box = await createRootfsSandbox(settings, { repoDir: repo, name: 'build-cache-layer' });
        try {
          const layer = buildCacheLayerDir(rootfsPaths(settings.cacheDir, settings.suite));
          const ready = JSON.parse(readFileSync(join(layer, 'READY'), 'utf8')) as { ccache?: boolean };
          expect(ready.ccache).toBe(true);
          expect(box.layers.lowerdirs[0]).toBe(join(layer, 'root'));
          // The hooks and links come from the layer: the sandbox's own upper dir holds none of them.
          expect(existsSync(join(box.buildDir, 'upper', 'usr/local/libexec'))).toBe(false);
          expect(existsSync(join(box.buildDir, 'upper', 'etc/apt/apt.conf.d'))).toBe(false);
          const r = await box.exec(
            'cat /etc/apt/apt.conf.d/00buildbench-cache; readlink /usr/lib/ccache/gcc; command -v cc; head -3 /usr/local/bin/apt-get',
            { timeoutMs: 30_000 },
          );
          expect(r.output).toContain('buildbench-keep-debs');
          expect(r.output).toMatch(/^\/usr\/lib\/ccache\/cc$/m);
          expect(r.output).toContain('offers the build cache to apt');
        } finally {
          await box.dispose();
        }
      } finally {
        await rm(repo, { recursive: true, force: true });
        await rm(buildCache, { recursive: true, force: true });
      }
    },
    LAYER_CREATION_TIMEOUT_MS,
  );
});

sharedCacheSuite(
  'docker',
  dockerAvailable ? '' : 'no Docker engine',
  (buildCache) => sandboxTestSettings('docker', { image: TEST_DOCKER_IMAGE, buildCache }),
  async (settings, repo) => {
    await ensureTestDockerImage();
    return createDockerSandbox(settings, { repoDir: repo, name: 'build-cache-int' });
  },
);

(dockerAvailable ? describe : describe.skip)('a stock-like docker image with a build cache', () => {
  it(
    'gets ccache at setup, yet no compiler appears until one is installed',
    async () => {
      await ensureBareDockerImage();
      const repo = await makeFixtureRepo();
      const buildCache = join(await mkdtemp(join(tmpdir(), 'bb-build-cache-bare-')), 'cache');
      const messages: string[] = [];
      // The image as it is (no toolchain image made from it): what a stock image gets from the build cache alone.
      const box = await createDockerSandbox(
        {
          ...sandboxTestSettings('docker', { image: BARE_DOCKER_IMAGE, buildCache }),
          dockerToolchain: false,
        },
        { repoDir: repo, name: 'build-cache-bare', onProgress: (m) => messages.push(m) },
      );
      try {
        const before = await box.exec('command -v ccache; command -v cc || echo "no cc"', {
          timeoutMs: 30_000,
        });
        expect(before.output).toBe('/usr/bin/ccache\nno cc\n');
        expect(messages.filter((m) => /build cache|ccache/.test(m))).toEqual([]);
        const after = await box.exec(
          'apt-get install -y -q --no-install-recommends gcc libc6-dev >/dev/null 2>&1; command -v cc gcc',
          { timeoutMs: 300_000 },
        );
        expect(after.output).toBe('/usr/lib/ccache/cc\n/usr/lib/ccache/gcc\n');
      } finally {
        await box.dispose();
        await rm(repo, { recursive: true, force: true });
        await rm(buildCache, { recursive: true, force: true });
      }
    },
    LAYER_CREATION_TIMEOUT_MS,
  );
});
