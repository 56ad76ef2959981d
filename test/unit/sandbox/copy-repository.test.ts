/** copyRepository's failures name their real cause in one line (real cp on real trees). */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SandboxError } from '../../../src/base/errors.js';
import { copyRepository, describeCopyFailure } from '../../../src/sandbox/common.js';

const top = mkdtempSync(path.join(tmpdir(), 'bb-copy-repo-'));
// GNU rm: Node's rmSync overflows its stack on a tree 10 000 folders deep.
afterAll(() => {
  execFileSync('rm', ['-rf', top]);
});

describe('copyRepository', () => {
  it('a folder 10 000 deep: one line naming PATH_MAX, not a disk-space hint', async () => {
    const repo = path.join(top, 'deep');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'main.c'), 'int main(void) { return 0; }\n');
    const cwd = process.cwd();
    try {
      process.chdir(repo);
      for (let i = 0; i < 100; i++) {
        const step = Array.from({ length: 100 }, () => 'd').join('/');
        mkdirSync(step, { recursive: true });
        process.chdir(step);
      }
    } finally {
      process.chdir(cwd);
    }
    const error = await copyRepository(repo, path.join(top, 'dest')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SandboxError);
    const { message, hint } = error as SandboxError;
    expect(message).toMatch(/a path longer than the system allows \(PATH_MAX/);
    expect(message).toMatch(/File name too long/);
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(500);
    expect(hint).not.toMatch(/disk space/);
  }, 120_000);

  it('other failures: the first message, shortened, with a fitting hint', () => {
    expect(
      describeCopyFailure({
        exitCode: 1,
        timedOut: false,
        output: "cp: cannot create regular file 'x': No space left on device\n",
      }),
    ).toEqual({
      why: "the disk is full — cp: cannot create regular file 'x': No space left on device",
      hint: 'free disk space in the work folder (BUILDBENCH_WORK_DIR)',
    });
    expect(
      describeCopyFailure({ exitCode: 1, timedOut: false, output: 'cp: weird\ncp: weirder\n' }).why,
    ).toBe('exit code 1: cp: weird (and 1 more lines)');
  });
});

describe('copyRepository and git credentials', () => {
  it('strips the credentials from the copy before it returns, and says what went', async () => {
    const repo = path.join(top, 'with-token');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const token = 'ghp_copyRepositoryTestToken0123456789ab';
    execFileSync('git', [
      '-C',
      repo,
      'config',
      'http.https://github.com/.extraheader',
      `AUTHORIZATION: bearer ${token}`,
    ]);
    const dest = path.join(top, 'with-token-copy');
    const heard: { removed: string[]; values: string[] }[] = [];
    await copyRepository(repo, dest, undefined, (removal) => heard.push(removal));
    expect(readFileSync(path.join(dest, '.git', 'config'), 'utf8')).not.toContain(token);
    expect(heard).toHaveLength(1);
    expect(heard[0]?.removed).toEqual(['http.https://github.com/.extraheader']);
    expect(heard[0]?.values.join(' ')).toContain(token);
    // The original checkout keeps its configuration.
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toContain(token);
  });
});
