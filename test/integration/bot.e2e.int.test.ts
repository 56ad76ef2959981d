/**
 * The GitHub App end to end: the real server (`src/bot/server.ts`, started as a child process exactly as
 * `npm run bot` starts it) listens on 127.0.0.1 with a freshly generated App key and a webhook secret, and
 * talks to a local fake GitHub API (test/fakes/fake-github-api.ts, reached through `GHE_HOST`). Deliveries
 * go over real HTTP, signed as GitHub signs them (`X-Hub-Signature-256`: HMAC-SHA256 of the body). The test
 * reads the fake's record of the calls the bot made.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

import { startFakeGitHubApi, type FakeGitHubApi } from '../fakes/fake-github-api.js';
import {
  APP_PRIVATE_KEY as privateKey,
  botServerEnv as serverEnv,
  ROOT,
  signBody,
  spawnBotServer as startServer,
  startBotServer,
  waitFor,
  type RunningServer,
} from '../helpers/bot-server.js';

const SECRET = 'e2e-webhook-secret';
const APP_ID = 4711;
const INSTALLATION_ID = 31337;
const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const PR_HEAD = 'fix-readme-spelling';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/webhooks', name), 'utf8')) as Record<
    string,
    unknown
  >;
const golden = (rel: string): Buffer => readFileSync(path.join(ROOT, 'test/fixtures/golden', rel));

/** How long to wait for a handler's effects: none after a 200 (Probot answers once handlers are done). */
const patience = (status: number): number => (status === 202 ? 60_000 : 0);

const sign = (body: string, secret = SECRET): string => signBody(body, secret);

let fake: FakeGitHubApi;
let server: RunningServer;

const deliver: RunningServer['deliver'] = (...args) => server.deliver(...args);

/** The recorded issue_comment payload of a PR comment, in the fake's repository, from an installation. */
function commentPayload(body: string): Record<string, unknown> {
  const payload = fixture('issue_comment.created.pull_request.json');
  (payload.comment as Record<string, unknown>).body = body;
  payload.installation = { id: INSTALLATION_ID };
  return payload;
}

/** The recorded workflow_run payload of the buildbench workflow, moved to the fake's repository. */
function runPayload(runId: number, headSha: string, stickyId: number): Record<string, unknown> {
  const payload = fixture('workflow_run.completed.buildbench.json');
  const run = payload.workflow_run as Record<string, unknown>;
  const repository = {
    ...(payload.repository as Record<string, unknown>),
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { login: OWNER, type: 'User' },
    html_url: `https://github.com/${OWNER}/${REPO}`,
    default_branch: 'master',
  };
  Object.assign(run, {
    id: runId,
    html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${runId}`,
    head_sha: headSha,
    head_branch: PR_HEAD,
    created_at: new Date().toISOString(),
    display_title: `buildbench #1 comment ${stickyId}`,
    repository,
    head_repository: repository,
  });
  payload.repository = repository;
  payload.installation = { id: INSTALLATION_ID };
  return payload;
}

/** The successful run's output folder, zipped as upload-artifact would (golden files a real run wrote). */
function successZip(): Uint8Array {
  return zipSync({
    'result.json': golden('success/result.json'),
    'RUNBOOK.md': golden('success/RUNBOOK.md'),
    'build.sh': golden('action/build.sh'),
    Dockerfile: Buffer.from('FROM debian:bookworm\nCOPY . /src\nRUN bash /src/buildbench/build.sh\n'),
  });
}

