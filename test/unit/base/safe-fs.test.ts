import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  checkNamedPath,
  copyFileNoFollow,
  displayPath,
  isDirUnder,
  isExecutableUnder,
  isFileUnder,
  mkdirUnder,
  nameKey,
  openUnderSync,
  readFileUnder,
  readIfExists,
  readIfExistsSync,
  readNamedFileUnder,
  relComponents,
  replaceFileUnder,
  resolveDirUnder,
  UnsafePathError,
  writeFileUnder,
} from '../../../src/base/safe-fs.js';

let top: string;
let root: string;
let secret: string;
const MARKER = 'marker-7c1e0b9d';

beforeAll(() => {
  top = mkdtempSync(path.join(tmpdir(), 'bb-safe-fs-'));
  root = path.join(top, 'tree');
  secret = path.join(top, 'secret');
  mkdirSync(secret);
  writeFileSync(path.join(secret, 'shadow'), MARKER);
  mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
  writeFileSync(path.join(root, 'src', 'main.c'), 'int main(void){return 0;}\n');
  writeFileSync(path.join(root, 'src', 'deep', 'x.txt'), 'inside\n');
  symlinkSync(secret, path.join(root, 'evil')); // a folder → outside (absolute)
  symlinkSync(path.join(secret, 'shadow'), path.join(root, 'shadow-link')); // a file → outside
  symlinkSync('../secret/shadow', path.join(root, 'relative-out')); // relative, escaping with ..
  symlinkSync('src/main.c', path.join(root, 'inside-link')); // stays inside
  symlinkSync('src', path.join(root, 'inside-dir')); // a folder, inside
  symlinkSync('loop', path.join(root, 'loop'));
});

afterAll(() => rmSync(top, { recursive: true, force: true }));

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafePathError);
    return (error as Error).message;
  }
}

describe('relComponents', () => {
  it.each(['', '/etc/shadow', '../x', 'a/../b', 'a//b', './a', 'a/.', 'a\0b'])('rejects %j', (rel) => {
    expect(() => relComponents(rel)).toThrow(UnsafePathError);
  });
  it('splits a relative path', () => {
    expect(relComponents('a/b/c').map((b) => b.toString())).toEqual(['a', 'b', 'c']);
  });
});

describe('readFileUnder (strict)', () => {
  it('reads a regular file in the tree', async () => {
    expect((await readFileUnder(root, 'src/main.c')).toString()).toContain('main');
    expect((await readFileUnder(root, 'src/main.c', { maxBytes: 3 })).toString()).toBe('int');
  });
  it('refuses a symbolic link as the last component', async () => {
    expect(await reason(readFileUnder(root, 'shadow-link'))).toMatch(/symbolic link/);
    expect(await reason(readFileUnder(root, 'inside-link'))).toMatch(/symbolic link/);
  });
  it('refuses a symbolic link among the folders on the way', async () => {
    expect(await reason(readFileUnder(root, 'evil/shadow'))).toMatch(/folder evil .*symbolic link/);
    expect(await reason(readFileUnder(root, 'inside-dir/main.c'))).toMatch(/symbolic link/);
  });
  it('refuses .. and absolute paths', async () => {
    expect(await reason(readFileUnder(root, '../secret/shadow'))).toMatch(/not allowed/);
    expect(await reason(readFileUnder(root, path.join(secret, 'shadow')))).toMatch(/absolute/);
  });
  it('refuses what is not a regular file', async () => {
    expect(await reason(readFileUnder(root, 'src'))).toMatch(/not a regular file/);
  });
  it('passes on ENOENT for a missing file', async () => {
    await expect(readFileUnder(root, 'src/none.c')).rejects.toMatchObject({ code: 'ENOENT' });
  });
  it('reads a file named by non-UTF-8 bytes', async () => {
    const name = Buffer.concat([Buffer.from('src/'), Buffer.from([0x66, 0xff, 0x0a, 0x67])]);
    writeFileSync(Buffer.concat([Buffer.from(root + '/'), name]), 'odd\n');
    expect((await readFileUnder(root, name)).toString()).toBe('odd\n');
    expect(displayPath(name)).toBe('src/f\\xff\\x0ag');
  });
});

describe('readFileUnder (inside)', () => {
  it('follows links that stay inside the tree', async () => {
    expect((await readFileUnder(root, 'inside-link', { follow: 'inside' })).toString()).toContain('main');
    expect((await readFileUnder(root, 'inside-dir/deep/x.txt', { follow: 'inside' })).toString()).toBe(
      'inside\n',
    );
  });
  it('refuses links that lead outside, absolute or relative, file or folder', async () => {
    for (const rel of ['shadow-link', 'relative-out', 'evil/shadow']) {
      expect(await reason(readFileUnder(root, rel, { follow: 'inside' }))).toMatch(/outside the tree/);
    }
  });
  it('refuses a link loop', async () => {
    expect(await reason(readFileUnder(root, 'loop', { follow: 'inside' }))).toMatch(/loop/);
  });
});

