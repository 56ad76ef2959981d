/**
 * The workflow run's context, read from the environment when asked (not at import time, as
 * `@actions/github`'s `context` does), so tests can point GITHUB_EVENT_PATH at a file per case.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../base/errors.js';

export interface ActionContext {
  eventName: string;
  /** The webhook payload (empty when GITHUB_EVENT_PATH is unset). */
  payload: Record<string, unknown>;
  /** `owner/name` of the repository running the workflow, when known. */
  repository?: { owner: string; repo: string };
  ref: string;
  sha: string;
  workspace: string;
  serverUrl: string;
  apiUrl: string;
  runId: string;
  runnerEnvironment: string;
  runnerTemp: string;
}

export function readActionContext(env: NodeJS.ProcessEnv): ActionContext {
  let payload: Record<string, unknown> = {};
  const eventPath = env.GITHUB_EVENT_PATH;
  if (eventPath) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(eventPath, 'utf8'));
      if (typeof parsed === 'object' && parsed !== null) payload = parsed as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(
        `cannot read the event payload at GITHUB_EVENT_PATH=${eventPath} (${error instanceof Error ? error.message : String(error)})`,
        'expected the JSON file the runner writes',
      );
    }
  }
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    ...(owner && repo ? { repository: { owner, repo } } : {}),
    ref: env.GITHUB_REF ?? '',
    sha: env.GITHUB_SHA ?? '',
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    runId: env.GITHUB_RUN_ID ?? '',
    runnerEnvironment: env.RUNNER_ENVIRONMENT ?? '',
    runnerTemp: env.RUNNER_TEMP ?? '',
  };
}

/** The workflow run's page, when the context says which run this is. */
export function runUrl(ctx: ActionContext): string | undefined {
  if (!ctx.repository || !ctx.runId) return undefined;
  return `${ctx.serverUrl}/${ctx.repository.owner}/${ctx.repository.repo}/actions/runs/${ctx.runId}`;
}

const get = (value: unknown, ...keys: string[]): unknown => {
  let cur = value;
  for (const key of keys) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
};

/**
 * Why this event may run code from a fork with this repository's secrets and write token, or undefined.
 * `pull_request_target` and `workflow_run` run in the base repository's context: building a fork's code
 * there hands it the secrets (the "pwn request").
 */
export function forkCodeReason(ctx: ActionContext): string | undefined {
  const base = get(ctx.payload, 'repository', 'full_name');
  if (ctx.eventName === 'pull_request_target') {
    const head = get(ctx.payload, 'pull_request', 'head', 'repo', 'full_name');
    const fork = get(ctx.payload, 'pull_request', 'head', 'repo', 'fork');
    if (fork === true || head === null || (typeof head === 'string' && head !== base)) {
      return `this pull_request_target event comes from the fork ${typeof head === 'string' ? head : '(deleted)'}`;
    }
  }
  if (ctx.eventName === 'workflow_run') {
    const head = get(ctx.payload, 'workflow_run', 'head_repository', 'full_name');
    const fork = get(ctx.payload, 'workflow_run', 'head_repository', 'fork');
    if (fork === true || (typeof head === 'string' && head !== base)) {
      return `this workflow_run event was triggered by code from the fork ${typeof head === 'string' ? head : '(unknown)'}`;
    }
  }
  return undefined;
}

/** What the fork check needs to know of a pull request. */
export interface PullFacts {
  number: number;
  /** `owner/name` of the head repository; undefined when the fork was deleted. */
  headRepo?: string;
  headSha?: string;
  mergeSha?: string;
}

/** The two lookups of the dispatched-fork check (the GitHub API in the action; fakes in tests). */
export interface PullLookup {
  /** Pull requests of this repository that hold the commit (`GET …/commits/{sha}/pulls`). */
  pullsOfCommit: (sha: string) => Promise<PullFacts[]>;
  pull: (number: number) => Promise<PullFacts | undefined>;
}

/**
 * Events that run in this repository's context with its secrets and write token while the code checked out
 * may be a fork's: a comment on a fork's pull request (`issue_comment`), or a dispatch — by the buildbench
 * App, by a person — of a workflow that checks out a fork's pull request (`workflow_dispatch`,
 * `repository_dispatch`). Their payloads do not say whose code is built, so the commit that was checked out
 * is looked up.
 */
export const DISPATCH_EVENTS: ReadonlySet<string> = new Set([
  'issue_comment',
  'workflow_dispatch',
  'repository_dispatch',
]);

/**
 * Why the checked-out commit `sha` is a fork's code in a dispatch-like event, or undefined: it is the head or
 * the merge commit of a pull request whose head lives in another repository (for `issue_comment`, the pull
 * request commented on; otherwise any pull request that holds the commit).
 */
