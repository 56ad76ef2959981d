/**
 * The action: main and post in one bundle (actions/checkout's state-helper). Main reads the inputs once,
 * runs the engine, sets the outputs, writes the job summary and annotations, and optionally opens a pull
 * request and updates a comment. Post tears down sandboxes a killed main step left behind.
 * `run()` is the one error boundary: everything ends in at most one `core.setFailed(message)`, and on every
 * path — a bad input, a runner that is not Linux, a crash — the outputs `status` and `out-dir` are set and
 * the output folder exists, so a workflow's `if: always()` upload finds it.
 */
import { appendFile, mkdir, mkdtemp, readdir, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import * as core from '@actions/core';

import { ConfigError, errorMessage } from '../base/errors.js';
import { isDirUnder, isFileUnder, readFileUnder, replaceFileUnder } from '../base/safe-fs.js';
import type { BuildResult } from '../report/result.js';
import { runBuild, type RunBuildOptions } from '../core/run-build.js';
import type { BuildSettings } from '../core/settings.js';
import { createGitHubClient, type GitHubClient } from '../github/client.js';
import { PROVIDER_NAMES, providerVariables } from '../llm/factory.js';
import { resolveSandboxKind } from '../sandbox/factory.js';
import type { SandboxSettings } from '../sandbox/types.js';
import { collectSecretValues, createRedactor, formsOf, urlCredentials } from '../trajectory/redact.js';
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
import {
  dispatchedForkCodeReason,
  DISPATCH_EVENTS,
  forkCodeReason,
  readActionContext,
  runUrl,
  type ActionContext,
  type PullFacts,
} from './context.js';
import { gitHead, isGitUrl } from '../core/source.js';
import { cleanUp, defaultPostDeps, STATE_IS_POST, STATE_WORK_ROOT, type PostDeps } from './post.js';
import { deliverRecipe, runbookFile, type PullRequestOutcome } from './pull-request.js';
import { createGroupedLog } from './log.js';
import { runMode } from './modes/index.js';
import {
  outDirFromInputs,
  readActionSettings,
  toBuildSettings,
  type ActionSettings,
  type InputReader,
} from './settings.js';
import { inActionTerms, renderEarlySummary, renderSummary } from './summary.js';

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
  /** The OS this runs on (`process.platform`); the sandboxes need Linux. */
  platform: NodeJS.Platform;
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
  platform: process.platform,
};

/**
 * The `status` of a step that ended before the engine gave a result (action.yml's output lists them with
 * the build's own statuses): a bad input or event, a runner that is not Linux, anything unexpected.
 */
export const EARLY_STATUS = {
  config: 'config_error',
  runner: 'unsupported_runner',
  crash: 'error',
} as const;

/** The file an early end leaves in the output folder: the status and why. */
export const EARLY_NOTE = 'buildbench-error.txt';

/** The runner is not Linux (macOS, Windows): no sandbox of buildbench runs there. */
export class UnsupportedRunnerError extends Error {}

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
    core.setFailed(inActionTerms(errorMessage(error)));
  }
}

/** What the step knows so far: where its output goes, and whether the build's outputs were set. */
interface StepState {
  outDir?: string;
  ended: boolean;
  /** Values masked in the log, also redacted from the early-end note. */
  secrets: string[];
}

/** The main step. Returns why the step fails (a build that did not succeed), or undefined. */
export async function runMain(deps: ActionDeps): Promise<string | undefined> {
  const step: StepState = { ended: false, secrets: maskSecrets(deps.readInput, deps.env) };
  try {
    return await buildStep(deps, step);
  } catch (error) {
    if (!step.ended) await endEarly(error, deps, step);
    throw error;
  }
}

