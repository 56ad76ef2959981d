/**
 * A build cannot change what a later build of another repository compiles or installs (src/sandbox/build-cache.ts),
 * in the rootfs and the docker backend. Build A, of a hostile repository, appends `prefix_command = <its
 * script>` to every ccache.conf it can reach under /var/cache/buildbench and forges the `hello` package (same
 * file name, same size, a postinst of its own) everywhere it can write under the cache. Build B, of another
 * repository, with the same build cache: installs the real `hello`, its compiler calls never run A's script,
 * and its own second build still gets a ccache hit. Uses the Debian mirror, as the repair tests do.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createDockerSandbox } from '../../src/sandbox/docker.js';
import { createRootfsSandbox } from '../../src/sandbox/rootfs.js';
import type { CreateSandboxRequest, Sandbox, SandboxSettings } from '../../src/sandbox/types.js';
import {
  ensureTestDockerImage,
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  sandboxBackendsHere,
  sandboxTestSettings,
  TEST_DOCKER_IMAGE,
} from '../helpers/sandbox.js';

const { rootfsUnavailable, dockerUp: dockerAvailable } = await sandboxBackendsHere();

/** What the hostile repository's Makefile runs. */
const POISON_SH = String.raw`#!/bin/sh
# 1. ccache: a prefix command around every compiler call, in every configuration file within reach.
c=/var/cache/buildbench
printf '#!/bin/sh\ntouch /tmp/POISONED /workspace/POISONED 2>/dev/null\nexec "$@"\n' > $c/ccache/poison.sh
chmod 755 $c/ccache/poison.sh
for f in $(find $c -name ccache.conf 2>/dev/null) $c/ccache/ccache.conf; do
  echo "prefix_command = $c/ccache/poison.sh" >> "$f" && echo "poisoned $f"
done
# 2. apt: a forged hello package of the real one's name and size (an ar member after data.tar is ignored by
# dpkg, deb(5): its length makes the sizes equal), written wherever the cache lets this build write.
size=$(apt-cache show --no-all-versions hello | sed -n 's/^Size: //p')
version=$(apt-cache show --no-all-versions hello | sed -n 's/^Version: //p')
name="hello_$(echo "$version" | sed 's/:/%3a/')_$(dpkg --print-architecture).deb"
d=$(mktemp -d)
mkdir -p "$d/pkg/DEBIAN" "$d/pkg/usr/bin"
printf 'Package: hello\nVersion: %s\nArchitecture: %s\nMaintainer: x <x@example.org>\nDescription: forged\n' \
  "$version" "$(dpkg --print-architecture)" > "$d/pkg/DEBIAN/control"
printf '#!/bin/sh\ntouch /FORGED-POSTINST\n' > "$d/pkg/DEBIAN/postinst"
printf '#!/bin/sh\necho FORGED HELLO\n' > "$d/pkg/usr/bin/hello"
chmod 755 "$d/pkg/DEBIAN/postinst" "$d/pkg/usr/bin/hello"
dpkg-deb -Zxz --build "$d/pkg" "$d/f.deb" >/dev/null
n=$((size - $(stat -c %s "$d/f.deb") - 60))
{ cat "$d/f.deb"; printf '%-16s%-12s%-6s%-6s%-8s%-10s\140\n' _pad 0 0 0 100644 "$n"; head -c "$n" /dev/zero; } > "$d/forged.deb"
[ "$(stat -c %s "$d/forged.deb")" = "$size" ] && echo "forged $name ($size bytes)"
for dir in $c/apt $c/incoming /var/cache/apt/archives; do
  [ -d "$dir" ] && cp "$d/forged.deb" "$dir/$name" 2>/dev/null && echo "wrote $dir/$name"
done
for f in $c/apt/*.deb; do cp "$d/forged.deb" "$f" 2>/dev/null && echo "overwrote $f"; done
exit 0
`;

const INSTALL_HELLO =
  'apt-get install -y -q --no-install-recommends hello 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends hello 2>&1; }; hello; test -e /FORGED-POSTINST && echo "FORGED POSTINST RAN"; true';
/** Compiles each named function into an object file with ccache, then prints its counters and the marker. */
const compile = (...names: string[]): string =>
  `ccache -z >/dev/null && for f in ${names.join(' ')}; do printf 'int %s(int x) { return 2 * x; }\\n' $f > /tmp/$f.c && cc -O2 -c /tmp/$f.c -o /tmp/$f.o || exit 1; done && ccache --print-stats; test -e /tmp/POISONED && echo "POISONED"; true`;

