/**
 * The GitHub App without a server: run inside a GitHub Actions job triggered by the events the App listens
 * to (issue_comment, workflow_run, check_run), it hands the job's own event to the same app function the
 * server runs. The event's name is `GITHUB_EVENT_NAME`, its payload the file `GITHUB_EVENT_PATH`, and the
 * delivery id `GITHUB_RUN_ID` (so a re-run of the job is one delivery); `probot.receive` routes it as a
 * webhook would be (`issue_comment` with `action: created` → `issue_comment.created`). There is no signature
 * to check: the event comes from the runner, not over the network.
 *
 * Authentication is a token, Probot's `githubToken` option: `GITHUB_TOKEN` in the step's environment —
 * `secrets.GITHUB_TOKEN`, or better an App installation token from actions/create-github-app-token, since
 * GitHub starts no workflow (the recipe PR's CI) for a pull request pushed with `secrets.GITHUB_TOKEN`. The
 * API root is `GITHUB_API_URL` (set by the runner; GitHub Enterprise Server too).
 *
 * Probot's own adapter (`@probot/adapter-github-actions`) pins probot 13 and this project uses probot 14,
 * so this small entry does its job. Run it with `node lib/bot/action.js` (after `npm ci`).
 */
import { readFileSync } from 'node:fs';

import * as core from '@actions/core';
import { Probot, ProbotOctokit } from 'probot';

import { ConfigError, errorMessage } from '../base/errors.js';
import { isProcessEntry } from '../base/entry.js';
import { buildbenchApp } from './app.js';

/** The events bot/app.yml subscribes to: anything else is a workflow wired to the wrong trigger. */
export const BOT_EVENTS = ['issue_comment', 'workflow_run', 'check_run'] as const;

export interface BotActionEvent {
  id: string;
  name: (typeof BOT_EVENTS)[number];
  payload: Record<string, unknown>;
}

export interface BotActionSettings {
  event: BotActionEvent;
  token: string;
  baseUrl: string;
}

/** The job's event and token from the runner's environment; a ConfigError names what is missing or wrong. */
export function readBotActionSettings(env: NodeJS.ProcessEnv): BotActionSettings {
  const name = env.GITHUB_EVENT_NAME ?? '';
  if (name === '')
    throw new ConfigError('GITHUB_EVENT_NAME is not set (run this inside a GitHub Actions job)');
  if (!(BOT_EVENTS as readonly string[]).includes(name))
    throw new ConfigError(
      `GITHUB_EVENT_NAME is ${JSON.stringify(name)}: the buildbench App handles ${BOT_EVENTS.join(', ')} (the workflow's "on:" should list only those)`,
    );
  const eventPath = env.GITHUB_EVENT_PATH ?? '';
  if (eventPath === '')
    throw new ConfigError('GITHUB_EVENT_PATH is not set (run this inside a GitHub Actions job)');
  let payload: unknown;
  try {
    payload = JSON.parse(readFileSync(eventPath, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `GITHUB_EVENT_PATH: cannot read the event JSON at ${eventPath} (${errorMessage(error)})`,
    );
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw new ConfigError(`GITHUB_EVENT_PATH: ${eventPath} does not hold an event object`);
  const id = env.GITHUB_RUN_ID ?? '';
  if (!/^[0-9]+$/.test(id))
    throw new ConfigError('GITHUB_RUN_ID is not set (run this inside a GitHub Actions job)');
  const token = env.GITHUB_TOKEN ?? '';
  if (token === '')
    throw new ConfigError(
      'GITHUB_TOKEN is not set: pass `env: GITHUB_TOKEN: ${{ steps.app-token.outputs.token }}` (actions/create-github-app-token) or `${{ secrets.GITHUB_TOKEN }}`',
    );
  const baseUrl = (env.GITHUB_API_URL ?? '').replace(/\/+$/, '') || 'https://api.github.com';
  return {
    event: { id, name: name as BotActionEvent['name'], payload: payload as Record<string, unknown> },
    token,
    baseUrl,
  };
}

/** Runs the App on the job's event; resolves when every handler is done, rejects with what failed. */
export async function runBotAction(
  settings: BotActionSettings,
  options: { Octokit?: typeof ProbotOctokit; logLevel?: 'info' | 'warn' | 'debug' | 'error' } = {},
): Promise<void> {
  core.setSecret(settings.token);
  const probot = new Probot({
    githubToken: settings.token,
    baseUrl: settings.baseUrl,
    logLevel: options.logLevel ?? 'info',
    ...(options.Octokit ? { Octokit: options.Octokit } : {}),
  });
  await probot.load((app: Probot) => buildbenchApp(app));
  await probot.receive({
    id: settings.event.id,
    name: settings.event.name,
    payload: settings.event.payload,
  } as Parameters<Probot['receive']>[0]);
}

/** The step: one `::error::` line and a failed step on any error, never a stack trace. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    await runBotAction(readBotActionSettings(env));
  } catch (error) {
    const errors = error instanceof AggregateError ? error.errors : [error];
    core.setFailed(errors.map((e) => errorMessage(e)).join('; '));
  }
}

if (isProcessEntry(import.meta.url)) await main();
