/**
 * Issue 31, §2: one fixture per class that the rules strategy gave up on at turn 1 before the generic moves
 * (each fails on the previous main with `impossible` after one script), built for real by `runBuild` in the
 * rootfs sandbox: a program shipped only under versioned names, a header only in versioned include folders,
 * a generated config.h under direct compilation, a clang-only option under GCC, and a Makefile its own
 * configure script writes. Each must pass strictly on turn 1 with the generic move, and replay.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-generic-'));
const BUILD_TIMEOUT_MS = 5 * 60_000;

interface GenericCase {
  fixture: string;
  expect: string[];
  recipe: string;
  signature: string;
  move: string;
}

const CASES: GenericCase[] = [
  {
    fixture: 'generic-versioned-program',
    expect: ['luagen'],
    recipe: 'make',
    signature: 'command-not-found-sh',
    move: 'versioned-file-lookup',
  },
  {
    fixture: 'generic-lua-header',
    expect: ['luaver'],
    recipe: 'make',
    signature: 'missing-header',
    move: 'versioned-file-lookup',
  },
  {
    fixture: 'generic-config-h',
    expect: ['cfg'],
    recipe: 'direct compilation',
    signature: 'missing-header',
    move: 'configure-first',
  },
  {
    fixture: 'generic-clang-option',
    expect: ['clangopt'],
    recipe: 'make',
    signature: 'unknown-compiler-flag',
    move: 'other-compiler',
  },
  {
    fixture: 'generic-no-makefile',
    expect: ['nomk'],
    recipe: './build.sh',
    signature: 'make-no-makefile',
    move: 'configure-first',
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

describe('issue 31: a generic move instead of giving up at turn 1 (rootfs sandbox)', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))(
    '%s',
    async (_name, c) => {
      const result = await runBuild({
        source: path.join(FIXTURES, c.fixture),
        outDir: path.join(outRoot, c.fixture),
        strategy: 'rules',
        maxTurns: 10,
        timeoutMs: BUILD_TIMEOUT_MS,
        turnTimeoutMs: 4 * 60_000,
        expect: c.expect,
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
        // The declared dependencies installed up front would leave some fixtures no error to repair.
        preinstall: false,
      });
      expect({ status: result.status, turns: summary(result) }).toMatchObject({ status: 'success' });
      expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
      expect(result.turns.map((t) => t.purpose)).toEqual([c.recipe, `${c.recipe} + ${c.move}`]);
      expect(result.turns[0]?.rootCause?.id).toBe(c.signature);
      expect({ fixture: c.fixture, verified: result.recipe?.verified }).toEqual({
        fixture: c.fixture,
        verified: true,
      });
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
