/**
 * May the App publish (a branch, commits, a pull request) what a completed run built? Decided at completion
 * from the source of truth, never from the dispatched run's own head: the App dispatches the workflow in this
 * repository, so `workflow_run.head_repository` is always this repository, even when the run checked out a
 * fork's pull request (`pull-request-ref`).
 *
 * In order, each look-up failing closed (no publication; the reason in the comment and the log):
 * 1. The issue the run title names (`GET /repos/{o}/{r}/issues/{n}`). A pull request is looked up again
 *    (`GET …/pulls/{n}`): a head repository that is gone, or is not this repository (id and full name), is a
 *    fork → nothing is published, whatever the configuration says. A pull request of this repository: the
 *    run must have built its head branch (the App dispatches on it); an issue: the default branch.
 * 2. The issue's comments (`GET …/issues/{n}/comments`): the status comment the run title names must still
 *    be there, and the person who asked is the author of the latest `/buildbench build` comment that is not a
 *    bot's and was written no later than the run was created. (The run title names the App's status comment,
 *    which the App wrote and the Action rewrites, so its author is the App, never the person who asked.)
 * 3. That person's permission now (`GET …/collaborators/{login}/permission`): at least the configured one
 *    (`permission`, write by default), or nothing is published.
 * The reasons are the App's own sentences: no text from GitHub, a comment or a branch name goes into them
 * except a login, which GitHub restricts to letters, digits and hyphens.
 */
import { errorMessage } from '../base/errors.js';
import { parseCommand } from './commands.js';
import { CONFIG_PATH, type BotConfig } from './config.js';
import { commenterPermission, hasPermission } from './on-comment.js';
import type { BotOctokit } from './sticky.js';

/** Said in the status comment, after "No pull request: ", when the run built a fork's code. */
export const FORK_REFUSAL =
  "this build ran code from a fork, and the App never pushes a branch, a commit or a pull request for a fork's code, " +
  `whatever ${CONFIG_PATH} says`;

export interface PublicationRequest {
  /** From the run title: the issue or pull request the run reports to, and the status comment's id. */
  issue: number;
  commentId: number;
  /** The branch and commit the run built (the dispatch's ref). */
  headBranch?: string;
  headSha: string;
  /** When GitHub created the run (`workflow_run.created_at`): the command that asked came no later. */
  createdAt?: string;
  /** The commenter's minimum permission (the configuration's `permission`). */
  permission: BotConfig['permission'];
  /** This repository, as the delivery names it. */
  repository: { id?: number; fullName: string; defaultBranch?: string };
}

export type PublicationDecision =
  { publish: true; asker: string } | { publish: false; why: string; fork?: true };

interface RepoLike {
  id?: unknown;
  full_name?: unknown;
}

interface PullLike {
  head: { ref?: unknown; repo?: RepoLike | null };
  base: { repo?: RepoLike | null };
}

interface CommentLike {
  id: number;
  body?: string | null;
  created_at?: string;
  user?: { login?: string; type?: string } | null;
}

const sameName = (a: unknown, b: unknown): boolean =>
  typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * A pull request's head is a fork's unless it is this very repository: the same id and full name as its base
 * (which is the repository it was fetched from), and the full name the delivery names. A deleted head
 * repository (`head.repo: null`) counts as a fork.
 * (`head.repo.fork` is not used: it says whether the repository is a fork of another, true for every pull
 * request in a repository that is itself a fork.)
 */
export function pullRequestFromFork(pr: PullLike, repository?: { fullName: string }): boolean {
  const head = pr.head.repo;
  const base = pr.base.repo;
  if (!head || !base) return true;
  if (typeof head.id !== 'number' || head.id !== base.id) return true;
  if (!sameName(head.full_name, base.full_name)) return true;
  return repository !== undefined && !sameName(head.full_name, repository.fullName);
}

/** The HTTP status of an Octokit error, if it has one. */
const statusOf = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
};

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;

