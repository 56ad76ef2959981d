import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../../src/action/main.js';
import {
  branchNameFor,
  createOrUpdatePullRequest,
  gitBlobSha,
  PARTIAL_LABEL,
  planPullRequest,
  pullRequestEligibility,
  type PullRequestPlan,
} from '../../../src/action/pull-request.js';
import { createGitHubClient } from '../../../src/github/client.js';
import { fakeEngine, fakeResult, writeOutDir } from '../../fakes/build-result.js';
import { setUpActionEnv, type ActionEnv } from '../../helpers/action.js';
import nock from '../../helpers/nock.js';

const API = 'https://api.github.com';
const REPO = '/repos/octo/hello';
const BASE = 'a'.repeat(40);
const BASE2 = 'c'.repeat(40);
const client = () =>
  createGitHubClient({
    token: 'ghs_test',
    baseUrl: API,
    retries: 0,
    throttle: false,
    fetch: globalThis.fetch,
  });

/** A path matcher that accepts `heads/x` with its slashes encoded or not. */
const refPath = (kind: 'ref' | 'refs', ref: string): RegExp =>
  new RegExp(`^${REPO}/git/${kind}/${ref.split('/').map(encodeURIComponent).join('(?:/|%2F)')}$`);

interface Recorded {
  blobs: string[];
  trees: { base_tree: string; tree: { path: string; mode: string; sha: string }[] }[];
  commits: { message: string; tree: string; parents: string[] }[];
}

/** Expects the Git Data writes for `plan`: blobs, a tree and a commit per planned commit. */
function expectPush(scope: nock.Scope, plan: PullRequestPlan, baseSha: string, tag: string): Recorded {
  const rec: Recorded = { blobs: [], trees: [], commits: [] };
  scope
    .get(`${REPO}/git/commits/${baseSha}`)
    .reply(200, { sha: baseSha, tree: { sha: `tree-of-${baseSha}` } });
  // nock 15 hands reply functions a Request; the body matchers get the parsed JSON, so record there.
  let blob = 0;
  plan.commits.forEach((commit, i) => {
    for (const _file of commit.files) {
      scope
        .post(`${REPO}/git/blobs`, (body: { content: string; encoding: string }) => {
          rec.blobs.push(
            Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8').toString(),
          );
          return true;
        })
        .reply(201, { sha: `${tag}-blob-${blob++}` });
    }
    scope
      .post(`${REPO}/git/trees`, (body: Recorded['trees'][number]) => {
        rec.trees.push(body);
        return true;
      })
      .reply(201, { sha: `${tag}-tree-${i}` });
    scope
      .post(`${REPO}/git/commits`, (body: Recorded['commits'][number]) => {
        rec.commits.push(body);
        return true;
      })
      .reply(201, { sha: `${tag}-commit-${i}` });
  });
  return rec;
}

function compareFiles(plan: PullRequestPlan) {
  return plan.commits.flatMap((c) =>
    c.files.map((f) => ({ filename: f.path, sha: gitBlobSha(f.content), status: 'added' })),
  );
}

let outDir: string;
beforeEach(() => {
  outDir = mkdtempSync(path.join(tmpdir(), 'bb-pr-'));
  nock.disableNetConnect();
});
// nock patches process-wide modules: undo it so the next test file starts clean.
afterAll(() => nock.restore());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('pull request eligibility', () => {
  it('opens one for a success with a verified recipe only', () => {
    expect(pullRequestEligibility(fakeResult(), false)).toEqual({ open: true, partial: false });
    const unverified = fakeResult();
    unverified.recipe = {
      ...unverified.recipe!,
      verified: false,
      replay: { ...unverified.recipe!.replay, status: 'failed', reason: 'replay exited 2' },
    };
    expect(pullRequestEligibility(unverified, true)).toEqual({
      open: false,
      why: 'the recipe did not pass its replay in a fresh sandbox (replay exited 2)',
    });
    expect(pullRequestEligibility(fakeResult({ recipe: undefined }), true)).toEqual({
      open: false,
      why: 'the run produced no replayed recipe',
    });
  });

  it('opens one for PARTIAL only when pull-request-partial is true, never for failures', () => {
    const partial = fakeResult({ status: 'partial', recipe: undefined });
    expect(pullRequestEligibility(partial, true)).toEqual({ open: true, partial: true });
    expect(pullRequestEligibility(partial, false)).toMatchObject({
      open: false,
      why: expect.stringContaining('pull-request-partial: true'),
    });
    expect(pullRequestEligibility(fakeResult({ status: 'failed' }), true)).toEqual({
      open: false,
      why: 'the build ended FAILED',
    });
  });
});

