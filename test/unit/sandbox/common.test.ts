import { describe, expect, it } from '@jest/globals';

import { ConfigError } from '../../../src/base/errors.js';
import {
  baseSandboxEnv,
  checkMountablePath,
  makeSandboxId,
  resolveSandboxCwd,
  sandboxEnvAssignments,
  SerialQueue,
} from '../../../src/sandbox/common.js';

describe('sandbox environment', () => {
  it('is the allowlist plus the extras, extras winning', () => {
    expect(sandboxEnvAssignments({ CC: 'clang', LANG: 'C' })).toEqual([
      `PATH=${baseSandboxEnv().PATH}`,
      'HOME=/root',
      'LANG=C',
      'DEBIAN_FRONTEND=noninteractive',
      'TERM=dumb',
      'CC=clang',
    ]);
  });

  it('rejects bad names and NUL bytes', () => {
    expect(() => sandboxEnvAssignments({ 'A=B': 'x' })).toThrow(ConfigError);
    expect(() => sandboxEnvAssignments({ '1X': 'x' })).toThrow(ConfigError);
    expect(() => sandboxEnvAssignments({ X: 'a\0b' })).toThrow(ConfigError);
  });
});

describe('ids and paths', () => {
  it('makes ids safe for folders and container names', () => {
    expect(makeSandboxId('Foo/Bar Baz')).toMatch(/^foo-bar-baz-[0-9a-f]{8}$/);
    expect(makeSandboxId('---')).toMatch(/^build-[0-9a-f]{8}$/);
    expect(makeSandboxId('x'.repeat(100)).length).toBeLessThanOrEqual(49);
    expect(makeSandboxId('a')).not.toBe(makeSandboxId('a'));
  });

  it('resolves the working directory inside the sandbox', () => {
    expect(resolveSandboxCwd('/workspace', undefined)).toBe('/workspace');
    expect(resolveSandboxCwd('/workspace', 'build')).toBe('/workspace/build');
    expect(resolveSandboxCwd('/workspace', '/usr/src/../local')).toBe('/usr/local');
  });

  it('rejects paths overlayfs options cannot carry', () => {
    expect(() => checkMountablePath('/a/b', 'x')).not.toThrow();
    expect(() => checkMountablePath('relative', 'x')).toThrow(ConfigError);
    expect(() => checkMountablePath('/a:b', 'x')).toThrow(/free of/);
    expect(() => checkMountablePath('/a,b', 'x')).toThrow(ConfigError);
  });
});

describe('SerialQueue', () => {
  it('runs tasks one at a time in order, even after a failure', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      () =>
        new Promise<string>((resolve, reject) => {
          events.push(`start ${name}`);
          setTimeout(() => {
            events.push(`end ${name}`);
            if (fail) reject(new Error(name));
            else resolve(name);
          }, ms);
        });
    const a = queue.run(task('a', 30));
    const b = queue.run(task('b', 10, true));
    const c = queue.run(task('c', 1));
    await expect(a).resolves.toBe('a');
    await expect(b).rejects.toThrow('b');
    await expect(c).resolves.toBe('c');
    await queue.idle();
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});
