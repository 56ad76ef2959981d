import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { createHostSandbox, hostImageName } from '../../../src/sandbox/host.js';
import type { SandboxSettings } from '../../../src/sandbox/types.js';
import { expectEpilogueRuns } from '../../helpers/sandbox.js';

let root: string;
let repo: string;
let settings: SandboxSettings;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bb-host-test-'));
  repo = join(root, 'repo');
  await mkdir(join(repo, '.git'), { recursive: true });
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'README'), 'hello\n');
  await writeFile(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  settings = {
    ...defaultSandboxSettings({ HOME: root }),
    choice: 'host',
    workRoot: join(root, 'work'),
    allowHost: true,
  };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('host sandbox', () => {
  it('refuses unless allowed', async () => {
    await expect(
      createHostSandbox({ ...settings, allowHost: false }, { repoDir: repo, name: 'x' }),
    ).rejects.toBeInstanceOf(ConfigError);
  });

  it('runs in a copy of the repository with only the allowlisted environment', async () => {
    process.env.BB_PLANTED_SECRET = 'planted-secret-value';
    const sandbox = await createHostSandbox(settings, { repoDir: repo, name: 'My Repo!' });
    try {
      expect(sandbox.kind).toBe('host');
      expect(sandbox.id).toMatch(/^my-repo-[0-9a-f]{8}$/);
      expect(sandbox.workdir).toBe(sandbox.hostWorkdir);
      expect(readFileSync(join(sandbox.hostWorkdir, '.git', 'HEAD'), 'utf8')).toContain('refs/heads/main');

      const env = await sandbox.exec('env; pwd', { timeoutMs: 10_000, env: { EXTRA: 'yes' } });
      expect(env.exitCode).toBe(0);
      expect(env.output).toContain('EXTRA=yes');
      expect(env.output).toContain('LANG=C.UTF-8');
      expect(env.output).toContain('DEBIAN_FRONTEND=noninteractive');
      expect(env.output).not.toContain('planted-secret-value');
      expect(env.output).toContain(`\n${sandbox.hostWorkdir}\n`);

      const sub = await sandbox.exec('pwd; touch made-here; exit 5', { timeoutMs: 10_000, cwd: 'src' });
      expect(sub.exitCode).toBe(5);
      expect(sub.output.trim()).toBe(join(sandbox.hostWorkdir, 'src'));
      expect(existsSync(join(sandbox.hostWorkdir, 'src', 'made-here'))).toBe(true);
      expect(existsSync(join(repo, 'src', 'made-here'))).toBe(false);

      const missing = await sandbox.exec('true', { timeoutMs: 10_000, cwd: 'nope' });
      expect(missing.exitCode).toBe(1);
      expect(missing.output).toContain('nope');

      const slow = await sandbox.exec('sleep 100 & sleep 100', { timeoutMs: 300 });
      expect(slow.timedOut).toBe(true);
      expect(slow.exitCode).toBe(124);

      await expect(
        sandbox.exec('true', { timeoutMs: 1000, env: { 'BAD-NAME': 'x' } }),
      ).rejects.toBeInstanceOf(ConfigError);
    } finally {
      delete process.env.BB_PLANTED_SECRET;
      await sandbox.dispose();
    }
    expect(existsSync(join(settings.workRoot, sandbox.id))).toBe(false);
    await sandbox.dispose(); // idempotent
    await expect(sandbox.exec('true', { timeoutMs: 1000 })).rejects.toThrow(/disposed/);
  });

  it('runs an epilogue only after a script that exits 0, its output and status not the result', async () => {
    const sandbox = await createHostSandbox(settings, { repoDir: repo, name: 'epilogue' });
    try {
      await expectEpilogueRuns(sandbox);
    } finally {
      await sandbox.dispose();
    }
  });

  it('keeps the files when asked', async () => {
    const sandbox = await createHostSandbox(settings, { repoDir: repo, name: 'keep' });
    await sandbox.exec('echo kept > out.txt', { timeoutMs: 10_000 });
    await sandbox.dispose({ keep: true });
    expect(readFileSync(join(sandbox.hostWorkdir, 'out.txt'), 'utf8')).toBe('kept\n');
    expect(sandbox.describeLocation()).toContain(sandbox.hostWorkdir);
  });

  it('names the image after /etc/os-release', () => {
    expect(hostImageName('ID=debian\nVERSION_ID="12"\n')).toBe('host:debian-12');
    expect(hostImageName('ID="ubuntu"\nVERSION_ID="22.04"\n')).toBe('host:ubuntu-22.04');
    expect(hostImageName('')).toBe(`host:${process.platform}`);
  });
});