/** The author of the latest `/buildbench build` comment by a person, written no later than `notAfter`. */
export function askingComment(comments: readonly CommentLike[], notAfter?: string): CommentLike | undefined {
  const limit = notAfter === undefined ? NaN : Date.parse(notAfter);
  let found: CommentLike | undefined;
  let foundAt = -Infinity;
  for (const c of comments) {
    if (!c.user || c.user.type === 'Bot' || typeof c.user.login !== 'string') continue;
    const at = Date.parse(c.created_at ?? '');
    if (Number.isNaN(at) || (!Number.isNaN(limit) && at > limit)) continue;
    if (parseCommand(c.body ?? '')?.kind !== 'build') continue;
    if (at >= foundAt) {
      found = c;
      foundAt = at;
    }
  }
  return found;
}

/**
 * Whether the App may publish the run's recipe. Never throws for a failed look-up: that is a refusal whose
 * `why` says which look-up failed; the error itself goes to `log`.
 */
export async function mayPublish(
  octokit: BotOctokit,
  where: { owner: string; repo: string },
  request: PublicationRequest,
  log: (message: string) => void,
): Promise<PublicationDecision> {
  const n = request.issue;
  const failed = (what: string, error: unknown): PublicationDecision => {
    const status = statusOf(error);
    log(`provenance: looking up ${what} failed (${status ?? 'no response'}): ${errorMessage(error)}`);
    return {
      publish: false,
      why:
        status === 404 || status === 410
          ? `${what} is gone (GitHub answered ${status}), so the App published nothing`
          : `the App could not look up ${what} (${status === undefined ? 'no response' : `GitHub answered ${status}`}), so it published nothing`,
    };
  };

  // 1. The issue or pull request, and what the run built for it.
  let isPull: boolean;
  try {
    const { data } = await octokit.rest.issues.get({ ...where, issue_number: n });
    isPull = Boolean(data.pull_request);
  } catch (error) {
    return failed(`issue #${n}`, error);
  }
  if (isPull) {
    let pr: PullLike;
    try {
      pr = (await octokit.rest.pulls.get({ ...where, pull_number: n })).data;
    } catch (error) {
      return failed(`pull request #${n}`, error);
    }
    if (pullRequestFromFork(pr, request.repository)) return { publish: false, why: FORK_REFUSAL, fork: true };
    if (typeof pr.head.ref !== 'string' || pr.head.ref !== request.headBranch)
      return {
        publish: false,
        why: `the run did not build the head branch of pull request #${n}, which is what the App dispatches for it, so it published nothing`,
      };
  } else if (
    request.repository.defaultBranch !== undefined &&
    request.headBranch !== request.repository.defaultBranch
  ) {
    return {
      publish: false,
      why: `the run did not build the default branch, which is what the App dispatches for issue #${n}, so it published nothing`,
    };
  }
  if (!request.headSha)
    return { publish: false, why: 'the run names no commit it built, so the App published nothing' };

  // 2. The status comment the run reports to, and who asked.
  let comments: CommentLike[];
  try {
    comments = await octokit.paginate(octokit.rest.issues.listComments, {
      ...where,
      issue_number: n,
      per_page: 100,
    });
  } catch (error) {
    return failed(`the comments of #${n}`, error);
  }
  if (!comments.some((c) => c.id === request.commentId))
    return {
      publish: false,
      why: `the status comment this run reports to (its id is in the run's title) is no longer on #${n}, so the App published nothing`,
    };
  const asking = askingComment(comments, request.createdAt);
  const login = asking?.user?.login;
  if (!login || !LOGIN.test(login))
    return {
      publish: false,
      why: `no build command (/buildbench build) by a person on #${n} comes before this run, so the App published nothing`,
    };

  // 3. The person who asked still has the permission a build needs.
  let permission: string;
  try {
    permission = await commenterPermission(octokit, where, login);
  } catch (error) {
    return failed(`the permission of ${login}`, error);
  }
  if (!hasPermission(permission, request.permission))
    return {
      publish: false,
      why: `${login}, who asked for this build, now has ${LOGIN.test(permission) ? permission : 'another'} access to this repository, not ${request.permission}, so the App published nothing`,
    };
  return { publish: true, asker: login };
}
