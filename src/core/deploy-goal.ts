/**
 * A deploy task as the engine's goal (`deployGoalOf`: task → `DeployGoal`), and how language registries are
 * reached (`registrySettingsFrom`: `--registries auto|online|offline` and the mirrors the user's environment
 * names). Shared by `buildbench deploy` (run-deploy.ts), the bench engine and the Action's task mode
 * (run-bench.ts `taskBuildSettings`), so one task format means the same run wherever it is run.
 */
import { ConfigError } from '../base/errors.js';
import type { DeployTask } from '../bench/types.js';
import type { DeployGoal, RegistrySettings } from '../deploy/types.js';
import { parseSpecDuration } from '../verify/spec.js';
import { parseChoice } from './settings.js';

/** How long the target may run when its task names no `target.timeout`. */
export const DEFAULT_TARGET_TIMEOUT_MS = 10 * 60_000;

export const REGISTRY_MODES = ['auto', 'online', 'offline'] as const;

/**
 * Variables of the user's environment that point a language's package manager at a mirror or proxy,
 * passed to the setups as `RegistrySettings.mirrors` (names ending in `_*` are prefixes). Each is the
 * package manager's own documented setting:
 * - pip: PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST, PIP_FIND_LINKS (pip's `--index-url` … as
 *   PIP_<OPTION>); uv: UV_INDEX_URL, UV_EXTRA_INDEX_URL, UV_DEFAULT_INDEX, UV_INDEX
 * - Go: GOPROXY, GOSUMDB, GONOSUMDB, GOPRIVATE, GONOPROXY (`go help environment`)
 * - npm: npm_config_registry / NPM_CONFIG_REGISTRY (npm's config from the environment); Yarn 2+:
 *   YARN_NPM_REGISTRY_SERVER
 * - Cargo: CARGO_REGISTRIES_* (a registry's index), CARGO_REGISTRY_DEFAULT, CARGO_HTTP_PROXY,
 *   CARGO_HTTP_CAINFO (cargo's config from the environment)
 * - Maven: MAVEN_MIRROR_URL (a mirror of Maven Central for every repository, as OpenShift's s2i images take
 *   it; the Java setup writes it into a settings.xml `<mirror>`)
 * - Julia: JULIA_PKG_SERVER (Pkg's package server); Hugging Face: HF_ENDPOINT (huggingface_hub's mirror)
 */
export const MIRROR_VARIABLES: readonly string[] = [
  'PIP_INDEX_URL',
  'PIP_EXTRA_INDEX_URL',
  'PIP_TRUSTED_HOST',
  'PIP_FIND_LINKS',
  'UV_INDEX_URL',
  'UV_EXTRA_INDEX_URL',
  'UV_DEFAULT_INDEX',
  'UV_INDEX',
  'GOPROXY',
  'GOSUMDB',
  'GONOSUMDB',
  'GOPRIVATE',
  'GONOPROXY',
  'npm_config_registry',
  'NPM_CONFIG_REGISTRY',
  'YARN_NPM_REGISTRY_SERVER',
  'CARGO_REGISTRIES_*',
  'CARGO_REGISTRY_DEFAULT',
  'CARGO_HTTP_PROXY',
  'CARGO_HTTP_CAINFO',
  'MAVEN_MIRROR_URL',
  'JULIA_PKG_SERVER',
  'HF_ENDPOINT',
];

function isMirrorVariable(name: string): boolean {
  return MIRROR_VARIABLES.some((v) => (v.endsWith('*') ? name.startsWith(v.slice(0, -1)) : name === v));
}

/** `https://user:token@host/…` (any `userinfo@` in a URL): a credential. */
const CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^/\s@]+@/i;

/**
 * The mirrors the environment names (`MIRROR_VARIABLES`), in name order. A value carrying credentials
 * (`user:token@` in a URL) is left out with a note: secrets never enter a sandbox.
 */
export function mirrorsFrom(env: NodeJS.ProcessEnv): { mirrors: Record<string, string>; notes: string[] } {
  const mirrors: Record<string, string> = {};
  const notes: string[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (!isMirrorVariable(name) || value === undefined || value.trim() === '') continue;
    if (CREDENTIALS.test(value)) {
      notes.push(
        `${name} is not passed to the sandbox: it carries credentials (user:password@), and secrets never enter a sandbox`,
      );
      continue;
    }
    mirrors[name] = value;
  }
  return { mirrors, notes };
}

/** `--registries` (default auto) with the environment's mirrors; `flag` names the option in the error. */
export function registrySettingsFrom(
  mode: string | undefined,
  env: NodeJS.ProcessEnv,
  flag = '--registries',
): { registries: RegistrySettings; notes: string[] } {
  const { mirrors, notes } = mirrorsFrom(env);
  return { registries: { mode: parseChoice(mode ?? 'auto', REGISTRY_MODES, flag), mirrors }, notes };
}

/** A deploy task's goal: its target (cwd '' for the root, the default time limit), requirements and paper. */
export function deployGoalOf(task: DeployTask, registries: RegistrySettings): DeployGoal {
  const { target } = task;
  let timeoutMs = DEFAULT_TARGET_TIMEOUT_MS;
  if (target.timeout !== undefined) {
    const parsed = parseSpecDuration(target.timeout);
    if (parsed === undefined)
      throw new ConfigError(
        `${task.file}: target.timeout: '${target.timeout}' is not a duration`,
        'expected seconds or a value like 90s, 20m, 1h',
      );
    timeoutMs = parsed;
  }
  return {
    target: {
      command: target.command,
      cwd: target.cwd ?? '',
      timeoutMs,
      evidence: structuredClone(target.evidence),
    },
    requires: [...task.requires],
    registries: { mode: registries.mode, mirrors: { ...registries.mirrors } },
    ...(task.paper ? { paper: { ...task.paper } } : {}),
    ...(task.guest ? { guest: { ...task.guest } } : {}),
    taskFile: task.file,
  };
}
