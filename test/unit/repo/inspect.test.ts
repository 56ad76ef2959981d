import { describe, expect, it } from '@jest/globals';
import { chmodSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import { inspectRepo } from '../../../src/repo/inspect.js';
import type { ExpectedTarget, RepoInfo } from '../../../src/repo/types.js';
import { fixture, removeTree, tempTree } from './fixtures.js';

/** name → [kind, role] for compact exact comparisons. */
function targetMap(info: RepoInfo): Record<string, [ExpectedTarget['kind'], ExpectedTarget['role']]> {
  return Object.fromEntries(info.expectedTargets.map((t) => [t.name, [t.kind, t.role]]));
}

/** The names a strict check would use: main products a default build is sure to make. */
function strictNames(info: RepoInfo): string[] {
  return info.expectedTargets
    .filter((t) => t.role === 'main' && t.confidence >= 0.7)
    .map((t) => t.name)
    .sort();
}

describe('inspectRepo', () => {
  it('summarises a CMake repository', async () => {
    const info = await inspectRepo(fixture('cmake-full'));
    expect(info.root).toBe(fixture('cmake-full'));
    expect(info.name).toBe('cmake-full');
    expect(info.fileCount).toBe(8);
    expect(info.truncated).toBeUndefined();
    expect(info.buildSystems).toEqual([
      {
        kind: 'cmake',
        dir: '',
        file: 'CMakeLists.txt',
        linux: true,
        details: { hasProject: true, project: 'hello', minimumVersion: '3.16', hasPresets: true },
      },
    ]);
    expect(info.docs.map((d) => d.path)).toEqual(['README.md']);
    expect(info.languages).toEqual({ c: 2 });
    expect(info.mainSources).toEqual(['src/main.c']);
    expect(strictNames(info)).toEqual([
      'hello',
      'libfancycore.so',
      'libplainer.a',
      'libutil.a',
      'plugin.plug',
      'tool_alpha',
      'tool_beta',
      'unixonly',
      'viafunc',
    ]);
    expect(info.expectedTargets[0]).toMatchObject({
      name: 'hello',
      source: 'CMakeLists.txt:8',
      role: 'main',
    });
  });

  it('finds a CMake root that lives in a subdirectory', async () => {
    const info = await inspectRepo(fixture('cmake-subdir'));
    expect(info.buildSystems.map((b) => [b.kind, b.dir, b.file])).toEqual([
      ['cmake', 'src', 'src/CMakeLists.txt'],
    ]);
    expect(targetMap(info)).toEqual({
      deep: ['executable', 'main'],
      'libdeeplib.a': ['static_library', 'main'],
    });
    expect(info.docs[0]?.path).toBe('README');
  });

  it('reports autotools details for recipes', async () => {
    const full = await inspectRepo(fixture('autotools-full'));
    expect(full.buildSystems).toEqual([
      {
        kind: 'autotools',
        dir: '',
        file: 'configure.ac',
        linux: true,
        details: { hasConfigure: true, hasAutogen: 'autogen.sh', hasMakefileAm: true, hasMakefileIn: false },
      },
    ]);
    const bare = await inspectRepo(fixture('autotools-bare'));
    expect(bare.buildSystems[0]).toMatchObject({
      kind: 'autotools',
      file: 'configure.in',
      details: { hasConfigure: false, hasAutogen: 'bootstrap', hasMakefileAm: true },
    });
    expect(strictNames(bare)).toEqual(['old']);
  });

  it('treats a committed configure without configure.ac as its own kind', async () => {
    const info = await inspectRepo(fixture('configure-only'));
    expect(info.buildSystems.map((b) => b.kind)).toEqual(['configure']);
    expect(info.buildSystems[0]?.details).toMatchObject({ hasMakefileIn: true });
    expect(targetMap(info)).toEqual({ handmade: ['executable', 'main'] });
  });

  it('orders Linux systems before a root Visual Studio solution', async () => {
    const info = await inspectRepo(fixture('msbuild'));
    expect(info.buildSystems.map((b) => [b.kind, b.dir, b.linux])).toEqual([
      ['make', 'linux', true],
      ['msbuild', '', false],
    ]);
    expect(info.buildSystems[1]?.file).toBe('Game.sln');
    expect(strictNames(info)).toEqual(['game']);
  });

  it('flags Xcode projects as non-Linux', async () => {
    const info = await inspectRepo(fixture('xcode'));
    expect(info.buildSystems).toEqual([
      { kind: 'xcode', dir: '', file: 'App.xcodeproj', linux: false, details: {} },
    ]);
    expect(info.languages).toEqual({ objc: 1 });
  });

  it.each([
    ['scons', 'scons', 'SConstruct', {}],
    ['bazel', 'bazel', 'WORKSPACE', {}],
    ['cargo', 'cargo', 'Cargo.toml', { workspace: false, package: 'rtool' }],
    ['setup-py', 'setup.py', 'setup.py', { extModules: true, evidence: 'ext_modules' }],
    ['pyproject-skbuild', 'setup.py', 'pyproject.toml', { extModules: true, evidence: 'scikit-build' }],
    ['meson-full', 'meson', 'meson.build', { project: 'mproj' }],
    ['qmake-app', 'qmake', 'qapp.pro', { template: 'app', projects: 'qapp.pro' }],
    ['qmake-lib', 'qmake', 'qlib.pro', { template: 'lib', projects: 'qlib.pro' }],
    ['make-vars', 'make', 'Makefile', { generated: false }],
    ['make-link', 'make', 'makefile', { generated: false }],
    ['make-shared', 'make', 'GNUmakefile', { generated: false }],
  ])('detects %s as %s from %s', async (name, kind, file, details) => {
    const info = await inspectRepo(fixture(name));
    expect(info.buildSystems).toEqual([{ kind, dir: '', file, linux: true, details }]);
  });

  it('ignores a pure-Python setup.py and reports no build system when there is none', async () => {
    expect((await inspectRepo(fixture('setup-py-pure'))).buildSystems).toEqual([]);
    const info = await inspectRepo(fixture('no-build'));
    expect(info.buildSystems).toEqual([]);
    // No build system and no documented compile line: every file defining main() is an expected program.
    expect(info.expectedTargets.map((t) => [t.name, t.source, t.role])).toEqual([
      ['app', 'app.cpp', 'main'],
      ['hello', 'hello.c', 'main'],
      ['knr', 'knr.c', 'main'],
    ]);
    expect(info.mainSources).toEqual(['app.cpp', 'hello.c', 'knr.c']);
    expect(info.languages).toEqual({ c: 3, cpp: 1 });
  });

  it('reads submodules and leaves their build files out', async () => {
    const info = await inspectRepo(fixture('submodules'));
    expect(info.submodules).toEqual([
      { path: 'vendor/libfoo', url: 'https://github.com/example/libfoo.git', populated: true },
      { path: 'ext/missing', url: 'git@github.com:example/missing.git', populated: false },
    ]);
    expect(info.buildSystems.map((b) => [b.kind, b.dir])).toEqual([['make', '']]);
    expect(info.expectedTargets.map((t) => t.name)).toEqual(['app']);
  });

  it('lists CI configurations and Dockerfiles', async () => {
    const info = await inspectRepo(fixture('ci'));
    expect(info.ciFiles).toEqual([
      '.github/workflows/build.yml',
      '.github/workflows/release.yaml',
      '.circleci/config.yml',
      '.gitlab-ci.yml',
      '.travis.yml',
      'appveyor.yml',
      'azure-pipelines.yml',
    ]);
    expect(info.dockerfiles).toEqual(['Dockerfile', 'docker/Dockerfile.alpine', 'docker/dev.Dockerfile']);
  });

  it('detects a build script at the root, one per directory', async () => {
    const root = tempTree({ build: '#!/bin/sh\nmake\n', 'compile.sh': 'gcc -o x x.c\n', notes: 'x' });
    const plain = tempTree({ build: 'not a script\n', 'compile.sh': 'gcc -o x x.c\n' });
    try {
      chmodSync(path.join(root, 'build'), 0o755);
      expect((await inspectRepo(root)).buildSystems).toEqual([
        { kind: 'script', dir: '', file: 'build', linux: true, details: { executable: true, shebang: true } },
      ]);
      // `build` that is neither executable nor a #! script is not a build script; *.sh always is.
      expect((await inspectRepo(plain)).buildSystems).toEqual([
        {
          kind: 'script',
          dir: '',
          file: 'compile.sh',
          linux: true,
          details: { executable: false, shebang: false },
        },
      ]);
    } finally {
      removeTree(root);
      removeTree(plain);
    }
  });

  it('prefers CMake over Makefiles below it and over a configure next to it', async () => {
    const root = tempTree({
      'CMakeLists.txt': 'cmake_minimum_required(VERSION 3.10)\nproject(p C)\nadd_executable(p main.c)\n',
      Makefile: 'p: main.c\n\tcc -o p main.c\n',
      configure: '#!/bin/sh\n',
      'tools/Makefile': 'helper: h.c\n\tcc -o helper h.c\n',
      'examples/CMakeLists.txt': 'project(ex C)\nadd_executable(ex ex.c)\n',
    });
    try {
      const info = await inspectRepo(root);
      expect(info.buildSystems.map((b) => `${b.kind}:${b.dir}`)).toEqual(['cmake:', 'configure:', 'make:']);
      // The Makefile names the same program; the tools/ one is another system's and not strict.
      expect(strictNames(info)).toEqual(['p']);
      expect(info.expectedTargets.find((t) => t.name === 'helper')?.confidence).toBeLessThan(0.7);
      expect(info.expectedTargets.find((t) => t.name === 'ex')?.role).toBe('example');
    } finally {
      removeTree(root);
    }
  });

  it('ranks Makefile roots by depth, test and example directories last', async () => {
    const root = tempTree({
      'examples/Makefile': 'a: a.c\n\tcc -o a a.c\n',
      'project/src/Makefile': 'b: b.c\n\tcc -o b b.c\n',
      'lib/Makefile': 'c: c.c\n\tcc -o c c.c\n',
      'lib/inner/Makefile': 'd: d.c\n\tcc -o d d.c\n',
      'third_party/zlib/Makefile': 'z: z.c\n\tcc -o z z.c\n',
    });
    try {
      const info = await inspectRepo(root);
      expect(info.buildSystems.map((b) => b.file)).toEqual([
        'lib/Makefile',
        'project/src/Makefile',
        'examples/Makefile',
      ]);
      expect(info.expectedTargets.map((t) => t.name)).not.toContain('z');
    } finally {
      removeTree(root);
    }
  });

  it('names no target from a Cargo.toml that is not TOML, and says which file and where', async () => {
    const root = tempTree({
      'Cargo.toml': '[package]\nname = "p"\nversion = "0.1\n',
      'src/main.rs': 'fn main() {}\n',
    });
    try {
      const info = await inspectRepo(root);
      expect(info.expectedTargets).toEqual([]);
      const rust = info.ecosystems?.find((e) => e.kind === 'rust');
      expect(rust?.notes).toContainEqual(
        expect.stringMatching(/^Cargo\.toml could not be read as TOML \(line 3, column \d+: [^\n]+\)$/),
      );
    } finally {
      removeTree(root);
    }
  });

  it('throws a ConfigError for a root that is not a directory', async () => {
    await expect(inspectRepo(fixture('does-not-exist'))).rejects.toBeInstanceOf(ConfigError);
    await expect(inspectRepo(path.join(fixture('no-build'), 'hello.c'))).rejects.toThrow(/not a directory/);
  });

  it('stops at the entry cap and says so', async () => {
    const files: Record<string, string> = { Makefile: 'all:\n' };
    for (let i = 0; i < 30; i++) files[`d${i}/f.c`] = 'int x;\n';
    const root = tempTree(files);
    try {
      const info = await inspectRepo(root, { maxEntries: 20 });
      expect(info.truncated).toBe(true);
      expect(info.buildSystems.map((b) => b.kind)).toEqual(['make']);
      expect(info.fileCount).toBe(1);
    } finally {
      removeTree(root);
    }
  });
});
