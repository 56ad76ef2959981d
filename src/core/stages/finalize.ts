import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { LoopOutcome } from '../../agent/loop.js';
import { errorMessage } from '../../base/errors.js';
import { BUILD_SH, DOCKERFILE, finalizeRun, type FinalizeOutput } from '../../finalize/finalize.js';
import { decideAfterReplay } from '../status.js';
import { VERSION } from '../version.js';
import { requestedDevices } from './open-sandbox.js';
import { say, type Opened, type Prepared, type RunState } from './state.js';

/**
 * Stage 6 (src/finalize/): patches, the minimal recipe, its replay in a fresh sandbox (made by
 * `deps.createSandbox`, judged by the run's own verifier). It adds evidence next to the status; the one way it
 * changes it is status.ts's: a success whose recipe replay exited non-zero is PARTIAL. Its own failures are
 * warnings.
 */
export async function finalize(
  state: RunState,
  { source }: Prepared,
  { box, verifierFor }: Opened,
  outcome: LoopOutcome,
): Promise<void> {
  const warn = (message: string): void => say(state, 'finalize', message);
  const { settings, options } = state;
  try {
    const finalized = await finalizeRun({
      outDir: state.outDir,
      repo: state.name,
      originalDir: source.dir,
      cacheKey: source.identity,
      ...requestedDevices(settings),
      workDir: box.hostWorkdir,
      sandboxKind: box.kind,
      baseImage: box.image,
      sandboxSettings: state.sandboxSettings,
      history: outcome.history,
      status: state.decision.status,
      expected: state.expected,
      judge: async (replayBox, before) => {
        const verifier = verifierFor(replayBox, before);
        const judged = await verifier.verify();
        const hiddenSpecFile = state.spec.hiddenFile;
        if (!hiddenSpecFile || !judged.verdict.passed) return judged;
        // The task's hidden verifier judges the replay too: a recipe is verified by what made the run SUCCESS.
        await verifier.finish({ hiddenSpecFile, probes: false });
        const failures = verifier.failures();
        return failures.length === 0
          ? { ...judged, hidden: true }
          : { ...judged, verdict: { ...judged.verdict, passed: false, failures } };
      },
      version: VERSION,
      replayTimeoutMs: settings.turnTimeoutMs,
      deadline: state.deadline,
      signal: options.signal,
      onProgress: warn,
      createSandbox: state.deps.createSandbox,
      // The run's sandbox came fresh from the untouched repository, and nothing of the build ran in it before
      // the loop's first turn (only read-only package queries): a first turn that passed is its own replay.
      firstTurnFresh: settings.replay !== 'always',
      hiddenVerified: state.spec.hiddenFile !== undefined && state.final?.passed === true,
    });
    state.finalized = finalized;
    // A recipe whose replay exited non-zero does not reproduce the build: the status says so (core/status.ts).
    state.decision = decideAfterReplay(state.decision, finalized.recipe?.replay);
    for (const warning of finalized.warnings) warn(`warning: ${warning}`);
    // A build that copied a secret into a tracked file (a developer's untracked .env, say) must not carry
    // it into a patch the Action may publish: known secret values are replaced in what finalize wrote.
    for (const file of await redactFinalizeFiles(state.outDir, finalized, state.redact.exact)) {
      warn(`warning: ${file} held a secret value, now [REDACTED] (it may no longer apply as it is)`);
    }
  } catch (error) {
    warn(`warning: finalize failed: ${errorMessage(error)}`);
  }
}

/** Replaces known secret values in the text files finalize wrote (patches, build.sh, Dockerfile); returns those changed. */
async function redactFinalizeFiles(
  outDir: string,
  finalized: FinalizeOutput,
  exact: (text: string) => string,
): Promise<string[]> {
  const changed: string[] = [];
  for (const file of [BUILD_SH, DOCKERFILE, ...finalized.patches.map((p) => p.file)]) {
    const full = path.join(outDir, file);
    const text = await readFile(full, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const clean = exact(text);
    if (clean === text) continue;
    await writeFile(full, clean);
    changed.push(file);
  }
  return changed;
}
