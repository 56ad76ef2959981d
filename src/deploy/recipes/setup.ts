/**
 * The shape of one ecosystem's setup knowledge: from what detection found (`EcosystemInfo`) to recipes that
 * make the environment in which the target runs. A setup recipe is an ordinary `Recipe` with
 * `system: 'deploy'` and `dir: ''`: its steps run from the repository root, each in its own subshell, so a
 * step that makes tools available elsewhere (a virtual environment, `~/.cargo/bin`, GOPATH) also appends
 * their `export` lines to `DEPLOY_ENV_FILE` (deploy/types.ts), which the target and the verifiers source.
 */
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo, EcosystemKind, RepoInfo } from '../../repo/types.js';
import type { DeployGoal } from '../types.js';

export interface SetupContext {
  repo: RepoInfo;
  goal: DeployGoal;
}

export interface EcosystemSetup {
  kind: EcosystemKind;
  /**
   * Ways to set this ecosystem up, best first (e.g. a virtual environment with the registry, falling back
   * to the distribution's packages when it is unreachable; then the distribution's packages only). Empty
   * when there is nothing to set up.
   */
  recipes(eco: EcosystemInfo, context: SetupContext): Recipe[];
}
