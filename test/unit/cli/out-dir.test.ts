/**
 * `--out` at places that cannot hold results, tried as a user would: the real CLI in a child process with
 * a time limit, so a hang (Node's recursive mkdir on /proc/x never returns) fails the test instead of
 * stalling it.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function cli(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): { status: number | null; signal: string | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/index.ts'), ...args],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
      env: { ...process.env, NODE_OPTIONS: '', ...extraEnv },
    },
  );
  return { status: r.status, signal: r.signal, stderr: r.stderr };
}

describe('buildbench build --out', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-out-'));
  const repo = path.join(dir, 'repo');
  mkdirSync(repo);
  writeFileSync(path.join(repo, 'Makefile'), 'all:\n\ttrue\n');
  writeFileSync(path.join(dir, 'file'), 'x');
  symlinkSync(path.join(dir, 'file'), path.join(dir, 'link-to-file'));
  symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));

  const cases: [string, string, RegExp][] = [
    ['a folder in /proc', '/proc/x', /'\/proc' is on a special file system that takes no new folders/],
    ['below a folder in /proc', '/proc/x/y', /'\/proc' is on a special file system/],
    // Exists, but nothing can be written there (root passes access(W_OK) on it: only a write tells).
    [
      'an existing folder of /proc',
      '/proc/1',
      /'\/proc\/1' is on a special file system that takes no new files/,
    ],
    ['a file', path.join(dir, 'file'), /'.*\/file' exists and is not a directory/],
    ['below a file', path.join(dir, 'file', 'out'), /'.*\/file' exists and is not a directory/],
    ['a link to a file', path.join(dir, 'link-to-file'), /link-to-file' exists and is not a directory/],
    [
      'a dangling link',
      path.join(dir, 'dangling'),
      /dangling' is a symbolic link to '.*nowhere', which does not exist/,
    ],
  ];

  // A read-only folder stops only other users than root (root writes anyway; /proc/1 above stands in).
  if (process.getuid?.() !== 0) {
    const readOnly = path.join(dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o555 });
    cases.push([
      'a read-only folder',
      path.join(readOnly, 'out'),
      /no permission to create folders in '.*read-only'/,
    ]);
  }

  it.each(cases)('at %s fails at once with exit 2 and one line naming --out', (_what, out, why) => {
    const started = Date.now();
    const r = cli(['build', repo, '--out', out, '--sandbox', 'rootfs']);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^buildbench: --out: cannot write to '/);
    expect(lines[0]).toMatch(why);
    expect(lines[0]).toMatch(/\(expected a writable directory\)$/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it.each(['host', 'rootfs'])(
    'with BUILDBENCH_WORK_DIR in /proc, a %s build fails at once with exit 2 naming the variable',
    (kind) => {
      const r = cli(
        ['build', repo, '--out', path.join(dir, `out-${kind}`), '--sandbox', kind, '--max-turns', '1'],
        {
          BUILDBENCH_WORK_DIR: '/proc/x',
          BUILDBENCH_BUILD_CACHE: 'off',
        },
      );
      expect(r.signal).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n').pop()).toBe(
        "buildbench: BUILDBENCH_WORK_DIR (the work folder): cannot use '/proc/x': '/proc' is on a special file system that takes no new folders (expected a writable folder)",
      );
    },
  );
});
