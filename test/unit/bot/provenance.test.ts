/**
 * Provenance decides what the App may publish (src/bot/provenance.ts): at completion the App looks the pull
 * request and the person who asked up again, and a fork's build, a run that did not build what was asked, a
 * commenter who lost write access or a failed look-up gets the comment only — no ref, commit or pull request.
 * Probot + nock, the recorded workflow_run payload (test/fixtures/webhooks/workflow_run.completed.buildbench.json:
 * `buildbench #5 comment 1234567`, dispatched on master, created 2026-11-30T10:11:02Z), a successful output
 * folder zipped here. Any call without a mock (a git ref, a blob, a pull request) is recorded as unmatched and
 * fails the test.
 */
import { beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { zipSync } from 'fflate';
import { Probot, ProbotOctokit } from 'probot';

import { DEFAULT_CONFIG, type BotConfig } from '../../../src/bot/config.js';
import { askingComment, FORK_REFUSAL, pullRequestFromFork } from '../../../src/bot/provenance.js';
import {
  BOT_ARTIFACT_NAME,
  BOT_BRANCH,
  onBuildbenchRunCompleted,
  type RunCompletedOutcome,
} from '../../../src/bot/run-completed.js';
import nock, { strictNock } from '../../helpers/nock.js';

const API = 'https://api.github.com';
const REPO = '/repos/octo-org/octo-repo';
const REPO_ID = 300029405;
const BLOB_HOST = 'https://pipelinesghubeus2.actions.githubusercontent.com';
const HEAD_SHA = '4b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4';
const RUN_ID = 289790001;
const ARTIFACT_ID = 4242;
const STICKY_ID = 1234567;
const TOKEN = 'ghs_installation_token_for_the_test';

const read = (rel: string): Buffer => readFileSync(new URL(`../../fixtures/${rel}`, import.meta.url));
const fixture = (): Record<string, unknown> =>
  JSON.parse(read('webhooks/workflow_run.completed.buildbench.json').toString('utf8')) as Record<
    string,
    unknown
  >;
const runOf = (payload: Record<string, unknown>): Record<string, unknown> =>
  payload.workflow_run as Record<string, unknown>;

const SUCCESS = Buffer.from(
  zipSync({
    'result.json': read('golden/success/result.json'),
    'RUNBOOK.md': read('golden/success/RUNBOOK.md'),
    'build.sh': read('golden/action/build.sh'),
    Dockerfile: Buffer.from('FROM debian:bookworm\n'),
  }),
);

const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

let outcomes: RunCompletedOutcome[] = [];
/** The calls of the running test that matched no mock; each test must end with none (test/helpers/nock.ts). */
const unmatched = strictNock();

/** The whole configuration, forks allowed: at completion that changes nothing for a fork. */
const CONFIG: BotConfig = { ...structuredClone(DEFAULT_CONFIG), forks: true, pullRequests: true };

function probot(config: BotConfig = CONFIG): Probot {
  const bot = new Probot({
    appId: 1,
    privateKey,
    githubToken: TOKEN,
    logLevel: 'fatal',
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
  void bot.load((app) => {
    app.on('workflow_run.completed', async (context) => {
      outcomes.push(await onBuildbenchRunCompleted(context, config));
    });
  });
  return bot;
}

async function receive(bot: Probot, payload: Record<string, unknown>): Promise<void> {
  await bot.receive({ id: `delivery-${Math.random()}`, name: 'workflow_run', payload } as Parameters<
    Probot['receive']
  >[0]);
}

const api = (): nock.Scope => nock(API, { reqheaders: { authorization: `token ${TOKEN}` } });

/** The look-ups, in the order the App makes them; each one given is mocked (registered before the others). */
interface Lookups {
  issue?: { status?: number; body?: Record<string, unknown> };
  pull?: { status?: number; body?: Record<string, unknown> };
  comments?: { status?: number; body?: unknown[] };
  permission?: { login: string; status?: number; permission?: string };
}

function lookupMocks(l: Lookups): nock.Scope {
  const scope = api();
  if (l.issue) scope.get(`${REPO}/issues/5`).reply(l.issue.status ?? 200, l.issue.body ?? { number: 5 });
  if (l.pull) scope.get(`${REPO}/pulls/5`).reply(l.pull.status ?? 200, l.pull.body ?? {});
  if (l.comments)
    scope
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100' })
      .reply(l.comments.status ?? 200, l.comments.body ?? []);
  if (l.permission)
    scope.get(`${REPO}/collaborators/${l.permission.login}/permission`).reply(l.permission.status ?? 200, {
      permission: l.permission.permission ?? 'write',
      role_name: l.permission.permission ?? 'write',
    });
  return scope;
}

/** The run's artifact behind GitHub's redirect. */
function artifactMocks(): void {
  api()
    .get(`${REPO}/actions/runs/${RUN_ID}/artifacts`)
    .query({ name: BOT_ARTIFACT_NAME, per_page: '100' })
    .reply(200, {
      total_count: 1,
      artifacts: [
        { id: ARTIFACT_ID, name: BOT_ARTIFACT_NAME, size_in_bytes: SUCCESS.length, expired: false },
      ],
    })
    .get(`${REPO}/actions/artifacts/${ARTIFACT_ID}/zip`)
    .reply(302, '', { location: `${BLOB_HOST}/a.zip?sig=x` });
  nock(BLOB_HOST)
    .get('/a.zip')
    .query({ sig: 'x' })
    .reply(200, SUCCESS, { 'content-type': 'application/zip' });
}

/**
 * The sticky comment found and rewritten: the body the App wrote, without the zero-width spaces the renderer
 * puts into references such as `#5` (that they are inert is text.ts's test).
 */
function stickyMocks(): string[] {
  const bodies: string[] = [];
  api()
    .get(`${REPO}/issues/5/comments`)
    .query({ per_page: '100' })
    .reply(200, [STICKY])
    .patch(`${REPO}/issues/comments/${STICKY_ID}`, (b: { body: string }) => {
      bodies.push(b.body.replace(/\u200b/g, ''));
      return true;
    })
    .reply(200, { id: STICKY_ID, html_url: STICKY.html_url });
  return bodies;
}

const STICKY = {
  id: STICKY_ID,
  html_url: `https://github.com/octo-org/octo-repo/pull/5#issuecomment-${STICKY_ID}`,
  created_at: '2026-11-30T10:11:00Z',
  user: { login: 'buildbench[bot]', type: 'Bot' },
  body: '<!-- buildbench:comment -->\n### buildbench: running',
};
const command = (login: string, created_at: string, body = '/buildbench build'): Record<string, unknown> => ({
  id: 1234000 + created_at.length + login.length,
  created_at,
  user: { login, type: 'User' },
  body,
});

const PR_ISSUE = { body: { number: 5, pull_request: { url: `${API}${REPO}/pulls/5` } } };
const THIS_REPO = { id: REPO_ID, full_name: 'octo-org/octo-repo', fork: false };
const pull = (head: Record<string, unknown> | null, ref = 'master'): Record<string, unknown> => ({
  number: 5,
  head: { ref, sha: HEAD_SHA, label: `x:${ref}`, repo: head },
  base: { ref: 'main', repo: THIS_REPO },
});

/** No write to git data or pull requests was attempted (each would be an unmatched call). */
function expectNoWrites(): void {
  expect(unmatched.filter((u) => /\/git\/|\/pulls/.test(u))).toEqual([]);
  expect(unmatched).toEqual([]);
}

beforeEach(() => {
  outcomes = [];
});

describe('a fork’s build is never published', () => {
  it('a fork’s pull request, forks: true, SUCCESS: the comment says why, and no ref, commit or pull request is written', async () => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull({ id: 999, full_name: 'octo-fork/octo-repo', fork: true }, 'wip') },
    });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain('✅ buildbench: SUCCESS');
    expect(comment[0]).toContain(`No pull request: ${FORK_REFUSAL}.`);
    expect(comment[0]).toContain(
      "this build ran code from a fork, and the App never pushes a branch, a commit or a pull request for a fork's code, whatever .github/buildbench.yml says",
    );
    expect(comment[0]).not.toContain('**Pull request**');
    expect(outcomes[0]).toMatchObject({ kind: 'reported', status: 'success', noPullRequest: FORK_REFUSAL });
    expect(outcomes[0]).not.toHaveProperty('pullRequest');
  });

  it('a pull request whose head repository was deleted counts as a fork’s', async () => {
    lookupMocks({ issue: PR_ISSUE, pull: { body: pull(null, 'wip') } });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain(`No pull request: ${FORK_REFUSAL}.`);
  });

  it('the dispatched run’s own head repository never loosens it: this repository there, a fork in the pull request', async () => {
    const payload = fixture();
    // The run as GitHub sends it for the App's dispatch: head_repository is this repository.
    expect((runOf(payload).head_repository as { full_name: string }).full_name).toBe('octo-org/octo-repo');
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull({ id: REPO_ID + 1, full_name: 'octo-org/octo-repo', fork: false }, 'master') },
    });
    artifactMocks();
    stickyMocks();
    await receive(probot(), payload);
    expectNoWrites();
    expect(outcomes[0]).toMatchObject({ noPullRequest: FORK_REFUSAL });
  });
});

