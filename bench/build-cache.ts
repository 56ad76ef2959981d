/**
 * The shared build cache (src/sandbox/build-cache.ts), measured on real builds by `runBuild` in the rootfs
 * sandbox, side by side in one run:
 *
 * - a generated C project (CMake, 64 translation units of loops the optimiser works on, -O2), built
 *   with the recipe's replay in a fresh sandbox: without a build cache, with an empty one (cold) and with the
 *   one the cold run left (warm, as a second workflow run after a cache restore). The replay is the second
 *   full build of every success; with ccache it compiles nothing.
 * - the fixture test/fixtures/repos/missing-header, whose repair installs zlib1g-dev: the time of the turn
 *   that installs it, cold versus warm (the package comes from the cache, not the mirror).
 *
 * Run alone: `npx tsx bench/build-cache.ts`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import type { BuildResult } from '../src/report/result.js';
import { sandboxSettingsFrom } from '../src/core/settings.js';
import { rootfsProblems } from '../src/sandbox/index.js';
import type { SandboxSettings } from '../src/sandbox/types.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/repos');
const UNITS = 64;

/** A CMake project whose compile time dominates: UNITS files of arithmetic the optimiser has to work on. */
async function generateProject(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'src'), { recursive: true });
  const names: string[] = [];
  for (let i = 0; i < UNITS; i++) {
    const fns = Array.from(
      { length: 60 },
      (_, j) =>
        `double f${i}_${j}(double x) { double s = 0; for (int k = 0; k < ${50 + j}; k++) { s += (x * k + ${j}) / (k + 1.5); if (s > 1e6) s = s / 3.0 - k; } return s; }`,
    );
    names.push(`u${i}.c`);
    await writeFile(
      path.join(dir, 'src', `u${i}.c`),
      `${fns.join('\n')}\ndouble unit${i}(double x) { return ${fns.map((_, j) => `f${i}_${j}(x)`).join(' + ')}; }\n`,
    );
  }
  const decls = Array.from({ length: UNITS }, (_, i) => `double unit${i}(double);`).join('\n');
  const calls = Array.from({ length: UNITS }, (_, i) => `unit${i}(1.0)`).join(' + ');
  await writeFile(
    path.join(dir, 'src', 'main.c'),
    `#include <stdio.h>\n${decls}\nint main(void) { printf("%f\\n", ${calls}); return 0; }\n`,
  );
  await writeFile(
    path.join(dir, 'CMakeLists.txt'),
    `cmake_minimum_required(VERSION 3.10)\nproject(cachebench C)\nset(CMAKE_C_FLAGS "\${CMAKE_C_FLAGS} -O2")\nadd_executable(cachebench src/main.c ${names.map((n) => `src/${n}`).join(' ')})\n`,
  );
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

async function build(
  source: string,
  outDir: string,
  sandbox: SandboxSettings,
  expect: string[],
): Promise<{ result: BuildResult; wallMs: number }> {
  const started = performance.now();
  const result = await runBuild({
    source,
    outDir,
    strategy: 'rules',
    maxTurns: 5,
    timeoutMs: 20 * 60_000,
    turnTimeoutMs: 10 * 60_000,
    expect,
    json: false,
    keep: false,
    sandbox,
  });
  if (result.status !== 'success') {
    throw new Error(`${path.basename(source)} did not build (${result.status}: ${result.reason})`);
  }
  return { result, wallMs: performance.now() - started };
}

const replayMs = (r: BuildResult): number => r.recipe?.replay.durationMs ?? NaN;
const turnsMs = (r: BuildResult): number => r.turns.reduce((sum, t) => sum + t.durationMs, 0);

export async function benchBuildCache(): Promise<BenchResult[]> {
  const base = sandboxSettingsFrom(process.env, 'rootfs', undefined);
  const problems = await rootfsProblems(base);
  if (problems.length > 0)
    throw new Error(`the build-cache benchmark needs the rootfs sandbox: ${problems.join('; ')}`);
  const root = await mkdtemp(path.join(tmpdir(), 'bb-bench-build-cache-'));
  const { buildCache: _default, ...off } = base;
  const cold: SandboxSettings = { ...off, buildCache: path.join(root, 'build-cache') };
  const results: BenchResult[] = [];
  try {
    const project = path.join(root, 'project');
    await generateProject(project);
    // Cold first: the run without a cache then has the same warm page cache, so the comparison is not flattered.
    const first = await build(project, path.join(root, 'out-cold'), cold, ['cachebench']);
    const none = await build(project, path.join(root, 'out-none'), off, ['cachebench']);
    const second = await build(project, path.join(root, 'out-warm'), cold, ['cachebench']);
    results.push(
      {
        name: `generated C project (${UNITS + 1} files): build turns, no build cache`,
        value: round(turnsMs(none.result) / 1000),
        unit: 's',
      },
      {
        name: 'generated C project: replay, no build cache',
        value: round(replayMs(none.result) / 1000),
        unit: 's',
      },
      {
        name: 'generated C project: build turns, cold build cache',
        value: round(turnsMs(first.result) / 1000),
        unit: 's',
      },
      {
        name: 'generated C project: replay, cold build cache (ccache filled by the build)',
        value: round(replayMs(first.result) / 1000),
        unit: 's',
      },
      {
        name: 'generated C project: build turns, warm build cache',
        value: round(turnsMs(second.result) / 1000),
        unit: 's',
      },
      {
        name: 'generated C project: replay speed-up from the build cache (no cache / cold)',
        value: round(replayMs(none.result) / replayMs(first.result), 2),
        unit: 'x',
      },
      {
        name: 'generated C project: whole run, no build cache / warm build cache',
        value: round(none.wallMs / second.wallMs, 2),
        unit: 'x',
      },
    );

    const fixture = path.join(FIXTURES, 'missing-header');
    const pkgCache: SandboxSettings = { ...off, buildCache: path.join(root, 'pkg-cache') };
    const coldPkg = await build(fixture, path.join(root, 'out-pkg-cold'), pkgCache, ['zversion']);
    const warmPkg = await build(fixture, path.join(root, 'out-pkg-warm'), pkgCache, ['zversion']);
    const repairTurn = (r: BuildResult): number => r.turns.at(-1)?.durationMs ?? NaN;
    results.push(
      {
        name: 'missing-header: repair turn installing zlib1g-dev, cold build cache',
        value: round(repairTurn(coldPkg.result) / 1000, 2),
        unit: 's',
      },
      {
        name: 'missing-header: repair turn installing zlib1g-dev, warm build cache',
        value: round(repairTurn(warmPkg.result) / 1000, 2),
        unit: 's',
      },
      {
        name: 'missing-header: repair turn, cold / warm',
        value: round(repairTurn(coldPkg.result) / repairTurn(warmPkg.result), 2),
        unit: 'x',
      },
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await benchBuildCache()) console.log(`${r.name}\t${r.value} ${r.unit}`);
}
