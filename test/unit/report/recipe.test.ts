import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  allPackages,
  fullSequenceRecipe,
  minimiseRecipe,
  packagesInScript,
  renderBuildSh,
  renderDockerfile,
} from '../../../src/report/recipe.js';
import { parseDockerfile } from '../../helpers/dockerfile.js';
import { turnsFromTrajectory } from '../../../src/report/turns.js';
import { readTrajectory } from '../../../src/trajectory/recorder.js';
import { BASELINE_SCRIPT } from '../../../src/agent/strategies/baseline.js';
import { candidateRecipes, emptyFixes, renderScript } from '../../../src/recipe/recipes.js';
import { repoInfo, system } from '../../fakes/repo-info.js';
import { finding, scriptRecipe, turn } from '../finalize/helpers.js';

const META = { repo: 'demo', version: '9.9.9', baseImage: 'debian:bookworm' };

function bashSyntaxOk(script: string): string {
  const result = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
  return result.status === 0 ? '' : result.stderr;
}

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

describe('renderBuildSh', () => {
  it('writes a bash script with set -euo pipefail and one commented step per purpose', () => {
    const recipe = minimiseRecipe(
      [
        turn(0, {
          passed: true,
          recipe: scriptRecipe({
            packages: ['zlib1g-dev'],
            prelude: ['chmod +x ./autogen.sh'],
            env: { BB_EXTRA_CFLAGS: "-include 'stdint.h'", LIBS: '-ltirpc' },
            steps: [
              { purpose: 'generate', command: 'autoreconf -fi' },
              { purpose: 'configure', command: 'sh ./configure --disable-werror' },
              { purpose: 'build', command: 'make -j"${BB_JOBS:-$(nproc)}"' },
            ],
          }),
        }),
      ],
      { patches: ['patches/0001-fix.patch'] },
    )!;
    const text = renderBuildSh(recipe, META);
    expect(text.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(text).toContain('\nset -euo pipefail\n');
    for (const purpose of ['dependencies', 'patch', 'generate', 'configure', 'build']) {
      expect(text).toMatch(new RegExp(`^# --- ${purpose}: `, 'm'));
    }
    expect(text).toContain('need_package zlib1g-dev');
    expect(text).toContain('need_command patch patch');
    expect(text).toContain("export BB_EXTRA_CFLAGS='-include '\\''stdint.h'\\'''");
    expect(text).toContain('BB_WRAPPER_DIR');
    expect(text).toContain('(autoreconf -fi)');
    expect(bashSyntaxOk(text)).toBe('');
  });

  it('runs: a minimal recipe with environment and preparation, from the directory given', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-buildsh-'));
    const recipe = minimiseRecipe([
      turn(0, {
        passed: true,
        recipe: scriptRecipe({
          tools: [],
          prelude: ['echo prepared > prepared.txt'],
          env: { GREETING: "it's $HOME" },
          steps: [
            { purpose: 'configure', command: 'echo "$GREETING" > configured.txt' },
            { purpose: 'build', command: 'cat prepared.txt configured.txt > built.txt' },
          ],
        }),
      }),
    ])!;
    writeFileSync(path.join(dir, 'build.sh'), renderBuildSh(recipe, META));
    execFileSync('bash', [path.join(dir, 'build.sh'), dir], { cwd: '/', stdio: 'pipe' });
    expect(readFileSync(path.join(dir, 'built.txt'), 'utf8')).toBe("prepared\nit's $HOME\n");
  });

  it('runs: the full sequence tolerates earlier failures and keeps scripts verbatim (quotes, parentheses, heredocs)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-buildsh-'));
    const tricky = [
      'set -eo pipefail',
      'cat > one.txt <<EOF',
      'from "turn 0": $(cat zero.txt) (ok)',
      'EOF',
      "case x in x) echo 'case ok' >> one.txt;; esac",
      'BUILDBENCH_TURN_1',
    ].join('\n');
    const recipe = fullSequenceRecipe([
      turn(0, { exitCode: 3, script: 'echo zero > zero.txt\nexit 3\n' }),
      turn(1, {
        passed: true,
        script: tricky.replace('BUILDBENCH_TURN_1', 'true') + '\n# BUILDBENCH_TURN_1\n',
      }),
    ])!;
    const text = renderBuildSh(recipe, META);
    expect(bashSyntaxOk(text)).toBe('');
    writeFileSync(path.join(dir, 'build.sh'), text);
    const result = spawnSync('bash', [path.join(dir, 'build.sh'), dir], { cwd: '/', encoding: 'utf8' });
    expect(result.stderr).toContain('turn 0 failed, as it may have in the original run');
    expect(result.status).toBe(0);
    expect(readFileSync(path.join(dir, 'one.txt'), 'utf8')).toBe('from "turn 0": zero (ok)\ncase ok\n');
  });

  it('fails when the successful turn of a full sequence fails', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-buildsh-'));
    const recipe = fullSequenceRecipe([turn(0, { passed: true, script: 'exit 7' })])!;
    writeFileSync(path.join(dir, 'build.sh'), renderBuildSh(recipe, META));
    expect(spawnSync('bash', [path.join(dir, 'build.sh'), dir]).status).toBe(7);
  });
});