async function buildStep(deps: ActionDeps, step: StepState): Promise<string | undefined> {
  checkLinux(deps.platform, deps.env);
  const ctx = readActionContext(deps.env);
  const settings = readActionSettings(deps.readInput, deps.env);
  step.secrets.push(...maskValues(settings.secretEnv.map((name) => deps.env[name])));
  if (settings.mode !== 'build') {
    checkRunnable(settings, ctx);
    return runMode(settings, deps); // the benchmark modes (modes/)
  }
  const outDir = path.resolve(settings.outDir);
  step.outDir = outDir;
  setOutput('out-dir', outDir);
  await rm(path.join(outDir, EARLY_NOTE), { force: true });
  checkRunnable(settings, ctx);
  let client: GitHubClient | undefined;
  const github = (): GitHubClient => (client ??= deps.createGitHub(settings.token, ctx));
  await checkDispatchedForkCode(settings, ctx, github);

  const workRoot = await makeWorkRoot(ctx);
  core.saveState(STATE_WORK_ROOT, workRoot);
  const buildSettings = toBuildSettings(settings, deps.env, workRoot);
  const shownSource =
    settings.sourceInWorkspace === undefined ? settings.source : settings.sourceInWorkspace || '.';
  core.info(
    `buildbench: building ${shownSource} (${settings.strategy} strategy, ${settings.sandbox} sandbox, at most ${settings.maxTurns} turns)`,
  );
  const cacheLog = { info: core.info, warning: core.warning, notice: core.notice };
  const cacheEntries = settings.cache ? await cacheEntriesFor(buildSettings.sandbox) : [];
  const restored = await restoreCaches(cacheEntries, deps.cache, cacheLog);
  const problems: string[] = [];

  let result: BuildResult;
  try {
    // The log says the repository as a path in the workspace and the output folder as the output's name.
    const inWorkspace = settings.sourceInWorkspace;
    result = await runEngine(
      deps,
      buildSettings,
      [
        [outDir, '<out-dir>'],
        ...(inWorkspace !== undefined ? [[settings.source, inWorkspace || '.'] as [string, string]] : []),
      ],
      settings.progressIntervalMs,
    );
  } catch (error) {
    // The sticky comment must not keep saying "started": tell it why nothing was built, then fail.
    if (settings.commentId !== undefined && ctx.repository) {
      const body = renderCrashComment(inActionTerms(errorMessage(error)), runUrl(ctx));
      await updateComment(github(), { ...ctx.repository, commentId: settings.commentId }, body).catch(
        (e: unknown) => core.warning(`could not update comment ${settings.commentId}: ${errorMessage(e)}`),
      );
    }
    throw error;
  }
  // What a person reads says `sandbox: rootfs` where the engine says `--sandbox rootfs`; result.json keeps it.
  const shown: BuildResult = { ...result, reason: inActionTerms(result.reason) };
  const resultPath = path.join(outDir, 'result.json');
  // Only files of the output folder itself: no `..`, no absolute path, no symbolic link on the way.
  const runbookRel = runbookFile(result);
  const runbookPath = (await isFileUnder(outDir, runbookRel)) ? path.join(outDir, runbookRel) : '';
  const artifactsDir = path.join(outDir, 'artifacts');
  setOutput('status', result.status);
  setOutput('completion', String(result.metrics.completion));
  setOutput('strict', String(result.metrics.strict));
  setOutput('flexible', String(result.metrics.flexible));
  setOutput('verified-recipe', String(result.recipe?.verified === true));
  setOutput('runbook-path', runbookPath);
  setOutput('result-path', resultPath);
  setOutput('artifacts', (await isDirUnder(outDir, 'artifacts')) ? artifactsDir : '');
  setOutput('pull-request-url', '');
  setOutput('pull-request-operation', 'none');
  step.ended = true;

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
      const body = renderComment(shown, { runUrl: runUrl(ctx), pullRequest: pr });
      const url = await updateComment(github(), { ...ctx.repository, commentId: settings.commentId }, body);
      core.info(`buildbench: updated comment ${url}`);
    } catch (error) {
      const message = `could not update comment ${settings.commentId}: ${errorMessage(error)}`;
      problems.push(message);
      core.warning(message);
    }
  }

  try {
    const url = runUrl(ctx);
    const summary = renderSummary(shown, {
      ...(url ? { runUrl: url } : {}),
      workspace: ctx.workspace,
      files: await folderEntries(outDir),
      ...(await readIfThere(outDir, 'build.sh', 'buildSh')),
      ...(runbookPath ? await readIfThere(outDir, runbookRel, 'runbook') : {}),
      ...(settings.openPullRequest ? { pullRequest: pr } : {}),
      problems,
      caches: cacheSummaryLines(caches),
    });
    await writeSummary(deps.env, summary);
  } catch (error) {
    core.warning(`could not write the job summary: ${errorMessage(error)}`);
  }

  return failureOf(shown, settings) ?? prFailure;
}

