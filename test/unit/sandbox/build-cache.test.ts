import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  BUILD_CACHE_MOUNT,
  BUILD_CACHE_SETUP_SCRIPT,
  prepareBuildCache,
  pruneOldest,
  sandboxBaseEnv,
  setUpBuildCache,
} from '../../../src/sandbox/build-cache.js';
import { baseSandboxEnv, SANDBOX_PATH } from '../../../src/sandbox/common.js';
import type { ExecResult } from '../../../src/sandbox/types.js';

const tmp = (): Promise<string> => mkdtemp(join(tmpdir(), 'bb-build-cache-'));

describe('prepareBuildCache', () => {
  it('creates apt/ and ccache/ with a size limit, and keeps an edited ccache.conf', async () => {
    const root = join(await tmp(), 'cache');
    const { layout } = await prepareBuildCache(root);
    expect(existsSync(layout.apt)).toBe(true);
    expect(readFileSync(join(layout.ccache, 'ccache.conf'), 'utf8')).toBe('max_size = 2G\n');
    await writeFile(join(layout.ccache, 'ccache.conf'), 'max_size = 9G\n');
    await prepareBuildCache(root);
    expect(readFileSync(join(layout.ccache, 'ccache.conf'), 'utf8')).toBe('max_size = 9G\n');
  });
});

describe('pruneOldest', () => {
  it('removes the oldest files down to the target once over the limit', async () => {
    const dir = await tmp();
    for (const [i, name] of ['a.deb', 'b.deb', 'c.deb', 'd.deb'].entries()) {
      await writeFile(join(dir, name), Buffer.alloc(100));
      const t = new Date(Date.UTC(2026, 0, 1 + i));
      await utimes(join(dir, name), t, t);
    }
    expect(await pruneOldest(dir, 400, 100)).toBe(0); // at the limit: nothing to do
    expect(await pruneOldest(dir, 399, 200)).toBe(2);
    expect((await readdir(dir)).sort()).toEqual(['c.deb', 'd.deb']);
    expect(await pruneOldest(join(dir, 'missing'), 1, 0)).toBe(0);
  });
});

describe('sandboxBaseEnv', () => {
  it('is the allowlist alone without a build cache, and adds ccache first on PATH with one', () => {
    expect(sandboxBaseEnv(undefined)).toEqual(baseSandboxEnv());
    expect(sandboxBaseEnv('/c')).toEqual({
      ...baseSandboxEnv(),
      PATH: `/usr/lib/ccache:${SANDBOX_PATH}`,
      CCACHE_DIR: `${BUILD_CACHE_MOUNT}/ccache`,
    });
  });
});

describe('setUpBuildCache', () => {
  const result = (output: string, exitCode = 0): ExecResult => ({
    exitCode,
    output,
    timedOut: false,
    cancelled: false,
    durationMs: 1,
    truncated: false,
    totalBytes: output.length,
  });

  it('runs the setup script and reads whether ccache is there', async () => {
    const scripts: string[] = [];
    const messages: string[] = [];
    const exec = (script: string): Promise<ExecResult> => {
      scripts.push(script);
      return Promise.resolve(result('ccache: yes\n'));
    };
    expect(await setUpBuildCache({ exec }, { onProgress: (m) => messages.push(m) })).toEqual({
      ccache: true,
    });
    expect(scripts).toEqual([BUILD_CACHE_SETUP_SCRIPT]);
    expect(messages).toEqual([]);
  });

  it('says so when ccache is missing or the setup failed, without throwing', async () => {
    const messages: string[] = [];
    const onProgress = (m: string): number => messages.push(m);
    const missing = await setUpBuildCache(
      { exec: () => Promise.resolve(result('ccache: no\n')) },
      { onProgress },
    );
    expect(missing.ccache).toBe(false);
    expect(missing.reason).toMatch(/ccache is not installed/);
    const failed = await setUpBuildCache(
      { exec: () => Promise.resolve(result('mkdir: cannot create directory\n', 1)) },
      { onProgress },
    );
    expect(failed.reason).toMatch(/setup failed \(exit code 1\); building without it: mkdir: cannot create/);
    expect(messages).toHaveLength(2);
  });
});
