/**
 * The leaderboard: the runs of one or more result folders (collect.ts) become one `Leaderboard` — per system
 * (strategy + model) the means of completion / strict / flexible over its runs, pass@k of strict success for
 * every k ≤ N (the unbiased estimator, averaged over tasks), retrieval accuracy against the labelled
 * instruction URLs, turns, tokens, dollars and wall time (median and p90), layer-1 failure categories, wrong
 * self-stops, per-run errors, the trajectory analysis summed, and one row per task — written as
 * `leaderboard.json` (versioned, with a JSON schema), `leaderboard.md` (for people) and `leaderboard.svg`.
 *
 * Runs whose result cannot be read are not counted (they are listed); runs that could not start
 * (`status: error`) count as failures everywhere. Output is deterministic: no timestamps, sorted keys.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { replaceFileUnder } from '../base/safe-fs.js';
import type { BuildResult } from '../report/result.js';
import { PHASES, RECOVERIES, type Phase, type Recovery } from '../trajectory/analysis.js';
import { renderChart } from './chart.js';
import {
  collectRuns,
  compareText,
  type CollectedRun,
  type CollectOptions,
  type Collection,
  type CollectProblem,
  type SystemRuns,
} from './collect.js';
import { distribution, mean, passAtK, rate, type Distribution } from './metrics.js';
import { scoreRetrieval, type RetrievalScore } from './retrieval-score.js';
import type { TaskKind } from './types.js';

export const LEADERBOARD_SCHEMA = 'buildbench.leaderboard/v1';

export interface Rates {
  completion: number;
  strict: number;
  flexible: number;
}

export interface PassAt {
  k: number;
  value: number;
}

/** Per run: median and p90 over the runs that have the number (tokens and dollars: model strategies only). */
export interface Costs {
  turns: Distribution;
  tokens: Distribution;
  costUsd: Distribution;
  wallMs: Distribution;
}

export interface RetrievalSummary {
  /** Runs of build tasks with labelled URLs whose result.json records what retrieval read. */
  scoredRuns: number;
  /** Runs with labelled URLs but no retrieval record (no result, or retrieval did not run). */
  unscoredRuns: number;
  /** Labelled in-repository documents over the scored runs, and how many of them the runs read. */
  labelled: number;
  consulted: number;
  /** consulted / labelled; null when nothing was labelled. */
  accuracy: number | null;
  /** Labelled URLs outside the repository's files, of which off GitHub, and how many were fetched. */
  elsewhere: number;
  offGithub: number;
  elsewhereConsulted: number;
}

export interface WrongSelfStop {
  task: string;
  run: number;
  claimed: string;
  verdict: string;
  where: string;
}

export interface RunError {
  task: string;
  run: number;
  error: string;
  where: string;
}

export interface AnalysisSum {
  /** Runs whose result.json carries a trajectory analysis. */
  runs: number;
  commands: number;
  phases: Record<Phase, number>;
  failures: number;
  recoveries: Record<Recovery, number>;
  selfStops: { count: number; correct: number; wrong: number };
  /** Turns whose script the shell parser rejected (split by lines instead). */
  unparsed: number;
}

/** What every summary (a system, a task row) holds. */
export interface Summary {
  runs: number;
  rates: Rates;
  passAtK: PassAt[];
  retrieval: RetrievalSummary;
  costs: Costs;
  statuses: Record<string, number>;
  /** Layer-1 root-cause categories of the runs that did not succeed (`none found` when no cause was). */
  failureCategories: Record<string, number>;
  wrongSelfStops: WrongSelfStop[];
  /** Finish claims made (runs whose strategy asked to finish). */
  claims: number;
  errors: RunError[];
  analysis: AnalysisSum | null;
}

export interface TaskRow extends Summary {
  task: string;
  kind: TaskKind;
  suite?: string;
}

export interface SystemBoard extends Summary {
  system: string;
  strategy: string;
  model?: string;
  tasks: number;
  /** N: the fewest runs any task has (pass@k is given for k ≤ N); `maxRunsPerTask` the most. */
  runsPerTask: number;
  maxRunsPerTask: number;
  rows: TaskRow[];
}

