/**
 * Mode `aggregate`: the run folders the workflow downloaded (input `results`: every run.json under it, in
 * whatever layout actions/download-artifact left) → leaderboard.md, leaderboard.json and the chart
 * leaderboard.svg (src/bench/leaderboard.ts), the outputs `leaderboard-path` and `leaderboard-dir`, and
 * leaderboard.md as the job summary. Runs that could not be counted are warnings, named by file.
 */
import path from 'node:path';

import * as core from '@actions/core';

import { readFileUnder } from '../../base/safe-fs.js';
import { writeLeaderboard } from '../../bench/leaderboard.js';
import type { ActionSettings } from '../settings.js';
import { appendSummary, workspaceOf, type ModeDeps } from './common.js';

export async function runAggregateMode(
  settings: ActionSettings,
  deps: ModeDeps,
): Promise<string | undefined> {
  const { results, leaderboardDir } = settings.bench;
  if (!results) throw new Error('mode aggregate without input results'); // readBenchInputs requires it
  const written = await writeLeaderboard([results], leaderboardDir, { cwd: workspaceOf(deps.env) });
  const board = written.leaderboard;
  core.setOutput('leaderboard-path', written.files.markdown);
  core.setOutput('leaderboard-dir', leaderboardDir);
  core.info(
    `buildbench: ${board.counted} of ${board.found} run(s) counted, ${board.systems.length} system(s), ${board.tasks.length} task(s) → ${leaderboardDir}`,
  );
  for (const w of board.warnings) core.warning(`buildbench: ${w}`);
  for (const p of board.problems) core.warning(`buildbench: ${p.file}: ${p.problem}`);
  // Read back as written: in its folder, never through a link.
  const markdown = (
    await readFileUnder(path.dirname(written.files.markdown), path.basename(written.files.markdown))
  ).toString('utf8');
  await appendSummary(deps.env, summaryOf(markdown));
  return undefined;
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
