/**
 * buildbench against the commands run by hand, side by side in one run (issue 13's measure). For each
 * repository, both sides start cold on the same cached Debian toolchain layer: an empty package cache and no
 * ccache store.
 * - **buildbench**: `runBuild` with the rules strategy and a fresh, empty build cache; its whole wall time
 *   (the turns, the harness and the replay of the recipe in a fresh sandbox).
 * - **by hand**: a fresh rootfs sandbox without the build cache, the repository copied in, and one script run
 *   in /workspace: the commands a person who knows the repository types (its documented commands, with the
 *   `apt-get install` of what they need). A corpus entry names its hand script; a fixture has none, so its
 *   hand script is the verified build.sh buildbench wrote: the commands that are known to work, run once,
 *   without the harness. Timed from the sandbox's creation to its removal. A hand run that fails makes the
 *   comparison void for that repository (reported, left out of the ratios).
 * Before both, an untimed buildbench run of the same repository (its own empty build cache, thrown away)
 * warms whatever lies between this machine and the Debian mirror (a caching proxy), so neither timed side
 * meets it cold while the other meets it warm; both timed sides still start with empty local caches.
 * BB_BENCH_WARMUP=off leaves it out (buildbench then runs first, and any such cache favours the hand side).
 * BB_BENCH_REPEAT=n (1-9, default 1) runs each side n times in turn and takes each repository's median time.
 *
 * Reports per repository both wall times, their ratio, buildbench's turns, replay and harness seconds; over
 * all: the total ratio (sum over sum) and the median ratio, and turns per success.
 *
 * The corpus: the fixtures under test/fixtures/repos that are expected to build (BB_BENCH_FIXTURES limits
 * them; `none` leaves them out), and the entries of BB_BENCH_VS_HAND, a JSON file of real repositories:
 * `[{ "name": "tmux", "dir": "/path/to/checkout", "hand": "/path/to/tmux.sh", "expect": ["tmux"] }]`
 * (`hand` and `expect` optional). BB_BENCH_PREINSTALL=off builds without installing the declared
 * dependencies up front (turns per success before and after); BB_BENCH_REPLAY=always replays every recipe in
 * a new sandbox even when its first turn was its replay. Run alone: `npx tsx bench/vs-hand.ts`, or `npm run bench -- --only vs-hand`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import type { BuildResult } from '../src/report/result.js';
import { writeFileUnder } from '../src/base/safe-fs.js';
import { createRootfsSandbox } from '../src/sandbox/index.js';
import type { SandboxSettings } from '../src/sandbox/types.js';
import { quantile } from './harness-overhead.js';
import { FIXTURES, fixtureCorpus, round, type BenchResult } from './rules-vs-baseline.js';

export interface VsHandEntry {
  name: string;
  dir: string;
  /** The hand script's path; absent: the verified build.sh buildbench writes. */
  hand?: string;
  expect: string[];
}

/**
 * The entries of a BB_BENCH_VS_HAND file, each checked (the error names the file, entry and field). A relative
 * `hand` is read beside the file; an entry without `dir` is the checkout `<srcDir>/<name>` (BB_BENCH_VS_HAND_SRC:
 * the corpus in bench/vs-hand-corpus names each repository and commit, and its checkouts are not committed).
 */