export interface Leaderboard {
  schema: typeof LEADERBOARD_SCHEMA;
  title: string;
  tasks: { id: string; kind: TaskKind; suite?: string }[];
  systems: SystemBoard[];
  /** run.json files found, and runs counted. */
  found: number;
  counted: number;
  warnings: string[];
  problems: CollectProblem[];
}

export interface LeaderboardOptions extends CollectOptions {
  /** The heading of leaderboard.md and the chart (default: `Benchmark leaderboard`). */
  title?: string;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const sortedRecord = (entries: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...entries].sort((a, b) => compareText(a[0], b[0])));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const textOr = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** One run, as the summaries read it. */
interface RunView {
  task: string;
  run: number;
  status: string;
  completion: boolean;
  strict: boolean;
  flexible: boolean;
  turns?: number;
  tokens?: number;
  costUsd?: number;
  wallMs?: number;
  category?: string;
  claimed?: string;
  wrongSelfStop?: { claimed: string; verdict: string };
  error?: string;
  retrieval?: RetrievalScore;
  labelledUrls: boolean;
  analysis?: unknown;
  where: string;
}

function selfStopOf(result: BuildResult): { claimed?: string; wrong?: { claimed: string; verdict: string } } {
  const audit = result.verification?.selfStop;
  if (audit && typeof audit === 'object') {
    const claimed = typeof audit.claimed === 'string' ? audit.claimed : undefined;
    return {
      ...(claimed ? { claimed } : {}),
      ...(audit.wrong === true
        ? { wrong: { claimed: textOr(claimed, 'none'), verdict: textOr(audit.verdict, 'failed') } }
        : {}),
    };
  }
  const claimed = result.claim?.claim;
  if (!claimed) return {};
  const passed = result.status === 'success';
  const wrong = claimed === 'success' ? !passed : passed;
  return { claimed, ...(wrong ? { wrong: { claimed, verdict: passed ? 'passed' : 'failed' } } : {}) };
}

/**
 * The task repository's name: from the run record's `repository.source` (`owner/name`, a URL) when it has
 * one, else result.json's `repo.name` (which, for a local mirror, may be `owner+name`).
 */
function repositoryName(run: CollectedRun): string {
  const source = (run.record as { repository?: { source?: unknown } }).repository?.source;
  if (typeof source === 'string') {
    const name = source
      .replace(/[/\\]+$/, '')
      .replace(/\.git$/, '')
      .split(/[/\\:]/)
      .pop();
    if (name) return name;
  }
  return run.result?.repo?.name ?? '';
}

function viewOf(run: CollectedRun): RunView {
  const { record, result, where } = run;
  const urls = record.task.instructions ?? [];
  const base = { task: record.task.id, run: record.run, where, labelledUrls: urls.length > 0 };
  if (!result) {
    return {
      ...base,
      status: record.status,
      completion: false,
      strict: false,
      flexible: false,
      error: record.error ?? `the run ended with status ${record.status} and no result.json`,
    };
  }
  const llm: Record<string, unknown> = isObject(result.llm) ? result.llm : {};
  const sources =
    isObject(result.retrieval) && Array.isArray(result.retrieval.sources)
      ? result.retrieval.sources
      : undefined;
  const stop = selfStopOf(result);
  const success = result.status === 'success';
  return {
    ...base,
    status: record.status === 'error' ? 'error' : result.status,
    completion: result.metrics.completion,
    strict: result.metrics.strict,
    flexible: result.metrics.flexible,
    ...(Array.isArray(result.turns) ? { turns: result.turns.length } : {}),
    ...(num(llm.totalTokens) !== undefined ? { tokens: num(llm.totalTokens) } : {}),
    ...(num(llm.costUsd) !== undefined ? { costUsd: num(llm.costUsd) } : {}),
    ...(num(result.timings?.totalMs) !== undefined ? { wallMs: num(result.timings.totalMs) } : {}),
    ...(success ? {} : { category: textOr(result.rootCause?.category, 'none found') }),
    ...(stop.claimed ? { claimed: stop.claimed } : {}),
    ...(stop.wrong ? { wrongSelfStop: stop.wrong } : {}),
    ...(record.status === 'error' ? { error: record.error ?? 'the run could not start' } : {}),
    ...(urls.length > 0 && sources ? { retrieval: scoreRetrieval(urls, repositoryName(run), sources) } : {}),
    ...((result as { analysis?: unknown }).analysis !== undefined
      ? { analysis: (result as { analysis?: unknown }).analysis }
      : {}),
  };
}

