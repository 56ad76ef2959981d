/**
 * The alternatives a deploy run has for each ecosystem (`verifiers/deploy-alternatives.yaml`): the build tool
 * → the repository's own scripts → building without the build tool; the registry → the mirror → the
 * distribution's packages; the lockfile as is → re-resolved; the declared runtime → the distribution's. A
 * run may claim `impossible` only after every row of each ecosystem it set up was tried (a turn ran a recipe
 * or applied a repair the row names) or ruled out with a reason (a condition of the row holds). Everything
 * here reads what the trajectory records — the turns' scripts, purposes and root causes, the goal and the
 * ecosystems — so the same evaluation serves the strategy, the RUNBOOK and the test that reads a trajectory.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../base/errors.js';
import { parseShippedYaml } from '../base/shipped-yaml.js';
import { linearRegex } from '../base/linear-regex.js';
import type { EcosystemKind, RepoInfo } from '../repo/types.js';
import type { DeployGoal, RegistrySettings } from './types.js';

/** Where the table shipped with the tool lives (two folders up from `src/deploy/`). */
export const DEFAULT_ALTERNATIVES_URL = new URL('../../verifiers/deploy-alternatives.yaml', import.meta.url);

export const AXES = ['build-tool', 'registry', 'lockfile', 'runtime'] as const;
export type Axis = (typeof AXES)[number];

export const CONDITIONS = [
  'registries-offline',
  'registries-online',
  'no-mirror',
  'no-lockfile',
  'no-declared-runtime',
  'no-own-script',
  'vendored',
  'never-failed',
] as const;
export type Condition = (typeof CONDITIONS)[number];

export interface AlternativeRow {
  readonly id: string;
  readonly axis: Axis;
  readonly label: string;
  /** Recipe ids (`prefix:*` for any of a setup's) and `repair:<rule>` entries that try it. */
  readonly triedBy: readonly string[];
  readonly ruledOutWhen: readonly Condition[];
  /** For `no-mirror`: a pattern over the names of the mirror variables. */
  readonly mirrorVars?: string;
  /** For `no-lockfile`: the lockfile names (manifests, relative to the root). */
  readonly lockfiles?: readonly string[];
  /** For `vendored`: the manifest that says the dependencies are vendored. */
  readonly vendored?: string;
  /** For `never-failed`: the signature ids the row answers. */
  readonly failures?: readonly string[];
}

export type AlternativesTable = ReadonlyMap<string, readonly AlternativeRow[]>;

/**
 * The line every deploy script carries (in its target step): the setup recipes it combines and the
 * repository's own build scripts found, so a trajectory alone tells which alternative each turn tried.
 */
export const ALTERNATIVE_MARKER = '# buildbench deploy alternatives: ';

const ROW_KEYS = new Set([
  'id',
  'axis',
  'label',
  'tried_by',
  'ruled_out_when',
  'mirror_vars',
  'lockfiles',
  'vendored',
  'failures',
]);
const NAME = /^[a-z0-9][a-z0-9+.:_-]*(?:\*)?$/;

