import { writeFile } from 'node:fs/promises';
import path from 'node:path';

import { errorMessage } from '../../base/errors.js';
import type { BuildResult } from '../../report/result.js';
import { writeRunbook } from '../../report/runbook.js';
import { redactDeep } from '../../trajectory/redact.js';
import { toBuildResult, trajectoryAnalysisOf } from '../result.js';
import { say, type RunState } from './state.js';

/**
 * Stage 7, whatever happened before: the sandbox is disposed (or kept, `--keep`), the clone removed,
 * result.json written (redacted; with the trajectory analysis, and the first failure of an event observer if
 * one failed), `run_end` emitted, the trajectory closed, and RUNBOOK.md rendered from
 * result.json + trajectory.jsonl as `buildbench report` does.
 */
export async function writeResult(state: RunState): Promise<BuildResult> {
  const { sandbox, settings } = state;
  if (sandbox) {
    try {
      state.keptAt = settings.keep ? sandbox.describeLocation() : undefined;
      await sandbox.dispose({ keep: settings.keep });
    } catch (error) {
      say(state, 'report', `warning: sandbox cleanup failed: ${errorMessage(error)}`);
    }
  }
  await state.source?.cleanup().catch(() => undefined);
  const file = path.join(state.outDir, 'result.json');
  const analysis = await trajectoryAnalysisOf(state).catch((error: unknown) => {
    say(state, 'report', `warning: the trajectory analysis failed: ${errorMessage(error)}`);
    return undefined;
  });
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
