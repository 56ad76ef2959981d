/**
 * The inputs of the benchmark modes (task, matrix, aggregate), read by settings.ts `readActionSettings` with
 * the others and validated up front: every message names the input and says what was expected. An input a
 * mode needs and does not have is an error in that mode only.
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../base/errors.js';
import {
  parseLabelList,
  parseRunnerLabels,
  DEFAULT_RUNNER,
  GITHUB_MATRIX_LIMIT,
  type RunnerLabels,
} from '../../bench/matrix.js';
import { parsePositiveInt } from '../../core/settings.js';

/** The benchmark modes' inputs and the defaults the code applies when one is empty (action.yml says the same). */
export const BENCH_INPUT_DEFAULTS = {
  task: '',
  run: '1',
  tasks: '',
  runs: '1',
  'chunk-size': `${GITHUB_MATRIX_LIMIT}`,
  'runner-labels': '',
  'default-runner': DEFAULT_RUNNER.join(','),
  results: '',
  'repos-dir': '',
} as const;
export type BenchInputName = keyof typeof BENCH_INPUT_DEFAULTS;

export interface BenchInputs {
  /** mode task: the task file (absolute) and which run of it this is (1-based). */
  task?: string;
  run: number;
  /** mode task: local mirrors of the tasks' repositories (`owner+name/`), absolute. */
  reposDir?: string;
  /** mode matrix: task files and folders (absolute), runs of each, entries per chunk, runner labels. */
  tasks: string[];
  runs: number;
  chunkSize: number;
  labels: RunnerLabels;
  defaultRunner: string[];
  /** mode aggregate: the folder the run artifacts were downloaded into (absolute). */
  results?: string;
  /** mode task: the bench folder the run goes in (`$RUNNER_TEMP/buildbench-bench`). */
  benchDir: string;
  /** mode aggregate: where the leaderboard is written (`$RUNNER_TEMP/buildbench-leaderboard`). */
  leaderboardDir: string;
}

type Mode = 'build' | 'task' | 'matrix' | 'aggregate';

/** Reads the benchmark inputs; `input` answers an input's text, its default when empty. */
export function readBenchInputs(
  input: (name: BenchInputName) => string,
  mode: Mode,
  workspace: string,
  env: NodeJS.ProcessEnv,
): BenchInputs {
  // Every input is read in every mode (each is checked when given); a mode's own input must be given.
  const required = (name: BenchInputName, when: Mode, expected: string): string => {
    const value = input(name);
    if (value === '' && mode === when)
      throw new ConfigError(`input ${name}: required when mode is ${mode}`, expected);
    return value;
  };
  const taskText = required('task', 'task', 'expected a task file (tasks/…/*.yml) in the workspace');
  const tasksText = required(
    'tasks',
    'matrix',
    'expected task files or folders in the workspace, separated by spaces, commas or lines',
  );
  const resultsText = required(
    'results',
    'aggregate',
    'expected the folder the run artifacts were downloaded into (actions/download-artifact)',
  );
  const reposDir = input('repos-dir');
  const runnerTemp = env.RUNNER_TEMP || tmpdir();
  return {
    ...(taskText ? { task: existing(taskText, 'task', 'file', workspace) } : {}),
    run: parsePositiveInt(input('run'), 'input run'),
    ...(reposDir ? { reposDir: existing(reposDir, 'repos-dir', 'directory', workspace) } : {}),
    tasks: splitList(tasksText).map((p) => existing(p, 'tasks', 'any', workspace)),
    runs: parsePositiveInt(input('runs'), 'input runs'),
    chunkSize: parsePositiveInt(input('chunk-size'), 'input chunk-size', GITHUB_MATRIX_LIMIT),
    labels: parseRunnerLabels(input('runner-labels').split(/\s+/), 'input runner-labels'),
    defaultRunner: parseLabelList(input('default-runner'), 'input default-runner'),
    ...(resultsText ? { results: existing(resultsText, 'results', 'directory', workspace) } : {}),
    benchDir: path.join(runnerTemp, 'buildbench-bench'),
    leaderboardDir: path.join(runnerTemp, 'buildbench-leaderboard'),
  };
}

/** Paths separated by white space, commas or new lines. */
function splitList(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== '');
}

function existing(
  value: string,
  name: BenchInputName,
  kind: 'file' | 'directory' | 'any',
  workspace: string,
): string {
  const abs = path.resolve(workspace, value);
  let stats;
  try {
    stats = statSync(abs);
  } catch {
    throw new ConfigError(
      `input ${name}: '${value}' does not exist (resolved to ${abs})`,
      'paths are relative to the workspace; did the job run actions/checkout (or actions/download-artifact) first?',
    );
  }
  if (kind === 'file' && !stats.isFile()) throw new ConfigError(`input ${name}: '${value}' is not a file`);
  if (kind === 'directory' && !stats.isDirectory())
    throw new ConfigError(`input ${name}: '${value}' is not a directory`);
  return abs;
}