describe('planning the commits', () => {
  it('commits RUNBOOK.md, build.sh and Dockerfile, then one commit per patch, below the built directory', async () => {
    const result = fakeResult();
    await writeOutDir(outDir, result);
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: false,
      dirInRepo: 'sub/dir',
    });
    expect(plan.branch).toBe('buildbench/build-main');
    expect(branchNameFor('release/2.x')).toBe('buildbench/build-release/2.x');
    expect(plan.commits.map((c) => c.files.map((f) => `${f.path} ${f.mode}`))).toEqual([
      [
        'sub/dir/buildbench/RUNBOOK.md 100644',
        'sub/dir/buildbench/build.sh 100755',
        'sub/dir/buildbench/Dockerfile 100644',
      ],
      ['sub/dir/buildbench/patches/0001-fix-include.patch 100644'],
    ]);
    expect(plan.commits[1]!.message).toBe(
      'buildbench: Include <stdint.h>\n\nfixed: unknown type name uint8_t (GCC 13)',
    );
    expect(plan.title).toBe('buildbench: verified build recipe for hello');
    expect(plan.body).toContain('<!-- buildbench:pull-request -->');
    expect(plan.body).toContain('`0001-fix-include.patch`: Include &lt;stdint.h&gt;');
  });

  it('leaves out files the run did not write and never reads outside the output folder', async () => {
    const result = fakeResult({
      patches: [{ file: '../../etc/passwd', paths: [], subject: 'x', reason: 'y' }],
    });
    result.recipe = {
      ...result.recipe!,
      files: { buildSh: 'build.sh', dockerfile: 'missing/Dockerfile', patches: [] },
    };
    writeFileSync(path.join(outDir, 'build.sh'), 'make\n');
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: false,
    });
    expect(plan.commits.map((c) => c.files.map((f) => f.path))).toEqual([['buildbench/build.sh']]);
  });
});

