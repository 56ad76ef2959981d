import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { inspectRepo } from '../../../src/repo/inspect.js';
import { mapLimit } from '../../../src/base/concurrency.js';
import { isExecutableFile, readSmallText, walkTree } from '../../../src/repo/walk.js';
import { removeTree, tempTree } from './fixtures.js';

describe('walkTree', () => {
  it('lists breadth-first, skips .git and node_modules, and never follows links', async () => {
    const root = tempTree({
      'b.c': '',
      'a/x.c': '',
      'a/y/z.c': '',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'node_modules/pkg/index.js': '',
      'sub/.git': 'gitdir: ../.git/modules/sub\n',
      '.github/workflows/ci.yml': 'on: push\n',
    });
    try {
      symlinkSync(root, path.join(root, 'loop'));
      symlinkSync('a', path.join(root, 'a-link'));
      symlinkSync('missing-target', path.join(root, 'dangling'));
      const tree = await walkTree(root);
      expect(tree.files).toEqual([
        'a-link',
        'b.c',
        'dangling',
        'loop',
        'a/x.c',
        '.github/workflows/ci.yml',
        'a/y/z.c',
      ]);
      expect(tree.dirs).toEqual(['.github', 'a', 'sub', '.github/workflows', 'a/y']);
      expect(tree.truncated).toBe(false);
    } finally {
      removeTree(root);
    }
  });

  it('stops at maxEntries with the shallow part of the tree', async () => {
    const root = tempTree({ 'a.c': '', 'b.c': '', 'd/c.c': '', 'd/e/f.c': '' });
    try {
      const tree = await walkTree(root, { maxEntries: 3 });
      expect(tree).toEqual({ files: ['a.c', 'b.c'], dirs: ['d'], entries: 3, truncated: true });
    } finally {
      removeTree(root);
    }
  });
});

describe('readSmallText', () => {
  it('returns text, a prefix of large files, and undefined for anything odd', async () => {
    const root = tempTree({ 'a.txt': 'hello', 'big.txt': 'x'.repeat(100), 'bin.dat': 'ab\0cd', empty: '' });
    try {
      mkdirSync(path.join(root, 'dir'));
      execFileSync('mkfifo', [path.join(root, 'fifo')]);
      symlinkSync('loop2', path.join(root, 'loop1'));
      symlinkSync('loop1', path.join(root, 'loop2'));
      symlinkSync('/dev/zero', path.join(root, 'zero'));
      expect(await readSmallText(root, 'a.txt')).toBe('hello');
      expect(await readSmallText(root, 'empty')).toBe('');
      expect(await readSmallText(root, 'big.txt', { maxBytes: 10 })).toBe('x'.repeat(10));
      expect(await readSmallText(root, 'big.txt', { maxBytes: 10, whole: true })).toBeUndefined();
      for (const odd of ['bin.dat', 'dir', 'fifo', 'loop1', 'zero', 'missing'])
        expect(await readSmallText(root, odd)).toBeUndefined();
    } finally {
      removeTree(root);
    }
  });

  it('does not throw on unreadable files', async () => {
    const root = tempTree({ 'secret.txt': 'x', 'CMakeLists.txt': 'project(p)\nadd_executable(p p.c)\n' });
    try {
      chmodSync(path.join(root, 'secret.txt'), 0o000);
      chmodSync(path.join(root, 'CMakeLists.txt'), 0o000);
      const text = await readSmallText(root, 'secret.txt');
      // root can read anything; everyone else gets undefined.
      expect(text === undefined || text === 'x').toBe(true);
      const info = await inspectRepo(root);
      expect(info.buildSystems.map((b) => b.kind)).toEqual(['cmake']);
    } finally {
      chmodSync(path.join(root, 'secret.txt'), 0o644);
      removeTree(root);
    }
  });
});

describe('isExecutableFile', () => {
  it('checks the execute bits of regular files only', async () => {
    const root = tempTree({ 'run.sh': '#!/bin/sh\n', data: '' });
    try {
      chmodSync(path.join(root, 'run.sh'), 0o755);
      mkdirSync(path.join(root, 'dir'));
      expect(await isExecutableFile(root, 'run.sh')).toBe(true);
      expect(await isExecutableFile(root, 'data')).toBe(false);
      expect(await isExecutableFile(root, 'dir')).toBe(false);
      expect(await isExecutableFile(root, 'missing')).toBe(false);
    } finally {
      removeTree(root);
    }
  });
});

describe('mapLimit', () => {
  it('keeps input order and bounds concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});

describe('inspectRepo on an odd tree', () => {
  it('survives link loops, FIFOs and binary build files', async () => {
    const root = tempTree({
      Makefile: 'app: app.c\n\tcc -o app app.c\n',
      'app.c': 'int main(void){return 0;}\n',
    });
    try {
      symlinkSync('.', path.join(root, 'self'));
      execFileSync('mkfifo', [path.join(root, 'README')]);
      writeFileSync(path.join(root, 'Cargo.toml'), Buffer.from([0, 1, 2, 3]));
      mkdirSync(path.join(root, 'node_modules', 'x'), { recursive: true });
      writeFileSync(path.join(root, 'node_modules', 'x', 'Makefile'), 'bad: x\n\tcc -o bad x.c\n');
      const info = await inspectRepo(root);
      expect(info.expectedTargets.map((t) => t.name)).toEqual(['app']);
      expect(info.docs).toEqual([]);
      expect(info.mainSources).toEqual(['app.c']);
    } finally {
      removeTree(root);
    }
  });
});
