/**
 * `buildbench compare A B`: two result sets (bench folders, downloaded result folders, or leaderboard.json
 * files), one system each, task by task. B is the candidate, A the baseline: B wins a task when its strict
 * success rate is higher (then flexible, then completion break a tie), loses when lower, ties otherwise.
 * Per task and over the tasks both ran, the metric deltas (B − A). `--fail-if` conditions give CI an exit
 * status: strict or flexible dropped over the common tasks, or any task lost.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';

import { ConfigError, errorMessage } from '../base/errors.js';
import { readFileUnder, readIfExists, UnsafePathError } from '../base/safe-fs.js';
import { collectRuns, compareText } from './collect.js';
import {
  buildLeaderboard,
  cell,
  duration,
  LEADERBOARD_JSON_SCHEMA,
  percent,
  type Leaderboard,
  type SystemBoard,
  type TaskRow,
} from './leaderboard.js';
import { mean } from './metrics.js';

export const COMPARE_SCHEMA = 'buildbench.compare/v1';
export const FAIL_IF_CONDITIONS = ['strict-dropped', 'flexible-dropped', 'any-loss'] as const;
export type FailIf = (typeof FAIL_IF_CONDITIONS)[number];

/** What compare reads of one task of one side. Costs are medians over the task's runs. */
export interface TaskMetrics {
  runs: number;
  completion: number;
  strict: number;
  flexible: number;
  passAt1: number;
  turns: number | null;
  costUsd: number | null;
  wallMs: number | null;
}

export type MetricDelta = { [K in keyof Omit<TaskMetrics, 'runs'>]: number | null };

export interface TaskComparison {
  task: string;
  /** B against A. */
  outcome: 'win' | 'loss' | 'tie';
  /** The metric that decided a win or a loss. */
  decidedBy?: 'strict' | 'flexible' | 'completion';
  a: TaskMetrics;
  b: TaskMetrics;
  delta: MetricDelta;
}

export interface SideInfo {
  /** The folder or file, as given. */
  source: string;
  system: string;
  tasks: number;
  runs: number;
}

export interface Overall {
  completion: number;
  strict: number;
  flexible: number;
  passAt1: number;
}

export interface FailCheck {
  condition: FailIf;
  holds: boolean;
  detail: string;
}

export interface Comparison {
  schema: typeof COMPARE_SCHEMA;
  a: SideInfo;
  b: SideInfo;
  /** Tasks both sides ran, and those only one did (not in the wins, losses or deltas). */
  common: number;
  onlyInA: string[];
  onlyInB: string[];
  wins: number;
  losses: number;
  ties: number;
  /** Means over the common tasks (each task weighs the same), and B − A. */
  overall: { a: Overall; b: Overall; delta: Overall };
  tasks: TaskComparison[];
  failIf: FailCheck[];
}

export interface CompareOptions {
  cwd?: string;
  /** Which system of A (or B) to compare when the set holds more than one. */
  systemA?: string;
  systemB?: string;
  failIf?: readonly FailIf[];
}

const EPSILON = 1e-9;

let validator: ReturnType<Ajv['compile']> | undefined;

/** A leaderboard.json, checked against its schema: a ConfigError naming the file and the field otherwise. */
export async function readLeaderboardFile(file: string): Promise<Leaderboard> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`compare: ${file}: cannot be read as JSON (${errorMessage(error)})`);
  }
  return parseLeaderboard(text, file);
}

/**
 * The leaderboard.json in a result folder, opened with no symbolic link on its path (the folder may be a
 * downloaded artifact: a link named leaderboard.json is refused, not followed). Undefined when there is none.
 */
async function readLeaderboardIn(dir: string): Promise<Leaderboard | undefined> {
  const file = path.join(dir, LEADERBOARD_FILE);
  let bytes: Buffer | undefined;
  try {
    bytes = await readIfExists(() => readFileUnder(dir, LEADERBOARD_FILE));
  } catch (error) {
    if (error instanceof UnsafePathError)
      throw new ConfigError(
        `compare: ${file} is refused: ${error.why}`,
        'expected a regular file in the folder',
      );
    throw new ConfigError(`compare: ${file}: cannot be read as JSON (${errorMessage(error)})`);
  }
  return bytes === undefined ? undefined : parseLeaderboard(bytes.toString('utf8'), file);
}

const LEADERBOARD_FILE = 'leaderboard.json';

function parseLeaderboard(text: string, file: string): Leaderboard {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`compare: ${file}: cannot be read as JSON (${errorMessage(error)})`);
  }
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(LEADERBOARD_JSON_SCHEMA);
  if (!validator(value)) {
    const first = validator.errors?.slice(0, 3).map((e) => `${e.instancePath || '(top)'} ${e.message ?? ''}`);
    throw new ConfigError(
      `compare: ${file} is not a buildbench leaderboard.json: ${first?.join('; ') ?? 'wrong shape'}`,
      'expected a leaderboard.json written by buildbench bench or buildbench leaderboard',
    );
  }
  return value as Leaderboard;
}

