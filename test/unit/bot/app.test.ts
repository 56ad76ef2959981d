/**
 * The App's routing and the commands, end to end inside Probot: a webhook payload in (test/fixtures/webhooks/),
 * the GitHub REST calls out, answered by nock. Every test ends with no pending mock, and any call no test
 * expected fails the test (net connect is disabled and each unmatched request is recorded).
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Probot, ProbotOctokit } from 'probot';

import nock from '../../helpers/nock.js';
import { buildbenchApp, createBuildbenchApp, type BotDeps } from '../../../src/bot/app.js';
import { STATUS_MARKER } from '../../../src/bot/sticky.js';

const API = 'https://api.github.com';
const REPO = '/repos/Codertocat/Hello-World';
const INSTALLATION = 2311213;
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

type Json = Record<string, unknown>;
function fixture(name: string): Json {
  return JSON.parse(
    readFileSync(path.join(import.meta.dirname, '../../fixtures/webhooks', name), 'utf8'),
  ) as Json;
}

/** The issue_comment payload with another comment body (and, optionally, another sender). */
function commentEvent(name: string, body: string, sender?: Json): Json {
  const payload = fixture(name);
  (payload.comment as Json).body = body;
  if (sender) {
    payload.sender = { ...(payload.sender as Json), ...sender };
    (payload.comment as Json).user = { ...((payload.comment as Json).user as Json), ...sender };
  }
  return payload;
}

let unmatched: string[] = [];
const onNoMatch = (req: { method?: string; path?: string }) => {
  unmatched.push(`${req.method ?? '?'} ${req.path ?? '?'}`);
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.emitter.on('no match', onNoMatch);
});
afterAll(() => {
  nock.emitter.removeListener('no match', onNoMatch);
  nock.enableNetConnect();
  // nock patches fetch process-wide: undo it, or the next test file's nock never sees a request.
  nock.restore();
});
beforeEach(() => {
  unmatched = [];
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
  expect(unmatched).toEqual([]);
});