export async function dispatchedForkCodeReason(
  ctx: ActionContext,
  sha: string,
  lookup: PullLookup,
): Promise<string | undefined> {
  if (!DISPATCH_EVENTS.has(ctx.eventName)) return undefined;
  const base = ctx.repository ? `${ctx.repository.owner}/${ctx.repository.repo}` : undefined;
  let pulls: PullFacts[] = [];
  if (ctx.eventName === 'issue_comment') {
    const number = get(ctx.payload, 'issue', 'number');
    const isPull = get(ctx.payload, 'issue', 'pull_request') !== undefined;
    if (!isPull || typeof number !== 'number') return undefined;
    const pull = await lookup.pull(number);
    pulls = pull ? [pull] : [];
  } else {
    pulls = await lookup.pullsOfCommit(sha);
  }
  for (const pull of pulls) {
    const fromFork = pull.headRepo === undefined || (base !== undefined && pull.headRepo !== base);
    const built = pull.headSha === sha || pull.mergeSha === sha;
    if (fromFork && built) {
      return `the commit checked out (${sha.slice(0, 12)}) is the code of pull request #${pull.number} from the fork ${pull.headRepo ?? '(deleted)'}`;
    }
  }
  return undefined;
}

/** The branch a pull request should target: the branch that was built, else the default branch. */
export function baseBranchOf(ctx: ActionContext): string | undefined {
  if (ctx.ref.startsWith('refs/heads/')) return ctx.ref.slice('refs/heads/'.length);
  const fallback = get(ctx.payload, 'repository', 'default_branch');
  return typeof fallback === 'string' && fallback ? fallback : undefined;
}

/** The pull request an event is about (pull_request, pull_request_target), when it carries one. */
export interface EventPullRequest {
  number: number;
  /** The head branch's name, in the head repository. */
  headRef: string;
  /** `owner/name` of the head repository; undefined when the fork was deleted. */
  headRepo?: string;
  /** `owner/name` of the repository the workflow runs in. */
  baseRepo?: string;
  /** The head branch lives in another repository (a fork, or a deleted one). */
  fromFork: boolean;
}

export function eventPullRequest(ctx: ActionContext): EventPullRequest | undefined {
  if (ctx.eventName !== 'pull_request' && ctx.eventName !== 'pull_request_target') return undefined;
  const number = get(ctx.payload, 'pull_request', 'number');
  const headRef = get(ctx.payload, 'pull_request', 'head', 'ref');
  if (typeof number !== 'number' || typeof headRef !== 'string') return undefined;
  const head = get(ctx.payload, 'pull_request', 'head', 'repo', 'full_name');
  const base =
    get(ctx.payload, 'pull_request', 'base', 'repo', 'full_name') ??
    get(ctx.payload, 'repository', 'full_name') ??
    (ctx.repository ? `${ctx.repository.owner}/${ctx.repository.repo}` : undefined);
  const headRepo = typeof head === 'string' ? head : undefined;
  const baseRepo = typeof base === 'string' ? base : undefined;
  return {
    number,
    headRef,
    ...(headRepo ? { headRepo } : {}),
    ...(baseRepo ? { baseRepo } : {}),
    fromFork: headRepo === undefined || (baseRepo !== undefined && headRepo !== baseRepo),
  };
}

/**
 * The root of the git repository holding `dir` (the nearest folder upwards with a `.git` directory or
 * file, as a worktree or submodule has), or undefined when there is none. Only names are looked at: the
 * repository's own configuration is never read.
 */
export function repositoryRootOf(dir: string): string | undefined {
  for (let cur = path.resolve(dir); ;) {
    if (existsSync(path.join(cur, '.git'))) return cur;
    const parent = path.dirname(cur);
    if (parent === cur) return undefined;
    cur = parent;
  }
}

/**
 * Where the built directory lies in its repository, as a repository path ('' for the root): the folder
 * the pull request's files go below. With actions/checkout's `path:` the repository is a folder of the
 * workspace, so the workspace-relative path would name a folder the repository does not have. Falls back
 * to `sourceInWorkspace` when the directory is in no git repository.
 */
export function dirInRepository(source: string, sourceInWorkspace?: string): string | undefined {
  const root = repositoryRootOf(source);
  if (root === undefined) return sourceInWorkspace;
  return path.relative(root, path.resolve(source)).split(path.sep).join('/');
}

/**
 * `owner/name` of the GitHub repository a checkout's `origin` remote names (actions/checkout writes
 * `https://<server>/<owner>/<name>`; ssh and `.git` forms are read too), or undefined when the checkout has
 * no readable `.git/config` or no such remote. The file is only read as text, nothing is run.
 */
export function originRepositoryOf(root: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(root, '.git', 'config'), 'utf8');
  } catch {
    return undefined;
  }
  let inOrigin = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[\s*remote\s+"([^"]*)"\s*\]$/.exec(line);
    if (section) {
      inOrigin = section[1] === 'origin';
      continue;
    }
    if (line.startsWith('[')) {
      inOrigin = false;
      continue;
    }
    const url = inOrigin ? /^url\s*=\s*(.+)$/.exec(line)?.[1]?.trim() : undefined;
    if (!url) continue;
    const m =
      /^(?:[a-z+]+:\/\/(?:[^@/]+@)?[^/]+\/|[^@\s]+@[^:\s]+:)([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/i.exec(url);
    return m ? `${m[1]}/${m[2]}` : undefined;
  }
  return undefined;
}
