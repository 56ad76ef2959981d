/**
 * Harness overhead: how much of a build's wall time is spent outside the sandbox's scripts (repository
 * lookups, inspection, snapshots and scans, artifact copies, sandbox and replay set-up, the trajectory
 * analysis, result writing). Every fixture repository under test/fixtures/repos (except slow-script, which
 * never ends by design) is built for real by `runBuild` with the rules strategy in the rootfs sandbox, one
 * build at a time; each result.json's `timings` gives the wall time, the time inside scripts (the turns and
 * the replay's build.sh) and the rest. Reports per fixture the harness share of the wall time, the harness
 * and wall seconds, and over all fixtures the median and p90 share.
 * `BB_BENCH_FIXTURES=make-hello,cmake-hello` limits the corpus (a quick look); run alone:
 * `npx tsx bench/harness-overhead.ts`, or `npx tsx bench/run.ts --only harness-overhead`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import { FIXTURES, fixtureCorpus, round, type BenchResult } from './rules-vs-baseline.js';

/** The q-quantile (0–1) of the values, by linear interpolation between the closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The corpus, or the fixtures BB_BENCH_FIXTURES names (each must be one of it). */
function fixturesToRun(all: string[]): string[] {
  const only = process.env.BB_BENCH_FIXTURES?.split(',').filter(Boolean);
  if (!only) return all;
  const unknown = only.filter((f) => !all.includes(f));
  if (unknown.length > 0)
    throw new Error(
      `BB_BENCH_FIXTURES names no fixture ${unknown.join(', ')} (expected some of ${all.join(', ')})`,
    );
  return only;
}

export async function benchHarnessOverhead(): Promise<BenchResult[]> {
  const corpus = await fixtureCorpus('harness-overhead');
  const { sandbox, expected } = corpus;
  const fixtures = fixturesToRun(corpus.fixtures);
  const outRoot = await mkdtemp(path.join(tmpdir(), 'bb-bench-harness-'));
  const rows: BenchResult[] = [];
  const shares: number[] = [];
  const harness: number[] = [];
  try {
    for (const fixture of fixtures) {
      const result = await runBuild({
        source: path.join(FIXTURES, fixture),
        outDir: path.join(outRoot, fixture),
        strategy: 'rules',
        maxTurns: 10,
        timeoutMs: 10 * 60_000,
        turnTimeoutMs: 5 * 60_000,
        expect: expected.get(fixture) ?? [],
        json: false,
        keep: false,
        sandbox,
      });
      const { totalMs, scriptsMs, harnessMs, harnessShare } = result.timings;
      if (scriptsMs === undefined || harnessMs === undefined || harnessShare === undefined)
        throw new Error(`${fixture}: result.json has no scriptsMs/harnessMs/harnessShare in its timings`);
      shares.push(harnessShare);
      harness.push(harnessMs);
      const name = `harness_overhead.${fixture}`;
      rows.push(
        { name: `${name}.share`, value: round(harnessShare * 100), unit: '%' },
        { name: `${name}.harness`, value: round(harnessMs / 1000, 2), unit: 's' },
        { name: `${name}.wall`, value: round(totalMs / 1000, 2), unit: 's' },
        { name: `${name}.turns`, value: result.turns.length, unit: 'turns' },
      );
      console.error(
        `bench: ${fixture}: ${result.status}, ${result.turns.length} turn(s), wall ${round(totalMs / 1000, 2)} s, ` +
          `scripts ${round(scriptsMs / 1000, 2)} s, harness ${round(harnessMs / 1000, 2)} s (${round(harnessShare * 100)}%)`,
      );
    }
  } finally {
    await rm(outRoot, { recursive: true, force: true });
  }
  return [
    { name: 'harness_overhead.fixtures', value: fixtures.length, unit: 'repos' },
    { name: 'harness_overhead.median_share', value: round(quantile(shares, 0.5) * 100), unit: '%' },
    { name: 'harness_overhead.p90_share', value: round(quantile(shares, 0.9) * 100), unit: '%' },
    { name: 'harness_overhead.median_harness', value: round(quantile(harness, 0.5) / 1000, 2), unit: 's' },
    ...rows,
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && existsSync(FIXTURES)) {
  for (const metric of await benchHarnessOverhead())
    console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
