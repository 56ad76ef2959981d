import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import {
  CLI_MODEL_OPTION_NAMES,
  parseModelSpec,
  resolveApiKey,
  type ModelOptionNames,
} from '../llm/factory.js';
import { SANDBOX_CHOICES, type SandboxChoice, type SandboxSettings } from '../sandbox/types.js';
import { buildCacheFrom, defaultSandboxSettings } from '../sandbox/factory.js';
import { DEFAULT_PIDS_LIMIT, defaultMemoryLimit, NETWORK_MODES } from '../sandbox/isolation.js';
import type { ModelSettings } from '../llm/settings.js';
import type { DeployGoal } from '../deploy/types.js';
import { STRATEGY_CHOICES, type StrategyChoice } from '../agent/strategies/factory.js';

export { STRATEGY_CHOICES, type StrategyChoice };

/** Everything one `buildbench build` needs, validated once, up front. Everything downstream takes this. */
export interface BuildSettings {
  /** A local path or a git URL, as given. */
  source: string;
  outDir: string;
  strategy: StrategyChoice;
  maxTurns: number;
  /**
   * Install the dependencies the build files declare before the first turn (default true); false leaves
   * every missing package to the repair loop (the repair tests, and before/after measurements).
   */
  preinstall?: boolean;
  /**
   * `always`: the recipe is replayed in a new fresh sandbox even when the run's first turn was its replay
   * already (`--always-replay`: a second, independent build, e.g. to catch a build that is not repeatable).
   * Default `auto`: a first turn that passed, as the first script of the run's fresh sandbox, is the replay.
   */
  replay?: 'auto' | 'always';
  /** Wall-clock budget for the whole run. */
  timeoutMs: number;
  /** Wall-clock cap for one script. */
  turnTimeoutMs: number;
  /**
   * A script that prints nothing for this long is ended and the run ends `stalled` (`--idle-timeout`);
   * 0 turns it off. Absent: `BUILD_DEFAULTS.idleTimeout`.
   */
  idleTimeoutMs?: number;
  /** Expected artifact names from --expect (empty: inferred from build files). */
  expect: string[];
  json: boolean;
  keep: boolean;
  sandbox: SandboxSettings;
  /** The model for the `llm` and `hybrid` strategies (`--model` and friends). */
  model?: ModelSettings;
  /**
   * A layer-2 verifier spec (YAML, see src/verify/spec.ts). A visible spec's checks are part of every
   * turn's verification; a hidden one (`hidden: true`) is run once, after the strategy finished.
   */
  spec?: string;
  /**
   * Names of variables of this process's environment whose values are secrets besides the secret-looking
   * names (`--secret-env`, BUILDBENCH_SECRET_ENV): redacted from every output file.
   */
  secretEnv?: string[];
  /** Each log file (a turn's, a replay's) keeps its head and tail up to this many bytes. Default 20 MiB. */
  maxLogBytes?: number;
  /**
   * A deploy run (`buildbench deploy`, a deploy task): the target experiment is the goal instead of
   * binaries; absent for a build.
   */
  deploy?: DeployGoal;
}

/** Parses `90`, `90s`, `20m`, `1h`, `1h30m` into milliseconds; `flag` names the option in the error. */
export function parseDuration(value: string, flag: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text) && Number(text) > 0) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const n = Number(m[1]);
    const unit = m[2];
    total += unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
    matched = re.lastIndex;
  }
  if (matched !== text.length || text.length === 0 || total <= 0) {
    throw new ConfigError(
      `${flag}: '${value}' is not a duration; expected seconds or a value like 90s, 20m, 1h`,
    );
  }
  return Math.round(total);
}

export function parsePositiveInt(value: string, flag: string, max = 1000, min = 1): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${flag}: '${value}' is not valid; expected a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function parseChoice<T extends string>(value: string, choices: readonly T[], flag: string): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(`${flag}: '${value}' is not valid; expected one of ${choices.join(', ')}`);
  }
  return value as T;
}

/** `--expect`: undefined → no names; otherwise a non-empty list (see `parseNameList`). */
export function parseExpect(value: string | undefined): string[] {
  return value === undefined ? [] : parseNameList(value, '--expect');
}

/** A repository name from a path or URL: `https://github.com/a/b.git` → `b`. */
export function repoNameOf(source: string): string {
  const trimmed = source.replace(/[/\\]+$/, '').replace(/\.git$/, '');
  const base = trimmed.split(/[/\\:]/).pop() ?? 'repo';
  const clean = base.replace(/[^A-Za-z0-9._-]/g, '_');
  return clean.length > 0 && clean !== '.' && clean !== '..' ? clean : 'repo';
}

