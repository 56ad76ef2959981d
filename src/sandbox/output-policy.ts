/**
 * One place where every command's output is redacted and bounded, whatever the backend: `createSandbox`
 * wraps each sandbox so that `exec` streams the output through a line-buffered redactor first, then into a
 * bounded log file (head and tail, see log-file.ts), the in-memory output and the caller's `onOutput`. No
 * backend ever writes a log file itself, so none can write an unredacted or unbounded one.
 */
import { SandboxError } from '../base/errors.js';
import { BoundedLogWriter, DEFAULT_MAX_LOG_BYTES } from './log-file.js';
import { OutputCapture } from '../base/process.js';
import type { ExecOptions, ExecResult, OutputPolicy, Sandbox } from './types.js';

/** An error whose message went through `redact` (SandboxError messages quote a command's last lines). */
function redactError(error: unknown, redact: ((text: string) => string) | undefined): unknown {
  if (!redact || !(error instanceof Error)) return error;
  const message = redact(error.message);
  if (message !== error.message) error.message = message;
  return error;
}

/** Runs `exec` of `inner` with the output redacted, the log bounded and `logTruncated` set. */
export async function execWithPolicy(
  inner: Pick<Sandbox, 'exec'>,
  script: string,
  options: ExecOptions,
  policy: OutputPolicy,
): Promise<ExecResult> {
  const { logPath, onOutput: callerOnOutput, ...rest } = options;
  const redactor = policy.openRedactor?.();
  let log: BoundedLogWriter | undefined;
  if (logPath) {
    try {
      log = new BoundedLogWriter(logPath, policy.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES);
    } catch (error) {
      throw new SandboxError(
        `cannot create the log file ${logPath}: ${(error as Error).message}`,
        'choose a writable log location',
      );
    }
  }
  const capture = new OutputCapture();
  let logError: Error | undefined;
  const emit = (text: string): void => {
    if (text.length === 0) return;
    const buf = Buffer.from(text, 'utf8');
    capture.push(buf);
    if (log && !logError) {
      try {
        log.write(buf);
      } catch (error) {
        logError = error as Error;
      }
    }
    callerOnOutput?.(text);
  };
  const close = (): boolean => {
    emit(redactor?.end() ?? '');
    try {
      return log?.close().truncated ?? false;
    } catch (error) {
      logError ??= error as Error;
      return false;
    }
  };
  let result: ExecResult;
  try {
    result = await inner.exec(script, {
      ...rest,
      onOutput: (chunk) => emit(redactor ? redactor.push(chunk) : chunk),
    });
  } catch (error) {
    close();
    throw redactError(error, policy.redact);
  }
  const logTruncated = close();
  if (logError) {
    throw new SandboxError(
      `could not write the log file ${logPath}: ${logError.message}`,
      'check free disk space and permissions of the log folder',
    );
  }
  return {
    ...result,
    output: capture.text(logPath),
    truncated: capture.truncated,
    ...(logPath ? { logPath, logTruncated } : {}),
  };
}

/**
 * The sandbox with `exec` going through `policy` and `credentialsRemoved` set; every other member is the
 * inner sandbox's own (a Proxy, so members a backend adds are kept).
 */
export function withOutputPolicy(
  inner: Sandbox,
  policy: OutputPolicy,
  credentialsRemoved?: readonly string[],
): Sandbox {
  const exec = (script: string, options: ExecOptions): Promise<ExecResult> =>
    execWithPolicy(inner, script, options, policy);
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'exec') return exec;
      if (property === 'credentialsRemoved' && credentialsRemoved) return credentialsRemoved;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
