/**
 * The bench's readers and writers of result folders that came from elsewhere (downloaded artifacts): compare
 * opens a folder's leaderboard.json with no symbolic link on its path, and the leaderboard is written as new
 * files renamed into place, never through a link planted in the folder (issue 28 item 6). Collecting runs
 * (collect.ts) is covered in collect.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { lstat, mkdir, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { compareResultSets } from '../../../src/bench/compare.js';
import { writeLeaderboard } from '../../../src/bench/leaderboard.js';
import { run } from '../../../src/cli/main.js';
import { fakeResult } from '../../fakes/build-result.js';
import { writeRun } from './bench-fixtures.js';

const MARKER = 'someone-elses-file-5b2e';

async function runsIn(cwd: string, side: string): Promise<void> {
  await writeRun(cwd, {
    dir: `${side}/runs/one/1`,
    task: 'one',
    run: 1,
    strategy: side,
    result: fakeResult(),
  });
}

describe('compare and leaderboard on folders from elsewhere', () => {
  it('compare refuses a leaderboard.json in a folder that is a link to a file outside', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-bench-links-'));
    await runsIn(cwd, 'a');
    await runsIn(cwd, 'b');
    const { files } = await writeLeaderboard(['a'], 'elsewhere', { cwd });
    await mkdir(path.join(cwd, 'downloaded'));
    await symlink(files.json, path.join(cwd, 'downloaded', 'leaderboard.json'));
    const err: string[] = [];
    const code = await run(['compare', 'downloaded', 'b'], {
      stdout: () => undefined,
      stderr: (t) => err.push(t),
      env: {},
      cwd,
    });
    expect(code).toBe(2);
    expect(err).toEqual([
      `buildbench: compare: ${path.join(cwd, 'downloaded', 'leaderboard.json')} is refused: a symbolic link (not followed) (expected a regular file in the folder)\n`,
    ]);
    // The file itself, named on the command line, is read as before.
    await expect(compareResultSets(files.json, 'b', { cwd })).resolves.toMatchObject({ common: 1 });
  });

  it('writes the leaderboard as new files: a link planted at a name it writes is replaced, not written through', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'bb-bench-links-'));
    await runsIn(cwd, 'a');
    const out = path.join(cwd, 'board');
    await mkdir(out);
    const victims = ['json', 'md', 'tmp'].map((n) => path.join(cwd, `victim.${n}`));
    for (const v of victims) await writeFile(v, MARKER);
    // An old leaderboard.md that is a link, and a link at the temporary name the writer used to use.
    await symlink(victims[1]!, path.join(out, 'leaderboard.md'));
    await symlink(victims[2]!, path.join(out, `leaderboard.json.tmp-${process.pid}`));
    await symlink(victims[0]!, path.join(out, `leaderboard.svg.tmp-${process.pid}`));
    await writeLeaderboard(['a'], out, { cwd });
    for (const v of victims) expect(await readFile(v, 'utf8')).toBe(MARKER);
    for (const name of ['leaderboard.json', 'leaderboard.md', 'leaderboard.svg'])
      expect((await lstat(path.join(out, name))).isFile()).toBe(true);
    expect(await readFile(path.join(out, 'leaderboard.md'), 'utf8')).toContain('leaderboard.svg');
    expect((await readdir(out)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
