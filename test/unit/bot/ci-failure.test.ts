import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Probot, ProbotOctokit } from 'probot';

import {
  DIAGNOSIS_MARKER,
  SUGGESTION_MARKER,
  lineInPatch,
  onCheckRunFailure,
  onCiFailure,
  type CiFailureDeps,
  type CiFailureOutcome,
} from '../../../src/bot/ci-failure.js';
import type { BotConfig } from '../../../src/bot/config.js';
import {
  diagnoseLog,
  stoppedEarly,
  type DiagnoseFile,
  type DiagnoseOptions,
  type Diagnosis,
} from '../../../src/knowledge/diagnose/diagnosis.js';
import nock from '../../helpers/nock.js';

const API = 'https://api.github.com';
/** The configuration's defaults (src/bot/config.ts's DEFAULT_CONFIG), written out so this file tests only ci-failure. */
const DEFAULT_CONFIG: BotConfig = {
  workflow: 'buildbench.yml',
  commands: ['build', 'help'],
  permission: 'write',
  defaults: {},
  diagnose: true,
  notBuildNote: false,
  pullRequests: true,
  forks: false,
};
const REPO = '/repos/octo-org/octo-repo';
const LOG_HOST = 'https://productionresultssa0.blob.core.windows.net';
const SHA = '9f3b2c1d4e5f60718293a4b5c6d7e8f901234567';
const JOB_ID = 399444496;

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const log = (name: string): string =>
  readFileSync(new URL(`../../fixtures/logs/${name}`, import.meta.url), 'utf8');
const ciLog = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ci-logs/${name}`, import.meta.url), 'utf8');

/** The workflow file at the run's commit: line 14 is the apt-get line the fix belongs on. */
const WORKFLOW = [
  'name: CI',
  'on: [push, pull_request]',
  'jobs:',
  '  build:',
  '    runs-on: ubuntu-24.04',
  '    strategy:',
  '      matrix:',
  '        cc: [gcc, clang]',
  '    steps:',
  '      - uses: actions/checkout@v4',
  '      - name: Dependencies',
  '        run: |',
  '          sudo apt-get update',
  '          sudo apt-get install -y build-essential',
  '      - name: Build',
  '        run: make',
  '',
].join('\n');
const APT_LINE = 14;

/** A patch of the workflow file whose hunk shows lines 11-16 of the new file. */
const WORKFLOW_PATCH = [
  '@@ -11,4 +11,6 @@ jobs:',
  '       - name: Dependencies',
  '         run: |',
  '           sudo apt-get update',
  '           sudo apt-get install -y build-essential',
  '+      - name: Build',
  '+        run: make',
].join('\n');

/** Real logs (test/fixtures/ci-logs, with their threads in its README): a host that did not resolve, a failed CTest. */
const NETWORK_FLAKE = ciLog('flaky-resolve-host-obs.log');
const TEST_FAILURE = ciLog('ctest-mvfst.log');

/** The real `diagnoseLog`, recording what the bot gave it. */
const calls: { text: string; files: readonly DiagnoseFile[] }[] = [];
async function recordingDiagnose(text: string, options: DiagnoseOptions): Promise<Diagnosis> {
  calls.push({ text, files: options.files ?? [] });
  return await diagnoseLog(text, options);
}

const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

let outcomes: CiFailureOutcome[] = [];

function probot(deps: Partial<CiFailureDeps> = {}, config: BotConfig = { ...DEFAULT_CONFIG }): Probot {
  const bot = new Probot({
    appId: 1,
    privateKey,
    githubToken: 'test-installation-token',
    // A function, not an object: Probot sets its own throttle options over object defaults (and the plugin then
    // paces comment writes 3 s apart); a function sees the final options last.
    Octokit: ProbotOctokit.defaults((options: object) => ({
      ...options,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
  const all = { diagnose: recordingDiagnose, ...deps };
  void bot.load((app) => {
    app.on('workflow_run.completed', async (context) => {
      outcomes.push(await onCiFailure(context, config, all));
    });
    app.on('check_run.completed', async (context) => {
      outcomes.push(await onCheckRunFailure(context, config, all));
    });
  });
  return bot;
}

async function receive(bot: Probot, name: 'workflow_run' | 'check_run', payload: Record<string, unknown>) {
  await bot.receive({ id: `delivery-${Math.random()}`, name, payload } as Parameters<Probot['receive']>[0]);
}

const jobs = (conclusion = 'failure') => ({
  total_count: 2,
  jobs: [
    {
      id: JOB_ID,
      run_id: 289782451,
      name: 'build (gcc)',
      status: 'completed',
      conclusion,
      html_url: `https://github.com/octo-org/octo-repo/actions/runs/289782451/job/${JOB_ID}`,
      steps: [
        { name: 'Set up job', status: 'completed', conclusion: 'success', number: 1 },
        { name: 'Dependencies', status: 'completed', conclusion: 'success', number: 2 },
        { name: 'Build', status: 'completed', conclusion, number: 3 },
      ],
    },
    {
      id: JOB_ID + 1,
      run_id: 289782451,
      name: 'lint',
      status: 'completed',
      conclusion: 'success',
      html_url: `https://github.com/octo-org/octo-repo/actions/runs/289782451/job/${JOB_ID + 1}`,
      steps: [],
    },
  ],
});