function sumAnalysis(values: readonly unknown[]): AnalysisSum | null {
  const present = values.filter(isObject);
  if (present.length === 0) return null;
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const recoveries = Object.fromEntries(RECOVERIES.map((r) => [r, 0])) as Record<Recovery, number>;
  const sum: AnalysisSum = {
    runs: present.length,
    commands: 0,
    phases,
    failures: 0,
    recoveries,
    selfStops: { count: 0, correct: 0, wrong: 0 },
    unparsed: 0,
  };
  for (const a of present) {
    sum.commands += num(a.commands) ?? 0;
    sum.failures += num(a.failures) ?? 0;
    sum.unparsed += num(a.unparsed) ?? 0;
    const p = isObject(a.phases) ? a.phases : {};
    for (const phase of PHASES) phases[phase] += num(p[phase]) ?? 0;
    const r = isObject(a.recoveries) ? a.recoveries : {};
    for (const kind of RECOVERIES) recoveries[kind] += num(r[kind]) ?? 0;
    const s = isObject(a.selfStops) ? a.selfStops : {};
    sum.selfStops.count += num(s.count) ?? 0;
    sum.selfStops.correct += num(s.correct) ?? 0;
    sum.selfStops.wrong += num(s.wrong) ?? 0;
  }
  return sum;
}

function summarise(views: readonly RunView[], passAt: PassAt[]): Summary {
  const statuses = new Map<string, number>();
  const categories = new Map<string, number>();
  for (const v of views) {
    statuses.set(v.status, (statuses.get(v.status) ?? 0) + 1);
    if (v.category) categories.set(v.category, (categories.get(v.category) ?? 0) + 1);
  }
  const scored = views.flatMap((v) => (v.retrieval ? [v.retrieval] : []));
  const total = (key: keyof Omit<RetrievalScore, 'missed'>): number => scored.reduce((a, s) => a + s[key], 0);
  const labelled = total('labelled');
  const consulted = total('consulted');
  const values = (pick: (v: RunView) => number | undefined): number[] =>
    views.flatMap((v) => {
      const x = pick(v);
      return x === undefined ? [] : [x];
    });
  const share = (pick: (v: RunView) => boolean): number =>
    round(mean(views.map((v) => (pick(v) ? 1 : 0))) ?? 0);
  return {
    runs: views.length,
    rates: {
      completion: share((v) => v.completion),
      strict: share((v) => v.strict),
      flexible: share((v) => v.flexible),
    },
    passAtK: passAt,
    retrieval: {
      scoredRuns: scored.length,
      unscoredRuns: views.filter((v) => v.labelledUrls && !v.retrieval).length,
      labelled,
      consulted,
      accuracy: (() => {
        const r = rate(consulted, labelled);
        return r === null ? null : round(r);
      })(),
      elsewhere: total('elsewhere'),
      offGithub: total('offGithub'),
      elsewhereConsulted: total('elsewhereConsulted'),
    },
    costs: {
      turns: distribution(values((v) => v.turns)),
      tokens: distribution(values((v) => v.tokens)),
      costUsd: distribution(values((v) => v.costUsd)),
      wallMs: distribution(values((v) => v.wallMs)),
    },
    statuses: sortedRecord(statuses),
    failureCategories: sortedRecord(categories),
    wrongSelfStops: views.flatMap((v) =>
      v.wrongSelfStop ? [{ task: v.task, run: v.run, ...v.wrongSelfStop, where: v.where }] : [],
    ),
    claims: views.filter((v) => v.claimed !== undefined).length,
    errors: views.flatMap((v) =>
      v.error !== undefined ? [{ task: v.task, run: v.run, error: v.error, where: v.where }] : [],
    ),
    analysis: sumAnalysis(views.map((v) => v.analysis)),
  };
}

