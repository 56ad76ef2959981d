/**
 * Trajectory analysis (DeployBench §5 as a product feature): each script a run executed is split into its
 * sub-commands on top-level `&&`, `||`, `;` and `|` (`shell-split.ts`); each sub-command gets a phase from
 * the data table `phases.yaml`; the recovery after each failed turn is classified; self-stops (the strategy's
 * finish claims) are counted with whether the verifier agreed. Per run this is `analysis` in result.json and
 * a RUNBOOK section; per suite the leaderboard sums it.
 *
 * The shape below is the contract the bench leaderboard reads (fields are only added, and only optional).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { parse as parseYaml } from 'yaml';

import { ConfigError, errorMessage } from '../base/errors.js';
import { splitScript } from './shell-split.js';

export const PHASES = ['inspect', 'install', 'configure', 'build', 'patch', 'test', 'other'] as const;
export type Phase = (typeof PHASES)[number];

export const RECOVERIES = ['inspect', 'adapt', 'loop', 'abort', 'other'] as const;
export type Recovery = (typeof RECOVERIES)[number];

export interface TrajectoryAnalysis {
  /** Sub-commands over all turns. */
  commands: number;
  /** Sub-commands per phase (every phase present, zero when none). */
  phases: Record<Phase, number>;
  /** Turns that failed (non-zero exit or timed out). */
  failures: number;
  /** What followed each failed turn (every kind present, zero when none). */
  recoveries: Record<Recovery, number>;
  /** Finish claims the strategy made, and how many the verifier accepted or refused. */
  selfStops: { count: number; correct: number; wrong: number };
  /** Each failed turn and what followed it, in order (optional: added after the first shape). */
  failed?: { turn: number; recovery: Recovery }[];
  /** Turns whose script the shell parser rejected, split by lines instead (optional). */
  unparsed?: number;
}

/** One turn that ran a script, as the analysis needs it. */
export interface AnalysisTurn {
  turn: number;
  script: string;
  exitCode: number | null;
  timedOut: boolean;
}

/** One finish claim of the strategy (the stop-gate's decision on it). */
export interface AnalysisClaim {
  turn: number;
  claim: string;
  /** The stop-gate let it through (a SUCCESS claim only when the verifiers passed at that turn). */
  accepted: boolean;
}

export interface AnalysisInput {
  turns: readonly AnalysisTurn[];
  /** The strategy's own finish claims (not the harness's stops for a spent budget). */
  claims: readonly AnalysisClaim[];
  /** The verifiers' final word on the run (hidden spec and probes included). */
  passed: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// The phase table

export interface PhaseTable {
  wrappers: RegExp[];
  rules: { phase: Phase; when: RegExp }[];
}

/** The shipped table (resolved against this module: `src/trajectory/` and `lib/trajectory/` alike). */
export const DEFAULT_PHASES_URL = new URL('../../src/trajectory/phases.yaml', import.meta.url);

/** Parses a phase table; every problem is a ConfigError naming the file and the field. */
export function parsePhaseTable(text: string, file: string): PhaseTable {
  const wrong = (field: string, expected: string): ConfigError =>
    new ConfigError(
      `${file}: ${field}: expected ${expected}`,
      'see the header of src/trajectory/phases.yaml',
    );
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid YAML (${errorMessage(error)})`);
  }
  if (typeof data !== 'object' || data === null) throw wrong('(top)', 'a mapping with wrappers and rules');
  const { wrappers, rules } = data as { wrappers?: unknown; rules?: unknown };
  const regex = (value: unknown, field: string): RegExp => {
    if (typeof value !== 'string') throw wrong(field, 'a regular expression as a string');
    try {
      return new RegExp(value);
    } catch (error) {
      throw wrong(field, `a valid regular expression (${errorMessage(error)})`);
    }
  };
  if (wrappers !== undefined && !Array.isArray(wrappers))
    throw wrong('wrappers', 'a list of regular expressions');
  if (!Array.isArray(rules)) throw wrong('rules', 'a list of {phase, when}');
  return {
    wrappers: (wrappers ?? []).map((w: unknown, i) => regex(w, `wrappers[${i}]`)),
    rules: rules.map((rule: unknown, i) => {
      const r = (rule ?? {}) as { phase?: unknown; when?: unknown };
      if (!PHASES.includes(r.phase as Phase)) throw wrong(`rules[${i}].phase`, `one of ${PHASES.join(', ')}`);
      return { phase: r.phase as Phase, when: regex(r.when, `rules[${i}].when`) };
    }),
  };
}

let shipped: PhaseTable | undefined;

/** The shipped phase table, read once. */
export function defaultPhaseTable(): PhaseTable {
  if (!shipped) {
    // A URL here; in the ncc bundle a plain path beside dist/index.js (its asset relocator rewrites it).
    const where = DEFAULT_PHASES_URL as URL | string;
    const file = where instanceof URL ? fileURLToPath(where) : where;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read the phase table ${file} (${errorMessage(error)})`);
    }
    shipped = parsePhaseTable(text, file);
  }
  return shipped;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\S)*\s*/;

