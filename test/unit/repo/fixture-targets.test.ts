import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { inspectRepo } from '../../../src/repo/inspect.js';

/**
 * What the builds of the fixture repositories produce (see test/fixtures/repos/README.md and the
 * integration tests) must be what inspection infers as their main targets, the strict check used when
 * no one names the binaries. Fixtures whose build files name no target infer nothing (any new binary).
 */
const PRODUCED: Record<string, string[]> = {
  'cmake-hello': ['hello', 'libgreet.a'],
  'autotools-hello': ['hello'],
  'make-hello': ['hello'],
  'meson-hello': ['hello'],
  'subdir-cmake': ['tool'],
  'missing-header': ['zversion'],
  'missing-library': ['jversion'],
  'missing-pkgconfig': ['xmlcount'],
  'missing-pkgconfig-cmake': ['zstdversion'],
  'missing-cmake-package': ['fmtdemo'],
  'missing-cmake-module': ['pngversion'],
  'missing-command': ['calc'],
  'generated-header': ['banner'],
  'autotools-macro': ['gpgversion'],
  'fcommon-globals': ['counter'],
  'werror-newer-gcc': ['greet'],
  'removed-sysctl-header': ['uptime'],
  'undefined-libm': ['roots'],
  'header-in-subdir': ['norm'],
  // a hand-written configure and a build.sh: nothing to read targets from
  'configure-hello': [],
  'script-hello': [],
  // no build system: every file defining main() (direct compilation names it after the file)
  'nobuild-c': ['main'],
  // issue 31: the default configuration, the system that runs, the documented build
  'cmake-default-static': ['libticker.a', 'tickdemo'],
  'shared-library': ['libshout.a'],
  'autotools-cmake-release': ['libtally-0.so'],
  'readme-indented-make': ['libringbuf.so'],
  'readme-two-programs': ['linecount', 'wordcount'],
  'make-generator-helper': ['crcsum-1.4'],
};

describe('inferred targets of the fixture repositories', () => {
  it.each(Object.entries(PRODUCED))('%s', async (fixture, produced) => {
    const info = await inspectRepo(path.resolve('test/fixtures/repos', fixture));
    const inferred = info.expectedTargets
      .filter((t) => t.role === 'main' && t.confidence >= 0.7)
      .map((t) => t.name);
    expect(inferred.sort()).toEqual([...produced].sort());
  });
});
