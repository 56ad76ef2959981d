/**
 * A dispatched buildbench run has completed. The bot dispatched it with the run-name
 * `buildbench #<issue> comment <comment-id>` (examples/workflows/buildbench-bot.yml), so the run's
 * `display_title` says which issue or pull request it reports to; any other run of the workflow is not ours
 * and is left alone, with no call made. The run's output artifact (BOT_ARTIFACT_NAME) is downloaded and read
 * in memory within limits (artifact-zip.ts); its result.json is checked (`checkBuildResult`). On SUCCESS with a
 * verified recipe, when the configuration allows pull requests and provenance.ts allows publishing (the
 * issue's pull request, looked up again, is not a fork's; the person who asked still has the permission), the
 * recipe (RUNBOOK.md, build.sh, Dockerfile, patches) is committed to the one branch BOT_BRANCH on top of the
 * commit the run built and one pull request is created or updated — with the App's installation token, so CI runs on it (the Action's
 * Git Data code, src/action/pull-request.ts). Then the sticky status comment gets the outcome: status,
 * metrics, build.sh collapsed, links to the RUNBOOK, the artifact, the run and the pull request, or why the
 * run failed and its root cause. What came from the artifact is untrusted: it reaches the comment and the pull
 * request only through the renderer of untrusted text (src/report/github-text.ts, via ./text.ts) — prose
 * through `neutralise`/`inline`/`md`, verbatim text through `codeBlock`/`codeSpan`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Context } from 'probot';

import { errorMessage } from '../base/errors.js';
import { writeFileUnder } from '../base/safe-fs.js';
import { checkBuildResult, type BuildResult } from '../report/result.js';
import {
  createOrUpdatePullRequest,
  explainWriteError,
  planPullRequest,
  pullRequestEligibility,
  RECIPE_DIR,
  type PullRequestOutcome,
} from '../action/pull-request.js';
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS, readArtifactZip, type ArchiveLimits } from './artifact-zip.js';
import type { BotConfig } from './config.js';
import { FORK_REFUSAL, mayPublish } from './provenance.js';
import { upsertStickyComment, type BotOctokit } from './sticky.js';
import { codeBlock, codeSpan, inline, md, neutralise } from './text.js';

/** The artifact the workflow uploads (its `out-dir`) and the bot reads: one name, here and in the example. */
export const BOT_ARTIFACT_NAME = 'buildbench';
/** The one branch the bot's recipe pull request comes from. */
export const BOT_BRANCH = 'buildbench/recipe';
/** The run-name the dispatched workflow sets, read back from `workflow_run.display_title`. */
export const RUN_TITLE = /^buildbench #([1-9]\d{0,9}) comment ([1-9]\d{0,19})$/;

export interface RunTitle {
  issue: number;
  commentId: number;
}

export function parseRunTitle(title: unknown): RunTitle | undefined {
  if (typeof title !== 'string') return undefined;
  const m = RUN_TITLE.exec(title);
  if (!m?.[1] || !m[2]) return undefined;
  const issue = Number(m[1]);
  const commentId = Number(m[2]);
  return Number.isSafeInteger(issue) && Number.isSafeInteger(commentId) ? { issue, commentId } : undefined;
}

/** The part of the bot's configuration this handler reads (BotConfig has it). */
export interface RunCompletedConfig {
  pullRequests: boolean;
  /** The minimum permission the person who asked must still have for a pull request (default write). */
  permission?: BotConfig['permission'];
}

export type RunCompletedOutcome =
  | { kind: 'ignored'; why: string }
  | {
      kind: 'reported';
      issue: number;
      status?: string;
      comment: { id: number; url: string };
      pullRequest?: PullRequestOutcome;
      refused?: string;
      /** Why no pull request was opened, as the comment says it. */
      noPullRequest?: string;
    };

interface RunInfo {
  id: number;
  htmlUrl: string;
  conclusion: string;
  headSha: string;
  headBranch?: string;
  /** `workflow_run.created_at` (GitHub's time). */
  createdAt?: string;
  /**
   * The dispatched run's own head names another repository. It never does for the App's dispatch (the run is
   * in this repository even when it checked out a fork's pull request), so this can only make the decision
   * stricter; what decides is the pull request, looked up again (provenance.ts).
   */
  fromFork: boolean;
}