/** A sub-command without its leading assignments and wrappers (`sudo`, `env`, `time`, …). */
export function strippedCommand(command: string, table: PhaseTable = defaultPhaseTable()): string {
  let text = command.trim();
  for (let changed = true; changed;) {
    changed = false;
    const assignment = ASSIGNMENT.exec(text);
    // A bare assignment (`X=1`) is left alone: it is the whole command.
    if (assignment && assignment[0].length < text.length && /\s$/.test(assignment[0])) {
      text = text.slice(assignment[0].length);
      changed = true;
    }
    for (const wrapper of table.wrappers) {
      const m = wrapper.exec(text);
      if (m && m[0].length > 0 && m[0].length < text.length) {
        text = text.slice(m[0].length);
        changed = true;
      }
    }
  }
  return text;
}

/** The phase of one sub-command: the first rule of the table that matches it, else `other`. */
export function classifyCommand(command: string, table: PhaseTable = defaultPhaseTable()): Phase {
  const text = strippedCommand(command, table);
  return table.rules.find((rule) => rule.when.test(text))?.phase ?? 'other';
}

// ---------------------------------------------------------------------------------------------------------
// Recoveries and self-stops

/** Share of the next turn's (non-`other`) commands that are looks, from which it counts as inspecting. */
const INSPECT_SHARE = 0.5;
const WORK: ReadonlySet<Phase> = new Set(['install', 'patch', 'configure', 'build', 'test']);

/** A turn's script with its sub-commands and their phases, as the recovery rules compare them. */
export interface RecoveryTurn {
  script: string;
  commands: readonly string[];
  phases: readonly Phase[];
}

interface SplitTurn extends RecoveryTurn {
  turn: AnalysisTurn;
}

/**
 * What the turn after a failed one did: `abort` (there is none), `loop` (the same script, the same
 * commands or fewer, or the same work again with only new `other` lines around it: echo, cd), `inspect` (mostly looks), `adapt` (new installs,
 * patches, configure/build/test commands or flags), `other` (something else).
 */
export function classifyRecovery(failed: RecoveryTurn, next: RecoveryTurn | undefined): Recovery {
  if (!next) return 'abort';
  if (next.script === failed.script) return 'loop';
  const before = new Set(failed.commands);
  const fresh = next.commands.map((c, i) => ({ c, phase: next.phases[i]! })).filter((x) => !before.has(x.c));
  if (next.commands.length > 0 && fresh.length === 0) return 'loop';
  // The same work again, with only new chatter (echo, cd, set) around it.
  const work = (t: RecoveryTurn): Set<string> =>
    new Set(t.commands.filter((_, i) => t.phases[i] !== 'other' && t.phases[i] !== 'inspect'));
  const [workBefore, workNext] = [work(failed), work(next)];
  if (
    workNext.size > 0 &&
    fresh.every((x) => x.phase === 'other') &&
    [...workBefore].every((c) => workNext.has(c))
  )
    return 'loop';
  const relevant = next.phases.filter((p) => p !== 'other');
  const looks = relevant.filter((p) => p === 'inspect').length;
  if (relevant.length > 0 && looks / relevant.length >= INSPECT_SHARE) return 'inspect';
  if (fresh.some((x) => WORK.has(x.phase))) return 'adapt';
  return 'other';
}

/**
 * A claim is right when the verifiers' final word agrees with it: SUCCESS accepted by the stop-gate and the
 * run passing; any other claim (partial, impossible) with the run not passing.
 */
export function selfStopsOf(
  claims: readonly AnalysisClaim[],
  passed: boolean,
): TrajectoryAnalysis['selfStops'] {
  let correct = 0;
  for (const c of claims) {
    const right = c.claim === 'success' ? c.accepted && passed : !passed;
    if (right) correct++;
  }
  return { count: claims.length, correct, wrong: claims.length - correct };
}

function zeroes<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

/** The analysis of one run: phases of every sub-command, recoveries after failed turns, self-stops. */
export async function analyzeTrajectory(
  input: AnalysisInput,
  table: PhaseTable = defaultPhaseTable(),
): Promise<TrajectoryAnalysis> {
  const turns = [...input.turns].sort((a, b) => a.turn - b.turn);
  const split: SplitTurn[] = [];
  let unparsed = 0;
  for (const turn of turns) {
    const result = await splitScript(turn.script);
    if (result.parser === 'lines') unparsed++;
    split.push({
      turn,
      script: turn.script,
      commands: result.commands,
      phases: result.commands.map((c) => classifyCommand(c, table)),
    });
  }
  const phases = zeroes(PHASES);
  for (const s of split) for (const p of s.phases) phases[p]++;
  const recoveries = zeroes(RECOVERIES);
  const failed: { turn: number; recovery: Recovery }[] = [];
  split.forEach((s, i) => {
    if (s.turn.exitCode === 0 && !s.turn.timedOut) return;
    const recovery = classifyRecovery(s, split[i + 1]);
    recoveries[recovery]++;
    failed.push({ turn: s.turn.turn, recovery });
  });
  return {
    commands: split.reduce((n, s) => n + s.commands.length, 0),
    phases,
    failures: failed.length,
    recoveries,
    selfStops: selfStopsOf(input.claims, input.passed),
    failed,
    unparsed,
  };
}
