/**
 * The turns and claims of a run read back from trajectory.jsonl, in the same `ReportTurn` view finalize
 * builds from the live history, so `buildbench report` renders what the run rendered.
 */
import type { ScriptRecipe } from '../recipe/model.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { ReportTurn } from '../finalize/turns.js';
import type { TrajectoryEvent } from '../trajectory/recorder.js';

/** A `finish` action of the strategy and whether the verifiers let it stand. */
export interface ReportClaim {
  turn: number;
  claim: string;
  reason: string;
  accepted?: boolean;
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
