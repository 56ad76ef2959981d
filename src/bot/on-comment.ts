/**
 * `issue_comment.created`: the commands. Only `created` is routed here (app.ts) — an edited or deleted
 * comment is never acted on, so editing an old comment cannot start a build.
 *
 * In order: bots and comments without a command → nothing at all (no API call). A delivery seen before →
 * nothing. Then the configuration; `help` and unknown commands are answered with a comment; `build` needs
 * the commenter's permission (config.permission, `write` by default) — without it a polite reply and
 * nothing else. A broken configuration → the sticky comment names the field. Then: a reaction on the
 * comment, the PR (head ref, fork or not), the sticky status comment ("queued"), and the workflow dispatch
 * whose `comment-id` input is that comment's id, so the Action rewrites it while it runs. A dispatch GitHub
 * refuses → the sticky comment says why, in words a maintainer can act on.
 */
import type { Context } from 'probot';

import { helpText, parseCommand, type BuildOptions } from './commands.js';
import { CONFIG_PATH, DEFAULT_CONFIG, type BotConfig, type ConfigResult } from './config.js';
import type { DeliveryLog } from './deliveries.js';
import { upsertStickyComment, updateStickyComment, type BotOctokit, type IssueRef } from './sticky.js';
import { codeSpan, neutralise } from './text.js';

export type CommentContext = Context<'issue_comment.created'>;

export interface CommentDeps {
  deliveries: DeliveryLog;
  loadConfig: (context: CommentContext) => Promise<ConfigResult>;
}

/** What the handler did, for logs and tests. */
export type CommentOutcome =
  | { action: 'ignored'; reason: string }
  | { action: 'replied'; reason: string }
  | { action: 'refused'; reason: string }
  | { action: 'dispatched'; ref: string; inputs: Record<string, string>; commentId: number }
  | { action: 'failed'; reason: string };

const PERMISSION_RANK: Record<string, number> = {
  none: 0,
  read: 1,
  triage: 1,
  write: 2,
  maintain: 3,
  admin: 4,
};

/** The commenter's permission on the repository: `role_name` (maintain, triage) where GitHub gives one. */
export async function commenterPermission(
  octokit: BotOctokit,
  repo: { owner: string; repo: string },
  username: string,
): Promise<string> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username });
    const role = (data as { role_name?: string }).role_name;
    return role && role in PERMISSION_RANK ? role : data.permission;
  } catch (error) {
    // 404: not a collaborator (an outside user on a public repository).
    if ((error as { status?: number }).status === 404) return 'none';
    throw error;
  }
}

export function hasPermission(actual: string, required: BotConfig['permission']): boolean {
  return (PERMISSION_RANK[actual] ?? 0) >= (PERMISSION_RANK[required] ?? 2);
}

/** The workflow inputs: the options given, else the configuration's defaults; strings, as GitHub wants them. */
export function dispatchInputs(
  options: BuildOptions,
  defaults: BotConfig['defaults'],
  commentId: number,
  issue: number,
): Record<string, string> {
  const inputs: Record<string, string> = { 'comment-id': String(commentId), issue: String(issue) };
  const strategy = options.strategy ?? defaults.strategy;
  const model = options.model ?? defaults.model;
  const maxCost = options['max-cost'] ?? defaults.maxCost;
  const maxTurns =
    options['max-turns'] ?? (defaults.maxTurns !== undefined ? String(defaults.maxTurns) : undefined);
  if (strategy !== undefined) inputs.strategy = strategy;
  if (model !== undefined) inputs.model = model;
  if (maxCost !== undefined) inputs['max-cost'] = maxCost;
  if (maxTurns !== undefined) inputs['max-turns'] = maxTurns;
  return inputs;
}

function optionsText(inputs: Record<string, string>): string {
  const shown = Object.entries(inputs).filter(([k]) => k !== 'comment-id' && k !== 'issue');
  return shown.length === 0 ? 'the defaults' : shown.map(([k, v]) => codeSpan(`--${k} ${v}`)).join(' ');
}

