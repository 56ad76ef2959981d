/**
 * Provenance decides what the App may publish, end to end: the real server (`src/bot/server.ts`, started as
 * `npm run bot` starts it) against the local fake GitHub API (test/fakes/fake-github-api.ts), deliveries signed
 * over real HTTP, as in bot.e2e.int.test.ts (whose start-up this copies). A `/buildbench build` comment (stored in
 * the fake first, as GitHub stores a comment before it sends the webhook) is dispatched; the run's completion is
 * delivered with the App's status comment in its title, as the example workflow names it. With `forks: true`:
 * - a fork's pull request, SUCCESS → the status comment says why, and no ref, commit, tree, blob or pull request
 *   is written;
 * - a pull request of this repository, SUCCESS → the recipe pull request, as before;
 * - the same after the commenter lost write access → the comment only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

import { startFakeGitHubApi, type FakeGitHubApi } from '../fakes/fake-github-api.js';
import {
  buildCommand,
  ROOT,
  startBotServer,
  waitFor as waitForServer,
  type RunningServer,
} from '../helpers/bot-server.js';

const SECRET = 'e2e-provenance-secret';
const APP_ID = 4712;
const INSTALLATION_ID = 31338;
const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const SAME_REPO_PR = 1;
const FORK_PR = 2;
const PR_HEAD = 'fix-readme-spelling';
const FORK = 'octo-fork/Hello-World';
/** Git data and pull request writes: none of them may happen for a build the App may not publish. */
const WRITES = /^(POST|PATCH|PUT|DELETE) \/repos\/[^/]+\/[^/]+\/(git\/|pulls(\/\d+)?$|contents\/)/;

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/webhooks', name), 'utf8')) as Record<
    string,
    unknown
  >;
const golden = (rel: string): Buffer => readFileSync(path.join(ROOT, 'test/fixtures/golden', rel));

let fake: FakeGitHubApi;
let server: RunningServer;

const waitFor = <T>(what: string, probe: () => T | undefined): Promise<T> =>
  waitForServer(what, probe, 60_000, () => server.output());

async function deliver(event: string, id: string, payload: unknown): Promise<number> {
  return (await server.deliver(event, id, payload)).status;
}

/** A writer's `/buildbench build` on a pull request (see buildCommand); returns the status comment's id. */
const command = (pr: number, delivery: string): Promise<number> =>
  buildCommand({ fake, server, owner: OWNER, repo: REPO, installationId: INSTALLATION_ID, pr, delivery });

/** The completed run of what the App dispatched, as GitHub sends it: this repository's head, the dispatch's ref. */
function runPayload(runId: number, pr: number, stickyId: number, branch: string): Record<string, unknown> {
  const payload = fixture('workflow_run.completed.buildbench.json');
  const repository = {
    ...(payload.repository as Record<string, unknown>),
    id: fake.repo(OWNER, REPO).id,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { login: OWNER, type: 'User' },
    html_url: `https://github.com/${OWNER}/${REPO}`,
    default_branch: 'master',
  };
  Object.assign(payload.workflow_run as Record<string, unknown>, {
    id: runId,
    html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${runId}`,
    head_sha: fake.branchSha(OWNER, REPO, branch),
    head_branch: branch,
    display_title: `buildbench #${pr} comment ${stickyId}`,
    created_at: new Date().toISOString(),
    repository,
    head_repository: repository,
  });
  payload.repository = repository;
  payload.installation = { id: INSTALLATION_ID };
  fake.setArtifacts(runId, [
    {
      id: runId + 8000,
      name: 'buildbench',
      zip: zipSync({
        'result.json': golden('success/result.json'),
        'RUNBOOK.md': golden('success/RUNBOOK.md'),
        'build.sh': golden('action/build.sh'),
        Dockerfile: Buffer.from('FROM debian:bookworm\n'),
      }),
    },
  ]);
  return payload;
}

