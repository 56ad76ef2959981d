/**
 * nock for the GitHub API tests. nock 15 intercepts `fetch` through @mswjs/interceptors, which calls
 * `Promise.withResolvers` (Node ≥ 22); on Node 20 it is polyfilled here, for the tests only.
 */
import { afterAll, afterEach, beforeEach, expect } from '@jest/globals';
import nock from 'nock';

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const P = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: Resolvers<T>['resolve'];
    let reject!: Resolvers<T>['reject'];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

/*
 * nock patches fetch and node:http for the whole worker process, and jest runs test files one after another in it:
 * a file that leaves its nock active makes the next file's requests meet the stale instance, which has none of that
 * file's mocks ("No match"). Every test file that imports this helper undoes nock after its last test — the file
 * cannot forget to (config-cap.test.ts once did, and six tests in the file after it failed whenever jest ordered
 * them so).
 */
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

/**
 * The nock set-up of a test file that mocks every call it expects: no real network, and each test ends with no
 * unmatched call and no mock left unused. Returns the calls of the running test that matched no mock
 * (`METHOD url`), emptied before each test.
 */
export function strictNock(): string[] {
  const unmatched: string[] = [];
  const onNoMatch = (req: { method?: string; path?: string; href?: string }): void => {
    unmatched.push(`${req.method ?? ''} ${req.href ?? req.path ?? ''}`);
  };
  beforeEach(() => {
    nock.disableNetConnect();
    unmatched.length = 0;
    nock.emitter.on('no match', onNoMatch);
  });
  afterEach(() => {
    nock.emitter.removeListener('no match', onNoMatch);
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(unmatched).toEqual([]);
    expect(pending).toEqual([]);
  });
  return unmatched;
}

export default nock;
