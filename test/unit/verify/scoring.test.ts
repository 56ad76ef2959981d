import { describe, it, expect } from '@jest/globals';

import {
  artifactBaseName,
  expectedFrom,
  normalizeExpected,
  scoreArtifacts,
} from '../../../src/verify/scoring.js';
import type { ExpectedTarget } from '../../../src/repo/types.js';
import type { Artifact, Expected } from '../../../src/verify/types.js';

function artifact(path: string, kind: Artifact['kind'] = 'executable'): Artifact {
  return { path, kind, size: 100 };
}

function expected(...names: string[]): Expected {
  return { names, source: 'task' };
}

describe('artifactBaseName', () => {
  it.each([
    ['libfoo.so.1.2.3', 'libfoo.so'],
    ['libfoo.so.1', 'libfoo.so'],
    ['libfoo.so', 'libfoo.so'],
    ['libmx-2.0.so.0.9905.0', 'libmx-2.0.so'],
    ['libgdal.so.37.3.12.0', 'libgdal.so'],
    ['libpcap.so.1.11.0-PRE-GIT', 'libpcap.so'],
    ['libfoo.so.2+git20260101', 'libfoo.so'],
    ['libfoo.so.1~rc1', 'libfoo.so'],
    ['libfoo.so.debug', 'libfoo.so.debug'], // not a version
    ['libfoo-1.2.so', 'libfoo-1.2.so'], // a version before .so is part of the name
    ['build/lib/libfoo.so.1', 'libfoo.so'],
    ['_sqlite3.cpython-310-x86_64-linux-gnu.so', '_sqlite3.so'],
    ['_foo.abi3.so', '_foo.so'],
    ['_foo.pypy39-pp73-x86_64-linux-gnu.so', '_foo.so'],
    ['PIMSim.exe', 'PIMSim'],
    ['D8088EM.EXE', 'D8088EM'],
    ['.exe', '.exe'],
    ['libfoo.a', 'libfoo.a'],
    ['foo', 'foo'],
    ['libfoo.so.debug', 'libfoo.so.debug'],
  ])('%s → %s', (name, base) => {
    expect(artifactBaseName(name)).toBe(base);
  });
});

describe('normalizeExpected', () => {
  it('keeps binary names, sets aside noise with the reason', () => {
    const { names, ignored } = normalizeExpected([
      'foo',
      ' ./build/bin/bar ',
      'libqhotkey.a',
      'qhotkey.cpp.o',
      'foo.o',
      'README',
      'notes:',
      'LLM actually failed to compile this repo',
      'nanobind-config.cmake',
      'pslab-firmware.elf',
      'pslab-firmware.hex',
      'pslab-firmware.map',
      'libfoo.la',
      'bin',
      'out/',
      '',
      'app-release-unsigned.apk',
      'PIMSim.exe',
      'foo',
    ]);
    expect(names).toEqual(['foo', 'build/bin/bar', 'libqhotkey.a', 'pslab-firmware.elf', 'PIMSim.exe']);
    expect(ignored.map((i) => i.name)).toEqual([
      'qhotkey.cpp.o',
      'foo.o',
      'README',
      'notes:',
      'LLM actually failed to compile this repo',
      'nanobind-config.cmake',
      'pslab-firmware.hex',
      'pslab-firmware.map',
      'libfoo.la',
      'bin',
      'out/',
      '',
      'app-release-unsigned.apk',
      'foo',
    ]);
    const why = Object.fromEntries(ignored.map((i) => [i.name, i.why]));
    expect(why['foo.o']).toMatch(/object file/);
    expect(why['LLM actually failed to compile this repo']).toMatch(/free text/);
    expect(why['notes:']).toMatch(/note/);
    expect(why.foo).toMatch(/twice/);
    expect(why['']).toBe('empty');
  });

  it('is idempotent', () => {
    const once = normalizeExpected(['a', 'b.o', './c', 'a']);
    expect(normalizeExpected(once.names)).toEqual({ names: once.names, ignored: [] });
  });
});

