/**
 * The programs a deploy's target runs (deploy/target-programs.ts): read from the target command and the shell
 * scripts of the repository it runs (one level down, inside the tree, bounded), without builtins, the scripts'
 * functions, assignments and wrappers; each a `command` declaration with the line that runs it.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  TARGET_PROGRAM_LIMITS,
  targetCommandParts,
  targetPrograms,
} from '../../../src/deploy/target-programs.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-target-programs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, 'r-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const names = async (dir: string, command: string, cwd = ''): Promise<string[]> =>
  (await targetPrograms(dir, command, cwd)).map((d) => d.name);

describe('the programs a target runs', () => {
  it('reads the target command: wrappers, assignments and builtins are not programs', async () => {
    const dir = repo({});
    expect(
      await names(dir, 'OMP_NUM_THREADS=1 timeout -s INT 60 gnuplot plot.gp && echo done | tee log'),
    ).toEqual(['gnuplot', 'tee']);
    expect(targetCommandParts('sudo -E env X=1 octave run.m')).toEqual({ program: 'octave' });
    expect(targetCommandParts('bash -e ./run.sh 10')).toEqual({ program: 'bash', script: './run.sh' });
    expect(targetCommandParts('../bin/stats 5000')).toEqual({ script: '../bin/stats' });
  });

  it("follows the repository's shell scripts one level down, naming the script and line", async () => {
    const dir = repo({
      'series.sh':
        '#!/bin/sh\nset -e\nsum=$(printf "1+1\\n" | bc)\nnorm() { awk "{print}"; }\nnorm < x\necho "$sum"\n',
      'exp/run.sh': 'gawk -f a.awk\n./inner.sh\n',
      'exp/inner.sh': '#!/bin/bash\nnever-read-two-levels-down\n',
      'tool.py': '#!/usr/bin/env python3\nimport os\n',
    });
    const found = await targetPrograms(dir, './series.sh 1000');
    expect(found.map((d) => d.name)).toEqual(['bc', 'awk']);
    expect(found.find((d) => d.name === 'bc')).toMatchObject({
      kind: 'command',
      required: true,
      source: 'series.sh:3',
    });
    // `norm` is the script's own function (its body is read: awk), printf and echo are builtins
    expect(found.find((d) => d.name === 'awk')?.source).toBe('series.sh:4');
    expect(await names(dir, 'sh run.sh', 'exp')).toEqual(['sh', 'gawk']);
    // not a shell script: not read
    expect(await names(dir, './tool.py')).toEqual([]);
  });

  it('never reads outside the tree, nor a link out of it, nor more than the bounds', async () => {
    const outside = repo({ 'evil.sh': '#!/bin/sh\nsecret-program\n' });
    const dir = repo({ 'ok.sh': '#!/bin/sh\nbc\n' });
    symlinkSync(path.join(outside, 'evil.sh'), path.join(dir, 'link.sh'));
    expect(await names(dir, './link.sh')).toEqual([]);
    expect(await names(dir, '../evil.sh')).toEqual([]);
    expect(await names(dir, `${outside}/evil.sh`)).toEqual([]);
    const many = Array.from({ length: 100 }, (_, i) => `prog${i} x`).join('\n');
    const big = repo({ 'many.sh': `#!/bin/sh\n${many}\n` });
    expect(await names(big, './many.sh')).toHaveLength(TARGET_PROGRAM_LIMITS.MAX_PROGRAMS);
    // a script that does not parse adds what its lines say, never an error
    const broken = repo({ 'b.sh': '#!/bin/sh\nif then fi ((\nbc\n' });
    await expect(targetPrograms(broken, './b.sh')).resolves.toBeInstanceOf(Array);
  });
});
