/**
 * Start-up: how long the compiled CLI (lib/, what `bin/buildbench.js` runs; `npm run build` first) takes for
 * commands that need no sandbox and no model — `--version`, `build --help`, and a `diagnose` of a short log —
 * against a bare `node -e 0` measured in the same run. Each is the median of BB_BENCH_STARTUP_RUNS (default 7)
 * interleaved rounds; the "beyond node" rows are what the CLI itself costs (issue 32's bar: 150 ms). And a
 * model-less build's time to its first script, with the harness's part of it (bar: 300 ms), where the rootfs
 * sandbox runs.
 * Run alone: `npx tsx bench/run.ts --only startup`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { defaultSandboxSettings, rootfsProblems } from '../src/sandbox/index.js';
import type { BenchResult } from './run.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin/buildbench.js');

/** A short failed-build log: what `diagnose` reads in the measurement. */
const SHORT_LOG = [
  'gcc -O2 -c main.c -o main.o',
  'main.c:3:10: fatal error: zlib.h: No such file or directory',
  '    3 | #include <zlib.h>',
  '      |          ^~~~~~~~',
  'compilation terminated.',
  'make: *** [Makefile:4: main.o] Error 1',
].join('\n');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds of one run of `node <args>` (exit status ignored: `diagnose` exits 1 when it finds a cause). */
function timeOnce(args: string[]): number {
  const start = performance.now();
  try {
    execFileSync(process.execPath, args, { stdio: 'ignore' });
  } catch {
    // a non-zero exit is the command's answer, not a failure of the measurement
  }
  return performance.now() - start;
}

const MAKE_HELLO = path.join(ROOT, 'test/fixtures/repos/make-hello');

/** What result.json says of the harness before the first script. */
interface BeforeFirstScript {
  totalMs: number;
  sandboxMs: number;
  harnessMs: number;
}

/**
 * A model-less build of make-hello in the rootfs sandbox, `runs` times: its time to the first script and the
 * harness's part of it, not counting time inside sandbox commands (result.json `timings.beforeFirstScript`;
 * issue 32's bar: 300 ms). None where the rootfs sandbox cannot run (said on stderr).
 */
async function firstScriptRows(dir: string, runs: number): Promise<BenchResult[]> {
  const problems = await rootfsProblems(defaultSandboxSettings());
  if (problems.length > 0) {
    process.stderr.write(
      `startup: no build rows (the rootfs sandbox cannot run here: ${problems.join('; ')})\n`,
    );
    return [];
  }
  const seen: BeforeFirstScript[] = [];
  for (let i = 0; i <= runs; i++) {
    const out = path.join(dir, `build-${i}`);
    try {
      execFileSync(process.execPath, [BIN, 'build', MAKE_HELLO, '--sandbox', 'rootfs', '--out', out], {
        stdio: 'ignore',
      });
    } catch {
      // a failed build still writes result.json; a missing one is the error below
    }
    const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')) as {
      timings?: { beforeFirstScript?: BeforeFirstScript };
    };
    const early = result.timings?.beforeFirstScript;
    if (!early) throw new Error(`startup: ${out}/result.json has no timings.beforeFirstScript`);
    if (i > 0) seen.push(early); // the first run warms the cached layers and the file cache
  }
  const of = (key: keyof BeforeFirstScript): number => Math.round(median(seen.map((s) => s[key])));
  return [
    {
      name: `startup: build make-hello (rootfs), time to its first script (median of ${runs})`,
      value: of('totalMs'),
      unit: 'ms',
    },
    {
      name: 'startup: build make-hello (rootfs), inside sandbox commands before it',
      value: of('sandboxMs'),
      unit: 'ms',
    },
    {
      name: 'startup: build make-hello (rootfs), harness before its first script',
      value: of('harnessMs'),
      unit: 'ms',
    },
  ];
}

export async function benchStartup(): Promise<BenchResult[]> {
  if (!existsSync(path.join(ROOT, 'lib/cli/index.js')))
    throw new Error(
      'lib/ is not built: run `npm run build` first (the start-up bench measures the compiled CLI)',
    );
  const runs = Number(process.env.BB_BENCH_STARTUP_RUNS ?? 7);
  const dir = await mkdtemp(path.join(tmpdir(), 'bb-bench-startup-'));
  const log = path.join(dir, 'failed.log');
  await writeFile(log, `${SHORT_LOG}\n`);
  try {
    const commands: [string, string[]][] = [
      ['node -e 0', ['-e', '0']],
      ['buildbench --version', [BIN, '--version']],
      ['buildbench build --help', [BIN, 'build', '--help']],
      ['buildbench diagnose (6-line log)', [BIN, 'diagnose', log]],
    ];
    // Interleaved rounds (each command once per round, in turn): load that drifts during the run falls on every
    // command alike instead of on whichever ran last, so "beyond node" compares like with like.
    for (const [, args] of commands) timeOnce(args); // warm the file cache
    const times = new Map<string, number[]>(commands.map(([name]) => [name, []]));
    for (let round = 0; round < runs; round++)
      for (const [name, args] of commands) times.get(name)!.push(timeOnce(args));
    const medians = new Map([...times].map(([name, ms]) => [name, median(ms)]));
    const bare = medians.get('node -e 0')!;
    const rows: BenchResult[] = [];
    for (const [name, ms] of medians) {
      rows.push({ name: `startup: ${name} (median of ${runs})`, value: Math.round(ms), unit: 'ms' });
      if (name !== 'node -e 0')
        rows.push({ name: `startup: ${name}, beyond node`, value: Math.round(ms - bare), unit: 'ms' });
    }
    rows.push(...(await firstScriptRows(dir, runs)));
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
