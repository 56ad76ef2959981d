import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  dirInRepository,
  originRepositoryOf,
  repositoryRootOf,
  type ActionContext,
} from '../../../src/action/context.js';
import { run } from '../../../src/action/main.js';
import {
  branchNameFor,
  createOrUpdatePullRequest,
  destinationFor,
  explainWriteError,
  gitBlobSha,
  PARTIAL_LABEL,
  planPullRequest,
  pullRequestEligibility,
  RECIPE_COMMENT_MARKER,
  RECIPE_DIR,
  type PullRequestPlan,
} from '../../../src/action/pull-request.js';
import { fullSequenceRecipe, minimiseRecipe } from '../../../src/finalize/minimise.js';
import { createGitHubClient } from '../../../src/github/client.js';
import { renderBuildSh } from '../../../src/recipe/render-buildsh.js';
import { renderDockerfile } from '../../../src/recipe/render-dockerfile.js';
import type { BuildResult } from '../../../src/report/result.js';
import { fakeEngine, fakeResult, writeOutDir } from '../../fakes/build-result.js';
import { setUpActionEnv, type ActionEnv } from '../../helpers/action.js';
import { parseDockerfile } from '../../helpers/dockerfile.js';
import nock from '../../helpers/nock.js';
import { scriptRecipe, turn } from '../finalize/helpers.js';

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
    expect(env.errors()).toEqual([
      'could not open the pull request: Resource not accessible by integration: the token may not do this; give the job `permissions:` contents: write and pull-requests: write',
    ]);
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

/** A path a Dockerfile's RUN lines read below RECIPE_DIR: `"$RECIPE_DIR/x"`, and `for p in a b; do … "$RECIPE_DIR/$p"`. */
function recipeReads(dockerfile: string): { recipeDir: string; copies: string[]; reads: string[] } {
  const parsed = parseDockerfile(dockerfile);
  expect(parsed.errors).toEqual([]);
  const arg = parsed.instructions
    .filter((i) => i.name === 'ARG')
    .map((i) => /^RECIPE_DIR=(.+)$/.exec(i.args)?.[1])
    .find(Boolean);
  const copies = parsed.instructions
    .filter((i) => i.name === 'COPY')
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'))
        .slice(0, -1),
    );
  const reads: string[] = [];
  for (const run of parsed.instructions.filter((i) => i.name === 'RUN')) {
    for (const m of run.args.matchAll(/\$\{?RECIPE_DIR\}?\/([\w./-]+)/g)) reads.push(m[1]!);
    const loop = /for p in (.+?); do.*\$RECIPE_DIR\/\$p/.exec(run.args);
    if (loop) reads.push(...loop[1]!.split(/\s+/).map((w) => w.replace(/^'|'$/g, '')));
  }
  return { recipeDir: arg ?? '', copies, reads };
}

