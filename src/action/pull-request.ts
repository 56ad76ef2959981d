/**
 * open-pull-request: commits the recipe (RUNBOOK.md, build.sh, Dockerfile, patches) to a deterministic
 * branch with the Git Data API (blobs → trees → commits → ref) and creates or updates ONE pull request
 * (peter-evans/create-pull-request's create-or-update). Running it again with the same outcome writes
 * nothing; the operation (`created`, `updated`, `none`) is reported as an output.
 *
 * Where it goes (`destinationFor`): the branch that was built; on a pull request, the pull request's head
 * branch (pull-request-target: head), the default branch (default) or one sticky comment on the pull
 * request instead (comment). A fork's pull_request runs with a read-only token: nothing is written, a
 * notice says why. The files go below the built directory's path in its repository (`dirInRepository`),
 * in RECIPE_DIR, the folder the Dockerfile and RUNBOOK.md name.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

import { errorMessage } from '../base/errors.js';
import { readFileUnder, readIfExists } from '../base/safe-fs.js';
import { RECIPE_DIR_NAME } from '../recipe/render-dockerfile.js';
import type { BuildResult } from '../report/result.js';
import { httpStatus, type GitHubClient } from '../github/client.js';
import {
  baseBranchOf,
  dirInRepository,
  eventPullRequest,
  originRepositoryOf,
  repositoryRootOf,
  type ActionContext,
} from './context.js';
import type { PullRequestTarget } from './settings.js';
import { codeBlock, codeSpan, htmlText, inline, md, plainText, plainTitle } from '../report/github-text.js';

export type PullRequestOperation = 'created' | 'updated' | 'none';

/**
 * Where the recipe goes in the repository (below the built directory when it is not the root): the folder
 * the Dockerfile's RECIPE_DIR and RUNBOOK.md name, so `docker build -f buildbench/Dockerfile .` works on
 * the branch as committed.
 */
export const RECIPE_DIR = RECIPE_DIR_NAME;
export const PARTIAL_LABEL = 'buildbench: partial';
const BODY_MARKER = '<!-- buildbench:pull-request -->';
/** Marks the one comment pull-request-target: comment keeps up to date on a pull request. */
export const RECIPE_COMMENT_MARKER = '<!-- buildbench:recipe-comment -->';
const BODY_LIMIT = 60_000;

export interface FileToCommit {
  path: string;
  content: Buffer;
  mode: '100644' | '100755';
}

export interface PlannedCommit {
  message: string;
  files: FileToCommit[];
}

export interface PullRequestPlan {
  owner: string;
  repo: string;
  base: string;
  branch: string;
  title: string;
  body: string;
  partial: boolean;
  /** The recipe's folder in the repository (`buildbench`, or `<dir>/buildbench` below the built directory). */
  dir: string;
  commits: PlannedCommit[];
  /** The commit the branch starts from (the bot: the run's head SHA); default the base branch's tip. */
  baseSha?: string;
  /** One pull request from the branch whatever its base: an open one into another base is retargeted. */
  anyBase?: boolean;
}

export interface PullRequestOutcome {
  operation: PullRequestOperation;
  url?: string;
  number?: number;
  /** Why nothing was opened, or what was done, for the log and the summary. */
  note: string;
}

/** Whether this outcome may become a pull request: success with a verified recipe; PARTIAL only when allowed. */
export function pullRequestEligibility(
  result: BuildResult,
  allowPartial: boolean,
): { open: true; partial: boolean } | { open: false; why: string } {
  if (result.status === 'success') {
    if (result.recipe?.verified === true) return { open: true, partial: false };
    return {
      open: false,
      why: result.recipe
        ? `the recipe did not pass its replay in a fresh sandbox (${result.recipe.replay.reason})`
        : 'the run produced no replayed recipe',
    };
  }
  if (result.status === 'partial') {
    if (allowPartial) return { open: true, partial: true };
    return {
      open: false,
      why: 'the build is PARTIAL; set pull-request-partial: true to open a pull request for it',
    };
  }
  return { open: false, why: `the build ended ${result.status.toUpperCase()}` };
}

const BRANCH_PREFIX = 'buildbench/build-';
export const branchNameFor = (base: string): string => `${BRANCH_PREFIX}${base}`;

/** Where the recipe of this run goes. */
export type RecipeDestination =
  /** A pull request into `base` (undefined: the repository's default branch). */
  | { kind: 'pull-request'; base?: string }
  /** One sticky comment on pull request `number`. */
  | { kind: 'comment'; number: number }
  /** Nowhere; `why` is said in a notice. */
  | { kind: 'skip'; why: string };

