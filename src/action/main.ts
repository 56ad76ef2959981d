/**
 * The action: main and post in one bundle (actions/checkout's state-helper). Main reads the inputs once,
 * runs the engine, sets the outputs, writes the job summary and annotations, and optionally opens a pull
 * request and updates a comment. Post tears down sandboxes a killed main step left behind.
 * `run()` is the one error boundary: everything ends in at most one `core.setFailed(message)`.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import * as core from '@actions/core';

import { ConfigError, errorMessage } from '../base/errors.js';
import { createProgressPrinter } from '../core/progress.js';
import type { BuildResult } from '../report/result.js';
import { runBuild, type RunBuildOptions } from '../core/run-build.js';
import type { BuildSettings } from '../core/settings.js';
import { createGitHubClient, type GitHubClient } from '../github/client.js';
import { resolveSandboxKind } from '../sandbox/factory.js';
import type { SandboxSettings } from '../sandbox/types.js';
import { annotationsFor } from './annotations.js';
import {
  actionsCacheService,
  cacheSummaryLines,
  githubCacheReplacer,
  planCaches,
  restoreCaches,
  saveCaches,
  type CacheEntry,
  type CacheService,
} from './cache.js';
import { renderComment, renderCrashComment, updateComment } from './comment.js';
import { forkCodeReason, readActionContext, runUrl, type ActionContext } from './context.js';
import { cleanUp, defaultPostDeps, STATE_IS_POST, STATE_WORK_ROOT, type PostDeps } from './post.js';
import { deliverRecipe, runbookFile, type PullRequestOutcome } from './pull-request.js';
import { readActionSettings, toBuildSettings, type ActionSettings, type InputReader } from './settings.js';
import { renderSummary } from './summary.js';
import { runMode } from './modes/index.js';

/** Every output the action sets (action.yml declares the same; a test keeps them in step). */
export const OUTPUT_NAMES = [
  'status',
  'strict',
  'flexible',
  'completion',
  'verified-recipe',
  'runbook-path',
  'result-path',
  'out-dir',
  'artifacts',
  'pull-request-url',
  'pull-request-operation',
  // the benchmark modes (modes/)
  'matrix',
  'matrix-size',
  'artifact-name',
  'leaderboard-path',
  'leaderboard-dir',
] as const;
export type OutputName = (typeof OUTPUT_NAMES)[number];

export type EngineFn = (settings: BuildSettings, options: RunBuildOptions) => Promise<BuildResult>;

/** What the action talks to; tests replace the engine, the GitHub client and the post-step commands. */
export interface ActionDeps {
  runBuild: EngineFn;
  createGitHub: (token: string, ctx: ActionContext) => GitHubClient;
  readInput: InputReader;
  env: NodeJS.ProcessEnv;
  post: PostDeps;
  /** Turn SIGINT/SIGTERM (job cancellation) into a clean stop of the build. */
  handleSignals: boolean;
  /** The Actions cache service (@actions/cache). */
  cache: CacheService;
}

export const defaultDeps: ActionDeps = {
  runBuild,
  createGitHub: (token, ctx) =>
    createGitHubClient({ token, baseUrl: ctx.apiUrl, log: (m) => core.info(`buildbench: ${m}`) }),
  readInput: (name) => core.getInput(name),
  env: process.env,
  post: defaultPostDeps,
  handleSignals: true,
  cache: actionsCacheService,
};

const setOutput = (name: OutputName, value: string): void => core.setOutput(name, value);

/** Runs main or post, whichever this invocation is. The action's one error boundary. */
export async function run(overrides: Partial<ActionDeps> = {}): Promise<void> {
  const deps: ActionDeps = { ...defaultDeps, ...overrides };
  try {
    if (core.getState(STATE_IS_POST) === 'true') {
      await cleanUp(core.getState(STATE_WORK_ROOT), { info: core.info, warning: core.warning }, deps.post);
      return;
    }
    core.saveState(STATE_IS_POST, 'true');
    const failure = await runMain(deps);
    if (failure) core.setFailed(failure);
  } catch (error) {
    core.setFailed(errorMessage(error));
  }
}

