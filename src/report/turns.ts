/**
 * The turns and claims of a run read back from trajectory.jsonl, in the same `ReportTurn` view finalize
 * builds from the live history, so `buildbench report` renders what the run rendered.
 */
import { STEP_PURPOSES, type ScriptRecipe, type StepPurpose } from '../recipe/model.js';
import { FINDING_CATEGORIES, type Finding, type FindingCategory } from '../knowledge/diagnose/types.js';
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

/** The objects of a list (anything else in it is skipped). */
function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The string-valued entries of an object. */
function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(value)) for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

const isStepPurpose = (value: unknown): value is StepPurpose =>
  typeof value === 'string' && (STEP_PURPOSES as readonly string[]).includes(value);

const isFindingCategory = (value: unknown): value is FindingCategory =>
  typeof value === 'string' && (FINDING_CATEGORIES as readonly string[]).includes(value);

/** A turn's recipe as the trajectory recorded it; malformed entries are skipped. */
function scriptRecipeFrom(value: unknown): ScriptRecipe | undefined {
  if (!isObject(value)) return undefined;
  return {
    tools: records(value.tools).flatMap((t) =>
      typeof t.command === 'string' && typeof t.pkg === 'string' ? [{ command: t.command, pkg: t.pkg }] : [],
    ),
    packages: strings(value.packages),
    prelude: strings(value.prelude),
    edits: strings(value.edits),
    env: stringRecord(value.env),
    steps: records(value.steps).flatMap((s) =>
      isStepPurpose(s.purpose) && typeof s.command === 'string'
        ? [{ purpose: s.purpose, command: s.command }]
        : [],
    ),
  };
}

/** A turn's source edits as the trajectory recorded them. */
function patchesFrom(value: unknown): { file: string; reason: string }[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return records(value).flatMap((p) =>
    typeof p.file === 'string' && typeof p.reason === 'string' ? [{ file: p.file, reason: p.reason }] : [],
  );
}

/** A root cause as the trajectory recorded it; undefined without an id, a message and a known category. */
function findingFrom(value: unknown): Finding | undefined {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.message !== 'string') return undefined;
  if (!isFindingCategory(value.category)) return undefined;
  return {
    id: value.id,
    category: value.category,
    message: value.message,
    captures: stringRecord(value.captures),
    line: typeof value.line === 'number' ? value.line : 0,
    excerpt: str(value.excerpt),
    ...(typeof value.hint === 'string' ? { hint: value.hint } : {}),
    ...(typeof value.followUp === 'boolean' ? { followUp: value.followUp } : {}),
  };
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
type UpFront = NonNullable<ReportTurn['upFront']>[number];

/** A turn_start's `upFront` list as written (each item checked; anything else dropped). */
function upFrontFrom(value: unknown): { upFront?: UpFront[] } {
  if (!Array.isArray(value)) return {};
  const items = value.filter(
    (u): u is UpFront =>
      isObject(u) &&
      (u.kind === 'package' || u.kind === 'env') &&
      typeof u.what === 'string' &&
      typeof u.why === 'string',
  );
  return items.length > 0 ? { upFront: items.map((u) => ({ kind: u.kind, what: u.what, why: u.why })) } : {};
}

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
        recipe: scriptRecipeFrom(a.recipe),
        patches: patchesFrom(a.patches),
        ...upFrontFrom(a.upFront),
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
      t.rootCause = findingFrom(o.rootCause);
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