/**
 * The destination for this event. Outside pull requests: a pull request into the branch that was built
 * (else the default branch). On a pull request: per `target`; never for a fork's pull_request, whose token
 * is read-only, and never for buildbench's own pull request (that would open a pull request into it).
 */
export function destinationFor(ctx: ActionContext, target: PullRequestTarget): RecipeDestination {
  const pr = eventPullRequest(ctx);
  if (!pr) {
    const base = baseBranchOf(ctx);
    return { kind: 'pull-request', ...(base ? { base } : {}) };
  }
  if (ctx.eventName === 'pull_request' && pr.fromFork) {
    return {
      kind: 'skip',
      why: `pull request #${pr.number} comes from the fork ${pr.headRepo ?? '(deleted)'}, and GitHub gives a fork's pull_request run a read-only token: no branch, pull request or comment can be written. Run with open-pull-request on push or workflow_dispatch events to get the pull request`,
    };
  }
  const sender = (ctx.payload.sender as { login?: unknown } | undefined)?.login;
  if (ctx.eventName === 'pull_request' && sender === 'dependabot[bot]') {
    return {
      kind: 'skip',
      why: `pull request #${pr.number}'s run was triggered by Dependabot, and GitHub gives such pull_request runs a read-only token: no branch, pull request or comment can be written`,
    };
  }
  if (pr.headRef.startsWith(BRANCH_PREFIX)) {
    return {
      kind: 'skip',
      why: `pull request #${pr.number} is buildbench's own (branch ${pr.headRef}); a recipe for it would be a pull request into a pull request`,
    };
  }
  if (target === 'comment') return { kind: 'comment', number: pr.number };
  if (target === 'default') {
    const fallback = (ctx.payload.repository as { default_branch?: unknown } | undefined)?.default_branch;
    return { kind: 'pull-request', ...(typeof fallback === 'string' && fallback ? { base: fallback } : {}) };
  }
  if (pr.fromFork) {
    return {
      kind: 'skip',
      why: `the head branch of pull request #${pr.number} lives in the fork ${pr.headRepo ?? '(deleted)'}, and a pull request can only target a branch of this repository; set pull-request-target: comment or default`,
    };
  }
  return { kind: 'pull-request', base: pr.headRef };
}

/**
 * The error a person can act on for a GitHub answer that refused a write: the repository setting that
 * keeps GitHub Actions from creating pull requests, a token without the permission.
 */
export function explainWriteError(error: unknown, what: 'pull-request' | 'comment'): string {
  const message = errorMessage(error);
  if (httpStatus(error) !== 403) return message;
  if (/not permitted to create or approve pull requests/i.test(message)) {
    return `${message.replace(/\.$/, '')}: turn on "Allow GitHub Actions to create and approve pull requests" in the repository's Settings → Actions → General → Workflow permissions (an organisation's repository needs the organisation's setting first), or pass a GitHub App token in the token input`;
  }
  if (/resource not accessible by integration/i.test(message)) {
    const needs = what === 'comment' ? 'pull-requests: write' : 'contents: write and pull-requests: write';
    return `${message.replace(/\.$/, '')}: the token may not do this; give the job \`permissions:\` ${needs}`;
  }
  return message;
}

/** The SHA git gives a blob with this content. */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** A regular file of the output directory, never read through a symbolic link; undefined when there is none. */
async function readIfPresent(outDir: string, abs: string): Promise<Buffer | undefined> {
  return readIfExists(() => readFileUnder(outDir, path.relative(outDir, abs)));
}

/** Output-directory-relative paths must stay inside it. */
function inside(outDir: string, rel: string): string | undefined {
  const abs = path.resolve(outDir, rel);
  const back = path.relative(outDir, abs);
  return back && !back.startsWith('..') && !path.isAbsolute(back) ? abs : undefined;
}

export function runbookFile(result: BuildResult): string {
  const files = result.files as Record<string, unknown>;
  return typeof files.runbook === 'string' ? files.runbook : 'RUNBOOK.md';
}

/** The pull request's title: plain text, its mentions and references defused (the title is linked too). */
function title(result: BuildResult, partial: boolean): string {
  return partial
    ? `[PARTIAL] buildbench: partial build recipe for ${plainTitle(result.repo.name)}`
    : `buildbench: verified build recipe for ${plainTitle(result.repo.name)}`;
}

