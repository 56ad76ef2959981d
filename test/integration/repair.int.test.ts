/**
 * The repair knowledge base end to end: one tiny fixture repository per failure mode, each built for real by
 * `runBuild` with the rules strategy in the rootfs sandbox (packages come from the Debian mirror inside it).
 * Each case says which layer-1 signature turn 0 must find and which repair rule must fix it; the baseline
 * (GHCC rule, no repairs) runs on the same fixtures so the comparison means something.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-repair-'));

/** One build, with a budget well above what the fixture needs (seconds), so a hang fails fast and clearly. */
const BUILD_TIMEOUT_MS = 4 * 60_000;

function settings(fixture: string, strategy: BuildSettings['strategy'], expect: string[]): BuildSettings {
  return {
    source: path.join(FIXTURES, fixture),
    outDir: path.join(outRoot, `${fixture}-${strategy}`),
    strategy,
    maxTurns: 6,
    // Each case is about the repair that fixes its failure: the declared dependencies stay uninstalled.
    preinstall: false,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 3 * 60_000,
    expect,
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
  };
}

interface RepairCase {
  fixture: string;
  /** Binaries that must be built (passed as --expect). */
  expect: string[];
  /** The recipe turn 0 runs (the purpose of the first turn). */
  recipe: string;
  /** The signature turn 0 fails with, when it fails. */
  signature?: string;
  /** The repair rules that fire, in order, one turn each. */
  rules: string[];
}

const REPAIRED: RepairCase[] = [
  {
    fixture: 'missing-header',
    expect: ['zversion'],
    recipe: 'make',
    signature: 'missing-header',
    rules: ['install-header-package'],
  },
  {
    fixture: 'missing-library',
    expect: ['jversion'],
    recipe: 'make',
    signature: 'missing-library',
    rules: ['install-library-package'],
  },
  {
    fixture: 'missing-pkgconfig',
    expect: ['xmlcount'],
    recipe: 'make',
    signature: 'pkgconfig-not-in-search-path',
    rules: ['install-pkgconfig-package'],
  },
  {
    fixture: 'missing-pkgconfig-cmake',
    expect: ['zstdversion'],
    recipe: 'cmake',
    signature: 'cmake-pkgconfig-required',
    rules: ['install-pkgconfig-package'],
  },
  {
    fixture: 'missing-cmake-package',
    expect: ['fmtdemo'],
    recipe: 'cmake',
    signature: 'cmake-missing-find-module',
    rules: ['install-cmake-package'],
  },
  {
    fixture: 'missing-cmake-module',
    expect: ['pngversion'],
    recipe: 'cmake',
    signature: 'cmake-could-not-find',
    rules: ['install-cmake-package'],
  },
  {
    fixture: 'missing-command',
    expect: ['calc'],
    recipe: 'make',
    signature: 'command-not-found-make',
    rules: ['install-command-package'],
  },
  {
    fixture: 'generated-header',
    expect: ['banner'],
    recipe: 'make',
    signature: 'command-not-found-sh',
    rules: ['install-command-package'],
  },
  {
    fixture: 'autotools-macro',
    expect: ['gpgversion'],
    recipe: 'autotools',
    signature: 'autoconf-undefined-macro',
    rules: ['install-autoconf-macros'],
  },
  {
    fixture: 'fcommon-globals',
    expect: ['counter'],
    recipe: 'make',
    signature: 'multiple-definition-fcommon',
    rules: ['gcc10-fcommon'],
  },
  {
    fixture: 'werror-newer-gcc',
    expect: ['greet'],
    recipe: 'make',
    signature: 'werror',
    rules: ['drop-werror'],
  },
  {
    fixture: 'removed-sysctl-header',
    expect: ['uptime'],
    recipe: 'make',
    signature: 'glibc-sysctl-removed',
    rules: ['guard-removed-glibc-header'],
  },
  {
    fixture: 'undefined-libm',
    expect: ['roots'],
    recipe: 'make',
    signature: 'undefined-reference',
    rules: ['link-toolchain-library'],
  },
  {
    fixture: 'header-in-subdir',
    expect: ['norm'],
    recipe: 'make',
    signature: 'missing-header',
    rules: ['install-header-package', 'add-include-dir'],
  },
  {
    fixture: 'configure-prose-library',
    expect: ['cursesversion'],
    recipe: 'configure + make',
    signature: 'configure-error',
    rules: ['install-named-dependency'],
  },
  {
    fixture: 'cmake-too-new',
    expect: ['newcmake'],
    recipe: 'cmake',
    signature: 'cmake-version-required',
    rules: ['newer-cmake'],
  },
  // No repair needed: the recipe itself knows where the build root is, or that there is no build system.
  { fixture: 'subdir-cmake', expect: ['tool'], recipe: 'cmake (project/)', rules: [] },
  { fixture: 'nobuild-c', expect: ['main'], recipe: 'direct compilation', rules: [] },
];

