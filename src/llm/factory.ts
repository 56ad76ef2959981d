/** Picks and configures a model provider from `--model provider:model`, flags and the environment. */
import { ConfigError } from '../base/errors.js';
import { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL } from './anthropic.js';
import { OpenAiProvider, OPENAI_DEFAULT_BASE_URL } from './openai.js';
import { loadPriceTable, PriceTable } from './prices.js';
import type { LlmProvider } from './types.js';

export const PROVIDER_NAMES = ['openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ModelSpec {
  provider: ProviderName;
  model: string;
}

export interface CreateProviderOptions {
  /** `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5`, … */
  spec: string;
  /** From `--api-key`; else OPENAI_API_KEY / ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** From `--base-url`; else OPENAI_BASE_URL / ANTHROPIC_BASE_URL; else the vendor's API. */
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
  /** A price table or the path of a price file (default: the shipped `src/llm/prices.yaml`). */
  prices?: PriceTable | string;
  /** Per-request timeout of the client (default 10 minutes). */
  timeoutMs?: number;
  /** Client retries for 408/409/429/5xx/529, timeouts and dropped connections (default 4). */
  maxRetries?: number;
  /** Stream replies over SSE (default false). */
  stream?: boolean;
  /** How the front door spells the model options in messages (default: the CLI's flags). */
  names?: ModelOptionNames;
  /** Where `apiKey` came from when the front door looked it up (default: `names.apiKey`). */
  apiKeySource?: string;
}

/** The spelling of the model options in messages: `--api-key` for the CLI, `input api-key` for the action. */
export interface ModelOptionNames {
  model: string;
  apiKey: string;
  baseUrl: string;
  /** The hint that tells how to give a key: `pass --api-key`, `set input api-key`. */
  giveApiKey: string;
}

export const CLI_MODEL_OPTION_NAMES: ModelOptionNames = {
  model: '--model',
  apiKey: '--api-key',
  baseUrl: '--base-url',
  giveApiKey: 'pass --api-key',
};

/** The environment variables of a provider: its key and its base URL. */
export function providerVariables(provider: ProviderName): { key: string; baseUrl: string } {
  return provider === 'openai'
    ? { key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL' }
    : { key: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' };
}

/**
 * The API key for `spec`: the one given (`--api-key`, input api-key), else the provider's variable. The only
 * place the key is looked up; `source` names where it came from, for messages (never the value).
 */
export function resolveApiKey(
  spec: string,
  given: string | undefined,
  env: NodeJS.ProcessEnv,
  names: ModelOptionNames = CLI_MODEL_OPTION_NAMES,
): { key: string | undefined; source: string; variable: string } {
  const variable = providerVariables(parseModelSpec(spec).provider).key;
  const fromGiven = given !== undefined && given.trim() !== '';
  return fromGiven
    ? { key: given.trim(), source: names.apiKey, variable }
    : { key: env[variable]?.trim() || undefined, source: variable, variable };
}

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_MAX_RETRIES = 4;

const SPEC_HINT =
  'expected <provider>:<model> with provider openai or anthropic, e.g. openai:gpt-4o-mini or anthropic:claude-sonnet-4-5';

/** Splits `provider:model`; the model part may itself contain colons (`openai:qwen2.5-coder:7b` on Ollama). */
export function parseModelSpec(spec: string): ModelSpec {
  const text = spec.trim();
  const colon = text.indexOf(':');
  const provider = colon > 0 ? text.slice(0, colon) : '';
  const model = colon > 0 ? text.slice(colon + 1).trim() : '';
  if (!(PROVIDER_NAMES as readonly string[]).includes(provider) || model === '' || /\s/.test(model)) {
    throw new ConfigError(`--model: '${spec}' is not valid`, SPEC_HINT);
  }
  return { provider: provider as ProviderName, model };
}

function validBaseUrl(value: string, source: string, giveApiKey: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `${source}: '${value}' is not a URL`,
      'expected an http(s) URL such as http://localhost:8000/v1',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `${source}: '${value}' is not an http(s) URL`,
      'expected an http(s) URL such as http://localhost:8000/v1',
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(
      `${source}: the URL must not carry credentials`,
      `${giveApiKey} or set the API key variable instead`,
    );
  }
  return value.replace(/\/+$/, '');
}

/**
 * A provider for `spec`. The key comes from `apiKey` or the provider's variable and goes only into the SDK
 * client's request headers. A missing key is a ConfigError naming the flag and the variable, except for an
 * OpenAI-compatible server at a custom base URL (local servers usually need none).
 */
export function createProvider(options: CreateProviderOptions): LlmProvider {
  const { provider, model } = parseModelSpec(options.spec);
  const env = options.env;
  const prices = options.prices instanceof PriceTable ? options.prices : loadPriceTable(options.prices);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const names = options.names ?? CLI_MODEL_OPTION_NAMES;
  const resolved = resolveApiKey(options.spec, options.apiKey, env, names);
  const { key: apiKey, variable: keyVar } = resolved;
  const keySource = options.apiKey?.trim() ? (options.apiKeySource ?? resolved.source) : resolved.source;
  const urlVar = providerVariables(provider).baseUrl;

  const givenUrl = options.baseUrl?.trim()
    ? { value: options.baseUrl.trim(), source: names.baseUrl }
    : env[urlVar]?.trim()
      ? { value: env[urlVar].trim(), source: urlVar }
      : undefined;
  const baseUrl = givenUrl
    ? validBaseUrl(givenUrl.value, givenUrl.source, names.giveApiKey)
    : provider === 'openai'
      ? OPENAI_DEFAULT_BASE_URL
      : ANTHROPIC_DEFAULT_BASE_URL;
  const customOpenAi =
    provider === 'openai' && givenUrl !== undefined && new URL(baseUrl).hostname !== 'api.openai.com';

  const noKey = (): ConfigError =>
    new ConfigError(`${names.model} ${options.spec}: no API key`, `set ${keyVar} or ${names.giveApiKey}`);
  if (!apiKey && !customOpenAi) throw noKey();
  if (provider === 'openai') {
    return new OpenAiProvider({
      model,
      // OpenAI-compatible local servers take any key; the SDK insists on one.
      apiKey: apiKey ?? 'no-key',
      baseUrl,
      prices,
      timeoutMs,
      maxRetries,
      stream: options.stream,
      keySource,
    });
  }
  if (!apiKey) throw noKey();
  return new AnthropicProvider({
    model,
    apiKey,
    baseUrl,
    prices,
    timeoutMs,
    maxRetries,
    stream: options.stream,
    keySource,
  });
}