/** The main step. Returns why the step fails (a build that did not succeed), or undefined. */
export async function runMain(deps: ActionDeps): Promise<string | undefined> {
  const ctx = readActionContext(deps.env);
  const settings = readActionSettings(deps.readInput, deps.env);
  if (settings.model?.apiKey) core.setSecret(settings.model.apiKey);
  if (settings.token) core.setSecret(settings.token);
  for (const name of settings.secretEnv) {
    const value = deps.env[name];
    if (value) core.setSecret(value);
  }
  checkRunnable(settings, ctx);
  if (settings.mode !== 'build') return runMode(settings, deps); // the benchmark modes (modes/)

  const workRoot = await makeWorkRoot(ctx);
  core.saveState(STATE_WORK_ROOT, workRoot);
  const buildSettings = toBuildSettings(settings, deps.env, workRoot);
  core.info(
    `buildbench: building ${settings.source} (${settings.strategy} strategy, ${settings.sandbox} sandbox, at most ${settings.maxTurns} turns)`,
  );
  const cacheLog = { info: core.info, warning: core.warning, notice: core.notice };
  const cacheEntries = settings.cache ? await cacheEntriesFor(buildSettings.sandbox) : [];
  const restored = await restoreCaches(cacheEntries, deps.cache, cacheLog);
  const problems: string[] = [];
  let client: GitHubClient | undefined;
  const github = (): GitHubClient => (client ??= deps.createGitHub(settings.token, ctx));

  let result: BuildResult;
  try {
    result = await runEngine(deps, buildSettings);
  } catch (error) {
    // The sticky comment must not keep saying "started": tell it why nothing was built, then fail.
    if (settings.commentId !== undefined && ctx.repository) {
      const body = renderCrashComment(errorMessage(error), runUrl(ctx));
      await updateComment(github(), { ...ctx.repository, commentId: settings.commentId }, body).catch(
        (e: unknown) => core.warning(`could not update comment ${settings.commentId}: ${errorMessage(e)}`),
      );
    }
    throw error;
  }
  await rmdir(workRoot).catch(() => undefined); // empty after a normal run; post removes what is left otherwise
  const caches =
    result.status === 'cancelled'
      ? restored
      : await saveCaches(cacheEntries, restored, deps.cache, cacheLog, {
          maxBytes: settings.cacheMaxBytes,
          ...(settings.token && ctx.repository
            ? { replace: githubCacheReplacer(github, ctx.repository, ctx.ref) }
            : {}),
        });

  const outDir = path.resolve(settings.outDir);
  const resultPath = path.join(outDir, 'result.json');
  const runbook = path.join(outDir, runbookFile(result));
  const runbookPath = existsSync(runbook) ? runbook : '';
  const artifactsDir = path.join(outDir, 'artifacts');
  setOutput('status', result.status);
  setOutput('completion', String(result.metrics.completion));
  setOutput('strict', String(result.metrics.strict));
  setOutput('flexible', String(result.metrics.flexible));
  setOutput('verified-recipe', String(result.recipe?.verified === true));
  setOutput('runbook-path', runbookPath);
  setOutput('result-path', resultPath);
  setOutput('out-dir', outDir);
  setOutput('artifacts', existsSync(artifactsDir) ? artifactsDir : '');

  for (const a of annotationsFor(result, {
    sourceDir: settings.source,
    sourceInWorkspace: settings.sourceInWorkspace,
  })) {
    const props = {
      title: a.title,
      ...(a.file ? { file: a.file } : {}),
      ...(a.startLine ? { startLine: a.startLine } : {}),
      ...(a.startColumn ? { startColumn: a.startColumn } : {}),
    };
    if (a.level === 'error') core.error(a.message, props);
    else core.warning(a.message, props);
  }

  let pr: PullRequestOutcome = { operation: 'none', note: 'open-pull-request is false' };
  let prFailure: string | undefined;
  if (settings.openPullRequest) {
    try {
      pr = await openPullRequest(settings, ctx, result, github);
      core.info(`buildbench: ${pr.note}`);
    } catch (error) {
      prFailure = `could not open the pull request: ${errorMessage(error)}`;
      problems.push(prFailure);
      pr = { operation: 'none', note: prFailure };
    }
  }
  setOutput('pull-request-url', pr.url ?? '');
  setOutput('pull-request-operation', pr.operation);

  if (settings.commentId !== undefined && ctx.repository) {
    try {
      const body = renderComment(result, { runUrl: runUrl(ctx), pullRequest: pr });
      const url = await updateComment(github(), { ...ctx.repository, commentId: settings.commentId }, body);
      core.info(`buildbench: updated comment ${url}`);
    } catch (error) {
      const message = `could not update comment ${settings.commentId}: ${errorMessage(error)}`;
      problems.push(message);
      core.warning(message);
    }
  }

  try {
    const summary = renderSummary(result, {
      resultPath,
      ...(runbookPath ? { runbookPath } : {}),
      ...(settings.openPullRequest ? { pullRequest: pr } : {}),
      problems,
      caches: cacheSummaryLines(caches),
    });
    await writeSummary(deps.env, summary);
  } catch (error) {
    core.warning(`could not write the job summary: ${errorMessage(error)}`);
  }

  if (result.status !== 'success') return `buildbench: ${result.status.toUpperCase()}: ${result.reason}`;
  return prFailure;
}

