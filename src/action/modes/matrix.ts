/**
 * Mode `matrix`: the task files of input `tasks` → the output `matrix`, the same JSON `buildbench matrix`
 * prints (src/bench/matrix.ts says its shape), and `matrix-size`; the job summary counts the jobs per runner.
 */
import * as core from '@actions/core';

import { ConfigError } from '../../base/errors.js';
import { loadTasks } from '../../bench/load.js';
import { buildMatrix, type BenchMatrix } from '../../bench/matrix.js';
import type { ActionSettings } from '../settings.js';
import { appendSummary, workspaceOf, type ModeDeps } from './common.js';

export async function runMatrixMode(settings: ActionSettings, deps: ModeDeps): Promise<string | undefined> {
  const b = settings.bench;
  const tasks = await loadTasks(b.tasks, {
    allowedRoots: [workspaceOf(deps.env), ...(b.reposDir ? [b.reposDir] : [])],
  });
  const matrix = buildMatrix(tasks, {
    runs: b.runs,
    chunkSize: b.chunkSize,
    labels: b.labels,
    defaultRunner: b.defaultRunner,
    root: workspaceOf(deps.env),
  });
  core.setOutput('matrix', matrixOutput(matrix));
  core.setOutput('matrix-size', String(matrix.size));
  core.info(
    `buildbench: ${tasks.length} task(s) × ${b.runs} run(s) = ${matrix.size} job(s) in ${matrix.chunks.length} chunk(s) of at most ${matrix.chunkSize}`,
  );
  await appendSummary(deps.env, renderMatrixSummary(matrix, tasks.length, b.runs));
  return undefined;
}

/** GitHub keeps at most 1 MB of a job's outputs; the matrix job's output is the matrix. */
export const JOB_OUTPUTS_LIMIT = 1024 * 1024;

/** The output `matrix`: the JSON on one line, or a ConfigError when a job could not pass it on. */
export function matrixOutput(matrix: BenchMatrix, limit = JOB_OUTPUTS_LIMIT): string {
  const json = JSON.stringify(matrix);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limit)
    throw new ConfigError(
      `input tasks: the matrix of ${matrix.size} runs is ${bytes} bytes of JSON, more than the ${limit} a job's outputs may hold`,
      'benchmark fewer tasks or runs in one workflow run (e.g. one suite per run)',
    );
  return json;
}

/** The job summary: how many jobs, and how many on each set of runner labels. */
export function renderMatrixSummary(matrix: BenchMatrix, tasks: number, runs: number): string {
  const perRunner = new Map<string, number>();
  for (const chunk of matrix.chunks)
    for (const entry of chunk.include) {
      const key = entry['runs-on'].join(', ');
      perRunner.set(key, (perRunner.get(key) ?? 0) + 1);
    }
  const rows = [...perRunner.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([labels, jobs]) => `| \`${labels}\` | ${jobs} |`);
  return [
    '## buildbench: benchmark matrix',
    '',
    `${tasks} task(s) × ${runs} run(s) = **${matrix.size}** job(s), in ${matrix.chunks.length} chunk(s) of at most ${matrix.chunkSize}.`,
    '',
    '| runs-on | jobs |',
    '| --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