/** Why the build fails the step, given `fail-on`; a PARTIAL that may pass says so in a warning. */
function failureOf(result: BuildResult, settings: ActionSettings): string | undefined {
  if (result.status === 'success') return undefined;
  const line = `buildbench: ${result.status.toUpperCase()}: ${result.reason}`;
  if (result.status === 'partial' && settings.failOn === 'failed') {
    core.warning(`${line} (the step passes: fail-on is failed)`);
    return undefined;
  }
  return line;
}

/**
 * Masks, before anything is printed, the values the log must never show: the api-key and token inputs,
 * the model keys in the step's env (every provider's, as the engine may read either), and the forms each
 * travels in (URL-encoded, the base64 of a Basic authorization pair — what the redactor also replaces).
 * Returns the values masked.
 */
function maskSecrets(read: InputReader, env: NodeJS.ProcessEnv): string[] {
  const keys = PROVIDER_NAMES.map((p) => env[providerVariables(p).key]);
  const urls = PROVIDER_NAMES.map((p) => env[providerVariables(p).baseUrl]).concat(read('base-url'));
  const inURLs = urls.flatMap((u) => (u?.includes('://') ? urlCredentials(u) : []));
  return maskValues([read('api-key'), read('token'), ...keys, ...inURLs]);
}

function maskValues(values: readonly (string | undefined)[]): string[] {
  const masked: string[] = [];
  for (const raw of values) {
    const value = raw?.trim();
    if (!value) continue;
    for (const form of new Set([value, ...formsOf(value)])) {
      core.setSecret(form);
      masked.push(form);
    }
  }
  return masked;
}

/** The runner must be Linux: RUNNER_OS says so on a runner, `process.platform` everywhere. */
function checkLinux(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): void {
  const os = env.RUNNER_OS?.trim();
  if (platform === 'linux' && (!os || os === 'Linux')) return;
  const here = os ? `a ${os} runner` : `${platform}`;
  throw new UnsupportedRunnerError(
    `buildbench needs a Linux runner, and this step runs on ${here}: its sandboxes (docker, rootfs) are Linux ` +
      'only; use runs-on: ubuntu-latest (or a self-hosted Linux runner)',
  );
}

/**
 * A step that ends before the build's outputs were set: every output gets a value (`status` says why,
 * `out-dir` names a folder that exists and holds a note), and the job summary says what happened.
 */
async function endEarly(error: unknown, deps: ActionDeps, step: StepState): Promise<void> {
  const status =
    error instanceof UnsupportedRunnerError
      ? EARLY_STATUS.runner
      : error instanceof ConfigError
        ? EARLY_STATUS.config
        : EARLY_STATUS.crash;
  const redact = createRedactor([...step.secrets, ...collectSecretValues(deps.env)]);
  const message = redact(errorMessage(error));
  let outDir = step.outDir;
  try {
    outDir ??= outDirFromInputs(deps.readInput, deps.env);
    await mkdir(outDir, { recursive: true });
    // A new file renamed into place: a link of that name in the folder is replaced, never written through.
    await replaceFileUnder(
      outDir,
      EARLY_NOTE,
      `status: ${status}
${message}
`,
    );
  } catch (e) {
    core.warning(`buildbench: could not write ${EARLY_NOTE} in the output folder: ${errorMessage(e)}`);
  }
  setOutput('status', status);
  setOutput('out-dir', outDir ?? '');
  for (const name of ['completion', 'strict', 'flexible', 'verified-recipe'] as const)
    setOutput(name, 'false');
  for (const name of ['runbook-path', 'result-path', 'artifacts', 'pull-request-url'] as const)
    setOutput(name, '');
  setOutput('pull-request-operation', 'none');
  try {
    const url = runUrl(readActionContext(deps.env));
    await writeSummary(
      deps.env,
      renderEarlySummary(status, message, { ...(url ? { runUrl: url } : {}), files: [EARLY_NOTE] }),
    );
  } catch {
    // The summary is a courtesy here; the step's error says it all.
  }
}

