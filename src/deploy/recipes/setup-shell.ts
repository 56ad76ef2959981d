/**
 * Shell pieces the setups of src/deploy/recipes/ share: installing Debian packages, writing `export` lines to
 * the deploy environment file (so the target and the verifiers see what a setup made), the registry mirrors
 * the user passed for one ecosystem, saying what a setup decided, and the folder where a setup records the
 * exact versions it installed. Every piece is a self-contained command run from the repository root inside the
 * sandbox: it runs in the turn script (with the shell library) and in build.sh (`set -euo pipefail`, no
 * library), so it uses plain apt-get and `${VAR:-}` for anything that may be unset.
 */
import { shq } from '../../base/shell.js';
import { DEPLOY_ENV_FILE, type DeployGoal } from '../types.js';

export { SOURCE_DEPLOY_ENV } from '../types.js';

/** Where setups record what they installed, relative to the repository root (kept out of patches and scans). */
export const DEPLOY_RECORD_DIR = '.buildbench/deploy';

/** Installs Debian packages, refreshing the package lists once when a package is unknown. */
export function aptInstall(packages: readonly string[]): string {
  return aptInstallWords(packages.map(shq).join(' '));
}

/** `aptInstall` for a list the shell expands (`$pkgs`). */
export function aptInstallWords(list: string): string {
  return `{ apt-get install -y -q --no-install-recommends ${list} || { apt-get update -q && apt-get install -y -q --no-install-recommends ${list}; }; }`;
}

/**
 * A step's own package installer (`bb_deploy_install pkg…`): steps run on their own in build.sh (`bash -c`,
 * without the turn scripts' shell library), so a step that installs defines it first. The package lists are
 * refreshed only when the install fails.
 */
export const DEPLOY_INSTALL_FN = `bb_deploy_install() ${aptInstallWords('"$@"')}`;

/** Makes sure apt has package lists (a fresh sandbox may have none) before apt-cache is asked. */
export const APT_LISTS_READY =
  "{ [ -n \"$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' -e '^auxfiles$' || true)\" ] || apt-get update -q; }";

/**
 * Appends `line` to the deploy environment file once (a turn that runs again does not add it twice). The
 * line is expanded when written (use `$PWD` for the repository root), so the file holds absolute paths.
 */
export function appendEnvLine(line: string): string {
  return `mkdir -p .buildbench && touch ${DEPLOY_ENV_FILE} && { grep -qxF "${line}" ${DEPLOY_ENV_FILE} || echo "${line}" >> ${DEPLOY_ENV_FILE}; }`;
}

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

/** `export NAME=value` lines for one step only (nothing is written to the deploy environment file). */
export function stepExportLines(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([k, v]) => `export ${k}=${shq(v)}`);
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

/**
 * Mirror settings the user passed that can be written into a recipe: a value with credentials in it
 * (`https://user:token@host/…`) is never written into a script, a log or the RUNBOOK; it is left out and named.
 */
export function publicMirrors(
  mirrors: Readonly<Record<string, string>>,
  names: readonly string[],
): { env: Record<string, string>; withheld: string[] } {
  const env: Record<string, string> = {};
  const withheld: string[] = [];
  for (const name of names) {
    const value = mirrors[name];
    if (value === undefined) continue;
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) withheld.push(name);
    else env[name] = value;
  }
  return { env, withheld };
}

/** `lines` as one step command (each line its own shell line). */
export function script(lines: readonly string[]): string {
  return lines.join('\n');
}

/** Prints a line that says what a setup decided (the log and the RUNBOOK read these). */
export function say(text: string): string {
  return `echo ${shq(`buildbench: ${text}`)}`;
}
