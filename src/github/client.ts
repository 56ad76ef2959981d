/**
 * The one GitHub client: Octokit from @actions/github with @octokit/plugin-retry (server errors, with
 * backoff) and @octokit/plugin-throttling (primary and secondary rate limits, and GitHub's pacing of writes).
 * Retries live here, never at call sites. A rate limit is waited out only while the wait GitHub asks for
 * fits `maxWaitMs`; past that the request fails with GitHub's own error. Every request names the product
 * in its User-Agent (`buildbench/<version>`, before Octokit's own), as GitHub asks of API clients.
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';

import { PRODUCT_USER_AGENT } from '../base/version.js';

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface GitHubClientOptions {
  token: string;
  /** REST API root, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  baseUrl: string;
  /** Retries after a failed request or a rate limit (default 3; tests pass 0). */
  retries?: number;
  /** The longest wait for a rate limit before giving up (default 60 s). */
  maxWaitMs?: number;
  /**
   * Time units of the plugins' waits (default 1000: the server-error backoff is 1 s, 4 s, 9 s, and
   * `retry-after` is in seconds). Tests pass a few milliseconds.
   */
  retryUnitMs?: number;
  /** Pace requests as GitHub asks (default true; tests of many writes turn it off). */
  throttle?: boolean;
  /** Where waits and give-ups are reported (default: nowhere). */
  log?: (message: string) => void;
  /** A fetch implementation (tests pass the global fetch so that nock sees the requests). */
  fetch?: typeof fetch;
  /** The product part of the User-Agent (default `buildbench/<version>`; Octokit appends its own). */
  userAgent?: string;
}

/**
 * Answers the retry plugin leaves alone: 4xx, and 403, whose rate-limit forms are the throttling plugin's.
 * A 429 is retried with backoff unless the throttling plugin recognised a rate limit in it first.
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 451];

/** Whether to wait `retryAfter` seconds for a rate limit on this request's `retryCount`-th retry. */
export function waitForRateLimit(
  retryAfterS: number,
  retryCount: number,
  limits: { retries: number; maxWaitMs: number },
): boolean {
  return retryCount < limits.retries && retryAfterS * 1000 <= limits.maxWaitMs;
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const retries = options.retries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const unit = options.retryUnitMs ?? 1000;
  const log = options.log ?? (() => undefined);
  const onLimit =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      const wait = waitForRateLimit(retryAfter, retryCount, { retries, maxWaitMs });
      log(
        `GitHub ${kind} rate limit on ${request.method} ${request.url}: ${wait ? `retrying after ${retryAfter} s` : `not waiting ${retryAfter} s (retry ${retryCount + 1} of ${retries}, at most ${Math.round(maxWaitMs / 1000)} s)`}`,
      );
      return wait;
    };
  return getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl,
      userAgent: options.userAgent || PRODUCT_USER_AGENT,
      ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
      retry: { enabled: retries > 0, retries, doNotRetry: DO_NOT_RETRY, retryAfterBaseValue: unit },
      throttle:
        options.throttle === false
          ? { enabled: false }
          : {
              retryAfterBaseValue: unit,
              onRateLimit: onLimit('primary'),
              onSecondaryRateLimit: onLimit('secondary'),
            },
    },
    retry,
    throttling,
  );
}

/** The HTTP status of an Octokit error, when it has one. */
export function httpStatus(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const { status } = error;
    if (typeof status === 'number') return status;
  }
  return undefined;
}
