/**
 * open-pull-request: commits the recipe (RUNBOOK.md, build.sh, Dockerfile, patches) to a deterministic
 * branch with the Git Data API (blobs → trees → commits → ref) and creates or updates ONE pull request
 * (peter-evans/create-pull-request's create-or-update). Running it again with the same outcome writes
 * nothing; the operation (`created`, `updated`, `none`) is reported as an output.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

import { readFileUnder, readIfExists } from '../base/safe-fs.js';
import type { BuildResult } from '../report/result.js';
import { httpStatus, type GitHubClient } from '../github/client.js';
import { md } from './summary.js';

export type PullRequestOperation = 'created' | 'updated' | 'none';

/**
 * Where the recipe goes in the repository (below the built directory when it is not the root). Not
 * `.buildbench`: that is the layer-2 verifier's scratch folder in working copies.
 */
export const RECIPE_DIR = 'buildbench';
export const PARTIAL_LABEL = 'buildbench: partial';
const BODY_MARKER = '<!-- buildbench:pull-request -->';
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
  commits: PlannedCommit[];
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

export const branchNameFor = (base: string): string => `buildbench/build-${base}`;

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

function title(result: BuildResult, partial: boolean): string {
  return partial
    ? `[PARTIAL] buildbench: partial build recipe for ${result.repo.name}`
    : `buildbench: verified build recipe for ${result.repo.name}`;
}

function body(
  result: BuildResult,
  partial: boolean,
  dir: string,
  patches: { file: string; subject: string; reason: string }[],
): string {
  const lines = [
    BODY_MARKER,
    partial
      ? `> [!WARNING]\n> **PARTIAL build.** The verifiers did not pass: ${md(result.reason)}. This pull request records how far the build got; it is not a working recipe.`
      : `buildbench built this repository in a fresh sandbox, and the recipe below passed its replay in another fresh sandbox.`,
    '',
    `| status | completion | strict | flexible | verified recipe |`,
    `| --- | --- | --- | --- | --- |`,
    `| ${result.status} | ${result.metrics.completion} | ${result.metrics.strict} | ${result.metrics.flexible} | ${result.recipe?.verified ?? false} |`,
    '',
    `Expected binaries: ${result.expected.names.length > 0 ? result.expected.names.map((n) => `\`${md(n)}\``).join(', ') : 'any new binary'} (${result.expected.source}).`,
    '',
    '### Files',
    '',
    `- \`${dir}/RUNBOOK.md\`: how to build, the dependencies, the steps, and the verification evidence`,
    `- \`${dir}/build.sh\`: the minimised build script`,
    `- \`${dir}/Dockerfile\`: the same build as an image${result.recipe ? ` (FROM \`${md(result.recipe.baseImage)}\`)` : ''}`,
  ];
  if (patches.length > 0) {
    lines.push(
      '',
      '### Patches',
      '',
      `Source changes the build needed, one commit each, in \`${dir}/patches/\`:`,
      '',
    );
    for (const p of patches)
      lines.push(`- \`${md(path.basename(p.file))}\`: ${md(p.subject)} — ${md(p.reason)}`);
  }
  if (result.artifacts.length > 0) {
    lines.push('', '### Binaries built', '');
    for (const a of result.artifacts.slice(0, 50)) lines.push(`- \`${md(a.path)}\` (${a.kind})`);
    if (result.artifacts.length > 50) lines.push(`- … and ${result.artifacts.length - 50} more`);
  }
  lines.push(
    '',
    `<sub>Opened by buildbench ${md(result.tool.version)}. Re-running the workflow updates this pull request.</sub>`,
  );
  const text = lines.join('\n');
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}\n\n… (trimmed)` : text;
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
      message: `buildbench: ${verb} for ${result.repo.name}\n\n${result.status.toUpperCase()}: ${result.reason}`,
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
      message: `buildbench: ${subject}\n\n${reason}`,
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
  const baseSha = await getRefSha(octokit, owner, repo, base);
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
    base,
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
    const changed = existing.title !== plan.title || (existing.body ?? '') !== plan.body;
    if (changed)
      await octokit.rest.pulls.update({
        owner,
        repo,
        pull_number: number,
        title: plan.title,
        body: plan.body,
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
