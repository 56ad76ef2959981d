import { ConfigError } from './errors.js';
import { SANDBOX_CHOICES, type SandboxChoice, type SandboxSettings } from '../sandbox/types.js';
import { buildCacheFrom, defaultSandboxSettings } from '../sandbox/factory.js';
import type { ModelSettings } from '../agent/strategies/model.js';

export const STRATEGY_CHOICES = ['rules', 'baseline', 'llm', 'hybrid'] as const;
export type StrategyChoice = (typeof STRATEGY_CHOICES)[number];

/** Everything one `buildbench build` needs, validated once, up front. Everything downstream takes this. */
export interface BuildSettings {
  /** A local path or a git URL, as given. */
  source: string;
  outDir: string;
  strategy: StrategyChoice;
  maxTurns: number;
  /** Wall-clock budget for the whole run. */
  timeoutMs: number;
  /** Wall-clock cap for one script. */
  turnTimeoutMs: number;
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

export function parsePositiveInt(value: string, flag: string, max = 1000): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max) {
    throw new ConfigError(`${flag}: '${value}' is not valid; expected a whole number from 1 to ${max}`);
  }
  return Number(value);
}

export function parseChoice<T extends string>(value: string, choices: readonly T[], flag: string): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(`${flag}: '${value}' is not valid; expected one of ${choices.join(', ')}`);
  }
  return value as T;
}

export function parseExpect(value: string | undefined): string[] {
  if (value === undefined) return [];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0)
    throw new ConfigError(
      `--expect: '${value}' names no file; expected a comma-separated list such as foo,libfoo.so`,
    );
  return names;
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

/** Parses a positive number of dollars (`--max-cost 0.50`). */
export function parsePositiveNumber(value: string, flag: string): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(`${flag}: '${value}' is not valid; expected a positive number such as 0.5`);
  }
  return n;
}
