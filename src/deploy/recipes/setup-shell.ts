/**
 * Shell pieces the setups of src/deploy/recipes/ share: writing `export` lines to the deploy environment file
 * (so the target and the verifiers see what a setup made), the registry mirrors the user passed for one
 * ecosystem, and the folder where a setup records the exact versions it installed. Every piece is plain bash
 * run from the repository root inside the sandbox.
 */
import { shq } from '../../base/shell.js';
import { DEPLOY_ENV_FILE, type DeployGoal } from '../types.js';

export { DEPLOY_RECORD_DIR } from './shell-steps.js';

/**
 * Lines that export `name` (a shell expression for its value, e.g. `"$PWD/.buildbench/cargo"`) now and append
 * the export, with the value expanded, to the deploy environment file.
 */
export function exportLines(name: string, value: string): string[] {
  return [
    `export ${name}=${value}`,
    `mkdir -p .buildbench && printf 'export %s=%q\\n' ${shq(name)} "$${name}" >> ${DEPLOY_ENV_FILE}`,
  ];
}

/**
 * The user's mirror settings for one ecosystem (names matching `names`), as export lines. A value with
 * credentials in it (`https://user:token@host`) is left out: the lines end up in the recipe and build.sh,
 * and secrets never enter a sandbox; such a mirror is passed by the harness's own secret handling or not at all.
 */
export function mirrorLines(goal: DeployGoal, names: RegExp): string[] {
  return Object.entries(goal.registries.mirrors)
    .filter(
      ([name, value]) =>
        names.test(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !/:\/\/[^/]*@/.test(value),
    )
    .flatMap(([name, value]) => exportLines(name, shq(value)));
}

/** `lines` as one step command (each line its own shell line). */
export function script(lines: readonly string[]): string {
  return lines.join('\n');
}

export { SOURCE_DEPLOY_ENV } from '../types.js';

/**
 * A step's own package installer (`bb_deploy_install pkg…`): steps run on their own in build.sh (`bash -c`,
 * without the turn scripts' shell library), so a step that installs defines it first. The package lists are
 * refreshed only when the install fails.
 */
export const DEPLOY_INSTALL_FN =
  'bb_deploy_install() { apt-get install -y -q --no-install-recommends "$@" || { apt-get update -q && apt-get install -y -q --no-install-recommends "$@"; }; }';
