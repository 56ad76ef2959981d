/**
 * `buildbench diagnose` measured on real failed build logs (test/fixtures/ci-logs, their provenance and
 * confirmed fixes in its README): how many build failures get the right root-cause category, how many the
 * right fix (the packages or the flag the thread confirms; no fix where nothing specific applies), how many
 * of the logs that should be silent are (flaky, not-build), and how many wrong fixes were proposed. Also
 * the streaming throughput on a ~40 MB GitHub Actions log (timestamps, groups, colours) with the error at
 * the end. Run alone for the per-log table: `npx tsx bench/diagnose.ts`.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { diagnoseLog, diagnoseLogStream, type Diagnosis } from '../src/knowledge/diagnose/diagnosis.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

interface Expected {
  found: boolean;
  category?: string;
  packages?: string[];
  flag?: string;
  noFix?: boolean;
  kind?: string;
}

const LOGS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/ci-logs');

export interface LogScore {
  log: string;
  expected: string;
  got: string;
  rootCause?: boolean;
  fix?: boolean;
  silence?: boolean;
  wrongFix: boolean;
}

function describe(d: Diagnosis): string {
  if (!d.found) return `silent: ${d.kind}`;
  const fix = d.fix
    ? d.fix.packages?.length
      ? d.fix.packages.join(',')
      : (d.fix.commands?.join('; ') ?? d.fix.kind)
    : 'no fix';
  return `${d.rootCause.category} (${d.rootCause.id}), ${fix}`;
}

/** Scores one log against its expectation. */
export function scoreLog(log: string, want: Expected, d: Diagnosis): LogScore {
  const expected = want.found
    ? `${want.category}, ${want.packages?.join(',') ?? want.flag ?? 'no fix'}`
    : `silent: ${want.kind}`;
  const score: LogScore = { log, expected, got: describe(d), wrongFix: false };
  if (!want.found) {
    score.silence = !d.found && d.kind === want.kind;
    score.wrongFix = d.found && d.fix !== undefined;
    return score;
  }
  score.rootCause = d.found && d.rootCause.category === want.category;
  if (!d.found) {
    score.fix = false;
    return score;
  }
  const fix = d.fix;
  if (want.noFix) score.fix = fix === undefined;
  else if (want.packages) score.fix = JSON.stringify(fix?.packages ?? []) === JSON.stringify(want.packages);
  else if (want.flag)
    score.fix = fix?.kind === 'flags' && (fix.commands ?? []).some((c) => c.includes(want.flag!));
  score.wrongFix = fix !== undefined && fix.kind !== 'commands' && !score.fix;
  return score;
}

export async function scoreAll(): Promise<LogScore[]> {
  const expected = JSON.parse(readFileSync(path.join(LOGS, 'expected.json'), 'utf8')) as Record<
    string,
    Expected
  >;
  const scores: LogScore[] = [];
  for (const [log, want] of Object.entries(expected))
    scores.push(scoreLog(log, want, await diagnoseLog(readFileSync(path.join(LOGS, log), 'utf8'))));
  return scores;
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
    throw new Error(`throughput log misdiagnosed: ${describe(d)}`);
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
  const scores = await scoreAll();
  const build = scores.filter((s) => s.rootCause !== undefined);
  const silent = scores.filter((s) => s.silence !== undefined);
  const count = (list: LogScore[], pick: (s: LogScore) => boolean | undefined): number =>
    list.filter((s) => pick(s) === true).length;
  return [
    { name: 'diagnose real logs', value: scores.length, unit: 'logs' },
    { name: 'diagnose build failures', value: build.length, unit: 'logs' },
    {
      name: 'diagnose correct root cause',
      value: count(build, (s) => s.rootCause),
      unit: `of ${build.length}`,
    },
    { name: 'diagnose correct fix', value: count(build, (s) => s.fix), unit: `of ${build.length}` },
    { name: 'diagnose logs that should be silent', value: silent.length, unit: 'logs' },
    { name: 'diagnose correct silence', value: count(silent, (s) => s.silence), unit: `of ${silent.length}` },
    { name: 'diagnose wrong fixes proposed', value: count(scores, (s) => s.wrongFix), unit: 'logs' },
    ...(await throughput()),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mark = (v: boolean | undefined): string => (v === undefined ? '' : v ? 'yes' : 'NO');
  console.log('| log | expected | got | root cause | fix | silence |');
  console.log('|---|---|---|---|---|---|');
  for (const s of await scoreAll())
    console.log(
      `| ${s.log} | ${s.expected} | ${s.got} | ${mark(s.rootCause)} | ${mark(s.fix)} | ${mark(s.silence)} |`,
    );
  for (const r of await benchDiagnose())
    console.log(`${r.name}: ${r.value.toFixed(Number.isInteger(r.value) ? 0 : 1)} ${r.unit}`);
}
