/**
 * One model for one run: the provider wrapped once with the run's budget (the only place model calls are
 * metered: checked before, counted after), the budget itself, the secrets that must never leave the
 * process, and the observers that see every call (the trajectory's `model_call` records).
 * `createModelSession` validates everything up front, before any sandbox exists: a bad spec, a bad budget
 * or a missing key is a ConfigError.
 */
import { ConfigError, errorMessage } from '../base/errors.js';
import { Budget, BudgetExceededError, estimateRequestTokens, type BudgetLimits } from './budget.js';
import { createProvider, resolveApiKey } from './factory.js';
import type { ModelSettings } from './settings.js';
import type { CompletionRequest, CompletionResult, LlmProvider } from './types.js';

/** One model call as the session saw it: the request as sent and the reply (or why there was none). */
export interface SessionCall {
  provider: string;
  model: string;
  request: Pick<CompletionRequest, 'system' | 'messages' | 'tools' | 'maxTokens'>;
  /** The reply; absent when the call failed (`error`) or the budget refused it (`refused`). */
  reply?: CompletionResult;
  error?: string;
  /** The budget refused the call before it was made. */
  refused?: boolean;
  durationMs: number;
}

export type SessionCallListener = (call: SessionCall) => void;

export interface ModelSession {
  /** Metered: every call is checked against `budget` and counted. Pass it to retrieval and the strategy. */
  provider: LlmProvider;
  budget: Budget;
  /** The API key (when there is one): add it to the trajectory redactor; the strategy keeps it out of prompts and scripts. */
  secrets: string[];
  /** Sees every call made through `provider` (retrieval's and the strategy's); returns an unsubscribe. */
  onModelCall(listener: SessionCallListener): () => void;
}

export interface OpenSessionOptions {
  /** The budget to meter against (default: a new one with `limits`). */
  budget?: Budget;
  limits?: BudgetLimits;
  secrets?: string[];
}

/** A session over an already configured provider (tests, benchmarks: a scripted model). */
export function openSession(raw: LlmProvider, options: OpenSessionOptions = {}): ModelSession {
  const budget = options.budget ?? new Budget(options.limits);
  const listeners: SessionCallListener[] = [];
  const tell = (call: Omit<SessionCall, 'provider' | 'model'>): void => {
    const { system, messages, tools, maxTokens } = call.request;
    const seen: SessionCall = {
      ...call,
      provider: raw.name,
      model: raw.model,
      request: { system, messages: [...messages], tools, maxTokens },
    };
    for (const listener of [...listeners]) listener(seen);
  };
  return {
    provider: meteredProvider(raw, budget, tell),
    budget,
    secrets: options.secrets ?? [],
    onModelCall(listener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
  };
}

/** The session for `settings`: the provider from the spec, flags and environment, and the run's budget. */
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
  const { key } = resolveApiKey(settings.model, settings.apiKey, env);
  return openSession(raw, { limits, secrets: key ? [key] : [] });
}

/**
 * A provider that checks the budget before each call and records each call's usage and cost; `observe`
 * sees each call. Only sessions make one (so nothing is counted twice); exported for the budget's tests.
 */
export function meteredProvider(
  provider: LlmProvider,
  budget: Budget,
  observe: (call: Omit<SessionCall, 'provider' | 'model'>) => void = () => undefined,
): LlmProvider {
  return {
    name: provider.name,
    model: provider.model,
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      const started = Date.now();
      const refused = budget.refuse(estimateRequestTokens(request));
      if (refused) {
        budget.stop(refused);
        observe({ request, error: refused, refused: true, durationMs: 0 });
        throw new BudgetExceededError(refused);
      }
      let result: CompletionResult;
      try {
        result = await provider.complete(request);
      } catch (error) {
        budget.recordFailure();
        observe({ request, error: errorMessage(error), durationMs: Date.now() - started });
        throw error;
      }
      budget.record(result);
      observe({ request, reply: result, durationMs: Date.now() - started });
      return result;
    },
  };
}
