/**
 * src/core/ — the composition roots (floor 4): `runBuild` (one build, this file) and `runVerify` (the
 * verifiers again on a build that already happened, run-verify.ts), with what only they need: the source
 * (a folder or a clone, source.ts), the settings the front doors resolve (settings.ts), the one decision of a
 * run's final status (status.ts) and result.json from a run's state (result.ts). Core composes the floors
 * below — repo, sandbox, verify, agent, finalize, report — and owns no domain logic of its own; the stages
 * of a build are in core/stages/, one file each, passing one `RunState`.
 */
import { ConfigError } from '../base/errors.js';
import type { BuildResult } from '../report/result.js';
import type { BuildSettings } from './settings.js';
import { collect } from './stages/collect.js';
import { recordEnvironment } from './stages/environment.js';
import { finishChecks } from './stages/final-checks.js';
import { finalize } from './stages/finalize.js';
import { runLoop } from './stages/loop.js';
import { openSandbox } from './stages/open-sandbox.js';
import { prepare } from './stages/prepare.js';
import { DEFAULT_DEPS, startRun, type RunBuildDeps, type RunBuildOptions } from './stages/state.js';
import { writeResult } from './stages/write-result.js';
import { decideStatus } from './status.js';

export type { RunBuildDeps, RunBuildOptions };

/**
 * One build: prepare (source, inspection, spec) → open the sandbox → the agent loop → collect the binaries →
 * final checks and the status → finalize (patches, recipe, replay) → write result.json and RUNBOOK.md.
 * The binaries are collected before the final checks run them. Whatever happens, result.json and
 * trajectory.jsonl are written; a configuration error found before the sandbox exists is thrown as
 * ConfigError after that (a bad model spec or `--out` before anything is written).
 */
export async function runBuild(
  settings: BuildSettings,
  options: RunBuildOptions = {},
  deps: Partial<RunBuildDeps> = {},
): Promise<BuildResult> {
  const state = await startRun(settings, options, { ...DEFAULT_DEPS, ...deps });
  try {
    const prepared = await prepare(state);
    const opened = await openSandbox(state, prepared);
    const outcome = await runLoop(state, prepared, opened);
    await collect(state, opened, outcome);
    await recordEnvironment(state, opened);
    await finishChecks(state, opened, outcome);
    await finalize(state, prepared, opened, outcome);
  } catch (error) {
    const aborted = options.signal?.aborted ?? false;
    const beforeSandbox = state.sandbox === undefined;
    state.decision = decideStatus({ caught: { error, aborted, beforeSandbox }, claims: state.claims });
    // A configuration error before the sandbox exists is the user's to fix: thrown once the result is written.
    if (error instanceof ConfigError && beforeSandbox) {
      await writeResult(state);
      throw error;
    }
  }
  return writeResult(state);
}