/**
 * The outcome in a few lines: what the build is, its metrics, the binaries expected. Every word of the result
 * goes through the renderer of untrusted text (`md` and the functions of src/report/github-text.ts), in the
 * body, the recipe comment and the commit messages alike.
 */
function statusLines(result: BuildResult, partial: boolean): string[] {
  const names = result.expected.names.map((n) => md.code(n));
  return [
    partial
      ? md`> [!WARNING]\n> **PARTIAL build.** The verifiers did not pass: ${result.reason}. This records how far the build got; it is not a working recipe.`
          .text
      : `buildbench built this repository in a fresh sandbox, and the recipe below passed its replay in another fresh sandbox.`,
    '',
    `| status | completion | strict | flexible | verified recipe |`,
    `| --- | --- | --- | --- | --- |`,
    md`| ${result.status} | ${result.metrics.completion} | ${result.metrics.strict} | ${result.metrics.flexible} | ${result.recipe?.verified ?? false} |`
      .text,
    '',
    md`Expected binaries: ${names.length > 0 ? md.join(names, ', ') : 'any new binary'} (${result.expected.source}).`
      .text,
  ];
}

function artifactLines(result: BuildResult): string[] {
  if (result.artifacts.length === 0) return [];
  const lines = ['', '### Binaries built', ''];
  for (const a of result.artifacts.slice(0, 50)) lines.push(md`- ${md.code(a.path)} (${a.kind})`.text);
  if (result.artifacts.length > 50) lines.push(`- … and ${result.artifacts.length - 50} more`);
  return lines;
}

function body(
  result: BuildResult,
  partial: boolean,
  dir: string,
  patches: { file: string; subject: string; reason: string }[],
): string {
  const lines = [
    BODY_MARKER,
    ...statusLines(result, partial),
    '',
    '### Files',
    '',
    `- ${codeSpan(`${dir}/RUNBOOK.md`)}: how to build, the dependencies, the steps, and the verification evidence`,
    `- ${codeSpan(`${dir}/build.sh`)}: the minimised build script`,
    `- ${codeSpan(`${dir}/Dockerfile`)}: the same build as an image${result.recipe ? ` (FROM ${codeSpan(result.recipe.baseImage)})` : ''}`,
  ];
  if (patches.length > 0) {
    lines.push(
      '',
      '### Patches',
      '',
      `Source changes the build needed, one commit each, in ${codeSpan(`${dir}/patches/`)}:`,
      '',
    );
    for (const p of patches)
      lines.push(`- ${codeSpan(path.basename(p.file))}: ${inline(p.subject)} — ${inline(p.reason)}`);
  }
  lines.push(
    ...artifactLines(result),
    '',
    `<sub>Opened by buildbench ${inline(result.tool.version)}. Re-running the workflow updates this pull request.</sub>`,
  );
  const text = lines.join('\n');
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}\n\n… (trimmed)` : text;
}

/**
 * pull-request-target: comment: the outcome and the recipe's files inline (each collapsed), for a pull
 * request that should not get a second pull request. Files that do not fit GitHub's comment size are
 * named, not shown; the run's artifacts hold them all.
 */
export function renderRecipeComment(result: BuildResult, plan: PullRequestPlan, runUrl?: string): string {
  const head = [
    RECIPE_COMMENT_MARKER,
    `### buildbench: ${plan.partial ? 'partial' : 'verified'} build recipe for ${inline(result.repo.name)}`,
    '',
    ...statusLines(result, plan.partial),
    '',
    `To commit it, put these files in ${codeSpan(`${plan.dir}/`)}; ${codeSpan(`docker build -f ${plan.dir}/Dockerfile .`)} then builds the image.`,
  ];
  const tail = [
    ...artifactLines(result),
    '',
    `<sub>buildbench ${inline(result.tool.version)}${runUrl ? ` · [the workflow run, with every file in its artifacts](${runUrl})` : ''}. Re-running the workflow updates this comment.</sub>`,
  ];
  const files = plan.commits.flatMap((c) => c.files.map((f) => ({ ...f, message: c.message })));
  const budget = BODY_LIMIT - head.join('\n').length - tail.join('\n').length - 200;
  const shown: string[] = [];
  const left: string[] = [];
  let used = 0;
  for (const f of files) {
    const name = f.path.slice(plan.dir.length + 1);
    const lang = name.endsWith('.sh')
      ? 'sh'
      : name.endsWith('.patch')
        ? 'diff'
        : name === 'Dockerfile'
          ? 'dockerfile'
          : 'markdown';
    const block = `<details><summary><code>${htmlText(name)}</code></summary>\n\n${codeBlock(f.content.toString('utf8'), lang)}\n\n</details>`;
    if (used + block.length > budget) {
      left.push(codeSpan(name));
      continue;
    }
    used += block.length + 1;
    shown.push(block);
  }
  const lines = [...head, '', ...shown];
  if (left.length > 0) lines.push('', `Too long to show here: ${left.join(', ')} (in the run's artifacts).`);
  lines.push(...tail);
  return lines.join('\n');
}