/** What the comment reports, gathered as the handler goes. */
interface Report {
  run: RunInfo;
  artifactUrl?: string;
  result?: BuildResult;
  buildSh?: string;
  /** Why the artifact could not be used. */
  problem?: string;
  pullRequest?: PullRequestOutcome;
  pullRequestError?: string;
  /** Why no pull request was opened, when that is worth saying. */
  noPullRequest?: string;
  runbookUrl?: string;
}

const ICONS: Record<string, string> = { success: '✅', partial: '🟡' };

/** The sticky comment's body for the run's outcome. */
export function renderRunComment(report: Report): string {
  const { run, result } = report;
  const lines: string[] = [];
  if (!result) {
    lines.push(
      `### ❌ buildbench: the run ended ${inline(run.conclusion)} without a usable result`,
      '',
      neutralise(report.problem ?? 'the run left no result'),
    );
  } else {
    const status = result.status;
    lines.push(
      `### ${ICONS[status] ?? '❌'} buildbench: ${inline(status.toUpperCase())} — ${inline(result.repo.name)}`,
      '',
      neutralise(result.reason),
      '',
      '| completion | strict | flexible | verified recipe |',
      '| --- | --- | --- | --- |',
      `| ${result.metrics.completion ? 'yes' : 'no'} | ${result.metrics.strict ? 'yes' : 'no'} | ${result.metrics.flexible ? 'yes' : 'no'} | ${result.recipe?.verified === true ? 'yes' : 'no'} |`,
    );
    if (status !== 'success') {
      lines.push('', `The build failed: ${neutralise(result.reason)}.`);
      if (result.rootCause) {
        const rc = result.rootCause;
        lines.push('', md`**Root cause** (turn ${rc.turn}, ${rc.category}): ${rc.message}`.text);
        if (rc.excerpt)
          lines.push(
            '',
            '<details><summary>log excerpt</summary>',
            '',
            codeBlock(rc.excerpt),
            '',
            '</details>',
          );
      }
    }
    if (report.buildSh !== undefined) {
      lines.push(
        '',
        `<details><summary>the recipe: ${codeSpan('build.sh')}</summary>`,
        '',
        codeBlock(report.buildSh, 'sh'),
        '',
        '</details>',
      );
    }
  }
  if (report.pullRequest?.url) {
    const verb = report.pullRequest.operation === 'none' ? 'up to date' : report.pullRequest.operation;
    lines.push('', `**Pull request** (${verb}): ${report.pullRequest.url}`);
  } else if (report.pullRequestError) {
    lines.push('', `The pull request could not be opened: ${neutralise(report.pullRequestError)}`);
  } else if (report.noPullRequest) {
    lines.push('', `No pull request: ${neutralise(report.noPullRequest)}.`);
  }
  const links = [`[the workflow run](${run.htmlUrl})`];
  if (report.runbookUrl) links.unshift(`[RUNBOOK.md](${report.runbookUrl})`);
  if (report.artifactUrl)
    links.push(`[its artifacts (RUNBOOK, recipe, logs, binaries)](${report.artifactUrl})`);
  lines.push('', links.join(' · '));
  return lines.join('\n');
}

function runInfo(payload: Record<string, unknown>): RunInfo | undefined {
  const run = payload.workflow_run as Record<string, unknown> | undefined;
  if (!run || typeof run.id !== 'number' || typeof run.html_url !== 'string') return undefined;
  const base = payload.repository as { id?: unknown; full_name?: unknown } | undefined;
  const head = run.head_repository as { id?: unknown; full_name?: unknown } | null | undefined;
  return {
    id: run.id,
    htmlUrl: run.html_url,
    conclusion: typeof run.conclusion === 'string' ? run.conclusion : 'without a conclusion',
    headSha: typeof run.head_sha === 'string' ? run.head_sha : '',
    ...(typeof run.head_branch === 'string' && run.head_branch ? { headBranch: run.head_branch } : {}),
    ...(typeof run.created_at === 'string' ? { createdAt: run.created_at } : {}),
    fromFork:
      (typeof head?.full_name === 'string' && head.full_name !== base?.full_name) ||
      (typeof head?.id === 'number' && typeof base?.id === 'number' && head.id !== base.id),
  };
}

