import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SandboxError } from '../../../src/base/errors.js';
import { OutputCapture, runProcess } from '../../../src/base/process.js';

/** True while `pid` exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

async function withTmp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'bb-process-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('runProcess', () => {
  it('reports exit codes and interleaves stdout and stderr in order', async () => {
    const result = await runProcess('bash', ['-c', 'echo one; echo two >&2; echo three; exit 7']);
    expect(result.exitCode).toBe(7);
    expect(result.output).toBe('one\ntwo\nthree\n');
    expect(result.timedOut).toBe(false);
    expect(result.cancelled).toBe(false);
    expect(result.truncated).toBe(false);
    expect(result.totalBytes).toBe(14);
  });

  it('reports 128 + signal when the command is killed by a signal', async () => {
    const result = await runProcess('bash', ['-c', 'kill -TERM $$']);
    expect(result.exitCode).toBe(128 + 15);
  });

  it('reads both pipes when stderr is not merged', async () => {
    const result = await runProcess('bash', ['-c', 'echo out; echo err >&2'], { mergeStderr: false });
    expect(result.output.split('\n').sort()).toEqual(['', 'err', 'out']);
  });

  it('passes only the given environment', async () => {
    const result = await runProcess('/usr/bin/env', [], { env: { ONLY_THIS: 'x', PATH: '/usr/bin:/bin' } });
    expect(result.output).toContain('ONLY_THIS=x');
    expect(result.output).not.toContain('HOME=');
  });

  it('keeps stdout alone when stderr is discarded, even over the merge default', async () => {
    const result = await runProcess('bash', ['-c', 'printf "a\\0b\\0"; echo noise >&2; exit 3'], {
      discardStderr: true,
    });
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe('a\0b\0');
    expect(result.totalBytes).toBe(4);
  });

  it('runs in the given working directory', async () => {
    await withTmp(async (dir) => {
      const result = await runProcess('pwd', [], { cwd: dir });
      expect(result.output.trim()).toBe(realpathSync(dir));
    });
  });

  it('rejects with SandboxError when the program does not exist', async () => {
    await expect(runProcess('/no/such/program', [], { mergeStderr: false })).rejects.toBeInstanceOf(
      SandboxError,
    );
  });

  it('kills the whole process tree on timeout, background grandchildren included', async () => {
    await withTmp(async (dir) => {
      const pidFile = join(dir, 'pids');
      const started = Date.now();
      const result = await runProcess(
        'bash',
        [
          '-c',
          `sleep 300 & echo $! > ${pidFile}; bash -c 'sleep 301 & echo $! >> ${pidFile}; wait' & sleep 302`,
        ],
        { timeoutMs: 700 },
      );
      expect(result.exitCode).toBe(124);
      expect(result.timedOut).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
      const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
      expect(pids).toHaveLength(2);
      for (const pid of pids) expect(await waitGone(pid)).toBe(true);
    });
  });

  it('kills background jobs left behind when the command exits normally', async () => {
    await withTmp(async (dir) => {
      const pidFile = join(dir, 'pid');
      const result = await runProcess('bash', ['-c', `sleep 300 & echo $! > ${pidFile}; echo done`], {
        timeoutMs: 10_000,
      });
      expect(result.exitCode).toBe(0);
      expect(await waitGone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
    });
  });

  it('does not hang on a process that left the group and holds the output pipe', async () => {
    await withTmp(async (dir) => {
      const pidFile = join(dir, 'pid');
      const started = Date.now();
      const result = await runProcess('bash', ['-c', `setsid sleep 300 & echo $! > ${pidFile}; echo done`], {
        timeoutMs: 10_000,
        closeGraceMs: 300,
      });
      expect(result.exitCode).toBe(0);
      expect(result.output).toBe('done\n');
      expect(Date.now() - started).toBeLessThan(5000);
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    });
  });

  it('cancels through an AbortSignal', async () => {
    await withTmp(async (dir) => {
      const pidFile = join(dir, 'pid');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const result = await runProcess('bash', ['-c', `sleep 300 & echo $! > ${pidFile}; wait`], {
        signal: controller.signal,
        timeoutMs: 60_000,
      });
      expect(result.cancelled).toBe(true);
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(137);
      expect(await waitGone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
    });
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runProcess('bash', ['-c', 'exit 0'], { signal: controller.signal });
    expect(result.cancelled).toBe(true);
    expect(result.durationMs).toBe(0);
  });

  it('keeps ~200 MB of output bounded in memory while the log file gets all of it', async () => {
    await withTmp(async (dir) => {
      const logPath = join(dir, 'sub', 'out.log');
      const size = 200 * 1024 * 1024;
      const chunks: number[] = [];
      let peak = 0;
      const baseline = process.memoryUsage().rss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss - baseline);
      }, 20);
      const result = await runProcess(
        'bash',
        ['-c', `echo START; head -c ${size} /dev/zero | tr '\\0' 'x'; echo; echo END`],
        { logPath, timeoutMs: 60_000, onOutput: (chunk) => chunks.push(chunk.length) },
      );
      clearInterval(sampler);
      expect(result.exitCode).toBe(0);
      expect(result.totalBytes).toBe(size + 'START\n'.length + '\nEND\n'.length);
      expect(result.truncated).toBe(true);
      expect(result.output.length).toBeLessThan(100 * 1024 + 300);
      expect(result.output.startsWith('START\nxxx')).toBe(true);
      expect(result.output.endsWith('xxx\nEND\n')).toBe(true);
      expect(result.output).toMatch(
        /\[\.\.\. \d+ bytes of output omitted; the full output is in .*out\.log \.\.\.\]\n/,
      );
      expect(statSync(logPath).size).toBe(result.totalBytes);
      expect(chunks.reduce((a, b) => a + b, 0)).toBe(result.totalBytes);
      // Without the cap the output alone would be 200 MB (400 MB as a JS string).
      expect(peak).toBeLessThan(120 * 1024 * 1024);
    });
  }, 120_000);

  it('writes the complete log when the output fits', async () => {
    await withTmp(async (dir) => {
      const logPath = join(dir, 'out.log');
      const result = await runProcess('bash', ['-c', 'for i in $(seq 1 1000); do echo line $i; done'], {
        logPath,
        headBytes: 100,
        tailBytes: 100,
      });
      expect(result.logPath).toBe(logPath);
      expect(existsSync(logPath)).toBe(true);
      expect(readFileSync(logPath, 'utf8').split('\n')).toHaveLength(1001);
      expect(result.output).toContain('line 1\n');
      expect(result.output).toContain('line 1000\n');
      expect(result.output).not.toContain('line 500\n');
    });
  });
});

describe('OutputCapture', () => {
  it('keeps everything while under the cap', () => {
    const capture = new OutputCapture(4, 4);
    capture.push(Buffer.from('abc'));
    capture.push(Buffer.from('defgh'));
    expect(capture.truncated).toBe(false);
    expect(capture.text()).toBe('abcdefgh');
  });

  it('keeps head and tail around a marker line across many small chunks', () => {
    const capture = new OutputCapture(5, 6);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') capture.push(Buffer.from(ch));
    expect(capture.totalBytes).toBe(26);
    expect(capture.truncated).toBe(true);
    expect(capture.text()).toBe('abcde\n[... 15 bytes of output omitted; no log file was kept ...]\nuvwxyz');
  });

  it('handles one chunk larger than head and tail together', () => {
    const capture = new OutputCapture(3, 3);
    capture.push(Buffer.from('0123456789'));
    expect(capture.text('/x.log')).toBe(
      '012\n[... 4 bytes of output omitted; the full output is in /x.log ...]\n789',
    );
  });

  it('does not cut multi-byte characters in half', () => {
    const capture = new OutputCapture(4, 4);
    capture.push(Buffer.from('aaaé' + 'z'.repeat(10) + 'éé'));
    const text = capture.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('aaa\n')).toBe(true);
    expect(text.endsWith('éé')).toBe(true);
  });
});
