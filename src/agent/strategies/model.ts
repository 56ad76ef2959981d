/**
 * What the composition root needs to run with a model: `createModelSession` (validated up front, before any
 * sandbox exists: a bad spec or a missing key is a ConfigError) and `createLlmStrategy` (the `llm` or `hybrid`
 * strategy on top of it).
 */
import { ConfigError } from '../../base/errors.js';
import { Budget, meteredProvider, type BudgetLimits } from '../../llm/budget.js';
import { createProvider, resolveApiKey, type ModelOptionNames } from '../../llm/factory.js';
import type { LlmProvider } from '../../llm/types.js';
import type { RepairKnowledge, StrategyServices } from '../../knowledge/repair/repair.js';
import { HybridStrategy, type HybridOptions } from './hybrid.js';
import { LlmStrategy, type LlmStrategyOptions } from './llm.js';

export interface ModelSettings {
  /** `--model`: `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5`, … */
  model: string;
  /** `--api-key` (else OPENAI_API_KEY / ANTHROPIC_API_KEY). */
  apiKey?: string;
  /** `--base-url` (else OPENAI_BASE_URL / ANTHROPIC_BASE_URL). */
  baseUrl?: string;
  /** Token budget for the whole run (retrieval and turns). */
  maxTokens?: number;
  /** Dollar budget for the whole run. */
  maxCostUsd?: number;
  /** A price file replacing the shipped table. */
  prices?: string;
  /** Per-request client timeout (ms) and retries. */
  timeoutMs?: number;
  maxRetries?: number;
  stream?: boolean;
  /** Where `apiKey` came from (`--api-key`, `input api-key`, `OPENAI_API_KEY`), for messages. */
  apiKeySource?: string;
  /** How the front door spells the model options in messages (default: the CLI's flags). */
  names?: ModelOptionNames;
}

/** One model for one run: the metered provider, its budget, and the secrets that must never leave the process. */
export interface ModelSession {
  /** Metered: every call is checked against `budget` and counted. Pass it to retrieval and the strategy. */
  provider: LlmProvider;
  budget: Budget;
  /** The API key (when there is one): add it to the trajectory redactor; the strategy keeps it out of prompts and scripts. */
  secrets: string[];
}

export function createModelSession(settings: ModelSettings, env: NodeJS.ProcessEnv): ModelSession {
  const limits: BudgetLimits = {};
  if (settings.maxTokens !== undefined) {
    if (!Number.isInteger(settings.maxTokens) || settings.maxTokens < 1)
      throw new ConfigError(`--max-tokens: '${settings.maxTokens}' is not a positive whole number`);
    limits.maxTokens = settings.maxTokens;
  }
  if (settings.maxCostUsd !== undefined) {
    if (!Number.isFinite(settings.maxCostUsd) || settings.maxCostUsd <= 0)
      throw new ConfigError(`--max-cost: '${settings.maxCostUsd}' is not a positive number of dollars`);
    limits.maxCostUsd = settings.maxCostUsd;
  }
  const raw = createProvider({
    spec: settings.model,
    apiKey: settings.apiKey,
    baseUrl: settings.baseUrl,
    env,
    prices: settings.prices,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    stream: settings.stream,
    ...(settings.names ? { names: settings.names } : {}),
    ...(settings.apiKeySource ? { apiKeySource: settings.apiKeySource } : {}),
  });
  const budget = new Budget(limits);
  const { key } = resolveApiKey(settings.model, settings.apiKey, env);
  return { provider: meteredProvider(raw, budget), budget, secrets: key ? [key] : [] };
}

/** The model-driven strategies: what `createStrategy` returns for `llm` and `hybrid`. */
export type ModelStrategy = LlmStrategy | HybridStrategy;

export interface CreateLlmStrategyDeps {
  session: ModelSession;
  /** For `hybrid`: the same knowledge and services as the rules strategy. */
  knowledge: RepairKnowledge;
  services: StrategyServices;
  /** Retrieved instructions (`retrieveInstructions(...).instructions`); default: offline retrieval. */
  instructions?: string;
  /** Retrieval deferred to the first model turn (hybrid spends no tokens when the rules succeed). */
  loadInstructions?: LlmStrategyOptions['loadInstructions'];
  signal?: AbortSignal;
  /** Everything else of LlmStrategyOptions (prompt budget, build type, install prefix, re-asks, hooks). */
  llm?: Omit<LlmStrategyOptions, 'provider' | 'budget' | 'instructions' | 'secrets' | 'signal'>;
  hybrid?: HybridOptions;
}

export function createLlmStrategy(kind: 'llm' | 'hybrid', deps: CreateLlmStrategyDeps): ModelStrategy {
  const options: LlmStrategyOptions = {
    ...deps.llm,
    provider: deps.session.provider,
    budget: deps.session.budget,
    instructions: deps.instructions,
    loadInstructions: deps.loadInstructions,
    secrets: deps.session.secrets,
    signal: deps.signal,
  };
  return kind === 'llm'
    ? new LlmStrategy(options)
    : HybridStrategy.create(deps.knowledge, deps.services, options, deps.hybrid);
}
