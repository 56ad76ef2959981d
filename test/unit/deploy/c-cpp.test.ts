/** The C/C++ ecosystem: detection (sources with a build system) and its setup (the build's recipes). */
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';

import { cCppSetup } from '../../../src/deploy/recipes/c-cpp.js';
import { deployRecipes, SETUPS } from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { cCppDetector } from '../../../src/repo/ecosystems/c-cpp.js';
import { DETECTORS } from '../../../src/repo/ecosystems/index.js';
import { inspectRepo } from '../../../src/repo/inspect.js';

const goal: DeployGoal = {
  target: { command: './app', cwd: '', timeoutMs: 60_000, evidence: {} },
  requires: [],
  registries: { mode: 'auto', mirrors: {} },
};

describe('c-cpp detector', () => {
  it('finds C/C++ sources with a build system, the shallowest build file first', async () => {
    const info = await cCppDetector.detect('/x', [
      'src/Makefile',
      'CMakeLists.txt',
      'src/main.cpp',
      'src/util.h',
    ]);
    expect(info).toEqual({
      kind: 'c-cpp',
      manifests: ['CMakeLists.txt', 'src/Makefile'],
      dependencies: [],
      notes: ['1 C/C++ source file; built with CMakeLists.txt and 1 more build files'],
    });
    expect((await cCppDetector.detect('/x', ['gui/app.pro', 'gui/main.cc']))?.manifests).toEqual([
      'gui/app.pro',
    ]);
  });

  it('needs both: sources without a build system, or a build system without sources, are not C/C++', async () => {
    expect(await cCppDetector.detect('/x', ['main.c', 'README.md'])).toBeUndefined();
    expect(await cCppDetector.detect('/x', ['Makefile', 'docs/conf.py', 'include/api.h'])).toBeUndefined();
  });

  it('is registered, with its setup', () => {
    expect(DETECTORS.map((d) => d.kind)).toContain('c-cpp');
    expect(SETUPS.map((s) => s.kind)).toContain('c-cpp');
  });
});

describe('c-cpp setup', () => {
  it('is the repository’s build recipes, re-labelled as deploy setup, combined into the deploy recipe', async () => {
    const repo = await inspectRepo(path.resolve('test/fixtures/repos/deploy-c-stats'));
    expect(repo.ecosystems?.map((e) => e.kind)).toEqual(['c-cpp']);
    const eco = repo.ecosystems![0]!;
    const recipes = cCppSetup.recipes(eco, { repo, goal });
    expect(recipes[0]).toMatchObject({
      id: 'c-cpp:make:',
      label: 'C/C++: make',
      evidence: 'the target needs the repository built: Makefile found',
    });
    expect(recipes[0]!.steps.map((s) => s.purpose)).toEqual(['build']);
    const [deploy] = deployRecipes(repo, goal);
    expect(deploy).toMatchObject({ id: 'deploy:c-cpp:make:', system: 'deploy', label: 'C/C++: make' });
  });
});
