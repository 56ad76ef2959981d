import { describe, expect, it } from '@jest/globals';

import { ConfigError } from '../../../src/base/errors.js';
import {
  ACTION_DOOR,
  BUILD_DEFAULTS,
  CLI_DOOR,
  resolveRunSettings,
  type FrontDoor,
  type RawRunSettings,
} from '../../../src/core/settings.js';

const resolve = (raw: RawRunSettings, door: FrontDoor = CLI_DOOR, env: NodeJS.ProcessEnv = {}) =>
  resolveRunSettings(raw, env, door, '/work');

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveRunSettings: one resolver for the CLI and the action', () => {
  it('applies the defaults written once in BUILD_DEFAULTS, the same for both doors', () => {
    for (const door of [CLI_DOOR, ACTION_DOOR]) {
      expect(resolve({}, door)).toEqual({
        strategy: 'rules',
        maxTurns: BUILD_DEFAULTS.maxTurns,
        timeoutMs: 3_600_000,
        turnTimeoutMs: 1_800_000,
        idleTimeoutMs: 600_000,
        expect: [],
        secretEnv: [],
      });
    }
  });

  it('defaults to hybrid with a model, and refuses llm or hybrid without one, naming the flag or the input', () => {
    expect(resolve({ model: 'openai:m', 'api-key': 'k' }).strategy).toBe('hybrid');
    expect(messageOf(() => resolve({ strategy: 'llm' }))).toBe("--strategy: 'llm' needs a model");
    expect(messageOf(() => resolve({ strategy: 'hybrid' }, ACTION_DOOR))).toBe(
      "input strategy: 'hybrid' needs a model",
    );
  });

  it('looks the API key up once: the given one first, else the provider variable of the given environment', () => {
    expect(
      resolve({ model: 'anthropic:c' }, CLI_DOOR, { ANTHROPIC_API_KEY: 'from-env' }).model,
    ).toMatchObject({
      apiKey: 'from-env',
      apiKeySource: 'ANTHROPIC_API_KEY',
    });
    expect(
      resolve({ model: 'openai:m', 'api-key': 'given' }, ACTION_DOOR, { OPENAI_API_KEY: 'env' }).model,
    ).toMatchObject({ apiKey: 'given', apiKeySource: 'input api-key' });
    expect(resolve({ model: 'openai:m' }).model?.apiKey).toBeUndefined();
  });

  it('names the flag or the input in every error', () => {
    const cases: [RawRunSettings, string, string][] = [
      [{ 'max-turns': '0' }, '--max-turns', 'input max-turns'],
      [{ 'max-turns': '101' }, '--max-turns', 'input max-turns'],
      [{ timeout: 'soon' }, '--timeout', 'input timeout'],
      [{ 'turn-timeout': '-1' }, '--turn-timeout', 'input turn-timeout'],
      [{ expect: ' , ' }, '--expect', 'input expect'],
      [{ 'max-log-size': '1' }, '--max-log-size', 'input max-log-size'],
      [{ model: 'gpt-4o' }, '--model', 'input model'],
      [{ model: 'openai:m', 'max-cost': 'free' }, '--max-cost', 'input max-cost'],
      [{ model: 'openai:m', 'max-tokens': '0' }, '--max-tokens', 'input max-tokens'],
      [{ model: 'openai:m', 'base-url': 'localhost:8000' }, '--base-url', 'input base-url'],
      [{ 'secret-env': ['1BAD'] }, '--secret-env', 'input secret-env'],
    ];
    for (const [raw, flag, input] of cases) {
      expect(messageOf(() => resolve(raw, CLI_DOOR)).startsWith(`${flag}:`)).toBe(true);
      expect(messageOf(() => resolve(raw, ACTION_DOOR)).startsWith(`${input}:`)).toBe(true);
    }
    expect(messageOf(() => resolve({ 'max-cost': '1' }))).toBe('--max-cost needs --model');
    expect(messageOf(() => resolve({ 'api-key': 'k' }, ACTION_DOOR))).toBe(
      'input api-key is set but input model is empty',
    );
  });

  it('caps the turn timeout at the run timeout and joins the secret variables of both sources', () => {
    const s = resolve({ timeout: '10m', 'turn-timeout': '1h', 'secret-env': ['A,B', 'C'] }, CLI_DOOR, {
      BUILDBENCH_SECRET_ENV: 'D',
    });
    expect(s.turnTimeoutMs).toBe(600_000);
    expect(s.secretEnv).toEqual(['D', 'A', 'B', 'C']);
  });
});