/** Why GitHub refused a dispatch, in words a maintainer can act on. */
export function dispatchFailureText(error: unknown, workflow: string, ref: string): string {
  const status = (error as { status?: number }).status;
  const raw = error instanceof Error ? error.message : String(error);
  const message = neutralise(raw.replace(/\s*-\s*https:\/\/docs\.github\.com\S*$/, '').slice(0, 300));
  const file = codeSpan(`.github/workflows/${workflow}`);
  switch (status) {
    case 404:
      return (
        `GitHub found no workflow ${file} with a \`workflow_dispatch\` trigger in this repository (404). ` +
        `Add that workflow on the default branch (an example: \`examples/workflows/buildbench-bot.yml\` in buildbench), ` +
        `or name yours with \`workflow:\` in ${codeSpan(CONFIG_PATH)}.`
      );
    case 422:
      return (
        `GitHub refused to start ${file} on ${codeSpan(ref)} (422: ${message}). ` +
        'The workflow must declare the `workflow_dispatch` inputs `comment-id`, `issue`, `strategy`, `model`, ' +
        '`max-cost`, `max-turns` (and `pull-request-ref` for pull requests from forks), and the ref must exist.'
      );
    case 403:
      return (
        `GitHub did not let the App start ${file} (403: ${message}). The App needs the **Actions: write** ` +
        'permission on this repository: accept its updated permissions in the installation settings.'
      );
    default:
      return `GitHub could not start ${file} on ${codeSpan(ref)} (${status ?? 'no response'}: ${message}). Try the command again later.`;
  }
}

async function reply(context: CommentContext, body: string): Promise<void> {
  await context.octokit.rest.issues.createComment(context.issue({ body }));
}

