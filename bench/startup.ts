/**
 * Start-up: how long the compiled CLI (lib/, what `bin/buildbench.js` runs; `npm run build` first) takes for
 * commands that need no sandbox and no model — `--version`, `build --help`, and a `diagnose` of a short log —
 * against a bare `node -e 0` measured in the same run. Each is the median of BB_BENCH_STARTUP_RUNS (default 7)
 * runs, one after the other; the "beyond node" rows are what the CLI itself costs (issue 32's bar: 150 ms).
 * Run alone: `npx tsx bench/run.ts --only startup`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
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
    const medians = new Map<string, number>();
    for (const [name, args] of commands) {
      timeOnce(args); // warm the file cache
      medians.set(name, median(Array.from({ length: runs }, () => timeOnce(args))));
    }
    const bare = medians.get('node -e 0')!;
    const rows: BenchResult[] = [];
    for (const [name, ms] of medians) {
      rows.push({ name: `startup: ${name} (median of ${runs})`, value: Math.round(ms), unit: 'ms' });
      if (name !== 'node -e 0')
        rows.push({ name: `startup: ${name}, beyond node`, value: Math.round(ms - bare), unit: 'ms' });
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