/**
 * What to commit, read from the output directory: one commit with RUNBOOK.md, build.sh and Dockerfile,
 * then one commit per patch file (message: the patch's subject and the reason it was needed). Files the
 * run did not write are left out.
 */
export async function planPullRequest(
  result: BuildResult,
  options: {
    outDir: string;
    owner: string;
    repo: string;
    base: string;
    partial: boolean;
    dirInRepo?: string;
  },
): Promise<PullRequestPlan> {
  const outDir = path.resolve(options.outDir);
  const dir = options.dirInRepo ? `${options.dirInRepo.replace(/\/+$/, '')}/${RECIPE_DIR}` : RECIPE_DIR;
  const recipeFiles: { from: string; to: string; mode: FileToCommit['mode'] }[] = [
    { from: runbookFile(result), to: 'RUNBOOK.md', mode: '100644' },
    { from: result.recipe?.files.buildSh ?? 'build.sh', to: 'build.sh', mode: '100755' },
    { from: result.recipe?.files.dockerfile ?? 'Dockerfile', to: 'Dockerfile', mode: '100644' },
  ];
  const first: FileToCommit[] = [];
  for (const f of recipeFiles) {
    const abs = inside(outDir, f.from);
    const content = abs ? await readIfPresent(outDir, abs) : undefined;
    if (content) first.push({ path: `${dir}/${f.to}`, content, mode: f.mode });
  }
  const commits: PlannedCommit[] = [];
  const verb = options.partial ? 'partial build recipe' : 'verified build recipe';
  if (first.length > 0) {
    commits.push({
      // A commit message links references too (`owner/repo#1` would leave one in another repository).
      message: `buildbench: ${verb} for ${plainTitle(result.repo.name)}\n\n${result.status.toUpperCase()}: ${plainText(result.reason)}`,
      files: first,
    });
  }
  const patchInfo = new Map((result.patches ?? []).map((p) => [p.file, p]));
  const patchFiles = [...new Set([...(result.recipe?.files.patches ?? []), ...patchInfo.keys()])].sort();
  const described: { file: string; subject: string; reason: string }[] = [];
  for (const file of patchFiles) {
    const abs = inside(outDir, file);
    const content = abs ? await readIfPresent(outDir, abs) : undefined;
    if (!content) continue;
    const info = patchInfo.get(file);
    const subject = info?.subject ?? path.basename(file, '.patch');
    const reason = info?.reason ?? 'a source change the build needed';
    described.push({ file, subject, reason });
    commits.push({
      message: `buildbench: ${plainTitle(subject)}\n\n${plainText(reason)}`,
      files: [{ path: `${dir}/patches/${path.basename(file)}`, content, mode: '100644' }],
    });
  }
  return {
    owner: options.owner,
    repo: options.repo,
    base: options.base,
    branch: branchNameFor(options.base),
    title: title(result, options.partial),
    body: body(result, options.partial, dir, described),
    partial: options.partial,
    dir,
    commits,
  };
}

/** The files the branch should hold on top of the base, path → blob SHA. */
function plannedBlobs(plan: PullRequestPlan): Map<string, string> {
  const out = new Map<string, string>();
  for (const commit of plan.commits) for (const f of commit.files) out.set(f.path, gitBlobSha(f.content));
  return out;
}

