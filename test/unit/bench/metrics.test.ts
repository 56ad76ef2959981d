import { describe, expect, it } from '@jest/globals';

import {
  distribution,
  mean,
  median,
  passAtK,
  passAtKs,
  percentile,
  rate,
} from '../../../src/bench/metrics.js';

/** C(n, k) exactly, with BigInt: an independent check of the product form. */
function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

describe('passAtK (the unbiased estimator of Chen et al. 2021)', () => {
  it('n=5, c=2: 1 - C(3,k)/C(5,k) for k = 1..5, computed by hand', () => {
    // k=1: 1 - 3/5; k=2: 1 - 3/10; k=3: 1 - 1/10; k=4, k=5: fewer than k failures, so 1
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 2, 3)).toBeCloseTo(0.9, 12);
    expect(passAtK(5, 2, 4)).toBe(1);
    expect(passAtK(5, 2, 5)).toBe(1);
    expect(passAtKs(5, 2).map((v) => Number(v.toFixed(12)))).toEqual([0.4, 0.7, 0.9, 1, 1]);
  });

  it('n=10, c=3, k=5: 1 - 21/252 = 11/12', () => {
    expect(passAtK(10, 3, 5)).toBeCloseTo(11 / 12, 12);
  });

  it('edge cases: no success is 0, all successes is 1, pass@1 is the success rate', () => {
    for (let k = 1; k <= 4; k++) expect(passAtK(4, 0, k)).toBe(0);
    for (let k = 1; k <= 4; k++) expect(passAtK(4, 4, k)).toBe(1);
    expect(passAtK(1, 1, 1)).toBe(1);
    expect(passAtK(1, 0, 1)).toBe(0);
    expect(passAtK(7, 3, 1)).toBeCloseTo(3 / 7, 12);
    // n - c < k: every draw of k runs holds a success
    expect(passAtK(6, 4, 3)).toBe(1);
  });

  it('stays exact where the binomials themselves overflow a double', () => {
    const n = 2000;
    const c = 10;
    const k = 100;
    // C(2000, 100) is about 1e180: fine as BigInt; compare against the exact ratio to 12 digits
    const scale = 10n ** 30n;
    const exactMiss = Number((binomial(n - c, k) * scale) / binomial(n, k)) / 1e30;
    expect(passAtK(n, c, k)).toBeCloseTo(1 - exactMiss, 12);
    expect(passAtK(n, 1, 1)).toBeCloseTo(1 / n, 15);
    expect(Number.isFinite(passAtK(100_000, 500, 50_000))).toBe(true);
  });

  it('refuses counts that make no sense, naming the count', () => {
    expect(() => passAtK(0, 0, 1)).toThrow(/n \(runs\) is 0/);
    expect(() => passAtK(3, 4, 1)).toThrow(/c \(successes\) is 4; expected a whole number from 0 to 3/);
    expect(() => passAtK(3, 1, 4)).toThrow(/k is 4; expected a whole number from 1 to 3/);
    expect(() => passAtK(3, 1, 0)).toThrow(/k is 0/);
    expect(() => passAtK(3, 1.5, 1)).toThrow(/c \(successes\) is 1.5/);
  });
});

describe('median, percentile, distribution, rate, mean', () => {
  it('median: middle value, mean of the two middle ones for an even count, undefined when empty', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeUndefined();
  });

  it('p90 is the nearest rank: one of the values', () => {
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile([...ten, 11], 90)).toBe(10);
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([1, 2], 90)).toBe(2);
    expect(percentile([], 90)).toBeUndefined();
    expect(() => percentile([1], 0)).toThrow(/p is 0/);
  });

  it('distribution, rate and mean answer null for nothing rather than NaN', () => {
    expect(distribution([30, 10, 20])).toEqual({ n: 3, median: 20, p90: 30 });
    expect(distribution([])).toEqual({ n: 0, median: null, p90: null });
    expect(rate(1, 4)).toBe(0.25);
    expect(rate(0, 0)).toBeNull();
    expect(mean([1, 2])).toBe(1.5);
    expect(mean([])).toBeNull();
  });
});
