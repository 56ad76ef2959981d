/**
 * The benchmark workflow's three steps, each run as the runner runs the action (INPUT_* variables, the
 * runner's files read back), with the real engine in the rootfs sandbox: mode matrix on tasks/fixtures,
 * mode task on the make-hello entry of its output (as a run job of benchmark-run.yml gets it), the run's
 * out-dir "uploaded" and "downloaded" (copied into results/<artifact-name>/, as actions/download-artifact
 * leaves it), and mode aggregate over results/.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { run } from '../../src/action/main.js';
import type { BenchMatrix } from '../../src/bench/matrix.js';
import type { RunRecord } from '../../src/bench/types.js';
import type { BuildResult } from '../../src/report/result.js';
import { setUpActionEnv, type ActionEnv } from '../helpers/action.js';
import { rootfsUnavailableReason } from '../helpers/sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const unavailable = await rootfsUnavailableReason();
const describeRootfs = unavailable ? describe.skip : describe;
if (unavailable) console.warn(`skipping the benchmark modes end-to-end test: ${unavailable}`);

let env: ActionEnv | undefined;
afterEach(() => {
  env?.restore();
  env = undefined;
});

describeRootfs('the benchmark workflow’s steps on tasks/fixtures (rootfs sandbox)', () => {
  it(
    'matrix → task (make-hello, real build) → aggregate',
    async () => {
      env = setUpActionEnv({
        inputs: { mode: 'matrix', tasks: 'tasks/fixtures', runs: '1' },
        env: { GITHUB_WORKSPACE: ROOT },
      });
      await run({ handleSignals: false });
      expect(env.errors()).toEqual([]);
      const matrix = JSON.parse(env.outputs().matrix!) as BenchMatrix;
      const entry = matrix.chunks.flatMap((c) => c.include).find((e) => e.task === 'make-hello');
      expect(entry).toEqual({
        task: 'make-hello',
        file: 'tasks/fixtures/make-hello.yml',
        run: 1,
        'runs-on': ['ubuntu-latest'],
      });
      env.restore();

      env = setUpActionEnv({
        inputs: { mode: 'task', task: entry!.file, run: String(entry!.run), sandbox: 'rootfs' },
        env: { GITHUB_WORKSPACE: ROOT },
      });
      await run({ handleSignals: false });
      expect(env.errors()).toEqual([]);
      const outputs = env.outputs();
      expect(outputs).toMatchObject({
        status: 'success',
        strict: 'true',
        'artifact-name': 'buildbench-run-make-hello-1',
      });
      const runDir = outputs['out-dir']!;
      expect(runDir).toBe(path.join(env.runnerTemp, 'buildbench-bench', 'runs', 'make-hello', '1'));
      const record = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunRecord;
      expect(record).toMatchObject({
        task: { id: 'make-hello', suite: 'fixtures' },
        run: 1,
        status: 'success',
      });
      const result = JSON.parse(readFileSync(outputs['result-path']!, 'utf8')) as BuildResult;
      expect(result.sandbox.kind).toBe('rootfs');
      expect(result.expected?.matched).toEqual(['hello']);
      expect(existsSync(path.join(runDir, 'trajectory.jsonl'))).toBe(true);
      expect(env.summary()).toContain('## buildbench task `make-hello`, run 1: SUCCESS');
      // The step's sandboxes are gone; nothing is left for the post step.
      expect(existsSync(env.state().workRoot!)).toBe(false);

      // upload-artifact of out-dir under artifact-name, then download-artifact by pattern into results/.
      const results = path.join(env.dir, 'results');
      cpSync(runDir, path.join(results, outputs['artifact-name']!), { recursive: true });
      env.restore();

      env = setUpActionEnv({
        inputs: { mode: 'aggregate', results },
        env: { GITHUB_WORKSPACE: ROOT },
      });
      await run({ handleSignals: false });
      expect(env.errors()).toEqual([]);
      const dir = env.outputs()['leaderboard-dir']!;
      expect(readdirSync(dir).sort()).toEqual(['leaderboard.json', 'leaderboard.md', 'leaderboard.svg']);
      const board = JSON.parse(readFileSync(path.join(dir, 'leaderboard.json'), 'utf8')) as {
        counted: number;
        systems: { system: string; rates: { strict: number } }[];
      };
      expect(board.counted).toBe(1);
      expect(board.systems).toHaveLength(1);
      expect(board.systems[0]).toMatchObject({ system: 'rules', rates: { strict: 1 } });
      expect(env.summary()).toContain('make-hello');
    },
    15 * 60_000,
  );
});