/** Delivers a completion and waits for the status comment's rewrite; returns the calls the App made for it. */
async function complete(
  payload: Record<string, unknown>,
  delivery: string,
  stickyId: number,
): Promise<string[]> {
  const from = fake.calls.length;
  const patches = (): number =>
    fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/issues/comments/${stickyId}`).length;
  const before = patches();
  expect(await deliver('workflow_run', delivery, payload)).toBeLessThan(300);
  await waitFor('the status comment', () => (patches() > before ? true : undefined));
  return fake.calls.slice(from).map((c) => `${c.method} ${c.path}`);
}

const plain = (text: string): string => text.replace(/\u200b/g, '');

beforeAll(async () => {
  fake = await startFakeGitHubApi({ appId: APP_ID });
  fake.repo(OWNER, REPO, { default_branch: 'master' });
  fake.seedFiles(OWNER, REPO, {
    'README.md': '# Hello World\n',
    '.github/buildbench.yml': 'forks: true\n',
  });
  fake.seedFiles(OWNER, REPO, { 'README.md': '# Hello World, spelt right\n' }, PR_HEAD);
  fake.addPull(OWNER, REPO, { number: SAME_REPO_PR, head: PR_HEAD, base: 'master', user: OWNER });
  fake.addPull(OWNER, REPO, {
    number: FORK_PR,
    head: 'wip',
    headRepo: FORK,
    base: 'master',
    user: 'stranger',
  });
  fake.setPermission(OWNER, REPO, OWNER, 'write');

  server = await startBotServer({ appId: APP_ID, secret: SECRET, githubHost: fake.host });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe('provenance decides what the App publishes (real server, fake GitHub)', () => {
  it('a fork’s pull request with forks: true, SUCCESS: the comment says so; no ref, commit or pull request', async () => {
    const stickyId = await command(FORK_PR, 'provenance-cmd-fork');
    // The dispatch the App made: the default branch (trusted workflow code) checking out the fork's head.
    expect(fake.dispatches.at(-1)).toMatchObject({
      ref: 'master',
      inputs: expect.objectContaining({ 'pull-request-ref': `refs/pull/${FORK_PR}/head` }),
    });
    // What GitHub sends back: the run is this repository's, on master — its head says nothing of the fork.
    const calls = await complete(
      runPayload(2001, FORK_PR, stickyId, 'master'),
      'provenance-run-fork',
      stickyId,
    );
    expect(calls).toContain(`GET /repos/${OWNER}/${REPO}/pulls/${FORK_PR}`);
    expect(calls.filter((c) => WRITES.test(c))).toEqual([]);
    expect(fake.branchSha(OWNER, REPO, 'buildbench/recipe')).toBeUndefined();
    expect(fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe')).toEqual([]);
    const body = plain(fake.comments.get(stickyId)!.body);
    expect(body).toContain('✅ buildbench: SUCCESS');
    expect(body).toContain(
      "No pull request: this build ran code from a fork, and the App never pushes a branch, a commit or a pull request for a fork's code, whatever .github/buildbench.yml says.",
    );
  });

  let sameRepoSticky = 0;

  it('a pull request of this repository, SUCCESS, asked by a writer: the recipe pull request, as before', async () => {
    sameRepoSticky = await command(SAME_REPO_PR, 'provenance-cmd-same');
    expect(fake.dispatches.at(-1)).toMatchObject({ ref: PR_HEAD });
    const calls = await complete(
      runPayload(2002, SAME_REPO_PR, sameRepoSticky, PR_HEAD),
      'provenance-run-same',
      sameRepoSticky,
    );
    expect(calls).toEqual(
      expect.arrayContaining([
        `GET /repos/${OWNER}/${REPO}/pulls/${SAME_REPO_PR}`,
        `GET /repos/${OWNER}/${REPO}/collaborators/${OWNER}/permission`,
        `POST /repos/${OWNER}/${REPO}/git/refs`,
        `POST /repos/${OWNER}/${REPO}/pulls`,
      ]),
    );
    const recipe = fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe');
    expect(recipe).toHaveLength(1);
    expect(recipe[0]!.base.ref).toBe(PR_HEAD);
    expect(fake.fileAt(OWNER, REPO, 'buildbench/recipe', 'README.md')).toBe('# Hello World, spelt right\n');
    expect(fake.comments.get(sameRepoSticky)!.body).toContain(
      `https://github.com/${OWNER}/${REPO}/pull/${recipe[0]!.number}`,
    );
  });

  it('the commenter lost write access before the run completed: the comment says why, nothing is published', async () => {
    const recipeBefore = fake.branchSha(OWNER, REPO, 'buildbench/recipe');
    fake.setPermission(OWNER, REPO, OWNER, 'read');
    const calls = await complete(
      runPayload(2003, SAME_REPO_PR, sameRepoSticky, PR_HEAD),
      'provenance-run-revoked',
      sameRepoSticky,
    );
    expect(calls).toContain(`GET /repos/${OWNER}/${REPO}/collaborators/${OWNER}/permission`);
    expect(calls.filter((c) => WRITES.test(c))).toEqual([]);
    expect(fake.branchSha(OWNER, REPO, 'buildbench/recipe')).toBe(recipeBefore);
    expect(plain(fake.comments.get(sameRepoSticky)!.body)).toContain(
      `No pull request: ${OWNER}, who asked for this build, now has read access to this repository, not write, so the App published nothing.`,
    );
  });
});
