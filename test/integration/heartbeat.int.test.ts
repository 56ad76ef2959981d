/**
 * Progress while a script runs (issue 33), end to end: `buildbench build` of a repository whose build script is
 * silent for 40 s, in the rootfs sandbox, with the default --progress-interval, prints at least two heartbeat
 * lines on stderr, each naming the log file to follow, and the build still succeeds.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main.js';
import { sandboxBackendsHere } from '../helpers/sandbox.js';

const { rootfsUnavailable } = await sandboxBackendsHere();
const describeRootfs = rootfsUnavailable ? describe.skip : describe;

describeRootfs('the heartbeat of a quiet build (rootfs sandbox)', () => {
  it('prints at least two lines naming logs/turn-00.log during 40 silent seconds', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-int-heartbeat-'));
    const err: string[] = [];
    const code = await run(
      [
        'build',
        path.resolve('test/fixtures/repos/quiet-build'),
        '--out',
        path.join(dir, 'out'),
        '--max-turns',
        '2',
      ],
      { stdout: () => undefined, stderr: (t) => err.push(t), env: process.env, cwd: dir },
    );
    const beats = err
      .join('')
      .split('\n')
      .filter((l) => /turn 0: still running after \d+ s/.test(l));
    expect(code).toBe(0);
    expect(beats.length).toBeGreaterThanOrEqual(2);
    for (const line of beats) expect(line).toMatch(/\(follow logs\/turn-00\.log\)$/);
    // the one line the script printed before going quiet is what a person sees last
    expect(beats.at(-1)).toContain('last: "preparing the quiet build"');
  }, 240_000);
});
