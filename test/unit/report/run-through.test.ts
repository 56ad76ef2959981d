/** The run-through check (issue 31): a success needs a last turn and a verifying replay that exited 0. */
import { describe, expect, it } from '@jest/globals';
import { successWithoutRunThrough } from '../../../src/report/run-through.js';

describe('successWithoutRunThrough', () => {
  it('finds a success whose last turn or verifying replay did not run through, and nothing else', () => {
    const turns = (...codes: (number | null)[]) => codes.map((exitCode, turn) => ({ turn, exitCode }));
    expect(successWithoutRunThrough({ status: 'success', turns: turns(2, 0) })).toEqual([]);
    expect(successWithoutRunThrough({ status: 'success', turns: turns(0, 2) })).toEqual([
      'status success, but its last turn (1) exited 2',
    ]);
    expect(
      successWithoutRunThrough({ status: 'success', turns: [{ turn: 0, exitCode: 124, timedOut: true }] }),
    ).toEqual(['status success, but its last turn (0) timed out']);
    expect(
      successWithoutRunThrough({
        status: 'success',
        turns: turns(0),
        recipe: { replay: { status: 'passed', exitCode: 1 } },
      }),
    ).toEqual(['status success, but the replay of its recipe (passed) exited 1']);
    // a replay that ran and exited non-zero confirms nothing, whatever its status says; one that never started
    // has no exit and says nothing
    expect(
      successWithoutRunThrough({
        status: 'success',
        turns: turns(0),
        recipe: { replay: { status: 'failed', exitCode: 1 } },
      }),
    ).toEqual(['status success, but the replay of its recipe (failed) exited 1']);
    expect(
      successWithoutRunThrough({
        status: 'success',
        turns: turns(0),
        recipe: { replay: { status: 'skipped' } },
      }),
    ).toEqual([]);
    expect(successWithoutRunThrough({ status: 'partial', turns: turns(2) })).toEqual([]);
  });
});
