import { describe, expect, it } from '@jest/globals';
import path from 'node:path';

import { allPackages } from '../../../src/recipe/render-dockerfile.js';
import { fullSequenceRecipe, minimiseRecipe, packagesInScript } from '../../../src/finalize/minimise.js';
import { turnsFromTrajectory } from '../../../src/report/turns.js';
import { readTrajectory } from '../../../src/trajectory/recorder.js';
import { BASELINE_SCRIPT } from '../../../src/agent/strategies/baseline.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import { repoInfo, system } from '../../fakes/repo-info.js';
import { finding, scriptRecipe, turn } from './helpers.js';

describe('packagesInScript', () => {
  it('reads bb_apt_install and apt-get install lines, skipping options, variables and "$@"', () => {
    expect(packagesInScript("bb_apt_install zlib1g-dev 'libssl-dev'\nbb_apt_install $missing")).toEqual([
      'zlib1g-dev',
      'libssl-dev',
    ]);
    expect(packagesInScript(BASELINE_SCRIPT)).toEqual(['build-essential', 'cmake']);
    expect(packagesInScript('sudo apt install -y libfoo-dev=1.2 g++-multilib && make')).toEqual([
      'g++-multilib',
    ]);
    const rules = renderScript(candidateRecipes(repoInfo({ buildSystems: [system('make')] }))[0]!, {
      ...emptyFixes(),
      packages: ['libpng-dev'],
    });
    // The preamble's helper definitions install "$@" and $missing: not packages.
    expect(packagesInScript(rules)).toEqual(['libpng-dev']);
  });
});

describe('minimiseRecipe', () => {
  const turns = [
    turn(0, {
      purpose: 'cmake',
      exitCode: 1,
      rootCause: finding('missing-header', 'missing header zlib.h'),
      recipe: scriptRecipe({
        steps: [{ purpose: 'configure', command: 'cmake -S . -B build' }],
        tools: [{ command: 'cmake', pkg: 'cmake' }],
      }),
    }),
    turn(1, {
      purpose: 'cmake + install-header-package',
      exitCode: 1,
      reason: 'zlib.h is missing; zlib1g-dev provides it',
      recipe: scriptRecipe({
        packages: ['zlib1g-dev'],
        prelude: ["git config --global --add safe.directory '*'"],
        steps: [{ purpose: 'configure', command: 'cmake -S . -B build' }],
        tools: [{ command: 'cmake', pkg: 'cmake' }],
      }),
    }),
    turn(2, {
      purpose: 'make',
      exitCode: 1,
      rootCause: finding('glibc-sysctl-removed', 'sys/sysctl.h was removed from glibc (2.32)'),
      recipe: scriptRecipe({ packages: ['zlib1g-dev'] }),
    }),
    turn(3, {
      purpose: 'make + guard-removed-glibc-header',
      reason: 'glibc 2.32 removed <sys/sysctl.h>',
      passed: true,
      artifacts: 1,
      patches: [{ file: 'files including <sys/sysctl.h>', reason: 'glibc 2.32 removed <sys/sysctl.h>' }],
      recipe: scriptRecipe({
        packages: ['zlib1g-dev'],
        prelude: ['rm -rf build'],
        edits: ["grep -rl sysctl . | xargs -r sed -i '/sysctl/d'"],
        env: { BB_EXTRA_CFLAGS: '-fcommon' },
      }),
    }),
    turn(4, {
      purpose: 'after success (never happens)',
      passed: false,
      recipe: scriptRecipe({ packages: ['not-this'] }),
    }),
  ];

  it('is the successful turn with the packages and preparation of every turn before it; edits become patches', () => {
    const recipe = minimiseRecipe(turns, { patches: ['patches/0001-x.patch'] })!;
    expect(recipe.mode).toBe('minimal');
    expect(recipe.turn).toBe(3);
    expect(recipe.packages).toEqual(['zlib1g-dev']);
    expect(recipe.tools.map((t) => t.command)).toEqual(['cmake', 'cc', 'make']);
    expect(recipe.prelude).toEqual(["git config --global --add safe.directory '*'", 'rm -rf build']);
    expect(recipe.steps).toEqual([{ purpose: 'build', command: 'make -j"${BB_JOBS:-$(nproc)}"' }]);
    expect(recipe.env).toEqual({ BB_EXTRA_CFLAGS: '-fcommon' });
    expect(recipe.patches).toEqual(['patches/0001-x.patch']);
    expect(recipe.notes.join(' ')).toMatch(/3 earlier attempts are superseded by turn 3/);
    expect(allPackages(recipe)).toEqual(['cmake', 'build-essential', 'make', 'zlib1g-dev', 'patch']);
  });

  it('keeps the source edits as commands when there is no patch series', () => {
    const recipe = minimiseRecipe(turns, { keepEdits: true })!;
    expect(recipe.prelude).toContain("grep -rl sysctl . | xargs -r sed -i '/sysctl/d'");
    expect(recipe.patches).toEqual([]);
  });

  it('is undefined when no turn passed the verifiers', () => {
    expect(minimiseRecipe(turns.slice(0, 3))).toBeUndefined();
    expect(fullSequenceRecipe([])).toBeUndefined();
  });

  it('takes a free-form final script as the build step and parses packages out of free-form turns', () => {
    const recipe = minimiseRecipe([
      turn(0, { exitCode: 1, script: 'apt-get install -y libfoo-dev\nmake' }),
      turn(1, { passed: true, script: 'set -e\nbb_apt_install libbar-dev\nmake all\n' }),
    ])!;
    expect(recipe.packages).toEqual(['libfoo-dev', 'libbar-dev']);
    expect(recipe.steps).toEqual([
      { purpose: 'build', command: 'set -e\nbb_apt_install libbar-dev\nmake all' },
    ]);
    expect(recipe.notes.join(' ')).toMatch(/free-form/);
  });

  it('minimises a recorded trajectory (package + patch) to the last script with the package kept', async () => {
    const events = await readTrajectory(path.resolve('test/fixtures/golden/success/trajectory.jsonl'));
    const { turns: recorded } = turnsFromTrajectory(events);
    expect(recorded.map((t) => [t.turn, t.exitCode, t.passed])).toEqual([
      [0, 2, false],
      [1, 2, false],
      [2, 0, true],
    ]);
    const recipe = minimiseRecipe(recorded, { patches: ['patches/0001-a.patch'] })!;
    expect(recipe.turn).toBe(2);
    expect(recipe.packages).toEqual(['zlib1g-dev']);
    expect(recipe.prelude).toEqual([]);
    expect(recipe.steps.map((s) => s.purpose)).toEqual(['build']);
    const full = fullSequenceRecipe(recorded)!;
    expect(full.scripts.map((s) => s.turn)).toEqual([0, 1, 2]);
    expect(full.scripts[2]!.script).toContain('bb_apt_install zlib1g-dev');
  });
});
