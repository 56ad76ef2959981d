/** Small helpers for long-running work: bounded parallelism, and yielding to the event loop now and then. */
import { performance } from 'node:perf_hooks';

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the order of `items`.
 * The first failure rejects the whole call and no further items are started.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${String(limit)}`);
  }
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failed = true; // the other workers stop taking new items
        throw error;
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, items.length); i++) workers.push(worker());
  await Promise.all(workers);
  return results;
}

/**
 * Lets synchronous work run in slices: `due()` says the current slice has run `sliceMs` or longer, `pause()`
 * yields to the event loop (timers, I/O callbacks, signal handlers) and starts a new slice. For loops of
 * many fast system calls, where the synchronous calls are several times faster than their promise
 * versions but must not freeze the process.
 */
export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 10) {}

  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }

  /** `pause()` when the slice is used up. */
  async maybePause(): Promise<void> {
    if (this.due()) await this.pause();
  }
}