/**
 * The sandbox settings from the environment and the flags. `buildCache` is a `--build-cache` value (a
 * folder, relative to `cwd`, or `off`); undefined keeps BUILDBENCH_BUILD_CACHE or the default.
 */
export function sandboxSettingsFrom(
  env: NodeJS.ProcessEnv,
  choice: SandboxChoice,
  image: string | undefined,
  buildCache?: { value: string; flag: string; cwd: string },
): SandboxSettings {
  const { buildCache: defaultBuildCache, ...defaults } = defaultSandboxSettings(env);
  const dir =
    buildCache === undefined
      ? defaultBuildCache
      : buildCacheFrom(buildCache.value, buildCache.flag, defaults.cacheDir, {
          ...(env.HOME ? { home: env.HOME } : {}),
          cwd: buildCache.cwd,
        });
  return {
    ...defaults,
    choice,
    image: image ?? defaults.image,
    allowHost: choice === 'host' || defaults.allowHost,
    ...(dir ? { buildCache: dir } : {}),
  };
}

export { SANDBOX_CHOICES };

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/**
 * Parses a size: bytes (`1048576`) or a number with K, M or G (powers of 1024; `20M`, `512k`, `1.5G`, an
 * optional `B`/`iB` after the letter). At least 4 KiB: a smaller log could not hold a head, a tail and the
 * marker between them.
 */
export function parseSize(value: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(value.trim());
  const bytes = match ? Math.floor(Number(match[1]) * SIZE_UNITS[match[2]!.toLowerCase()]!) : NaN;
  if (!Number.isFinite(bytes) || bytes < 4096) {
    throw new ConfigError(
      `${flag}: '${value}' is not a size of at least 4K; expected bytes or a value like 512K, 20M, 1G`,
    );
  }
  return bytes;
}

const OFF = ['off', 'none', 'no', 'unlimited'];

/** `--memory`: a size of at least 64M (`8G`, `512M`), or `off` for no limit (undefined). */
export function parseMemoryLimit(value: string, flag: string): number | undefined {
  if (OFF.includes(value.trim().toLowerCase())) return undefined;
  const bytes = parseSize(value, flag);
  if (bytes < 64 * 1024 ** 2) {
    throw new ConfigError(`${flag}: '${value}' is too small; expected at least 64M, or off`);
  }
  return bytes;
}

/** `--pids`: the most processes at once (16 to 4194304), or `off` for no limit (undefined). */
export function parsePidsLimit(value: string, flag: string): number | undefined {
  if (OFF.includes(value.trim().toLowerCase())) return undefined;
  return parsePositiveInt(value, flag, 4_194_304, 16);
}

/** The sandbox's network and resource limits, as the front doors set them. */
export type SandboxLimits = Pick<SandboxSettings, 'network' | 'memoryBytes' | 'pids'>;

/** The limits every sandbox gets unless told otherwise (see `defaultSandboxSettings`). */
export function defaultSandboxLimits(): SandboxLimits {
  return { memoryBytes: defaultMemoryLimit(), pids: DEFAULT_PIDS_LIMIT };
}

/** `settings` without its network and limits (to replace them with a `SandboxLimits`). */
export function withoutLimits<T extends SandboxLimits>(settings: T): Omit<T, keyof SandboxLimits> {
  const { network: _network, memoryBytes: _memory, pids: _pids, ...rest } = settings;
  return rest;
}

