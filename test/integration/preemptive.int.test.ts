/**
 * Repairs known before the first script (issue 32), end to end in the rootfs sandbox: the repository including
 * `<sys/sysctl.h>` (removed in glibc 2.32; bookworm has 2.36) builds in one script, the include guarded before
 * turn 0 and recorded as a patch; the recipe replays. With --no-preinstall the same build needs the failed turn
 * and the repair after it (repair.int.test.ts), the before of this after.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import { sandboxBackendsHere } from '../helpers/sandbox.js';

const { rootfsUnavailable } = await sandboxBackendsHere();
const describeRootfs = rootfsUnavailable ? describe.skip : describe;
const BUILD_TIMEOUT_MS = 4 * 60_000;

describeRootfs('a removed header repaired before the first script (rootfs sandbox)', () => {
  it(
    'builds in one turn, the guard recorded as a patch, and the recipe replays',
    async () => {
      const out = mkdtempSync(path.join(tmpdir(), 'bb-int-preemptive-'));
      const result = await runBuild({
        source: path.resolve('test/fixtures/repos/removed-sysctl-header'),
        outDir: out,
        strategy: 'rules',
        maxTurns: 4,
        timeoutMs: BUILD_TIMEOUT_MS,
        turnTimeoutMs: 3 * 60_000,
        expect: ['uptime'],
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      });
      expect({
        status: result.status,
        turns: result.turns.map((t) => `${t.purpose} → ${t.exitCode}`),
      }).toEqual({
        status: 'success',
        turns: ['make → 0'],
      });
      expect(result.turns[0]!.reason).toContain('before the first script, guard-removed-glibc-header');
      expect(result.turns[0]!.reason).toMatch(/#include <sys\/sysctl\.h>\)/);
      expect(result.recipe?.verified).toBe(true);
      expect(result.patches?.length).toBeGreaterThan(0);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
