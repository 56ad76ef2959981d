/**
 * Inspection, retrieval and snapshots on a checkout with symbolic links: a link that leads outside the tree is
 * never read (names from the file it points to appear nowhere), links that stay inside are, and a tree deeper
 * than PATH_MAX neither crashes nor hangs them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { inspectRepo } from '../../../src/repo/inspect.js';
import { readSmallText } from '../../../src/repo/walk.js';
import { readRepoDoc } from '../../../src/retrieval/sources.js';
import { scanNewArtifacts, snapshotTree } from '../../../src/verify/artifacts.js';

let top: string;
const LEAK = 'leaked_name_XYZ';

beforeAll(() => {
  top = mkdtempSync(path.join(tmpdir(), 'bb-symlinks-'));
  const secret = path.join(top, 'secret');
  mkdirSync(secret);
  writeFileSync(
    path.join(secret, 'CMakeLists.txt'),
    `cmake_minimum_required(VERSION 3.10)\nproject(${LEAK})\nadd_executable(${LEAK} main.c)\n`,
  );
  writeFileSync(path.join(secret, 'INSTALL.md'), `# Building\n\nRun make ${LEAK}.\n`);
  mkdirSync(path.join(secret, 'docs'));
  writeFileSync(path.join(secret, 'docs', 'BUILD.md'), `make ${LEAK}\n`);
});

// GNU rm: Node's rmSync overflows its stack on a tree 10 000 folders deep.
afterAll(() => {
  execFileSync('rm', ['-rf', top]);
});

function repoWith(name: string, setup: (root: string) => void): string {
  const root = path.join(top, name);
  mkdirSync(root);
  writeFileSync(path.join(root, 'main.c'), 'int main(void) { return 0; }\n');
  setup(root);
  return root;
}

describe('inspection never reads through a link out of the tree', () => {
  it('a committed CMakeLists.txt linked to a host file: its names reach nothing', async () => {
    const root = repoWith('linked-cmake', (r) => {
      symlinkSync(path.join(top, 'secret', 'CMakeLists.txt'), path.join(r, 'CMakeLists.txt'));
      symlinkSync('../secret/INSTALL.md', path.join(r, 'INSTALL.md'));
      symlinkSync(path.join(top, 'secret', 'docs'), path.join(r, 'docs'));
      mkdirSync(path.join(r, 'sub'));
      symlinkSync('../../secret/CMakeLists.txt', path.join(r, 'sub', 'CMakeLists.txt'));
    });
    const info = await inspectRepo(root);
    expect(JSON.stringify(info)).not.toContain(LEAK);
    expect(await readSmallText(root, 'CMakeLists.txt')).toBeUndefined();
    expect(await readSmallText(root, 'sub/CMakeLists.txt')).toBeUndefined();
    expect(await readRepoDoc(root, 'INSTALL.md')).toEqual({ ok: false, error: 'outside the repository' });
    expect(await readRepoDoc(root, 'docs/BUILD.md')).toEqual({ ok: false, error: 'outside the repository' });
  });

  it('links that stay inside the tree are read', async () => {
    const root = repoWith('inside-links', (r) => {
      mkdirSync(path.join(r, 'cmake'));
      writeFileSync(
        path.join(r, 'cmake', 'real.cmake'),
        'cmake_minimum_required(VERSION 3.10)\nproject(inside)\nadd_executable(inside_tool main.c)\n',
      );
      symlinkSync('cmake/real.cmake', path.join(r, 'CMakeLists.txt'));
    });
    expect(await readSmallText(root, 'CMakeLists.txt')).toContain('inside_tool');
    const info = await inspectRepo(root);
    expect(info.expectedTargets.map((t) => t.name)).toContain('inside_tool');
  });
});

describe('a tree deeper than PATH_MAX', () => {
  it('inspection and snapshots finish without crashing', async () => {
    const root = repoWith('deep', () => undefined);
    // 10 000 levels: made with relative steps (an absolute path that long cannot be used at all).
    const cwd = process.cwd();
    try {
      process.chdir(root);
      for (let i = 0; i < 100; i++) {
        const step = Array.from({ length: 100 }, () => 'd').join('/');
        mkdirSync(step, { recursive: true });
        process.chdir(step);
      }
      writeFileSync('leaf.txt', 'deep\n');
    } finally {
      process.chdir(cwd);
    }
    const errors: string[] = [];
    const started = Date.now();
    const info = await inspectRepo(root);
    expect(info.fileCount).toBeGreaterThan(0);
    const snapshot = await snapshotTree(root, { onError: (rel) => errors.push(rel) });
    expect(snapshot.has('main.c')).toBe(true);
    expect(await scanNewArtifacts(root, new Map())).toEqual([]);
    expect(errors.length).toBeGreaterThan(0); // the part beyond PATH_MAX is told, not fatal
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);
});