/** The leaderboard of a folder (its runs, or the leaderboard.json in it when it holds no run) or a file. */
async function loadSet(source: string, cwd: string): Promise<Leaderboard> {
  const full = path.resolve(cwd, source);
  let info;
  try {
    info = await stat(full);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : errorMessage(error);
    throw new ConfigError(`compare: ${source}: ${why}`, 'expected a bench folder or a leaderboard.json');
  }
  if (info.isFile()) return readLeaderboardFile(full);
  const collection = await collectRuns([full], { cwd });
  if (collection.found === 0) {
    const board = await readLeaderboardIn(full);
    if (board) return board;
    throw new ConfigError(
      `compare: ${source}: no run.json and no leaderboard.json in it`,
      'expected a bench folder (buildbench bench --out) or a leaderboard.json',
    );
  }
  return buildLeaderboard(collection);
}

function pickSystem(
  board: Leaderboard,
  source: string,
  wanted: string | undefined,
  flag: string,
): SystemBoard {
  const names = board.systems.map((s) => s.system);
  if (wanted !== undefined) {
    const found = board.systems.find((s) => s.system === wanted || s.strategy === wanted);
    if (!found)
      throw new ConfigError(
        `compare: ${source} has no system '${wanted}'`,
        `it has: ${names.join(', ') || 'none'}`,
      );
    return found;
  }
  if (board.systems.length === 1) return board.systems[0]!;
  if (board.systems.length === 0) throw new ConfigError(`compare: ${source} holds no counted run`);
  throw new ConfigError(
    `compare: ${source} holds ${board.systems.length} systems (${names.join(', ')}); choose one with ${flag}`,
  );
}

function metricsOf(row: TaskRow): TaskMetrics {
  return {
    runs: row.runs,
    completion: row.rates.completion,
    strict: row.rates.strict,
    flexible: row.rates.flexible,
    passAt1: row.passAtK.find((p) => p.k === 1)?.value ?? row.rates.strict,
    turns: row.costs.turns.median,
    costUsd: row.costs.costUsd.median,
    wallMs: row.costs.wallMs.median,
  };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const minus = (b: number | null, a: number | null): number | null =>
  a === null || b === null ? null : round(b - a);

function compareTask(task: string, a: TaskMetrics, b: TaskMetrics): TaskComparison {
  const delta: MetricDelta = {
    completion: minus(b.completion, a.completion),
    strict: minus(b.strict, a.strict),
    flexible: minus(b.flexible, a.flexible),
    passAt1: minus(b.passAt1, a.passAt1),
    turns: minus(b.turns, a.turns),
    costUsd: minus(b.costUsd, a.costUsd),
    wallMs: minus(b.wallMs, a.wallMs),
  };
  for (const metric of ['strict', 'flexible', 'completion'] as const) {
    const d = b[metric] - a[metric];
    if (Math.abs(d) > EPSILON)
      return { task, outcome: d > 0 ? 'win' : 'loss', decidedBy: metric, a, b, delta };
  }
  return { task, outcome: 'tie', a, b, delta };
}

function overallOf(rows: readonly TaskMetrics[]): Overall {
  const avg = (pick: (m: TaskMetrics) => number): number => round(mean(rows.map(pick)) ?? 0);
  return {
    completion: avg((m) => m.completion),
    strict: avg((m) => m.strict),
    flexible: avg((m) => m.flexible),
    passAt1: avg((m) => m.passAt1),
  };
}

/** The comparison of two systems' boards; `failIf` conditions are evaluated on it. */
export function compareBoards(
  a: SystemBoard & { source: string },
  b: SystemBoard & { source: string },
  failIf: readonly FailIf[] = [],
): Comparison {
  const rowsA = new Map(a.rows.map((r) => [r.task, r]));
  const rowsB = new Map(b.rows.map((r) => [r.task, r]));
  const common = [...rowsA.keys()].filter((t) => rowsB.has(t)).sort(compareText);
  const tasks = common.map((t) => compareTask(t, metricsOf(rowsA.get(t)!), metricsOf(rowsB.get(t)!)));
  const overallA = overallOf(tasks.map((t) => t.a));
  const overallB = overallOf(tasks.map((t) => t.b));
  const comparison: Comparison = {
    schema: COMPARE_SCHEMA,
    a: { source: a.source, system: a.system, tasks: a.tasks, runs: a.runs },
    b: { source: b.source, system: b.system, tasks: b.tasks, runs: b.runs },
    common: common.length,
    onlyInA: [...rowsA.keys()].filter((t) => !rowsB.has(t)).sort(compareText),
    onlyInB: [...rowsB.keys()].filter((t) => !rowsA.has(t)).sort(compareText),
    wins: tasks.filter((t) => t.outcome === 'win').length,
    losses: tasks.filter((t) => t.outcome === 'loss').length,
    ties: tasks.filter((t) => t.outcome === 'tie').length,
    overall: {
      a: overallA,
      b: overallB,
      delta: {
        completion: round(overallB.completion - overallA.completion),
        strict: round(overallB.strict - overallA.strict),
        flexible: round(overallB.flexible - overallA.flexible),
        passAt1: round(overallB.passAt1 - overallA.passAt1),
      },
    },
    tasks,
    failIf: [],
  };
  comparison.failIf = [...new Set(failIf)].map((condition) => check(comparison, condition));
  return comparison;
}

function check(c: Comparison, condition: FailIf): FailCheck {
  const over = `over the ${c.common} tasks both ran`;
  if (condition === 'any-loss') {
    const lost = c.tasks.filter((t) => t.outcome === 'loss').map((t) => t.task);
    return {
      condition,
      holds: lost.length > 0,
      detail: lost.length > 0 ? `B lost ${lost.length}: ${lost.join(', ')}` : `B lost no task ${over}`,
    };
  }
  const metric = condition === 'strict-dropped' ? 'strict' : 'flexible';
  const from = c.overall.a[metric];
  const to = c.overall.b[metric];
  return {
    condition,
    holds: to < from - EPSILON,
    detail: `${metric} ${percent(from)} → ${percent(to)} ${over}`,
  };
}

/** Loads both sides and compares them. ConfigError for a side that cannot be read or is ambiguous. */
export async function compareResultSets(
  a: string,
  b: string,
  options: CompareOptions = {},
): Promise<Comparison> {
  const cwd = options.cwd ?? process.cwd();
  const boardA = await loadSet(a, cwd);
  const boardB = await loadSet(b, cwd);
  const systemA = pickSystem(boardA, a, options.systemA, '--system-a');
  const systemB = pickSystem(boardB, b, options.systemB, '--system-b');
  const comparison = compareBoards(
    { ...systemA, source: a },
    { ...systemB, source: b },
    options.failIf ?? [],
  );
  // Nothing in common is a mistake (the wrong folder), not a pass: every --fail-if would hold vacuously false.
  if (comparison.common === 0)
    throw new ConfigError(
      `compare: ${a} and ${b} have no task in common (${systemA.tasks} and ${systemB.tasks} tasks)`,
      'expected two result sets of the same suite',
    );
  return comparison;
}

// ---------------------------------------------------------------------------------------------------------
// For people

/** `+16.7 pp`, `−50 pp`, `±0`. */
function points(d: number | null): string {
  if (d === null) return '—';
  const p = Math.round(d * 1000) / 10;
  if (p === 0) return '±0';
  return p > 0 ? `+${p} pp` : `−${-p} pp`;
}

function signed(d: number | null, show: (x: number) => string): string {
  if (d === null) return '—';
  if (d === 0) return '±0';
  return d > 0 ? `+${show(d)}` : `−${show(-d)}`;
}

function pad(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd(),
  );
}

