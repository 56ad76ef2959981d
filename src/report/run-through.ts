/**
 * "A script that did not run through is never SUCCESS" (issue 31), as a check over a written result: a result
 * whose status is `success` must have a last turn that exited 0 within its time, and a replay that verified its
 * recipe must have exited 0 too. The test suite runs it over every result.json its runs write
 * (test/global-teardown.ts) and `buildbench bench` over every run it collects.
 */

/** The parts of a result.json the check reads. */
export interface RunThroughFacts {
  status: string;
  turns?: readonly { turn: number; exitCode: number | null; timedOut?: boolean }[];
  recipe?: { replay?: { status: string; exitCode?: number | null; timedOut?: boolean } };
}

/** Why `result` is a success that did not run through; empty when it is not (or is no success). */
export function successWithoutRunThrough(result: RunThroughFacts): string[] {
  if (result.status !== 'success') return [];
  const problems: string[] = [];
  const last = result.turns?.at(-1);
  if (last && (last.exitCode !== 0 || last.timedOut))
    problems.push(
      `status success, but its last turn (${last.turn}) ${last.timedOut ? 'timed out' : `exited ${last.exitCode ?? 'without a status'}`}`,
    );
  const replay = result.recipe?.replay;
  if (replay?.status === 'passed' && ((replay.exitCode ?? 0) !== 0 || replay.timedOut))
    problems.push(`status success, but the replay that verified its recipe exited ${replay.exitCode ?? '?'}`);
  return problems;
}