/** The sandbox flags every front door shares: `--network`, `--memory`, `--pids` over the defaults. */
export function withSandboxLimits<T extends SandboxLimits>(
  settings: T,
  values: { network?: string; memory?: string; pids?: string },
  flags = { network: '--network', memory: '--memory', pids: '--pids' },
): T {
  const out: T = { ...settings };
  if (values.network !== undefined) out.network = parseChoice(values.network, NETWORK_MODES, flags.network);
  if (values.memory !== undefined) {
    const bytes = parseMemoryLimit(values.memory, flags.memory);
    if (bytes === undefined) delete out.memoryBytes;
    else out.memoryBytes = bytes;
  }
  if (values.pids !== undefined) {
    const pids = parsePidsLimit(values.pids, flags.pids);
    if (pids === undefined) delete out.pids;
    else out.pids = pids;
  }
  return out;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Variable names from comma-separated lists (`--secret-env A,B`, BUILDBENCH_SECRET_ENV), checked. */
export function parseSecretEnv(lists: readonly string[], flag: string): string[] {
  const names = lists.flatMap((list) =>
    list
      .split(/[,\s]+/)
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );
  const bad = names.find((name) => !ENV_NAME.test(name));
  if (bad !== undefined) {
    throw new ConfigError(
      `${flag}: '${bad}' is not a variable name; expected names such as DATABASE_URL,MY_TOKEN`,
    );
  }
  return [...new Set(names)];
}

// ── One resolver for the settings every front door shares ──────────────────────────────────────────────

/** The defaults of a build, written once: the CLI applies them, the action's inputs default to them. */
export const BUILD_DEFAULTS = {
  maxTurns: 10,
  /** The most turns a run may be given. */
  maxTurnsLimit: 100,
  timeout: '1h',
  turnTimeout: '30m',
  /** A script silent this long is stalled (deploy scripts waiting on hosts, sleep loops), not slow. */
  idleTimeout: '10m',
  maxLogSize: '20M',
} as const;

/** `--progress-interval`: a duration between heartbeat lines, or `0`/`off` for none; absent: 15 s. */
export function parseProgressInterval(value: string | undefined, flag: string): number {
  const text = (value ?? '').trim();
  if (text === '') return 15_000;
  if (text === '0' || text === 'off') return 0;
  const ms = parseDuration(text, flag);
  if (ms < 1000) {
    throw new ConfigError(`${flag}: '${value}' is too short; expected 1s or more, or 0/off for none`);
  }
  return ms;
}

/** `--idle-timeout`: a duration, or `0`/`off` for none; absent: the default (10 minutes). */
export function parseIdleTimeout(value: string | undefined, flag: string): number {
  const text = (value ?? '').trim();
  if (text === '') return parseDuration(BUILD_DEFAULTS.idleTimeout, flag);
  if (text === '0' || text === 'off') return 0;
  return parseDuration(text, flag);
}

/** The settings the CLI's flags and the action's inputs share, by their common (kebab-case) name. */
export interface RawRunSettings {
  strategy?: string;
  model?: string;
  'api-key'?: string;
  'base-url'?: string;
  'max-tokens'?: string;
  'max-cost'?: string;
  prices?: string;
  'max-turns'?: string;
  timeout?: string;
  'turn-timeout'?: string;
  'idle-timeout'?: string;
  expect?: string;
  /** Lists of variable names (`--secret-env` may repeat). */
  'secret-env'?: readonly string[];
  'max-log-size'?: string;
}

type SettingKey = keyof RawRunSettings;

/** How a front door spells its settings in messages. */
export interface FrontDoor {
  /** `--max-turns` or `input max-turns`. */
  name(key: SettingKey): string;
  /** The hint that tells how to set a setting: `pass --model provider:model`, `set input model to …`. */
  set(key: SettingKey, example: string): string;
  /** The message for a model setting given without a model. */
  withoutModel(key: SettingKey): string;
  /** The model options' names, for the provider's messages. */
  modelNames: ModelOptionNames;
}

export const CLI_DOOR: FrontDoor = {
  name: (key) => `--${key}`,
  set: (key, example) => `pass --${key} ${example}`,
  withoutModel: (key) => `--${key} needs --model`,
  modelNames: CLI_MODEL_OPTION_NAMES,
};

export const ACTION_DOOR: FrontDoor = {
  name: (key) => `input ${key}`,
  set: (key, example) => `set input ${key} to ${example}`,
  withoutModel: (key) => `input ${key} is set but input model is empty`,
  modelNames: {
    model: 'input model',
    apiKey: 'input api-key',
    baseUrl: 'input base-url',
    giveApiKey: 'set input api-key',
  },
};

/** What `resolveRunSettings` decides: the part of `BuildSettings` every front door fills the same way. */
export type RunSettings = Pick<
  BuildSettings,
  | 'strategy'
  | 'maxTurns'
  | 'timeoutMs'
  | 'turnTimeoutMs'
  | 'idleTimeoutMs'
  | 'expect'
  | 'model'
  | 'maxLogBytes'
> & { secretEnv: string[] };

const MODEL_EXAMPLE = 'provider:model, e.g. openai:gpt-4o-mini';
const MODEL_KEYS = ['api-key', 'base-url', 'max-tokens', 'max-cost', 'prices'] as const;

/**
 * The shared settings from raw flag or input values: the defaults, "llm and hybrid need a model", the model
 * options and their checks. `cwd` resolves `--prices`. Throws a ConfigError naming the flag or the input.
 * The API key comes from the flag or input, else the provider's variable in `env` (`resolveApiKey`).
 */
export function resolveRunSettings(
  raw: RawRunSettings,
  env: NodeJS.ProcessEnv,
  door: FrontDoor,
  cwd: string,
): RunSettings {
  const model = resolveModel(raw, env, door, cwd);
  // With a model the default is hybrid (rules first, the model takes over); without one, rules.
  const strategy = parseChoice(
    raw.strategy || (model ? 'hybrid' : 'rules'),
    STRATEGY_CHOICES,
    door.name('strategy'),
  );
  if ((strategy === 'llm' || strategy === 'hybrid') && !model) {
    throw new ConfigError(
      `${door.name('strategy')}: '${strategy}' needs a model`,
      door.set('model', MODEL_EXAMPLE),
    );
  }
  const timeoutMs = parseDuration(raw.timeout || BUILD_DEFAULTS.timeout, door.name('timeout'));
  const turnTimeoutMs = parseDuration(
    raw['turn-timeout'] || BUILD_DEFAULTS.turnTimeout,
    door.name('turn-timeout'),
  );
  return {
    strategy,
    maxTurns: raw['max-turns']
      ? parsePositiveInt(raw['max-turns'], door.name('max-turns'), BUILD_DEFAULTS.maxTurnsLimit)
      : BUILD_DEFAULTS.maxTurns,
    timeoutMs,
    turnTimeoutMs: Math.min(turnTimeoutMs, timeoutMs),
    idleTimeoutMs: parseIdleTimeout(raw['idle-timeout'], door.name('idle-timeout')),
    expect: raw.expect !== undefined ? parseNameList(raw.expect, door.name('expect')) : [],
    secretEnv: [
      ...parseSecretEnv(
        env.BUILDBENCH_SECRET_ENV ? [env.BUILDBENCH_SECRET_ENV] : [],
        'BUILDBENCH_SECRET_ENV',
      ),
      ...parseSecretEnv(raw['secret-env'] ?? [], door.name('secret-env')),
    ],
    ...(raw['max-log-size']
      ? { maxLogBytes: parseSize(raw['max-log-size'], door.name('max-log-size')) }
      : {}),
    ...(model ? { model } : {}),
  };
}

/** The model options, or undefined when no model is named (then another model option is an error). */
function resolveModel(
  raw: RawRunSettings,
  env: NodeJS.ProcessEnv,
  door: FrontDoor,
  cwd: string,
): ModelSettings | undefined {
  if (!raw.model) {
    const stray = MODEL_KEYS.find((key) => raw[key]);
    if (stray) throw new ConfigError(door.withoutModel(stray), door.set('model', MODEL_EXAMPLE));
    return undefined;
  }
  try {
    parseModelSpec(raw.model);
  } catch {
    throw new ConfigError(
      `${door.name('model')}: '${raw.model}' is not valid`,
      'expected provider:model with provider openai or anthropic, e.g. openai:gpt-4o-mini or anthropic:claude-sonnet-4-5',
    );
  }
  const baseUrl = raw['base-url'];
  // The key is looked up here, once, in the front door's environment; it stays in this process.
  const key = resolveApiKey(raw.model, raw['api-key'], env, door.modelNames);
  return {
    model: raw.model,
    ...(key.key ? { apiKey: key.key, apiKeySource: key.source } : {}),
    ...(baseUrl ? { baseUrl: parseHttpUrl(baseUrl, door.name('base-url')) } : {}),
    ...(raw['max-tokens']
      ? { maxTokens: parsePositiveInt(raw['max-tokens'], door.name('max-tokens'), 1e9) }
      : {}),
    ...(raw['max-cost'] ? { maxCostUsd: parseDollars(raw['max-cost'], door.name('max-cost')) } : {}),
    ...(raw.prices ? { prices: path.resolve(cwd, raw.prices) } : {}),
    names: door.modelNames,
  };
}

/** A positive amount of dollars (`--max-cost 0.50`). */
export function parseDollars(value: string, flag: string): number {
  const text = value.trim();
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(
      `${flag}: '${value}' is not valid; expected a positive amount in US dollars, e.g. 2.50`,
    );
  }
  return n;
}

/** An http(s) URL, as given. */
export function parseHttpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${flag}: '${value}' is not a URL; expected http(s)://host[:port]/path`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${flag}: '${value}' is not an http(s) URL; expected http(s)://host[:port]/path`);
  }
  return value;
}

/** A comma- (or newline-) separated list of file names (`--expect foo,libfoo.so`); an empty list is an error. */
export function parseNameList(value: string, flag: string): string[] {
  const names = value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0)
    throw new ConfigError(
      `${flag}: '${value}' names no file; expected a comma-separated list such as foo,libfoo.so`,
    );
  return names;
}