export interface RunCompletedOptions {
  limits?: Partial<ArchiveLimits>;
}

/**
 * The completed run of the buildbench workflow (app.ts routes `workflow_run.completed` of the configured
 * workflow here). Returns what it did, for the log and the tests.
 */
export async function onBuildbenchRunCompleted(
  context: Context<'workflow_run.completed'>,
  config: RunCompletedConfig,
  options: RunCompletedOptions = {},
): Promise<RunCompletedOutcome> {
  const payload = context.payload as unknown as Record<string, unknown>;
  const title = parseRunTitle(
    (payload.workflow_run as { display_title?: unknown } | undefined)?.display_title,
  );
  if (!title)
    return { kind: 'ignored', why: 'the run is not one the bot dispatched (its title is not ours)' };
  const run = runInfo(payload);
  if (!run) return { kind: 'ignored', why: 'the payload has no workflow run' };
  const event = (payload.workflow_run as { event?: unknown }).event;
  if (event !== 'workflow_dispatch')
    return { kind: 'ignored', why: `the run was started by ${String(event)}, not by the bot's dispatch` };

  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  const octokit = context.octokit;
  const { owner, repo } = context.repo();
  const log = (message: string): void => context.log.info(`buildbench run ${run.id}: ${message}`);
  const report: Report = { run };

  const files = await downloadOutput(octokit, { owner, repo }, run, limits, report);
  if (files) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(files.get('result.json'));
      report.result = checkBuildResult(JSON.parse(text) as unknown, 'result.json in the artifact', {
        require: ['status', 'metrics'],
      });
    } catch (error) {
      report.problem = `the artifact's result.json cannot be read: ${errorMessage(error)}`;
    }
    const buildSh = files.get('build.sh');
    if (report.result && buildSh) report.buildSh = new TextDecoder().decode(buildSh);
  }

  if (report.result && files) {
    const eligibility = pullRequestEligibility(report.result, false);
    if (!eligibility.open) report.noPullRequest = eligibility.why;
    else if (!config.pullRequests)
      report.noPullRequest = 'pull requests are turned off (pull-requests: false)';
    else if (run.fromFork) report.noPullRequest = FORK_REFUSAL;
    else {
      // Provenance decides what the App may publish: the pull request and the person who asked, looked up again.
      const repository = payload.repository as { id?: unknown; default_branch?: unknown } | undefined;
      const decision = await mayPublish(
        octokit,
        { owner, repo },
        {
          ...title,
          headSha: run.headSha,
          ...(run.headBranch ? { headBranch: run.headBranch } : {}),
          ...(run.createdAt ? { createdAt: run.createdAt } : {}),
          permission: config.permission ?? 'write',
          repository: {
            fullName: `${owner}/${repo}`,
            ...(typeof repository?.id === 'number' ? { id: repository.id } : {}),
            ...(typeof repository?.default_branch === 'string'
              ? { defaultBranch: repository.default_branch }
              : {}),
          },
        },
        (message) => context.log.warn(`buildbench run ${run.id}: ${message}`),
      );
      if (!decision.publish) {
        report.noPullRequest = decision.why;
        log(`no pull request: ${decision.why}`);
      } else await openPullRequest(octokit, { owner, repo }, payload, report.result, files, report, log);
    }
  }
  if (!report.runbookUrl && report.artifactUrl && files?.has('RUNBOOK.md'))
    report.runbookUrl = report.artifactUrl;

  const comment = await upsertStickyComment(
    octokit,
    { owner, repo, issue_number: title.issue },
    renderRunComment(report),
  );
  log(`reported to #${title.issue} (${comment.url})`);
  return {
    kind: 'reported',
    issue: title.issue,
    ...(report.result ? { status: report.result.status } : {}),
    comment,
    ...(report.pullRequest ? { pullRequest: report.pullRequest } : {}),
    ...(report.problem ? { refused: report.problem } : {}),
    ...(report.noPullRequest ? { noPullRequest: report.noPullRequest } : {}),
  };
}