/** The comparison as text: who is who, the per-task table, the overall deltas, the --fail-if verdicts. */
export function renderComparison(c: Comparison): string {
  const lines = [
    `A (baseline):  ${c.a.system}, ${c.a.tasks} tasks, ${c.a.runs} runs — ${c.a.source}`,
    `B (candidate): ${c.b.system}, ${c.b.tasks} tasks, ${c.b.runs} runs — ${c.b.source}`,
    '',
  ];
  if (c.tasks.length > 0) {
    const head = [
      'task',
      'A strict',
      'B strict',
      'Δ strict',
      'Δ flexible',
      'Δ completion',
      'Δ turns',
      'Δ cost',
      'Δ wall',
      'B vs A',
    ];
    const rows = c.tasks.map((t) => [
      cell(t.task, 60),
      percent(t.a.strict),
      percent(t.b.strict),
      points(t.delta.strict),
      points(t.delta.flexible),
      points(t.delta.completion),
      signed(t.delta.turns, (x) => String(Math.round(x * 10) / 10)),
      signed(t.delta.costUsd, (x) => `$${x.toFixed(4)}`),
      signed(t.delta.wallMs, (x) => duration(x)),
      t.outcome === 'tie' ? 'tie' : `${t.outcome} (${t.decidedBy})`,
    ]);
    lines.push(...pad([head, ...rows]), '');
  }
  lines.push(`B wins ${c.wins}, loses ${c.losses}, ties ${c.ties} of the ${c.common} tasks both ran.`);
  if (c.onlyInA.length > 0)
    lines.push(`Only in A (not compared): ${c.onlyInA.map((t) => cell(t, 60)).join(', ')}`);
  if (c.onlyInB.length > 0)
    lines.push(`Only in B (not compared): ${c.onlyInB.map((t) => cell(t, 60)).join(', ')}`);
  if (c.common > 0) {
    const o = c.overall;
    lines.push(
      `Over those tasks (each weighs the same): ` +
        (['strict', 'flexible', 'completion', 'passAt1'] as const)
          .map(
            (m) =>
              `${m === 'passAt1' ? 'pass@1' : m} ${percent(o.a[m])} → ${percent(o.b[m])} (${points(o.delta[m])})`,
          )
          .join(', '),
    );
  }
  for (const f of c.failIf) lines.push(`--fail-if ${f.condition}: ${f.holds ? 'FAIL' : 'ok'} (${f.detail})`);
  return lines.join('\n') + '\n';
}

/** 1 when a --fail-if condition holds, else 0. */
export function compareExitCode(c: Comparison): number {
  return c.failIf.some((f) => f.holds) ? 1 : 0;
}
