import { CancelledError, ProviderError } from '../base/errors.js';

/** What kind of failure an SDK reported, read from its error classes by each provider. */
export type SdkFailure =
  | { kind: 'abort' }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  | { kind: 'status'; status: number }
  | { kind: 'other' };

/** HTTP statuses worth trying again later: timeouts, conflicts, rate limits, server errors and overload (529). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Replaces every occurrence of the given secrets (8 characters or longer) in `text`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join('[REDACTED]');
  return out;
}

/**
 * Turns what is left after the SDK's retries into a typed error: CancelledError for an abort, otherwise a
 * ProviderError with the HTTP status and whether trying later could help. The message never carries the key.
 */
export function toProviderError(
  provider: string,
  failure: SdkFailure,
  error: unknown,
  options: { secrets: readonly string[]; keyHint: string },
): Error {
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw, options.secrets).replace(/\s+/g, ' ').trim().slice(0, 500);
  switch (failure.kind) {
    case 'abort':
      return new CancelledError(`${provider} request cancelled`);
    case 'timeout':
      return new ProviderError(
        `${provider}: the request timed out (${message})`,
        undefined,
        true,
        'the client retried it; raise the timeout or try later',
      );
    case 'connection':
      return new ProviderError(
        `${provider}: cannot reach the API (${message})`,
        undefined,
        true,
        'check the base URL and the network',
      );
    case 'status': {
      const { status } = failure;
      const hint =
        status === 401 || status === 403
          ? options.keyHint
          : status === 404
            ? 'check the model name and the base URL'
            : isRetryableStatus(status)
              ? 'the client retried it; try again later'
              : undefined;
      return new ProviderError(
        `${provider} API error ${status}: ${message}`,
        status,
        isRetryableStatus(status),
        hint,
      );
    }
    case 'other':
      return new ProviderError(`${provider}: ${message}`, undefined, false);
  }
}