describe('scoreArtifacts', () => {
  it('completion is any new binary; strict and flexible need expected names', () => {
    expect(scoreArtifacts([], expected())).toEqual({
      completion: false,
      strict: false,
      flexible: false,
      matched: [],
      missing: [],
      matches: {},
    });
    const some = scoreArtifacts([artifact('build/app')], { names: [], source: 'none' });
    expect(some).toMatchObject({
      completion: true,
      strict: false,
      flexible: false,
      matched: [],
      missing: [],
    });
  });

  it('strict when every expected name is produced, flexible when at least one is', () => {
    const artifacts = [artifact('build/foo'), artifact('build/libbar.a', 'static_library')];
    expect(scoreArtifacts(artifacts, expected('foo', 'libbar.a'))).toMatchObject({
      completion: true,
      strict: true,
      flexible: true,
      matched: ['foo', 'libbar.a'],
      missing: [],
    });
    expect(scoreArtifacts(artifacts, expected('foo', 'baz'))).toMatchObject({
      strict: false,
      flexible: true,
      matched: ['foo'],
      missing: ['baz'],
    });
    expect(scoreArtifacts(artifacts, expected('baz'))).toMatchObject({
      completion: true,
      strict: false,
      flexible: false,
      matched: [],
      missing: ['baz'],
    });
  });

  it('versioned shared objects match their base name in both directions', () => {
    const artifacts = [
      artifact('lib/libfoo.so.1.2.3', 'shared_library'),
      artifact('x/libgdal.so.38.0.1', 'shared_library'),
    ];
    const metrics = scoreArtifacts(artifacts, expected('libfoo.so', 'libfoo.so.1', 'libgdal.so.37.3.12.0'));
    expect(metrics.strict).toBe(true);
    expect(metrics.matches).toEqual({
      'libfoo.so': ['lib/libfoo.so.1.2.3'],
      'libfoo.so.1': ['lib/libfoo.so.1.2.3'],
      'libgdal.so.37.3.12.0': ['x/libgdal.so.38.0.1'],
    });
    expect(
      scoreArtifacts([artifact('lib/libfoo.so', 'shared_library')], expected('libfoo.so.1')).strict,
    ).toBe(true);
  });

  it('path-style expected names match by their basename', () => {
    const metrics = scoreArtifacts([artifact('out/Release/foo')], expected('build/bin/foo'));
    expect(metrics).toMatchObject({
      strict: true,
      matched: ['build/bin/foo'],
      matches: { 'build/bin/foo': ['out/Release/foo'] },
    });
  });

  it('does not match on substrings or prefixes', () => {
    const artifacts = [
      artifact('libfoo.a', 'static_library'),
      artifact('foo-2'),
      artifact('bin/Foo'),
      artifact('foobar'),
    ];
    expect(scoreArtifacts(artifacts, expected('foo'))).toMatchObject({ flexible: false, missing: ['foo'] });
    expect(scoreArtifacts([artifact('libfoo.so', 'shared_library')], expected('libfoo.a')).flexible).toBe(
      false,
    );
  });

  it('a lib-prefixed name without extension accepts the static or the shared library', () => {
    expect(scoreArtifacts([artifact('libfoo.a', 'static_library')], expected('libfoo')).strict).toBe(true);
    expect(scoreArtifacts([artifact('libfoo.so.3', 'shared_library')], expected('libfoo')).strict).toBe(true);
    expect(scoreArtifacts([artifact('libfoobar.a', 'static_library')], expected('libfoo')).strict).toBe(
      false,
    );
  });

  it('.exe and Python extension tags are irrelevant', () => {
    expect(scoreArtifacts([artifact('build/PIMSim')], expected('PIMSim.exe')).strict).toBe(true);
    expect(scoreArtifacts([artifact('build/tool.exe')], expected('tool')).strict).toBe(true);
    const ext = artifact('build/lib/_sqlite3.cpython-312-x86_64-linux-gnu.so', 'shared_library');
    expect(scoreArtifacts([ext], expected('_sqlite3.cpython-310-x86_64-linux-gnu.so')).strict).toBe(true);
  });

  it('uses only normalised names: noise neither fails strict nor counts for flexible', () => {
    const artifacts = [artifact('build/libqhotkey.a', 'static_library')];
    const metrics = scoreArtifacts(
      artifacts,
      expected('libqhotkey.a', 'mocs_compilation.cpp.o', 'qhotkey.cpp.o', 'notes: built with -DFOO'),
    );
    expect(metrics).toMatchObject({ strict: true, flexible: true, matched: ['libqhotkey.a'], missing: [] });
    // Only noise: nothing is expected after normalisation.
    expect(scoreArtifacts([artifact('a.out')], expected('eekf.o', 'eekf_mat.o'))).toMatchObject({
      completion: true,
      strict: false,
      flexible: false,
      matched: [],
      missing: [],
    });
  });

  it('several artifacts with one name are all evidence', () => {
    const metrics = scoreArtifacts([artifact('b/foo'), artifact('a/foo')], expected('foo'));
    expect(metrics.matches).toEqual({ foo: ['a/foo', 'b/foo'] });
  });
});

describe('expectedFrom: an uncertain expectation (issue 31)', () => {
  const target = (name: string, extra: Partial<ExpectedTarget> = {}): ExpectedTarget => ({
    name,
    kind: 'executable',
    source: 'Makefile:4',
    confidence: 0.9,
    role: 'main',
    ...extra,
  });

  it('says why, with the build file and line, when a main product is named when the build runs', () => {
    const computed = target('tally-1.3-$(?)', {
      confidence: 0.3,
      source: 'Makefile:11',
      uncertain: 'tally-1.3-$(?): computed when make runs',
    });
    expect(expectedFrom({ expect: [] }, { expectedTargets: [computed] })).toEqual({
      names: [],
      source: 'none',
      ignored: [],
      uncertain: ['tally-1.3-$(?): computed when make runs (Makefile:11)'],
    });
    const both = expectedFrom({ expect: [] }, { expectedTargets: [target('gen'), computed] });
    expect(both.names).toEqual(['gen']);
    expect(both.uncertain).toHaveLength(1);
  });

  it('is certain when the names are given, or the uncertain target is not a main product', () => {
    const computed = target('x-$(?)', { uncertain: 'x-$(?): computed' });
    expect(expectedFrom({ expect: ['x-1'] }, { expectedTargets: [computed] }).uncertain).toBeUndefined();
    const helper = { ...computed, role: 'excluded' as const };
    expect(expectedFrom({ expect: [] }, { expectedTargets: [helper] }).uncertain).toBeUndefined();
  });
});
