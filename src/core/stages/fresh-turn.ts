import path from 'node:path';

import type { LoopDeps } from '../../agent/loop.js';
import { CancelledError, errorMessage, SandboxError } from '../../base/errors.js';
import type { Sandbox } from '../../sandbox/types.js';
import { editedPaths, snapshotTree } from '../../verify/artifacts.js';
import { saveSnapshot, SNAPSHOT_FILE } from '../../verify/baseline.js';
import { excludeBuildScratch } from '../../verify/exclude.js';
import type { TreeSnapshot } from '../../verify/types.js';
import { say, type Opened, type RunState } from './state.js';

/**
 * A repair turn in a fresh sandbox (the loop's `freshSandbox`): the turn's script runs as the first command of
 * a new sandbox made from the untouched repository, so that, when it passes, that run is the recipe's replay
 * (finalize writes build.sh as that script byte for byte) instead of a second build after the loop.
 *
 * Only where the fresh sandbox loses nothing the script needs: the script was rendered from a recipe (a
 * strategy's whole, self-contained script: shell library, every package so far, environment, steps), it makes
 * no source edit and no earlier turn made one, and no file of the repository as copied in was changed or
 * removed in the run's sandbox (a script's own edit, a build that rewrote a committed file). What earlier turns
 * built is not carried over: the turn builds from scratch, as its replay would (with the build cache's ccache).
 * Not with `--always-replay` (the recipe is replayed anyway) nor for a deploy (its setup leaves state beside
 * the tree). The run's sandbox is disposed first (its downloads go into the build cache for the fresh one);
 * a fresh sandbox that cannot be made is a SandboxError, which ends the loop as `sandbox_error`.
 */
export function freshTurns(state: RunState, opened: Opened): LoopDeps['freshSandbox'] {
  const { settings } = state;
  if (settings.replay === 'always' || settings.deploy) return undefined;
  return async (turn, action, history) => {
    if (!action.recipe || (action.patches?.length ?? 0) > 0) return false;
    if (history.some((r) => r.action.kind === 'run' && (r.action.patches?.length ?? 0) > 0)) return false;
    if (state.options.signal?.aborted) return false;
    const now = await snapshotTree(opened.box.hostWorkdir, { exclude: excludeBuildScratch }).catch(
      () => undefined,
    );
    if (!now || editedPaths(opened.before, now).length > 0) return false;
    // The run's sandbox goes first: disposing it takes what it downloaded into the build cache, where the
    // fresh one finds it. A fresh sandbox that cannot be made then ends the run (sandbox_error).
    const old = opened.handle.current;
    const oldEgress = old.egress?.();
    await old.dispose().catch((error: unknown) => {
      say(state, 'sandbox', `warning: the earlier sandbox was not removed: ${errorMessage(error)}`);
    });
    let fresh: Sandbox;
    let before: TreeSnapshot;
    try {
      fresh = await state.deps.createSandbox(state.sandboxSettings, opened.request);
    } catch (error) {
      if (error instanceof SandboxError || error instanceof CancelledError) throw error;
      throw new SandboxError(`a fresh sandbox for turn ${turn} could not be made: ${errorMessage(error)}`);
    }
    try {
      before = await snapshotTree(fresh.hostWorkdir, { exclude: excludeBuildScratch });
    } catch (error) {
      await fresh.dispose().catch(() => undefined);
      throw new SandboxError(`the fresh sandbox for turn ${turn} could not be read: ${errorMessage(error)}`);
    }
    opened.handle.replace(fresh, oldEgress);
    opened.before = before;
    // `buildbench verify` on a kept sandbox compares its tree with this one's snapshot.
    if (settings.keep) await saveSnapshot(path.join(state.outDir, SNAPSHOT_FILE), before);
    opened.verifier = opened.verifierFor(opened.box, before);
    state.verifier = opened.verifier;
    say(
      state,
      'sandbox',
      `turn ${turn} runs in a fresh ${fresh.kind} sandbox from the untouched repository (if it passes, that run is the recipe's replay)`,
    );
    return true;
  };
}
