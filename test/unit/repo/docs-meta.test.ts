import { describe, expect, it } from '@jest/globals';

import { pythonExtensionEvidence } from '../../../src/repo/build-systems.js';
import { findDocs } from '../../../src/repo/docs.js';
import { findCiFiles, findDockerfiles, parseGitmodules } from '../../../src/repo/meta.js';
import { isVendoredPath, joinRel, roleOf, roleOfDir, roleOfName, wordsOf } from '../../../src/repo/paths.js';
import { walkTree } from '../../../src/repo/walk.js';
import { fixture, removeTree, tempTree } from './fixtures.js';

describe('findDocs', () => {
  it('ranks install/build docs above a README without build words, and explains why', async () => {
    const root = fixture('docs');
    const docs = await findDocs(root, (await walkTree(root)).files);
    expect(docs.map((d) => d.path)).toEqual([
      'INSTALL',
      'docs/building.md',
      'doc/install-guide.rst',
      'tools/README.md',
      'README.md',
      'CONTRIBUTING.md',
    ]);
    expect(docs[0]).toEqual({
      path: 'INSTALL',
      score: 15,
      why: 'install doc at the root; mentions make, configure, package install, dependencies, build section',
    });
    expect(docs.find((d) => d.path === 'README.md')?.why).toBe('README at the root; no build keywords');
    // A Bazel BUILD file, a nested README without build words and install.sh are not documents.
    for (const absent of ['BUILD', 'sub/README.md', 'install.sh', 'docs/index.md'])
      expect(docs.map((d) => d.path)).not.toContain(absent);
  });

  it('pushes generic GNU INSTALL text and empty files down', async () => {
    const root = tempTree({
      INSTALL:
        'Installation Instructions\n*************\n\nThese are generic installation instructions.\n\n./configure && make\n',
      'BUILDING.md': '# Building\n\n    cmake -B build && cmake --build build\n',
      'README.md': '',
      'vendor/lib/INSTALL': 'make install\n',
    });
    try {
      const docs = await findDocs(root, (await walkTree(root)).files);
      expect(docs.map((d) => d.path)).toEqual(['BUILDING.md', 'INSTALL', 'README.md']);
      expect(docs[1]?.why).toMatch(/generic GNU INSTALL text/);
      expect(docs[2]?.why).toMatch(/empty/);
    } finally {
      removeTree(root);
    }
  });
});

describe('CI files and Dockerfiles', () => {
  it('keeps only CI locations the services read', () => {
    expect(
      findCiFiles([
        '.github/workflows/z.yml',
        '.github/workflows/a.yaml',
        '.github/workflows/readme.md',
        '.github/dependabot.yml',
        'Jenkinsfile',
        'sub/.travis.yml',
        '.circleci/config.yml',
        '.circleci/other.yml',
      ]),
    ).toEqual(['.github/workflows/a.yaml', '.github/workflows/z.yml', '.circleci/config.yml', 'Jenkinsfile']);
  });

  it('finds Dockerfiles by name anywhere, shallow first', () => {
    expect(
      findDockerfiles([
        'x/y/Dockerfile',
        'Dockerfile.dev',
        'ci/build.dockerfile',
        'Containerfile',
        'dockerfiles.md',
        'docker-compose.yml',
      ]),
    ).toEqual(['Containerfile', 'Dockerfile.dev', 'ci/build.dockerfile', 'x/y/Dockerfile']);
  });
});

describe('parseGitmodules', () => {
  it('reads path and url, quoting and comments, and defaults the path to the name', () => {
    expect(
      parseGitmodules(
        '# comment\n[submodule "a"]\n\tpath = libs/a/\n\turl = "https://x/a.git"\n[core]\n\tbare = false\n[submodule "b"]\n\turl=git@x:b.git ; note\n',
      ),
    ).toEqual([
      { name: 'a', path: 'libs/a', url: 'https://x/a.git' },
      { name: 'b', path: 'b', url: 'git@x:b.git' },
    ]);
  });
});

describe('pythonExtensionEvidence', () => {
  it.each([
    ['setup.py', 'setup(ext_modules=[])', 'ext_modules'],
    [
      'setup.py',
      'from pybind11.setup_helpers import Pybind11Extension\nPybind11Extension("m", [])',
      'Extension()',
    ],
    ['setup.py', 'setup(ext_modules=cythonize("x.pyx"))', 'ext_modules'],
    ['setup.py', 'setup(name="pure")', undefined],
    ['pyproject.toml', '[build-system]\nbuild-backend = "mesonpy"', 'meson-python'],
    ['pyproject.toml', '[tool.setuptools]\next-modules = [{name = "m", sources = ["m.c"]}]', 'ext-modules'],
    ['pyproject.toml', '[build-system]\nrequires = ["setuptools"]', undefined],
  ])('%s %j → %s', (file, text, expected) => {
    expect(pythonExtensionEvidence(file, text)).toBe(expected);
  });
});

describe('paths', () => {
  it('gives roles from names and directories', () => {
    expect(wordsOf('parserTest_v2')).toEqual(['parser', 'test', 'v']);
    expect(
      [
        'test_parser',
        'parser_test',
        'parserTest',
        'unittests',
        'bench_io',
        'demo',
        'contest',
        'latest',
        'checksum',
        'tool',
      ].map(roleOfName),
    ).toEqual([
      'test',
      'test',
      'test',
      'test',
      'test',
      'example',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(['tests/unit', 'benchmarks', 'src/examples/x', 'samples', 'src', ''].map(roleOfDir)).toEqual([
      'test',
      'test',
      'example',
      'example',
      undefined,
      undefined,
    ]);
    expect(roleOf('tool', 'examples')).toBe('example');
    expect(roleOf('tool', 'src')).toBe('main');
  });

  it('joins relative paths without leaving the root and spots vendored code', () => {
    expect(joinRel('a/b', '../c/./d')).toBe('a/c/d');
    expect(joinRel('', '../../x')).toBe('x');
    expect(['third_party/zlib/x.c', 'src/vendor/y', 'External/z', 'src/main.c'].map(isVendoredPath)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
