/**
 * The action's inputs, read once and validated up front into one typed object (actions/checkout's
 * input-helper). Every message names the input and says what was expected. Everything downstream takes
 * `ActionSettings`; `toBuildSettings` turns it into the engine's `BuildSettings`.
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import {
  parseChoice,
  parseProgressInterval,
  parsePositiveInt,
  parseSize,
  repoNameOf,
  resolveRunSettings,
  ACTION_DOOR,
  BUILD_DEFAULTS,
  sandboxSettingsFrom,
  withSandboxLimits,
  defaultSandboxLimits,
  withoutLimits,
  type SandboxLimits,
  SANDBOX_CHOICES,
  type BuildSettings,
  type StrategyChoice,
} from '../core/settings.js';
import { isGitUrl } from '../core/source.js';
import type { ModelSettings } from '../llm/settings.js';
import type { SandboxChoice } from '../sandbox/types.js';
import { readBenchInputs, BENCH_INPUT_DEFAULTS, type BenchInputs } from './modes/inputs.js';

export const MODES = ['build', 'task', 'matrix', 'aggregate'] as const;
export type ActionMode = (typeof MODES)[number];

/** pull-request-target: where the recipe goes on pull_request events (see src/action/pull-request.ts). */
export const PULL_REQUEST_TARGETS = ['head', 'default', 'comment'] as const;
export type PullRequestTarget = (typeof PULL_REQUEST_TARGETS)[number];

/** Which outcome fails the step: `partial` (anything but SUCCESS), or `failed` (a PARTIAL build passes). */
export const FAIL_ON = ['failed', 'partial'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/**
 * Every input the action reads, with the default the code applies when it is empty. action.yml declares
 * the same names and defaults (a test keeps the two in step); `token` defaults to `${{ github.token }}`
 * there, which only the runner can expand.
 */
export const INPUT_DEFAULTS = {
  mode: 'build',
  path: '.',
  strategy: '',
  model: '',
  'api-key': '',
  'base-url': '',
  sandbox: '',
  image: '',
  'max-turns': `${BUILD_DEFAULTS.maxTurns}`,
  timeout: BUILD_DEFAULTS.timeout,
  'turn-timeout': BUILD_DEFAULTS.turnTimeout,
  'idle-timeout': BUILD_DEFAULTS.idleTimeout,
  'progress-interval': '15s',
  'max-tokens': '',
  'max-cost': '',
  expect: '',
  verifier: '',
  'open-pull-request': 'false',
  'pull-request-partial': 'false',
  'pull-request-target': 'head',
  token: '',
  'comment-id': '',
  'allow-fork-code': 'false',
  cache: 'true',
  'cache-max-size': '2G',
  'secret-env': '',
  'max-log-size': BUILD_DEFAULTS.maxLogSize,
  network: '',
  memory: '',
  pids: '',
  'fail-on': 'partial',
  ...BENCH_INPUT_DEFAULTS,
} as const;
export type InputName = keyof typeof INPUT_DEFAULTS;
export const INPUT_NAMES = Object.keys(INPUT_DEFAULTS) as InputName[];

/** Reads one input as text ('' when unset); `core.getInput` in the action, a map in tests. */
export type InputReader = (name: InputName) => string;

export interface ActionSettings {
  mode: ActionMode;
  /** The repository to build: an absolute path, or a git URL as given. */
  source: string;
  /** `source` relative to the workspace when it lies inside it ('' for the workspace itself). */
  sourceInWorkspace?: string;
  strategy: StrategyChoice;
  /**
   * Set when a model was named. The API key stays in the action's process (masked with core.setSecret;
   * the engine keeps it out of prompts, scripts and sandboxes).
   */
  model?: ModelSettings;
  sandbox: SandboxChoice;
  image?: string;
  maxTurns: number;
  timeoutMs: number;
  turnTimeoutMs: number;
  /** A script silent this long ends the build as stalled; 0: never. */
  idleTimeoutMs?: number;
  expect: string[];
  /** A layer-2 verifier spec: an absolute path to a YAML file. */
  verifier?: string;
  openPullRequest: boolean;
  pullRequestPartial: boolean;
  /** On pull_request events: a pull request into the head branch, into the default branch, or a comment. */
  pullRequestTarget: PullRequestTarget;
  token: string;
  commentId?: number;
  allowForkCode: boolean;
  /** Restore and save the build cache and the rootfs layers with the Actions cache service. */
  cache: boolean;
  /** The largest cache entry saved, in bytes (input cache-max-size); a larger one is skipped with a notice. */
  cacheMaxBytes: number;
  /** Where result.json, RUNBOOK.md, logs and artifacts go. */
  outDir: string;
  /** Names of variables of the step's env whose values are redacted (input secret-env, BUILDBENCH_SECRET_ENV). */
  secretEnv: string[];
  /** The bound of each log file (input max-log-size; its default applies when the input is empty). */
  maxLogBytes?: number;
  /** The sandbox's network and limits (inputs network, memory, pids; empty: the defaults). */
  limits: SandboxLimits;
  /** The benchmark modes' inputs (task, run, tasks, runs, chunk-size, runner-labels, default-runner, results, repos-dir). */
  bench: BenchInputs;
  /** Which outcome fails the step (input fail-on). */
  failOn: FailOn;
  /** How often a running script's heartbeat line is printed in its turn's group; 0: never. */
  progressIntervalMs: number;
}

const TRUE = ['true', 'True', 'TRUE'];
const FALSE = ['false', 'False', 'FALSE'];

function parseBoolean(value: string, name: InputName): boolean {
  if (TRUE.includes(value)) return true;
  if (FALSE.includes(value)) return false;
  throw new ConfigError(`input ${name}: '${value}' is not a boolean; expected true or false`);
}

/** `path` (relative to the workspace) must be a directory; a git URL is kept as it is. */
function parseSource(value: string, workspace: string): { source: string; sourceInWorkspace?: string } {
  if (isGitUrl(value)) return { source: value };
  const dir = path.resolve(workspace, value);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new ConfigError(
      `input path: '${value}' does not exist (resolved to ${dir})`,
      'expected a directory holding the repository, relative to the workspace; did the job run actions/checkout first?',
    );
  }
  if (!isDir)
    throw new ConfigError(
      `input path: '${value}' is not a directory`,
      'expected the directory holding the repository',
    );
  const rel = path.relative(path.resolve(workspace), dir);
  const inside = rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  return { source: dir, ...(inside ? { sourceInWorkspace: rel.split(path.sep).join('/') } : {}) };
}

