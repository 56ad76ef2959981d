/**
 * `buildbench diagnose` measured on real failed build logs (test/fixtures/ci-logs, their provenance and
 * confirmed fixes in its README), scored by test/helpers/diagnosis-corpus.ts exactly as the unit test scores
 * them: how many logs get the right answer (the root cause and the confirmed fix, or silence of the right
 * kind for a failure that is not a build problem), for build problems and the rest, and how many fixes were
 * proposed that are wrong. Also the streaming throughput on a ~40 MB GitHub Actions log (timestamps, groups,
 * colours) with the error at the end. Run alone for the per-log table and the share per class:
 * `npx tsx bench/diagnose.ts`; in the suite: `npm run bench -- --only diagnose`.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

import { diagnoseLog, diagnoseLogStream, type Diagnosis } from '../src/knowledge/diagnose/diagnosis.js';
import {
  categoriesOf,
  describeDiagnosis,
  loadCorpus,
  resultTable,
  scoreDiagnosis,
  type CorpusLog,
  type Expectation,
  type Score,
} from '../test/helpers/diagnosis-corpus.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

export interface LogResult {
  log: CorpusLog;
  got: Diagnosis;
  score: Score;
}

/** Every corpus log diagnosed and scored, in file-name order. */
export async function scoreAll(): Promise<LogResult[]> {
  const rows: LogResult[] = [];
  for (const log of loadCorpus()) {
    const got = await diagnoseLog(log.text);
    rows.push({ log, got, score: scoreDiagnosis(log.want, got) });
  }
  return rows;
}

/** The class a log belongs to, for the per-class share: a not-build kind, or the build problem's (first) category. */
export function classOf(want: Expectation): string {
  if (!want.found) return want.kind;
  return categoriesOf(want)[0] ?? 'build';
}

/** A proposed fix that is not the confirmed one (or any fix where nothing should be proposed). */
function wrongFix(r: LogResult): boolean {
  return r.got.found && r.got.fix !== undefined && !r.score.right;
}

async function throughput(): Promise<BenchResult[]> {
  const line = (i: number): string =>
    `2024-05-01T10:00:00.${String(i % 10_000_000).padStart(7, '0')}Z \u001b[32m[ ${i % 100}%]\u001b[0m Building C object CMakeFiles/app.dir/src/file${i}.c.o\r\n`;
  const target = 40 * 1024 * 1024;
  let bytes = 0;
  function* chunks(): Generator<string> {
    let i = 0;
    yield '2024-05-01T10:00:00.0000000Z ##[group]Run cmake --build build\n';
    while (bytes < target) {
      let chunk = '';
      for (let k = 0; k < 2000; k++) chunk += line(i++);
      bytes += chunk.length;
      yield chunk;
    }
    yield '2024-05-01T10:00:00.0000000Z src/z.c:3:10: fatal error: zlib.h: No such file or directory\n';
    yield '2024-05-01T10:00:00.0000000Z ##[error]Process completed with exit code 2.\n';
  }
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const start = performance.now();
  const d = await diagnoseLogStream(Readable.from(chunks()));
  const seconds = (performance.now() - start) / 1000;
  const rss1 = process.memoryUsage().rss;
  if (!d.found || d.fix?.packages?.[0] !== 'zlib1g-dev')
    throw new Error(`throughput log misdiagnosed: ${describeDiagnosis(d)}`);
  return [
    {
      name: 'diagnose stream throughput (40 MB Actions log)',
      value: bytes / 1024 / 1024 / seconds,
      unit: 'MB/s',
    },
    { name: 'diagnose stream RSS rise', value: Math.max(0, (rss1 - rss0) / 1024 / 1024), unit: 'MB' },
  ];
}

export async function benchDiagnose(): Promise<BenchResult[]> {
  const rows = await scoreAll();
  const build = rows.filter((r) => r.log.want.found);
  const silent = rows.filter((r) => !r.log.want.found);
  const right = (list: LogResult[]): number => list.filter((r) => r.score.right).length;
  return [
    { name: 'diagnose real logs', value: rows.length, unit: 'logs' },
    { name: 'diagnose right', value: right(rows), unit: `of ${rows.length}` },
    { name: 'diagnose right share', value: (100 * right(rows)) / rows.length, unit: '%' },
    { name: 'diagnose build problems right', value: right(build), unit: `of ${build.length}` },
    {
      name: 'diagnose not-build failures right (silent, right kind)',
      value: right(silent),
      unit: `of ${silent.length}`,
    },
    { name: 'diagnose wrong fixes proposed', value: rows.filter(wrongFix).length, unit: 'logs' },
    ...(await throughput()),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await scoreAll();
  console.log(resultTable(rows));
  const classes = new Map<string, { right: number; all: number }>();
  for (const r of rows) {
    const c = classes.get(classOf(r.log.want)) ?? { right: 0, all: 0 };
    c.all++;
    if (r.score.right) c.right++;
    classes.set(classOf(r.log.want), c);
  }
  console.log('\n| class | right |\n|---|---|');
  for (const [name, c] of [...classes].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`| ${name} | ${c.right} of ${c.all} |`);
  console.log('');
  for (const r of await benchDiagnose())
    console.log(`${r.name}: ${r.value.toFixed(Number.isInteger(r.value) ? 0 : 1)} ${r.unit}`);
}