beforeAll(async () => {
  fake = await startFakeGitHubApi({ appId: APP_ID });
  server = await startBotServer({ appId: APP_ID, secret: SECRET, githubHost: fake.host });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe('the bot server over real HTTP', () => {
  it('rejects a forged delivery and an unsigned one with 400, and calls no API', async () => {
    const payload = commentPayload('/buildbench build');
    const forged = await deliver('issue_comment', 'forged-1', payload, (body) =>
      sign(body, 'not-the-secret'),
    );
    expect(forged.status).toBe(400);
    expect(forged.text).toMatch(/signature does not match/);
    const tampered = await deliver('issue_comment', 'forged-2', payload, () =>
      sign(JSON.stringify({ ...payload, action: 'deleted' })),
    );
    expect(tampered.status).toBe(400);
    const unsigned = await deliver('issue_comment', 'unsigned-1', payload, null);
    expect(unsigned.status).toBe(400);
    expect(unsigned.text).toMatch(/x-hub-signature-256/);
    // What Probot signs against when no secret is configured: the server refuses to start without one.
    const development = await deliver('issue_comment', 'forged-3', payload, (body) =>
      sign(body, 'development'),
    );
    expect(development.status).toBe(400);
    expect(fake.calls).toEqual([]);
  });

  let stickyId = 0;

  it('/buildbench build from a writer on a PR: reaction, one status comment, the dispatch with the PR head and the inputs', async () => {
    fake.repo(OWNER, REPO, { default_branch: 'master' });
    fake.seedFiles(OWNER, REPO, {
      'README.md': '# Hello World\n',
      '.github/buildbench.yml': 'defaults:\n  maxTurns: 7\n',
    });
    fake.seedFiles(OWNER, REPO, { 'README.md': '# Hello World\n' }, PR_HEAD);
    fake.addPull(OWNER, REPO, { number: 1, head: PR_HEAD, base: 'master', user: OWNER });
    fake.addComment(OWNER, REPO, 1, '/buildbench build --strategy rules', { login: OWNER, type: 'User' });
    fake.setPermission(OWNER, REPO, OWNER, 'write');

    const res = await deliver(
      'issue_comment',
      'delivery-build-1',
      commentPayload('/buildbench build --strategy rules'),
    );
    expect(res.status).toBeLessThan(300);
    await waitFor(
      'the dispatch',
      () => (fake.dispatches.length > 0 ? true : undefined),
      patience(res.status),
    );

    expect(fake.calls[0]).toMatchObject({
      method: 'POST',
      path: `/app/installations/${INSTALLATION_ID}/access_tokens`,
    });
    const routes = fake.routes();
    const order = [
      `GET /repos/${OWNER}/${REPO}/collaborators/${OWNER}/permission`,
      'POST /repos/Codertocat/Hello-World/issues/comments/492700400/reactions',
      `POST /repos/${OWNER}/${REPO}/issues/1/comments`,
      `POST /repos/${OWNER}/${REPO}/actions/workflows/buildbench.yml/dispatches`,
    ];
    const positions = order.map((r) => routes.indexOf(r));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // The configuration was read from the repository over HTTP.
    expect(routes).toContain(`GET /repos/${OWNER}/${REPO}/contents/.github/buildbench.yml`);
    // Every API call carried the installation token the fake issued, never the JWT.
    for (const call of fake.calls.slice(1)) expect(call.authorization).toMatch(/^token ghs_fake\d+$/);

    expect(fake.reactions).toEqual([{ commentId: 492700400, content: expect.any(String) }]);
    const bot = [...fake.comments.values()].filter((c) => c.user.type === 'Bot' && c.issue_number === 1);
    expect(bot).toHaveLength(1);
    stickyId = bot[0]!.id;
    expect(bot[0]!.body).toContain('<!-- buildbench:status -->');
    expect(fake.dispatches).toEqual([
      {
        owner: OWNER,
        repo: REPO,
        workflow: 'buildbench.yml',
        ref: PR_HEAD,
        inputs: expect.objectContaining({
          'comment-id': String(stickyId),
          issue: '1',
          strategy: 'rules',
          'max-turns': '7',
        }),
      },
    ]);
  });

  it('the same delivery id again acts once: no further call', async () => {
    const before = fake.calls.length;
    const res = await deliver(
      'issue_comment',
      'delivery-build-1',
      commentPayload('/buildbench build --strategy rules'),
    );
    // Probot answers after the handlers have run (or 202 after 9 s): a settle time covers the 202 case.
    expect(res.status).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 1500));
    expect(fake.calls.slice(before)).toEqual([]);
    expect(fake.dispatches).toHaveLength(1);
    expect(fake.reactions).toHaveLength(1);
  });

  it('the dispatched run completes: its artifact is read, the status comment updated, the recipe PR created; a second run updates the PR', async () => {
    const headSha = fake.branchSha(OWNER, REPO, PR_HEAD)!;
    fake.setArtifacts(1001, [{ id: 9001, name: 'buildbench', zip: successZip() }]);
    const first = await deliver('workflow_run', 'delivery-run-1', runPayload(1001, headSha, stickyId));
    expect(first.status).toBeLessThan(300);
    // 200: Probot answered after the handler finished; 202: still working after 9 s (writes are paced).
    await waitFor(
      'the recipe PR',
      () => (fake.pulls.some((p) => p.head.ref === 'buildbench/recipe') ? true : undefined),
      patience(first.status),
    );
    await waitFor(
      'the status comment update',
      () =>
        fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/issues/comments/${stickyId}`).length > 0
          ? true
          : undefined,
      patience(first.status),
    );

    const recipe = fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe');
    expect(recipe).toHaveLength(1);
    expect(recipe[0]!.base.ref).toBe(PR_HEAD);
    expect(fake.fileAt(OWNER, REPO, 'buildbench/recipe', 'README.md')).toBe('# Hello World\n');
    expect(fake.fileAt(OWNER, REPO, 'buildbench/recipe', 'buildbench/build.sh')).toBe(
      golden('action/build.sh').toString('utf8'),
    );
    const sticky = fake.comments.get(stickyId)!;
    expect(sticky.body).toContain('<!-- buildbench:status -->');
    expect(sticky.body).toContain(`https://github.com/${OWNER}/${REPO}/pull/${recipe[0]!.number}`);
    expect(fake.callsTo('GET', `/_fake/artifacts/9001`)).toHaveLength(1);
    expect(fake.callsTo('POST', `/repos/${OWNER}/${REPO}/pulls`)).toHaveLength(1);
    // Still one status comment on the PR.
    expect(
      [...fake.comments.values()].filter((c) => c.issue_number === 1 && c.body.includes('buildbench:status')),
    ).toHaveLength(1);

    const patchesBefore = fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/issues/comments/${stickyId}`).length;
    fake.setArtifacts(1002, [{ id: 9002, name: 'buildbench', zip: successZip() }]);
    const second = await deliver('workflow_run', 'delivery-run-2', runPayload(1002, headSha, stickyId));
    expect(second.status).toBeLessThan(300);
    await waitFor(
      'the PR update',
      () =>
        fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/pulls/${recipe[0]!.number}`).length > 0
          ? true
          : undefined,
      patience(second.status),
    );
    await waitFor(
      'the second status comment update',
      () =>
        fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/issues/comments/${stickyId}`).length > patchesBefore
          ? true
          : undefined,
      patience(second.status),
    );
    expect(fake.callsTo('POST', `/repos/${OWNER}/${REPO}/pulls`)).toHaveLength(1);
    expect(fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe')).toHaveLength(1);
    expect(recipe[0]!.body).toContain('/actions/runs/1002');
  });
});

describe('the bot server refuses to start on a bad environment', () => {
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['no APP_ID', { APP_ID: undefined }, /^buildbench bot: APP_ID is not set/],
    ['APP_ID not a number', { APP_ID: 'abc' }, /^buildbench bot: APP_ID must be a positive integer/],
    ['no private key', { PRIVATE_KEY: undefined }, /^buildbench bot: PRIVATE_KEY is not set/],
    [
      'PRIVATE_KEY not a key',
      { PRIVATE_KEY: 'not a key' },
      /^buildbench bot: PRIVATE_KEY is not a PEM private key/,
    ],
    [
      'PRIVATE_KEY_PATH unreadable',
      { PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: '/nonexistent/key.pem' },
      /^buildbench bot: PRIVATE_KEY_PATH: cannot read \/nonexistent\/key.pem \(ENOENT\)/,
    ],
    ['no WEBHOOK_SECRET', { WEBHOOK_SECRET: undefined }, /^buildbench bot: WEBHOOK_SECRET is not set/],
    ['PORT out of range', { PORT: '99999' }, /^buildbench bot: PORT must be a port number/],
  ];
  it(`each of: ${cases.map(([name]) => name).join(', ')} → one line naming the variable, exit 2`, async () => {
    const results = await Promise.all(
      cases.map(async ([name, override]) => {
        const started = startServer(
          serverEnv({
            APP_ID: '1',
            PRIVATE_KEY: privateKey,
            WEBHOOK_SECRET: 's',
            PORT: '1',
            HOST: '127.0.0.1',
            ...override,
          }),
        );
        return { name, code: await started.exited, out: started.output().trim() };
      }),
    );
    for (const [i, [name, , message]] of cases.entries()) {
      const r = results[i]!;
      expect({ name, code: r.code }).toEqual({ name, code: 2 });
      expect(r.out).toMatch(message);
      expect(r.out.split('\n')).toHaveLength(1);
    }
  });
});