/** `verifier` (relative to the workspace) must be a file; the engine parses it. */
function parseVerifier(value: string, workspace: string): string {
  const file = path.resolve(workspace, value);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new ConfigError(
      `input verifier: '${value}' does not exist (resolved to ${file})`,
      'expected a layer-2 verifier spec (YAML) in the workspace',
    );
  }
  if (!isFile)
    throw new ConfigError(
      `input verifier: '${value}' is not a file`,
      'expected a layer-2 verifier spec (YAML) in the workspace',
    );
  return file;
}

/** Reads and validates every input. Throws ConfigError naming the first bad input. */
export function readActionSettings(read: InputReader, env: NodeJS.ProcessEnv): ActionSettings {
  const input = (name: InputName): string => {
    const value = read(name).trim();
    return value === '' ? INPUT_DEFAULTS[name] : value;
  };
  const workspace = env.GITHUB_WORKSPACE || process.cwd();

  const mode = parseChoice(input('mode'), MODES, 'input mode');
  const { source, sourceInWorkspace } = parseSource(input('path'), workspace);

  const run = resolveRunSettings(
    {
      strategy: input('strategy'),
      model: input('model'),
      'api-key': input('api-key'),
      'base-url': input('base-url'),
      'max-tokens': input('max-tokens'),
      'max-cost': input('max-cost'),
      'max-turns': input('max-turns'),
      timeout: input('timeout'),
      'turn-timeout': input('turn-timeout'),
      'idle-timeout': input('idle-timeout'),
      ...(input('expect') ? { expect: input('expect') } : {}),
      'secret-env': [input('secret-env')],
      'max-log-size': input('max-log-size'),
    },
    env,
    ACTION_DOOR,
    workspace,
  );

  const sandboxText = input('sandbox');
  const sandbox: SandboxChoice = sandboxText
    ? parseChoice(sandboxText, SANDBOX_CHOICES, 'input sandbox')
    : env.RUNNER_ENVIRONMENT === 'github-hosted'
      ? 'docker'
      : 'auto';
  const image = input('image');

  const verifier = input('verifier');
  const commentId = input('comment-id');
  const token = input('token');
  const openPullRequest = parseBoolean(input('open-pull-request'), 'open-pull-request');
  if (openPullRequest && !token) {
    throw new ConfigError(
      'input open-pull-request is true but input token is empty',
      'expected a token with contents: write and pull-requests: write',
    );
  }
  if (commentId && !token) {
    throw new ConfigError(
      'input comment-id is set but input token is empty',
      'expected a token with issues: write or pull-requests: write',
    );
  }

  return {
    mode,
    source,
    ...(sourceInWorkspace !== undefined ? { sourceInWorkspace } : {}),
    ...run,
    sandbox,
    ...(image ? { image } : {}),
    ...(verifier ? { verifier: parseVerifier(verifier, workspace) } : {}),
    openPullRequest,
    pullRequestPartial: parseBoolean(input('pull-request-partial'), 'pull-request-partial'),
    pullRequestTarget: parseChoice(
      input('pull-request-target'),
      PULL_REQUEST_TARGETS,
      'input pull-request-target',
    ),
    token,
    ...(commentId
      ? { commentId: parsePositiveInt(commentId, 'input comment-id', Number.MAX_SAFE_INTEGER) }
      : {}),
    allowForkCode: parseBoolean(input('allow-fork-code'), 'allow-fork-code'),
    cache: parseBoolean(input('cache'), 'cache'),
    cacheMaxBytes: parseSize(input('cache-max-size'), 'input cache-max-size'),
    limits: withSandboxLimits(
      defaultSandboxLimits(),
      {
        ...(input('network') ? { network: input('network') } : {}),
        ...(input('memory') ? { memory: input('memory') } : {}),
        ...(input('pids') ? { pids: input('pids') } : {}),
      },
      { network: 'input network', memory: 'input memory', pids: 'input pids' },
    ),
    outDir: outDirFor(source, env),
    bench: readBenchInputs(input, mode, workspace, env),
    failOn: parseChoice(input('fail-on'), FAIL_ON, 'input fail-on'),
    progressIntervalMs: parseProgressInterval(input('progress-interval'), 'input progress-interval'),
  };
}

