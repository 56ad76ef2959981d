/**
 * One view of a run's turns for finalize and reports, built either from the live history (finalize, inside
 * `runBuild`) or from trajectory.jsonl (`buildbench report`, which never sees live state).
 */
import type { ScriptRecipe, TurnRecord } from '../agent/types.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { TrajectoryEvent } from '../trajectory/recorder.js';

export interface ReportTurn {
  turn: number;
  purpose: string;
  reason: string;
  /** The whole script (redacted when it comes from the trajectory). */
  script: string;
  recipe?: ScriptRecipe;
  /** Source edits the script makes, with their reason. */
  patches?: { file: string; reason: string }[];
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

/** A `finish` action of the strategy and whether the verifiers let it stand. */
export interface ReportClaim {
  turn: number;
  claim: string;
  reason: string;
  accepted?: boolean;
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

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The events of the last run in a trajectory (a file appended to holds one header per run). */
function lastRun(events: readonly TrajectoryEvent[]): readonly TrajectoryEvent[] {
  let start = 0;
  events.forEach((event, index) => {
    if (event.type === 'header') start = index;
  });
  return events.slice(start);
}

/**
 * Turns and claims from trajectory events (`turn_start`, `turn_end`, `claim`). Malformed events are skipped:
 * a report is written from what can be read.
 */
export function turnsFromTrajectory(events: readonly TrajectoryEvent[]): {
  turns: ReportTurn[];
  claims: ReportClaim[];
} {
  const byTurn = new Map<number, ReportTurn>();
  const claims: ReportClaim[] = [];
  for (const event of lastRun(events)) {
    const data = event.data;
    if (!isObject(data) || typeof data.turn !== 'number') continue;
    const turn = data.turn;
    if (event.type === 'turn_start' && isObject(data.action) && data.action.kind === 'run') {
      const a = data.action;
      byTurn.set(turn, {
        turn,
        purpose: str(a.purpose),
        reason: str(a.reason),
        script: str(a.script),
        recipe: isObject(a.recipe) ? (a.recipe as unknown as ScriptRecipe) : undefined,
        patches: Array.isArray(a.patches) ? (a.patches as { file: string; reason: string }[]) : undefined,
        timedOut: false,
        passed: false,
        artifacts: 0,
        failures: [],
        notes: [],
      });
    } else if (event.type === 'turn_end' && isObject(data.observation)) {
      const t = byTurn.get(turn);
      if (!t) continue;
      const o = data.observation;
      const exec = isObject(o.exec) ? o.exec : {};
      t.exitCode = typeof exec.exitCode === 'number' || exec.exitCode === null ? exec.exitCode : undefined;
      t.timedOut = exec.timedOut === true;
      t.durationMs = typeof exec.durationMs === 'number' ? exec.durationMs : undefined;
      t.truncated = exec.truncated === true;
      t.rootCause = isObject(o.rootCause) ? (o.rootCause as unknown as Finding) : undefined;
      const verdict = isObject(o.verdict) ? o.verdict : {};
      t.passed = verdict.passed === true;
      t.failures = strings(verdict.failures);
      t.artifacts = Array.isArray(o.artifacts) ? o.artifacts.length : 0;
      t.notes = strings(data.notes);
      t.logPath = typeof o.logPath === 'string' ? o.logPath : undefined;
    } else if (event.type === 'claim') {
      claims.push({
        turn,
        claim: str(data.claim),
        reason: str(data.reason),
        accepted: typeof data.accepted === 'boolean' ? data.accepted : undefined,
      });
    }
  }
  return { turns: [...byTurn.values()].sort((a, b) => a.turn - b.turn), claims };
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
