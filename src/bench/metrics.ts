/**
 * The numbers a leaderboard is made of: pass@k with the unbiased estimator of Chen et al. 2021 ("Evaluating
 * Large Language Models Trained on Code", §2.1), median and p90 of a sample, and rates. Pure functions; no
 * input is trusted to be well-formed (a bad count is a RangeError naming it, never a NaN in a table).
 */

function checkCount(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`pass@k: ${name} is ${value}; expected a whole number from ${min} to ${max}`);
}

/**
 * The chance that at least one of k runs drawn (without replacement) from n runs, c of which succeeded, is a
 * success: 1 − C(n−c, k) / C(n, k). Computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms the
 * binomials (they overflow past n ≈ 1000) and stays exact to a few ulps. 1 when fewer than k runs failed.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCount('n (runs)', n, 1, Number.MAX_SAFE_INTEGER);
  checkCount('c (successes)', c, 0, n);
  checkCount('k', k, 1, n);
  if (n - c < k) return 1;
  let missAll = 1;
  for (let i = n - c + 1; i <= n; i++) missAll *= 1 - k / i;
  return 1 - missAll;
}

/** pass@k for every k from 1 to n. */
export function passAtKs(n: number, c: number): number[] {
  return Array.from({ length: n }, (_, i) => passAtK(n, c, i + 1));
}

/** The middle value (the mean of the two middle ones for an even count); undefined for no values. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The nearest-rank percentile: the smallest value that at least p% of the values do not exceed (always one
 * of the values, so a p90 of wall times is a run that happened). undefined for no values.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile: p is ${p}; expected more than 0, at most 100`);
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A sample as the leaderboard shows it: how many values, their median and p90 (null when there are none). */
export interface Distribution {
  n: number;
  median: number | null;
  p90: number | null;
}

export function distribution(values: readonly number[]): Distribution {
  return { n: values.length, median: median(values) ?? null, p90: percentile(values, 90) ?? null };
}

/** count / total, or null when there is nothing to divide by. */
export function rate(count: number, total: number): number | null {
  return total > 0 ? count / total : null;
}

/** The arithmetic mean, or null for no values. */
export function mean(values: readonly number[]): number | null {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null;
}
