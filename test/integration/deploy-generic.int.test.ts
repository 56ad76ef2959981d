/**
 * Issue 29's first generic move, end to end: every program the target command and the scripts it calls run is
 * present before the first script. sh-bc-series is a shell "paper" computing with bc, which no ecosystem
 * provides and the minimal bookworm sandbox lacks (without the move its first turn exits 127, "bc: not found",
 * and a second turn installs it): the program is read from series.sh, looked up in the package index by its
 * path, installed up front with the line that runs it as the reason, and turn 0 deploys to SUCCESS with the
 * hidden verifier (rules strategy, rootfs sandbox).
 *
 * And the move for a build step that fetches from the network: cpp-eigen-clone's build.sh clones Eigen 3.4.0
 * from GitLab, which the sandbox cannot reach here (without the move the clone fails and stops the build); the
 * clone is read from build.sh before the first script, and when the repository does not answer, git is pointed
 * at a copy of Debian's libeigen3-dev in the upstream layout, tagged 3.4.0: one turn, SUCCESS with the hidden
 * verifier, and the log says which way the dependency went.
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

/** Deploys the fixture `name` with its task into a fresh folder; its exit code, result.json and folder. */
async function deployFixture(
  name: string,
  dir: string,
): Promise<{ code: number; result: BuildResult; out: string }> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-generic-')), dir);
  const code = await run(
    ['deploy', path.join(FIXTURES, name), '--task', path.join(FIXTURES, `${name}.yml`), '--out', out],
    { stdout: () => undefined, stderr: () => undefined, env: process.env, cwd: FIXTURES },
  );
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
  return { code, result, out };
}

describeRootfs('generic moves of a deploy (rootfs sandbox, rules strategy)', () => {
  it(
    "sh-bc-series: the program the target's script runs (bc) is installed before the first script",
    async () => {
      const { code, result, out } = await deployFixture('sh-bc-series', 'bc');
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

  it(
    "cpp-eigen-clone: a build script's git clone of Eigen, out of reach, gets the distribution's copy",
    async () => {
      const { code, result, out } = await deployFixture('cpp-eigen-clone', 'eigen');
      expect({ code, status: result.status, turns: result.turns.length }).toEqual({
        code: 0,
        status: 'success',
        turns: 1,
      });
      expect(result.turns[0]?.reason).toMatch(/shipped-source: .*libeigen3-dev.*build\.sh:\d+: git clone/);
      const log = readFileSync(path.join(out, 'logs', 'turn-00.log'), 'utf8');
      expect(log).toMatch(
        /buildbench: the eigen repository is unreachable: falling back to the distribution's libeigen3-dev/,
      );
      expect(readFileSync(path.join(out, 'build.sh'), 'utf8')).toContain('buildbench-shipped/eigen');
      expect(checkRunDir(out)).toEqual([]);
    },
    10 * 60_000,
  );
});
