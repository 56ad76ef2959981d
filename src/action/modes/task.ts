/**
 * Mode `task`: one run of one benchmark task (a build task, or a deploy task: the same engine with the
 * task's target experiment as its goal, core/deploy-goal.ts) (input `task`, its file; input `run`, which run) — the job a
 * matrix entry becomes. The run goes through the bench runner's `runTask` (bench/runner.ts) with the engine
 * core/run-bench.ts builds from `runBuild`, exactly as `buildbench bench` runs it: the task's repository
 * checked out, one fresh sandbox, the task's budgets and expected binaries, and run.json written last in
 * the run's folder. That folder is the output `out-dir` (with result.json, RUNBOOK.md, trajectory.jsonl,
 * logs/), for the workflow's upload-artifact step under the output `artifact-name`; the aggregate mode merges
 * the downloaded folders into the leaderboard.
 *
 * A run that built nothing is a result of the benchmark, not a failure of the step: the step fails only
 * when there is no record of the run (a task file that does not validate, a crash, a cancelled job). A run
 * whose repository could not be checked out is recorded with status `error` (counted as a failure) and warned.
 *
 * Unlike mode build, a run does not restore or save the Actions cache (input `cache`): every run of a
 * benchmark starts from the same state, and a few hundred jobs saving entries would evict each other. A
 * self-hosted runner keeps its rootfs layers and build cache in its own cache folder between jobs.
 */
import { mkdir, mkdtemp, rmdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';

import * as core from '@actions/core';

import { ConfigError, errorMessage } from '../../base/errors.js';
import { isDirUnder, isFileUnder } from '../../base/safe-fs.js';
import { loadTasks } from '../../bench/load.js';
import { runDirFor, runTask } from '../../bench/runner.js';
import type { RunRecord, Task } from '../../bench/types.js';
import { createProgressPrinter } from '../../core/progress.js';
import { registrySettingsFrom } from '../../core/deploy-goal.js';
import { buildEngine, systemOf, type SharedBuildSettings } from '../../core/run-bench.js';
import type { BuildSettings } from '../../core/settings.js';
import type { BuildResult } from '../../report/result.js';
import { STATE_WORK_ROOT } from '../post.js';
import { toBuildSettings, type ActionSettings } from '../settings.js';
import { renderSummary } from '../summary.js';
import { appendSummary, withCancellation, workspaceOf, type ModeDeps } from './common.js';

export async function runTaskMode(settings: ActionSettings, deps: ModeDeps): Promise<string | undefined> {
  const { task: file, run, reposDir, benchDir } = settings.bench;
  if (!file) throw new Error('mode task without input task'); // readBenchInputs requires it
  // Set first, so that a step that fails from here on (its error file in out-dir) still names an artifact
  // for the workflow's upload step: the file's name stands in for the task id until the file is read.
  core.setOutput('artifact-name', artifactName(path.basename(file).replace(/\.ya?ml$/, ''), run));
  const task = await loadTask(file, workspaceOf(deps.env), reposDir);
  core.setOutput('artifact-name', artifactName(task.id, run));

  await mkdir(benchDir, { recursive: true });
  const workRoot = await mkdtemp(path.join(path.dirname(benchDir), 'buildbench-work-'));
  core.saveState(STATE_WORK_ROOT, workRoot); // the post step removes the sandboxes a killed step left
  const shared = {
    ...sharedSettings(toBuildSettings(settings, deps.env, workRoot)),
    // A deploy task's setups reach the registries (with the mirrors the job's environment names) or fall back.
    registries: registrySettingsFrom('auto', deps.env).registries,
  };
  const system = systemOf(shared);
  core.info(
    `buildbench: task ${task.id} (${path.relative(workspaceOf(deps.env), task.file) || task.file}), run ${run}, ${system.strategy} strategy${system.model ? ` with ${system.model}` : ''}`,
  );

  let result: BuildResult | undefined;
  const printer = createProgressPrinter((line) => core.info(line));
  const engine = buildEngine(shared, async (build, signal) => {
    result = await deps.runBuild(build, { signal, listeners: [printer] });
    return result;
  });
  const record = await withCancellation(deps.handleSignals, (signal) =>
    runTask(
      task,
      run,
      { outDir: benchDir, ...system, ...(reposDir ? { reposDir } : {}), signal },
      { engine },
    ),
  );
  await rmdir(workRoot).catch(() => undefined); // empty after a normal run; post removes what is left otherwise
  if (!record) return `buildbench: task ${task.id} run ${run} was cancelled; nothing was recorded`;

  const runDir = runDirFor(benchDir, task.id, run);
  await setTaskOutputs(record, runDir, result);
  if (record.status === 'error')
    core.warning(`buildbench: task ${task.id} run ${run}: ${record.error ?? 'error'}`);
  else core.info(`buildbench: task ${task.id} run ${run}: ${record.status.toUpperCase()} → ${runDir}`);
  await appendSummary(deps.env, taskSummary(task, record, runDir, result, workspaceOf(deps.env)));
  return undefined;
}

/** What every run shares: the inputs' settings without those the task and its run decide. */
function sharedSettings(build: BuildSettings): SharedBuildSettings {
  const {
    source: _source,
    outDir: _outDir,
    expect: _expect,
    spec: _spec,
    json: _json,
    keep: _keep,
    ...shared
  } = build;
  return shared;
}

/** The task file, loaded and validated; its problems (file, line, field) become `input task: …`. */
async function loadTask(file: string, workspace: string, reposDir: string | undefined): Promise<Task> {
  let tasks: Task[];
  try {
    // A local repository is in the workspace's checkout, or under the input repos-dir.
    tasks = await loadTasks([file], { allowedRoots: [workspace, ...(reposDir ? [reposDir] : [])] });
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`input task: ${error.message}`, error.hint);
    throw error;
  }
  const task = tasks[0];
  if (!task || tasks.length !== 1)
    throw new ConfigError(
      `input task: ${path.relative(workspace, file) || file} holds no task`,
      'expected one task file (.yml)',
    );
  return task;
}

