/**
 * `kill -9` of a real `buildbench build` mid-build leaves its work folder (repository copy, overlay upper);
 * the next build sweeps it. The CLI runs as a child process (node itself, not the tsx wrapper, so the
 * process that dies is buildbench) with its own BUILDBENCH_WORK_DIR.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { defaultSandboxSettings } from '../../src/sandbox/factory.js';
import { rootfsProblems } from '../../src/sandbox/rootfs.js';
import { OWNER_FILE } from '../../src/sandbox/work-dirs.js';
import { eventually, hostProcessesWith } from '../helpers/sandbox.js';

const repoRoot = path.resolve('.');
const dir = mkdtempSync(path.join(tmpdir(), 'bb-stale-work-'));
afterAll(() => {
  spawnSync('rm', ['-rf', '--one-file-system', '--', dir]);
});

function makeRepo(name: string, recipe: string): string {
  const repo = path.join(dir, name);
  mkdirSync(repo);
  writeFileSync(path.join(repo, 'Makefile'), `all:\n\t${recipe}\n`);
  return repo;
}

const rootfsOk = (await rootfsProblems(defaultSandboxSettings(process.env))).length === 0;
const kinds = ['host', ...(rootfsOk ? ['rootfs'] : [])];

describe('stale work folders after kill -9', () => {
  it.each(kinds)(
    'the next build removes the folder of a %s build that was killed',
    async (kind) => {
      const workRoot = path.join(dir, `work-${kind}`);
      const marker = `sleep 31${kind.length}7`;
      const env = {
        ...process.env,
        BUILDBENCH_WORK_DIR: workRoot,
        BUILDBENCH_BUILD_CACHE: 'off',
        NODE_OPTIONS: '',
      };
      const cli = (repo: string, out: string): string[] => [
        '--import',
        'tsx',
        path.join(repoRoot, 'src/cli/index.ts'),
        'build',
        repo,
        '--sandbox',
        kind,
        '--out',
        path.join(dir, out),
        '--max-turns',
        '1',
        '--timeout',
        '5m',
      ];
      const slow = makeRepo(`slow-${kind}`, `echo BUILDING; ${marker}`);
      const first = spawn(process.execPath, cli(slow, `out-slow-${kind}`), {
        cwd: repoRoot,
        env,
        stdio: 'ignore',
      });
      const log = path.join(dir, `out-slow-${kind}`, 'logs', 'turn-00.log');
      const building = await eventually(
        () => existsSync(log) && readFileSync(log, 'utf8').includes('BUILDING'),
        120_000,
      );
      expect(building).toBe(true);
      const folders = readdirSync(workRoot);
      expect(folders).toHaveLength(1);
      const killed = path.join(workRoot, folders[0]!);
      expect(existsSync(path.join(killed, OWNER_FILE))).toBe(true);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      await eventually(() => hostProcessesWith(marker).length === 0, 10_000);
      expect(existsSync(killed)).toBe(true); // nobody cleaned up: that is the hole

      const quick = makeRepo(`quick-${kind}`, 'true');
      const second = spawnSync(process.execPath, cli(quick, `out-quick-${kind}`), {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
        timeout: 240_000,
      });
      expect(second.signal).toBeNull();
      expect(second.stderr).toMatch(
        /removed 1 stale work folder\(s\) in .* left by builds that did not end \(.*: process \d+ that made it on .* is gone\)/,
      );
      expect(existsSync(killed)).toBe(false);
      expect(readdirSync(workRoot)).toEqual([]); // the second build cleaned up after itself as usual
    },
    400_000,
  );
});