/** The run's output artifact, read within the limits; undefined with `report.problem` set when it cannot be. */
async function downloadOutput(
  octokit: BotOctokit,
  where: { owner: string; repo: string },
  run: RunInfo,
  limits: ArchiveLimits,
  report: Report,
): Promise<Map<string, Uint8Array> | undefined> {
  const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({
    ...where,
    run_id: run.id,
    name: BOT_ARTIFACT_NAME,
    per_page: 100,
  });
  const artifact = data.artifacts.find((a) => a.name === BOT_ARTIFACT_NAME && !a.expired);
  if (!artifact) {
    report.problem = `the run uploaded no artifact named ${codeSpan(BOT_ARTIFACT_NAME)} (the workflow's upload step names it so)`;
    return undefined;
  }
  report.artifactUrl = `${run.htmlUrl}/artifacts/${artifact.id}`;
  try {
    if (artifact.size_in_bytes > limits.maxArchiveBytes)
      throw new ArchiveError(
        `the artifact is ${(artifact.size_in_bytes / 1024 / 1024).toFixed(1)} MiB, over the bot's limit of ${(limits.maxArchiveBytes / 1024 / 1024).toFixed(1)} MiB`,
      );
    const download = await octokit.rest.actions.downloadArtifact({
      ...where,
      artifact_id: artifact.id,
      archive_format: 'zip',
    });
    const bytes = new Uint8Array(download.data as ArrayBuffer);
    const files = readArtifactZip(bytes, limits);
    if (!files.has('result.json')) throw new ArchiveError('the artifact holds no result.json');
    return files;
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error;
    report.problem = `${error.message}; nothing of it was used`;
    return undefined;
  }
}

/** Commits the recipe to BOT_BRANCH on the built commit and creates or updates the one pull request. */
async function openPullRequest(
  octokit: BotOctokit,
  where: { owner: string; repo: string },
  payload: Record<string, unknown>,
  result: BuildResult,
  files: Map<string, Uint8Array>,
  report: Report,
  log: (message: string) => void,
): Promise<void> {
  const repository = payload.repository as { default_branch?: unknown; html_url?: unknown } | undefined;
  const base =
    report.run.headBranch ??
    (typeof repository?.default_branch === 'string' ? repository.default_branch : undefined);
  if (!base || !report.run.headSha) {
    report.noPullRequest = 'the run names no branch and commit to base the pull request on';
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'buildbench-bot-'));
  try {
    for (const [name, bytes] of files) {
      if (name === 'result.json') continue;
      await writeFileUnder(dir, name, Buffer.from(bytes));
    }
    const options = { outDir: dir, ...where, base, partial: false };
    // The title, the body and the commit messages render the result's words through the one renderer of
    // untrusted text (planPullRequest).
    const plan = await planPullRequest(result, options);
    plan.branch = BOT_BRANCH;
    plan.baseSha = report.run.headSha;
    plan.anyBase = true;
    plan.body = [
      plan.body,
      '',
      `<sub>Built by [this workflow run](${report.run.htmlUrl}) at ${codeSpan(report.run.headSha.slice(0, 12))}.</sub>`,
    ].join('\n');
    report.pullRequest = await createOrUpdatePullRequest(octokit, plan, log);
    if (report.pullRequest.operation === 'none' && !report.pullRequest.url) {
      report.noPullRequest = report.pullRequest.note;
      report.pullRequest = undefined;
      return;
    }
    const html = typeof repository?.html_url === 'string' ? repository.html_url : undefined;
    if (html && plan.commits.some((c) => c.files.some((f) => f.path === `${RECIPE_DIR}/RUNBOOK.md`)))
      report.runbookUrl = `${html}/blob/${BOT_BRANCH}/${RECIPE_DIR}/RUNBOOK.md`;
  } catch (error) {
    report.pullRequestError = explainWriteError(error, 'pull-request');
    log(`pull request failed: ${report.pullRequestError}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
