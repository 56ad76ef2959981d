import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { fullSequenceRecipe, minimiseRecipe } from '../../../src/finalize/minimise.js';
import { renderBuildSh } from '../../../src/recipe/render-buildsh.js';
import { shellFunction } from '../../../src/recipe/shell-lib.js';
import { scriptRecipe, turn } from '../finalize/helpers.js';

const META = { repo: 'demo', version: '9.9.9', baseImage: 'debian:bookworm' };

function bashSyntaxOk(script: string): string {
  const result = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
  return result.status === 0 ? '' : result.stderr;
}

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

  it("runs: extra compiler flags reach the compiler through the shell library's wrappers (set -u included)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-buildsh-'));
    const bin = path.join(dir, 'fake-bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'cc'), '#!/bin/sh\necho "$@" > cc-args.txt\n');
    chmodSync(path.join(bin, 'cc'), 0o755);
    const recipe = minimiseRecipe([
      turn(0, {
        passed: true,
        recipe: scriptRecipe({
          tools: [],
          env: { BB_EXTRA_CFLAGS: '-fcommon' },
          steps: [{ purpose: 'build', command: 'cc -O2 main.c' }],
        }),
      }),
    ])!;
    const text = renderBuildSh(recipe, META);
    expect(text).toContain(shellFunction('bb_compiler_wrappers'));
    writeFileSync(path.join(dir, 'build.sh'), text);
    const result = spawnSync('bash', [path.join(dir, 'build.sh'), dir], {
      cwd: '/',
      encoding: 'utf8',
      env: { PATH: `${bin}:/usr/bin:/bin`, BB_WRAPPER_DIR: path.join(dir, 'wrappers') },
    });
    expect(result.status).toBe(0);
    expect(readFileSync(path.join(dir, 'cc-args.txt'), 'utf8')).toBe('-O2 main.c -fcommon\n');
  });
});
