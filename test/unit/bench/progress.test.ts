import { describe, expect, it } from '@jest/globals';

import { createBenchProgress, formatSeconds } from '../../../src/bench/progress.js';
import type { BenchEvent } from '../../../src/bench/runner.js';
import type { BuildTask, RunRecord } from '../../../src/bench/types.js';

const task = (id: string): BuildTask => ({
  id,
  kind: 'build',
  repository: { source: '/r' },
  requires: [],
  budgets: {},
  notes: [],
  file: `/t/${id}.yml`,
  expected: [],
  instructions: [],
});

const record = (id: string, run: number, status: string, error?: string): RunRecord => ({
  schema: 'buildbench.run/v1',
  task: { id, kind: 'build' },
  run,
  strategy: 'rules',
  startedAt: '',
  finishedAt: '',
  status,
  ...(error ? { error } : {}),
});

const events: BenchEvent[] = [
  { type: 'plan', total: 4, done: 1, failed: 1, pending: 3, concurrency: 2 },
  { type: 'run-start', task: task('a'), run: 2 },
  { type: 'run-start', task: task('b'), run: 1 },
  { type: 'run-end', task: task('a'), run: 2, record: record('a', 2, 'success'), durationMs: 60_000 },
  { type: 'run-start', task: task('b'), run: 2 },
  {
    type: 'run-end',
    task: task('b'),
    run: 1,
    record: record('b', 1, 'error', 'no mirror'),
    durationMs: 20_000,
  },
  { type: 'run-cut', task: task('b'), run: 2 },
  { type: 'end', cancelled: true },
];

describe('bench progress', () => {
  it('prints plain lines with done / running / failed / ETA when stderr is not a terminal', () => {
    const lines: string[] = [];
    const progress = createBenchProgress({ write: (t: string) => lines.push(t), isTTY: false });
    for (const e of events) progress.onEvent(e);
    expect(lines.join('')).toBe(
      [
        'bench: 4 runs (1 already done, 1 of them failed), 2 at a time',
        'bench: start a #2',
        'bench: start b #1',
        // mean 60 s, 2 left, 2 slots
        'bench: a #2 success (1m00s) — 2/4 done, 1 running, 1 failed, ETA 1m00s',
        'bench: start b #2',
        // mean 40 s, 1 left, 1 slot
        'bench: b #1 error: no mirror (20s) — 3/4 done, 1 running, 2 failed, ETA 40s',
        'bench: b #2 cut off (resume redoes it)',
        'bench: cancelled: 3/4 done, 2 failed',
        '',
      ].join('\n'),
    );
  });

  it('draws a progress bar in place on a terminal', () => {
    const out: string[] = [];
    const progress = createBenchProgress({ write: (t: string) => out.push(t), isTTY: true });
    for (const e of events) progress.onEvent(e);
    const text = out.join('');
    expect(text).toContain('\x1B[?25l'); // the cursor hidden while drawing
    expect(text).toMatch(/bench \[[█░]+\] 1\/4 runs \| 0 running \| 1 failed \| ETA \?/);
    expect(text).toMatch(/bench \[[█░]+\] 3\/4 runs \| 0 running \| 2 failed \| ETA/);
    expect(text).toContain('bench: cancelled; resume with --resume');
    progress.stop(); // idempotent
  });

  it.each([
    [5, '5s'],
    [95, '1m35s'],
    [3700, '1h01m'],
  ])('formatSeconds(%d) = %s', (s, text) => {
    expect(formatSeconds(s)).toBe(text);
  });
});
