import { afterEach, describe, expect, it } from '@jest/globals';
import path from 'node:path';

import { inspectRepo } from '../../../src/repo/inspect.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { expectedFrom, scoreArtifacts } from '../../../src/verify/scoring.js';
import type { Artifact } from '../../../src/verify/types.js';
import { removeTree, tempTree } from './fixtures.js';

const CMAKE = 'cmake_minimum_required(VERSION 3.10)\nproject(foo C)\nadd_library(foo foo.c)\n';
const FOO = { 'foo.c': 'int foo(void) { return 1; }\n' };

/** The expected names and the first recipe's commands of a tree. */
async function expectation(root: string): Promise<{ names: string[]; commands: string }> {
  const repo = await inspectRepo(root);
  const [recipe] = candidateRecipes(repo);
  return {
    names: expectedFrom({ expect: [] }, repo).names,
    commands: (recipe?.steps ?? []).map((s) => s.command).join('\n'),
  };
}

/**
 * CMake is built in its default configuration, and the expectation names what that configuration makes:
 * an add_library() without a type is static unless the project itself turns BUILD_SHARED_LIBS on. The
 * recipe never flips the default, whatever the packaging (libtool, SOVERSION, a .pc file) suggests.
 */
describe('CMake default configurations: expect what the default build makes', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it('BUILD_SHARED_LIBS unset: libfoo.a, even when libtool packaging ships libfoo shared', async () => {
    root = tempTree({
      'CMakeLists.txt': CMAKE,
      'configure.ac': 'AC_INIT([foo], [1])\nAM_INIT_AUTOMAKE\nLT_INIT\nAC_OUTPUT\n',
      'Makefile.am': 'lib_LTLIBRARIES = libfoo.la\nlibfoo_la_SOURCES = foo.c\n',
      ...FOO,
    });
    const repo = await inspectRepo(root);
    expect(repo.buildSystems[0]!.kind).toBe('cmake');
    const { names, commands } = await expectation(root);
    expect(names).toEqual(['libfoo.a']);
    expect(commands).toContain('cmake -S . -B build');
    expect(commands).not.toContain('BUILD_SHARED_LIBS');
  });

  it('BUILD_SHARED_LIBS unset with a SOVERSION: still the static archive', async () => {
    root = tempTree({
      'CMakeLists.txt': `${CMAKE}set_target_properties(foo PROPERTIES VERSION 1.2.0 SOVERSION 1)\n`,
      ...FOO,
    });
    const { names, commands } = await expectation(root);
    expect(names).toEqual(['libfoo.a']);
    expect(commands).not.toContain('BUILD_SHARED_LIBS');
  });

  it('BUILD_SHARED_LIBS OFF set by the project: libfoo.a', async () => {
    root = tempTree({
      'CMakeLists.txt': CMAKE.replace('add_library', 'set(BUILD_SHARED_LIBS OFF)\nadd_library'),
      ...FOO,
    });
    expect((await expectation(root)).names).toEqual(['libfoo.a']);
  });

  it('BUILD_SHARED_LIBS ON set by the project (set or option default ON): libfoo.so, no -D needed', async () => {
    root = tempTree({
      'CMakeLists.txt': CMAKE.replace('add_library', 'set(BUILD_SHARED_LIBS ON)\nadd_library'),
      ...FOO,
    });
    const byset = await expectation(root);
    expect(byset.names).toEqual(['libfoo.so']);
    expect(byset.commands).not.toContain('BUILD_SHARED_LIBS');
    removeTree(root);
    root = tempTree({
      'CMakeLists.txt': CMAKE.replace('add_library', 'option(BUILD_SHARED_LIBS "shared" ON)\nadd_library'),
      ...FOO,
    });
    expect((await expectation(root)).names).toEqual(['libfoo.so']);
  });

  it('the committed fixtures: cmake-default-static and shared-library expect their static archives', async () => {
    const ticker = await expectation(path.resolve('test/fixtures/repos/cmake-default-static'));
    expect(ticker.names.sort()).toEqual(['libticker.a', 'tickdemo']);
    expect(ticker.commands).not.toContain('BUILD_SHARED_LIBS');
    const shout = await expectation(path.resolve('test/fixtures/repos/shared-library'));
    expect(shout.names).toEqual(['libshout.a']);
  });

  it('never counts a static archive for an expected shared object', () => {
    const archive: Artifact = { path: 'build/libfoo.a', kind: 'static_library', size: 10 };
    const metrics = scoreArtifacts([archive], { names: ['libfoo.so'], source: 'inferred' });
    expect(metrics).toMatchObject({ strict: false, missing: ['libfoo.so'] });
    const shared: Artifact = { path: 'build/libfoo.so.1.2.0', kind: 'shared_library', size: 10 };
    expect(scoreArtifacts([shared], { names: ['libfoo.so'], source: 'inferred' }).strict).toBe(true);
  });
});
