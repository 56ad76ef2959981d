import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { makeDirectory } from '../../../src/base/make-dir.js';

describe('makeDirectory', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-mkdir-'));

  it('creates missing parents and is a no-op on a directory or a link to one', async () => {
    await makeDirectory(path.join(dir, 'a', 'b', 'c'));
    expect(statSync(path.join(dir, 'a', 'b', 'c')).isDirectory()).toBe(true);
    await makeDirectory(path.join(dir, 'a', 'b', 'c'));
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    await makeDirectory(path.join(dir, 'link', 'inside'));
    expect(statSync(path.join(dir, 'real', 'inside')).isDirectory()).toBe(true);
  });

  it('fails at once, naming the cause, where Node recursive mkdir never returns', async () => {
    const started = Date.now();
    await expect(makeDirectory('/proc/x')).rejects.toThrow(
      "cannot create '/proc/x': '/proc' is on a special file system that takes no new folders",
    );
    await expect(makeDirectory('/proc/x/y/z')).rejects.toThrow(/'\/proc' is on a special file system/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names a file, a link to a file and a dangling link on the way', async () => {
    writeFileSync(path.join(dir, 'file'), 'x');
    await expect(makeDirectory(path.join(dir, 'file'))).rejects.toThrow(
      /'.*\/file' exists and is not a directory/,
    );
    await expect(makeDirectory(path.join(dir, 'file', 'out'))).rejects.toThrow(
      /'.*\/file' exists and is not a directory/,
    );
    symlinkSync(path.join(dir, 'file'), path.join(dir, 'to-file'));
    await expect(makeDirectory(path.join(dir, 'to-file', 'out'))).rejects.toThrow(
      /to-file' exists and is not a directory/,
    );
    symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    await expect(makeDirectory(path.join(dir, 'dangling', 'out'))).rejects.toThrow(
      /'.*\/dangling' is a symbolic link to '.*\/nowhere', which does not exist/,
    );
  });
});
