/**
 * `util.parseArgs` with messages for people. Node reads `--timeout -5` as the option `--timeout` followed by
 * the option `-5` and answers "argument is ambiguous"; here a value that looks like a negative number is
 * given to the flag (so its own check says what was expected), and an option where a value should be gets
 * one line naming the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

import { ConfigError, errorMessage } from '../base/errors.js';
import { parseChoice, sandboxSettingsFrom, withSandboxLimits, SANDBOX_CHOICES } from '../core/settings.js';
import type { SandboxSettings } from '../sandbox/types.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `-5`, `-0.5`, `-.5`, `-1h`: a value, not an option (no option of ours starts with a digit). */
const NEGATIVE_VALUE = /^-\.?\d/;

/**
 * Parses `args` strictly with `options` (positionals allowed). Errors are ConfigErrors whose message starts
 * with `prefix` (e.g. `verify: `) and whose hint is `hint`.
 */
export function parseCliArgs<T extends Options>(
  args: string[],
  options: T,
  { prefix = '', hint }: { prefix?: string; hint: string },
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  const fixed: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      fixed.push(...args.slice(i));
      break;
    }
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name === undefined || options[name]?.type !== 'string') {
      fixed.push(arg);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined) {
      throw new ConfigError(`${prefix}${arg}: missing value`, hint);
    }
    if (next.startsWith('-') && next !== '-' && !NEGATIVE_VALUE.test(next)) {
      throw new ConfigError(
        `${prefix}${arg}: expected a value, got '${next}', which reads as an option`,
        `to pass a value that starts with '-', write ${arg}=${next}`,
      );
    }
    fixed.push(`${arg}=${next}`);
    i++;
  }
  try {
    return parseArgs({ args: fixed, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(
      `${prefix}${errorMessage(error).replace(/\. To specify a positional.*$/s, '')}`,
      hint,
    );
  }
}

/**
 * The flags of one run's engine, shared by `build` and `bench` (each adds its own): the sandbox, the strategy
 * and its model, the budgets, the build cache and the limits.
 */
export const RUN_FLAGS = {
  sandbox: { type: 'string' },
  image: { type: 'string' },
  strategy: { type: 'string' },
  'max-turns': { type: 'string' },
  timeout: { type: 'string' },
  'turn-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  model: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  prices: { type: 'string' },
  'build-cache': { type: 'string' },
  network: { type: 'string' },
  memory: { type: 'string' },
  pids: { type: 'string' },
  'secret-env': { type: 'string', multiple: true },
  'max-log-size': { type: 'string' },
} as const satisfies Options;

/**
 * The sandbox the run flags ask for (`--sandbox`, `--image`, `--build-cache`, `--network`, `--memory`,
 * `--pids`), for `build` and `bench` alike.
 */
export function sandboxFromFlags(
  values: {
    sandbox?: string;
    image?: string;
    'build-cache'?: string;
    network?: string;
    memory?: string;
    pids?: string;
  },
  io: { env: NodeJS.ProcessEnv; cwd: string },
): SandboxSettings {
  const choice = parseChoice(values.sandbox ?? 'auto', SANDBOX_CHOICES, '--sandbox');
  const buildCache =
    values['build-cache'] !== undefined
      ? { value: values['build-cache'], flag: '--build-cache', cwd: io.cwd }
      : undefined;
  return withSandboxLimits(sandboxSettingsFrom(io.env, choice, values.image, buildCache), values);
}
