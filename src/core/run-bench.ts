/**
 * `runBenchmark`: the composition root of `buildbench bench`. It loads the task files (bench/load.ts), makes
 * each run's `BuildSettings` from the task and the bench's shared settings, and gives the bench runner
 * (bench/runner.ts) an engine that is `runBuild` itself — the same stages, sandbox and result.json as
 * `buildbench build`, one fresh sandbox per run, no second code path. At the end the leaderboard
 * (leaderboard.md, .json, .svg; bench/leaderboard.ts) is written into the bench folder from its run records.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { writeLeaderboard, type WrittenLeaderboard } from '../bench/leaderboard.js';
import { expectedNames, loadTasks } from '../bench/load.js';
import {
  runBench,
  type BenchDeps,
  type BenchEvent,
  type BenchOutcome,
  type RunEngine,
} from '../bench/runner.js';
import type { Task } from '../bench/types.js';
import type { BuildResult } from '../report/result.js';
import { loadSpec } from '../verify/spec.js';
import { runBuild, type RunBuildDeps } from './run-build.js';
import type { RegistrySettings } from '../deploy/types.js';
import { deployGoalOf } from './deploy-goal.js';
import { parseDuration, type BuildSettings } from './settings.js';

/**
 * What every run of a benchmark shares (the tasks' own budgets replace the budget fields per task);
 * `registries`: how a deploy task's setups reach language registries (default auto, no mirrors).
 */
export type SharedBuildSettings = Omit<
  BuildSettings,
  'source' | 'outDir' | 'expect' | 'spec' | 'json' | 'keep' | 'deploy'
> & { registries?: RegistrySettings };

/** Everything one `buildbench bench` needs, validated by the front door. */
export interface BenchSettings {
  /** Task files and folders of them. */
  tasks: string[];
  /** The bench folder. */
  outDir: string;
  runs: number;
  concurrency: number;
  resume: boolean;
  /** `--repos-dir`: local mirrors `owner+name/`. */
  reposDir?: string;
  build: SharedBuildSettings;
}

export interface RunBenchmarkOptions {
  signal?: AbortSignal;
  /** The suite's progress (bench/progress.ts). */
  onEvent?: (event: BenchEvent) => void;
}

export interface BenchmarkOutcome extends BenchOutcome {
  tasks: Task[];
  /** The leaderboard written into the bench folder; undefined when no run has ended yet (all cut off). */
  leaderboard?: WrittenLeaderboard;
}

/** The strategy and model as the manifest, run.json and the leaderboard label the system under test. */
export function systemOf(build: SharedBuildSettings): { strategy: string; model?: string } {
  return { strategy: build.strategy, ...(build.model ? { model: build.model.model } : {}) };
}

/**
 * One run's settings: the shared ones, the task's budgets over the bench's flags, a build task's expected
 * names, a deploy task's goal (core/deploy-goal.ts: the target experiment, which makes `runBuild` a deploy
 * run) and verifier spec (its `hidden` flag is honoured by the engine), the checkout as the source and the
 * run folder as `--out`. `buildbench deploy` and the Action's task mode make their settings here too.
 */
export function taskBuildSettings(
  task: Task,
  shared: SharedBuildSettings,
  runDir: string,
  repoDir: string,
): BuildSettings {
  const { budgets } = task;
  const { registries, ...common } = shared;
  const field = (name: string): string => `${task.file}: budgets.${name}`;
  const timeoutMs = budgets.timeout ? parseDuration(budgets.timeout, field('timeout')) : shared.timeoutMs;
  const turnTimeoutMs = budgets.turnTimeout
    ? parseDuration(budgets.turnTimeout, field('turnTimeout'))
    : shared.turnTimeoutMs;
  const model = shared.model && {
    ...shared.model,
    ...(budgets.maxTokens !== undefined ? { maxTokens: budgets.maxTokens } : {}),
    ...(budgets.maxCost !== undefined ? { maxCostUsd: budgets.maxCost } : {}),
  };
  return {
    ...common,
    source: repoDir,
    outDir: runDir,
    maxTurns: budgets.maxTurns ?? shared.maxTurns,
    timeoutMs,
    turnTimeoutMs: Math.min(turnTimeoutMs, timeoutMs),
    expect: task.kind === 'build' ? expectedNames(task) : [],
    json: false,
    keep: false,
    ...(model ? { model } : {}),
    ...(task.kind === 'deploy'
      ? {
          spec: task.verifier.spec,
          deploy: deployGoalOf(task, registries ?? { mode: 'auto', mirrors: {} }),
        }
      : {}),
  };
}