export function readVsHandCorpus(file: string, text: string, srcDir?: string): VsHandEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message}); expected an array of entries`);
  }
  if (!Array.isArray(data)) throw new Error(`${file}: expected an array of { name, dir, hand?, expect? }`);
  const beside = (p: string): string => path.resolve(path.dirname(file), p);
  return data.map((raw: unknown, i): VsHandEntry => {
    const where = `${file}: entry ${i + 1}`;
    if (typeof raw !== 'object' || raw === null) throw new Error(`${where}: expected an object`);
    const e = raw as Record<string, unknown>;
    if (typeof e.name !== 'string' || !/^[\w.+-]+$/.test(e.name))
      throw new Error(`${where}: "name" must be a word (letters, digits, . + - _)`);
    if (e.dir === undefined && srcDir === undefined)
      throw new Error(
        `${where}: no "dir", and BB_BENCH_VS_HAND_SRC (the folder of the checkouts) is not set`,
      );
    const dir = typeof e.dir === 'string' ? path.resolve(e.dir) : path.join(srcDir ?? '', e.name);
    if ((e.dir !== undefined && typeof e.dir !== 'string') || !existsSync(dir))
      throw new Error(`${where}: "dir" must be the path of an existing checkout (${dir} is not there)`);
    if (e.hand !== undefined && (typeof e.hand !== 'string' || !existsSync(beside(e.hand))))
      throw new Error(`${where}: "hand" must be the path of an existing script`);
    if (e.expect !== undefined && (!Array.isArray(e.expect) || e.expect.some((x) => typeof x !== 'string')))
      throw new Error(`${where}: "expect" must be an array of binary names`);
    return {
      name: e.name,
      dir,
      ...(typeof e.hand === 'string' ? { hand: beside(e.hand) } : {}),
      expect: (e.expect as string[] | undefined) ?? [],
    };
  });
}

/**
 * One script run by hand in a fresh sandbox without the build cache; wall time from creation to removal. The
 * files beside it (a recipe's patches/) are placed with it in .buildbench/hand, as a person would have them.
 */
async function runByHand(
  settings: SandboxSettings,
  dir: string,
  script: string,
  files: { path: string; content: string }[] = [],
): Promise<{ ms: number; exitCode: number | null; tail: string }> {
  const started = performance.now();
  const sandbox = await createRootfsSandbox(settings, { repoDir: dir, name: 'by-hand' });
  let result;
  try {
    await writeFileUnder(sandbox.hostWorkdir, '.buildbench/hand/hand.sh', script, 0o755);
    for (const f of files) await writeFileUnder(sandbox.hostWorkdir, `.buildbench/hand/${f.path}`, f.content);
    result = await sandbox.exec('bash .buildbench/hand/hand.sh .', { timeoutMs: 30 * 60_000 });
  } finally {
    await sandbox.dispose();
  }
  return {
    ms: performance.now() - started,
    exitCode: result.exitCode,
    tail: result.output.trim().split('\n').slice(-3).join(' | '),
  };
}

interface Row {
  name: string;
  handSource: 'documented' | 'recipe';
  bbMs: number;
  handMs?: number;
  turns: number;
  success: boolean;
  replayMs: number;
  harnessMs: number;
  /**
   * The harness's time by phase: before the first script, each phase's share outside sandbox commands
   * (result.json's `timings.beforeFirstScript`, the sandbox's own commands counted apart as `sandbox_commands`),
   * and `after_first_script` (the rest: verifiers, finalize, result writing).
   */
  phases?: Record<string, number>;
  note?: string;
}

/** `Row.phases` from a result's timings. */
export function harnessPhases(timings: BuildResult['timings']): Record<string, number> | undefined {
  const before = timings.beforeFirstScript;
  if (!before || timings.harnessMs === undefined) return undefined;
  return {
    ...before.phases,
    sandbox_commands: before.sandboxMs,
    after_first_script: Math.max(0, timings.harnessMs - before.harnessMs),
  };
}

/**
 * The repositories a side-by-side benchmark builds: the fixtures expected to build (BB_BENCH_FIXTURES limits
 * them; `none` leaves them out), then the entries of BB_BENCH_VS_HAND (BB_BENCH_VS_HAND_ONLY limits them).
 */
export function benchEntries(corpus: { fixtures: string[]; expected: Map<string, string[]> }): VsHandEntry[] {
  const listed = process.env.BB_BENCH_FIXTURES?.split(',').filter(Boolean) ?? [];
  const only = listed.length > 0 ? listed : undefined;
  const fixtures =
    only?.[0] === 'none'
      ? []
      : corpus.fixtures.filter(
          (f) => (corpus.expected.get(f) ?? []).length > 0 && (!only || only.includes(f)),
        );
  const entries: VsHandEntry[] = fixtures.map((f) => ({
    name: f,
    dir: path.join(FIXTURES, f),
    expect: corpus.expected.get(f) ?? [],
  }));
  const file = process.env.BB_BENCH_VS_HAND;
  if (file) {
    const picked = process.env.BB_BENCH_VS_HAND_ONLY?.split(',').filter(Boolean);
    const real = readVsHandCorpus(file, readFileSync(file, 'utf8'), process.env.BB_BENCH_VS_HAND_SRC);
    entries.push(...real.filter((e) => !picked || picked.includes(e.name)));
  }
  return entries;
}

export async function benchVsHand(): Promise<BenchResult[]> {
  const corpus = await fixtureCorpus('vs-hand');
  const entries = benchEntries(corpus);
  if (entries.length === 0)
    throw new Error('vs-hand: nothing to compare (no fixture and no BB_BENCH_VS_HAND)');

  // BB_BENCH_PREINSTALL=off: no declared dependency installed before turn 0 (the "before" of issue 13).
  const preinstall = process.env.BB_BENCH_PREINSTALL !== 'off';
  // BB_BENCH_REPLAY=always: every recipe replayed in a new sandbox, as before the first turn could stand as it.
  const replayAlways = process.env.BB_BENCH_REPLAY === 'always';
  const warmup = process.env.BB_BENCH_WARMUP !== 'off';
  const repeat = Math.max(1, Math.min(9, Number.parseInt(process.env.BB_BENCH_REPEAT ?? '1', 10) || 1));
  const scratch = await mkdtemp(path.join(tmpdir(), 'bb-bench-vs-hand-'));
  const rows: Row[] = [];
  try {
    for (const entry of entries) {
      const build = async (label: string): Promise<{ result: BuildResult; outDir: string; ms: number }> => {
        const buildCache = await mkdtemp(path.join(scratch, `cache-${entry.name}-${label}-`));
        const outDir = path.join(scratch, `out-${entry.name}-${label}`);
        const started = performance.now();
        const result = await runBuild({
          source: entry.dir,
          outDir,
          strategy: 'rules',
          maxTurns: 10,
          timeoutMs: 45 * 60_000,
          turnTimeoutMs: 30 * 60_000,
          expect: entry.expect,
          json: false,
          keep: false,
          sandbox: { ...corpus.sandbox, buildCache },
          preinstall,
          ...(replayAlways ? { replay: 'always' as const } : {}),
        });
        const ms = performance.now() - started;
        await rm(buildCache, { recursive: true, force: true });
        return { result, outDir, ms };
      };
      if (warmup) await rm((await build('warmup')).outDir, { recursive: true, force: true });
      const { result, outDir, ms: firstMs } = await build('timed');
      const success = result.status === 'success' && result.recipe?.verified === true;
      // BB_BENCH_REPEAT=n: each side n times in turn (the first buildbench run gives the hand script), each
      // repository's time the median of its n: one run's apt downloads vary by 10-30%.
      const bbTimes = [firstMs];
      const handTimes: number[] = [];
      const row: Row = {
        name: entry.name,
        handSource: entry.hand ? 'documented' : 'recipe',
        bbMs: firstMs,
        turns: result.turns.length,
        success,
        replayMs: result.recipe?.replay.durationMs ?? 0,
        harnessMs: result.timings.harnessMs ?? 0,
      };
      const phases = harnessPhases(result.timings);
      if (phases) row.phases = phases;
      const handScript = entry.hand
        ? await readFile(entry.hand, 'utf8')
        : success
          ? await readFile(path.join(outDir, 'build.sh'), 'utf8')
          : undefined;
      if (handScript === undefined) {
        row.note = `buildbench did not verify a recipe (${result.status}): no hand script to run`;
      } else {
        const { buildCache: _off, ...noCache } = corpus.sandbox;
        const patches = entry.hand ? [] : (result.recipe?.files.patches ?? []);
        const files = await Promise.all(
          patches.map(async (p) => ({ path: p, content: await readFile(path.join(outDir, p), 'utf8') })),
        );
        const byHand = (): ReturnType<typeof runByHand> =>
          runByHand({ ...noCache, choice: 'rootfs' }, entry.dir, handScript, files);
        const hand = await byHand();
        if (hand.exitCode === 0) {
          handTimes.push(hand.ms);
          for (let i = 1; i < repeat; i++) {
            const again = await build(`timed-${i}`);
            await rm(again.outDir, { recursive: true, force: true });
            bbTimes.push(again.ms);
            const more = await byHand();
            if (more.exitCode === 0) handTimes.push(more.ms);
          }
          row.bbMs = quantile(bbTimes, 0.5);
          row.handMs = quantile(handTimes, 0.5);
        } else row.note = `the hand script failed (exit ${hand.exitCode}): ${hand.tail}`;
      }
      rows.push(row);
      const bbMs = row.bbMs;
      console.error(
        `bench: ${entry.name}: buildbench ${round(bbMs / 1000, 2)} s (${result.status}, ${row.turns} turn(s), replay ` +
          `${round(row.replayMs / 1000, 2)} s, harness ${round(row.harnessMs / 1000, 2)} s), by hand (${row.handSource}) ` +
          (row.handMs !== undefined
            ? `${round(row.handMs / 1000, 2)} s: ${round(bbMs / row.handMs, 2)}×`
            : `void: ${row.note}`),
      );
      await rm(outDir, { recursive: true, force: true });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return vsHandResults(rows);
}

/** The per-repository rows and the summary: total and median ratio over the compared repositories. */
export function vsHandResults(rows: readonly Row[]): BenchResult[] {
  const compared = rows.filter((r) => r.handMs !== undefined && r.success);
  const ratios = compared.map((r) => r.bbMs / r.handMs!);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const successes = rows.filter((r) => r.success);
  const out: BenchResult[] = [
    { name: 'vs_hand.repos', value: rows.length, unit: 'repos' },
    { name: 'vs_hand.compared', value: compared.length, unit: 'repos' },
    {
      name: 'vs_hand.total_ratio',
      value: compared.length
        ? round(sum(compared.map((r) => r.bbMs)) / sum(compared.map((r) => r.handMs!)), 2)
        : NaN,
      unit: 'x',
    },
    { name: 'vs_hand.median_ratio', value: round(quantile(ratios, 0.5), 2), unit: 'x' },
    {
      name: 'vs_hand.turns_per_success',
      value: successes.length ? round(sum(successes.map((r) => r.turns)) / successes.length, 2) : NaN,
      unit: 'turns',
    },
  ];
  // Where the harness's time goes over all repositories, by phase (issue 32: each phase kept measured).
  const byPhase = new Map<string, number>();
  for (const r of rows)
    for (const [phase, ms] of Object.entries(r.phases ?? {}))
      byPhase.set(phase, (byPhase.get(phase) ?? 0) + ms);
  for (const [phase, ms] of byPhase)
    out.push({ name: `vs_hand.harness_by_phase.${phase}`, value: round(ms / 1000, 2), unit: 's' });
  for (const r of rows) {
    const name = `vs_hand.${r.name}`;
    out.push(
      { name: `${name}.buildbench`, value: round(r.bbMs / 1000, 2), unit: 's' },
      { name: `${name}.turns`, value: r.turns, unit: 'turns' },
      { name: `${name}.replay`, value: round(r.replayMs / 1000, 2), unit: 's' },
      { name: `${name}.harness`, value: round(r.harnessMs / 1000, 2), unit: 's' },
    );
    if (r.handMs !== undefined) {
      out.push(
        { name: `${name}.by_hand_${r.handSource}`, value: round(r.handMs / 1000, 2), unit: 's' },
        { name: `${name}.ratio`, value: round(r.bbMs / r.handMs, 2), unit: 'x' },
      );
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && existsSync(FIXTURES)) {
  for (const metric of await benchVsHand()) console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
