/** Small helpers for running many asynchronous operations with a bound on how many run at once. */

/** Runs `task` when fewer than `limit` tasks started through the same limiter are running. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * A limiter admitting at most `limit` tasks at a time, in the order they were submitted.
 * A task must not wait on another task of the same limiter, or both may wait forever.
 */
export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${String(limit)}`);
  }
  let running = 0;
  const queue: (() => void)[] = [];
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  return <T>(task: () => Promise<T>): Promise<T> => {
    const start = (): Promise<T> => {
      let result: Promise<T>;
      try {
        result = task();
      } catch (error) {
        result = Promise.reject(error as Error);
      }
      return result.finally(release);
    };
    if (running < limit) {
      running++;
      return start();
    }
    return new Promise<T>((resolve, reject) => {
      queue.push(() => {
        start().then(resolve, reject);
      });
    });
  };
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the order of `items`.
 * The first failure rejects the whole call and no further items are started.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
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
