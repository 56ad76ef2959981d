/**
 * Issue 31, "A failed build called SUCCESS", end to end in the rootfs sandbox with the rules strategy: the
 * Makefile builds a code generator in a subfolder (`tools/gen/gen`) and runs it, then the program under a
 * computed name (`$(PROG)-$(VERSION)-$(ARCH)`) fails on a header that exists nowhere and make exits 2. When the
 * expectation holds only the generator, every expected binary exists after a script that did not run through:
 * the run ends PARTIAL with that reason and the compiler's error as evidence, never SUCCESS, and no recipe of the
 * failing script is replayed as a verified one. With the expectation inspection infers, it is never SUCCESS
 * either.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { checkRunDir } from '../helpers/trajectory-check.js';
import { sandboxBackendsHere } from '../helpers/sandbox.js';

const { rootfsUnavailable } = await sandboxBackendsHere();
const describeRootfs = rootfsUnavailable ? describe.skip : describe;
const BUILD_TIMEOUT_MS = 4 * 60_000;
const FIXTURE = path.resolve('test/fixtures/repos/generator-then-missing-header');

async function build(expectNames: string[] = []): Promise<{ result: BuildResult; outDir: string }> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'bb-int-generator-'));
  const result = await runBuild({
    source: FIXTURE,
    outDir,
    strategy: 'rules',
    maxTurns: 4,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 3 * 60_000,
    expect: expectNames,
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
  });
  return { result, outDir };
}

describeRootfs('a generator built, then the program fails (rootfs sandbox, rules)', () => {
  it(
    'expecting only the generator: PARTIAL with the exit status and the missing header, never SUCCESS',
    async () => {
      const { result, outDir } = await build(['gen']);
      expect(result.status).toBe('partial');
      expect(result.metrics.completion).toBe(true);
      // the generator exists after turn 0, whose script exited 2: not taken for a success
      expect(result.metrics.strict).toBe(true);
      expect(result.turns[0]).toMatchObject({ turn: 0, exitCode: 2, newArtifacts: 1 });
      expect(result.turns.every((t) => t.exitCode !== 0)).toBe(true);
      expect(result.reason).toContain('every expected binary was built, but the script exited 2 after them');
      expect(result.reason).toContain('sievecodec/codec.h');
      // no recipe of a failing script stands as a verified one
      expect(result.recipe?.verified ?? false).toBe(false);
      expect(checkRunDir(outDir)).toEqual([]);
      const runbook = readFileSync(path.join(outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('PARTIAL');
      expect(runbook).not.toMatch(/\*\*SUCCESS\*\*/);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'with the inferred expectation: PARTIAL or FAILED, never SUCCESS',
    async () => {
      const { result, outDir } = await build();
      expect(['partial', 'failed']).toContain(result.status);
      expect(result.turns.every((t) => t.exitCode !== 0)).toBe(true);
      expect(checkRunDir(outDir)).toEqual([]);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
