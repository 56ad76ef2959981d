/**
 * Issue 31, "expect what the project's own default build makes", end to end: each expectation fixture
 * (test/fixtures/repos/README.md) built by the rules strategy in the rootfs sandbox with the expectation inspection
 * infers (no --expect), and judged by it. Before issue 31 these ended SUCCESS for the wrong product (a flipped
 * BUILD_SHARED_LIBS, CMake's name for an autotools build, one of two documented programs, the generator) or
 * built another way than the documented one.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { checkRunDir } from '../helpers/trajectory-check.js';
import { sandboxBackendsHere } from '../helpers/sandbox.js';

const { rootfsUnavailable } = await sandboxBackendsHere();
const describeRootfs = rootfsUnavailable ? describe.skip : describe;
const BUILD_TIMEOUT_MS = 5 * 60_000;
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-expectations-'));

async function build(fixture: string): Promise<BuildResult> {
  const outDir = path.join(outRoot, fixture);
  const result = await runBuild({
    source: path.resolve('test/fixtures/repos', fixture),
    outDir,
    strategy: 'rules',
    maxTurns: 6,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 4 * 60_000,
    expect: [],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
  });
  expect(checkRunDir(outDir)).toEqual([]);
  return result;
}

const built = (result: BuildResult): string[] => result.artifacts.map((a) => path.basename(a.path)).sort();

describeRootfs('the default build, and what it makes, is expected (rootfs sandbox, rules, inferred)', () => {
  it.each<[string, string[], string[]]>([
    // CMake's default: a typeless add_library is the static archive the authors' `cmake .. && make` makes
    ['cmake-default-static', ['libticker.a', 'tickdemo'], ['libticker.a', 'tickdemo']],
    // the README's indented `make` block wins over CMake: the Makefile's shared library
    ['readme-indented-make', ['libringbuf.so'], ['libringbuf.so']],
    // no build system: both documented `gcc -o` programs
    ['readme-two-programs', ['linecount', 'wordcount'], ['linecount', 'wordcount']],
    // autotools beside CMake, autotools documented and run: libtool's -release name, not CMake's libtally.so
    ['autotools-cmake-release', ['libtally-0.so'], ['libtally-0.so.2.0.0']],
    // CMake (first, undocumented) stops at configure time; the run falls back to the Makefile, and the
    // expectation is read again for make: its products, not CMake's libbeepcore.a and beep-cli
    ['cmake-fails-make-builds', ['beep', 'libbeep.so'], ['beep', 'libbeep.so']],
    // the generator run during the build is not the product
    ['make-generator-helper', ['crcsum-1.4'], ['crcsum-1.4', 'mktable']],
  ])(
    '%s: SUCCESS, expecting %j',
    async (fixture, expected, products) => {
      const result = await build(fixture);
      expect([...result.expected.names].sort()).toEqual(expected);
      expect(result.expected).toMatchObject({ source: 'inferred', missing: [] });
      expect(result.status).toBe('success');
      expect(result.metrics.strict).toBe(true);
      expect(built(result)).toEqual(expect.arrayContaining(products));
      expect(result.expected.uncertain).toBeUndefined();
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