function probot(deps?: Partial<BotDeps>): Probot {
  const p = new Probot({
    appId: 1,
    privateKey,
    logLevel: 'fatal',
    // A function, not an object: Probot's own defaults would otherwise put its throttle options back
    // (a write then waits a second, as on GitHub).
    Octokit: ProbotOctokit.defaults((options: object) => ({
      ...options,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
  void p.load(deps ? createBuildbenchApp(deps) : buildbenchApp);
  return p;
}

let delivery = 0;
async function receive(p: Probot, name: string, payload: Json, id = `delivery-${++delivery}`): Promise<void> {
  await p.receive({ id, name, payload } as never);
}

const CONFIG = /\/contents\/\.github(%2F|\/)buildbench\.yml/;
function token(scope: nock.Scope): nock.Scope {
  return scope
    .post(`/app/installations/${INSTALLATION}/access_tokens`)
    .reply(201, { token: 'ghs_test', expires_at: '2099-01-01T00:00:00Z', permissions: {} });
}
function noConfig(scope: nock.Scope): nock.Scope {
  return scope
    .get(new RegExp(`^${REPO}${CONFIG.source}`))
    .reply(404)
    .get(new RegExp(`^/repos/Codertocat/\\.github${CONFIG.source}`))
    .reply(404);
}
function repoConfig(scope: nock.Scope, yamlText: string): nock.Scope {
  return scope
    .get(new RegExp(`^${REPO}${CONFIG.source}`))
    .reply(200, yamlText, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });
}
function permission(scope: nock.Scope, level: string, role = level): nock.Scope {
  return scope
    .get(`${REPO}/collaborators/Codertocat/permission`)
    .reply(200, { permission: level, role_name: role, user: { login: 'Codertocat' } });
}
const BOT = { login: 'buildbench[bot]', type: 'Bot' };

function pull(fork: boolean): Json {
  const base = { id: 186853002, full_name: 'Codertocat/Hello-World' };
  return {
    number: 1,
    head: {
      ref: 'fix-readme',
      sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      label: fork ? 'someone:fix-readme' : 'Codertocat:fix-readme',
      repo: fork ? { id: 99, full_name: 'someone/Hello-World' } : base,
    },
    base: {
      ref: 'master',
      sha: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      label: 'Codertocat:master',
      repo: base,
    },
  };
}

describe('issue_comment.created: /buildbench build', () => {
  it('from a writer on an issue: reaction, the sticky comment, a dispatch on the default branch with its id', async () => {
    let sticky = '';
    let dispatch: Json = {};
    let reaction: Json = {};
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`, (b: Json) => ((reaction = b), true))
      .reply(201, { id: 1, content: 'rocket' })
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [{ id: 5, body: 'a person', user: { type: 'User' }, html_url: 'x' }])
      .post(`${REPO}/issues/1/comments`, (b: Json) => ((sticky = String(b.body)), true))
      .reply(201, {
        id: 777,
        html_url: 'https://github.com/Codertocat/Hello-World/issues/1#issuecomment-777',
      })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`, (b: Json) => ((dispatch = b), true))
      .reply(204);
    await receive(
      probot(),
      'issue_comment',
      commentEvent(
        'issue_comment.created.issue.json',
        'Looks good.\n/buildbench build --strategy rules --max-turns 5',
      ),
    );
    expect(reaction).toEqual({ content: 'rocket' });
    expect(sticky.startsWith(STATUS_MARKER)).toBe(true);
    expect(sticky).toContain('build queued');
    expect(sticky).toContain('`--strategy rules`');
    expect(sticky).toContain('`--max-turns 5`');
    expect(sticky).toContain('`.github/workflows/buildbench.yml` on `master`');
    expect(dispatch).toEqual({
      ref: 'master',
      inputs: { 'comment-id': '777', issue: '1', strategy: 'rules', 'max-turns': '5' },
    });
  });

  it("from a writer on a PR: the PR's head ref, the configuration's workflow and defaults, the sticky comment updated", async () => {
    let sticky = '';
    let dispatch: Json = {};
    const scope = nock(API);
    token(scope);
    repoConfig(scope, 'workflow: bot.yml\ndefaults:\n  max-turns: 7\n  model: openai:gpt-4o-mini\n');
    permission(scope, 'write', 'maintain');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/pulls/1`)
      .reply(200, pull(false))
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [
        { id: 4, body: `> ${STATUS_MARKER} quoted by a person`, user: { type: 'User' }, html_url: 'a' },
        { id: 6, body: `${STATUS_MARKER}\nold`, user: { type: 'Bot' }, html_url: 'b' },
      ])
      .patch(`${REPO}/issues/comments/6`, (b: Json) => ((sticky = String(b.body)), true))
      .reply(200, { id: 6, html_url: 'b' })
      .post(`${REPO}/actions/workflows/bot.yml/dispatches`, (b: Json) => ((dispatch = b), true))
      .reply(204);
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.pull_request.json', '@buildbench build --max-turns 3'),
    );
    expect(dispatch).toEqual({
      ref: 'fix-readme',
      inputs: { 'comment-id': '6', issue: '1', model: 'openai:gpt-4o-mini', 'max-turns': '3' },
    });
    expect(sticky).toContain('on `fix-readme`');
  });

  it("a fork's PR with forks false: the sticky comment says why, no dispatch", async () => {
    let sticky = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'admin');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/pulls/1`)
      .reply(200, pull(true))
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`, (b: Json) => ((sticky = String(b.body)), true))
      .reply(201, { id: 8, html_url: 'c' });
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.pull_request.json', '/buildbench build'),
    );
    expect(sticky).toContain('not built');
    expect(sticky).toContain('comes from a fork (`someone:fix-readme`)');
    expect(sticky).toContain('`forks: true`');
  });

  it("a fork's PR with forks true: dispatched from the default branch with the PR's head as an input", async () => {
    let dispatch: Json = {};
    const scope = nock(API);
    token(scope);
    repoConfig(scope, 'forks: true\n');
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/pulls/1`)
      .reply(200, pull(true))
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 9, html_url: 'd' })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`, (b: Json) => ((dispatch = b), true))
      .reply(204);
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.pull_request.json', '/buildbench build'),
    );
    expect(dispatch).toEqual({
      ref: 'master',
      inputs: { 'comment-id': '9', issue: '1', 'pull-request-ref': 'refs/pull/1/head' },
    });
  });

  it('a dispatch GitHub answers 404: the sticky comment says the workflow is missing and how to fix it', async () => {
    let updated = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 10, html_url: 'e' })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`)
      .reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
      .patch(`${REPO}/issues/comments/10`, (b: Json) => ((updated = String(b.body)), true))
      .reply(200, { id: 10, html_url: 'e' });
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build'),
    );
    expect(updated.startsWith(STATUS_MARKER)).toBe(true);
    expect(updated).toContain('the build did not start');
    expect(updated).toContain(
      'found no workflow `.github/workflows/buildbench.yml` with a `workflow_dispatch` trigger',
    );
    expect(updated).toContain('`workflow:` in `.github/buildbench.yml`');
  });

  it('a dispatch GitHub answers 422: the sticky comment quotes the reason and names the inputs', async () => {
    let updated = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 11, html_url: 'e' })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`)
      .reply(422, { message: 'Unexpected inputs provided: ["comment-id"]' })
      .patch(`${REPO}/issues/comments/11`, (b: Json) => ((updated = String(b.body)), true))
      .reply(200, { id: 11, html_url: 'e' });
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build'),
    );
    // The brackets are escaped (github-text.ts): they render as written but cannot open a link.
    expect(updated).toContain('422: Unexpected inputs provided: \\["comment-id"\\]');
    expect(updated).toContain('`workflow_dispatch` inputs `comment-id`, `issue`');
  });

  it('from a reader: a polite reply and nothing else', async () => {
    let replyBody = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'read');
    scope
      .post(`${REPO}/issues/1/comments`, (b: Json) => ((replyBody = String(b.body)), true))
      .reply(201, { id: 12 });
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build'),
    );
    expect(replyBody).toContain('needs write access to this repository (you have read)');
    expect(replyBody).not.toContain(STATUS_MARKER);
  });

  it('from a writer when the configuration asks for maintain: refused', async () => {
    const scope = nock(API);
    token(scope);
    repoConfig(scope, 'permission: maintain\n');
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/1/comments`, (b: Json) => String(b.body).includes('needs maintain access'))
      .reply(201, {});
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build'),
    );
  });

  it('with a broken configuration: one sticky comment naming the field, no build', async () => {
    let sticky = '';
    const scope = nock(API);
    token(scope);
    repoConfig(scope, 'defaults:\n  max-turns: many\n');
    permission(scope, 'write');
    scope
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`, (b: Json) => ((sticky = String(b.body)), true))
      .reply(201, { id: 13 });
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build'),
    );
    expect(sticky.startsWith(STATUS_MARKER)).toBe(true);
    expect(sticky).toContain('field `defaults.max-turns` must be integer');
    expect(sticky).toContain('No build was started');
  });

  it('with invalid options: a reply naming the option, no build', async () => {
    let replyBody = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'write');
    scope.post(`${REPO}/issues/1/comments`, (b: Json) => ((replyBody = String(b.body)), true)).reply(201, {});
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build --strategy <img src=x> @octocat'),
    );
    expect(replyBody).toContain("I did not start a build: option --strategy: '&lt;img' is not valid");
  });

  it('redelivered (the same delivery id): acts once', async () => {
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 14 })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`)
      .reply(204);
    const p = probot();
    const payload = commentEvent('issue_comment.created.issue.json', '/buildbench build');
    await receive(p, 'issue_comment', payload, 'same-delivery');
    await receive(p, 'issue_comment', payload, 'same-delivery');
    // A second interceptor set would be needed for a second build; none is pending and none was missed.
  });
});

