import { describe, expect, it } from '@jest/globals';

import { ConfigError, SandboxError } from '../../../src/base/errors.js';
import { QueuedSandbox } from '../../../src/sandbox/queued.js';
import type { ExecOptions, ExecResult } from '../../../src/sandbox/types.js';

const ok = (output: string): ExecResult => ({
  exitCode: 0,
  timedOut: false,
  cancelled: false,
  durationMs: 1,
  output,
  truncated: false,
  totalBytes: output.length,
});

/** Runs each script as "wait this many ms", recording the order of starts, ends and releases. */
class FakeSandbox extends QueuedSandbox {
  readonly id = 'fake-1';
  readonly events: string[] = [];
  released?: { keep?: boolean };

  protected execNow(script: string, _options: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    this.events.push(`start ${script}`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.events.push(`end ${script}`);
        resolve(ok(script));
      }, Number(script));
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        this.events.push(`cancel ${script}`);
        resolve({ ...ok(''), cancelled: true, exitCode: 137 });
      });
    });
  }

  protected release(options: { keep?: boolean }): Promise<void> {
    this.events.push('release');
    this.released = options;
    return Promise.resolve();
  }
}

describe('QueuedSandbox', () => {
  it('runs commands one at a time in the order they were given', async () => {
    const sandbox = new FakeSandbox();
    const results = await Promise.all([
      sandbox.exec('60', { timeoutMs: 1000 }),
      sandbox.exec('1', { timeoutMs: 1000 }),
    ]);
    expect(results.map((r) => r.output)).toEqual(['60', '1']);
    expect(sandbox.events).toEqual(['start 60', 'end 60', 'start 1', 'end 1']);
  });

  it('refuses a command without a positive limit, and the queue goes on', async () => {
    const sandbox = new FakeSandbox();
    await expect(sandbox.exec('1', { timeoutMs: 0 })).rejects.toBeInstanceOf(ConfigError);
    expect((await sandbox.exec('1', { timeoutMs: 1000 })).exitCode).toBe(0);
  });

  it('passes the caller signal through', async () => {
    const sandbox = new FakeSandbox();
    const controller = new AbortController();
    const running = sandbox.exec('10000', { timeoutMs: 20_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await running).cancelled).toBe(true);
  });

  it('dispose cancels the running command, waits for it, releases once and refuses later commands', async () => {
    const sandbox = new FakeSandbox();
    const running = sandbox.exec('10000', { timeoutMs: 20_000 });
    const queued = sandbox.exec('5', { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 20));
    await sandbox.dispose({ keep: true });
    expect((await running).cancelled).toBe(true);
    await expect(queued).rejects.toThrow(/sandbox fake-1 was already disposed/);
    expect(sandbox.events).toEqual(['start 10000', 'cancel 10000', 'release']);
    expect(sandbox.released).toEqual({ keep: true });
    await sandbox.dispose();
    expect(sandbox.events.filter((e) => e === 'release')).toHaveLength(1);
    await expect(sandbox.exec('1', { timeoutMs: 1000 })).rejects.toBeInstanceOf(SandboxError);
  });
});
