import { writeFile } from 'node:fs/promises';
import path from 'node:path';

import { errorMessage } from '../../base/errors.js';
import type { BuildResult } from '../../report/result.js';
import { writeRunbook } from '../../report/runbook.js';
import { redactDeep } from '../../trajectory/redact.js';
import { toBuildResult, trajectoryAnalysisOf } from '../result.js';
import { say, type RunState } from './state.js';

/**
 * Stage 7, whatever happened before: the sandbox is disposed (or kept, `--keep`; one still being made when the
 * run failed is stopped and disposed) and the clone removed while the trajectory is analysed, result.json
 * written (redacted; with the trajectory analysis, and the first failure of an event observer if one failed),
 * `run_end` emitted, the trajectory closed, and RUNBOOK.md rendered from result.json + trajectory.jsonl as
 * `buildbench report` does.
 */
export async function writeResult(state: RunState): Promise<BuildResult> {
  const { sandbox, settings } = state;
  // The sandbox is removed (and the clone) while the trajectory is analysed: a big build tree takes a while.
  const disposed = (async (): Promise<unknown> => {
    // One started while the tree was inspected, never taken: the run failed first.
    if (!sandbox) return state.startedSandbox?.discard();
    try {
      state.keptAt = settings.keep ? sandbox.describeLocation() : undefined;
      await sandbox.dispose({ keep: settings.keep });
      return undefined;
    } catch (error) {
      return error ?? new Error('unknown');
    }
  })();
  const cleaned = state.source?.cleanup().catch(() => undefined);
  const file = path.join(state.outDir, 'result.json');
  let analysisError: unknown;
  const analysis = await trajectoryAnalysisOf(state).catch((error: unknown) => {
    analysisError = error ?? new Error('unknown');
    return undefined;
  });
  const disposeError = await disposed;
  if (disposeError) say(state, 'report', `warning: sandbox cleanup failed: ${errorMessage(disposeError)}`);
  await cleaned;
  if (analysisError)
    say(state, 'report', `warning: the trajectory analysis failed: ${errorMessage(analysisError)}`);
  let result = redactDeep(toBuildResult(state, state.deps.now(), analysis), state.redact);
  await writeFile(file, JSON.stringify(result, null, 2) + '\n');
  state.events.emit({ type: 'run_end', status: result.status, reason: result.reason });
  state.recorder.close();
  // An observer that failed on run_end (the recorder's last write) is counted too.
  const failure = state.events.failure();
  if (failure && failure.count !== result.observerFailure?.count) {
    result = { ...result, observerFailure: redactDeep(failure, state.redact) };
    await writeFile(file, JSON.stringify(result, null, 2) + '\n');
  }
  await writeRunbook(state.outDir).catch((error: unknown) => {
    say(state, 'report', `warning: RUNBOOK.md was not written: ${errorMessage(error)}`);
  });
  return result;
}