describe('issue_comment.created: a failure half-way', () => {
  it('rejects the delivery and lets its redelivery act (the claim is given back)', async () => {
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    scope.get(`${REPO}/collaborators/Codertocat/permission`).reply(500, { message: 'Server Error' });
    const p = probot();
    const payload = commentEvent('issue_comment.created.issue.json', '/buildbench build');
    await expect(receive(p, 'issue_comment', payload, 'flaky-delivery')).rejects.toThrow();
    noConfig(scope);
    permission(scope, 'write');
    scope
      .post(`${REPO}/issues/comments/492700400/reactions`)
      .reply(201, {})
      .get(`${REPO}/issues/1/comments`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 15 })
      .post(`${REPO}/actions/workflows/buildbench.yml/dispatches`)
      .reply(204);
    await receive(p, 'issue_comment', payload, 'flaky-delivery');
  });
});

describe('issue_comment.created: help, unknown commands, and what is ignored', () => {
  it('/buildbench help: the commands and options, from the organisation fallback configuration', async () => {
    let replyBody = '';
    const scope = nock(API);
    token(scope);
    scope
      .get(new RegExp(`^${REPO}${CONFIG.source}`))
      .reply(404)
      .get(new RegExp(`^/repos/Codertocat/\\.github${CONFIG.source}`))
      .reply(200, 'permission: admin\n', { 'content-type': 'application/vnd.github.raw; charset=utf-8' })
      .post(`${REPO}/issues/1/comments`, (b: Json) => ((replyBody = String(b.body)), true))
      .reply(201, {});
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench help'),
    );
    expect(replyBody).toContain('/buildbench build [options]');
    expect(replyBody).toContain('`--strategy rules|baseline|llm|hybrid`');
    expect(replyBody).toContain('Building needs admin access');
  });

  it('an unknown command: a polite answer with the list, the name neutralised', async () => {
    let replyBody = '';
    const scope = nock(API);
    token(scope);
    noConfig(scope);
    scope.post(`${REPO}/issues/1/comments`, (b: Json) => ((replyBody = String(b.body)), true)).reply(201, {});
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench de`ploy'),
    );
    expect(replyBody).toContain('I do not know the command ``de`ploy``');
    expect(replyBody).toContain('/buildbench help');
  });

  it('a comment from a bot: no call at all', async () => {
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', '/buildbench build', BOT),
    );
  });

  it('a comment without a command: no call at all', async () => {
    await receive(
      probot(),
      'issue_comment',
      commentEvent('issue_comment.created.issue.json', 'LGTM, see /buildbench build'),
    );
  });

  it('an edited comment (even one that now holds a command): no call at all', async () => {
    await receive(probot(), 'issue_comment', commentEvent('issue_comment.edited.json', '/buildbench build'));
    const deleted = commentEvent('issue_comment.edited.json', '/buildbench build');
    deleted.action = 'deleted';
    delete deleted.changes;
    await receive(probot(), 'issue_comment', deleted);
  });
});

