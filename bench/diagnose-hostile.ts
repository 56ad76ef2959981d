/**
 * Issue 28, "one log freezes the App": the diagnosis of a hostile 5 MiB CI log (16 KiB lines of `error` words,
 * 64 KiB lines of brackets, runs of one character and near-misses of every catalog keyword; then real build
 * output) against a benign 5 MiB log of real build output (test/fixtures/logs repeated), in the same run. Both
 * end in the same real lines, so the hostile log must come out with the benign log's root cause, found in the
 * real lines after the hostile ones (it was read to the end) — the suite fails otherwise, and when the hostile
 * log takes more than three times as long. Also the App's view: the event loop's longest delay while a worker
 * thread diagnoses the hostile log. Run alone: `npx tsx bench/run.ts --only diagnose-hostile`.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

import { diagnoseLog, type Diagnosis } from '../src/knowledge/diagnose/diagnosis.js';
import { diagnoseInWorker } from '../src/knowledge/diagnose/worker.js';
import { benignLog, hostileLog, realLogs } from '../test/helpers/hostile-log.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const SIZE = 5 * 1024 * 1024;
/** The most the hostile log may take, in multiples of the benign one. */
const MAX_RATIO = 3;

const cause = (d: Diagnosis): string => (d.found ? `${d.rootCause.id}: ${d.rootCause.message}` : d.reason);

/** The fastest of `runs` diagnoses of `text` (the machine is shared; the fastest is the least disturbed). */
async function fastest(text: string, runs: number): Promise<{ ms: number; diagnosis: Diagnosis }> {
  let best = { ms: Infinity, diagnosis: undefined as Diagnosis | undefined };
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const diagnosis = await diagnoseLog(text);
    const ms = performance.now() - start;
    if (ms < best.ms) best = { ms, diagnosis };
  }
  return { ms: best.ms, diagnosis: best.diagnosis! };
}

export async function benchDiagnoseHostile(): Promise<BenchResult[]> {
  const benign = benignLog(SIZE);
  const hostile = hostileLog(SIZE);
  await diagnoseLog(benign.slice(0, 512 * 1024)); // warm up
  const b = await fastest(benign, 2);
  const h = await fastest(hostile, 2);
  const ratio = h.ms / b.ms;

  if (!b.diagnosis.found) throw new Error(`the benign log found no root cause: ${cause(b.diagnosis)}`);
  if (cause(h.diagnosis) !== cause(b.diagnosis))
    throw new Error(`hostile log: root cause "${cause(h.diagnosis)}", benign: "${cause(b.diagnosis)}"`);
  const hostileLines = hostile.slice(0, hostile.length - realLogs().length).split('\n').length - 1;
  const at = h.diagnosis.found ? (h.diagnosis.rootCause.lines.at(-1)?.line ?? 0) : 0;
  if (at <= hostileLines)
    throw new Error(`hostile log: the root cause is quoted from line ${at}, before its real lines`);
  if (ratio > MAX_RATIO)
    throw new Error(`hostile log took ${ratio.toFixed(1)}x the benign one (at most ${MAX_RATIO}x)`);

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const start = performance.now();
  const inWorker = await diagnoseInWorker(hostile);
  const workerMs = performance.now() - start;
  delay.disable();
  if (cause(inWorker) !== cause(b.diagnosis))
    throw new Error(`hostile log in a worker: root cause "${cause(inWorker)}"`);

  return [
    { name: 'diagnose benign 5 MiB log', value: b.ms, unit: 'ms' },
    { name: 'diagnose hostile 5 MiB log', value: h.ms, unit: 'ms' },
    { name: 'diagnose hostile / benign', value: ratio, unit: `x (target <= ${MAX_RATIO})` },
    { name: 'diagnose hostile root cause = benign', value: 1, unit: cause(h.diagnosis) },
    { name: 'diagnose hostile in a worker (with start-up)', value: workerMs, unit: 'ms' },
    { name: 'event loop max delay meanwhile', value: delay.max / 1e6, unit: 'ms' },
  ];
}