describe('the committed recipe builds where the pull request puts it', () => {
  async function writeRealRecipe(dir: string, patches: string[]): Promise<BuildResult> {
    const recipe = minimiseRecipe(
      [
        turn(0, {
          passed: true,
          recipe: scriptRecipe({ packages: ['zlib1g-dev'], steps: [{ purpose: 'build', command: 'make' }] }),
        }),
      ],
      { patches },
    )!;
    const meta = { repo: 'hello', version: '0.1.0', baseImage: 'debian:bookworm' };
    const result = fakeResult({ patches: [] });
    result.recipe = { ...result.recipe!, files: { buildSh: 'build.sh', dockerfile: 'Dockerfile', patches } };
    await writeOutDir(dir, result);
    writeFileSync(path.join(dir, 'Dockerfile'), renderDockerfile(recipe, meta));
    writeFileSync(path.join(dir, 'build.sh'), renderBuildSh(recipe, meta));
    return result;
  }

  for (const dirInRepo of ['', 'sub/dir']) {
    it(`every file the Dockerfile reads is in the pull request's tree (built directory '${dirInRepo || '.'}')`, async () => {
      const result = await writeRealRecipe(outDir, ['patches/0001-fix-include.patch']);
      const plan = await planPullRequest(result, {
        outDir,
        owner: 'octo',
        repo: 'hello',
        base: 'main',
        partial: false,
        ...(dirInRepo ? { dirInRepo } : {}),
      });
      // The repository after merging: what it had, plus the pull request's files.
      const tree = new Set([`${dirInRepo ? `${dirInRepo}/` : ''}main.c`]);
      for (const c of plan.commits) for (const f of c.files) tree.add(f.path);
      const dockerfile = plan.commits[0]!.files.find((f) => f.path.endsWith('/Dockerfile'))!;
      // `docker build -f <dir>/buildbench/Dockerfile <dir>`: the context is the built directory.
      const context = dirInRepo;
      const under = (p: string): string => path.posix.normalize(context ? `${context}/${p}` : p);
      const exists = (p: string): boolean =>
        p === '.' ? true : tree.has(p) || [...tree].some((t) => t.startsWith(`${p}/`));
      const { recipeDir, copies, reads } = recipeReads(dockerfile.content.toString());
      expect(recipeDir).toBe(RECIPE_DIR);
      expect(dockerfile.path).toBe(under(`${recipeDir}/Dockerfile`));
      expect(copies).toEqual(['.']);
      for (const c of copies) expect(exists(under(c))).toBe(true);
      expect(reads).toContain('patches/0001-fix-include.patch');
      for (const r of reads) expect([r, tree.has(under(`${recipeDir}/${r}`))]).toEqual([r, true]);
    });
  }

  it('and so does a recipe whose Dockerfile RUNs build.sh', async () => {
    const full = fullSequenceRecipe([turn(0, { exitCode: 1 }), turn(1, { passed: true })])!;
    const result = fakeResult({ patches: [] });
    result.recipe = {
      ...result.recipe!,
      files: { buildSh: 'build.sh', dockerfile: 'Dockerfile', patches: [] },
    };
    await writeOutDir(outDir, result);
    writeFileSync(
      path.join(outDir, 'Dockerfile'),
      renderDockerfile(full, { repo: 'hello', version: '0', baseImage: 'debian:bookworm' }),
    );
    const plan = await planPullRequest(result, {
      outDir,
      owner: 'o',
      repo: 'r',
      base: 'main',
      partial: false,
    });
    const tree = new Set(plan.commits.flatMap((c) => c.files.map((f) => f.path)));
    const { recipeDir, reads } = recipeReads(
      plan.commits[0]!.files.find((f) => f.path.endsWith('Dockerfile'))!.content.toString(),
    );
    expect(reads).toEqual(['build.sh']);
    expect(tree.has(`${recipeDir}/build.sh`)).toBe(true);
  });
});

describe('the recipe folder is relative to the repository, not the workspace', () => {
  it('finds the repository root of a checkout with path:, and the built directory below it', () => {
    const ws = mkdtempSync(path.join(tmpdir(), 'bb-ws-'));
    mkdirSync(path.join(ws, 'checkout', '.git'), { recursive: true });
    mkdirSync(path.join(ws, 'checkout', 'sub', 'dir'), { recursive: true });
    mkdirSync(path.join(ws, 'loose'));
    expect(repositoryRootOf(path.join(ws, 'checkout', 'sub'))).toBe(path.join(ws, 'checkout'));
    expect(dirInRepository(path.join(ws, 'checkout'), 'checkout')).toBe('');
    expect(dirInRepository(path.join(ws, 'checkout', 'sub', 'dir'), 'checkout/sub/dir')).toBe('sub/dir');
    // A worktree or submodule has a .git file.
    mkdirSync(path.join(ws, 'wt'));
    writeFileSync(path.join(ws, 'wt', '.git'), 'gitdir: /elsewhere\n');
    expect(dirInRepository(path.join(ws, 'wt'), 'wt')).toBe('');
    // No repository above: the workspace-relative path is all there is.
    expect(dirInRepository(path.join(ws, 'loose'), 'loose')).toBe(
      repositoryRootOf(ws) === undefined
        ? 'loose'
        : path.relative(repositoryRootOf(ws)!, path.join(ws, 'loose')),
    );
  });
});