async function getRefSha(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  branch: string,
): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` });
    return data.object.sha;
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

/** True when `branch` is exactly the base plus the planned commits' files (nothing to push). */
async function branchUpToDate(
  octokit: GitHubClient,
  plan: PullRequestPlan,
  baseSha: string,
  branchSha: string,
): Promise<boolean> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    owner: plan.owner,
    repo: plan.repo,
    basehead: `${baseSha}...${branchSha}`,
  });
  if (data.behind_by !== 0 || data.ahead_by !== plan.commits.length) return false;
  const want = plannedBlobs(plan);
  const files = data.files ?? [];
  if (files.length !== want.size) return false;
  return files.every((f) => f.status !== 'removed' && want.get(f.filename) === f.sha);
}

async function pushCommits(octokit: GitHubClient, plan: PullRequestPlan, baseSha: string): Promise<string> {
  const { owner, repo } = plan;
  const { data: baseCommit } = await octokit.rest.git.getCommit({ owner, repo, commit_sha: baseSha });
  let parent = baseSha;
  let tree = baseCommit.tree.sha;
  for (const commit of plan.commits) {
    const entries = [];
    for (const f of commit.files) {
      const { data: blob } = await octokit.rest.git.createBlob({
        owner,
        repo,
        content: f.content.toString('base64'),
        encoding: 'base64',
      });
      entries.push({ path: f.path, mode: f.mode, type: 'blob' as const, sha: blob.sha });
    }
    const { data: newTree } = await octokit.rest.git.createTree({
      owner,
      repo,
      base_tree: tree,
      tree: entries,
    });
    const { data: created } = await octokit.rest.git.createCommit({
      owner,
      repo,
      message: commit.message,
      tree: newTree.sha,
      parents: [parent],
    });
    parent = created.sha;
    tree = newTree.sha;
  }
  return parent;
}

/**
 * Creates or updates the branch and the one pull request from it. The branch is rewritten (force) when
 * its content differs from the plan; an existing open pull request is edited in place.
 */
export async function createOrUpdatePullRequest(
  octokit: GitHubClient,
  plan: PullRequestPlan,
  log: (message: string) => void = () => undefined,
): Promise<PullRequestOutcome> {
  const { owner, repo, base, branch } = plan;
  if (plan.commits.length === 0) {
    return {
      operation: 'none',
      note: 'nothing to commit: the run wrote no RUNBOOK.md, build.sh, Dockerfile or patches',
    };
  }
  const baseSha = plan.baseSha ?? (await getRefSha(octokit, owner, repo, base));
  if (!baseSha) throw new Error(`the base branch '${base}' does not exist in ${owner}/${repo}`);
  const branchSha = await getRefSha(octokit, owner, repo, branch);

  let branchChanged = false;
  if (branchSha === undefined || !(await branchUpToDate(octokit, plan, baseSha, branchSha))) {
    const head = await pushCommits(octokit, plan, baseSha);
    if (branchSha === undefined) {
      await octokit.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: head });
      log(`created branch ${branch} at ${head}`);
    } else {
      await octokit.rest.git.updateRef({ owner, repo, ref: `heads/${branch}`, sha: head, force: true });
      log(`updated branch ${branch} to ${head}`);
    }
    branchChanged = true;
  } else {
    log(`branch ${branch} already holds this recipe`);
  }

  const { data: open } = await octokit.rest.pulls.list({
    owner,
    repo,
    state: 'open',
    head: `${owner}:${branch}`,
    ...(plan.anyBase ? {} : { base }),
    per_page: 10,
  });
  const existing = open[0];
  let operation: PullRequestOperation;
  let number: number;
  let url: string;
  let labels: string[];
  if (!existing) {
    const { data: created } = await octokit.rest.pulls.create({
      owner,
      repo,
      title: plan.title,
      body: plan.body,
      head: branch,
      base,
    });
    operation = 'created';
    number = created.number;
    url = created.html_url;
    labels = [];
  } else {
    number = existing.number;
    url = existing.html_url;
    labels = existing.labels.map((l) => l.name ?? '').filter(Boolean);
    const retarget = plan.anyBase === true && existing.base.ref !== base;
    const changed = existing.title !== plan.title || (existing.body ?? '') !== plan.body || retarget;
    if (changed)
      await octokit.rest.pulls.update({
        owner,
        repo,
        pull_number: number,
        title: plan.title,
        body: plan.body,
        ...(retarget ? { base } : {}),
      });
    operation = changed || branchChanged ? 'updated' : 'none';
  }

  const labelled = labels.includes(PARTIAL_LABEL);
  try {
    if (plan.partial && !labelled) {
      await octokit.rest.issues.addLabels({ owner, repo, issue_number: number, labels: [PARTIAL_LABEL] });
      if (operation === 'none') operation = 'updated';
    } else if (!plan.partial && labelled) {
      await octokit.rest.issues.removeLabel({ owner, repo, issue_number: number, name: PARTIAL_LABEL });
      if (operation === 'none') operation = 'updated';
    }
  } catch (error) {
    log(
      `warning: could not ${plan.partial ? 'add' : 'remove'} the label '${PARTIAL_LABEL}' (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const verb = operation === 'none' ? 'is up to date' : operation;
  return { operation, number, url, note: `pull request #${number} ${verb}: ${url}` };
}

