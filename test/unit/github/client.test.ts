import { afterAll, afterEach, describe, expect, it } from '@jest/globals';

import { createGitHubClient, httpStatus, waitForRateLimit } from '../../../src/github/client.js';
import { VERSION } from '../../../src/base/version.js';
import nock from '../../helpers/nock.js';

const API = 'https://api.github.com';
const repo = { owner: 'octo', repo: 'hello' };

// nock patches process-wide modules: undo it so the next test file starts clean.
afterAll(() => nock.restore());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

function client(options: { retries?: number; maxWaitMs?: number; log?: (m: string) => void } = {}) {
  return createGitHubClient({
    token: 't',
    baseUrl: API,
    retries: options.retries ?? 3,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    // Backoff and retry-after in milliseconds instead of seconds.
    retryUnitMs: 1,
    fetch: globalThis.fetch,
    ...(options.log ? { log: options.log } : {}),
  });
}

describe('waitForRateLimit', () => {
  it('waits while retries are left and the wait fits', () => {
    const limits = { retries: 3, maxWaitMs: 60_000 };
    expect(waitForRateLimit(7, 0, limits)).toBe(true);
    expect(waitForRateLimit(60, 2, limits)).toBe(true);
    expect(waitForRateLimit(61, 0, limits)).toBe(false);
    expect(waitForRateLimit(1, 3, limits)).toBe(false);
  });
});

describe('GitHub client (retry and throttling plugins)', () => {
  it('retries server errors inside the client, invisible to the call site', async () => {
    nock.disableNetConnect();
    const scope = nock(API)
      .get('/repos/octo/hello')
      .reply(502, { message: 'Bad Gateway' })
      .get('/repos/octo/hello')
      .reply(500, { message: 'Server Error' })
      .get('/repos/octo/hello')
      .reply(200, { default_branch: 'main' });
    const { data } = await client().rest.repos.get(repo);
    expect(data.default_branch).toBe('main');
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('waits out a secondary rate limit for the time GitHub asks, and retries a bare 429', async () => {
    nock.disableNetConnect();
    const messages: string[] = [];
    const scope = nock(API)
      .get('/repos/octo/hello')
      .reply(403, { message: 'You have exceeded a secondary rate limit' }, { 'retry-after': '2' })
      .get('/repos/octo/hello')
      .reply(429, { message: 'slow down' }, { 'retry-after': '1' })
      .get('/repos/octo/hello')
      .reply(200, { default_branch: 'main' });
    const { data } = await client({ log: (m) => messages.push(m) }).rest.repos.get(repo);
    expect(data.default_branch).toBe('main');
    expect(scope.pendingMocks()).toEqual([]);
    expect(messages).toEqual([
      'GitHub secondary rate limit on GET /repos/{owner}/{repo}: retrying after 2 s',
    ]);
  });

  it('gives up on a primary limit that resets later than it may wait, with GitHub’s error', async () => {
    nock.disableNetConnect();
    const messages: string[] = [];
    const reset = Math.floor(Date.now() / 1000) + 3600;
    const scope = nock(API)
      .get('/repos/octo/hello')
      .reply(
        403,
        { message: 'API rate limit exceeded for installation' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      );
    // The wait is counted in retry units: 3600 s is 3.6 s of test time, more than the 1 s allowed.
    const error = await client({ maxWaitMs: 1000, log: (m) => messages.push(m) })
      .rest.repos.get(repo)
      .catch((e: unknown) => e);
    expect(httpStatus(error)).toBe(403);
    expect(String(error)).toMatch(/API rate limit exceeded/);
    expect(scope.pendingMocks()).toEqual([]);
    expect(messages[0]).toMatch(
      /^GitHub primary rate limit on GET \/repos\/\{owner\}\/\{repo\}: not waiting 360\d s \(retry 1 of 3, at most 1 s\)$/,
    );
  });

  it('does not retry answers, and not at all with retries: 0', async () => {
    nock.disableNetConnect();
    nock(API).get('/repos/octo/hello').reply(404, { message: 'Not Found' });
    expect(
      httpStatus(
        await client()
          .rest.repos.get(repo)
          .catch((e: unknown) => e),
      ),
    ).toBe(404);
    nock(API).get('/repos/octo/hello').reply(422, { message: 'Validation Failed' });
    expect(
      httpStatus(
        await client()
          .rest.repos.get(repo)
          .catch((e: unknown) => e),
      ),
    ).toBe(422);
    const scope = nock(API).get('/repos/octo/hello').reply(502, { message: 'Bad Gateway' });
    expect(
      httpStatus(
        await client({ retries: 0 })
          .rest.repos.get(repo)
          .catch((e: unknown) => e),
      ),
    ).toBe(502);
    expect(scope.pendingMocks()).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('GitHub client User-Agent', () => {
  it('names the product and its version before Octokit’s own', async () => {
    nock.disableNetConnect();
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    const product = new RegExp(`^buildbench/${VERSION.replace(/\./g, '\\.')} octokit-core\\.js/`);
    const scope = nock(API, { reqheaders: { 'user-agent': product } })
      .get('/repos/octo/hello')
      .reply(200, { default_branch: 'main' });
    await client({ retries: 0 }).rest.repos.get(repo);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('keeps a caller’s product name when one is given', async () => {
    nock.disableNetConnect();
    const scope = nock(API, { reqheaders: { 'user-agent': /^buildbench-bot\/2 / } })
      .get('/repos/octo/hello')
      .reply(200, {});
    await createGitHubClient({
      token: 't',
      baseUrl: API,
      retries: 0,
      fetch: globalThis.fetch,
      userAgent: 'buildbench-bot/2',
    }).rest.repos.get(repo);
    expect(scope.pendingMocks()).toEqual([]);
  });
});