function stat(output: string, name: string): number {
  const m = new RegExp(`^${name}\\t(\\d+)$`, 'm').exec(output);
  return m ? Number(m[1]) : NaN;
}

async function makeHostileRepo(): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'bb-hostile-cache-'));
  await mkdir(join(repo, '.git'));
  await writeFile(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(repo, 'poison.sh'), POISON_SH, { mode: 0o755 });
  await writeFile(join(repo, 'Makefile'), 'all:\n\tsh ./poison.sh\n');
  return repo;
}

function poisoningSuite(
  label: string,
  unavailable: string,
  settingsFor: (buildCache: string) => SandboxSettings,
  create: (settings: SandboxSettings, request: CreateSandboxRequest) => Promise<Sandbox>,
): void {
  (unavailable ? describe.skip : describe)(`${label}: a poisoned build cache`, () => {
    let hostile: string;
    let victim: string;
    let buildCache: string;
    let settings: SandboxSettings;

    beforeAll(async () => {
      hostile = await makeHostileRepo();
      victim = await makeFixtureRepo();
      buildCache = join(await mkdtemp(join(tmpdir(), 'bb-build-cache-poison-')), 'cache');
      settings = settingsFor(buildCache);
    }, LAYER_CREATION_TIMEOUT_MS);

    afterAll(async () => {
      for (const dir of [hostile, victim]) if (dir) await rm(dir, { recursive: true, force: true });
      if (buildCache) await rm(join(buildCache, '..'), { recursive: true, force: true });
    });

    it(
      'does not change what a build of another repository compiles or installs',
      async () => {
        const a = await create(settings, {
          repoDir: hostile,
          name: 'poison-a',
          cacheKey: 'url:example.org/hostile/repo',
        });
        let poisoned: string;
        try {
          // A compiles what B will compile too (B must not get A's objects), then runs its build script.
          await a.exec(compile('twice'), { timeoutMs: 60_000 });
          poisoned = (await a.exec('make 2>&1', { timeoutMs: 300_000 })).output;
        } finally {
          await a.dispose();
        }
        expect(poisoned).toMatch(/poisoned .*ccache\.conf/);
        expect(poisoned).toMatch(/forged hello_\S+\.deb/);

        const victimRequest = { repoDir: victim, cacheKey: 'url:example.org/victim/repo' };
        const b1 = await create(settings, { ...victimRequest, name: 'poison-b1' });
        let install: string;
        let first: string;
        try {
          install = (await b1.exec(INSTALL_HELLO, { timeoutMs: 300_000 })).output;
          first = (await b1.exec(compile('twice', 'thrice'), { timeoutMs: 60_000 })).output;
          expect(existsSync(join(b1.hostWorkdir, 'POISONED'))).toBe(false);
        } finally {
          await b1.dispose();
        }
        expect(install).toMatch(/Hello, world!/);
        expect(install).not.toMatch(/FORGED/);
        expect(first).not.toMatch(/POISONED/);
        expect(stat(first, 'cache_miss')).toBe(2);

        // B's own next build: the real package from the cache, and a ccache hit, still without A's script.
        const b2 = await create(settings, { ...victimRequest, name: 'poison-b2' });
        let second: string;
        try {
          install = (await b2.exec(INSTALL_HELLO, { timeoutMs: 300_000 })).output;
          second = (await b2.exec(compile('twice', 'thrice'), { timeoutMs: 60_000 })).output;
          expect(existsSync(join(b2.hostWorkdir, 'POISONED'))).toBe(false);
        } finally {
          await b2.dispose();
        }
        expect(install).toMatch(/Need to get 0 B\/[\d.]+ kB of archives/);
        expect(install).toMatch(/Hello, world!/);
        expect(install).not.toMatch(/FORGED/);
        expect(second).not.toMatch(/POISONED/);
        expect(stat(second, 'direct_cache_hit')).toBe(2);
      },
      LAYER_CREATION_TIMEOUT_MS,
    );
  });
}

poisoningSuite(
  'rootfs',
  rootfsUnavailable,
  (buildCache) => sandboxTestSettings('rootfs', { buildCache }),
  (settings, request) => createRootfsSandbox(settings, request),
);

poisoningSuite(
  'docker',
  dockerAvailable ? '' : 'no Docker engine',
  (buildCache) => sandboxTestSettings('docker', { image: TEST_DOCKER_IMAGE, buildCache }),
  async (settings, request) => {
    await ensureTestDockerImage();
    return createDockerSandbox(settings, request);
  },
);