/** Creates the one recipe comment on pull request `number`, or edits it in place when it differs. */
export async function createOrUpdateRecipeComment(
  octokit: GitHubClient,
  target: { owner: string; repo: string; number: number },
  body: string,
): Promise<PullRequestOutcome> {
  const { owner, repo, number } = target;
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: number,
    per_page: 100,
  });
  const existing = comments.find((c) => (c.body ?? '').startsWith(RECIPE_COMMENT_MARKER));
  if (!existing) {
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
    return {
      operation: 'created',
      number,
      url: data.html_url,
      note: `commented the recipe on pull request #${number}: ${data.html_url}`,
    };
  }
  if (existing.body === body) {
    return {
      operation: 'none',
      number,
      url: existing.html_url,
      note: `the recipe comment on pull request #${number} is up to date: ${existing.html_url}`,
    };
  }
  await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
  return {
    operation: 'updated',
    number,
    url: existing.html_url,
    note: `updated the recipe comment on pull request #${number}: ${existing.html_url}`,
  };
}

export interface DeliverOptions {
  outDir: string;
  /** The built directory (an absolute path, or a git URL). */
  source: string;
  /** `source` relative to the workspace, the fallback when it lies in no git repository. */
  sourceInWorkspace?: string;
  allowPartial: boolean;
  target: PullRequestTarget;
  runUrl?: string;
  log: (message: string) => void;
  /** Said when nothing is written for a reason the user may want to change (a fork, the target). */
  notice: (message: string) => void;
}

/**
 * open-pull-request from start to end: eligibility, destination, the plan, then the pull request or the
 * comment. Refusals GitHub answers with are explained (`explainWriteError`); other errors are thrown as
 * they come.
 */
export async function deliverRecipe(
  result: BuildResult,
  ctx: ActionContext,
  options: DeliverOptions,
  github: () => GitHubClient,
): Promise<PullRequestOutcome> {
  const eligibility = pullRequestEligibility(result, options.allowPartial);
  if (!eligibility.open) return { operation: 'none', note: `no pull request: ${eligibility.why}` };
  const repository = ctx.repository;
  if (!repository) throw new Error('GITHUB_REPOSITORY is not set');
  const destination = destinationFor(ctx, options.target);
  if (destination.kind === 'skip') {
    options.notice(`buildbench: no pull request: ${destination.why}`);
    return { operation: 'none', note: `no pull request: ${destination.why}` };
  }
  // A checkout of another repository (actions/checkout's repository: input) is not this one's to change.
  const root = path.isAbsolute(options.source) ? repositoryRootOf(options.source) : undefined;
  const origin = root ? originRepositoryOf(root) : undefined;
  const here = `${repository.owner}/${repository.repo}`;
  if (origin && origin.toLowerCase() !== here.toLowerCase()) {
    const why = `the built directory is a checkout of ${origin}, not of ${here}, where the pull request would go`;
    options.notice(`buildbench: no pull request: ${why}`);
    return { operation: 'none', note: `no pull request: ${why}` };
  }
  const client = github();
  const dirInRepo = path.isAbsolute(options.source)
    ? dirInRepository(options.source, options.sourceInWorkspace)
    : undefined;
  const plan = async (base: string): Promise<PullRequestPlan> =>
    planPullRequest(result, {
      outDir: options.outDir,
      owner: repository.owner,
      repo: repository.repo,
      base,
      partial: eligibility.partial,
      ...(dirInRepo ? { dirInRepo } : {}),
    });
  if (destination.kind === 'comment') {
    const planned = await plan('');
    if (planned.commits.length === 0)
      return {
        operation: 'none',
        note: 'nothing to comment: the run wrote no RUNBOOK.md, build.sh, Dockerfile or patches',
      };
    try {
      return await createOrUpdateRecipeComment(
        client,
        { ...repository, number: destination.number },
        renderRecipeComment(result, planned, options.runUrl),
      );
    } catch (error) {
      throw new Error(explainWriteError(error, 'comment'));
    }
  }
  try {
    const base = destination.base ?? (await client.rest.repos.get(repository)).data.default_branch;
    return await createOrUpdatePullRequest(client, await plan(base), options.log);
  } catch (error) {
    throw new Error(explainWriteError(error, 'pull-request'));
  }
}