describe('openUnderSync', () => {
  it('opens in the tree and refuses a symlinked parent', () => {
    const { fd, stats } = openUnderSync(root, 'src/main.c');
    expect(stats.isFile()).toBe(true);
    closeSync(fd);
    expect(() => openUnderSync(root, 'evil/shadow')).toThrow(UnsafePathError);
    expect(() => openUnderSync(root, 'shadow-link')).toThrow(UnsafePathError);
  });
});

describe('copyFileNoFollow', () => {
  it('copies the bytes and the permission bits, without setuid, setgid or sticky', async () => {
    const file = path.join(root, 'src', 'suid');
    writeFileSync(file, 'binary');
    chmodSync(file, 0o6755);
    const dest = path.join(top, 'copy-suid');
    const copied = await copyFileNoFollow(root, 'src/suid', dest);
    expect(copied).toEqual({ size: 6, mode: 0o755 });
    expect(readFileSync(dest, 'utf8')).toBe('binary');
    expect(statSync(dest).mode & 0o7777).toBe(0o755);
  });
  it('copies nothing through a symlinked parent or last component', async () => {
    for (const [i, rel] of ['evil/shadow', 'shadow-link'].entries()) {
      const dest = path.join(top, `copy-${i}`);
      expect(await reason(copyFileNoFollow(root, rel, dest))).toMatch(/symbolic link/);
      expect(existsSync(dest)).toBe(false);
    }
  });
  it('never writes through a link at the destination', async () => {
    const dest = path.join(top, 'dest-link');
    symlinkSync(path.join(secret, 'target'), dest);
    await expect(copyFileNoFollow(root, 'src/main.c', dest)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(existsSync(path.join(secret, 'target'))).toBe(false);
  });
});

describe('helpers', () => {
  it('isExecutableUnder does not follow links out', async () => {
    const exe = path.join(secret, 'tool');
    writeFileSync(exe, '#!/bin/sh\n');
    chmodSync(exe, 0o755);
    symlinkSync(exe, path.join(root, 'tool-link'));
    expect(await isExecutableUnder(root, 'tool-link', { follow: 'inside' })).toBe(false);
    expect(await isExecutableUnder(root, 'src/suid')).toBe(true);
  });
  it('resolveDirUnder allows folders inside, refuses folders outside', async () => {
    expect(await resolveDirUnder(root, 'inside-dir')).toBeDefined();
    expect(await resolveDirUnder(root, 'evil')).toBeUndefined();
    expect(await resolveDirUnder(root, 'src/main.c')).toBeUndefined();
  });
});

describe('writing under the root', () => {
  it('mkdirUnder makes folders, refuses a linked one', async () => {
    expect(await mkdirUnder(root, 'made/a/b')).toBe(path.join(realpathSync(root), 'made/a/b'));
    expect(statSync(path.join(root, 'made/a/b')).isDirectory()).toBe(true);
    expect(await reason(mkdirUnder(root, 'evil/sub'))).toMatch(/symbolic link/);
    expect(existsSync(path.join(secret, 'sub'))).toBe(false);
  });
  it('writeFileUnder writes and replaces regular files, never through a link', async () => {
    await writeFileUnder(root, 'made/new/build.sh', 'echo 1\n', 0o755);
    await writeFileUnder(root, 'made/new/build.sh', 'echo 2\n', 0o755);
    expect(readFileSync(path.join(root, 'made/new/build.sh'), 'utf8')).toBe('echo 2\n');
    expect(statSync(path.join(root, 'made/new/build.sh')).mode & 0o777).toBe(0o755);
    symlinkSync(path.join(secret, 'planted'), path.join(root, 'made/new/link.sh'));
    expect(await reason(writeFileUnder(root, 'made/new/link.sh', 'x'))).toMatch(/symbolic link/);
    expect(await reason(writeFileUnder(root, 'evil/build.sh', 'x'))).toMatch(/symbolic link/);
    expect(existsSync(path.join(secret, 'planted'))).toBe(false);
    expect(existsSync(path.join(secret, 'build.sh'))).toBe(false);
  });
});

describe('nameKey', () => {
  it('keeps UTF-8 names, escapes other bytes and control characters and keeps the bytes', () => {
    expect(nameKey(Buffer.from('café.c'))).toEqual({ key: 'café.c' });
    expect(nameKey(Buffer.from('new\nline'))).toEqual({ key: 'new\\x0aline', raw: Buffer.from('new\nline') });
    expect(nameKey(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toEqual({
      key: 'caf\\xe9',
      raw: Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    });
    expect(nameKey(Buffer.from('\x1b]0;owned\x07')).key).toBe('\\x1b]0;owned\\x07');
  });
});

describe('readIfExists', () => {
  it('answers undefined only for a missing file; other errors are thrown', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-read-if-exists-'));
    try {
      writeFileSync(path.join(dir, 'file'), 'text');
      expect(await readIfExists(() => readFile(path.join(dir, 'file'), 'utf8'))).toBe('text');
      expect(await readIfExists(() => readFile(path.join(dir, 'absent'), 'utf8'))).toBeUndefined();
      // A parent that is a file: ENOTDIR, also "not there".
      expect(await readIfExists(() => readFile(path.join(dir, 'file', 'x'), 'utf8'))).toBeUndefined();
      expect(readIfExistsSync(() => readFileSync(path.join(dir, 'absent'), 'utf8'))).toBeUndefined();
      // A folder read as a file (EISDIR) is an error, not an absence; so is a refused path.
      await expect(readIfExists(() => readFile(dir, 'utf8'))).rejects.toMatchObject({ code: 'EISDIR' });
      expect(() => readIfExistsSync(() => readFileSync(dir, 'utf8'))).toThrow(/EISDIR/);
      symlinkSync('/etc/hostname', path.join(dir, 'link'));
      await expect(readIfExists(() => readFileUnder(dir, 'link'))).rejects.toBeInstanceOf(UnsafePathError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('output folders read back from elsewhere', () => {
  it('replaceFileUnder replaces a link named like the target, never writing through it', async () => {
    const dir = mkdtempSync(path.join(top, 'out-'));
    writeFileSync(path.join(secret, 'victim'), MARKER);
    symlinkSync(path.join(secret, 'victim'), path.join(dir, 'RUNBOOK.md'));
    symlinkSync(path.join(secret, 'not-there'), path.join(dir, 'dangling.md'));
    await replaceFileUnder(dir, 'RUNBOOK.md', '# new\n');
    await replaceFileUnder(dir, 'dangling.md', 'x');
    await replaceFileUnder(dir, 'made/deep/build.sh', 'echo\n', 0o755);
    expect(readFileSync(path.join(secret, 'victim'), 'utf8')).toBe(MARKER);
    expect(existsSync(path.join(secret, 'not-there'))).toBe(false);
    expect(lstatSync(path.join(dir, 'RUNBOOK.md')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'RUNBOOK.md'), 'utf8')).toBe('# new\n');
    expect(statSync(path.join(dir, 'made/deep/build.sh')).mode & 0o777).toBe(0o755);
    // A linked folder on the way is refused; nothing is left behind, nothing lands outside.
    symlinkSync(secret, path.join(dir, 'patches'));
    expect(await reason(replaceFileUnder(dir, 'patches/0001.patch', 'x'))).toMatch(/symbolic link/);
    expect(existsSync(path.join(secret, '0001.patch'))).toBe(false);
    expect(await reason(replaceFileUnder(dir, '../escape', 'x'))).toMatch(/not allowed/);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('checkNamedPath and readNamedFileUnder name the field and the path they refuse', async () => {
    const dir = mkdtempSync(path.join(top, 'named-'));
    writeFileSync(path.join(dir, 'trajectory.jsonl'), '{}\n');
    symlinkSync(path.join(secret, 'shadow'), path.join(dir, 'linked.jsonl'));
    symlinkSync(secret, path.join(dir, 'logs'));
    expect(checkNamedPath('files.trajectory', 'trajectory.jsonl')).toBe('trajectory.jsonl');
    expect(() => checkNamedPath('files.trajectory', '../x')).toThrow(
      /^files\.trajectory "\.\.\/x": '\.\.' is not allowed .*inside the folder$/,
    );
    expect(() => checkNamedPath('files.snapshot', '/etc/passwd')).toThrow(
      /^files\.snapshot "\/etc\/passwd": an absolute path/,
    );
    expect((await readNamedFileUnder(dir, 'files.trajectory', 'trajectory.jsonl')).toString()).toBe('{}\n');
    expect(await reason(readNamedFileUnder(dir, 'files.trajectory', 'linked.jsonl'))).toBe(
      'files.trajectory "linked.jsonl": a symbolic link (not followed)',
    );
    expect(await reason(readNamedFileUnder(dir, 'files.trajectory', 'logs/shadow'))).toMatch(
      /^files\.trajectory "logs\/shadow": the folder logs on its path is a symbolic link/,
    );
    await expect(readNamedFileUnder(dir, 'files.trajectory', 'none.jsonl')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('isFileUnder and isDirUnder answer for the entry itself, never for what a link leads to', async () => {
    expect(await isFileUnder(root, 'src/main.c')).toBe(true);
    expect(await isFileUnder(root, 'shadow-link')).toBe(false);
    expect(await isFileUnder(root, 'evil/shadow')).toBe(false);
    expect(await isFileUnder(root, '../secret/shadow')).toBe(false);
    expect(await isFileUnder(root, path.join(secret, 'shadow'))).toBe(false);
    expect(await isDirUnder(root, 'src')).toBe(true);
    expect(await isDirUnder(root, 'evil')).toBe(false);
    expect(await isDirUnder(root, 'none')).toBe(false);
  });
});
