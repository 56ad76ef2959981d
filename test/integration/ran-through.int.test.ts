/**
 * A script that did not run through is never SUCCESS (issue 31), end to end in the rootfs sandbox: the default
 * goal builds `hello` and then fails a documentation check; every expected binary exists, the script exits 2,
 * no rule repairs the check — the run ends PARTIAL with the reason, and no turn of it is taken for a success.
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

describeRootfs('a build that fails after its binaries (rootfs sandbox)', () => {
  it(
    'ends partial, never success, and says the script did not run through',
    async () => {
      const result = await runBuild({
        source: path.resolve('test/fixtures/repos/fails-after-binaries'),
        outDir: mkdtempSync(path.join(tmpdir(), 'bb-int-ran-through-')),
        strategy: 'rules',
        maxTurns: 4,
        timeoutMs: BUILD_TIMEOUT_MS,
        turnTimeoutMs: 3 * 60_000,
        expect: ['hello'],
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      });
      expect(result.status).toBe('partial');
      expect(result.metrics.completion).toBe(true);
      expect(result.turns.every((t) => t.exitCode !== 0)).toBe(true);
      expect(result.reason).toContain('every expected binary was built, but the script exited 2 after them');
      // a partial claim after a script that did not run through is the right one, not a wrong self-stop
      expect(result.verification?.selfStop.wrong).toBe(false);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
