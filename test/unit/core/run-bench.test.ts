import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { BuildTask, DeployTask } from '../../../src/bench/types.js';
import {
  buildEngine,
  checkVerifierVisibility,
  runBenchmark,
  taskBuildSettings,
  type SharedBuildSettings,
} from '../../../src/core/run-bench.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import { sandboxSettingsFrom } from '../../../src/core/settings.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-run-bench-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const shared: SharedBuildSettings = {
  strategy: 'hybrid',
  maxTurns: 10,
  timeoutMs: 3_600_000,
  turnTimeoutMs: 1_800_000,
  sandbox: sandboxSettingsFrom({}, 'rootfs', undefined),
  model: { model: 'openai:m', maxTokens: 1000, maxCostUsd: 2 },
  secretEnv: ['DEPLOY_KEY'],
};

const build: BuildTask = {
  id: 'b',
  kind: 'build',
  repository: { source: '/src/b' },
  requires: [],
  budgets: { maxTurns: 4, timeout: '10m', maxCost: 0.5 },
  notes: [],
  file: '/tasks/b.yml',
  expected: [{ name: 'hello', label: 'hello (exe)' }, { name: 'libgreet.a' }],
  instructions: [],
};

const deploy: DeployTask = {
  id: 'd',
  kind: 'deploy',
  repository: { source: '/src/d' },
  requires: ['gpu'],
  budgets: { turnTimeout: '2h' },
  notes: [],
  file: '/tasks/d.yml',
  target: { command: 'make run', evidence: { files: ['out.json'] } },
  verifier: { spec: '/tasks/d.spec.yml', hidden: true },
};

describe('taskBuildSettings', () => {
  it("puts a build task's expected names and budgets over the bench's flags, the checkout as source, the run folder as --out", () => {
    const s = taskBuildSettings(build, shared, '/out/runs/b/1', '/work/checkout/b');
    expect(s).toMatchObject({
      source: '/work/checkout/b',
      outDir: '/out/runs/b/1',
      strategy: 'hybrid',
      expect: ['hello', 'libgreet.a'],
      maxTurns: 4,
      timeoutMs: 600_000,
      turnTimeoutMs: 600_000, // never longer than the run
      model: { model: 'openai:m', maxTokens: 1000, maxCostUsd: 0.5 },
      secretEnv: ['DEPLOY_KEY'],
      json: false,
      keep: false,
    });
    expect(s.spec).toBeUndefined();
  });

  it("gives a deploy task's verifier spec as --spec and keeps the flags it does not set", () => {
    const s = taskBuildSettings(deploy, shared, '/out/runs/d/2', '/work/checkout/d');
    expect(s).toMatchObject({
      spec: '/tasks/d.spec.yml',
      expect: [],
      maxTurns: 10,
      timeoutMs: 3_600_000,
      turnTimeoutMs: 3_600_000,
      model: { maxTokens: 1000, maxCostUsd: 2 },
    });
  });

  it('names the task file and the field of a budget it cannot read', () => {
    expect(() => taskBuildSettings({ ...build, budgets: { timeout: 'soon' } }, shared, '/o', '/r')).toThrow(
      /\/tasks\/b\.yml: budgets\.timeout: 'soon' is not a duration/,
    );
  });
});

describe('buildEngine', () => {
  it('is runBuild on the run’s settings with the run’s signal', async () => {
    const seen: [BuildSettings, AbortSignal][] = [];
    const engine = buildEngine(shared, (settings, signal) => {
      seen.push([settings, signal]);
      return Promise.resolve({ status: 'partial' });
    });
    const signal = new AbortController().signal;
    await expect(engine({ task: build, run: 1, runDir: '/o/1', repoDir: '/r', signal })).resolves.toEqual({
      status: 'partial',
    });
    expect(seen[0]![0]).toEqual(taskBuildSettings(build, shared, '/o/1', '/r'));
    expect(seen[0]![1]).toBe(signal);
  });
});

describe('runBenchmark', () => {
  it('loads the fixture suite and runs each task through the engine into the bench folder', async () => {
    const out = path.join(root, 'bench');
    const calls: string[] = [];
    const outcome = await runBenchmark(
      {
        tasks: [path.resolve('tasks/fixtures')],
        outDir: out,
        runs: 2,
        concurrency: 3,
        resume: false,
        build: shared,
      },
      {},
      {
        engine: ({ task, run, repoDir }) => {
          calls.push(`${task.id}/${run}`);
          expect(existsSync(repoDir)).toBe(true);
          // No build here (the integration test builds): each run is an error record, which the leaderboard counts.
          return Promise.reject(new Error('no sandbox in this test'));
        },
      },
    );
    expect(outcome.tasks.map((t) => t.id).sort()).toEqual([
      'broken-c',
      'cmake-hello',
      'make-hello',
      'undefined-libm',
      'werror-newer-gcc',
    ]);
    expect(calls).toHaveLength(10);
    expect(outcome.records).toHaveLength(10);
    expect(new Set(outcome.records.map((r) => `${r.status}: ${r.error}`))).toEqual(
      new Set(['error: no sandbox in this test']),
    );
    const manifest = JSON.parse(readFileSync(path.join(out, 'bench.json'), 'utf8')) as {
      strategy: string;
      model: string;
    };
    expect(manifest).toMatchObject({ strategy: 'hybrid', model: 'openai:m' });
    // The leaderboard of the folder's runs, written at the end.
    expect(outcome.leaderboard?.files).toEqual({
      markdown: path.join(out, 'leaderboard.md'),
      json: path.join(out, 'leaderboard.json'),
      svg: path.join(out, 'leaderboard.svg'),
    });
    const board = JSON.parse(readFileSync(path.join(out, 'leaderboard.json'), 'utf8')) as {
      systems: { system: string; runs: number }[];
    };
    expect(board.systems.map((s) => [s.system, s.runs])).toEqual([['hybrid (openai:m)', 10]]);
    expect(readFileSync(path.join(out, 'leaderboard.svg'), 'utf8')).toMatch(/^<svg/);
  });
});

describe('checkVerifierVisibility', () => {
  it("accepts a deploy task whose verifier.hidden is its spec's hidden, and names both files when not", async () => {
    const spec = path.join(root, 'visible.spec.yml');
    writeFileSync(spec, 'name: visible\nhidden: false\nchecks:\n  - name: runs\n    command: "true"\n');
    await expect(
      checkVerifierVisibility([{ ...deploy, verifier: { spec, hidden: false } }, build]),
    ).resolves.toBeUndefined();
    await expect(checkVerifierVisibility([{ ...deploy, verifier: { spec, hidden: true } }])).rejects.toThrow(
      `/tasks/d.yml: verifier.hidden is true but ${spec} says hidden: false`,
    );
  });

  it('passes the shipped deploy examples', async () => {
    const { loadTasks } = await import('../../../src/bench/load.js');
    await expect(
      checkVerifierVisibility(await loadTasks([path.resolve('tasks/examples')])),
    ).resolves.toBeUndefined();
  });
});
