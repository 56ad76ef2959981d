import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { CancelledError, ConfigError } from '../../../src/base/errors.js';
import { rootfsPaths, sourcesList, withCreationLock } from '../../../src/sandbox/rootfs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bb-rootfs-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rootfs layout', () => {
  it('keeps layers under <cache>/rootfs/debian-<suite>', () => {
    const paths = rootfsPaths('/c', 'bookworm');
    expect(paths.baseRoot).toBe('/c/rootfs/debian-bookworm/base/root');
    expect(paths.toolchainRoot).toMatch(/^\/c\/rootfs\/debian-bookworm\/toolchain-[0-9a-f]{10}\/root$/);
    expect(paths.lockDir).toBe('/c/rootfs/debian-bookworm/.lock');
    expect(() => rootfsPaths('/c', '../etc')).toThrow(ConfigError);
  });

  it('writes a full sources.list', () => {
    expect(sourcesList('bookworm', 'http://deb.debian.org/debian/')).toBe(
      'deb http://deb.debian.org/debian bookworm main\n' +
        'deb http://deb.debian.org/debian bookworm-updates main\n' +
        'deb http://deb.debian.org/debian-security bookworm-security main\n',
    );
    expect(sourcesList('sid', 'http://m/debian')).toBe('deb http://m/debian sid main\n');
  });
});

describe('withCreationLock', () => {
  it('lets one holder in at a time', async () => {
    const lock = join(dir, '.lock');
    const events: string[] = [];
    const hold = (name: string) =>
      withCreationLock(lock, 'test', {}, async () => {
        events.push(`in ${name}`);
        await new Promise((r) => setTimeout(r, 150));
        events.push(`out ${name}`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(events).toHaveLength(4);
    expect(events[0]!.slice(3)).toBe(events[1]!.slice(4));
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose owner died, and tells while it waits for a live one', async () => {
    const lock = join(dir, '.lock');
    const dead = spawn('true');
    await new Promise((r) => dead.on('exit', r));
    await mkdir(lock);
    await writeFile(
      join(lock, 'owner.json'),
      JSON.stringify({ pid: dead.pid, host: hostname(), since: new Date().toISOString() }),
    );
    await expect(withCreationLock(lock, 'test', {}, () => Promise.resolve(42))).resolves.toBe(42);

    await mkdir(lock);
    await writeFile(
      join(lock, 'owner.json'),
      JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }),
    );
    const messages: string[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    await expect(
      withCreationLock(
        lock,
        'the thing',
        { onProgress: (m) => messages.push(m), signal: controller.signal },
        () => Promise.resolve(1),
      ),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(messages).toEqual([expect.stringContaining(`waiting for process ${process.pid}`)]);
    expect(messages[0]).toContain('the thing');
  });
});
