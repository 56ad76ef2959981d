/**
 * comment-id: the bot (or a person) leaves a comment saying a build started and passes its id; the action
 * rewrites that one comment with the outcome. Updating, never adding, keeps one sticky comment per build.
 */
import type { BuildResult } from '../report/result.js';
import type { GitHubClient } from '../github/client.js';
import { md } from '../report/github-text.js';

export const COMMENT_MARKER = '<!-- buildbench:comment -->';

export interface CommentContext {
  runUrl?: string;
  pullRequest?: { url?: string; operation: string; note?: string };
}

export function renderComment(result: BuildResult, ctx: CommentContext): string {
  const icon = result.status === 'success' ? '✅' : result.status === 'partial' ? '🟡' : '❌';
  // Every word of the result goes through the renderer of untrusted text (`md` escapes each interpolation).
  const lines = [
    COMMENT_MARKER,
    md`### ${icon} buildbench: ${result.status.toUpperCase()} — ${result.repo.name}`.text,
    '',
    md.prose(result.reason).text,
    '',
    `completion **${result.metrics.completion ? 'yes' : 'no'}** · strict **${result.metrics.strict ? 'yes' : 'no'}** · ` +
      `flexible **${result.metrics.flexible ? 'yes' : 'no'}** · verified recipe **${result.recipe?.verified ? 'yes' : 'no'}**`,
  ];
  if (result.rootCause && result.status !== 'success') {
    lines.push(
      '',
      md`Root cause (turn ${result.rootCause.turn}, ${result.rootCause.category}): ${result.rootCause.message}`
        .text,
    );
  }
  if (ctx.pullRequest?.url)
    lines.push('', md`Pull request (${ctx.pullRequest.operation}): ${md.trusted(ctx.pullRequest.url)}`.text);
  if (ctx.runUrl) lines.push('', `[Workflow run, with RUNBOOK and logs](${ctx.runUrl})`);
  return lines.join('\n');
}

/** The comment when the engine could not run at all (a configuration error, a crash). */
export function renderCrashComment(message: string, runUrl: string | undefined): string {
  const lines = [COMMENT_MARKER, '### ❌ buildbench could not run', '', md.prose(message).text];
  if (runUrl) lines.push('', `[Workflow run](${runUrl})`);
  return lines.join('\n');
}

export async function updateComment(
  octokit: GitHubClient,
  target: { owner: string; repo: string; commentId: number },
  body: string,
): Promise<string> {
  const { data } = await octokit.rest.issues.updateComment({
    owner: target.owner,
    repo: target.repo,
    comment_id: target.commentId,
    body,
  });
  return data.html_url;
}
