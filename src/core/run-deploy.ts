/**
 * `runDeploy`: the composition root of `buildbench deploy`. A deploy is a build with another goal, not a
 * second program: the task file (the benchmark's deploy format, bench/load.ts) becomes `BuildSettings` with
 * `deploy: DeployGoal` and the task's verifier spec through the same `taskBuildSettings` the bench engine
 * and the Action's task mode use, and `runBuild` runs it — the same stages, sandbox, stop-gate, finalize and
 * report. What differs is decided downstream from the goal: the target experiment is the visible spec
 * (deploy/target.ts), the status follows DeployBench (core/status.ts), result.json gets a `deploy` section
 * and the RUNBOOK says how to run the target.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { loadTaskFile } from '../bench/load.js';
import type { DeployTask } from '../bench/types.js';
import type { RegistrySettings } from '../deploy/types.js';
import type { BuildResult } from '../report/result.js';
import { runBuild, type RunBuildDeps, type RunBuildOptions } from './run-build.js';
import { checkVerifierVisibility, taskBuildSettings, type SharedBuildSettings } from './run-bench.js';
import type { BuildSettings } from './settings.js';

/** Everything one `buildbench deploy` needs, validated by the front door. */
export interface DeploySettings extends SharedBuildSettings {
  /** The repository: a local path or a git URL, as given. */
  source: string;
  /** The deploy task file (kind: deploy). */
  taskFile: string;
  /** `--repos-dir`: a folder the task's local repository may be in besides the task file's work tree. */
  reposDir?: string;
  outDir: string;
  json: boolean;
  keep: boolean;
  registries: RegistrySettings;
}

/**
 * Reads and validates a deploy task: every problem names the file, the line and the field (a TaskError);
 * a build task is refused with what to run instead; a verifier whose `hidden` disagrees with its spec file
 * is refused before anything runs.
 */
export async function loadDeployTask(file: string, reposDir?: string): Promise<DeployTask> {
  const task = await loadTaskFile(file, reposDir !== undefined ? { allowedRoots: [reposDir] } : {});
  if (task.kind !== 'deploy') {
    throw new ConfigError(
      `${file}: kind: ${task.kind} — buildbench deploy takes a deploy task (kind: deploy, with target and verifier)`,
      'run a build task with buildbench bench <task file>, or the repository with buildbench build; see tasks/README.md for deploy tasks',
    );
  }
  await checkVerifierVisibility([task]);
  return task;
}

/**
 * The build settings of a deploy: the task's goal, verifier and budgets (as a benchmark run of the task
 * gets them: a budget the task sets wins over the flags), the repository given and the output folder.
 */
export function deployBuildSettings(task: DeployTask, settings: DeploySettings): BuildSettings {
  const { source, taskFile: _taskFile, reposDir: _reposDir, outDir, json, keep, ...shared } = settings;
  return { ...taskBuildSettings(task, shared, outDir, source), json, keep };
}

/** One deploy: the task loaded, then `runBuild` with the goal set. Task errors are thrown before any work. */
export async function runDeploy(
  settings: DeploySettings,
  options: RunBuildOptions = {},
  deps: Partial<RunBuildDeps> = {},
): Promise<BuildResult> {
  const file = path.resolve(settings.taskFile);
  const task = await loadDeployTask(path.relative(process.cwd(), file) || file, settings.reposDir);
  return runBuild(deployBuildSettings(task, settings), options, deps);
}
