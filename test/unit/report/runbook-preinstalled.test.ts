import { describe, expect, it } from '@jest/globals';

import type { ReportTurn } from '../../../src/finalize/turns.js';
import type { FinalRecipe } from '../../../src/recipe/model.js';
import { dependencyReasons, includeRootsWhy } from '../../../src/report/runbook.js';

const turn: ReportTurn = {
  turn: 0,
  purpose: 'meson',
  reason: 'meson.build found',
  script: '',
  recipe: { tools: [], packages: ['zlib1g-dev', 'libfoo-dev'], prelude: [], edits: [], env: {}, steps: [] },
  timedOut: false,
  passed: true,
  artifacts: 1,
  failures: [],
  notes: [],
};

const recipe: FinalRecipe = {
  mode: 'minimal',
  turn: 0,
  tools: [],
  packages: ['zlib1g-dev', 'libfoo-dev'],
  patches: [],
  prelude: [],
  env: {},
  steps: [],
  scripts: [],
  notes: [],
};

describe('dependencyReasons with pre-installed packages', () => {
  it('names the declarations a package was installed for before the first script', () => {
    const reasons = dependencyReasons([turn], recipe, {
      packages: [{ package: 'zlib1g-dev', declarations: ["meson.build:4: dependency('zlib')"] }],
      skipped: [],
      lookupMs: 5,
    });
    expect(reasons).toEqual([
      {
        name: 'zlib1g-dev',
        why: "declared by the build files (meson.build:4: dependency('zlib')); installed before the first script",
      },
      { name: 'libfoo-dev', why: 'installed by turn 0 (meson)' },
    ]);
  });

  it("a package a repair put in before the first script says that repair's reason", () => {
    const why = 'before the first script, shipped-library: the git submodule vendor/foo is not checked out';
    const early: ReportTurn = { ...turn, upFront: [{ kind: 'package', what: 'libfoo-dev', why }] };
    expect(dependencyReasons([early], recipe)).toContainEqual({ name: 'libfoo-dev', why });
  });
});

describe('includeRootsWhy', () => {
  const preinstalled = {
    packages: [],
    includeDirs: [{ dir: '/usr/include/eigen3', declarations: ['norm.cpp:1: #include <Eigen/Core>'] }],
    skipped: [],
    lookupMs: 1,
  };
  it('says which declared header needed each include root on CPATH', () => {
    expect(includeRootsWhy(preinstalled, { CPATH: '/usr/include/eigen3' })).toBe(
      " (the include roots of the declared headers, outside the compiler's default search path: `/usr/include/eigen3` for norm.cpp:1: #include <Eigen/Core>)",
    );
  });
  it('says nothing of a root the recipe does not set, or without any', () => {
    expect(includeRootsWhy(preinstalled, { CPATH: '/usr/include/jsoncpp' })).toBe('');
    expect(includeRootsWhy(undefined, { CPATH: '/usr/include/eigen3' })).toBe('');
  });
});
