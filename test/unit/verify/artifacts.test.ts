import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import {
  changedPaths,
  scanNewArtifacts,
  snapshotTree,
  type ClassifiedStamp,
} from '../../../src/verify/artifacts.js';
import { scoreArtifacts } from '../../../src/verify/scoring.js';
import { makeArchive, makeElf, ET_DYN, ET_EXEC, ET_REL, PT_INTERP, PT_LOAD } from './helpers/elf.js';

const EXE = makeElf({ bits: 64, little: true, type: ET_EXEC, phdrs: [PT_LOAD], size: 256 });
const LIB = makeElf({ bits: 64, little: true, type: ET_DYN, phdrs: [PT_LOAD], size: 256 });
const OBJ = makeElf({ bits: 64, little: true, type: ET_REL, size: 256 });

let root: string;

function write(rel: string, content: Buffer | string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Sets a file's mtime `seconds` from now, so "rebuilt" never depends on the clock's resolution. */
function touch(rel: string, seconds = 60): void {
  const when = new Date(Date.now() + seconds * 1000);
  utimesSync(path.join(root, rel), when, when);
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'bb-artifacts-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('snapshotTree', () => {
  it('records every regular file by its /-separated relative path with size and mtime', async () => {
    write('README.md', 'hello\n');
    write('src/a/b/main.c', 'int main;\n');
    write('empty', '');
    const snapshot = await snapshotTree(root);
    expect([...snapshot.keys()].sort()).toEqual(['README.md', 'empty', 'src/a/b/main.c']);
    const stats = statSync(path.join(root, 'src/a/b/main.c'));
    expect(snapshot.get('src/a/b/main.c')).toEqual({ size: 10, mtimeMs: stats.mtimeMs });
  });

  it('skips .git directories and gitfiles, at any depth', async () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/objects/ab/cdef', 'x');
    write('vendor/lib/.git', 'gitdir: ../../.git/modules/lib\n');
    write('vendor/lib/lib.c', 'int x;\n');
    write('vendor/other/.git/config', '[core]\n');
    const snapshot = await snapshotTree(root);
    expect([...snapshot.keys()].sort()).toEqual(['vendor/lib/lib.c']);
  });

  it('neither follows nor records symbolic links', async () => {
    write('real/file.txt', 'x');
    const outside = mkdtempSync(path.join(tmpdir(), 'bb-outside-'));
    try {
      writeFileSync(path.join(outside, 'secret.bin'), EXE);
      symlinkSync(path.join(root, 'real/file.txt'), path.join(root, 'link.txt'));
      symlinkSync(outside, path.join(root, 'linkdir'));
      symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
      const snapshot = await snapshotTree(root);
      expect([...snapshot.keys()]).toEqual(['real/file.txt']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('leaves out FIFOs', async () => {
    write('a.txt', 'x');
    if (spawnSync('mkfifo', [path.join(root, 'pipe')]).status !== 0) return;
    expect([...(await snapshotTree(root)).keys()]).toEqual(['a.txt']);
  });

  it('exclude prunes directories and drops files', async () => {
    write('src/main.c', 'x');
    write('third_party/big/lib.c', 'x');
    write('docs/manual.pdf', 'x');
    const seen: string[] = [];
    const snapshot = await snapshotTree(root, {
      exclude: (rel, isDirectory) => {
        seen.push(`${rel}${isDirectory ? '/' : ''}`);
        return rel === 'third_party' || rel.endsWith('.pdf');
      },
    });
    expect([...snapshot.keys()]).toEqual(['src/main.c']);
    expect(seen).toContain('third_party/');
    expect(seen).not.toContain('third_party/big/'); // never entered
  });

  it('fails when the root cannot be read, tells onError about unreadable directories below it', async () => {
    await expect(snapshotTree(path.join(root, 'missing'))).rejects.toThrow(/ENOENT/);
    write('open/a.txt', 'x');
    write('closed/b.txt', 'x');
    chmodSync(path.join(root, 'closed'), 0o000);
    try {
      const errors: string[] = [];
      const snapshot = await snapshotTree(root, { onError: (rel) => errors.push(rel) });
      if (process.getuid?.() === 0) {
        expect(snapshot.has('closed/b.txt')).toBe(true); // root reads anyway
      } else {
        expect(errors).toEqual(['closed']);
        expect([...snapshot.keys()]).toEqual(['open/a.txt']);
      }
    } finally {
      chmodSync(path.join(root, 'closed'), 0o755);
    }
  });

  it('handles wide and deep trees (the walk yields to the event loop between slices)', async () => {
    for (let i = 0; i < 600; i++) write(`d${i % 7}/e${i % 3}/f${i}.txt`, 'x');
    let deep = 'deep';
    for (let i = 0; i < 40; i++) deep += `/level${i}`;
    write(`${deep}/bottom.txt`, 'x');
    const snapshot = await snapshotTree(root);
    expect(snapshot.size).toBe(601);
    expect(snapshot.has(`${deep}/bottom.txt`)).toBe(true);
  });
});

describe('changedPaths', () => {
  it('lists new files and files whose size or mtime changed, sorted', () => {
    const before = new Map([
      ['same', { size: 1, mtimeMs: 1 }],
      ['grown', { size: 1, mtimeMs: 1 }],
      ['touched', { size: 1, mtimeMs: 1 }],
      ['deleted', { size: 1, mtimeMs: 1 }],
    ]);
    const after = new Map([
      ['touched', { size: 1, mtimeMs: 2 }],
      ['same', { size: 1, mtimeMs: 1 }],
      ['grown', { size: 2, mtimeMs: 1 }],
      ['b-new', { size: 1, mtimeMs: 1 }],
    ]);
    expect(changedPaths(before, after)).toEqual(['b-new', 'grown', 'touched']);
  });
});

describe('scanNewArtifacts', () => {
  it('reports new and rebuilt binaries, not untouched ones nor changed text', async () => {
    write('prebuilt/tool', EXE); // committed before the build
    write('prebuilt/rebuilt', EXE);
    write('prebuilt/libold.a', makeArchive());
    write('src/main.c', 'int main(void) { return 0; }\n');
    const before = await snapshotTree(root);

    write('build/app', EXE);
    write('build/libfoo.so.1.2.3', LIB);
    write('build/libfoo.a', makeArchive());
    write('build/main.o', OBJ);
    write('build/notes.txt', 'built!\n');
    write('prebuilt/rebuilt', EXE); // same bytes, written again
    touch('prebuilt/rebuilt');
    write('src/main.c', 'int main(void) { return 1; }\n'); // an edited source
    touch('src/main.c');

    const artifacts = await scanNewArtifacts(root, before);
    expect(artifacts).toEqual([
      { path: 'build/app', kind: 'executable', size: EXE.length },
      { path: 'build/libfoo.a', kind: 'static_library', size: makeArchive().length },
      { path: 'build/libfoo.so.1.2.3', kind: 'shared_library', size: LIB.length },
      { path: 'prebuilt/rebuilt', kind: 'executable', size: EXE.length },
    ]);
  });

  it('a binary that was there before the snapshot is not reported even when everything is new', async () => {
    write('bin/committed', EXE);
    const before = await snapshotTree(root);
    expect(await scanNewArtifacts(root, before)).toEqual([]);
    // Without a snapshot every binary is new.
    expect((await scanNewArtifacts(root, new Map())).map((a) => a.path)).toEqual(['bin/committed']);
  });

  it('ignores binaries inside .git', async () => {
    const before = await snapshotTree(root);
    write('.git/hooks/prebuilt-hook', EXE);
    write('sub/.git/objects/pack.a', makeArchive());
    write('out/real', EXE);
    expect((await scanNewArtifacts(root, before)).map((a) => a.path)).toEqual(['out/real']);
  });

  it('reports the real file behind libfoo.so → libfoo.so.1 → libfoo.so.1.2, never the links', async () => {
    const before = await snapshotTree(root);
    write('lib/libfoo.so.1.2', LIB);
    symlinkSync('libfoo.so.1.2', path.join(root, 'lib/libfoo.so.1'));
    symlinkSync('libfoo.so.1', path.join(root, 'lib/libfoo.so'));
    symlinkSync('/bin/true', path.join(root, 'lib/true-link'));
    symlinkSync('../../outside', path.join(root, 'lib/escapes'));
    const artifacts = await scanNewArtifacts(root, before);
    // The links are read as names (what a person runs), never followed: the file behind them is the artifact.
    expect(artifacts).toEqual([
      {
        path: 'lib/libfoo.so.1.2',
        kind: 'shared_library',
        size: LIB.length,
        links: ['lib/libfoo.so', 'lib/libfoo.so.1'],
      },
    ]);
  });

  it("an expected name matches a link to a binary the build made (a Makefile's ln -sf kak.opt kak)", async () => {
    const before = await snapshotTree(root);
    write('src/kak.opt', EXE);
    symlinkSync('kak.opt', path.join(root, 'src/kak'));
    const artifacts = await scanNewArtifacts(root, before);
    expect(artifacts).toEqual([
      { path: 'src/kak.opt', kind: 'executable', size: EXE.length, links: ['src/kak'] },
    ]);
    const metrics = scoreArtifacts(artifacts, { names: ['kak'], source: 'cli' });
    expect(metrics).toMatchObject({ strict: true, matches: { kak: ['src/kak'] } });
    // A link to a file that is not a new binary names nothing.
    write('src/old.txt', 'text\n');
    symlinkSync('old.txt', path.join(root, 'src/other'));
    expect(
      scoreArtifacts(await scanNewArtifacts(root, before), { names: ['other'], source: 'cli' }).strict,
    ).toBe(false);
  });

  it('object files are not artifacts, kernel modules are elf_other, tiny files are skipped', async () => {
    const before = await snapshotTree(root);
    write('obj/a.o', OBJ);
    write('obj/a.cpp.o', OBJ);
    write('module/driver.ko', OBJ);
    write('tiny', '\x7fEL');
    expect(await scanNewArtifacts(root, before)).toEqual([
      { path: 'module/driver.ko', kind: 'elf_other', size: OBJ.length },
    ]);
  });

  it('reads further when the program headers lie beyond the first 4 KiB', async () => {
    const before = await snapshotTree(root);
    write(
      'patched/app',
      makeElf({ bits: 64, little: true, type: ET_DYN, phdrs: [PT_LOAD, PT_INTERP], phoff: 10000 }),
    );
    write(
      'patched/libx.so',
      makeElf({ bits: 32, little: false, type: ET_DYN, phdrs: [PT_LOAD], phoff: 6000 }),
    );
    expect(await scanNewArtifacts(root, before)).toEqual([
      { path: 'patched/app', kind: 'executable', size: 10000 + 2 * 56 },
      { path: 'patched/libx.so', kind: 'shared_library', size: 6000 + 32 },
    ]);
  });

  it('a huge file is classified by its head alone', async () => {
    const before = await snapshotTree(root);
    const big = Buffer.alloc(64 * 1024 * 1024);
    EXE.copy(big);
    write('big/app', big);
    expect(await scanNewArtifacts(root, before)).toEqual([
      { path: 'big/app', kind: 'executable', size: big.length },
    ]);
  });

  it('honours exclude', async () => {
    const before = await snapshotTree(root);
    write('build/app', EXE);
    write('build/tests/test_app', EXE);
    const artifacts = await scanNewArtifacts(root, before, { exclude: (rel) => rel === 'build/tests' });
    expect(artifacts.map((a) => a.path)).toEqual(['build/app']);
  });

  it('with a cache, classifies each file once while it stays the same', async () => {
    const before = await snapshotTree(root);
    write('out/app', EXE);
    write('out/data.bin', 'not a binary at all');
    const cache = new Map<string, ClassifiedStamp>();
    expect((await scanNewArtifacts(root, before, { cache })).map((a) => a.path)).toEqual(['out/app']);
    expect(cache.get('out/app')?.kind).toBe('executable');
    expect(cache.has('out/data.bin')).toBe(true);
    expect(cache.get('out/data.bin')?.kind).toBeUndefined();

    // A cached answer is used as long as size and mtime match (prove it by planting a wrong one)…
    const stamp = cache.get('out/app') as ClassifiedStamp;
    cache.set('out/app', { ...stamp, kind: 'static_library' });
    expect((await scanNewArtifacts(root, before, { cache }))[0]?.kind).toBe('static_library');
    // …and dropped when the file changes or disappears.
    write('out/app', LIB);
    touch('out/app');
    rmSync(path.join(root, 'out/data.bin'));
    expect(await scanNewArtifacts(root, before, { cache })).toEqual([
      { path: 'out/app', kind: 'shared_library', size: LIB.length },
    ]);
    expect(cache.has('out/data.bin')).toBe(false);
  });

  it('binaries compiled by the host cc', async () => {
    if (spawnSync('cc', ['--version']).status !== 0) return;
    write('src/main.c', 'int main(void) { return 0; }\n');
    copyFileSync('/bin/true', path.join(root, 'committed-true'));
    const before = await snapshotTree(root);
    const cc = (...args: string[]): void => {
      expect(spawnSync('cc', args, { cwd: root }).status).toBe(0);
    };
    mkdirSync(path.join(root, 'build'));
    cc('-o', 'build/pie', 'src/main.c');
    cc('-fno-pie', '-no-pie', '-o', 'build/nopie', 'src/main.c');
    cc('-c', '-o', 'build/main.o', 'src/main.c');
    cc('-fPIC', '-shared', '-o', 'build/libm2.so', 'src/main.c');
    expect(spawnSync('ar', ['rcs', 'build/libm2.a', 'build/main.o'], { cwd: root }).status).toBe(0);
    const artifacts = await scanNewArtifacts(root, before);
    expect(artifacts.map((a) => [a.path, a.kind])).toEqual([
      ['build/libm2.a', 'static_library'],
      ['build/libm2.so', 'shared_library'],
      ['build/nopie', 'executable'],
      ['build/pie', 'executable'],
    ]);
  });
});
