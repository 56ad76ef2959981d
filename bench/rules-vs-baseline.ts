/**
 * Rules strategy against the GHCC baseline on every fixture repository under test/fixtures/repos (except
 * slow-script and silent-hang, which never end by design), each built for real by `runBuild` in the rootfs sandbox, one
 * build at a time. The expected binaries of each fixture come from the table in test/fixtures/repos/README.md
 * (the names in backticks of its "expected" column; `nothing` for fixtures that must fail), so strict success
 * means the same thing for both strategies. Reports per strategy: strict successes, total turns, total wall
 * time; and per fixture: strict (1/0), turns and wall time for each strategy.
 * Run alone: `npx tsx bench/rules-vs-baseline.ts`.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import { sandboxSettingsFrom, type StrategyChoice } from '../src/core/settings.js';
import { rootfsProblems } from '../src/sandbox/index.js';
import type { SandboxSettings } from '../src/sandbox/types.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/repos');
/**
 * Fixtures that are not builds to compare: slow-script runs until it is killed, silent-hang waits silently
 * until the idle limit ends it (`stalled`; test/integration/repair-round2.int.test.ts covers it).
 */
const SKIP = new Set(['slow-script', 'silent-hang']);
/** No fixture is silent this long while it builds; a script that waits (deploy-script) ends `stalled` in a minute. */
const IDLE_TIMEOUT_MS = 60_000;
const STRATEGIES: StrategyChoice[] = ['rules', 'baseline'];

/** fixture → expected binary names, from the README's table (`| name | what | expected |`). */
export function expectedFromReadme(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !/^[a-z0-9][\w.-]*$/.test(cells[1] ?? '')) continue;
    const names = [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)]
      .map((m) => m[1]!)
      .filter((n) => /^[\w.+-]+$/.test(n));
    out.set(cells[1]!, names);
  }
  return out;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * The fixture corpus a benchmark builds: the rootfs sandbox (checked first), each fixture's expected names
 * from the README's table, and the fixtures in order (slow-script left out); `bench` names the benchmark in
 * the error when the sandbox is missing.
 */
export async function fixtureCorpus(bench: string): Promise<{
  sandbox: SandboxSettings;
  expected: Map<string, string[]>;
  fixtures: string[];
}> {
  const sandbox = sandboxSettingsFrom(process.env, 'rootfs', undefined);
  const problems = await rootfsProblems(sandbox);
  if (problems.length > 0)
    throw new Error(`the ${bench} benchmark needs the rootfs sandbox: ${problems.join('; ')}`);
  const expected = expectedFromReadme(readFileSync(path.join(FIXTURES, 'README.md'), 'utf8'));
  const fixtures = readdirSync(FIXTURES)
    .filter((name) => !SKIP.has(name) && statSync(path.join(FIXTURES, name)).isDirectory())
    .sort();
  const missing = fixtures.filter((f) => !expected.has(f));
  if (missing.length > 0)
    throw new Error(`test/fixtures/repos/README.md has no line for ${missing.join(', ')}`);
  return { sandbox, expected, fixtures };
}

export async function benchRulesVsBaseline(): Promise<BenchResult[]> {
  const { sandbox, expected, fixtures } = await fixtureCorpus('rules-vs-baseline');

  const outRoot = await mkdtemp(path.join(tmpdir(), 'bb-bench-rules-'));
  const totals = new Map(STRATEGIES.map((s) => [s, { strict: 0, turns: 0, wallMs: 0 }]));
  const rows: BenchResult[] = [];
  try {
    for (const fixture of fixtures) {
      for (const strategy of STRATEGIES) {
        const started = performance.now();
        const result = await runBuild({
          source: path.join(FIXTURES, fixture),
          outDir: path.join(outRoot, `${fixture}-${strategy}`),
          strategy,
          maxTurns: 10,
          timeoutMs: 10 * 60_000,
          turnTimeoutMs: 5 * 60_000,
          idleTimeoutMs: IDLE_TIMEOUT_MS,
          expect: expected.get(fixture) ?? [],
          json: false,
          keep: false,
          sandbox,
        });
        const wallMs = performance.now() - started;
        // With no expected names any new binary would pass; fixtures that must fail expect nothing and build nothing.
        const strict = result.status === 'success' && result.metrics.strict ? 1 : 0;
        const total = totals.get(strategy)!;
        total.strict += strict;
        total.turns += result.turns.length;
        total.wallMs += wallMs;
        const name = `rules_vs_baseline.${fixture}.${strategy}`;
        rows.push(
          { name: `${name}.strict`, value: strict, unit: 'bool' },
          { name: `${name}.turns`, value: result.turns.length, unit: 'turns' },
          { name: `${name}.wall`, value: round(wallMs / 1000), unit: 's' },
        );
        console.error(
          `bench: ${fixture} ${strategy}: ${result.status}, ${result.turns.length} turn(s), ${round(wallMs / 1000)} s`,
        );
      }
    }
  } finally {
    await rm(outRoot, { recursive: true, force: true });
  }
  const summary: BenchResult[] = [
    { name: 'rules_vs_baseline.fixtures', value: fixtures.length, unit: 'repos' },
  ];
  for (const [strategy, total] of totals) {
    summary.push(
      { name: `rules_vs_baseline.${strategy}.strict_successes`, value: total.strict, unit: 'repos' },
      { name: `rules_vs_baseline.${strategy}.turns`, value: total.turns, unit: 'turns' },
      { name: `rules_vs_baseline.${strategy}.wall`, value: round(total.wallMs / 1000), unit: 's' },
    );
  }
  return [...summary, ...rows];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && existsSync(FIXTURES)) {
  for (const metric of await benchRulesVsBaseline())
    console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