/** A name for the run's artifact: `buildbench-run-<task>-<run>`, with a hash when the id had to be changed. */
export function artifactName(taskId: string, run: number): string {
  const safe = taskId.replace(/[^A-Za-z0-9._-]/g, '_');
  const suffix = safe === taskId ? '' : `-${createHash('sha256').update(taskId).digest('hex').slice(0, 8)}`;
  return `buildbench-run-${safe}${suffix}-${run}`;
}

/** The outputs of a run; a path is given only for a file or folder of the run folder itself, not a link. */
async function setTaskOutputs(
  record: RunRecord,
  runDir: string,
  result: BuildResult | undefined,
): Promise<void> {
  const resultPath = path.join(runDir, 'result.json');
  const runbook = path.join(runDir, 'RUNBOOK.md');
  const artifacts = path.join(runDir, 'artifacts');
  const [hasRunbook, hasResult, hasArtifacts] = await Promise.all([
    isFileUnder(runDir, 'RUNBOOK.md'),
    isFileUnder(runDir, 'result.json'),
    isDirUnder(runDir, 'artifacts'),
  ]);
  core.setOutput('status', record.status);
  core.setOutput('completion', String(result?.metrics.completion ?? false));
  core.setOutput('strict', String(result?.metrics.strict ?? false));
  core.setOutput('flexible', String(result?.metrics.flexible ?? false));
  core.setOutput('verified-recipe', String(result?.recipe?.verified === true));
  core.setOutput('runbook-path', hasRunbook ? runbook : '');
  core.setOutput('result-path', hasResult ? resultPath : '');
  core.setOutput('out-dir', runDir);
  core.setOutput('artifacts', hasArtifacts ? artifacts : '');
  core.setOutput('artifact-name', artifactName(record.task.id, record.run));
}

export function taskSummary(
  task: Task,
  record: RunRecord,
  runDir: string,
  built: BuildResult | undefined,
  workspace: string,
): string {
  const heading = `## buildbench task \`${task.id}\`, run ${record.run}: ${record.status.toUpperCase()}\n`;
  if (!built)
    return `${heading}\n${record.error ? `The run could not start: ${record.error}` : 'No result.'}\n`;
  // The run's expected binaries are the task file's (the engine was handed them as `expect`), not input expect.
  const fromTask = task.kind === 'build' && built.expected.source === 'cli';
  const result: BuildResult = fromTask
    ? { ...built, expected: { ...built.expected, source: 'task' } }
    : built;
  const shownFile = (path.relative(workspace, task.file) || task.file).split(path.sep).join('/');
  const origin = fromTask
    ? `The expected binaries are the task file's: \`${shownFile.replace(/`/g, "'")}\`.\n\n`
    : '';
  try {
    // Not an object literal: the summary's extras are being reworked (issue 16), and this fits both shapes.
    const extras = { resultPath: path.join(runDir, 'result.json'), problems: [] as string[] };
    return `${heading}\n${origin}${renderSummary(result, extras)}`;
  } catch (error) {
    return `${heading}\n(the build's summary could not be rendered: ${errorMessage(error)})\n`;
  }
}
