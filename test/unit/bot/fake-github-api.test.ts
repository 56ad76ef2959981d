/**
 * The fake GitHub API (test/fakes/fake-github-api.ts) answers as GitHub does where the bot's flows depend on
 * it: auth, redirects, pagination, contents read back through the git objects a flow wrote, refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ProbotOctokit } from 'probot';

import { startFakeGitHubApi, type FakeGitHubApi } from '../../fakes/fake-github-api.js';

const TOKEN = 'ghs_test';
let fake: FakeGitHubApi;
let octokit: InstanceType<typeof ProbotOctokit>;
beforeAll(async () => {
  fake = await startFakeGitHubApi({ tokens: [TOKEN], appId: 9 });
  const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
  octokit = new Octokit({ auth: { token: TOKEN }, baseUrl: fake.url });
});
afterAll(async () => {
  await fake.close();
});

const status = async (p: Promise<unknown>): Promise<number> =>
  p.then(
    () => 200,
    (e: unknown) => (e as { status: number }).status,
  );

describe('the fake GitHub API', () => {
  it('refuses an unknown token and a token exchange without a JWT of the app', async () => {
    const res = await fetch(`${fake.url}/repos/o/r`, { headers: { authorization: 'token nope' } });
    expect(res.status).toBe(401);
    const jwt = (iss: number): string =>
      ['e30', Buffer.from(JSON.stringify({ iss })).toString('base64url'), 'sig'].join('.');
    const exchange = (auth: string): Promise<Response> =>
      fetch(`${fake.url}/app/installations/1/access_tokens`, {
        method: 'POST',
        headers: { authorization: auth },
      });
    expect((await exchange(`Bearer ${jwt(8)}`)).status).toBe(401);
    const ok = await exchange(`Bearer ${jwt(9)}`);
    expect(ok.status).toBe(201);
    const { token } = (await ok.json()) as { token: string };
    expect(fake.issuedTokens.has(token)).toBe(true);
  });

  it('serves contents raw, 404 when absent, and reads back what the git API committed', async () => {
    const base = fake.seedFiles('o', 'r', { 'a.txt': 'one\n' });
    const raw = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      owner: 'o',
      repo: 'r',
      path: 'a.txt',
      mediaType: { format: 'raw' },
    });
    expect(raw.data).toBe('one\n');
    expect(await status(octokit.rest.repos.getContent({ owner: 'o', repo: 'r', path: 'missing' }))).toBe(404);

    const { data: blob } = await octokit.rest.git.createBlob({ owner: 'o', repo: 'r', content: 'two\n' });
    const { data: baseCommit } = await octokit.rest.git.getCommit({
      owner: 'o',
      repo: 'r',
      commit_sha: base,
    });
    const { data: tree } = await octokit.rest.git.createTree({
      owner: 'o',
      repo: 'r',
      base_tree: baseCommit.tree.sha,
      tree: [{ path: 'dir/b.txt', mode: '100644', type: 'blob', sha: blob.sha }],
    });
    const { data: commit } = await octokit.rest.git.createCommit({
      owner: 'o',
      repo: 'r',
      message: 'add b',
      tree: tree.sha,
      parents: [base],
    });
    await octokit.rest.git.createRef({ owner: 'o', repo: 'r', ref: 'refs/heads/topic', sha: commit.sha });
    expect(fake.fileAt('o', 'r', 'topic', 'dir/b.txt')).toBe('two\n');
    expect(fake.fileAt('o', 'r', 'topic', 'a.txt')).toBe('one\n');
    const { data: cmp } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: 'o',
      repo: 'r',
      basehead: `${base}...${commit.sha}`,
    });
    expect(cmp).toMatchObject({
      ahead_by: 1,
      behind_by: 0,
      files: [{ filename: 'dir/b.txt', sha: blob.sha, status: 'added' }],
    });
    // Moving main back to a commit it does not descend from needs force, as on GitHub.
    const { data: other } = await octokit.rest.git.createCommit({
      owner: 'o',
      repo: 'r',
      message: 'x',
      tree: tree.sha,
      parents: [],
    });
    expect(
      await status(octokit.rest.git.updateRef({ owner: 'o', repo: 'r', ref: 'heads/topic', sha: other.sha })),
    ).toBe(422);
    expect(
      await status(
        octokit.rest.git.updateRef({
          owner: 'o',
          repo: 'r',
          ref: 'heads/topic',
          sha: other.sha,
          force: true,
        }),
      ),
    ).toBe(200);
  });

  it('paginates comments with a Link header, follows the log redirect, refuses a second PR from one head', async () => {
    for (let i = 0; i < 5; i++) fake.addComment('o', 'r', 3, `c${i}`);
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      owner: 'o',
      repo: 'r',
      issue_number: 3,
      per_page: 2,
    });
    expect(all.map((c) => c.body)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(fake.callsTo('GET', '/repos/o/r/issues/3/comments')).toHaveLength(3);

    fake.setJobs(5, [{ id: 51, name: 'build', conclusion: 'failure', log: 'error: boom\n' }]);
    const log = await octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      owner: 'o',
      repo: 'r',
      job_id: 51,
    });
    expect(String(log.data)).toBe('error: boom\n');

    const pr = await octokit.rest.pulls.create({
      owner: 'o',
      repo: 'r',
      head: 'topic',
      base: 'main',
      title: 't',
    });
    expect(pr.status).toBe(201);
    expect(
      await status(
        octokit.rest.pulls.create({ owner: 'o', repo: 'r', head: 'topic', base: 'main', title: 't' }),
      ),
    ).toBe(422);
  });
});