/**
 * Appends to the step summary file. Not `core.summary`: it caches the file's path in a module-wide
 * singleton, so one process could only ever write one step's summary.
 */
async function writeSummary(env: NodeJS.ProcessEnv, text: string): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) {
    core.info('buildbench: GITHUB_STEP_SUMMARY is not set; no job summary written');
    return;
  }
  await appendFile(file, text.endsWith('\n') ? text : `${text}\n`);
}

/** Refusals that need no work: options this version does not have, fork code in a privileged event. */
function checkRunnable(settings: ActionSettings, ctx: ActionContext): void {
  const fork = forkCodeReason(ctx);
  if (fork && !settings.allowForkCode) {
    throw new ConfigError(
      `refusing to build: ${fork}, and ${ctx.eventName} runs with this repository's secrets and write token`,
      "build pull requests from forks on the pull_request event instead; set allow-fork-code: true only if you accept running the fork's code with those permissions",
    );
  }
  if ((settings.openPullRequest || settings.commentId !== undefined) && !ctx.repository) {
    throw new ConfigError(
      'GITHUB_REPOSITORY is not set, so the pull request or comment has no repository',
      'run the action in a GitHub Actions workflow',
    );
  }
}

/** The cache entries for the sandbox the build will use; none when no sandbox can be resolved (the build says why). */
async function cacheEntriesFor(sandbox: SandboxSettings): Promise<CacheEntry[]> {
  try {
    return planCaches(sandbox, await resolveSandboxKind(sandbox));
  } catch {
    return [];
  }
}

/** A fresh folder for this step's sandboxes; the post step removes whatever is left in it. */
async function makeWorkRoot(ctx: ActionContext): Promise<string> {
  const parent = ctx.runnerTemp || tmpdir();
  await mkdir(parent, { recursive: true });
  return mkdtemp(path.join(parent, 'buildbench-work-'));
}

async function runEngine(deps: ActionDeps, settings: BuildSettings): Promise<BuildResult> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    core.warning(`buildbench: ${signal} received — stopping the build and removing the sandbox`);
    controller.abort();
  };
  if (deps.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    const printer = createProgressPrinter((line) => core.info(line));
    return await deps.runBuild(settings, { signal: controller.signal, listeners: [printer] });
  } finally {
    if (deps.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

async function openPullRequest(
  settings: ActionSettings,
  ctx: ActionContext,
  result: BuildResult,
  github: () => GitHubClient,
): Promise<PullRequestOutcome> {
  const url = runUrl(ctx);
  return deliverRecipe(
    result,
    ctx,
    {
      outDir: settings.outDir,
      source: settings.source,
      ...(settings.sourceInWorkspace !== undefined ? { sourceInWorkspace: settings.sourceInWorkspace } : {}),
      allowPartial: settings.pullRequestPartial,
      target: settings.pullRequestTarget,
      ...(url ? { runUrl: url } : {}),
      log: (m) => core.info(`buildbench: ${m}`),
      notice: (m) => core.notice(m),
    },
    github,
  );
}
