/**
 * Shell fragments the ecosystem setups share. Every fragment is a self-contained command: it runs in the
 * turn script (with the shell library) and in build.sh (`set -euo pipefail`, no library), so it uses plain
 * apt-get and `${VAR:-}` for anything that may be unset.
 */
import { shq } from '../../base/shell.js';
import { DEPLOY_ENV_FILE } from '../types.js';

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

/** `export NAME=value` lines for a step. */
export function exportLines(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([k, v]) => `export ${k}=${shq(v)}`);
}

/** Prints a line that says what a setup decided (the log and the RUNBOOK read these). */
export function say(text: string): string {
  return `echo ${shq(`buildbench: ${text}`)}`;
}
