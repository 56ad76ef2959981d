/**
 * The Action entry (src/bot/action.ts) runs the same App on the job's own event: a recorded issue_comment
 * payload from GITHUB_EVENT_PATH, the token from GITHUB_TOKEN, the API at GITHUB_API_URL — here the local
 * fake GitHub API, which accepts only that token.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProbotOctokit } from 'probot';

import { readBotActionSettings, runBotAction } from '../../../src/bot/action.js';
import { startFakeGitHubApi, type FakeGitHubApi } from '../../fakes/fake-github-api.js';

const TOKEN = 'ghs_the_jobs_token';
const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

let fake: FakeGitHubApi;
beforeAll(async () => {
  fake = await startFakeGitHubApi({ tokens: [TOKEN] });
});
afterAll(async () => {
  await fake.close();
});

function jobEnv(payload: unknown, runId: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(tmpdir(), 'bot-action-'));
  writeFileSync(path.join(dir, 'event.json'), JSON.stringify(payload));
  return {
    GITHUB_EVENT_NAME: 'issue_comment',
    GITHUB_EVENT_PATH: path.join(dir, 'event.json'),
    GITHUB_RUN_ID: runId,
    GITHUB_TOKEN: TOKEN,
    GITHUB_API_URL: fake.url,
  };
}

describe('the App inside an Actions job', () => {
  it('answers /buildbench help on the issue with the job token, and nothing else', async () => {
    const payload = fixture('issue_comment.created.issue.json');
    (payload.comment as Record<string, unknown>).body = '/buildbench help';
    delete payload.installation;
    const { owner, name } = payload.repository as { owner: { login: string }; name: string };
    const issue = (payload.issue as { number: number }).number;

    await runBotAction(readBotActionSettings(jobEnv(payload, '101')), { Octokit, logLevel: 'error' });

    expect(fake.calls.length).toBeGreaterThan(0);
    for (const call of fake.calls) expect(call.authorization).toBe(`token ${TOKEN}`);
    const replies = [...fake.comments.values()].filter(
      (c) => c.issue_number === issue && c.user.type === 'Bot',
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toMatch(/build/);
    expect(fake.dispatches).toEqual([]);
    expect(fake.callsTo('POST', `/repos/${owner.login}/${name}/issues/${issue}/comments`)).toHaveLength(1);
  });

  it('ignores an edited comment (the event carries action: edited)', async () => {
    const before = fake.calls.length;
    const payload = fixture('issue_comment.edited.json');
    await runBotAction(readBotActionSettings(jobEnv(payload, '102')), { Octokit, logLevel: 'error' });
    expect(fake.calls.slice(before)).toEqual([]);
  });
});