/** Purposes the rules strategy gives its turns: the recipe, then `<recipe> + <rule>` for each repair. */
function expectedPurposes(c: RepairCase): string[] {
  return [c.recipe, ...c.rules.map((rule) => `${c.recipe} + ${rule}`)];
}

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

describe('the rules strategy repairs each failure mode (rootfs sandbox)', () => {
  it.each(REPAIRED.map((c) => [c.fixture, c] as const))(
    '%s',
    async (_name, c) => {
      const result = await runBuild(settings(c.fixture, 'rules', c.expect));
      const turns = summary(result);
      expect({ status: result.status, turns }).toMatchObject({ status: 'success' });
      expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
      expect(result.expected.matched.sort()).toEqual([...c.expect].sort());
      expect(result.turns.map((t) => t.purpose)).toEqual(expectedPurposes(c));
      if (c.signature) expect(result.turns[0]?.rootCause?.id).toBe(c.signature);
      // Every repair turn says which error it answers.
      for (const turn of result.turns.slice(1)) expect(turn.reason.length).toBeGreaterThan(10);
      expect(result.turns[result.turns.length - 1]?.exitCode).toBe(0);
      // Finalize: the minimal recipe (packages, patches, flags) rebuilt it in a fresh sandbox.
      expect({ fixture: c.fixture, verified: result.recipe?.verified }).toEqual({
        fixture: c.fixture,
        verified: true,
      });
      if (c.rules.includes('guard-removed-glibc-header')) expect(result.patches?.length).toBeGreaterThan(0);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});

describe('what cannot be built ends FAILED with the right root cause', () => {
  it(
    'a dependency no Debian package provides: missing-dependency, and no package is guessed',
    async () => {
      const result = await runBuild(settings('unavailable-dependency', 'rules', ['probe']));
      expect(result.status).toBe('failed');
      expect(result.metrics.completion).toBe(false);
      expect(result.rootCause).toMatchObject({
        id: 'missing-header',
        category: 'missing-dependency',
        captures: { header: 'acmesdk/device.h' },
      });
      // The package index knows nothing that ships the header, so no install turn was made up.
      expect(result.turns.map((t) => t.purpose)).toEqual(['make']);
      expect(result.reason).toMatch(/acmesdk\/device\.h/);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'a syntax error: compile-error, not a repair',
    async () => {
      const result = await runBuild(settings('broken-c', 'rules', ['broken']));
      expect(result.status).toMatch(/^(failed|stuck)$/);
      expect(result.rootCause?.category).toBe('compile-error');
      expect(result.turns.map((t) => t.purpose)).toEqual(['make']);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});

describe('the baseline (no repairs) on the same fixtures', () => {
  it(
    'fails strictly on every fixture the rules strategy had to repair or relocate',
    async () => {
      const outcomes: { fixture: string; status: string; strict: boolean; rootCause?: string }[] = [];
      for (const c of REPAIRED) {
        const result = await runBuild(settings(c.fixture, 'baseline', c.expect));
        expect(result.turns).toHaveLength(1);
        outcomes.push({
          fixture: c.fixture,
          status: result.status,
          strict: result.metrics.strict,
          rootCause: result.rootCause?.id,
        });
      }
      expect(outcomes.filter((o) => o.strict)).toEqual([]);
      // Where the baseline runs the same build as the recipe (make or cmake at the root), it fails the same way.
      for (const c of REPAIRED.filter((r) => r.signature && (r.recipe === 'make' || r.recipe === 'cmake'))) {
        expect(outcomes.find((o) => o.fixture === c.fixture)).toMatchObject({ rootCause: c.signature });
      }
    },
    REPAIRED.length * 60_000,
  );
});