export async function onCommentCreated(context: CommentContext, deps: CommentDeps): Promise<CommentOutcome> {
  const { comment, issue, sender, repository } = context.payload;
  if (sender.type === 'Bot' || comment.user?.type === 'Bot') return { action: 'ignored', reason: 'a bot' };
  const command = parseCommand(comment.body ?? '');
  if (!command) return { action: 'ignored', reason: 'no command' };
  if (!deps.deliveries.claim(context.id))
    return { action: 'ignored', reason: `delivery ${context.id} seen before` };

  const loaded = await deps.loadConfig(context);
  const config: BotConfig = 'config' in loaded ? loaded.config : structuredClone(DEFAULT_CONFIG);
  const configNote =
    'error' in loaded
      ? `\n\n⚠️ ${codeSpan(CONFIG_PATH)} has an error: field ${codeSpan(loaded.error.field)} ${neutralise(loaded.error.message)}.`
      : (loaded.notes ?? []).map((note) => `\n\nℹ️ ${note}.`).join(''); // our own text: fixed key names
  const allowed = config.commands;
  const login = sender.login;

  if (command.kind === 'help' || (command.kind === 'invalid' && command.command === 'help')) {
    if (!allowed.includes('help') && !('error' in loaded))
      return { action: 'ignored', reason: 'help is not enabled' };
    await reply(context, helpText(allowed, config.permission) + configNote);
    return { action: 'replied', reason: 'help' };
  }
  if (command.kind === 'unknown') {
    await reply(
      context,
      `Sorry ${codeSpan(login)}, I do not know the command ${codeSpan(command.name)}.\n\n` +
        helpText(allowed, config.permission) +
        configNote,
    );
    return { action: 'replied', reason: 'unknown command' };
  }

  // build (valid or not): only from someone with the configured permission.
  const repo = context.repo();
  const permission = await commenterPermission(context.octokit, repo, login);
  if (!hasPermission(permission, config.permission)) {
    await reply(
      context,
      `Thanks ${codeSpan(login)} — \`/buildbench build\` needs ${config.permission} access to this repository ` +
        `(you have ${neutralise(permission)}), so I did not start a build. A maintainer can run it.`,
    );
    return { action: 'refused', reason: `permission ${permission}` };
  }

  const target: IssueRef = { ...repo, issue_number: issue.number };
  if ('error' in loaded) {
    await upsertStickyComment(
      context.octokit,
      target,
      [
        '### ⚠️ buildbench: the configuration has an error',
        '',
        `${codeSpan(CONFIG_PATH)} (in this repository, or in the organisation's \`.github\` repository): ` +
          `field ${codeSpan(loaded.error.field)} ${neutralise(loaded.error.message)}.`,
        '',
        'Fix the file on the default branch, then comment `/buildbench build` again. No build was started.',
      ].join('\n'),
    );
    return { action: 'failed', reason: `configuration: ${loaded.error.field}` };
  }
  if (!allowed.includes('build')) {
    await reply(
      context,
      `The \`build\` command is not enabled in this repository (\`commands:\` in ${codeSpan(CONFIG_PATH)}).`,
    );
    return { action: 'replied', reason: 'build is not enabled' };
  }
  if (command.kind === 'invalid') {
    await reply(
      context,
      `I did not start a build: ${neutralise(command.error)}.\n\n${helpText(allowed, config.permission)}`,
    );
    return { action: 'replied', reason: `invalid: ${command.error}` };
  }

  await context.octokit.rest.reactions.createForIssueComment({
    ...repo,
    comment_id: comment.id,
    content: 'rocket',
  });

  let ref = repository.default_branch;
  let forkRef: string | undefined;
  if (issue.pull_request) {
    const { data: pr } = await context.octokit.rest.pulls.get({ ...repo, pull_number: issue.number });
    const fromFork = !pr.head.repo || pr.head.repo.id !== pr.base.repo.id;
    if (fromFork && !config.forks) {
      await upsertStickyComment(
        context.octokit,
        target,
        [
          '### ⏹️ buildbench: not built',
          '',
          `This pull request comes from a fork (${codeSpan(pr.head.label)}), and this repository does not build ` +
            `forks' code (\`forks: false\` in ${codeSpan(CONFIG_PATH)}, the default). A maintainer can set ` +
            '`forks: true` there, or push the branch to this repository and ask again.',
        ].join('\n'),
      );
      return { action: 'refused', reason: 'a fork' };
    }
    if (fromFork) {
      // A fork's branch is not a ref of this repository, and workflow_dispatch takes only branches and tags
      // (not refs/pull/N/head): the workflow runs from the default branch (trusted workflow code) and checks
      // out the pull request's head, given as an input.
      forkRef = `refs/pull/${issue.number}/head`;
    } else {
      ref = pr.head.ref;
    }
  }

  const preliminary = dispatchInputs(command.options, config.defaults, 0, issue.number);
  const queued = [
    '### ⏳ buildbench: build queued',
    '',
    `Asked by ${codeSpan(login)} in [this comment](${comment.html_url}): workflow ` +
      `${codeSpan(`.github/workflows/${config.workflow}`)} on ${codeSpan(forkRef ?? ref)}, with ${optionsText(preliminary)}.`,
    '',
    'This comment is updated when the run starts and when it ends.',
  ].join('\n');
  const sticky = await upsertStickyComment(context.octokit, target, queued);

  const inputs = dispatchInputs(command.options, config.defaults, sticky.id, issue.number);
  if (forkRef) inputs['pull-request-ref'] = forkRef;
  try {
    await context.octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: config.workflow,
      ref,
      inputs,
    });
  } catch (error) {
    const why = dispatchFailureText(error, config.workflow, ref);
    await updateStickyComment(
      context.octokit,
      target,
      sticky.id,
      ['### ❌ buildbench: the build did not start', '', why].join('\n'),
    );
    context.log.warn(
      { status: (error as { status?: number }).status },
      'buildbench: workflow dispatch failed',
    );
    return { action: 'failed', reason: `dispatch ${(error as { status?: number }).status ?? 'error'}` };
  }
  return { action: 'dispatched', ref, inputs, commentId: sticky.id };
}