/** pass@k of strict success for k = 1..n, for a task with these runs. */
function taskPassAt(views: readonly RunView[]): PassAt[] {
  const n = views.length;
  const c = views.filter((v) => v.strict).length;
  return Array.from({ length: n }, (_, i) => ({ k: i + 1, value: round(passAtK(n, c, i + 1)) }));
}

function systemBoard(system: SystemRuns): SystemBoard {
  const byTask = new Map<string, CollectedRun[]>();
  for (const run of system.runs) {
    const list = byTask.get(run.record.task.id) ?? [];
    list.push(run);
    byTask.set(run.record.task.id, list);
  }
  const rows: TaskRow[] = [];
  const perTask: { n: number; c: number }[] = [];
  for (const [task, runs] of [...byTask].sort((a, b) => compareText(a[0], b[0]))) {
    const views = runs.map(viewOf);
    const first = runs[0]!.record.task;
    perTask.push({ n: views.length, c: views.filter((v) => v.strict).length });
    rows.push({
      task,
      kind: first.kind,
      ...(first.suite ? { suite: first.suite } : {}),
      ...summarise(views, taskPassAt(views)),
    });
  }
  const counts = perTask.map((t) => t.n);
  const N = counts.length > 0 ? Math.min(...counts) : 0;
  const passAt = Array.from({ length: N }, (_, i) => ({
    k: i + 1,
    value: round(mean(perTask.map((t) => passAtK(t.n, t.c, i + 1))) ?? 0),
  }));
  return {
    system: system.system,
    strategy: system.strategy,
    ...(system.model ? { model: system.model } : {}),
    tasks: rows.length,
    runsPerTask: N,
    maxRunsPerTask: counts.length > 0 ? Math.max(...counts) : 0,
    ...summarise(system.runs.map(viewOf), passAt),
    rows,
  };
}

/** The leaderboard of collected runs. */
export function buildLeaderboard(collection: Collection, options: { title?: string } = {}): Leaderboard {
  const tasks = new Map<string, { id: string; kind: TaskKind; suite?: string }>();
  for (const s of collection.systems)
    for (const r of s.runs) {
      const t = r.record.task;
      if (!tasks.has(t.id))
        tasks.set(t.id, { id: t.id, kind: t.kind, ...(t.suite ? { suite: t.suite } : {}) });
    }
  const systems = collection.systems.map(systemBoard);
  return {
    schema: LEADERBOARD_SCHEMA,
    title: options.title ?? 'Benchmark leaderboard',
    tasks: [...tasks.values()].sort((a, b) => compareText(a.id, b.id)),
    systems,
    found: collection.found,
    counted: systems.reduce((a, s) => a + s.runs, 0),
    warnings: [...collection.warnings],
    problems: [...collection.problems],
  };
}

// ---------------------------------------------------------------------------------------------------------
// leaderboard.md

/** `50%`, `33.3%`, `—` for nothing. */
export function percent(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  const p = Math.round(x * 1000) / 10;
  return `${p}%`;
}

