import { describe, expect, it } from '@jest/globals';

import { roleOfDir, roleOfDirName, roleOfName } from '../../../src/repo/paths.js';
import { exclusionOf } from '../../../src/verify/policy.js';

const root = { projectRoot: '', submodules: [] as string[] };

describe('one role table for inspection and scoring', () => {
  const dirs = [
    'test',
    'Tests',
    'unit_tests',
    'benchmarks',
    'perftests',
    'fuzz',
    'fuzzers',
    'check',
    'examples',
    'demos',
    'samples',
    'tutorial',
    'docs',
    'gtest',
    'src',
    'lib',
    'tools',
    'fuzzy',
    'checker',
    'testlib',
  ];

  it('sets aside exactly the directories inspection calls test or example', () => {
    for (const dir of dirs) {
      const excluded = exclusionOf(`build/${dir}/prog`, root)?.reason === 'test';
      expect([dir, excluded]).toEqual([dir, roleOfDir(dir) !== undefined]);
      expect(roleOfDirName(dir)).toBe(roleOfDir(dir));
    }
  });

  it('treats fuzzing, perf-test, check and demo directories alike in both', () => {
    for (const dir of ['fuzz', 'perftest', 'check', 'checks']) {
      expect(roleOfDir(`src/${dir}`)).toBe('test');
      expect(exclusionOf(`${dir}/x`, root)).toEqual({ reason: 'test', dir });
    }
    for (const dir of ['demo', 'samples', 'tutorials', 'doc']) {
      expect(roleOfDir(dir)).toBe('example');
      expect(exclusionOf(`build/${dir}/x`, root)).toEqual({ reason: 'test', dir: `build/${dir}` });
    }
  });

  it('keeps directory-only and name-only words where they were', () => {
    expect(roleOfName('redis-check-aof')).toBeUndefined();
    expect(roleOfName('docs_tool')).toBeUndefined();
    expect(roleOfName('foo_gtest')).toBe('test');
    expect(roleOfDir('third_party/gtest')).toBeUndefined();
    expect(exclusionOf('tools/gtest/libgtest.a', root)).toBeUndefined();
    expect(roleOfName('fuzz_parser')).toBe('test');
  });
});
