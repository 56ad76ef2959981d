import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import type { SandboxChoice } from '../../src/sandbox/types.js';
import {
  BARE_DOCKER_IMAGE,
  dockerHere,
  ensureBareDockerImage,
  ensureTestDockerImage,
  hostMountsUnder,
  hostProcessesWith,
  TEST_DOCKER_IMAGE,
} from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-build-'));

function settings(
  fixture: string,
  overrides: Partial<BuildSettings> = {},
  sandbox: SandboxChoice = 'rootfs',
): BuildSettings {
  return {
    source: path.join(FIXTURES, fixture),
    outDir: path.join(outRoot, `${fixture}-${overrides.strategy ?? 'rules'}-${sandbox}`),
    strategy: 'rules',
    maxTurns: 6,
    timeoutMs: 10 * 60_000,
    turnTimeoutMs: 5 * 60_000,
    expect: [],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, sandbox, undefined),
    ...overrides,
  };
}

function names(result: BuildResult): string[] {
  return result.artifacts.map((a) => a.path).sort();
}

function readResult(outDir: string): BuildResult {
  return JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8')) as BuildResult;
}

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

describe('buildbench build on fixture repositories (rootfs sandbox, rules strategy)', () => {
  const cases: [fixture: string, expected: string[], artifacts: string[]][] = [
    ['cmake-hello', ['hello', 'libgreet.a'], ['build/hello', 'build/libgreet.a']],
    ['autotools-hello', ['hello'], ['hello']],
    ['configure-hello', ['hello'], ['hello']],
    ['make-hello', ['hello'], ['hello']],
    ['meson-hello', ['hello'], ['builddir/hello']],
    ['subdir-cmake', ['tool'], ['project/build/tool']],
    ['nobuild-c', ['main'], ['main']],
    ['script-hello', ['hello'], ['bin/hello']],
  ];

  it.each(cases)('%s builds with the right strict result', async (fixture, expected, artifacts) => {
    const s = settings(fixture, { expect: expected });
    const result = await runBuild(s);
    expect(result.status).toBe('success');
    expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
    expect(names(result)).toEqual(expect.arrayContaining(artifacts));
    for (const a of artifacts) expect(existsSync(path.join(s.outDir, 'artifacts', a))).toBe(true);
    expect(readResult(s.outDir)).toMatchObject({ schema: 'buildbench.result/v1', status: 'success' });
    const events = readFileSync(path.join(s.outDir, 'trajectory.jsonl'), 'utf8').trim().split('\n');
    expect(events.length).toBeGreaterThan(3);
    expect(readdirSync(path.join(s.outDir, 'logs')).length).toBe(result.turns.length);
  });

  it('infers the expected binaries from the build files when --expect is not given', async () => {
    const result = await runBuild(settings('cmake-hello', { outDir: path.join(outRoot, 'cmake-inferred') }));
    expect(result.expected.source).toBe('inferred');
    expect(result.expected.names.sort()).toEqual(['hello', 'libgreet.a']);
    expect(result.status).toBe('success');
  });

  it('a strict check fails honestly when an expected binary is not built', async () => {
    const result = await runBuild(
      settings('make-hello', {
        expect: ['hello', 'missing-tool'],
        outDir: path.join(outRoot, 'make-missing'),
      }),
    );
    expect(result.status).toBe('partial');
    expect(result.metrics).toEqual({ completion: true, strict: false, flexible: true });
    expect(result.expected.missing).toEqual(['missing-tool']);
  });

  it('a broken repository ends FAILED with a compile-error root cause', async () => {
    const s = settings('broken-c');
    const result = await runBuild(s);
    expect(result.status).toMatch(/^(failed|stuck)$/);
    expect(result.metrics.completion).toBe(false);
    expect(result.rootCause?.category).toBe('compile-error');
    expect(result.rootCause?.excerpt).toMatch(/broken\.c/);
  });
});

describe('baseline strategy', () => {
  it('builds a root CMake project and fails where the build root is in a subdirectory', async () => {
    const ok = await runBuild(settings('cmake-hello', { strategy: 'baseline', expect: ['hello'] }));
    expect(ok.status).toBe('success');
    const sub = await runBuild(settings('subdir-cmake', { strategy: 'baseline', expect: ['tool'] }));
    expect(sub.status).toBe('failed');
    expect(sub.turns).toHaveLength(1);
  });
});

describe('bad input and runaway commands', () => {
  it('a script that never ends is killed at the turn timeout and nothing is left behind', async () => {
    const s = settings('slow-script', { turnTimeoutMs: 3000, maxTurns: 1 });
    const result = await runBuild(s);
    expect(result.turns[0]?.timedOut).toBe(true);
    expect(result.status).not.toBe('success');
    expect(hostProcessesWith('build.sh')).toEqual([]);
  });

  it('Ctrl-C cancels the build, cleans up and still writes result.json and the trajectory', async () => {
    const controller = new AbortController();
    const s = settings('slow-script', { maxTurns: 1 });
    setTimeout(() => controller.abort(), 2500);
    const result = await runBuild(s, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(readResult(s.outDir).status).toBe('cancelled');
    const log = readFileSync(path.join(s.outDir, 'logs', 'turn-00.log'), 'utf8');
    expect(log).toMatch(/still building step 1/);
    expect(hostProcessesWith('build.sh')).toEqual([]);
  });
});

const dockerUp = await dockerHere();

(dockerUp ? describe : describe.skip)('buildbench build in the docker sandbox', () => {
  it(
    'a stock-like image with no compiler and no package index: tools and the missing package are installed',
    async () => {
      await ensureBareDockerImage();
      const s = settings(
        'missing-header',
        { expect: ['zversion'], outDir: path.join(outRoot, 'bare-docker') },
        'docker',
      );
      s.sandbox.image = BARE_DOCKER_IMAGE;
      // The image as it is (BUILDBENCH_DOCKER_TOOLCHAIN=off): the path a stock image takes without the toolchain image.
      s.sandbox.dockerToolchain = false;
      s.preinstall = false; // this case is about the repair loop, not the declared dependencies
      const result = await runBuild(s);
      expect(result.status).toBe('success');
      expect(result.turns.map((t) => t.purpose)).toEqual(['make', 'make + install-header-package']);
      expect(result.recipe?.verified).toBe(true);
    },
    10 * 60_000,
  );

  it.each([
    ['cmake-hello', ['hello', 'libgreet.a']],
    ['autotools-hello', ['hello']],
    ['nobuild-c', ['main']],
  ])('%s builds with the right strict result', async (fixture, expected) => {
    await ensureTestDockerImage();
    const s = settings(fixture, { expect: expected }, 'docker');
    s.sandbox.image = TEST_DOCKER_IMAGE;
    const result = await runBuild(s);
    expect(result.sandbox).toMatchObject({ kind: 'docker', image: TEST_DOCKER_IMAGE });
    expect(result.status).toBe('success');
    expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
  });
});