/** `850ms`, `12.3s`, `4m 05s`, `1h 02m`. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${Math.round(s * 10) / 10}s`;
  const whole = Math.round(s);
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

function tokens(n: number | null): string {
  if (n === null) return '—';
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${Math.round(n / 100) / 10}k`;
  return `${Math.round(n / 100_000) / 10}M`;
}

function dollars(x: number | null): string {
  if (x === null) return '—';
  return `$${x.toFixed(x < 0.1 ? 4 : 2)}`;
}

/** `1 run`, `2 runs`. */
function many(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function plain(n: number | null): string {
  return n === null ? '—' : String(Math.round(n * 10) / 10);
}

const pair = (d: Distribution, show: (n: number | null) => string): string =>
  d.n === 0 ? '—' : `${show(d.median)} / ${show(d.p90)}`;

/** A table cell: one line, no pipe that would split it, at most `max` characters. */
export function cell(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ').trim().replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function retrievalCell(r: RetrievalSummary): string {
  if (r.labelled === 0) return r.elsewhere > 0 ? `— (${r.elsewhere} elsewhere)` : '—';
  return `${percent(r.accuracy)} (${r.consulted}/${r.labelled})`;
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${cell(k, 60)} ${v}`).join(', ');
}

function passHeads(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `pass@${i + 1}`);
}

function passCells(passAt: readonly PassAt[], n: number): string[] {
  return Array.from({ length: n }, (_, i) => percent(passAt.find((p) => p.k === i + 1)?.value));
}

function costCells(c: Costs): string[] {
  return [pair(c.turns, plain), pair(c.tokens, tokens), pair(c.costUsd, dollars), pair(c.wallMs, duration)];
}

function systemSection(s: SystemBoard): string[] {
  const lines = [`## ${cell(s.system, 200)}`, ''];
  const n = s.runsPerTask;
  lines.push(
    `${many(s.tasks, 'task')}, ${many(s.runs, 'run')}` +
      (s.maxRunsPerTask === n
        ? ` (N = ${n} per task).`
        : ` (${n} to ${s.maxRunsPerTask} per task; pass@k for k ≤ ${n}).`),
    '',
    `- Statuses: ${counts(s.statuses)}`,
    `- Failure categories (layer 1, runs that did not succeed): ${counts(s.failureCategories)}`,
  );
  const r = s.retrieval;
  const elsewhere =
    r.elsewhere > 0
      ? `; ${many(r.elsewhere, 'labelled URL')} outside the repository (${r.offGithub} off GitHub) not in the accuracy, ${r.elsewhereConsulted} of them fetched`
      : '';
  lines.push(
    r.labelled > 0
      ? `- Retrieval: ${r.consulted} of ${r.labelled} labelled repository documents read (${percent(r.accuracy)}) over ${many(r.scoredRuns, 'run')}${elsewhere}` +
          (r.unscoredRuns > 0
            ? `; ${many(r.unscoredRuns, 'run')} with labelled URLs recorded no retrieval`
            : '')
      : r.scoredRuns + r.unscoredRuns > 0
        ? `- Retrieval: no labelled repository document${elsewhere}`
        : '- Retrieval: no labelled instruction URLs',
    `- Self-stops: ${many(s.claims, 'run')} claimed to finish, ${s.wrongSelfStops.length} wrongly` +
      (s.wrongSelfStops.length > 0
        ? ` (${s.wrongSelfStops.map((w) => `${cell(w.task, 60)} run ${w.run}: claimed ${w.claimed}, the verifiers said ${w.verdict}`).join('; ')})`
        : ''),
    `- Errors (runs that could not start or had no result): ${s.errors.length}` +
      (s.errors.length > 0
        ? ` (${s.errors.map((e) => `${cell(e.task, 60)} run ${e.run}: ${cell(e.error, 120)}`).join('; ')})`
        : ''),
  );
  const a = s.analysis;
  if (a) {
    lines.push(
      `- Trajectory analysis (${many(a.runs, 'run')}): ${many(a.commands, 'command')} — ` +
        PHASES.map((p) => `${p} ${a.phases[p]}`).join(', ') +
        `; ${many(a.failures, 'failed turn')}, followed by ` +
        RECOVERIES.map((k) => `${k} ${a.recoveries[k]}`).join(', ') +
        `; self-stops ${a.selfStops.count} (${a.selfStops.correct} right, ${a.selfStops.wrong} wrong)` +
        (a.unparsed > 0 ? `; ${many(a.unparsed, 'script')} the shell parser rejected, split by lines` : ''),
    );
  } else {
    lines.push('- Trajectory analysis: not in these results');
  }
  lines.push(
    '',
    ...table(
      [
        'task',
        'runs',
        'completion',
        'strict',
        'flexible',
        ...passHeads(n),
        'retrieval',
        'turns',
        'tokens',
        'cost',
        'wall time',
        'notes',
      ],
      s.rows.map((row) => {
        const notes = [
          ...(row.errors.length > 0 ? [`${row.errors.length} error${row.errors.length > 1 ? 's' : ''}`] : []),
          ...(row.wrongSelfStops.length > 0
            ? [`${row.wrongSelfStops.length} wrong self-stop${row.wrongSelfStops.length > 1 ? 's' : ''}`]
            : []),
          ...Object.entries(row.failureCategories).map(([k, v]) => `${k} ×${v}`),
        ];
        return [
          cell(row.task, 80),
          String(row.runs),
          percent(row.rates.completion),
          percent(row.rates.strict),
          percent(row.rates.flexible),
          ...passCells(row.passAtK, n),
          retrievalCell(row.retrieval),
          ...costCells(row.costs),
          cell(notes.join(', ') || '—', 200),
        ];
      }),
    ),
    '',
  );
  return lines;
}

/** The table of every system, one row each. */
function overview(board: Leaderboard, n: number): string[] {
  return table(
    [
      'system',
      'runs',
      'completion',
      'strict',
      'flexible',
      ...passHeads(n),
      'retrieval',
      'wrong self-stops',
      'errors',
      'turns',
      'tokens',
      'cost',
      'wall time',
    ],
    board.systems.map((s) => [
      cell(s.system, 80),
      String(s.runs),
      percent(s.rates.completion),
      percent(s.rates.strict),
      percent(s.rates.flexible),
      ...passCells(s.passAtK, n),
      retrievalCell(s.retrieval),
      String(s.wrongSelfStops.length),
      String(s.errors.length),
      ...costCells(s.costs),
    ]),
  );
}

/** leaderboard.md: the overview table, the chart, then a section per system with its per-task rows. */
export function renderLeaderboardMarkdown(board: Leaderboard, chartFile = 'leaderboard.svg'): string {
  const n = Math.max(0, ...board.systems.map((s) => s.runsPerTask));
  const lines = [
    `# ${cell(board.title, 200)}`,
    '',
    `${many(board.tasks.length, 'task')}, ${many(board.systems.length, 'system')}, ${many(board.counted, 'run')} counted` +
      (board.found !== board.counted ? ` (${many(board.found, 'run record')} found)` : '') +
      '. Rates are means over runs; pass@k is of strict success (unbiased estimator, mean over tasks); ' +
      'turns, tokens, cost and wall time are per run, median / p90.',
    '',
  ];
  if (board.systems.length === 0) {
    lines.push('No run could be counted: the notes below say why.', '');
  } else {
    lines.push(...overview(board, n), '', `![strict, flexible and completion per system](${chartFile})`, '');
  }
  for (const s of board.systems) lines.push(...systemSection(s));
  if (board.warnings.length > 0 || board.problems.length > 0) {
    lines.push('## Notes', '');
    for (const w of board.warnings) lines.push(`- ${cell(w, 400)}`);
    for (const p of board.problems) lines.push(`- ${cell(p.file, 200)}: ${cell(p.problem, 300)}`);
    lines.push('');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// leaderboard.json's schema, and writing the three files

const distributionSchema = {
  type: 'object',
  required: ['n', 'median', 'p90'],
  properties: {
    n: { type: 'integer', minimum: 0 },
    median: { type: ['number', 'null'] },
    p90: { type: ['number', 'null'] },
  },
};
const share = { type: 'number', minimum: 0, maximum: 1 };
const countMap = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } };
const summarySchema = {
  type: 'object',
  required: [
    'runs',
    'rates',
    'passAtK',
    'retrieval',
    'costs',
    'statuses',
    'failureCategories',
    'wrongSelfStops',
    'claims',
    'errors',
    'analysis',
  ],
  properties: {
    runs: { type: 'integer', minimum: 0 },
    rates: {
      type: 'object',
      required: ['completion', 'strict', 'flexible'],
      properties: { completion: share, strict: share, flexible: share },
    },
    passAtK: {
      type: 'array',
      items: {
        type: 'object',
        required: ['k', 'value'],
        properties: { k: { type: 'integer', minimum: 1 }, value: share },
      },
    },
    retrieval: {
      type: 'object',
      required: [
        'scoredRuns',
        'unscoredRuns',
        'labelled',
        'consulted',
        'accuracy',
        'elsewhere',
        'offGithub',
        'elsewhereConsulted',
      ],
      properties: { accuracy: { anyOf: [share, { type: 'null' }] } },
      additionalProperties: { type: ['integer', 'null'] },
    },
    costs: {
      type: 'object',
      required: ['turns', 'tokens', 'costUsd', 'wallMs'],
      additionalProperties: distributionSchema,
    },
    statuses: countMap,
    failureCategories: countMap,
    wrongSelfStops: {
      type: 'array',
      items: { type: 'object', required: ['task', 'run', 'claimed', 'verdict', 'where'] },
    },
    claims: { type: 'integer', minimum: 0 },
    errors: { type: 'array', items: { type: 'object', required: ['task', 'run', 'error', 'where'] } },
    analysis: { type: ['object', 'null'] },
  },
};

/** The JSON schema of leaderboard.json (draft 2020-12 keywords ajv 8 knows); fields are only ever added. */
export const LEADERBOARD_JSON_SCHEMA = {
  $id: 'https://buildbench.dev/schemas/leaderboard-v1.json',
  type: 'object',
  required: ['schema', 'title', 'tasks', 'systems', 'found', 'counted', 'warnings', 'problems'],
  properties: {
    schema: { const: LEADERBOARD_SCHEMA },
    title: { type: 'string' },
    tasks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'kind'],
        properties: {
          id: { type: 'string' },
          kind: { enum: ['build', 'deploy'] },
          suite: { type: 'string' },
        },
      },
    },
    systems: {
      type: 'array',
      items: {
        allOf: [
          summarySchema,
          {
            type: 'object',
            required: ['system', 'strategy', 'tasks', 'runsPerTask', 'maxRunsPerTask', 'rows'],
            properties: {
              system: { type: 'string' },
              strategy: { type: 'string' },
              model: { type: 'string' },
              tasks: { type: 'integer', minimum: 0 },
              runsPerTask: { type: 'integer', minimum: 0 },
              maxRunsPerTask: { type: 'integer', minimum: 0 },
              rows: {
                type: 'array',
                items: {
                  allOf: [
                    summarySchema,
                    {
                      type: 'object',
                      required: ['task', 'kind'],
                      properties: { task: { type: 'string' }, kind: { enum: ['build', 'deploy'] } },
                    },
                  ],
                },
              },
            },
          },
        ],
      },
    },
    found: { type: 'integer', minimum: 0 },
    counted: { type: 'integer', minimum: 0 },
    warnings: { type: 'array', items: { type: 'string' } },
    problems: {
      type: 'array',
      items: {
        type: 'object',
        required: ['file', 'problem'],
        properties: { file: { type: 'string' }, problem: { type: 'string' } },
      },
    },
  },
} as const;

