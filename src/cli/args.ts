/**
 * The flags every run's engine shares (`build`, `bench`) and the sandbox they ask for. The parser itself is
 * parse-args.ts (re-exported here).
 */
import type { ParseArgsConfig } from 'node:util';

import { parseChoice, sandboxSettingsFrom, withSandboxLimits, SANDBOX_CHOICES } from '../core/settings.js';
import type { SandboxSettings } from '../sandbox/types.js';

export { parseCliArgs } from './parse-args.js';

type Options = NonNullable<ParseArgsConfig['options']>;

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
