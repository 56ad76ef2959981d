/**
 * The rules strategy does not stop at the first unknown error, and every binary reaches artifacts/: one tiny
 * fixture per case (test/fixtures/repos/README.md), built for real by `runBuild` in the rootfs sandbox.
 * Each result is checked against the copied files themselves (ELF or ar magic in artifacts/), not only
 * against result.json.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, openSync, readSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-fallbacks-'));
const BUILD_TIMEOUT_MS = 4 * 60_000;

function settings(fixture: string, expect: string[] = []): BuildSettings {
  return {
    source: path.join(FIXTURES, fixture),
    outDir: path.join(outRoot, fixture),
    strategy: 'rules',
    maxTurns: 6,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 3 * 60_000,
    expect,
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
  };
}

/** The first bytes of a copied artifact: what it really is. */
function magic(result: BuildResult, fixture: string, rel: string): string {
  const fd = openSync(path.join(outRoot, fixture, rel), 'r');
  try {
    const buf = Buffer.alloc(8);
    readSync(fd, buf, 0, 8, 0);
    return buf.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) ? 'elf' : buf.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

describe('fallbacks before FAILED (rootfs sandbox)', () => {
  it(
    'documented commands only: without a build system the README block comes first, before direct compilation',
    async () => {
      const result = await runBuild(settings('documented-only', ['zinfo']));
      expect(result.status).toBe('success');
      // Direct compilation would fail here on a header a script generates (no package has it): the authors'
      // commands run that script.
      expect(result.turns.map((t) => t.purpose)).toEqual(['documented commands']);
      expect(result.turns[0]!.reason).toMatch(
        /^the documented commands \(README\.md:9\).*no build system was found, so the documentation’s own commands come first/,
      );
      expect(result.turns[0]!.reason).toContain('installs into the system: cp zinfo /usr/local/bin/');
      expect(result.turns[0]!.reason).toContain(
        'installs up front the packages the documentation names: zlib1g-dev',
      );
      expect(result.recipe?.verified).toBe(true);
      const zinfo = result.artifacts.find((a) => a.path === 'zinfo');
      expect(zinfo?.copiedTo).toBe('artifacts/zinfo');
      expect(magic(result, 'documented-only', 'artifacts/zinfo')).toBe('elf');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'a README that says ./configure && make is built that way first, beside a CMakeLists.txt',
    async () => {
      const result = await runBuild(settings('readme-configure-cmake', ['greet']));
      expect(result.status).toBe('success');
      expect(result.buildSystemChoice).toEqual({
        kind: 'configure',
        file: 'configure',
        why: 'README.md:5 says `./configure && make`',
      });
      expect(result.buildSystems.map((b) => b.kind)).toEqual(['configure', 'cmake']);
      expect(result.turns.map((t) => t.purpose)).toEqual(['configure + make']);
      expect(result.turns[0]!.reason).toContain('the documentation uses configure');
      const runbook = readFileSync(path.join(outRoot, 'readme-configure-cmake', 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('because the documentation uses it: README.md:5 says');
      expect(magic(result, 'readme-configure-cmake', 'artifacts/greet')).toBe('elf');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'a migration the legacy API table documents as mechanical is applied as a patch',
    async () => {
      const result = await runBuild(settings('legacy-sys-errlist'));
      expect(result.status).toBe('success');
      expect(result.turns[0]?.rootCause).toMatchObject({
        id: 'legacy-glibc-sys-errlist',
        message: 'uses an API that glibc removed in 2.32 (sys_errlist / sys_nerr)',
      });
      expect(result.turns.map((t) => t.purpose)).toEqual(['make', 'make + migrate-removed-api']);
      expect(result.patches?.map((p) => p.paths)).toEqual([['errname.c']]);
      expect(result.patches?.[0]?.reason).toContain('glibc removed in 2.32');
      expect(result.recipe?.verified).toBe(true);
      expect(magic(result, 'legacy-sys-errlist', 'artifacts/errname')).toBe('elf');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});

describe('every built binary reaches artifacts/ (rootfs sandbox)', () => {
  it(
    'a library whose only executable is an example: the example is copied and listed with its reason',
    async () => {
      const result = await runBuild(settings('examples-only-library'));
      expect(result.status).toBe('success');
      expect(result.expected.names).toEqual(['libtinyvec.a']);
      expect(result.excludedArtifacts).toEqual([
        expect.objectContaining({
          path: 'build/examples/vecdemo',
          reason: 'test',
          dir: 'build/examples',
          copiedTo: 'artifacts/build/examples/vecdemo',
        }),
      ]);
      expect(magic(result, 'examples-only-library', 'artifacts/build/examples/vecdemo')).toBe('elf');
      expect(magic(result, 'examples-only-library', 'artifacts/build/libtinyvec.a')).toBe('!<arch>\n');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'a library without a type is built and expected in the default configuration: libshout.a, even with a SOVERSION',
    async () => {
      const result = await runBuild(settings('shared-library'));
      expect(result.status).toBe('success');
      expect(result.expected).toMatchObject({ names: ['libshout.a'], matched: ['libshout.a'] });
      expect(result.turns[0]!.reason).not.toContain('BUILD_SHARED_LIBS');
      const copied = result.artifacts.map((a) => a.copiedTo);
      expect(copied).toEqual(['artifacts/build/libshout.a']);
      expect(magic(result, 'shared-library', 'artifacts/build/libshout.a')).toBe('!<arch>\n');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