/** The output folder of a build of `source`: `$RUNNER_TEMP/buildbench-out/<name>`. */
export function outDirFor(source: string, env: NodeJS.ProcessEnv): string {
  return path.join(env.RUNNER_TEMP || tmpdir(), 'buildbench-out', repoNameOf(source));
}

/**
 * The output folder from the `path` input as given, for a step that ends before the inputs are valid (a bad
 * input, a non-Linux runner): the same folder a build would use when `path` names one.
 */
export function outDirFromInputs(read: InputReader, env: NodeJS.ProcessEnv): string {
  const given = read('path').trim() || INPUT_DEFAULTS.path;
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  return outDirFor(isGitUrl(given) ? given : path.resolve(workspace, given), env);
}

/**
 * The engine's settings. `workRoot` is the folder this step's sandboxes live in (the post step removes
 * whatever is left there). The model settings, API key included, go to the engine, which keeps the key in
 * this process: sandboxes get an allowlisted environment only.
 */
export function toBuildSettings(
  settings: ActionSettings,
  env: NodeJS.ProcessEnv,
  workRoot: string,
): BuildSettings {
  const sandbox = sandboxSettingsFrom(env, settings.sandbox, settings.image);
  return {
    source: settings.source,
    outDir: settings.outDir,
    strategy: settings.strategy,
    maxTurns: settings.maxTurns,
    timeoutMs: settings.timeoutMs,
    turnTimeoutMs: settings.turnTimeoutMs,
    ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    expect: settings.expect,
    json: false,
    keep: false,
    sandbox: { ...withoutLimits(sandbox), ...settings.limits, workRoot },
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.verifier ? { spec: settings.verifier } : {}),
    secretEnv: settings.secretEnv,
    ...(settings.maxLogBytes !== undefined ? { maxLogBytes: settings.maxLogBytes } : {}),
  };
}
