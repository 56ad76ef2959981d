/**
 * Collecting the runs of one or more result folders: every `run.json` under them (a bench folder's
 * `runs/<task>/<n>/`, or whatever layout the artifacts of many matrix jobs were downloaded into), checked,
 * with the `result.json` beside it, grouped by system (strategy + model), one run per (system, task, run).
 *
 * The folders may come from elsewhere (downloaded artifacts): the walk never follows a symbolic link, and
 * every file is read through `readFileUnder` in strict mode (no link anywhere on its path under the folder
 * given). A file that cannot be read or has the wrong shape is a problem reported with its path, never a
 * crash; a run found twice is kept once, with a warning naming both places.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';

import { errorMessage } from '../base/errors.js';
import { readFileUnder, relComponents } from '../base/safe-fs.js';
import { checkBuildResult, type BuildResult } from '../report/result.js';
import { successWithoutRunThrough } from '../report/run-through.js';
import type { RunRecord } from './types.js';

export const RUN_SCHEMA = 'buildbench.run/v1';
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** One run as found: its record, and its result when the engine wrote one that could be read. */
export interface CollectedRun {
  /** Where the run folder is, as shown to people (relative to `cwd` when under it). */
  where: string;
  record: RunRecord;
  result?: BuildResult;
}

/** All runs of one system under test (a strategy, and the model when there is one). */
export interface SystemRuns {
  /** `strategy` or `strategy (model)`: the label the leaderboard shows. */
  system: string;
  strategy: string;
  model?: string;
  /** Sorted by task id, then run number. */
  runs: CollectedRun[];
}

export interface CollectProblem {
  /** The file, as shown to people. */
  file: string;
  problem: string;
}

export interface Collection {
  /** Sorted by label. */
  systems: SystemRuns[];
  /** Duplicates dropped (which copy was kept), runs whose result.json could not be read. */
  warnings: string[];
  /** Files that could not be read or checked: their run is not counted. */
  problems: CollectProblem[];
  /** run.json files found (counted or not). */
  found: number;
}

export interface CollectOptions {
  /** Folders are resolved against it and paths are shown relative to it (default: process.cwd()). */
  cwd?: string;
}

/** The leaderboard's name for a system. */
export function systemLabel(strategy: string, model?: string): string {
  return model ? `${strategy} (${model})` : strategy;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a parsed run.json; throws an Error naming the field and what was expected. */
export function checkRunRecord(value: unknown): RunRecord {
  const wrong = (field: string, expected: string): Error => new Error(`${field}: expected ${expected}`);
  if (!isObject(value)) throw new Error('expected a JSON object (a buildbench run record)');
  if (value.schema !== RUN_SCHEMA) throw wrong('schema', `"${RUN_SCHEMA}"`);
  const task = value.task;
  if (!isObject(task)) throw wrong('task', 'an object with the task id and kind');
  if (typeof task.id !== 'string' || task.id === '') throw wrong('task.id', 'a non-empty string');
  if (task.kind !== 'build' && task.kind !== 'deploy') throw wrong('task.kind', 'build or deploy');
  for (const key of ['expected', 'instructions', 'requires']) {
    const list = task[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((v) => typeof v === 'string')))
      throw wrong(`task.${key}`, 'a list of strings');
  }
  if (task.suite !== undefined && typeof task.suite !== 'string') throw wrong('task.suite', 'a string');
  if (typeof value.run !== 'number' || !Number.isInteger(value.run) || value.run < 1)
    throw wrong('run', 'a run number (1, 2, …)');
  if (typeof value.strategy !== 'string' || value.strategy === '')
    throw wrong('strategy', 'a non-empty string');
  if (typeof value.status !== 'string' || value.status === '') throw wrong('status', 'a status');
  for (const key of ['model', 'error', 'result', 'startedAt', 'finishedAt']) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw wrong(key, 'a string');
  }
  return value as unknown as RunRecord;
}

/** Every run.json under `root` (relative paths), never through a symbolic link; a run folder is not entered. */
async function findRunFiles(
  root: string,
  rel: string,
  out: string[],
  problems: { rel: string; problem: string }[],
): Promise<void> {
  let entries;
  try {
    entries = await readdir(rel === '' ? root : path.join(root, rel), { withFileTypes: true });
  } catch (error) {
    problems.push({ rel, problem: `cannot list the folder (${errorMessage(error)})` });
    return;
  }
  if (entries.some((e) => e.isFile() && e.name === 'run.json')) {
    out.push(rel === '' ? 'run.json' : `${rel}/run.json`);
    return;
  }
  const folders = entries
    .filter((e) => e.isDirectory() && !e.isSymbolicLink())
    .map((e) => e.name)
    .sort();
  for (const name of folders) await findRunFiles(root, rel === '' ? name : `${rel}/${name}`, out, problems);
}

