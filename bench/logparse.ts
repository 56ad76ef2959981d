/**
 * Layer-1 log parser throughput and memory: writes a ~100 MB build log to a temporary file (compile commands,
 * CMake progress, warnings with source snippets, coloured lines, CRLF lines, a few very long link lines and
 * an error every few thousand lines), then parses it with `analyzeLogFile` (streaming) and reports MB/s and
 * how far RSS and the JS heap rose above their level before parsing. Also times `analyzeLog` on a 10 MB string.
 * Run alone: `npx tsx bench/logparse.ts`.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { analyzeLog, analyzeLogStream } from '../src/knowledge/diagnose/log-parser.js';
import { defaultSignatureCatalog } from '../src/knowledge/diagnose/signatures.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const MB = 1024 * 1024;

/** A deterministic pseudo-random sequence (the log is the same every run). */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ERRORS = [
  'src/mod{n}/file{n}.c:12:10: fatal error: zlib.h: No such file or directory',
  "src/mod{n}/file{n}.cpp:88:9: error: 'close' was not declared in this scope",
  "/usr/bin/ld: obj/file{n}.o: in function `run': file{n}.c:(.text+0x1e): undefined reference to `inflateInit_'",
  "src/mod{n}/file{n}.c:57:17: error: 'strncpy' output truncated [-Werror=stringop-truncation]",
  'make[2]: *** [CMakeFiles/app.dir/build.make:90: CMakeFiles/app.dir/file{n}.c.o] Error 1',
  '  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)',
];

/** One chunk of build-log lines (about `bytes` long). */
export function chunk(next: () => number, start: number, bytes: number): { text: string; lines: number } {
  const parts: string[] = [];
  let size = 0;
  let n = start;
  while (size < bytes) {
    n++;
    const r = next();
    let line: string;
    if (n % 4000 === 0) {
      line = (ERRORS[n % ERRORS.length] as string).replaceAll('{n}', String(n % 97));
    } else if (n % 20000 === 0) {
      line = `/usr/bin/c++ -O2 -g ${Array.from({ length: 400 }, (_, i) => `obj/dir${i}/file${i}.o`).join(' ')} -o bin/app -lz -lpthread`;
    } else if (r < 0.35) {
      line = `/usr/bin/cc -DNDEBUG -I/build/repo/include -I/build/repo/src/mod${n % 97} -O2 -g -Wall -Wextra -std=gnu11 -fPIC -MD -MT CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o -MF CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o.d -o CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o -c /build/repo/src/mod${n % 97}/file${n}.c`;
    } else if (r < 0.6) {
      line = `[ ${String(Math.floor((n / 10000) % 100)).padStart(2)}%] Building C object CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o`;
    } else if (r < 0.7) {
      line = `\u001b[01m\u001b[K/build/repo/src/mod${n % 97}/file${n}.c:${n % 900}:${n % 80}:\u001b[m\u001b[K \u001b[01;35m\u001b[Kwarning: \u001b[m\u001b[Kunused variable '\u001b[01m\u001b[Ktmp${n}\u001b[m\u001b[K' [\u001b[01;35m\u001b[K-Wunused-variable\u001b[m\u001b[K]`;
    } else if (r < 0.8) {
      line = `  ${String(n % 900).padStart(4)} |     int tmp${n} = compute(buffer, length, flags);`;
    } else if (r < 0.85) {
      line = `      |         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\r`;
    } else if (r < 0.9) {
      line = `checking for function_${n} in -lm... ${r < 0.87 ? 'no' : 'yes'}`;
    } else {
      line = `-- Performing Test HAVE_FLAG_${n} - Success`;
    }
    parts.push(line);
    size += line.length + 1;
  }
  return { text: `${parts.join('\n')}\n`, lines: n - start };
}

async function writeLog(file: string, targetBytes: number): Promise<{ bytes: number; lines: number }> {
  const next = lcg(42);
  const handle = await open(file, 'w');
  let bytes = 0;
  let lines = 0;
  try {
    while (bytes < targetBytes) {
      const { text, lines: count } = chunk(next, lines, Math.min(MB, targetBytes - bytes));
      const buffer = Buffer.from(text);
      await handle.write(buffer);
      bytes += buffer.length;
      lines += count;
    }
  } finally {
    await handle.close();
  }
  return { bytes, lines };
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

export async function benchLogParse(options: { megabytes?: number } = {}): Promise<BenchResult[]> {
  const megabytes = options.megabytes ?? 100;
  const dir = await mkdtemp(path.join(tmpdir(), 'buildbench-logparse-'));
  const file = path.join(dir, 'build.log');
  try {
    const written = await writeLog(file, megabytes * MB);
    const size = (await stat(file)).size;
    defaultSignatureCatalog(); // load the catalog outside the timed part

    collect();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    let chunks = 0;
    async function* sampled(): AsyncGenerator<Buffer> {
      for await (const c of createReadStream(file, { highWaterMark: 256 * 1024 })) {
        if (++chunks % 16 === 0) {
          const m = process.memoryUsage();
          peakRss = Math.max(peakRss, m.rss);
          peakHeap = Math.max(peakHeap, m.heapUsed);
        }
        yield c as Buffer;
      }
    }
    const start = performance.now();
    const analysis = await analyzeLogStream(sampled());
    const seconds = (performance.now() - start) / 1000;
    const after = process.memoryUsage();
    peakRss = Math.max(peakRss, after.rss);
    peakHeap = Math.max(peakHeap, after.heapUsed);
    if (analysis.lines !== written.lines)
      throw new Error(`parsed ${analysis.lines} lines, wrote ${written.lines}`);

    // The in-memory entry point on a 10 MB string.
    const text = chunk(lcg(7), 0, 10 * MB).text;
    const t0 = performance.now();
    const small = analyzeLog(text);
    const inMemorySeconds = (performance.now() - t0) / 1000;

    return [
      { name: 'logparse stream: log size', value: Math.round(size / MB), unit: 'MB' },
      { name: 'logparse stream: throughput', value: Number((size / MB / seconds).toFixed(1)), unit: 'MB/s' },
      {
        name: 'logparse stream: lines per second',
        value: Math.round(analysis.lines / seconds),
        unit: 'lines/s',
      },
      {
        name: 'logparse stream: peak RSS above start',
        value: Number(((peakRss - before.rss) / MB).toFixed(1)),
        unit: 'MB',
      },
      {
        name: 'logparse stream: peak heap above start',
        value: Number(((peakHeap - before.heapUsed) / MB).toFixed(1)),
        unit: 'MB',
      },
      {
        name: 'logparse stream: findings (all, incl. beyond the stored 200)',
        value: Object.values(analysis.counts).reduce((a, b) => a + b, 0),
        unit: 'findings',
      },
      {
        name: 'logparse in-memory 10 MB: throughput',
        value: Number((Buffer.byteLength(text) / MB / inMemorySeconds).toFixed(1)),
        unit: 'MB/s',
      },
      { name: 'logparse in-memory 10 MB: findings stored', value: small.findings.length, unit: 'findings' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchLogParse())
    console.log(`${r.name.padEnd(62)} ${String(r.value).padStart(12)} ${r.unit}`);
}
