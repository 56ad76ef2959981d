import { describe, expect, it } from '@jest/globals';
import { exclusionOf, partitionArtifacts, scoringPolicyFor } from '../../../src/verify/policy.js';
import type { Artifact } from '../../../src/verify/types.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

const exe = (path: string): Artifact => ({ path, kind: 'executable', size: 100 });
const root = { projectRoot: '', submodules: [] as string[] };

describe('scoring policy (BUILD-BENCH exclusions)', () => {
  it('sets aside vendored code, test, example and benchmark directories, also mirrored in a build tree', () => {
    expect(exclusionOf('third_party/zlib/libz.a', root)).toEqual({ reason: 'vendored', dir: 'third_party' });
    expect(exclusionOf('build/third_party/zlib/libz.a', root)).toEqual({
      reason: 'vendored',
      dir: 'build/third_party',
    });
    for (const dir of ['vendor', 'external', 'deps', 'extern', 'Vendor', '3rdparty', 'subprojects']) {
      expect(exclusionOf(`${dir}/x/liby.so`, root)?.reason).toBe('vendored');
    }
    for (const dir of ['test', 'tests', 'testing', 'examples', 'bench', 'benchmarks', 'Tests']) {
      expect(exclusionOf(`build/${dir}/runner`, root)).toEqual({ reason: 'test', dir: `build/${dir}` });
    }
  });

  it('keeps the project’s own products, including names that merely contain a listed word', () => {
    for (const p of [
      'hello',
      'build/hello',
      'build/lib/libfoo.so.1',
      'src/testlib/libt.a',
      'tools/vendors/x',
      'test',
    ]) {
      expect(exclusionOf(p, root)).toBeUndefined();
    }
  });

  it('sets aside submodules wherever a build tree mirrors them', () => {
    const policy = { projectRoot: '', submodules: ['libs/json'] };
    expect(exclusionOf('libs/json/libjson.a', policy)).toEqual({ reason: 'submodule', dir: 'libs/json' });
    expect(exclusionOf('build/libs/json/libjson.a', policy)).toEqual({
      reason: 'submodule',
      dir: 'build/libs/json',
    });
    expect(exclusionOf('libs/other/libo.a', policy)).toBeUndefined();
  });

  it('does not hold the project’s own location against it', () => {
    const inside = { projectRoot: 'external/app', submodules: ['external/app'] };
    expect(exclusionOf('external/app/build/app', inside)).toBeUndefined();
    expect(exclusionOf('external/app/third_party/z/libz.a', inside)?.reason).toBe('vendored');
    expect(exclusionOf('external/app/build/tests/t', inside)?.reason).toBe('test');
    // a build directory outside the project root is still looked at in full
    expect(exclusionOf('build/tests/t', inside)?.reason).toBe('test');
  });

  it('takes the build root and submodules from the repository and exempts only explicit names', () => {
    const repo = repoInfo({
      buildSystems: [system('cmake', 'project')],
      submodules: [{ path: 'deps/foo/', url: 'x', populated: true }],
    });
    const inferred = scoringPolicyFor(repo, { names: ['app', 'libz.a'], source: 'inferred' });
    expect(inferred).toEqual({ projectRoot: 'project', submodules: ['deps/foo'], explicitNames: [] });
    const cli = scoringPolicyFor(repo, { names: ['test_runner', 'libz.so.1'], source: 'cli' });
    expect(cli.explicitNames).toEqual(['test_runner', 'libz.so']);

    const artifacts = [
      exe('build/app'),
      exe('build/tests/test_runner'),
      exe('build/tests/other'),
      exe('third_party/z/libz.so.1.3'),
    ];
    const split = partitionArtifacts(artifacts, cli);
    expect(split.counted.map((a) => a.path)).toEqual([
      'build/app',
      'build/tests/test_runner',
      'third_party/z/libz.so.1.3',
    ]);
    expect(split.excluded).toEqual([{ ...exe('build/tests/other'), reason: 'test', dir: 'build/tests' }]);
  });
});
