import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { baselineFor, gitTrackedFiles } from '../../../src/verify/baseline.js';

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

describe('gitTrackedFiles', () => {
  it('lists the files git tracks (odd names included) and leaves untracked ones out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-baseline-'));
    try {
      git(dir, 'init', '-q');
      await mkdir(join(dir, 'src'));
      await writeFile(join(dir, 'src', 'main.c'), 'int main(void) { return 0; }\n');
      await writeFile(join(dir, 'with space\nand newline.txt'), 'x\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '-q', '-m', 'first');
      await writeFile(join(dir, 'a.out'), 'binary\n');
      const tracked = await gitTrackedFiles(dir);
      expect(tracked).toEqual(new Set(['src/main.c', 'with space\nand newline.txt']));
      const { kind, before } = await baselineFor(dir);
      expect(kind).toBe('git');
      expect(before.has('src/main.c')).toBe(true);
      expect(before.has('a.out')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is undefined outside a git checkout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-baseline-plain-'));
    try {
      expect(await gitTrackedFiles(dir)).toBeUndefined();
      expect((await baselineFor(dir)).kind).toBe('none');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