/** The output folder's entries, names relative to it (folders with a trailing slash), sorted. */
async function folderEntries(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => !e.name.startsWith('.'))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

/** `{ [key]: text }` of a regular file of the output folder (never read through a link), else `{}`. */
async function readIfThere<K extends string>(
  outDir: string,
  rel: string,
  key: K,
): Promise<Partial<Record<K, string>>> {
  try {
    return { [key]: (await readFileUnder(outDir, rel)).toString('utf8') } as Partial<Record<K, string>>;
  } catch {
    return {};
  }
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

const FORK_CODE_HINT =
  "build pull requests from forks on the pull_request event instead; set allow-fork-code: true only if you accept running the fork's code with those permissions";

/** Refusals that need no work: options this version does not have, fork code in a privileged event. */
function checkRunnable(settings: ActionSettings, ctx: ActionContext): void {
  const fork = forkCodeReason(ctx);
  if (fork && !settings.allowForkCode) {
    throw new ConfigError(
      `refusing to build: ${fork}, and ${ctx.eventName} runs with this repository's secrets and write token`,
      FORK_CODE_HINT,
    );
  }
  if ((settings.openPullRequest || settings.commentId !== undefined) && !ctx.repository) {
    throw new ConfigError(
      'GITHUB_REPOSITORY is not set, so the pull request or comment has no repository',
      'run the action in a GitHub Actions workflow',
    );
  }
}

/**
 * On `issue_comment` and dispatches (the buildbench App's among them) the payload does not say whose code
 * was checked out: the commit is looked up, and a fork's pull request is refused like pull_request_target's
 * (context.ts dispatchedForkCodeReason). A lookup that fails refuses too — an unchecked fork build would hand
 * it the secrets — and says how to skip the check.
 */
async function checkDispatchedForkCode(
  settings: ActionSettings,
  ctx: ActionContext,
  github: () => GitHubClient,
): Promise<void> {
  if (settings.allowForkCode || !DISPATCH_EVENTS.has(ctx.eventName) || !ctx.repository) return;
  if (isGitUrl(settings.source)) return;
  const sha = await gitHead(settings.source);
  if (!sha) return;
  const { owner, repo } = ctx.repository;
  type ApiPull = {
    number: number;
    head: { sha: string; repo: { full_name: string } | null };
    merge_commit_sha?: string | null;
  };
  const facts = (p: ApiPull): PullFacts => ({
    number: p.number,
    headSha: p.head.sha,
    ...(p.head.repo ? { headRepo: p.head.repo.full_name } : {}),
    ...(p.merge_commit_sha ? { mergeSha: p.merge_commit_sha } : {}),
  });
  let reason: string | undefined;
  try {
    reason = await dispatchedForkCodeReason(ctx, sha, {
      pullsOfCommit: async (commit) =>
        (
          await github().rest.repos.listPullRequestsAssociatedWithCommit({ owner, repo, commit_sha: commit })
        ).data.map((p) => facts(p as ApiPull)),
      pull: async (pull_number) => facts((await github().rest.pulls.get({ owner, repo, pull_number })).data),
    });
  } catch (error) {
    throw new ConfigError(
      `refusing to build: could not check whether the commit checked out on ${ctx.eventName} is a fork's pull request (${errorMessage(error)})`,
      'give the token pull-requests: read and contents: read, or set allow-fork-code: true to skip the check',
    );
  }
  if (reason) {
    throw new ConfigError(
      `refusing to build: ${reason}, and ${ctx.eventName} runs with this repository's secrets and write token`,
      FORK_CODE_HINT,
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

async function runEngine(
  deps: ActionDeps,
  settings: BuildSettings,
  rename: [string, string][],
  progressIntervalMs?: number,
): Promise<BuildResult> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    core.warning(`buildbench: ${signal} received — stopping the build and removing the sandbox`);
    controller.abort();
  };
  if (deps.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const log = createGroupedLog(core, {
    rename,
    reword: inActionTerms,
    ...(progressIntervalMs !== undefined ? { progressIntervalMs } : {}),
  });
  try {
    return await deps.runBuild(settings, { signal: controller.signal, listeners: [log.listener] });
  } finally {
    log.close();
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