function fail(where: string, message: string): never {
  throw new ConfigError(
    `${where}: ${message}`,
    'fix the deploy alternatives (verifiers/deploy-alternatives.yaml)',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function names(raw: unknown, where: string, pattern = NAME): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(where, 'must be a list');
  return raw.map((v) => {
    if (typeof v !== 'string' || !pattern.test(v)) fail(where, `"${String(v)}" is not a valid entry`);
    return v;
  });
}

function row(raw: unknown, where: string): AlternativeRow {
  if (!isRecord(raw)) fail(where, 'must be a mapping');
  for (const key of Object.keys(raw)) if (!ROW_KEYS.has(key)) fail(where, `unknown key "${key}"`);
  const id = raw.id;
  if (typeof id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(id)) fail(where, '"id" must be a lower-case name');
  const at = `${where} (${id})`;
  const axis = raw.axis;
  if (typeof axis !== 'string' || !(AXES as readonly string[]).includes(axis))
    fail(at, `"axis" must be one of ${AXES.join(', ')}`);
  const label = raw.label;
  if (typeof label !== 'string' || label.trim() === '') fail(at, '"label" must be a non-empty string');
  const triedBy = names(
    raw.tried_by,
    `${at}: tried_by`,
    /^(?:repair:[a-z0-9-]+|[a-z0-9-]+:(?:\*|[a-z0-9+.-]+))$/,
  );
  if (triedBy.length === 0) fail(at, '"tried_by" must name at least one recipe or repair');
  const ruledOutWhen = names(raw.ruled_out_when, `${at}: ruled_out_when`).map((c) => {
    if (!(CONDITIONS as readonly string[]).includes(c))
      fail(at, `unknown condition "${c}" (expected one of ${CONDITIONS.join(', ')})`);
    return c as Condition;
  });
  const out: {
    -readonly [K in keyof AlternativeRow]: AlternativeRow[K];
  } = { id, axis: axis as Axis, label, triedBy, ruledOutWhen };
  if (raw.mirror_vars !== undefined) {
    if (typeof raw.mirror_vars !== 'string') fail(at, '"mirror_vars" must be a pattern');
    try {
      linearRegex(raw.mirror_vars);
    } catch (error) {
      fail(
        at,
        `"mirror_vars" is not a valid pattern: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    out.mirrorVars = raw.mirror_vars;
  }
  if (raw.lockfiles !== undefined) out.lockfiles = names(raw.lockfiles, `${at}: lockfiles`, /^[\w./-]+$/);
  if (raw.vendored !== undefined) {
    if (typeof raw.vendored !== 'string' || !/^[\w./-]+$/.test(raw.vendored))
      fail(at, '"vendored" must be a manifest path');
    out.vendored = raw.vendored;
  }
  if (raw.failures !== undefined) out.failures = names(raw.failures, `${at}: failures`, /^[a-z0-9-]+$/);
  const needs: [Condition, keyof AlternativeRow][] = [
    ['no-mirror', 'mirrorVars'],
    ['no-lockfile', 'lockfiles'],
    ['vendored', 'vendored'],
    ['never-failed', 'failures'],
  ];
  for (const [condition, key] of needs) {
    if (ruledOutWhen.includes(condition) && out[key] === undefined)
      fail(at, `the condition "${condition}" needs "${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`);
  }
  return out;
}

/** Validates a parsed alternatives document. */
export function validateAlternatives(doc: unknown, source = 'deploy-alternatives.yaml'): AlternativesTable {
  if (!isRecord(doc)) fail(source, 'must be a mapping');
  for (const key of Object.keys(doc))
    if (key !== 'version' && key !== 'ecosystems') fail(source, `unknown section "${key}"`);
  if (doc.version !== 1) fail(source, `unsupported version ${String(doc.version)} (expected 1)`);
  if (!isRecord(doc.ecosystems)) fail(source, '"ecosystems" must be a mapping');
  const table = new Map<string, AlternativeRow[]>();
  for (const [kind, rows] of Object.entries(doc.ecosystems)) {
    const where = `${source}: ${kind}`;
    if (!Array.isArray(rows) || rows.length === 0) fail(where, 'must be a non-empty list of rows');
    const parsed = rows.map((r, i) => row(r, `${where}[${i}]`));
    const ids = new Set<string>();
    for (const r of parsed) {
      if (ids.has(r.id)) fail(where, `row "${r.id}" appears twice`);
      ids.add(r.id);
    }
    table.set(kind, parsed);
  }
  return table;
}

/** Parses and validates the table's YAML text. */
export function parseAlternatives(
  text: string,
  source = 'deploy-alternatives.yaml',
  location: URL | string = source,
): AlternativesTable {
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, location);
  } catch (error) {
    fail(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return validateAlternatives(doc, source);
}

let shipped: AlternativesTable | undefined;

/** The table shipped in `verifiers/` (read once), or another file's. */
export function loadAlternatives(location?: URL | string): AlternativesTable {
  if (location === undefined && shipped) return shipped;
  const where = location ?? DEFAULT_ALTERNATIVES_URL;
  let text: string;
  try {
    text = readFileSync(where, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the deploy alternatives ${String(where)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const table = parseAlternatives(text, String(where).replace(/^file:\/\/.*\//, ''), where);
  if (location === undefined) shipped = table;
  return table;
}

// ---------------------------------------------------------------------------------------------------------
// Evaluation

/** What the evaluation reads of an ecosystem (both `EcosystemInfo` and the result's summary have it). */
export interface AlternativesEcosystem {
  kind: EcosystemKind;
  manifests: readonly string[];
  runtime?: { version?: string };
}

/** What the evaluation reads of a turn (both `ReportTurn` and a live record give it). */
export interface AlternativesTurn {
  turn: number;
  purpose: string;
  script: string;
  rootCause?: { id: string };
}

export interface AlternativesInput {
  ecosystems: readonly AlternativesEcosystem[];
  registries: RegistrySettings;
  turns: readonly AlternativesTurn[];
}

export type RowState =
  { state: 'tried'; turns: number[] } | { state: 'ruled-out'; reason: string } | { state: 'open' };

export interface RowStatus {
  kind: string;
  row: AlternativeRow;
  status: RowState;
}

/** The marker line for a script that combines `recipeIds` in a repository with `ownScripts`. */
export function alternativeMarker(recipeIds: readonly string[], ownScripts: readonly string[]): string {
  return `${ALTERNATIVE_MARKER}${JSON.stringify({ recipes: recipeIds, own: ownScripts })}`;
}

/** The recipes and own scripts a script's marker names; undefined when it has none (not a deploy script). */
export function readMarker(script: string): { recipes: string[]; own: string[] } | undefined {
  for (const line of script.split('\n')) {
    const at = line.indexOf(ALTERNATIVE_MARKER);
    if (at < 0) continue;
    try {
      const value = JSON.parse(line.slice(at + ALTERNATIVE_MARKER.length)) as unknown;
      if (!isRecord(value)) continue;
      const str = (v: unknown): string[] =>
        Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
      return { recipes: str(value.recipes), own: str(value.own) };
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The repair rules a turn applied, from its purpose (`<recipe label> + <rule>`). */
function repairsOf(purpose: string): string[] {
  const at = purpose.lastIndexOf(' + ');
  return at < 0 ? [] : [purpose.slice(at + 3).trim()];
}

function matches(entry: string, recipes: readonly string[], repairs: readonly string[]): boolean {
  if (entry.startsWith('repair:')) return repairs.includes(entry.slice('repair:'.length));
  if (entry.endsWith(':*')) return recipes.some((r) => r.startsWith(entry.slice(0, -1)));
  return recipes.includes(entry);
}

function ruledOut(
  row: AlternativeRow,
  eco: AlternativesEcosystem,
  input: AlternativesInput,
  own: readonly string[],
  failures: boolean,
): string | undefined {
  for (const condition of row.ruledOutWhen) {
    if ((condition === 'never-failed') !== failures) continue;
    switch (condition) {
      case 'registries-offline':
        if (input.registries.mode === 'offline')
          return 'the run was told the registries are offline (--registries offline)';
        break;
      case 'registries-online':
        if (input.registries.mode === 'online')
          return "the run was told to use the registries only (--registries online): the distribution's packages are out";
        break;
      case 'no-mirror': {
        const pattern = linearRegex(row.mirrorVars!);
        if (!Object.keys(input.registries.mirrors).some((name) => pattern.test(name)))
          return `no mirror was passed (no variable matching /${row.mirrorVars!}/)`;
        break;
      }
      case 'no-lockfile':
        if (!row.lockfiles!.some((l) => eco.manifests.includes(l)))
          return `the repository has no ${row.lockfiles!.join(' or ')}`;
        break;
      case 'no-declared-runtime':
        if (!eco.runtime?.version) return 'the manifests declare no runtime version';
        break;
      case 'no-own-script':
        if (own.length === 0) return 'the repository has no build script of its own at its root';
        break;
      case 'vendored':
        if (eco.manifests.includes(row.vendored!))
          return `the dependencies are vendored in the repository (${row.vendored!})`;
        break;
      case 'never-failed': {
        const ids = row.failures!;
        if (!input.turns.some((t) => t.rootCause && ids.includes(t.rootCause.id)))
          return `no turn failed with ${ids.join(' or ')}, the failure it answers`;
        break;
      }
    }
  }
  return undefined;
}

/**
 * Each row of each ecosystem's table: tried (the turns that tried it), ruled out (why), or open. Ecosystems
 * the table has no rows for have no alternatives to exhaust.
 */
export function evaluateAlternatives(
  input: AlternativesInput,
  table: AlternativesTable = loadAlternatives(),
): RowStatus[] {
  const markers = input.turns.map((t) => ({
    turn: t.turn,
    marker: readMarker(t.script),
    purpose: t.purpose,
  }));
  const own = [...new Set(markers.flatMap((m) => m.marker?.own ?? []))];
  const out: RowStatus[] = [];
  const kinds = new Set<string>();
  for (const eco of input.ecosystems) {
    if (kinds.has(eco.kind)) continue;
    kinds.add(eco.kind);
    for (const row of table.get(eco.kind) ?? []) {
      const turns = markers
        .filter((m) => row.triedBy.some((e) => matches(e, m.marker?.recipes ?? [], repairsOf(m.purpose))))
        .map((m) => m.turn);
      // What the situation rules out (no mirror passed, no lockfile, the registry mode) decides first: a
      // recipe that ran without a mirror did not try the mirror. A row answering a failure counts as tried
      // once a turn applied it, whether or not that failure is the last one.
      const fact = ruledOut(row, eco, input, own, false);
      if (fact) {
        out.push({ kind: eco.kind, row, status: { state: 'ruled-out', reason: fact } });
        continue;
      }
      if (turns.length > 0) {
        out.push({ kind: eco.kind, row, status: { state: 'tried', turns } });
        continue;
      }
      const reason = ruledOut(row, eco, input, own, true);
      out.push({ kind: eco.kind, row, status: reason ? { state: 'ruled-out', reason } : { state: 'open' } });
    }
  }
  return out;
}

/** The rows neither tried nor ruled out: a claim of `impossible` with any of these is premature. */
export function openAlternatives(statuses: readonly RowStatus[]): RowStatus[] {
  return statuses.filter((s) => s.status.state === 'open');
}

/** One line for a row's status. */
export function describeRow(s: RowStatus): string {
  const head = `${s.kind} ${s.row.axis}: ${s.row.label}`;
  switch (s.status.state) {
    case 'tried':
      return `${head} — tried (turn${s.status.turns.length > 1 ? 's' : ''} ${s.status.turns.join(', ')})`;
    case 'ruled-out':
      return `${head} — ruled out: ${s.status.reason}`;
    case 'open':
      return `${head} — not tried yet`;
  }
}

/**
 * One line per ecosystem saying how its dependencies were obtained: the registry-axis row the last turn
 * tried (the way the run ended up), else that none was reached.
 */
export function dependencyLines(statuses: readonly RowStatus[]): string[] {
  const kinds = [...new Set(statuses.map((s) => s.kind))];
  return kinds.map((kind) => {
    const rows = statuses.filter((s) => s.kind === kind && s.row.axis === 'registry');
    let best: RowStatus | undefined;
    let last = -1;
    for (const s of rows) {
      if (s.status.state !== 'tried') continue;
      const turn = Math.max(...s.status.turns);
      if (turn > last) {
        last = turn;
        best = s;
      }
    }
    return best
      ? `${kind}: ${best.row.label} (turn ${last})`
      : rows.length > 0
        ? `${kind}: no way of obtaining its dependencies was tried`
        : `${kind}: nothing to obtain beyond the toolchain`;
  });
}

/**
 * The alternatives as the model strategies see them when they take over: each ecosystem's rows in order,
 * with what the turns so far did about each.
 */
export function alternativesContext(statuses: readonly RowStatus[]): string {
  if (statuses.length === 0) return '';
  return [
    'Alternatives for each ecosystem (claim `impossible` only after every one was tried or ruled out with a reason):',
    ...statuses.map((s) => `- ${describeRow(s)}`),
  ].join('\n');
}

/** What the evaluation reads of a live turn record (the loop's `TurnRecord`, floor 2, has this shape). */
export interface HistoryRecord {
  turn: number;
  action: { kind: 'run'; purpose: string; script: string } | { kind: string };
  observation?: { rootCause?: { id: string } };
}

/** The turns of a live history, as the evaluation reads them. */
export function turnsOfHistory(history: readonly HistoryRecord[]): AlternativesTurn[] {
  return history.flatMap((record) =>
    'script' in record.action
      ? [
          {
            turn: record.turn,
            purpose: record.action.purpose,
            script: record.action.script,
            rootCause: record.observation?.rootCause,
          },
        ]
      : [],
  );
}

/** Each row's status for a live run with `goal` in `repo` after `history`. */
function statusesOf(
  goal: { registries: RegistrySettings },
  repo: RepoInfo,
  history: readonly HistoryRecord[],
  table?: AlternativesTable,
): RowStatus[] {
  return evaluateAlternatives(
    { ecosystems: repo.ecosystems ?? [], registries: goal.registries, turns: turnsOfHistory(history) },
    table,
  );
}

/**
 * What a deploy run's finish says about its alternatives: the rows tried and ruled out, and those still open
 * (a claim of `impossible` with open rows is premature: the strategy had no way to try them).
 */
export function alternativesNote(
  goal: DeployGoal,
  repo: RepoInfo,
  history: readonly HistoryRecord[],
  table?: AlternativesTable,
): { open: RowStatus[]; note: string } {
  const statuses = statusesOf(goal, repo, history, table);
  if (statuses.length === 0) return { open: [], note: '' };
  const open = openAlternatives(statuses);
  const tried = statuses.filter((s) => s.status.state === 'tried').length;
  const ruled = statuses.filter((s) => s.status.state === 'ruled-out');
  const parts = [`alternatives: ${tried} of ${statuses.length} tried`];
  if (ruled.length > 0)
    parts.push(
      `ruled out: ${ruled.map((s) => `${s.kind} ${s.row.id} (${(s.status as { reason: string }).reason})`).join('; ')}`,
    );
  if (open.length > 0)
    parts.push(`no way to try here: ${open.map((s) => `${s.kind} ${s.row.id} (${s.row.label})`).join('; ')}`);
  return { open, note: parts.join('; ') };
}

/**
 * What the evaluation needs of a deploy run, as its trajectory records it when the run starts (the inspect
 * phase's data, `deploy`): each ecosystem's kind, manifests and declared runtime version, the registry mode and
 * the names of the mirror variables passed (their values, which may carry credentials, stay out).
 */
export interface AlternativesFacts {
  ecosystems: AlternativesEcosystem[];
  registries: RegistrySettings;
}

/** The mirror variables passed, by name only (a value may carry credentials). */
function mirrorNames(mirrors: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.keys(mirrors).map((name) => [name, '']));
}

/** The facts of a deploy run with `goal` in `repo` (for the trajectory). */
export function alternativesFacts(goal: { registries: RegistrySettings }, repo: RepoInfo): AlternativesFacts {
  return {
    ecosystems: (repo.ecosystems ?? []).map((e) => ({
      kind: e.kind,
      manifests: [...e.manifests],
      ...(e.runtime?.version ? { runtime: { version: e.runtime.version } } : {}),
    })),
    registries: {
      mode: goal.registries.mode,
      mirrors: mirrorNames(goal.registries.mirrors),
    },
  };
}

/** One line of trajectory.jsonl as the check reads it (anything else on the line is ignored). */
export interface AlternativesTrajectoryLine {
  type?: unknown;
  data?: unknown;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function factsOf(value: unknown): AlternativesFacts | undefined {
  if (!isRecord(value) || !Array.isArray(value.ecosystems) || !isRecord(value.registries)) return undefined;
  const mode = value.registries.mode;
  if (mode !== 'auto' && mode !== 'online' && mode !== 'offline') return undefined;
  const mirrors = isRecord(value.registries.mirrors) ? value.registries.mirrors : {};
  const ecosystems: AlternativesEcosystem[] = [];
  for (const e of value.ecosystems) {
    if (!isRecord(e) || typeof e.kind !== 'string' || !Array.isArray(e.manifests)) return undefined;
    const version = isRecord(e.runtime) ? str(e.runtime.version) : undefined;
    ecosystems.push({
      kind: e.kind as EcosystemKind,
      manifests: e.manifests.filter((m): m is string => typeof m === 'string'),
      ...(version ? { runtime: { version } } : {}),
    });
  }
  return {
    ecosystems,
    registries: { mode, mirrors: mirrorNames(mirrors) },
  };
}

/**
 * Why the last run of a trajectory claimed `impossible` before every row of its ecosystems' alternatives was
 * tried or ruled out; empty otherwise (no deploy facts, no accepted `impossible` claim, or nothing open). Read
 * from the trajectory alone: the inspect phase's `deploy` facts, each turn's script (its marker) and purpose,
 * the root cause its end recorded, and the last claim.
 */
export function trajectoryPrematureImpossible(
  lines: readonly AlternativesTrajectoryLine[],
  table?: AlternativesTable,
): string[] {
  let facts: AlternativesFacts | undefined;
  let turns = new Map<number, AlternativesTurn>();
  let claim: { claim?: string; accepted?: unknown; turn?: unknown } | undefined;
  for (const line of lines) {
    const data = isRecord(line.data) ? line.data : {};
    if (line.type === 'run_start') {
      facts = undefined;
      turns = new Map();
      claim = undefined;
    } else if (line.type === 'phase' && isRecord(data.data) && data.data.deploy !== undefined) {
      facts = factsOf(data.data.deploy) ?? facts;
    } else if (line.type === 'turn_start' && typeof data.turn === 'number' && isRecord(data.action)) {
      const script = str(data.action.script);
      if (data.action.kind === 'run' && script !== undefined)
        turns.set(data.turn, { turn: data.turn, purpose: str(data.action.purpose) ?? '', script });
    } else if (line.type === 'turn_end' && typeof data.turn === 'number' && isRecord(data.observation)) {
      const cause = data.observation.rootCause;
      const turn = turns.get(data.turn);
      if (turn && isRecord(cause) && typeof cause.id === 'string') turn.rootCause = { id: cause.id };
    } else if (line.type === 'claim') {
      claim = { claim: str(data.claim), accepted: data.accepted, turn: data.turn };
    }
  }
  if (!facts || claim?.claim !== 'impossible' || claim.accepted === false) return [];
  const statuses = evaluateAlternatives({ ...facts, turns: [...turns.values()] }, table);
  const open = openAlternatives(statuses);
  if (open.length === 0) return [];
  return [
    `trajectory: claimed impossible at turn ${String(claim.turn)} with alternatives neither tried nor ruled out: ` +
      open.map((s) => `${s.kind} ${s.row.id} (${s.row.label})`).join('; '),
  ];
}

/**
 * The stop-gate's question for a deploy run's `impossible` claim: the rows still open, as a refusal the
 * strategy reads (it may try them or rule them out), or undefined when the claim may stand. A claim made again
 * with the same rows open stands (the strategy had no way to try them; the trajectory check still names them).
 */
export function impossibleGate(
  goal: DeployGoal,
  repo: RepoInfo,
  table?: AlternativesTable,
): (claim: string, history: readonly HistoryRecord[]) => string | undefined {
  const refused = new Set<string>();
  return (claim, history) => {
    if (claim !== 'impossible') return undefined;
    const open = openAlternatives(statusesOf(goal, repo, history, table));
    if (open.length === 0) return undefined;
    const key = open.map((s) => `${s.kind}:${s.row.id}`).join(',');
    if (refused.has(key)) return undefined;
    refused.add(key);
    return `finish(impossible) refused: alternatives not tried yet, each worth a turn before giving up: ${open
      .map((s) => `${s.kind} ${s.row.axis}: ${s.row.label}`)
      .join('; ')}`;
  };
}

/**
 * The RUNBOOK's section: one line per ecosystem saying how its dependencies were obtained, then every row of
 * its alternatives with what the run did about it. Empty when no ecosystem has a table.
 */
export function alternativesSection(
  deploy: { goal: { registries: RegistrySettings }; ecosystems: readonly AlternativesEcosystem[] },
  turns: readonly AlternativesTurn[],
  table?: AlternativesTable,
): string[] {
  // A trajectory recorded before scripts carried the marker cannot tell which alternative a turn tried.
  if (!turns.some((t) => readMarker(t.script))) return [];
  const statuses = evaluateAlternatives(
    { ecosystems: deploy.ecosystems, registries: deploy.goal.registries, turns },
    table,
  );
  if (statuses.length === 0) return [];
  return [
    '## Alternatives tried',
    '',
    'How each ecosystem’s dependencies were obtained:',
    '',
    ...dependencyLines(statuses).map((l) => `- ${l}`),
    '',
    'Each ecosystem’s alternatives (verifiers/deploy-alternatives.yaml), in order, and what this run did about each:',
    '',
    ...statuses.map((s) => `- ${describeRow(s)}`),
    '',
  ];
}

/** The alternatives as a model strategy's context (a blank line first), or '' when none apply. */
export function alternativesPrompt(
  goal: DeployGoal,
  repo: RepoInfo,
  history: readonly HistoryRecord[],
  table?: AlternativesTable,
): string {
  const text = alternativesContext(statusesOf(goal, repo, history, table));
  return text ? `\n\n${text}` : '';
}
