/**
 * The action's benchmark modes, the GitHub Actions side of `buildbench bench` (issue 14's distributed
 * engine, .github/workflows/benchmark.yml):
 * - `matrix` (matrix.ts): task files → the output `matrix` a later job's `strategy.matrix` reads;
 * - `task` (task.ts): one run of one task, in a fresh sandbox, into a folder the workflow uploads;
 * - `aggregate` (aggregate.ts): the downloaded run folders → leaderboard.md/.json/.svg and the job summary.
 * main.ts reads the inputs once and hands the settings here for every mode but `build`. Each mode answers
 * why the step fails, or undefined, as main's build step does.
 */
import type { ActionSettings } from '../settings.js';
import { runAggregateMode } from './aggregate.js';
import type { ModeDeps } from './common.js';
import { runMatrixMode } from './matrix.js';
import { runTaskMode } from './task.js';

export type { ModeDeps } from './common.js';

export async function runMode(settings: ActionSettings, deps: ModeDeps): Promise<string | undefined> {
  switch (settings.mode) {
    case 'matrix':
      return runMatrixMode(settings, deps);
    case 'task':
      return runTaskMode(settings, deps);
    case 'aggregate':
      return runAggregateMode(settings, deps);
    case 'build':
      throw new Error('mode build is the build step (main.ts), not a benchmark mode');
  }
}
