/**
 * Issue 12's failure classes end to end: one tiny fixture per class, built for real by `runBuild` with the
 * rules strategy in the rootfs sandbox (packages from the Debian mirror inside it). Each case says the
 * signature turn 0 fails with and the repair rules that follow, one turn each; the build must then pass
 * strictly and replay in a fresh sandbox. Class 7 ends `stalled` within seconds instead of the turn cap.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-round2-'));
const BUILD_TIMEOUT_MS = 4 * 60_000;

function settings(
  source: string,
  name: string,
  expect: string[],
  extra: Partial<BuildSettings> = {},
): BuildSettings {
  return {
    source,
    outDir: path.join(outRoot, name),
    strategy: 'rules',
    maxTurns: 6,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 3 * 60_000,
    expect,
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
    // Each case proves a repair rule: declared dependencies installed before turn 0 would leave some of them
    // no error to repair (preinstall.int.test.ts covers that path).
    preinstall: false,
    ...extra,
  };
}

/**
 * A git checkout of the fixture whose submodules are registered (gitlinks + .gitmodules) but not checked out,
 * as a clone without --recurse-submodules is: the fetch in the sandbox fails (no network to their hosts).
 */
function checkoutWithSubmodules(fixture: string, submodules: string[]): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'bb-int-sub-')), fixture);
  cpSync(path.join(FIXTURES, fixture), dir, { recursive: true });
  const git = (...args: string[]): void => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '.');
  git('add', '-A');
  submodules.forEach((sub, i) =>
    git('update-index', '--add', '--cacheinfo', `160000,${String(i + 1).repeat(40)},${sub}`),
  );
  git('commit', '-qm', 'fixture');
  return dir;
}

interface RoundTwoCase {
  fixture: string;
  expect: string[];
  recipe: string;
  signature: string;
  rules: string[];
  source?: () => string;
}

const CASES: RoundTwoCase[] = [
  {
    fixture: 'autotools-autopoint',
    expect: ['intlhello'],
    recipe: 'autotools',
    signature: 'autotools-helper-cant-exec',
    rules: ['install-autotools-helper'],
  },
  {
    fixture: 'autoconf-prereq-newer',
    expect: ['prereq'],
    recipe: 'autotools',
    signature: 'autoconf-version-required',
    rules: ['lower-ac-prereq'],
  },
  {
    fixture: 'cmake-find-library-names',
    expect: ['jsonver'],
    recipe: 'cmake',
    signature: 'cmake-find-names-not-found',
    rules: ['install-find-names-package'],
  },
  {
    fixture: 'cmake-notfound-variable',
    expect: ['sodiumver'],
    recipe: 'cmake',
    signature: 'cmake-variables-notfound',
    rules: ['install-notfound-package'],
  },
  {
    fixture: 'submodule-masked-error',
    expect: ['zver'],
    recipe: 'cmake',
    signature: 'cmake-could-not-find',
    rules: ['install-cmake-package'],
    source: () =>
      checkoutWithSubmodules('submodule-masked-error', ['third_party/googletest', 'third_party/doc-theme']),
  },
  {
    fixture: 'parallel-make-race',
    expect: ['app'],
    recipe: 'make',
    signature: 'linker-input-missing',
    rules: ['serial-make'],
  },
  {
    fixture: 'script-exit-zero',
    expect: ['zcheck'],
    recipe: './build.sh',
    signature: 'missing-header',
    rules: ['install-header-package'],
  },
];

function summary(result: BuildResult): string {
  return result.turns
    .map(
      (t) =>
        `${t.purpose} → ${t.exitCode}${t.rootCause ? ` (${t.rootCause.id}: ${t.rootCause.message})` : ''}`,
    )
    .join('\n');
}

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

describe('issue 12: each failure class goes from FAILED to SUCCESS (rootfs sandbox)', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))(
    '%s',
    async (_name, c) => {
      const source = c.source ? c.source() : path.join(FIXTURES, c.fixture);
      const result = await runBuild(settings(source, c.fixture, c.expect));
      expect({ status: result.status, turns: summary(result) }).toMatchObject({ status: 'success' });
      expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
      expect(result.expected.matched.sort()).toEqual([...c.expect].sort());
      expect(result.turns.map((t) => t.purpose)).toEqual([
        c.recipe,
        ...c.rules.map((r) => `${c.recipe} + ${r}`),
      ]);
      expect(result.turns[0]?.rootCause?.id).toBe(c.signature);
      for (const turn of result.turns.slice(1)) expect(turn.reason.length).toBeGreaterThan(10);
      expect({ fixture: c.fixture, verified: result.recipe?.verified }).toEqual({
        fixture: c.fixture,
        verified: true,
      });
      if (c.rules.includes('lower-ac-prereq')) expect(result.patches?.length).toBeGreaterThan(0);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});

describe('issue 12, class 7: scripts that are not builds', () => {
  it(
    'a silent script ends as stalled after the idle limit, not at the turn cap',
    async () => {
      const started = Date.now();
      const result = await runBuild(
        settings(path.join(FIXTURES, 'silent-hang'), 'silent-hang', ['hello'], {
          maxTurns: 1,
          idleTimeoutMs: 5000,
        }),
      );
      expect(result.status).toBe('stalled');
      expect(result.reason).toMatch(/printed nothing for 5 s/);
      expect(result.turns).toHaveLength(1);
      // The turn cap is 3 minutes: the stall ended it in seconds.
      expect(Date.now() - started).toBeLessThan(90_000);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'a deploy script beside a Makefile is not run as a build recipe',
    async () => {
      const result = await runBuild(
        settings(path.join(FIXTURES, 'deploy-script'), 'deploy-script', ['hello'], { idleTimeoutMs: 20_000 }),
      );
      expect(result.status).toBe('failed');
      expect(result.turns.map((t) => t.purpose)).toEqual(['make']);
    },
    BUILD_TIMEOUT_MS,
  );
});
