/**
 * Issue 29's first generic move, end to end: every program the target command and the scripts it calls run is
 * present before the first script. sh-bc-series is a shell "paper" computing with bc, which no ecosystem
 * provides and the minimal bookworm sandbox lacks (without the move its first turn exits 127, "bc: not found",
 * and a second turn installs it): the program is read from series.sh, looked up in the package index by its
 * path, installed up front with the line that runs it as the reason, and turn 0 deploys to SUCCESS with the
 * hidden verifier (rules strategy, rootfs sandbox).
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main.js';
import type { BuildResult } from '../../src/report/result.js';
import { sandboxBackendsHere } from '../helpers/sandbox.js';
import { checkRunDir } from '../helpers/trajectory-check.js';

const { rootfsUnavailable } = await sandboxBackendsHere();
const describeRootfs = rootfsUnavailable ? describe.skip : describe;
const FIXTURES = path.resolve('tasks/deploy-fixtures');

describeRootfs('generic moves of a deploy (rootfs sandbox, rules strategy)', () => {
  it(
    "sh-bc-series: the program the target's script runs (bc) is installed before the first script",
    async () => {
      const out = path.join(mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-generic-')), 'bc');
      const code = await run(
        [
          'deploy',
          path.join(FIXTURES, 'sh-bc-series'),
          '--task',
          path.join(FIXTURES, 'sh-bc-series.yml'),
          '--out',
          out,
        ],
        { stdout: () => undefined, stderr: () => undefined, env: process.env, cwd: FIXTURES },
      );
      const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
      expect({ code, status: result.status, turns: result.turns.length }).toEqual({
        code: 0,
        status: 'success',
        turns: 1,
      });
      expect(result.deploy?.installed).toContainEqual(
        expect.objectContaining({
          kind: 'package',
          what: 'bc',
          why: expect.stringMatching(/series\.sh:\d+/),
        }),
      );
      expect(readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8')).toMatch(
        /`bc` \| package \| installed up front: series\.sh:/,
      );
      expect(checkRunDir(out)).toEqual([]);
    },
    10 * 60_000,
  );
});