/** The run's jobs, the workflow file at its commit, and the failed job's log behind a redirect. */
function runMocks(logText: string | Readable, jobsBody: ReturnType<typeof jobs> = jobs()): nock.Scope[] {
  const jobId = JOB_ID;
  const api = nock(API)
    .get(`${REPO}/actions/runs/289782451/jobs`)
    .query({ filter: 'latest', per_page: '100' })
    .reply(200, jobsBody)
    .get(`${REPO}/contents/.github%2Fworkflows%2Fci.yml`)
    .query({ ref: SHA })
    .reply(200, WORKFLOW, { 'content-type': 'application/vnd.github.raw' })
    .get(`${REPO}/actions/jobs/${jobId}/logs`)
    .reply(302, '', { location: `${LOG_HOST}/logs/job-${jobId}.txt?sig=abc` });
  // The log's host gets no Authorization header (fetch drops it on a redirect to another origin).
  const blob = nock(LOG_HOST, { badheaders: ['authorization'] })
    .get(`/logs/job-${jobId}.txt`)
    .query({ sig: 'abc' })
    .reply(200, logText, { 'content-type': 'text/plain' });
  return [api, blob];
}

function listComments(comments: unknown[]): nock.Scope {
  return nock(API).get(`${REPO}/issues/7/comments`).query({ per_page: '100' }).reply(200, comments);
}

const pending = (scopes: nock.Scope[]) => scopes.flatMap((s) => s.pendingMocks());

