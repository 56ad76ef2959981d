/**
 * Progress while a script runs (issue 33): every interval one line with the turn, how long it has run, the log's
 * size, its last meaningful line and the log's path — and nothing once the turn ends, nor with the interval 0.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../../../src/agent/events.js';
import { createHeartbeat, lastMeaningfulLine } from '../../../src/core/progress.js';
import { parseProgressInterval } from '../../../src/core/settings.js';

const start = (outDir: string): RunEvent => ({
  type: 'run_start',
  repo: 'slow',
  source: '/w/slow',
  strategy: 'rules',
  maxTurns: 3,
  outDir,
});
const turn = (n: number): RunEvent => ({
  type: 'turn_start',
  turn: n,
  action: { kind: 'run', script: 'make', purpose: 'make', reason: 'Makefile found' },
});

describe('lastMeaningfulLine', () => {
  it('skips blank lines, progress bars and counters; keeps the last redraw; strips colours and controls', () => {
    expect(lastMeaningfulLine('compiling foo.c\n[=====>    ] 45%\n  \n')).toBe('compiling foo.c');
    expect(lastMeaningfulLine('Downloading 10%\rDownloading 55%\rDownloading 90%\n')).toBe('Downloading 90%');
    expect(lastMeaningfulLine('\u001b[32m[ 42%] Building CXX object src/a.o\u001b[0m\u0007\n')).toBe(
      '[ 42%] Building CXX object src/a.o',
    );
    expect(lastMeaningfulLine('x'.repeat(500))!.length).toBe(160);
    expect(lastMeaningfulLine('\n\n')).toBeUndefined();
  });
});

describe('the heartbeat', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('prints a line per interval while the turn runs, naming the log to follow, and stops at the turn end', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'bb-heartbeat-'));
    mkdirSync(path.join(out, 'logs'));
    const lines: string[] = [];
    const beat = createHeartbeat((l) => lines.push(l), 15_000);
    beat.listener(start(out));
    beat.listener(turn(0));
    jest.advanceTimersByTime(14_000);
    expect(lines).toEqual([]);
    jest.advanceTimersByTime(1_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /turn 0: still running after 15 s — no output yet \(follow logs\/turn-00\.log\)$/,
    );
    writeFileSync(
      path.join(out, 'logs', 'turn-00.log'),
      'make[1]: Entering directory\ncc -c big.c\n[###   ] 30%\n',
    );
    jest.advanceTimersByTime(15_000);
    expect(lines[1]).toMatch(
      /turn 0: still running after 30 s — log 53 B, last: "cc -c big.c" \(follow logs\/turn-00\.log\)$/,
    );
    beat.listener({ type: 'run_end', status: 'failed', reason: 'r' });
    jest.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(2);
  });

  it('prints nothing with the interval 0 (--progress-interval off)', () => {
    const lines: string[] = [];
    const beat = createHeartbeat((l) => lines.push(l), 0);
    beat.listener(start(mkdtempSync(path.join(tmpdir(), 'bb-heartbeat-'))));
    beat.listener(turn(0));
    jest.advanceTimersByTime(120_000);
    expect(lines).toEqual([]);
    beat.stop();
  });
});

describe('--progress-interval', () => {
  it('is 15 s by default, off with 0 or off, a duration otherwise, and names itself when wrong', () => {
    expect(parseProgressInterval(undefined, '--progress-interval')).toBe(15_000);
    expect(parseProgressInterval('off', '--progress-interval')).toBe(0);
    expect(parseProgressInterval('0', '--progress-interval')).toBe(0);
    expect(parseProgressInterval('1m30s', '--progress-interval')).toBe(90_000);
    expect(() => parseProgressInterval('soon', '--progress-interval')).toThrow(/--progress-interval/);
    expect(() => parseProgressInterval('500ms', '--progress-interval')).toThrow(/too short/);
  });
});