describe('create, then update, then no-op', () => {
  it('creates the branch with Git Data commits and one pull request', async () => {
    const result = fakeResult();
    await writeOutDir(outDir, result);
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: false,
    });
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(200, { ref: 'refs/heads/main', object: { sha: BASE } })
      .get(refPath('ref', 'heads/buildbench/build-main'))
      .reply(404, { message: 'Not Found' });
    const rec = expectPush(scope, plan, BASE, 'v1');
    let createdRef: unknown;
    let createdPr: Record<string, unknown> = {};
    scope
      .post(`${REPO}/git/refs`, (body: unknown) => {
        createdRef = body;
        return true;
      })
      .reply(201, {})
      .get(`${REPO}/pulls`)
      .query({ state: 'open', head: 'octo:buildbench/build-main', base: 'main', per_page: '10' })
      .reply(200, [])
      .post(`${REPO}/pulls`, (body: Record<string, unknown>) => {
        createdPr = body;
        return true;
      })
      .reply(201, { number: 5, html_url: 'https://github.com/octo/hello/pull/5' });

    const outcome = await createOrUpdatePullRequest(client(), plan);
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcome).toEqual({
      operation: 'created',
      number: 5,
      url: 'https://github.com/octo/hello/pull/5',
      note: 'pull request #5 created: https://github.com/octo/hello/pull/5',
    });
    expect(rec.blobs[0]).toBe('# Runbook for hello\n');
    expect(rec.blobs).toHaveLength(4);
    expect(rec.trees[0]).toMatchObject({ base_tree: `tree-of-${BASE}` });
    expect(rec.trees[0]!.tree.map((e) => `${e.path} ${e.mode}`)).toEqual([
      'buildbench/RUNBOOK.md 100644',
      'buildbench/build.sh 100755',
      'buildbench/Dockerfile 100644',
    ]);
    expect(rec.trees[1]).toMatchObject({
      base_tree: 'v1-tree-0',
      tree: [{ path: 'buildbench/patches/0001-fix-include.patch' }],
    });
    expect(rec.commits.map((c) => c.parents)).toEqual([[BASE], ['v1-commit-0']]);
    expect(createdRef).toEqual({ ref: 'refs/heads/buildbench/build-main', sha: 'v1-commit-1' });
    expect(createdPr).toMatchObject({
      head: 'buildbench/build-main',
      base: 'main',
      title: plan.title,
      body: plan.body,
    });
  });

  it('rewrites a stale branch and edits the existing pull request', async () => {
    const result = fakeResult({ reason: 'the verifiers passed after turn 2 (cmake)' });
    await writeOutDir(outDir, result, ' v2');
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: false,
    });
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(200, { object: { sha: BASE2 } })
      .get(refPath('ref', 'heads/buildbench/build-main'))
      .reply(200, { object: { sha: 'v1-commit-1' } })
      .get(`${REPO}/compare/${BASE2}...v1-commit-1`)
      .reply(200, { behind_by: 1, ahead_by: 2, files: [] });
    expectPush(scope, plan, BASE2, 'v2');
    let update: unknown;
    let prUpdate: Record<string, unknown> = {};
    scope
      .patch(refPath('refs', 'heads/buildbench/build-main'), (body: unknown) => {
        update = body;
        return true;
      })
      .reply(200, {})
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [
        {
          number: 5,
          html_url: 'https://github.com/octo/hello/pull/5',
          title: 'old',
          body: 'old',
          labels: [],
        },
      ])
      .patch(`${REPO}/pulls/5`, (body: Record<string, unknown>) => {
        prUpdate = body;
        return true;
      })
      .reply(200, {});

    const outcome = await createOrUpdatePullRequest(client(), plan);
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcome.operation).toBe('updated');
    expect(update).toEqual({ sha: 'v2-commit-1', force: true });
    expect(prUpdate).toEqual({ title: plan.title, body: plan.body });
  });

  it('writes nothing when the branch and the pull request already match', async () => {
    const result = fakeResult({ reason: 'the verifiers passed after turn 2 (cmake)' });
    await writeOutDir(outDir, result, ' v2');
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: false,
    });
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(200, { object: { sha: BASE2 } })
      .get(refPath('ref', 'heads/buildbench/build-main'))
      .reply(200, { object: { sha: 'v2-commit-1' } })
      .get(`${REPO}/compare/${BASE2}...v2-commit-1`)
      .reply(200, { behind_by: 0, ahead_by: 2, files: compareFiles(plan) })
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [
        {
          number: 5,
          html_url: 'https://github.com/octo/hello/pull/5',
          title: plan.title,
          body: plan.body,
          labels: [],
        },
      ]);

    // disableNetConnect: any write not mocked above would fail the call.
    const outcome = await createOrUpdatePullRequest(client(), plan);
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcome).toEqual({
      operation: 'none',
      number: 5,
      url: 'https://github.com/octo/hello/pull/5',
      note: 'pull request #5 is up to date: https://github.com/octo/hello/pull/5',
    });
  });

  it('labels a PARTIAL pull request as such', async () => {
    const result = fakeResult({
      status: 'partial',
      reason: 'built 1 of 2 expected binaries',
      recipe: undefined,
      patches: [],
    });
    await writeOutDir(outDir, result);
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'octo',
      repo: 'hello',
      base: 'main',
      partial: true,
    });
    expect(plan.title).toBe('[PARTIAL] buildbench: partial build recipe for hello');
    expect(plan.body).toContain('**PARTIAL build.**');
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(200, { object: { sha: BASE } })
      .get(refPath('ref', 'heads/buildbench/build-main'))
      .reply(404, {});
    expectPush(scope, plan, BASE, 'p');
    let labels: unknown;
    scope
      .post(`${REPO}/git/refs`)
      .reply(201, {})
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/pulls`)
      .reply(201, { number: 6, html_url: 'https://github.com/octo/hello/pull/6' })
      .post(`${REPO}/issues/6/labels`, (body: unknown) => {
        labels = body;
        return true;
      })
      .reply(200, []);
    const outcome = await createOrUpdatePullRequest(client(), plan);
    expect(scope.pendingMocks()).toEqual([]);
    expect(outcome.operation).toBe('created');
    expect(labels).toEqual({ labels: [PARTIAL_LABEL] });
  });
});

describe('open-pull-request through the action', () => {
  let env: ActionEnv | undefined;
  afterEach(() => {
    env?.restore();
    env = undefined;
  });

  it('reports the pull request in the outputs and the summary', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(200, { object: { sha: BASE } })
      .get(refPath('ref', 'heads/buildbench/build-main'))
      .reply(404, {})
      .get(`${REPO}/git/commits/${BASE}`)
      .reply(200, { tree: { sha: 't' } })
      .post(`${REPO}/git/blobs`)
      .times(4)
      .reply(201, { sha: 'blob' })
      .post(`${REPO}/git/trees`)
      .times(2)
      .reply(201, { sha: 'tree' })
      .post(`${REPO}/git/commits`)
      .times(2)
      .reply(201, { sha: 'commit' })
      .post(`${REPO}/git/refs`)
      .reply(201, {})
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/pulls`)
      .reply(201, { number: 7, html_url: 'https://github.com/octo/hello/pull/7' });
    await run({
      runBuild: fakeEngine(fakeResult()).engine,
      createGitHub: (token) =>
        createGitHubClient({ token, baseUrl: API, retries: 0, throttle: false, fetch: globalThis.fetch }),
      handleSignals: false,
    });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.outputs()['pull-request-url']).toBe('https://github.com/octo/hello/pull/7');
    expect(env.outputs()['pull-request-operation']).toBe('created');
    expect(env.summary()).toContain('Pull request (created): https://github.com/octo/hello/pull/7');
    expect(env.errors()).toEqual([]);
    expect(env.commands('add-mask')).toContain('::add-mask::ghs_test');
  });

  it('fails the step with one message when the pull request cannot be opened', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    const scope = nock(API)
      .get(refPath('ref', 'heads/main'))
      .reply(403, { message: 'Resource not accessible by integration' });
    await run({
      runBuild: fakeEngine(fakeResult()).engine,
      createGitHub: (token) =>
        createGitHubClient({ token, baseUrl: API, retries: 0, throttle: false, fetch: globalThis.fetch }),
      handleSignals: false,
    });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.errors()).toEqual(['could not open the pull request: Resource not accessible by integration']);
    expect(env.outputs()['pull-request-operation']).toBe('none');
    expect(env.outputs().status).toBe('success');
  });

  it('opens nothing for a failed build and says why', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    await run({
      runBuild: fakeEngine(fakeResult({ status: 'failed', reason: 'no binary' })).engine,
      handleSignals: false,
    });
    expect(env.outputs()['pull-request-operation']).toBe('none');
    expect(env.summary()).toContain('Pull request: no pull request: the build ended FAILED');
    expect(env.errors()).toEqual(['buildbench: FAILED: no binary']);
  });
});
