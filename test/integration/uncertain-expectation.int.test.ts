/**
 * Issue 31, "when the expectation is uncertain, the honest status is PARTIAL with the reason, never SUCCESS", end
 * to end in the rootfs sandbox with the rules strategy: a Makefile whose only product is named with a part make
 * computes when it runs (`$(PROG)-$(VERSION)-$(ARCH)`, `ARCH := $(shell uname -m)`). The build runs through and
 * makes it; judged by the inferred expectation, which cannot know that name, the run is PARTIAL and says why.
 * Given the name (`--expect`), the same build is a SUCCESS.
 */
import { describe, expect, it } from '@jest/globals';
import { arch } from 'node:os';
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
const BUILD_TIMEOUT_MS = 3 * 60_000;
const FIXTURE = path.resolve('test/fixtures/repos/computed-program-name');

async function build(expectNames: string[] = []): Promise<{ result: BuildResult; outDir: string }> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'bb-int-uncertain-'));
  const result = await runBuild({
    source: FIXTURE,
    outDir,
    strategy: 'rules',
    maxTurns: 3,
    timeoutMs: BUILD_TIMEOUT_MS,
    turnTimeoutMs: 2 * 60_000,
    expect: expectNames,
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
  });
  return { result, outDir };
}

describeRootfs('a product named when make runs (rootfs sandbox, rules)', () => {
  it(
    'inferred expectation: the build runs through, and the run is PARTIAL with the uncertainty as its reason',
    async () => {
      const { result, outDir } = await build();
      expect(result.turns.at(-1)?.exitCode).toBe(0);
      expect(result.artifacts.map((a) => a.path)).toEqual([expect.stringMatching(/^tally-1\.3-/)]);
      expect(result.expected.uncertain).toEqual([
        expect.stringContaining('tally-1.3-$(?): part of the name is computed when make runs'),
      ]);
      expect(result.status).toBe('partial');
      expect(result.reason).toContain('the expectation is uncertain');
      expect(result.reason).toContain('Makefile:');
      expect(checkRunDir(outDir)).toEqual([]);
      const runbook = readFileSync(path.join(outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('PARTIAL');
      expect(runbook).toContain('the expectation is uncertain');
    },
    BUILD_TIMEOUT_MS + 30_000,
  );

  it(
    'the name given with --expect: SUCCESS',
    async () => {
      const machine = arch() === 'x64' ? 'x86_64' : arch() === 'arm64' ? 'aarch64' : arch();
      const { result } = await build([`tally-1.3-${machine}`]);
      expect(result.status).toBe('success');
      expect(result.expected.uncertain).toBeUndefined();
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
