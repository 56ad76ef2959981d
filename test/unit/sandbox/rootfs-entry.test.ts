/**
 * The rootfs sandbox's entry script (src/sandbox/rootfs.ts ENTRY_SCRIPT) with stand-ins for mount, bubblewrap
 * and slirp4netns on PATH: when bubblewrap is gone before the network is up (it failed, or was killed), the
 * script must end with bubblewrap's status, not wait forever on the FIFO that tells bubblewrap to go on (a
 * write-only open of a FIFO without a reader never returns; a benchmark run hung there).
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ENTRY_SCRIPT } from '../../../src/sandbox/rootfs.js';

function fakeTools(dir: string, bwrap: string): void {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const tool = (name: string, body: string): void => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  tool('mount', 'exit 0');
  tool('bwrap', bwrap);
  // The uplink comes up a moment later, as slirp4netns's does.
  tool('slirp4netns', 'sleep 0.5; echo 1 >&7; sleep 30');
}

function enter(bwrap: string): { status: number | null; output: string; ms: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-entry-'));
  try {
    fakeTools(dir, bwrap);
    mkdirSync(path.join(dir, 'build', 'cmd'), { recursive: true });
    writeFileSync(path.join(dir, 'build', 'cmd', 'seccomp.bpf'), '');
    const started = Date.now();
    const r = spawnSync(
      'sh',
      ['-c', ENTRY_SCRIPT, 'entry', path.join(dir, 'build'), '/lower', 'isolated', '', '--fake-arg'],
      {
        env: { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}` },
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    return { status: r.status, output: `${r.stdout}${r.stderr}`, ms: Date.now() - started };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the rootfs entry script', () => {
  it('ends with bubblewrap’s status when bubblewrap is gone before the network is up', () => {
    // Reports its child, then fails at once (never reads the go signal).
    const r = enter('echo \'{ "child-pid": 4242 }\' >&3; exit 3');
    expect([r.status, r.ms < 10_000]).toEqual([3, true]);
  });

  it('lets bubblewrap go on once the network is up, and ends with its status', () => {
    // Reports its child, waits for the go signal on fd 4 as bubblewrap's --block-fd does, then exits 0.
    const r = enter('echo \'{ "child-pid": 4242 }\' >&3; head -c 2 <&4 >/dev/null; echo ran; exit 0');
    expect([r.status, r.output.includes('ran')]).toEqual([0, true]);
  });
});
