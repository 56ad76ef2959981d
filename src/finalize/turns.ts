/**
 * One view of a run's turns (`ReportTurn`) for finalize and reports: built here from the live history
 * (finalize, inside `runBuild`), or by `report/turns.ts` from trajectory.jsonl (`buildbench report`, which
 * never sees live state).
 */
import type { TurnRecord, UpFront } from '../agent/types.js';
import type { ScriptRecipe } from '../recipe/model.js';
import type { Finding } from '../knowledge/diagnose/types.js';

export interface ReportTurn {
  turn: number;
  purpose: string;
  reason: string;
  /** The whole script (redacted when it comes from the trajectory). */
  script: string;
  recipe?: ScriptRecipe;
  /** Source edits the script makes, with their reason. */
  patches?: { file: string; reason: string }[];
  /** What the strategy put in before any failure (a package, a variable), each with its own reason. */
  upFront?: UpFront[];
  /** Undefined when the turn never finished (the run was killed during it). */
  exitCode?: number | null;
  timedOut: boolean;
  durationMs?: number;
  truncated?: boolean;
  rootCause?: Finding;
  /** The verifiers passed after this turn. */
  passed: boolean;
  /** New binaries in the tree after this turn (cumulative). */
  artifacts: number;
  failures: string[];
  notes: string[];
  logPath?: string;
}

export function turnsFromHistory(history: readonly TurnRecord[]): ReportTurn[] {
  const turns: ReportTurn[] = [];
  for (const record of history) {
    if (record.action.kind !== 'run') continue;
    const o = record.observation;
    turns.push({
      turn: record.turn,
      purpose: record.action.purpose,
      reason: record.action.reason,
      script: record.action.script,
      recipe: record.action.recipe,
      patches: record.action.patches,
      ...(record.action.upFront?.length ? { upFront: record.action.upFront } : {}),
      exitCode: o ? o.exec.exitCode : undefined,
      timedOut: o?.exec.timedOut ?? false,
      durationMs: o?.exec.durationMs,
      truncated: o?.exec.truncated,
      rootCause: o?.rootCause,
      passed: o?.verdict.passed ?? false,
      artifacts: o?.artifacts.length ?? 0,
      failures: o?.verdict.failures ?? [],
      notes: [...record.notes],
      logPath: o?.logPath,
    });
  }
  return turns;
}

/** The turn whose verifiers passed (the last one, which ends a successful run), if any. */
export function successfulTurn(turns: readonly ReportTurn[]): ReportTurn | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.passed) return turns[i];
  return undefined;
}

/** The root cause the turn before `turn` ended with: the error a repair in `turn` answers. */
export function answeredFinding(
  turns: readonly ReportTurn[],
  turn: number,
): { turn: number; finding: Finding } | undefined {
  let previous: ReportTurn | undefined;
  for (const t of turns) {
    if (t.turn >= turn) break;
    previous = t;
  }
  return previous?.rootCause && previous.exitCode !== 0
    ? { turn: previous.turn, finding: previous.rootCause }
    : undefined;
}