describe("the checkout's origin", () => {
  it('reads owner/name from the origin remote in the forms git writes, and nothing else', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-origin-'));
    mkdirSync(path.join(root, '.git'));
    const origin = (url: string, remote = 'origin'): string | undefined => {
      writeFileSync(
        path.join(root, '.git', 'config'),
        `[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://github.com/other/thing\n[remote "${remote}"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
      );
      return originRepositoryOf(root);
    };
    expect(origin('https://github.com/octo/hello')).toBe('octo/hello');
    expect(origin('https://x-access-token:abc@ghe.example.com/octo/hello.git')).toBe('octo/hello');
    expect(origin('git@github.com:octo/hello.git')).toBe('octo/hello');
    expect(origin('ssh://git@github.com/octo/hello/')).toBe('octo/hello');
    expect(origin('https://github.com/octo/hello', 'fork')).toBeUndefined();
    expect(origin('/srv/git/hello')).toBeUndefined();
    expect(originRepositoryOf(path.join(root, 'nowhere'))).toBeUndefined();
  });
});

describe('where the recipe goes', () => {
  const prEvent = (over: { head?: string; headRepo?: string | null; name?: string } = {}) => ({
    name: over.name ?? 'pull_request',
    payload: {
      pull_request: {
        number: 3,
        head: {
          ref: over.head ?? 'feature',
          repo: over.headRepo === null ? null : { full_name: over.headRepo ?? 'octo/hello' },
        },
        base: { ref: 'main', repo: { full_name: 'octo/hello' } },
      },
      repository: { full_name: 'octo/hello', default_branch: 'main' },
    },
  });
  const ctxOf = (event: { name: string; payload: unknown }, ref = 'refs/pull/3/merge'): ActionContext => ({
    eventName: event.name,
    payload: event.payload as Record<string, unknown>,
    repository: { owner: 'octo', repo: 'hello' },
    ref,
    sha: '',
    workspace: '/w',
    serverUrl: 'https://github.com',
    apiUrl: API,
    runId: '1',
    runnerEnvironment: '',
    runnerTemp: '',
  });

  it('is the built branch outside pull requests, and per pull-request-target on them', () => {
    expect(destinationFor(ctxOf({ name: 'push', payload: {} }, 'refs/heads/dev'), 'comment')).toEqual({
      kind: 'pull-request',
      base: 'dev',
    });
    expect(destinationFor(ctxOf({ name: 'schedule', payload: {} }, ''), 'head')).toEqual({
      kind: 'pull-request',
    });
    expect(destinationFor(ctxOf(prEvent()), 'head')).toEqual({ kind: 'pull-request', base: 'feature' });
    expect(destinationFor(ctxOf(prEvent()), 'default')).toEqual({ kind: 'pull-request', base: 'main' });
    expect(destinationFor(ctxOf(prEvent()), 'comment')).toEqual({ kind: 'comment', number: 3 });
  });

  it("skips a fork's pull_request (read-only token) and buildbench's own pull request, saying why", () => {
    for (const target of ['head', 'default', 'comment'] as const) {
      expect(destinationFor(ctxOf(prEvent({ headRepo: 'mallory/hello' })), target)).toMatchObject({
        kind: 'skip',
        why: expect.stringContaining('comes from the fork mallory/hello') as unknown,
      });
      expect(destinationFor(ctxOf(prEvent({ headRepo: null })), target)).toMatchObject({ kind: 'skip' });
      expect(destinationFor(ctxOf(prEvent({ head: 'buildbench/build-main' })), target)).toMatchObject({
        kind: 'skip',
        why: expect.stringContaining("is buildbench's own") as unknown,
      });
    }
    // Dependabot's pull_request runs get a read-only token too.
    const bot = prEvent();
    (bot.payload as Record<string, unknown>).sender = { login: 'dependabot[bot]' };
    expect(destinationFor(ctxOf(bot), 'comment')).toMatchObject({
      kind: 'skip',
      why: expect.stringContaining('triggered by Dependabot') as unknown,
    });
    expect(destinationFor(ctxOf({ ...bot, name: 'pull_request_target' }), 'comment')).toEqual({
      kind: 'comment',
      number: 3,
    });
    // pull_request_target has a write token, but a fork's branch cannot be a base.
    const target = prEvent({ name: 'pull_request_target', headRepo: 'mallory/hello' });
    expect(destinationFor(ctxOf(target), 'head')).toMatchObject({
      kind: 'skip',
      why: expect.stringContaining('set pull-request-target: comment or default') as unknown,
    });
    expect(destinationFor(ctxOf(target), 'comment')).toEqual({ kind: 'comment', number: 3 });
  });

  it('explains the refusals GitHub answers with', () => {
    const err = (status: number, message: string) => Object.assign(new Error(message), { status });
    expect(
      explainWriteError(
        err(403, 'GitHub Actions is not permitted to create or approve pull requests.'),
        'pull-request',
      ),
    ).toBe(
      "GitHub Actions is not permitted to create or approve pull requests: turn on \"Allow GitHub Actions to create and approve pull requests\" in the repository's Settings → Actions → General → Workflow permissions (an organisation's repository needs the organisation's setting first), or pass a GitHub App token in the token input",
    );
    expect(explainWriteError(err(403, 'Resource not accessible by integration'), 'comment')).toMatch(
      /give the job `permissions:` pull-requests: write$/,
    );
    expect(explainWriteError(err(422, 'Validation Failed'), 'pull-request')).toBe('Validation Failed');
  });
});

describe('open-pull-request on pull requests, through the action', () => {
  let env: ActionEnv | undefined;
  afterEach(() => {
    env?.restore();
    env = undefined;
  });
  const prPayload = (headRepo: string) => ({
    pull_request: {
      number: 3,
      head: { ref: 'feature', repo: { full_name: headRepo } },
      base: { ref: 'main', repo: { full_name: 'octo/hello' } },
    },
    repository: { full_name: 'octo/hello', default_branch: 'main' },
  });
  const github = (token: string) =>
    createGitHubClient({ token, baseUrl: API, retries: 0, throttle: false, fetch: globalThis.fetch });

  /** The writes of a first pull request into `base`, recording the tree paths and the pull request. */
  function mockCreate(
    base: string,
    number: number,
    created: [number, Record<string, unknown>] = [
      201,
      { number, html_url: `https://github.com/octo/hello/pull/${number}` },
    ],
  ) {
    const rec = { paths: [] as string[], pr: {} as Record<string, unknown> };
    const scope = nock(API)
      .get(refPath('ref', `heads/${base}`))
      .reply(200, { object: { sha: BASE } })
      .get(refPath('ref', `heads/buildbench/build-${base}`))
      .reply(404, {})
      .get(`${REPO}/git/commits/${BASE}`)
      .reply(200, { tree: { sha: 't' } })
      .post(`${REPO}/git/blobs`)
      .times(4)
      .reply(201, { sha: 'blob' })
      .post(`${REPO}/git/commits`)
      .times(2)
      .reply(201, { sha: 'commit' })
      .post(`${REPO}/git/refs`)
      .reply(201, {})
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/pulls`, (body: Record<string, unknown>) => {
        rec.pr = body;
        return true;
      })
      .reply(...created);
    // One interceptor per tree: nock 15 loses a body matcher's request under .times().
    for (const n of [1, 2])
      scope
        .post(`${REPO}/git/trees`, (body: { tree: { path: string }[] }) => {
          rec.paths.push(...body.tree.map((e) => e.path));
          return true;
        })
        .reply(201, { sha: `tree-${n}` });
    return { scope, rec };
  }

  it('puts the files at the repository root when checkout used path:', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test', path: 'hello' } });
    mkdirSync(path.join(env.workspace, 'hello', '.git'), { recursive: true });
    writeFileSync(
      path.join(env.workspace, 'hello', '.git', 'config'),
      '[remote "origin"]\n\turl = https://github.com/Octo/Hello\n',
    );
    writeFileSync(path.join(env.workspace, 'hello', 'main.c'), 'x');
    const { scope, rec } = mockCreate('main', 7);
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.errors()).toEqual([]);
    expect(rec.paths).toEqual([
      'buildbench/RUNBOOK.md',
      'buildbench/build.sh',
      'buildbench/Dockerfile',
      'buildbench/patches/0001-fix-include.patch',
    ]);
  });

  it('opens nothing, with a notice, when the checkout is of another repository', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test', path: 'dep' } });
    mkdirSync(path.join(env.workspace, 'dep', '.git'), { recursive: true });
    writeFileSync(
      path.join(env.workspace, 'dep', '.git', 'config'),
      '[remote "origin"]\n\turl = https://github.com/madler/zlib\n',
    );
    writeFileSync(path.join(env.workspace, 'dep', 'main.c'), 'x');
    nock.disableNetConnect(); // any API call fails the step
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(env.errors()).toEqual([]);
    expect(env.commands('notice')).toEqual([
      '::notice::buildbench: no pull request: the built directory is a checkout of madler/zlib, not of octo/hello, where the pull request would go',
    ]);
    expect(env.outputs()['pull-request-operation']).toBe('none');
  });

  it("targets the pull request's head branch by default", async () => {
    env = setUpActionEnv({
      inputs: { 'open-pull-request': 'true', token: 'ghs_test' },
      event: { name: 'pull_request', payload: prPayload('octo/hello') },
      env: { GITHUB_REF: 'refs/pull/3/merge' },
    });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    const { scope, rec } = mockCreate('feature', 8);
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.errors()).toEqual([]);
    expect(rec.pr).toMatchObject({ base: 'feature', head: 'buildbench/build-feature' });
    expect(env.outputs()['pull-request-url']).toBe('https://github.com/octo/hello/pull/8');
  });

  it("skips a fork's pull request with a notice, writes nothing and passes the step", async () => {
    env = setUpActionEnv({
      inputs: { 'open-pull-request': 'true', token: 'ghs_test' },
      event: { name: 'pull_request', payload: prPayload('mallory/hello') },
      env: { GITHUB_REF: 'refs/pull/3/merge' },
    });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    nock.disableNetConnect(); // any API call fails the step
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(env.errors()).toEqual([]);
    expect(env.commands('notice')).toEqual([
      expect.stringMatching(
        /^::notice::buildbench: no pull request: pull request #3 comes from the fork mallory\/hello, and GitHub gives a fork's pull_request run a read-only token/,
      ),
    ]);
    expect(env.outputs()['pull-request-operation']).toBe('none');
    expect(env.summary()).toContain('comes from the fork mallory/hello');
  });

  it('comments the recipe on the pull request once, then updates that comment (pull-request-target: comment)', async () => {
    const setUp = (): ActionEnv =>
      setUpActionEnv({
        inputs: { 'open-pull-request': 'true', token: 'ghs_test', 'pull-request-target': 'comment' },
        event: { name: 'pull_request', payload: prPayload('octo/hello') },
        env: { GITHUB_REF: 'refs/pull/3/merge' },
      });
    env = setUp();
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    let created = '';
    let scope = nock(API)
      .get(`${REPO}/issues/3/comments`)
      .query(true)
      .reply(200, [{ id: 1, body: 'LGTM', html_url: 'https://github.com/octo/hello/pull/3#issuecomment-1' }])
      .post(`${REPO}/issues/3/comments`, (body: { body: string }) => {
        created = body.body;
        return true;
      })
      .reply(201, { id: 2, html_url: 'https://github.com/octo/hello/pull/3#issuecomment-2' });
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.errors()).toEqual([]);
    expect(env.outputs()['pull-request-operation']).toBe('created');
    expect(env.outputs()['pull-request-url']).toBe('https://github.com/octo/hello/pull/3#issuecomment-2');
    expect(created.startsWith(RECIPE_COMMENT_MARKER)).toBe(true);
    expect(created).toContain('<summary><code>build.sh</code></summary>');
    expect(created).toContain('cmake -B build && cmake --build build');
    expect(created).toContain('<summary><code>patches/0001-fix-include.patch</code></summary>');
    expect(created).toContain(
      '[the workflow run, with every file in its artifacts](https://github.com/octo/hello/actions/runs/77)',
    );
    env.restore();

    // The same outcome again: nothing written. Another outcome: the one comment is edited.
    env = setUp();
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    const existing = {
      id: 2,
      body: created,
      html_url: 'https://github.com/octo/hello/pull/3#issuecomment-2',
    };
    scope = nock(API).get(`${REPO}/issues/3/comments`).query(true).reply(200, [existing]);
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.outputs()['pull-request-operation']).toBe('none');
    env.restore();

    env = setUp();
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    let edited = '';
    scope = nock(API)
      .get(`${REPO}/issues/3/comments`)
      .query(true)
      .reply(200, [existing])
      .patch(`${REPO}/issues/comments/2`, (body: { body: string }) => {
        edited = body.body;
        return true;
      })
      .reply(200, {});
    await run({
      runBuild: fakeEngine(fakeResult({ artifacts: [{ path: 'build/hello2', kind: 'executable', size: 1 }] }))
        .engine,
      createGitHub: github,
      handleSignals: false,
    });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.outputs()['pull-request-operation']).toBe('updated');
    expect(edited).toContain('`build/hello2`');
    expect(edited.startsWith(RECIPE_COMMENT_MARKER)).toBe(true);
  });

  it('points at the repository setting when GitHub Actions may not create pull requests', async () => {
    env = setUpActionEnv({ inputs: { 'open-pull-request': 'true', token: 'ghs_test' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    const { scope } = mockCreate('main', 9, [
      403,
      { message: 'GitHub Actions is not permitted to create or approve pull requests.' },
    ]);
    await run({ runBuild: fakeEngine(fakeResult()).engine, createGitHub: github, handleSignals: false });
    expect(scope.pendingMocks()).toEqual([]);
    expect(env.errors()).toEqual([
      expect.stringMatching(
        /^could not open the pull request: GitHub Actions is not permitted to create or approve pull requests: turn on "Allow GitHub Actions to create and approve pull requests" in the repository's Settings → Actions → General → Workflow permissions/,
      ),
    ]);
  });
});
