/**
 * src/base/ is the ground floor (floor 0): what every other folder may use and that knows nothing of
 * builds, sandboxes or agents. It imports nothing from src outside itself. It holds the typed errors (this
 * file), the run's status words (`status.ts`), the one host process runner (`process.ts runProcess`:
 * process-group kill, head+tail output, log file), shell quoting (`shell.ts`), bounded parallel map
 * (`concurrency.ts`), symlink-safe file access (`safe-fs.ts`) and folder creation (`make-dir.ts`).
 *
 * Typed errors. Each carries a message meant for a person: what was wrong and what was expected.
 */

export class BuildbenchError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, settings or input files. Never retried; the CLI exits 2. */
export class ConfigError extends BuildbenchError {}

/** A sandbox could not be created, entered or cleaned up. */
export class SandboxError extends BuildbenchError {}

/**
 * A model provider failed after its client's own retries (or with an error retries cannot fix: a bad key, a
 * bad request). `status` is the HTTP status when there was a response; `retryable` says whether trying again
 * later could help (rate limits, overload, server errors, timeouts, connection failures).
 */
export class ProviderError extends BuildbenchError {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/** The run was cancelled (Ctrl-C, SIGTERM, an abort signal). */
export class CancelledError extends BuildbenchError {
  constructor(message = 'cancelled') {
    super(message);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof BuildbenchError)
    return error.hint ? `${error.message} (${error.hint})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
