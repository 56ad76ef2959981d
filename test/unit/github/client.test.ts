import { afterAll, afterEach, describe, expect, it } from '@jest/globals';

import { createGitHubClient, retryDelayMs } from '../../../src/github/client.js';
import nock from '../../helpers/nock.js';

const API = 'https://api.github.com';

// nock patches process-wide modules: undo it so the next test file starts clean.
afterAll(() => nock.restore());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('GitHub client retries', () => {
  const err = (status: number, headers: Record<string, string> = {}, message = '') => ({
    status,
    message,
    response: { headers },
  });

  it('retries server errors with backoff and rate limits after the time GitHub asks for', () => {
    expect(retryDelayMs(err(502), 0, 60_000)).toBe(1000);
    expect(retryDelayMs(err(500), 2, 60_000)).toBe(4000);
    expect(retryDelayMs(err(429, { 'retry-after': '3' }), 0, 60_000)).toBe(3000);
    expect(
      retryDelayMs(err(403, { 'retry-after': '7' }, 'You have exceeded a secondary rate limit'), 0, 60_000),
    ).toBe(7000);
    expect(
      retryDelayMs(
        err(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '110' }),
        0,
        60_000,
        100_000,
      ),
    ).toBe(11_000);
  });

  it('does not retry answers, nor waits longer than allowed', () => {
    expect(retryDelayMs(err(404), 0, 60_000)).toBeUndefined();
    expect(retryDelayMs(err(422), 0, 60_000)).toBeUndefined();
    expect(retryDelayMs(err(403, {}, 'Resource not accessible by integration'), 0, 60_000)).toBeUndefined();
    expect(retryDelayMs(err(429, { 'retry-after': '3600' }), 0, 60_000)).toBeUndefined();
    expect(retryDelayMs(new Error('boom'), 0, 60_000)).toBeUndefined();
  });

  it('retries inside the client, invisible to the call site', async () => {
    nock.disableNetConnect();
    const scope = nock(API)
      .get('/repos/octo/hello')
      .reply(502, { message: 'Bad Gateway' })
      .get('/repos/octo/hello')
      .reply(429, { message: 'slow down' }, { 'retry-after': '0' })
      .get('/repos/octo/hello')
      .reply(200, { default_branch: 'main' });
    const client = createGitHubClient({
      token: 't',
      baseUrl: API,
      retries: 3,
      maxWaitMs: 10,
      fetch: globalThis.fetch,
    });
    const { data } = await client.rest.repos.get({ owner: 'octo', repo: 'hello' });
    expect(data.default_branch).toBe('main');
    expect(scope.pendingMocks()).toEqual([]);
  });
});
