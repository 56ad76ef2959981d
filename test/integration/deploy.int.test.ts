/**
 * `buildbench deploy` end to end in the rootfs sandbox with the rules strategy: the C example
 * (tasks/examples/sort-benchmark.yml, make) deploys to SUCCESS with its hidden verifier passing and its setup
 * replayed in a fresh sandbox; the deploy fixtures run as a benchmark suite (`runBenchmark`, as
 * `buildbench bench tasks/deploy-fixtures` does): c-stats succeeds with nested metrics from a target folder,
 * runtime-failure — the setup works, the target fails at run time — ends PARTIAL with the failing evidence.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runBenchmark } from '../../src/core/run-bench.js';
import { runDeploy, type DeploySettings } from '../../src/core/run-deploy.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-'));
const sandbox = sandboxSettingsFrom(process.env, 'rootfs', undefined);
const shared = {
  strategy: 'rules' as const,
  maxTurns: 4,
  timeoutMs: 5 * 60_000,
  turnTimeoutMs: 3 * 60_000,
  secretEnv: [],
  sandbox,
  registries: { mode: 'offline' as const, mirrors: {} },
};

function readResult(dir: string): BuildResult {
  return JSON.parse(readFileSync(path.join(dir, 'result.json'), 'utf8')) as BuildResult;
}

afterAll(() => {
  expect(hostMountsUnder(sandbox.workRoot)).toEqual([]);
});

describe('buildbench deploy (rootfs sandbox, rules strategy)', () => {
  it(
    'deploys the C example to SUCCESS: target and hidden verifier pass, the setup replays in a fresh sandbox',
    async () => {
      const settings: DeploySettings = {
        ...shared,
        source: path.resolve('tasks/examples/sort-benchmark'),
        taskFile: path.resolve('tasks/examples/sort-benchmark.yml'),
        outDir: path.join(outRoot, 'sort-benchmark'),
        json: false,
        keep: false,
      };
      const result = await runDeploy(settings);
      expect(result.status).toBe('success');
      const deploy = result.deploy!;
      expect(deploy.ecosystems.map((e) => e.kind)).toContain('c-cpp');
      expect(deploy.setupRan).toBe(true);
      expect(deploy.target).toMatchObject({ name: 'spec: target experiment', passed: true });
      expect(deploy.target!.detail).toMatch(/results\.json: n = 200000/);
      expect(deploy.verifier).toMatchObject({ hidden: true, passed: true });
      expect(deploy.verifier.checks.map((c) => c.name)).toEqual(['spec: the benchmark runs and sorts']);
      // The setup was minimised into build.sh and replayed in a fresh sandbox, where the target passed again.
      expect(result.recipe?.verified).toBe(true);
      // ... and the hidden verifier judged the replay too.
      expect(result.recipe?.replay.hiddenVerifier).toBe(true);
      expect(result.recipe?.replay.reason).toMatch(/the task’s hidden verifier included/);
      expect(result.turns[0]!.purpose).toBe('C/C++: make');
      const runbook = readFileSync(path.join(settings.outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('# sort-benchmark: deploy runbook');
      expect(runbook).toContain('**Status: SUCCESS**');
      expect(runbook).toContain('## How to run the target experiment');
      expect(runbook).toContain('make && ./sortbench 200000');
      // The first turn, the first script of the fresh sandbox, is the replay: build.sh is it byte for byte.
      expect(result.recipe?.replay.reusedTurn).toBe(0);
      expect(runbook).toContain('where the target and the hidden verifier passed (that run is its replay)');
      expect(existsSync(path.join(settings.outDir, 'build.sh'))).toBe(true);
    },
    5 * 60_000,
  );

  it(
    'leaves the recipe unverified when the hidden verifier fails in the replay, though the run passed it',
    async () => {
      // The same task with a hidden check that holds in the run's sandbox and not in the replay's copy, where
      // build.sh is placed under .buildbench/replay: so the hidden verifier must have judged the replay.
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-hidden-'));
      cpSync(path.resolve('tasks/examples'), dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'sort-benchmark.spec.yml'),
        [
          'name: sort-benchmark-ran',
          'hidden: true',
          'checks:',
          '  - name: the benchmark runs outside a replay',
          '    command: ./sortbench 1000 && test ! -e .buildbench/replay/build.sh',
          '    timeout: 60s',
          '    expect:',
          "      stdout: 'sorted 1000 integers'",
          '',
        ].join('\n'),
      );
      const settings: DeploySettings = {
        ...shared,
        source: path.join(dir, 'sort-benchmark'),
        taskFile: path.join(dir, 'sort-benchmark.yml'),
        outDir: path.join(outRoot, 'sort-benchmark-hidden'),
        json: false,
        keep: false,
        // A new sandbox for the replay: the first turn alone would stand as it (`replay: 'auto'`).
        replay: 'always',
      };
      const result = await runDeploy(settings);
      expect(result.status).toBe('success');
      expect(result.deploy!.verifier).toMatchObject({ hidden: true, passed: true });
      expect(result.recipe?.verified).toBe(false);
      expect(result.recipe?.replay.status).toBe('failed');
      expect(result.recipe?.replay.reason).toMatch(/the benchmark runs outside a replay/);
    },
    5 * 60_000,
  );

  it(
    'runs the deploy fixtures as a suite: c-stats SUCCESS, runtime-failure PARTIAL with the failing evidence',
    async () => {
      const outDir = path.join(outRoot, 'bench');
      const outcome = await runBenchmark({
        tasks: [
          path.resolve('tasks/deploy-fixtures/c-stats.yml'),
          path.resolve('tasks/deploy-fixtures/runtime-failure.yml'),
        ],
        outDir,
        runs: 1,
        concurrency: 1,
        resume: false,
        build: shared,
      });
      const statuses = Object.fromEntries(outcome.records.map((r) => [r.task.id, r.status]));
      expect(statuses).toEqual({ 'c-stats': 'success', 'runtime-failure': 'partial' });

      const stats = readResult(path.join(outDir, 'runs', 'c-stats', '1'));
      expect(stats.deploy!.target!.detail).toMatch(/results\.json: summary\.mean = 0\.4\d+/);
      expect(stats.deploy!.verifier.passed).toBe(true);

      const failed = readResult(path.join(outDir, 'runs', 'runtime-failure', '1'));
      expect(failed.reason).toMatch(/^the setup ran through, but the target experiment failed: exit code 2/);
      expect(failed.deploy!.setupRan).toBe(true);
      expect(failed.deploy!.target).toMatchObject({ passed: false });
      expect(failed.deploy!.target!.outputTail).toContain('cannot open the parameter file config/params.txt');
      expect(failed.deploy!.verifier.passed).toBe(false);
      const runbook = readFileSync(path.join(outDir, 'runs', 'runtime-failure', '1', 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('**Status: PARTIAL**');
      expect(runbook).toContain('cannot open the parameter file config/params.txt');
      expect(runbook).not.toContain('SUCCESS**');
    },
    5 * 60_000,
  );
});
