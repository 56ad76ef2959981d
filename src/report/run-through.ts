/**
 * "A script that did not run through is never SUCCESS" (issue 31), as a check over what a run wrote: a result
 * whose status is `success` must have a last turn that exited 0 within its time, and the replay of its recipe, when
 * one ran, must have exited 0 too; the trajectory's last `run_end` must not say success after a last `turn_end`
 * that did not run through either. The test suite runs it over every run its tests write (test/global-teardown.ts,
 * test/helpers/trajectory-check.ts), and `buildbench bench` over every run it
 * collects.
 */

/** The parts of a result.json the check reads. */
export interface RunThroughFacts {
  status: string;
  turns?: readonly { turn: number; exitCode?: number | null; timedOut?: boolean }[];
  recipe?: { replay?: { status: string; exitCode?: number | null; timedOut?: boolean } };
}

/** How a script ended, in words: `exited 2`, `timed out`. */
function ended(exitCode: number | null | undefined, timedOut: boolean | undefined): string {
  return timedOut ? 'timed out' : `exited ${exitCode ?? 'without a status'}`;
}

/** Why `result` is a success that did not run through; empty when it is not (or is no success). */
export function successWithoutRunThrough(result: RunThroughFacts): string[] {
  if (result.status !== 'success') return [];
  const problems: string[] = [];
  const last = result.turns?.at(-1);
  if (last && (last.exitCode !== 0 || last.timedOut))
    problems.push(`status success, but its last turn (${last.turn}) ${ended(last.exitCode, last.timedOut)}`);
  // The replay that stands for the recipe (the full sequence's when it replaced the minimal one): one that ran
  // and exited non-zero confirms nothing, whatever its status says (a skipped or unstarted one has no exit).
  const replay = result.recipe?.replay;
  if (replay && ((replay.exitCode !== undefined && replay.exitCode !== 0) || replay.timedOut))
    problems.push(
      `status success, but the replay of its recipe (${replay.status}) ${ended(replay.exitCode, replay.timedOut)}`,
    );
  return problems;
}

/** One line of trajectory.jsonl as the check reads it. */
export interface TrajectoryLine {
  type?: unknown;
  data?: unknown;
}

/**
 * Why a trajectory's run ends in success after a last turn that did not run through; empty otherwise. Only the
 * last run of the file counts (a resumed file holds several, each opened by `run_start`).
 */
export function trajectorySuccessWithoutRunThrough(lines: readonly TrajectoryLine[]): string[] {
  let lastTurn: { turn: unknown; exitCode: unknown; timedOut: unknown } | undefined;
  let status: unknown;
  for (const line of lines) {
    const data = (typeof line.data === 'object' && line.data !== null ? line.data : {}) as Record<
      string,
      unknown
    >;
    if (line.type === 'run_start') {
      lastTurn = undefined;
      status = undefined;
    } else if (line.type === 'turn_end') {
      const observation = data.observation as { exec?: Record<string, unknown> } | undefined;
      const exec = observation?.exec;
      if (exec) lastTurn = { turn: data.turn, exitCode: exec.exitCode, timedOut: exec.timedOut };
    } else if (line.type === 'run_end') {
      status = data.status;
    }
  }
  if (status !== 'success' || !lastTurn) return [];
  const { turn, exitCode, timedOut } = lastTurn;
  if (exitCode === 0 && timedOut !== true) return [];
  const code = typeof exitCode === 'number' ? exitCode : null;
  return [
    `trajectory: run_end success, but its last turn (${String(turn)}) ${ended(code, timedOut === true)}`,
  ];
}
