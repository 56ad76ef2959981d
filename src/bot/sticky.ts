/**
 * The one status comment per issue or pull request. The bot creates it when a build is asked for, later
 * commands update it, and the dispatched workflow (the Action, given its id as `comment-id`) rewrites it with
 * the run's outcome — under the Action's own marker, so both markers identify the sticky comment.
 * A comment counts only when a bot wrote it and its body starts with a marker: a person quoting a marker, or
 * a log quoted in a code block that contains one, is never mistaken for it.
 */
import type { ProbotOctokit } from 'probot';

export const STATUS_MARKER = '<!-- buildbench:status -->';
/** The marker src/action/comment.ts writes when the Action rewrites the comment it was given. */
export const ACTION_COMMENT_MARKER = '<!-- buildbench:comment -->';

export type BotOctokit = InstanceType<typeof ProbotOctokit>;

export interface IssueRef {
  owner: string;
  repo: string;
  issue_number: number;
}

export interface StickyComment {
  id: number;
  url: string;
}

interface CommentLike {
  id: number;
  html_url: string;
  body?: string | null;
  user?: { type?: string } | null;
}

function isSticky(comment: CommentLike): boolean {
  if (comment.user?.type !== 'Bot') return false;
  const body = (comment.body ?? '').trimStart();
  return body.startsWith(STATUS_MARKER) || body.startsWith(ACTION_COMMENT_MARKER);
}

/** The existing sticky comment of an issue or PR, if any (the first one, oldest first). */
export async function findStickyComment(
  octokit: BotOctokit,
  issue: IssueRef,
): Promise<StickyComment | undefined> {
  const comments = (await octokit.paginate(octokit.rest.issues.listComments, {
    ...issue,
    per_page: 100,
  })) as CommentLike[];
  const found = comments.find(isSticky);
  return found ? { id: found.id, url: found.html_url } : undefined;
}

/** The body with the status marker as its first line (added when missing). */
export function withMarker(body: string): string {
  return body.trimStart().startsWith(STATUS_MARKER) ? body : `${STATUS_MARKER}\n${body}`;
}

/** Creates the sticky comment, or updates the one there is. The marker is added when the body lacks it. */
export async function upsertStickyComment(
  octokit: BotOctokit,
  issue: IssueRef,
  body: string,
): Promise<StickyComment> {
  const text = withMarker(body);
  const existing = await findStickyComment(octokit, issue);
  if (existing) {
    const { data } = await octokit.rest.issues.updateComment({
      owner: issue.owner,
      repo: issue.repo,
      comment_id: existing.id,
      body: text,
    });
    return { id: data.id, url: data.html_url };
  }
  const { data } = await octokit.rest.issues.createComment({ ...issue, body: text });
  return { id: data.id, url: data.html_url };
}

/** Updates a sticky comment whose id is known (after `upsertStickyComment`), keeping the marker. */
export async function updateStickyComment(
  octokit: BotOctokit,
  issue: IssueRef,
  id: number,
  body: string,
): Promise<StickyComment> {
  const { data } = await octokit.rest.issues.updateComment({
    owner: issue.owner,
    repo: issue.repo,
    comment_id: id,
    body: withMarker(body),
  });
  return { id: data.id, url: data.html_url };
}