/**
 * Writes `file` whole or not at all: a new file created exclusively in its folder, renamed over it (a link of
 * that name is replaced, never written through; no guessable temporary name to plant a link at).
 */
async function writeAtomically(file: string, text: string): Promise<void> {
  await replaceFileUnder(path.dirname(file), path.basename(file), text);
}

export interface WrittenLeaderboard {
  leaderboard: Leaderboard;
  files: { markdown: string; json: string; svg: string };
}

/**
 * Collects the runs under `dirs`, and writes leaderboard.md, leaderboard.json and leaderboard.svg into
 * `outDir` (made if missing). A ConfigError when no run record is found under any of the folders.
 */
export async function writeLeaderboard(
  dirs: readonly string[],
  outDir: string,
  options: LeaderboardOptions = {},
): Promise<WrittenLeaderboard> {
  const cwd = options.cwd ?? process.cwd();
  const collection = await collectRuns(dirs, { cwd });
  if (collection.found === 0) {
    const listed = collection.problems.map((p) => `; ${p.file}: ${p.problem}`).join('');
    throw new ConfigError(
      `leaderboard: no run.json under ${dirs.join(', ')}${listed}`,
      'expected bench folders (buildbench bench --out) or the result folders of its runs',
    );
  }
  const leaderboard = buildLeaderboard(collection, options);
  const out = path.resolve(cwd, outDir);
  await mkdir(out, { recursive: true });
  const files = {
    markdown: path.join(out, 'leaderboard.md'),
    json: path.join(out, 'leaderboard.json'),
    svg: path.join(out, 'leaderboard.svg'),
  };
  await writeAtomically(files.json, JSON.stringify(leaderboard, null, 2) + '\n');
  await writeAtomically(files.svg, await renderChart(leaderboard));
  await writeAtomically(files.markdown, renderLeaderboardMarkdown(leaderboard, 'leaderboard.svg'));
  return { leaderboard, files };
}
