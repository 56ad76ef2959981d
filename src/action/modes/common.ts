/** What the benchmark modes share: their dependencies, the workspace, the job summary, cancellation. */
import { appendFile } from 'node:fs/promises';

import * as core from '@actions/core';

import type { RunBuildOptions } from '../../core/run-build.js';
import type { BuildSettings } from '../../core/settings.js';
import type { BuildResult } from '../../report/result.js';

/** What the modes use of the action's dependencies (main.ts `ActionDeps` has them all). */
export interface ModeDeps {
  /** The engine of one build (`runBuild`); task mode runs the task through it. */
  runBuild: (settings: BuildSettings, options: RunBuildOptions) => Promise<BuildResult>;
  env: NodeJS.ProcessEnv;
  /** Turn SIGINT/SIGTERM (job cancellation) into a clean stop of the run. */
  handleSignals: boolean;
}

/**
 * The file a step that ended early leaves in its out-dir (main.ts's EARLY_NOTE, which main.ts owns; named here
 * too because modes may not import main.ts, which imports them): aggregate finds failed task steps by it.
 */
export const FAILED_STEP_NOTE = 'buildbench-error.txt';

/** The workspace the inputs' paths are relative to (as settings.ts reads them). */
export function workspaceOf(env: NodeJS.ProcessEnv): string {
  return env.GITHUB_WORKSPACE || process.cwd();
}

/** GitHub shows at most 1 MiB of a step's summary; a longer one is cut here, with a line saying so. */
export const SUMMARY_LIMIT = 1024 * 1024 - 4096;

/**
 * Appends to the step summary file (not `core.summary`, whose file path is cached process-wide, as main.ts
 * explains). A failure to write is a warning: the outputs are what the workflow reads.
 */
export async function appendSummary(env: NodeJS.ProcessEnv, text: string): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) {
    core.info('buildbench: GITHUB_STEP_SUMMARY is not set; no job summary written');
    return;
  }
  let body = text.endsWith('\n') ? text : `${text}\n`;
  if (Buffer.byteLength(body, 'utf8') > SUMMARY_LIMIT) {
    body = `${Buffer.from(body, 'utf8')
      .subarray(0, SUMMARY_LIMIT)
      .toString('utf8')
      .replace(
        /\uFFFD*$/,
        '',
      )}\n\n_(cut: the job summary holds at most 1 MiB; the full text is in the uploaded files)_\n`;
  }
  try {
    await appendFile(file, body);
  } catch (error) {
    core.warning(
      `could not write the job summary: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Runs `work` with an abort signal that SIGINT/SIGTERM (the job's cancellation) fires, when `handle`. */
export async function withCancellation<T>(
  handle: boolean,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    core.warning(`buildbench: ${signal} received — stopping the run and removing the sandbox`);
    controller.abort();
  };
  if (handle) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    return await work(controller.signal);
  } finally {
    if (handle) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
