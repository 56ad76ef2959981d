import { afterEach, describe, expect, it } from '@jest/globals';

import { inspectRepo } from '../../../src/repo/inspect.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { expectedFrom, scoreArtifacts } from '../../../src/verify/scoring.js';
import type { Artifact } from '../../../src/verify/types.js';
import { removeTree, tempTree } from './fixtures.js';

const CMAKE = 'cmake_minimum_required(VERSION 3.10)\nproject(foo C)\nadd_library(foo foo.c)\n';

describe('shared libraries: the expectation and the CMake recipe agree', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it('expects libfoo.so and configures -DBUILD_SHARED_LIBS=ON when libtool ships it shared', async () => {
    root = tempTree({
      'CMakeLists.txt': CMAKE,
      'configure.ac': 'AC_INIT([foo], [1])\nAM_INIT_AUTOMAKE\nLT_INIT\nAC_OUTPUT\n',
      'Makefile.am': 'lib_LTLIBRARIES = libfoo.la\nlibfoo_la_SOURCES = foo.c\n',
      'foo.c': 'int foo(void) { return 1; }\n',
    });
    const repo = await inspectRepo(root);
    expect(repo.buildSystems[0]!.kind).toBe('cmake');
    const foo = repo.expectedTargets.find((t) => t.name.startsWith('libfoo'));
    expect(foo).toMatchObject({
      name: 'libfoo.so',
      kind: 'shared_library',
      buildOption: '-DBUILD_SHARED_LIBS=ON',
    });
    expect(foo?.note).toContain("libtool's lib_LTLIBRARIES");
    expect(expectedFrom({ expect: [] }, repo).names).toEqual(['libfoo.so']);
    const [recipe] = candidateRecipes(repo);
    expect(recipe?.steps[0]?.command).toContain('-DBUILD_SHARED_LIBS=ON');
  });

  it('takes a SOVERSION as the same evidence', async () => {
    root = tempTree({
      'CMakeLists.txt': `${CMAKE}set_target_properties(foo PROPERTIES VERSION 1.2.0 SOVERSION 1)\n`,
      'foo.c': 'int foo(void) { return 1; }\n',
    });
    const repo = await inspectRepo(root);
    expect(repo.expectedTargets.find((t) => t.name.startsWith('libfoo'))?.name).toBe('libfoo.so');
  });

  it('keeps a static default without such evidence', async () => {
    root = tempTree({ 'CMakeLists.txt': CMAKE, 'foo.c': 'int foo(void) { return 1; }\n' });
    const repo = await inspectRepo(root);
    expect(repo.expectedTargets.find((t) => t.name.startsWith('libfoo'))?.name).toBe('libfoo.a');
    expect(candidateRecipes(repo)[0]?.steps[0]?.command).not.toContain('BUILD_SHARED_LIBS');
  });

  it('never counts a static archive for an expected shared object', () => {
    const archive: Artifact = { path: 'build/libfoo.a', kind: 'static_library', size: 10 };
    const metrics = scoreArtifacts([archive], { names: ['libfoo.so'], source: 'inferred' });
    expect(metrics).toMatchObject({ strict: false, missing: ['libfoo.so'] });
    const shared: Artifact = { path: 'build/libfoo.so.1.2.0', kind: 'shared_library', size: 10 };
    expect(scoreArtifacts([shared], { names: ['libfoo.so'], source: 'inferred' }).strict).toBe(true);
  });
});