describe('routing of workflow_run and check_run', () => {
  const ORG = '/repos/octo-org';
  function orgNoConfig(scope: nock.Scope, config?: string): nock.Scope {
    scope
      .post('/app/installations/12345678/access_tokens')
      .reply(201, { token: 'ghs_t', expires_at: '2099-01-01T00:00:00Z' });
    if (config !== undefined) {
      return scope
        .get(new RegExp(`^${ORG}/octo-repo${CONFIG.source}`))
        .reply(200, config, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });
    }
    return scope
      .get(new RegExp(`^${ORG}/octo-repo${CONFIG.source}`))
      .reply(404)
      .get(new RegExp(`^${ORG}/\\.github${CONFIG.source}`))
      .reply(404);
  }
  function handlers() {
    return {
      onCiFailure: jest.fn((_c: unknown, _config: unknown) => Promise.resolve()),
      onCheckRunFailure: jest.fn((_c: unknown, _config: unknown) => Promise.resolve()),
      onBuildbenchRunCompleted: jest.fn((_c: unknown, _config: unknown) => Promise.resolve()),
    };
  }

  it('a failed CI run → the diagnosis handler with the configuration', async () => {
    orgNoConfig(nock(API));
    const h = handlers();
    await receive(probot(h), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(h.onCiFailure).toHaveBeenCalledTimes(1);
    expect(h.onCiFailure.mock.calls[0]?.[1]).toMatchObject({ diagnose: true, workflow: 'buildbench.yml' });
    expect(h.onBuildbenchRunCompleted).not.toHaveBeenCalled();
  });

  it('a failed CI run with diagnose false → nothing', async () => {
    orgNoConfig(nock(API), 'diagnose: false\n');
    const h = handlers();
    await receive(probot(h), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(h.onCiFailure).not.toHaveBeenCalled();
  });

  it('the buildbench workflow completed → the run-completion handler, whatever its conclusion', async () => {
    orgNoConfig(nock(API), 'workflow: ci.yml\n');
    const h = handlers();
    await receive(probot(h), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(h.onBuildbenchRunCompleted).toHaveBeenCalledTimes(1);
    expect(h.onCiFailure).not.toHaveBeenCalled();
  });

  it('a successful CI run → nothing; a redelivered failure → handled once', async () => {
    const ok = fixture('workflow_run.completed.failure.json');
    (ok.workflow_run as Json).conclusion = 'success';
    orgNoConfig(nock(API));
    const h = handlers();
    const p = probot(h);
    await receive(p, 'workflow_run', ok);
    expect(h.onCiFailure).not.toHaveBeenCalled();
    nock(API)
      .get(new RegExp(`^${ORG}/octo-repo${CONFIG.source}`))
      .reply(404)
      .get(new RegExp(`^${ORG}/\\.github${CONFIG.source}`))
      .reply(404);
    await receive(p, 'workflow_run', fixture('workflow_run.completed.failure.json'), 'run-delivery');
    await receive(p, 'workflow_run', fixture('workflow_run.completed.failure.json'), 'run-delivery');
    expect(h.onCiFailure).toHaveBeenCalledTimes(1);
  });

  it('a failed check run → the check-run handler; a passing one → no call at all', async () => {
    orgNoConfig(nock(API));
    const h = handlers();
    await receive(probot(h), 'check_run', fixture('check_run.completed.failure.json'));
    expect(h.onCheckRunFailure).toHaveBeenCalledTimes(1);
    const ok = fixture('check_run.completed.failure.json');
    (ok.check_run as Json).conclusion = 'success';
    await receive(probot(h), 'check_run', ok);
    expect(h.onCheckRunFailure).toHaveBeenCalledTimes(1);
  });

  it('a broken configuration on a CI run → no handler, no comment', async () => {
    orgNoConfig(nock(API), 'diagnose: sometimes\n');
    const h = handlers();
    await receive(probot(h), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(h.onCiFailure).not.toHaveBeenCalled();
  });
});
