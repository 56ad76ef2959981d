/**
 * nock for the GitHub API tests. nock 15 intercepts `fetch` through @mswjs/interceptors, which calls
 * `Promise.withResolvers` (Node ≥ 22); on Node 20 it is polyfilled here, for the tests only.
 */
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

export default nock;
