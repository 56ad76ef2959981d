/**
 * Mode `aggregate`: the run folders the workflow downloaded (input `results`: every run.json under it, in
 * whatever layout actions/download-artifact left) → leaderboard.md, leaderboard.json and the chart
 * leaderboard.svg (src/bench/leaderboard.ts), the outputs `leaderboard-path` and `leaderboard-dir`, and
 * leaderboard.md as the job summary. Runs that could not be counted are warnings, named by file; so are the
 * runs of the matrix that left no run.json (missingRuns: a crashed or cancelled `task` job would otherwise just
 * lower k), with the error file a failed `task` step uploaded instead (buildbench-error.txt) where there is one.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';

import * as core from '@actions/core';

import { ConfigError } from '../../base/errors.js';
import { readFileUnder } from '../../base/safe-fs.js';
import { collectRuns, type Collection } from '../../bench/collect.js';
import { writeLeaderboard } from '../../bench/leaderboard.js';
import type { ActionSettings } from '../settings.js';
import { appendSummary, FAILED_STEP_NOTE, workspaceOf, type ModeDeps } from './common.js';

export async function runAggregateMode(
  settings: ActionSettings,
  deps: ModeDeps,
): Promise<string | undefined> {
  const { results, leaderboardDir } = settings.bench;
  if (!results) throw new Error('mode aggregate without input results'); // readBenchInputs requires it
  const cwd = workspaceOf(deps.env);
  const collection = await collectRuns([results], { cwd });
  if (collection.found === 0) {
    const failed = await failedRunNotes(results);
    throw new ConfigError(
      `input results: no run.json under ${path.relative(cwd, results) || results}${failed.length > 0 ? `; ${failed.length} task step(s) failed: ${failed.join(', ')}` : ''}`,
      'expected the folder the run artifacts were downloaded into (actions/download-artifact), holding the out-dir of each task job',
    );
  }
  const written = await writeLeaderboard([results], leaderboardDir, { cwd });
  const board = written.leaderboard;
  core.setOutput('leaderboard-path', written.files.markdown);
  core.setOutput('leaderboard-dir', leaderboardDir);
  core.info(
    `buildbench: ${board.counted} of ${board.found} run(s) counted, ${board.systems.length} system(s), ${board.tasks.length} task(s) → ${leaderboardDir}`,
  );
  for (const w of board.warnings) core.warning(`buildbench: ${w}`);
  for (const p of board.problems) core.warning(`buildbench: ${p.file}: ${p.problem}`);
  const missing = missingRuns(collection);
  if (missing.count > 0) {
    const failed = await failedRunNotes(results);
    core.warning(
      `buildbench: ${missing.count} of ${missing.expected} run(s) of the matrix are missing (${missing.tasks} task(s) × ${missing.k} run(s) per system): ${missing.names.join('; ')}. ` +
        `Their task jobs left no run.json (a failed or cancelled job); pass@k and the rates count only the runs found.` +
        (failed.length > 0 ? ` Failed task steps uploaded: ${failed.join(', ')}.` : ''),
    );
  }
  // Read back as written: in its folder, never through a link.
  const markdown = (
    await readFileUnder(path.dirname(written.files.markdown), path.basename(written.files.markdown))
  ).toString('utf8');
  await appendSummary(deps.env, summaryOf(markdown));
  return undefined;
}

/** The most runs named one by one in the warning; the rest are counted. */
const NAMED_MISSING = 20;

export interface MissingRuns {
  /** Runs expected: for every system, every task found × runs 1..k, k the highest run number found. */
  expected: number;
  count: number;
  tasks: number;
  k: number;
  /** `system: task run n` (at most NAMED_MISSING, then `… and n more`). */
  names: string[];
}

/**
 * The runs of the matrix that are not in `collection`: the matrix gives every task the same runs 1..k for every
 * system, so a task or run number seen anywhere and absent for a system is a run whose job left no record. (A
 * task none of whose runs left a record cannot be seen here; its failed steps' error files are listed instead.)
 */
export function missingRuns(collection: Pick<Collection, 'systems'>): MissingRuns {
  const tasks = new Set<string>();
  let k = 0;
  for (const system of collection.systems)
    for (const run of system.runs) {
      tasks.add(run.record.task.id);
      k = Math.max(k, run.record.run);
    }
  const taskIds = [...tasks].sort();
  const all: string[] = [];
  for (const system of collection.systems) {
    const have = new Set(system.runs.map((r) => `${r.record.task.id}\u0000${r.record.run}`));
    for (const task of taskIds)
      for (let run = 1; run <= k; run++)
        if (!have.has(`${task}\u0000${run}`))
          all.push(`${collection.systems.length > 1 ? `${system.system}: ` : ''}${task} run ${run}`);
  }
  const names = all.slice(0, NAMED_MISSING);
  if (all.length > NAMED_MISSING) names.push(`… and ${all.length - NAMED_MISSING} more`);
  return {
    expected: collection.systems.length * taskIds.length * k,
    count: all.length,
    tasks: taskIds.length,
    k,
    names,
  };
}

/**
 * The folders under `results` (the folder itself and the artifacts one level down, as actions/download-artifact
 * lays them out) that hold the error file of a failed `task` step and no run.json, with the file's first line.
 */
export async function failedRunNotes(results: string): Promise<string[]> {
  const notes: string[] = [];
  const look = async (rel: string): Promise<void> => {
    const dir = path.join(results, rel);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
    if (names.has(FAILED_STEP_NOTE) && !names.has('run.json')) {
      const text = (await readFileUnder(dir, FAILED_STEP_NOTE).catch(() => Buffer.from(''))).toString('utf8');
      const why = text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('status:'))[0];
      notes.push(`${rel || '.'}${why ? ` (${why.slice(0, 200)})` : ''}`);
    }
    if (rel === '') for (const e of entries) if (e.isDirectory()) await look(e.name);
  };
  await look('');
  return notes.sort();
}

/**
 * leaderboard.md for the job summary: the summary cannot show an image next to it, so the chart's image
 * link becomes a line saying where the chart is.
 */
export function summaryOf(markdown: string): string {
  return markdown.replace(
    /!\[([^\]]*)\]\(leaderboard\.svg\)/g,
    (_, alt: string) =>
      `_${alt ? `${alt}: ` : ''}the chart is leaderboard.svg in the uploaded leaderboard (leaderboard-dir)._`,
  );
}