afterAll(() => nock.restore());
beforeEach(() => {
  nock.disableNetConnect();
  calls.length = 0;
  outcomes = [];
});
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('onCiFailure', () => {
  it('a missing package: one comment with the root cause and packages, and a suggestion on the apt-get line the PR touches', async () => {
    let comment = '';
    let review: Record<string, unknown> = {};
    const scopes = [
      ...runMocks(log('missing-header-make.log')),
      nock(API)
        .get(`${REPO}/pulls/7/files`)
        .query({ per_page: '100' })
        .reply(200, [
          { filename: 'src/compress.c', status: 'added', patch: '@@ -0,0 +1,3 @@\n+#include <zlib.h>' },
          { filename: '.github/workflows/ci.yml', status: 'modified', patch: WORKFLOW_PATCH },
        ])
        .get(`${REPO}/pulls/7/comments`)
        .query({ per_page: '100' })
        .reply(200, [])
        .post(`${REPO}/pulls/7/comments`, (body: Record<string, unknown>) => {
          review = body;
          return true;
        })
        .reply(201, { id: 501 }),
      listComments([
        { id: 11, user: { login: 'Codertocat', type: 'User' }, body: `quoting ${DIAGNOSIS_MARKER}` },
      ]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 900, html_url: 'https://github.com/octo-org/octo-repo/pull/7#issuecomment-900' }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));

    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'commented', comments: [{ pr: 7, id: 900, operation: 'created' }], suggestions: 1 },
    ]);
    // The diagnosis got the log and the workflow file at the run's commit.
    expect(calls).toHaveLength(1);
    expect(calls[0]!.text).toContain('zlib.h: No such file or directory');
    expect(calls[0]!.files).toEqual([{ path: '.github/workflows/ci.yml', content: WORKFLOW }]);

    expect(comment.startsWith(DIAGNOSIS_MARKER)).toBe(true);
    expect(comment).toContain(`<!-- buildbench:sha ${SHA} -->`);
    expect(comment).toContain('`missing-header`, confidence high');
    expect(comment).toContain('missing header zlib.h');
    expect(comment).toContain('10: compress.c:12:10: fatal error: zlib.h: No such file or directory');
    expect(comment).toContain('`zlib1g-dev`');
    expect(comment).toContain(
      `[build (gcc)](https://github.com/octo-org/octo-repo/actions/runs/289782451/job/${JOB_ID}) (step *Build*)`,
    );
    expect(comment).toContain('in the review comments');
    expect(comment).not.toContain('test-installation-token');

    expect(review).toMatchObject({
      commit_id: SHA,
      path: '.github/workflows/ci.yml',
      line: APT_LINE,
      side: 'RIGHT',
    });
    expect(review.body).toBe(
      `${SUGGESTION_MARKER}\n**buildbench:** install zlib1g-dev with the other build dependencies\n\n` +
        '```suggestion\n          sudo apt-get install -y build-essential zlib1g-dev\n```\n',
    );
  });

  it('a second run updates the same comment (PATCH, no second POST), and does not repeat the same suggestion', async () => {
    let patched = '';
    const existing = `${DIAGNOSIS_MARKER}\n<!-- buildbench:sha ${SHA} -->\nolder diagnosis`;
    const suggestion =
      `${SUGGESTION_MARKER}\n**buildbench:** install zlib1g-dev with the other build dependencies\n\n` +
      '```suggestion\n          sudo apt-get install -y build-essential zlib1g-dev\n```\n';
    const scopes = [
      ...runMocks(log('missing-header-make.log')),
      nock(API)
        .get(`${REPO}/pulls/7/files`)
        .query({ per_page: '100' })
        .reply(200, [{ filename: '.github/workflows/ci.yml', status: 'modified', patch: WORKFLOW_PATCH }])
        .get(`${REPO}/pulls/7/comments`)
        .query({ per_page: '100' })
        .reply(200, [
          {
            id: 501,
            user: { login: 'buildbench[bot]', type: 'Bot' },
            path: '.github/workflows/ci.yml',
            line: APT_LINE,
            body: suggestion,
          },
        ]),
      listComments([{ id: 900, user: { login: 'buildbench[bot]', type: 'Bot' }, body: existing }]),
      nock(API)
        .patch(`${REPO}/issues/comments/900`, (body: { body: string }) => {
          patched = body.body;
          return true;
        })
        .reply(200, { id: 900 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'commented', comments: [{ pr: 7, id: 900, operation: 'updated' }], suggestions: 1 },
    ]);
    expect(patched).toContain('missing header zlib.h');
    // nock refuses any request not mocked: a POST of a comment or a review comment would have failed the run.
  });

  it('a fix on a line outside the PR diff (GitHub answers 422) goes into the plain comment as a diff', async () => {
    let comment = '';
    const scopes = [
      ...runMocks(log('missing-header-make.log')),
      nock(API)
        .get(`${REPO}/pulls/7/files`)
        .query({ per_page: '100' })
        // The listing says the line is in a hunk, GitHub disagrees (e.g. the PR moved on): the 422 is handled.
        .reply(200, [{ filename: '.github/workflows/ci.yml', status: 'modified', patch: WORKFLOW_PATCH }])
        .get(`${REPO}/pulls/7/comments`)
        .query({ per_page: '100' })
        .reply(200, [])
        .post(`${REPO}/pulls/7/comments`)
        .reply(422, {
          message: 'Validation Failed',
          errors: ['pull_request_review_thread.line must be part of the diff'],
        }),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 901 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'commented', comments: [{ pr: 7, id: 901, operation: 'created' }], suggestions: 0 },
    ]);
    expect(comment).toContain('Change `.github/workflows/ci.yml` line 14');
    expect(comment).toContain(
      '```diff\n-          sudo apt-get install -y build-essential\n+          sudo apt-get install -y build-essential zlib1g-dev\n```',
    );
  });

  it('a PR that does not touch the workflow: no review comment, the change is in the plain comment', async () => {
    let comment = '';
    const scopes = [
      ...runMocks(log('missing-header-make.log')),
      nock(API)
        .get(`${REPO}/pulls/7/files`)
        .query({ per_page: '100' })
        .reply(200, [
          { filename: 'src/compress.c', status: 'added', patch: '@@ -0,0 +1,3 @@\n+#include <zlib.h>' },
        ]),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 902 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes[0]).toMatchObject({ action: 'commented', suggestions: 0 });
    expect(comment).toContain(
      'Change `.github/workflows/ci.yml` line 14 (install zlib1g-dev with the other build dependencies)',
    );
  });

  it('a flaky network log: no comment at all (no POST, no PATCH)', async () => {
    const scopes = [...runMocks(NETWORK_FLAKE), listComments([])];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'silent', reason: expect.stringContaining('a network error'), updated: [] },
    ]);
  });

  it('not-build-note: true: a flaky network log gets one line saying so, and no fix', async () => {
    let posted = '';
    const scopes = [
      ...runMocks(NETWORK_FLAKE),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          posted = body.body;
          return true;
        })
        .reply(201, { id: 903 }),
    ];
    await receive(
      probot({}, { ...DEFAULT_CONFIG, notBuildNote: true }),
      'workflow_run',
      fixture('workflow_run.completed.failure.json'),
    );
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'silent', reason: expect.stringContaining('a network error'), updated: [], noted: [7] },
    ]);
    expect(posted.startsWith(DIAGNOSIS_MARKER)).toBe(true);
    const said = posted.split('\n').filter((l) => l.startsWith('Not a build problem'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/a network error while downloading, most likely transient.*\(line \d+\)\.$/);
    expect(posted).not.toMatch(/apt-get|suggestion|```/);
  });

  it('not-build-note: true: an error nothing recognises stays silent (a note only for a classified kind)', async () => {
    const scopes = [
      ...runMocks('frob: the frobnicator refused to frob\n##[error]Process completed with exit code 1.\n'),
      listComments([]),
    ];
    await receive(
      probot({}, { ...DEFAULT_CONFIG, notBuildNote: true }),
      'workflow_run',
      fixture('workflow_run.completed.failure.json'),
    );
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([{ action: 'silent', reason: expect.any(String), updated: [], noted: [] }]);
  });

  it('a test failure: no comment; an earlier diagnosis of the same commit is left alone', async () => {
    const scopes = [
      ...runMocks(TEST_FAILURE),
      listComments([
        { id: 900, user: { type: 'Bot' }, body: `${DIAGNOSIS_MARKER}\n<!-- buildbench:sha ${SHA} -->\nzlib` },
      ]),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'silent', reason: expect.stringContaining('tests failed'), updated: [] },
    ]);
  });

  it('a test failure on a newer commit: the earlier diagnosis comment is edited to say it no longer applies', async () => {
    let patched = '';
    const old = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const scopes = [
      ...runMocks(TEST_FAILURE),
      listComments([
        { id: 900, user: { type: 'Bot' }, body: `${DIAGNOSIS_MARKER}\n<!-- buildbench:sha ${old} -->\nzlib` },
      ]),
      nock(API)
        .patch(`${REPO}/issues/comments/900`, (body: { body: string }) => {
          patched = body.body;
          return true;
        })
        .reply(200, { id: 900 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'silent', reason: expect.stringContaining('tests failed'), updated: [7] },
    ]);
    expect(patched.startsWith(DIAGNOSIS_MARKER)).toBe(true);
    expect(patched).toContain('not on a build problem: the build succeeded and tests failed');
  });

  it('a run with no pull request: the head-branch lookup and nothing else', async () => {
    const scope = nock(API)
      .get(`${REPO}/pulls`)
      .query({ state: 'open', head: 'octo-fork:wip', per_page: '100' })
      .reply(200, []);
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure-fork.json'));
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcomes).toEqual([{ action: 'ignored', reason: 'the run belongs to no open pull request' }]);
    expect(calls).toHaveLength(0);
  });

  it("a fork's pull request is found through the head-branch lookup", async () => {
    const scopes = [
      nock(API)
        .get(`${REPO}/pulls`)
        .query({ state: 'open', head: 'octo-fork:wip', per_page: '100' })
        .reply(200, [{ number: 7, head: { sha: SHA } }])
        .get(`${REPO}/actions/runs/289782452/jobs`)
        .query({ filter: 'latest', per_page: '100' })
        .reply(200, jobs())
        .get(`${REPO}/contents/.github%2Fworkflows%2Fci.yml`)
        .query({ ref: SHA })
        .reply(404, { message: 'Not Found' })
        .get(`${REPO}/actions/jobs/${JOB_ID}/logs`)
        .reply(302, '', { location: `${LOG_HOST}/logs/fork.txt` }),
      nock(LOG_HOST).get('/logs/fork.txt').reply(200, NETWORK_FLAKE),
      listComments([]),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure-fork.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'silent', reason: expect.stringContaining('a network error'), updated: [] },
    ]);
    // No workflow file (a 404) is no file, not an error.
    expect(calls[0]!.files).toEqual([]);
  });

  it('a huge log: only its tail is read, and the quoted line numbers are the whole log’s', async () => {
    const filler = Array.from(
      { length: 4000 },
      (_, i) => `2026-11-30T10:11:12.0000000Z noise line ${i + 1}`,
    ).join('\n');
    const big = `${filler}\n${log('missing-header-make.log')}`;
    let comment = '';
    const scopes = [
      // Streamed in many small chunks, as a big download arrives: most are dropped on the way.
      ...runMocks(Readable.from(big.match(/[^]{1,500}/g)!)),
      nock(API).get(`${REPO}/pulls/7/files`).query({ per_page: '100' }).reply(200, []),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 903 }),
    ];
    await receive(
      probot({ maxLogBytes: 4096 }),
      'workflow_run',
      fixture('workflow_run.completed.failure.json'),
    );
    expect(pending(scopes)).toEqual([]);
    expect(Buffer.byteLength(calls[0]!.text)).toBeLessThanOrEqual(4096);
    expect(calls[0]!.text.startsWith('2026-11-30T')).toBe(true); // cut at a line start
    expect(calls[0]!.text).toContain('zlib.h: No such file or directory');
    // missing-header-make.log's line 10, after the 4000 filler lines.
    expect(comment).toContain('4010: compress.c:12:10: fatal error: zlib.h');
    expect(comment).toContain('its last part was read');
  });

  it('a token in the log and a mention in a job name do not reach the comment', async () => {
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const leaky = log('missing-header-make.log').replace(
      'gcc -O2 -Wall -I../include -c compress.c -o compress.o',
      `gcc -O2 -Wall -I../include -DTOKEN=${token} -c compress.c -o compress.o`,
    );
    let comment = '';
    const named = jobs();
    named.jobs[0]!.name = 'build for @octocat </details>';
    const scopes = [
      ...runMocks(leaky, named),
      nock(API).get(`${REPO}/pulls/7/files`).query({ per_page: '100' }).reply(200, []),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 905 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(comment).toContain('-DTOKEN=');
    expect(comment).not.toContain(token);
    expect(comment).not.toContain('@octocat');
    expect(comment).not.toContain('</details>');
  });

  it('a matrix failing the same way twice: one section naming both jobs, one suggestion', async () => {
    const matrix = jobs();
    matrix.jobs[1] = {
      ...matrix.jobs[0]!,
      id: JOB_ID + 1,
      name: 'build (clang)',
      html_url: 'https://github.com/octo-org/octo-repo/actions/runs/289782451/job/2',
    };
    let comment = '';
    const scopes = [
      ...runMocks(log('missing-header-make.log'), matrix),
      nock(API)
        .get(`${REPO}/actions/jobs/${JOB_ID + 1}/logs`)
        .reply(302, '', { location: `${LOG_HOST}/logs/clang.txt` }),
      nock(LOG_HOST).get('/logs/clang.txt').reply(200, log('missing-header-make.log')),
      nock(API).get(`${REPO}/pulls/7/files`).query({ per_page: '100' }).reply(200, []),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 906 }),
    ];
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(calls).toHaveLength(2);
    expect(comment).toContain(
      '(step *Build*), [build (clang)](https://github.com/octo-org/octo-repo/actions/runs/289782451/job/2)',
    );
    expect(comment.match(/\*\*Root cause\*\*/g)).toHaveLength(1);
  });

  it('a run of a commit the pull request has moved past: no call (a late run must not overwrite a newer diagnosis)', async () => {
    const payload = fixture('workflow_run.completed.failure.json');
    const run = payload.workflow_run as { pull_requests: { head: { sha: string } }[] };
    run.pull_requests[0]!.head.sha = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    await receive(probot(), 'workflow_run', payload);
    expect(outcomes).toEqual([
      { action: 'ignored', reason: 'the pull request has moved on to a newer commit' },
    ]);
  });

  it('an expired log (410): that job is skipped, nothing is commented', async () => {
    const scope = nock(API)
      .get(`${REPO}/actions/runs/289782451/jobs`)
      .query({ filter: 'latest', per_page: '100' })
      .reply(200, jobs())
      .get(`${REPO}/contents/.github%2Fworkflows%2Fci.yml`)
      .query({ ref: SHA })
      .reply(200, WORKFLOW, { 'content-type': 'text/plain; charset=utf-8' })
      .get(`${REPO}/actions/jobs/${JOB_ID}/logs`)
      .reply(410, { message: 'Gone' });
    await receive(probot(), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcomes).toEqual([{ action: 'ignored', reason: 'no log of a failed job could be read' }]);
  });

  it('by default the log is diagnosed in a worker thread, and a diagnosis that ran out of time says so', async () => {
    const comments: string[] = [];
    const commentMocks = () => [
      nock(API).get(`${REPO}/pulls/7/files`).query({ per_page: '100' }).reply(200, []),
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comments.push(body.body);
          return true;
        })
        .reply(201, { id: 906 }),
    ];
    // The default: no diagnose given (knowledge/diagnose/worker.ts, with its time budget).
    let scopes = [...runMocks(log('missing-header-make.log')), ...commentMocks()];
    await receive(
      probot({ diagnose: undefined }),
      'workflow_run',
      fixture('workflow_run.completed.failure.json'),
    );
    expect(pending(scopes)).toEqual([]);
    expect(calls).toEqual([]);
    expect(comments[0]).toContain('missing header zlib.h');
    expect(comments[0]).not.toContain('ran out of time');

    const slow = async (text: string, options: DiagnoseOptions): Promise<Diagnosis> =>
      stoppedEarly(await diagnoseLog(text, options), { afterMs: 20_000, read: 1, total: 2 });
    scopes = [...runMocks(log('missing-header-make.log')), ...commentMocks()];
    await receive(probot({ diagnose: slow }), 'workflow_run', fixture('workflow_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(comments[1]).toContain('missing header zlib.h');
    expect(comments[1]).toContain(
      'The diagnosis ran out of time (20 s) after 50% of the log, so a cause further on was not looked for.',
    );
  });

  it('diagnose: false in the configuration: no call at all', async () => {
    await receive(
      probot({}, { ...DEFAULT_CONFIG, diagnose: false }),
      'workflow_run',
      fixture('workflow_run.completed.failure.json'),
    );
    expect(outcomes).toEqual([{ action: 'ignored', reason: 'diagnose is off in the configuration' }]);
  });
});

describe('onCheckRunFailure', () => {
  it("another CI app's failed check run is diagnosed from its output text, linking the check's details", async () => {
    let comment = '';
    const scopes = [
      listComments([]),
      nock(API)
        .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
          comment = body.body;
          return true;
        })
        .reply(201, { id: 904 }),
    ];
    await receive(probot(), 'check_run', fixture('check_run.completed.failure.json'));
    expect(pending(scopes)).toEqual([]);
    expect(outcomes).toEqual([
      { action: 'commented', comments: [{ pr: 7, id: 904, operation: 'created' }], suggestions: 0 },
    ]);
    expect(comment).toContain('[octocoders/build](https://ci.octocoders.io/builds/512)');
    expect(comment).toContain('missing header zlib.h');
  });

  it('a GitHub Actions check run is left to its workflow_run (no double comment): no call', async () => {
    const payload = fixture('check_run.completed.failure.json');
    const check = payload.check_run as Record<string, unknown>;
    payload.check_run = { ...check, app: { ...(check.app as object), id: 15368, slug: 'github-actions' } };
    await receive(probot(), 'check_run', payload);
    expect(outcomes).toEqual([
      { action: 'ignored', reason: 'a GitHub Actions check run: its workflow_run is diagnosed instead' },
    ]);
    expect(calls).toHaveLength(0);
  });
});

describe('lineInPatch', () => {
  it('knows the RIGHT-side lines of the hunks', () => {
    expect(lineInPatch(WORKFLOW_PATCH, 11)).toBe(true);
    expect(lineInPatch(WORKFLOW_PATCH, 16)).toBe(true);
    expect(lineInPatch(WORKFLOW_PATCH, 17)).toBe(false);
    expect(lineInPatch(WORKFLOW_PATCH, 10)).toBe(false);
    expect(lineInPatch('@@ -3 +3 @@\n-a\n+b', 3)).toBe(true);
    expect(lineInPatch('@@ -1,2 +0,0 @@\n-a\n-b', 1)).toBe(false);
  });
});