async function readJsonUnder(root: string, rel: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFileUnder(root, rel, { follow: 'strict', maxBytes: MAX_JSON_BYTES });
  } catch (error) {
    throw new Error(`cannot be read (${errorMessage(error)})`);
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new Error(`not valid JSON (${errorMessage(error)})`);
  }
}

/**
 * The runs under `dirs`. Throws nothing for a bad file (it becomes a problem); only the folders themselves
 * must exist (a folder that cannot be listed is a problem too).
 */
export async function collectRuns(
  dirs: readonly string[],
  options: CollectOptions = {},
): Promise<Collection> {
  const cwd = options.cwd ?? process.cwd();
  const shown = (abs: string): string => {
    const rel = path.relative(cwd, abs);
    return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  };
  const problems: CollectProblem[] = [];
  const warnings: string[] = [];
  const bySystem = new Map<string, SystemRuns>();
  const seen = new Map<string, string>();
  let found = 0;
  for (const dir of dirs) {
    const root = path.resolve(cwd, dir);
    const files: string[] = [];
    const listing: { rel: string; problem: string }[] = [];
    await findRunFiles(root, '', files, listing);
    for (const p of listing) problems.push({ file: shown(path.join(root, p.rel)), problem: p.problem });
    found += files.length;
    for (const rel of files) {
      const runRel = path.posix.dirname(rel);
      const runDir = runRel === '.' ? root : path.join(root, runRel);
      const file = shown(path.join(root, rel));
      let record: RunRecord;
      try {
        record = checkRunRecord(await readJsonUnder(root, rel));
      } catch (error) {
        problems.push({ file, problem: `not counted: ${errorMessage(error)}` });
        continue;
      }
      const where = shown(runDir);
      const system = systemLabel(record.strategy, record.model);
      const key = JSON.stringify([system, record.task.id, record.run]);
      const first = seen.get(key);
      if (first !== undefined) {
        warnings.push(
          `${system}: task ${record.task.id} run ${record.run} found twice: kept ${first}, dropped ${where}`,
        );
        continue;
      }
      const result = await readResult(root, runRel, record, (problem) => problems.push(problem), shown);
      if (result === null) continue;
      // A success whose last script or replay did not run through is a bug of the engine: said, loudly.
      for (const problem of result ? successWithoutRunThrough(result) : [])
        warnings.push(`${system}: task ${record.task.id} run ${record.run} (${where}): ${problem}`);
      seen.set(key, where);
      let entry = bySystem.get(system);
      if (!entry) {
        entry = {
          system,
          strategy: record.strategy,
          ...(record.model ? { model: record.model } : {}),
          runs: [],
        };
        bySystem.set(system, entry);
      }
      entry.runs.push({ where, record, ...(result ? { result } : {}) });
    }
  }
  const systems = [...bySystem.values()].sort((a, b) => compareText(a.system, b.system));
  for (const s of systems)
    s.runs.sort((a, b) => compareText(a.record.task.id, b.record.task.id) || a.record.run - b.record.run);
  return { systems, warnings, problems, found };
}

/**
 * The result.json a record names: the result, undefined for a run that has none (status `error`), or null
 * when it should have one that cannot be read (a problem: the run is not counted, since its outcome is unknown).
 */
async function readResult(
  root: string,
  runRel: string,
  record: RunRecord,
  report: (problem: CollectProblem) => void,
  shown: (abs: string) => string,
): Promise<BuildResult | undefined | null> {
  const name = record.result ?? (record.status === 'error' ? undefined : 'result.json');
  if (name === undefined) return undefined;
  let rel: string;
  try {
    relComponents(name);
    rel = runRel === '.' ? name : `${runRel}/${name}`;
  } catch (error) {
    report({
      file: shown(path.join(root, runRel, 'run.json')),
      problem: `not counted: result: ${errorMessage(error)}`,
    });
    return null;
  }
  const file = shown(path.join(root, rel));
  try {
    return checkBuildResult(await readJsonUnder(root, rel), file, { require: ['status', 'metrics'] });
  } catch (error) {
    // the message without checkBuildResult's hint (the problem list says what a result.json is)
    const message = error instanceof Error ? error.message : String(error);
    report({
      file,
      problem: `not counted: ${message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message}`,
    });
    return null;
  }
}

/** A stable order that does not depend on the machine's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
