import { describe, expect, it } from '@jest/globals';

import { ConfigError, SandboxError } from '../../../src/base/errors.js';
import {
  defaultSandboxSettings,
  parseSandboxChoice,
  resolveSandboxKind,
  type SandboxProbes,
} from '../../../src/sandbox/factory.js';
import { DEFAULT_PIDS_LIMIT, defaultMemoryLimit } from '../../../src/sandbox/isolation.js';

const probes = (docker: boolean, rootfs: string[]): SandboxProbes => ({
  dockerAnswers: () => Promise.resolve(docker),
  rootfsProblems: () => Promise.resolve(rootfs),
  rootfsMissingPackages: () => Promise.resolve([]),
});

describe('defaultSandboxSettings', () => {
  it('uses ~/.cache/buildbench and <cache>/work', () => {
    const s = defaultSandboxSettings({ HOME: '/home/u' });
    expect(s).toEqual({
      choice: 'auto',
      image: 'ubuntu:22.04',
      cacheDir: '/home/u/.cache/buildbench',
      suite: 'bookworm',
      mirror: 'http://deb.debian.org/debian',
      workRoot: '/home/u/.cache/buildbench/work',
      allowHost: false,
      buildCache: '/home/u/.cache/buildbench/build-cache',
      memoryBytes: defaultMemoryLimit(),
      pids: DEFAULT_PIDS_LIMIT,
    });
  });

  it('reads BUILDBENCH_BUILD_CACHE: a folder, or off', () => {
    expect(defaultSandboxSettings({ HOME: '/h', BUILDBENCH_BUILD_CACHE: '/bc' }).buildCache).toBe('/bc');
    expect(defaultSandboxSettings({ HOME: '/h', BUILDBENCH_BUILD_CACHE: '~/bc' }).buildCache).toBe('/h/bc');
    for (const off of ['off', 'OFF', 'none', 'false']) {
      expect(defaultSandboxSettings({ HOME: '/h', BUILDBENCH_BUILD_CACHE: off }).buildCache).toBeUndefined();
    }
    expect(() => defaultSandboxSettings({ HOME: '/h', BUILDBENCH_BUILD_CACHE: 'rel' })).toThrow(
      /BUILDBENCH_BUILD_CACHE=rel is not an absolute path/,
    );
    expect(() => defaultSandboxSettings({ HOME: '/h', BUILDBENCH_BUILD_CACHE: '/a:b' })).toThrow(
      /cannot be used as a sandbox mount/,
    );
  });

  it('reads BUILDBENCH_CACHE_DIR, BUILDBENCH_WORK_DIR and CI', () => {
    const s = defaultSandboxSettings({
      HOME: '/h',
      BUILDBENCH_CACHE_DIR: '~/c',
      BUILDBENCH_WORK_DIR: '/w',
      CI: 'true',
    });
    expect(s.cacheDir).toBe('/h/c');
    expect(s.workRoot).toBe('/w');
    expect(s.allowHost).toBe(true);
    expect(() => defaultSandboxSettings({ HOME: '/h', BUILDBENCH_CACHE_DIR: 'rel' })).toThrow(ConfigError);
  });
});

describe('resolveSandboxKind', () => {
  const base = defaultSandboxSettings({ HOME: '/h' });

  it('auto prefers docker, then rootfs', async () => {
    await expect(resolveSandboxKind(base, probes(true, []))).resolves.toBe('docker');
    await expect(resolveSandboxKind(base, probes(false, []))).resolves.toBe('rootfs');
  });

  it('auto never falls back to the host, and says how to enable a sandbox', async () => {
    const settings = { ...base, allowHost: true };
    const error = await resolveSandboxKind(settings, probes(false, ['it needs root'])).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).message).toContain('it needs root');
    expect((error as SandboxError).hint).toMatch(/debootstrap.*--sandbox host/);
  });

  it('honours explicit choices; the host only when allowed', async () => {
    await expect(resolveSandboxKind({ ...base, choice: 'rootfs' }, probes(true, ['x']))).resolves.toBe(
      'rootfs',
    );
    await expect(resolveSandboxKind({ ...base, choice: 'docker' }, probes(false, []))).resolves.toBe(
      'docker',
    );
    await expect(resolveSandboxKind({ ...base, choice: 'host' }, probes(true, []))).rejects.toBeInstanceOf(
      ConfigError,
    );
    await expect(
      resolveSandboxKind({ ...base, choice: 'host', allowHost: true }, probes(true, [])),
    ).resolves.toBe('host');
  });

  it('parses --sandbox values', () => {
    expect(parseSandboxChoice('rootfs')).toBe('rootfs');
    expect(() => parseSandboxChoice('vm')).toThrow(
      /expected one of auto, rootfs, docker, host|unknown sandbox/,
    );
  });
});