/** The bench runner's engine: `runBuild` on the run's settings, cancelled through the run's signal. */
export function buildEngine(
  shared: SharedBuildSettings,
  build: (settings: BuildSettings, signal: AbortSignal) => Promise<Pick<BuildResult, 'status'>> = (
    s,
    signal,
  ) => runBuild(s, { signal }),
): RunEngine {
  return ({ task, runDir, repoDir, signal }) =>
    build(taskBuildSettings(task, shared, runDir, repoDir), signal);
}

/**
 * The engine hides a spec by the spec's own `hidden:` (verify/spec.ts); a deploy task whose `verifier.hidden`
 * says otherwise would show the strategy a verifier meant to be hidden (or hide one meant to be seen), so it
 * is refused before any run, naming both files.
 */
export async function checkVerifierVisibility(tasks: readonly Task[]): Promise<void> {
  for (const task of tasks) {
    if (task.kind !== 'deploy') continue;
    const spec = await loadSpec(task.verifier.spec);
    if (spec.hidden !== task.verifier.hidden) {
      throw new ConfigError(
        `${task.file}: verifier.hidden is ${task.verifier.hidden} but ${task.verifier.spec} says hidden: ${spec.hidden}`,
        `set hidden: ${task.verifier.hidden} in the spec (the engine reads it there), or verifier.hidden: ${spec.hidden} in the task`,
      );
    }
  }
}

/**
 * Loads the tasks, runs the benchmark into `settings.outDir` (see bench/runner.ts) and writes the
 * leaderboard into it. `deps.runBuild` replaces the engine's runBuild (tests).
 */
export async function runBenchmark(
  settings: BenchSettings,
  options: RunBenchmarkOptions = {},
  deps: { runBuild?: Partial<RunBuildDeps>; engine?: RunEngine } = {},
): Promise<BenchmarkOutcome> {
  // A local repository outside the task file's work tree is allowed only under --repos-dir.
  const tasks = await loadTasks(
    settings.tasks,
    settings.reposDir !== undefined ? { allowedRoots: [settings.reposDir] } : {},
  );
  if (tasks.length === 0) {
    throw new ConfigError(
      `bench: no task files in ${settings.tasks.join(', ')}`,
      'expected .yml task files or folders of them',
    );
  }
  // Budgets that cannot be read are one error before any run starts, not one error per run.
  for (const task of tasks) taskBuildSettings(task, settings.build, settings.outDir, settings.outDir);
  await checkVerifierVisibility(tasks);
  const engine =
    deps.engine ?? buildEngine(settings.build, (s, signal) => runBuild(s, { signal }, deps.runBuild ?? {}));
  const benchDeps: BenchDeps = { engine, ...(options.onEvent ? { onEvent: options.onEvent } : {}) };
  const outcome = await runBench(
    tasks,
    {
      outDir: settings.outDir,
      ...systemOf(settings.build),
      runs: settings.runs,
      concurrency: settings.concurrency,
      resume: settings.resume,
      ...(settings.reposDir !== undefined ? { reposDir: path.resolve(settings.reposDir) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    benchDeps,
  );
  // Every run.json in the folder, earlier invocations' too; a cancelled benchmark gets one of what it has.
  const leaderboard =
    outcome.records.length > 0 ? await writeLeaderboard([outcome.outDir], outcome.outDir) : undefined;
  return { ...outcome, tasks, ...(leaderboard ? { leaderboard } : {}) };
}
