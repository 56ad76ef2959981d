/**
 * What every backend's `exec` and `dispose` share (the review's duplicates D2, D6, D8): commands run one at a
 * time in the order they were given, none runs after dispose, and dispose cancels the running command, waits
 * for it to settle and only then releases the backend's resources (container, cgroups, build folder).
 */
import { SandboxError } from '../base/errors.js';
import { checkTimeout, combineSignals, SerialQueue } from './common.js';
import type { ExecOptions, ExecResult, Sandbox } from './types.js';

export abstract class QueuedSandbox implements Pick<Sandbox, 'id' | 'exec' | 'dispose'> {
  abstract readonly id: string;
  private readonly queue = new SerialQueue();
  /** Aborted by dispose: the running command is cancelled. */
  private readonly lifetime = new AbortController();
  private disposed = false;

  /** Queues the command behind the ones given before it; refuses after dispose or without a valid limit. */
  exec(script: string, options: ExecOptions): Promise<ExecResult> {
    return this.queue.run(() => {
      if (this.disposed) {
        throw new SandboxError(
          `sandbox ${this.id} was already disposed`,
          'create a new sandbox for further commands',
        );
      }
      checkTimeout(options.timeoutMs);
      return this.execNow(script, options, combineSignals(options.signal, this.lifetime.signal));
    });
  }

  /** Cancels the running command, waits for the queue to settle, then `release`s; a second call does nothing. */
  async dispose(options: { keep?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.lifetime.abort();
    await this.queue.idle();
    await this.release(options);
  }

  /**
   * Runs one command; called one at a time, never after dispose, with a checked `timeoutMs`. `signal` is the
   * caller's signal combined with the sandbox's lifetime: pass it to the process instead of `options.signal`.
   */
  protected abstract execNow(script: string, options: ExecOptions, signal: AbortSignal): Promise<ExecResult>;

  /** Frees what the backend holds once no command runs any more; `keep` leaves the build folder. */
  protected abstract release(options: { keep?: boolean }): Promise<void>;
}