describe('a pull request of this repository', () => {
  it('built on its head branch, asked by a writer: the recipe is committed and the pull request opened, as before', async () => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull(THIS_REPO, 'master') },
      comments: {
        body: [
          command('octocat', '2026-11-30T10:10:58Z'),
          STICKY,
          command('mallory', '2026-11-30T10:20:00Z'), // after the run was created: not who asked
        ],
      },
      permission: { login: 'octocat', permission: 'maintain' },
    });
    artifactMocks();
    const refs: unknown[] = [];
    api()
      .get(/\/git\/ref\/heads(?:\/|%2F)buildbench(?:\/|%2F)recipe$/)
      .reply(404, { message: 'Not Found' })
      .get(`${REPO}/git/commits/${HEAD_SHA}`)
      .reply(200, { sha: HEAD_SHA, tree: { sha: 'base-tree' } })
      .post(`${REPO}/git/blobs`)
      .times(3)
      .reply(201, { sha: 'blob' })
      .post(`${REPO}/git/trees`)
      .reply(201, { sha: 'tree' })
      .post(`${REPO}/git/commits`)
      .reply(201, { sha: 'commit-1' })
      .post(`${REPO}/git/refs`, (b: unknown) => {
        refs.push(b);
        return true;
      })
      .reply(201, {})
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/pulls`)
      .reply(201, { number: 9, html_url: 'https://github.com/octo-org/octo-repo/pull/9' });
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expect(refs).toEqual([{ ref: `refs/heads/${BOT_BRANCH}`, sha: 'commit-1' }]);
    expect(comment[0]).toContain('**Pull request** (created): https://github.com/octo-org/octo-repo/pull/9');
    expect(outcomes[0]).toMatchObject({ pullRequest: { operation: 'created' } });
  });

  it('a run that did not build the pull request’s head branch publishes nothing', async () => {
    lookupMocks({ issue: PR_ISSUE, pull: { body: pull(THIS_REPO, 'feature') } });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain(
      'No pull request: the run did not build the head branch of pull request #5, which is what the App dispatches for it, so it published nothing.',
    );
  });
});

describe('the person who asked, looked up again', () => {
  const asked = (permission: string, config: BotConfig = CONFIG): Promise<string[]> => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull(THIS_REPO) },
      comments: { body: [command('octocat', '2026-11-30T10:10:58Z'), STICKY] },
      permission: { login: 'octocat', permission },
    });
    artifactMocks();
    const comment = stickyMocks();
    return receive(probot(config), fixture()).then(() => comment);
  };

  it('lost write access since: the comment says so, nothing is published', async () => {
    const comment = await asked('read');
    expectNoWrites();
    expect(comment[0]).toContain(
      'No pull request: octocat, who asked for this build, now has read access to this repository, not write, so the App published nothing.',
    );
  });

  it('has write where the configuration asks for maintain: nothing is published', async () => {
    const comment = await asked('write', { ...CONFIG, permission: 'maintain' });
    expectNoWrites();
    expect(comment[0]).toContain('now has write access to this repository, not maintain');
  });

  it('is no collaborator any more (404): nothing is published', async () => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull(THIS_REPO) },
      comments: { body: [command('octocat', '2026-11-30T10:10:58Z'), STICKY] },
    });
    api().get(`${REPO}/collaborators/octocat/permission`).reply(404, { message: 'Not Found' });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain('octocat, who asked for this build, now has none access');
  });

  it('the status comment named by the run title is gone: nothing is published', async () => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull(THIS_REPO) },
      comments: { body: [command('octocat', '2026-11-30T10:10:58Z')] },
    });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain(
      "No pull request: the status comment this run reports to (its id is in the run's title) is no longer on #5",
    );
  });

  it('no person’s build command comes before the run (a bot’s, a quoted one, a later one do not count)', async () => {
    lookupMocks({
      issue: PR_ISSUE,
      pull: { body: pull(THIS_REPO) },
      comments: {
        body: [
          { ...command('ci-bot', '2026-11-30T10:10:00Z'), user: { login: 'ci-bot', type: 'Bot' } },
          command('octocat', '2026-11-30T10:10:30Z', '> /buildbench build\n\nwhy?'),
          STICKY,
          command('octocat', '2026-11-30T10:11:03Z'),
        ],
      },
    });
    artifactMocks();
    const comment = stickyMocks();
    await receive(probot(), fixture());
    expectNoWrites();
    expect(comment[0]).toContain(
      'No pull request: no build command (/buildbench build) by a person on #5 comes before this run',
    );
  });
});

describe('a look-up that fails fails closed', () => {
  it.each([
    ['the issue', { issue: { status: 500 } }, 'the App could not look up issue #5 (GitHub answered 500)'],
    [
      'the pull request',
      { issue: PR_ISSUE, pull: { status: 502 } },
      'the App could not look up pull request #5 (GitHub answered 502)',
    ],
    [
      'the comments',
      { issue: PR_ISSUE, pull: { body: pull(THIS_REPO) }, comments: { status: 503 } },
      'the App could not look up the comments of #5 (GitHub answered 503)',
    ],
    [
      'the permission',
      {
        issue: PR_ISSUE,
        pull: { body: pull(THIS_REPO) },
        comments: { body: [command('octocat', '2026-11-30T10:10:58Z'), STICKY] },
        permission: { login: 'octocat', status: 500 },
      },
      'the App could not look up the permission of octocat (GitHub answered 500)',
    ],
    ['a deleted issue', { issue: { status: 410 } }, 'issue #5 is gone (GitHub answered 410)'],
  ] as [string, Lookups, string][])(
    '%s: no pull request, the comment names the look-up',
    async (_name, l, why) => {
      lookupMocks(l);
      artifactMocks();
      const comment = stickyMocks();
      await receive(probot(), fixture());
      expectNoWrites();
      expect(comment[0]).toContain(`No pull request: ${why}`);
      expect(outcomes[0]).toMatchObject({ kind: 'reported', noPullRequest: expect.stringContaining(why) });
    },
  );

  it('an issue (not a pull request) built on another branch than the default one publishes nothing', async () => {
    lookupMocks({ issue: {} });
    artifactMocks();
    const comment = stickyMocks();
    const payload = fixture();
    runOf(payload).head_branch = 'some-branch';
    await receive(probot(), payload);
    expectNoWrites();
    expect(comment[0]).toContain('the run did not build the default branch');
  });
});

describe('pullRequestFromFork and askingComment', () => {
  const here = { id: REPO_ID, fullName: 'octo-org/octo-repo' };
  it('a head is this repository only when id and full name are this repository’s', () => {
    const pr = (head: Record<string, unknown> | null) => ({
      head: { repo: head },
      base: { repo: THIS_REPO },
    });
    expect(pullRequestFromFork(pr(THIS_REPO), here)).toBe(false);
    // A repository that is itself a fork of another: head.repo.fork is true, but it is this repository.
    expect(pullRequestFromFork(pr({ ...THIS_REPO, fork: true }), here)).toBe(false);
    expect(pullRequestFromFork(pr({ ...THIS_REPO, full_name: 'Octo-Org/Octo-Repo' }), here)).toBe(false);
    expect(pullRequestFromFork(pr(null), here)).toBe(true);
    expect(pullRequestFromFork(pr({ id: 1, full_name: 'octo-fork/octo-repo' }), here)).toBe(true);
    expect(pullRequestFromFork(pr({ id: REPO_ID, full_name: 'octo-fork/octo-repo' }), here)).toBe(true);
    expect(pullRequestFromFork(pr({ full_name: 'octo-org/octo-repo' }), here)).toBe(true);
    expect(pullRequestFromFork(pr(THIS_REPO), { fullName: 'other/repo' })).toBe(true);
  });

  it('the asker is the latest person’s build command no later than the run', () => {
    const a = command('alice', '2026-11-30T10:00:00Z');
    const b = command('bob', '2026-11-30T10:05:00Z');
    const help = command('carol', '2026-11-30T10:06:00Z', '/buildbench help');
    const late = command('dave', '2026-11-30T11:00:00Z');
    const comments = [a, b, help, late] as unknown as Parameters<typeof askingComment>[0];
    expect(askingComment(comments, '2026-11-30T10:10:00Z')?.user?.login).toBe('bob');
    expect(askingComment(comments, '2026-11-30T10:01:00Z')?.user?.login).toBe('alice');
    expect(askingComment(comments, '2026-11-30T09:00:00Z')).toBeUndefined();
  });
});