describe('renderDockerfile', () => {
  it('is FROM the sandbox image, installs the packages, copies the repository, applies patches and RUNs each step', () => {
    const recipe = minimiseRecipe(
      [
        turn(0, {
          passed: true,
          recipe: scriptRecipe({
            packages: ['zlib1g-dev'],
            tools: [{ command: 'qmake', pkg: 'qtbase5-dev qt5-qmake' }],
            prelude: ["git config --global --add safe.directory '*'"],
            env: { BB_EXTRA_CFLAGS: '-fcommon', TRICKY: 'a "b" $c \\d' },
            steps: [
              { purpose: 'configure', command: 'qmake app.pro' },
              { purpose: 'build', command: 'make -j"${BB_JOBS:-$(nproc)}"' },
            ],
          }),
        }),
      ],
      { patches: ['patches/0001-fix.patch', 'patches/0002-more.patch'] },
    )!;
    const text = renderDockerfile(recipe, META);
    const parsed = parseDockerfile(text);
    expect(parsed.errors).toEqual([]);
    const names = parsed.instructions.map((i) => i.name);
    expect(names.slice(0, 6)).toEqual(['ARG', 'FROM', 'ARG', 'SHELL', 'ENV', 'RUN']);
    expect(parsed.instructions.find((i) => i.name === 'ARG')!.args).toBe('BASE_IMAGE=debian:bookworm');
    expect(text).toContain('for p in qtbase5-dev qt5-qmake zlib1g-dev patch; do');
    expect(names).toContain('COPY');
    const runs = parsed.instructions.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(runs).toContain('qmake app.pro');
    expect(runs).toContain('make -j"${BB_JOBS:-$(nproc)}"');
    expect(runs.some((r) => r.includes('patches/0001-fix.patch patches/0002-more.patch'))).toBe(true);
    expect(text).toContain('ENV TRICKY="a \\"b\\" \\$c \\\\d"');
    expect(text).toContain('ENV PATH=/opt/buildbench/bin:$PATH');
    // Packages are installed before the COPY, the steps run after it.
    const copy = parsed.instructions.findIndex((i) => i.name === 'COPY');
    expect(parsed.instructions.findIndex((i) => i.args.startsWith('missing=""'))).toBeLessThan(copy);
    expect(parsed.instructions.findIndex((i) => i.args === 'qmake app.pro')).toBeGreaterThan(copy);
  });

  it('RUNs build.sh for a full sequence and for multi-line steps', () => {
    const full = fullSequenceRecipe([turn(0, { exitCode: 1 }), turn(1, { passed: true })])!;
    const text = renderDockerfile(full, META);
    expect(parseDockerfile(text).errors).toEqual([]);
    expect(text).toContain('RUN bash "$RECIPE_DIR/build.sh" /src');
    expect(text).not.toContain('patch -p1');
    const multi = minimiseRecipe([turn(0, { passed: true, script: 'a\nb' })])!;
    expect(renderDockerfile(multi, META)).toContain('RUN bash "$RECIPE_DIR/build.sh" /src');
  });
});
