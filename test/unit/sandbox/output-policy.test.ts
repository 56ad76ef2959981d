import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SandboxError } from '../../../src/base/errors.js';
import { createHostSandbox } from '../../../src/sandbox/host.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { withOutputPolicy } from '../../../src/sandbox/output-policy.js';
import type { ExecOptions, ExecResult, OutputPolicy, Sandbox } from '../../../src/sandbox/types.js';
import { createRedactor, createStreamRedactor, REDACTED } from '../../../src/trajectory/redact.js';

const SECRET = 'policy-secret-' + 'value-0123456789';
const redact = createRedactor([SECRET]);
const policy = (maxLogBytes?: number): OutputPolicy => ({
  openRedactor: () => createStreamRedactor(redact),
  redact,
  addSecrets: (values) => redact.add(values),
  ...(maxLogBytes ? { maxLogBytes } : {}),
});

/** A sandbox whose exec prints the given chunks through onOutput. */
function fakeSandbox(chunks: string[], fail?: Error): Sandbox & { extra: string } {
  return {
    kind: 'host',
    id: 'fake',
    workdir: '/w',
    hostWorkdir: '/w',
    image: 'fake',
    extra: 'kept',
    exec(_script: string, options: ExecOptions): Promise<ExecResult> {
      if (options.logPath) throw new Error('the policy must not hand the log to the backend');
      for (const c of chunks) options.onOutput?.(c);
      if (fail) return Promise.reject(fail);
      const raw = chunks.join('');
      return Promise.resolve({
        exitCode: 0,
        timedOut: false,
        cancelled: false,
        durationMs: 1,
        output: raw,
        truncated: false,
        totalBytes: Buffer.byteLength(raw),
      });
    },
    describeLocation: () => 'nowhere',
    dispose: () => Promise.resolve(),
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'bb-output-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withOutputPolicy', () => {
  it('redacts the log file, the output and what onOutput sees, even for a secret split across chunks', async () => {
    const box = withOutputPolicy(
      fakeSandbox(['key is ', SECRET.slice(0, 9), `${SECRET.slice(9)}\ndone\n`]),
      policy(),
    );
    const seen: string[] = [];
    const logPath = path.join(dir, 'a', 'turn-00.log');
    const result = await box.exec('x', { timeoutMs: 1000, logPath, onOutput: (t) => seen.push(t) });
    expect(readFileSync(logPath, 'utf8')).toBe(`key is ${REDACTED}\ndone\n`);
    expect(result.output).toBe(`key is ${REDACTED}\ndone\n`);
    expect(seen.join('')).toBe(`key is ${REDACTED}\ndone\n`);
    expect(result).toMatchObject({ logPath, logTruncated: false, totalBytes: 7 + SECRET.length + 6 });
  });

  it('bounds the log, records the true size and keeps the other members of the sandbox', async () => {
    const inner = fakeSandbox(Array.from({ length: 1000 }, (_v, i) => `output line ${i}\n`));
    const box = withOutputPolicy(inner, policy(8192), ['credential.helper']) as Sandbox & { extra: string };
    const logPath = path.join(dir, 'big.log');
    const result = await box.exec('x', { timeoutMs: 1000, logPath });
    const text = readFileSync(logPath, 'utf8');
    expect(result.logTruncated).toBe(true);
    expect(result.totalBytes).toBeGreaterThan(8192);
    expect(text).toContain('output line 0\n');
    expect(text.endsWith('output line 999\n')).toBe(true);
    expect(text).toMatch(/bytes of output dropped here/);
    expect(box.extra).toBe('kept');
    expect(box.credentialsRemoved).toEqual(['credential.helper']);
    expect(box.describeLocation()).toBe('nowhere');
  });

  it('redacts the message of an error the backend throws', async () => {
    const box = withOutputPolicy(fakeSandbox([], new SandboxError(`could not enter: ${SECRET}`)), policy());
    await expect(box.exec('x', { timeoutMs: 1000 })).rejects.toThrow(`could not enter: ${REDACTED}`);
  });

  describe('over a real host sandbox', () => {
    let sandbox: Sandbox | undefined;
    beforeAll(async () => {
      const repo = path.join(dir, 'repo');
      mkdirSync(repo, { recursive: true });
      writeFileSync(path.join(repo, 'README'), 'x\n');
      const settings = {
        ...defaultSandboxSettings({ HOME: dir }),
        allowHost: true,
        workRoot: path.join(dir, 'work'),
      };
      sandbox = withOutputPolicy(
        await createHostSandbox(settings, { repoDir: repo, name: 'policy' }),
        policy(4096),
      );
    });
    afterAll(async () => {
      await sandbox?.dispose();
    });

    it('keeps head and tail of a long output and redacts the secret a command prints', async () => {
      const logPath = path.join(dir, 'host.log');
      const result = await sandbox!.exec(`echo "first ${SECRET}"; seq 1 20000; echo "last ${SECRET}"`, {
        timeoutMs: 30_000,
        logPath,
      });
      const text = readFileSync(logPath, 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text.startsWith(`first ${REDACTED}\n1\n`)).toBe(true);
      expect(text.endsWith(`20000\nlast ${REDACTED}\n`)).toBe(true);
      expect(result.logTruncated).toBe(true);
      expect(result.output).not.toContain(SECRET);
      expect(result.totalBytes).toBeGreaterThan(100_000);
    });
  });
});
