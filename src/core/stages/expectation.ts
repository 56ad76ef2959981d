/**
 * The expectation follows the build system that ran (issue 31): inspection reads the expected products for the
 * first build system it would run; when the run falls back to another one (CMake failed, the rules strategy runs
 * the hand-written Makefile or autotools), the products are read again for that system, from the untouched
 * checkout, with that system's naming. Names given with --expect or by a task never change.
 */
import type { Action } from '../../agent/types.js';
import { errorMessage } from '../../base/errors.js';
import { targetsForSystem } from '../../repo/inspect.js';
import { readsOwnTargets } from '../../repo/targets.js';
import type { RepoInfo } from '../../repo/types.js';
import { expectedFrom, type IgnoredName } from '../../verify/scoring.js';
import type { Expected } from '../../verify/types.js';
import { say, type RunState } from './state.js';

/** What the expectation was read for, and how to read it again for the system a turn runs. */
export interface ExpectationFollower {
  /** Records the build system of a turn's script (from its recipe), before the script runs. */
  turnStarts(action: Action): void;
  /** Before the verifiers judge a turn: reads the expectation for the system that ran, and tells `changed` if it differs. */
  current(): Promise<void>;
}

function sameNames(a: Expected, b: Expected): boolean {
  const x = [...a.names].sort();
  const y = [...b.names].sort();
  return x.length === y.length && x.every((n, i) => n === y[i]);
}

/** A follower for a build run; `changed` is told each new expectation (the verifier, the strategy's context). */
export function followExpectation(
  state: RunState,
  repo: RepoInfo,
  changed: (expected: Expected & { ignored: IgnoredName[] }, system: string) => void,
): ExpectationFollower {
  let readFor: string | undefined = repo.buildSystems[0]?.kind;
  let pending: string | undefined;
  const fixed =
    state.settings.deploy !== undefined ||
    state.expected.source === 'cli' ||
    state.expected.source === 'task' ||
    state.spec.hiddenFile !== undefined;
  return {
    turnStarts(action) {
      if (action.kind === 'run') pending = action.recipe?.system;
    },
    async current() {
      const system = pending;
      if (fixed || system === undefined || system === readFor || !readsOwnTargets(system)) return;
      readFor = system;
      const dir = state.source?.dir ?? repo.root;
      let next: Expected & { ignored: IgnoredName[] };
      try {
        const targets = await targetsForSystem(
          dir,
          system,
          repo.submodules.map((s) => s.path),
        );
        next = expectedFrom({ expect: [] }, { expectedTargets: targets });
      } catch (error) {
        say(state, 'build', `the expectation could not be read again for ${system}: ${errorMessage(error)}`);
        return;
      }
      if (
        next.names.length === 0 ||
        (sameNames(next, state.expected) && !next.uncertain === !state.expected.uncertain)
      )
        return;
      changed(next, system);
    },
  };
}
