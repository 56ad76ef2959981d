/**
 * The one GitHub client: Octokit from @actions/github with retries and rate-limit waits in the client's
 * request hook, never at call sites. @octokit/plugin-retry and @octokit/plugin-throttling are not
 * dependencies of this project; the hook below covers what they would: 5xx and 429 answers, secondary
 * rate limits (403 with `retry-after`) and an exhausted primary limit (`x-ratelimit-remaining: 0`).
 */
import { getOctokit } from '@actions/github';

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface GitHubClientOptions {
  token: string;
  /** REST API root, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  baseUrl: string;
  /** Retries after a failed request (default 3; tests pass 0). */
  retries?: number;
  /** The longest wait for a rate limit to reset before giving up (default 60 s). */
  maxWaitMs?: number;
  /** A fetch implementation (tests pass the global fetch so that nock sees the requests). */
  fetch?: typeof fetch;
  userAgent?: string;
}

interface HttpErrorLike {
  status?: number;
  response?: { headers?: Record<string, string | number | undefined> };
  message?: string;
}

const header = (error: HttpErrorLike, name: string): string | undefined => {
  const value = error.response?.headers?.[name];
  return value === undefined ? undefined : String(value);
};

/**
 * How long to wait before retrying a failed request, or undefined when it must not be retried.
 * Exported for tests.
 */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  maxWaitMs: number,
  now = Date.now(),
): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as HttpErrorLike;
  const status = e.status;
  if (status === undefined) return undefined;
  const retryAfter = header(e, 'retry-after');
  const remaining = header(e, 'x-ratelimit-remaining');
  const reset = header(e, 'x-ratelimit-reset');
  const rateLimited =
    status === 429 ||
    ((status === 403 || status === 429) &&
      (retryAfter !== undefined || remaining === '0' || /rate limit/i.test(e.message ?? '')));
  if (rateLimited) {
    let wait = 60_000;
    if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) wait = Number(retryAfter) * 1000;
    else if (remaining === '0' && reset !== undefined && /^\d+$/.test(reset))
      wait = Math.max(0, Number(reset) * 1000 - now) + 1000;
    return wait <= maxWaitMs ? wait : undefined;
  }
  // Server errors and timeouts; 4xx other than rate limits are answers, not accidents.
  if (status >= 500 && status !== 501) return Math.min(maxWaitMs, 1000 * 2 ** attempt);
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const retries = options.retries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const octokit = getOctokit(options.token, {
    baseUrl: options.baseUrl,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
  });
  octokit.hook.wrap('request', async (request, requestOptions) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(requestOptions);
      } catch (error) {
        const wait = attempt < retries ? retryDelayMs(error, attempt, maxWaitMs) : undefined;
        if (wait === undefined) throw error;
        await sleep(wait);
      }
    }
  });
  return octokit;
}

/** The HTTP status of an Octokit error, when it has one. */
export function httpStatus(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const { status } = error;
    if (typeof status === 'number') return status;
  }
  return undefined;
}
