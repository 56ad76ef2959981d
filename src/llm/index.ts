/**
 * src/llm/ — the model side (floor 1). It owns one small provider interface with two implementations
 * (OpenAI-compatible and Anthropic, built from `--model provider:model` in factory.ts), the model session
 * (session.ts: the provider metered once against the run's token and dollar budget, its secrets, and the
 * observers of every call), the budget and price table, tool-call parsing with bounded re-asks, and the
 * prompt files' strict renderer (`prompts/*.md`). It knows nothing of strategies, sandboxes or runs: the
 * agent's strategies and retrieval call it.
 */
export type {
  ChatMessage,
  CompletionRequest,
  CompletionResult,
  LlmProvider,
  StopReason,
  TokenUsage,
  ToolCall,
  ToolSpec,
} from './types.js';
export { estimateTokens } from './types.js';
export {
  createProvider,
  parseModelSpec,
  PROVIDER_NAMES,
  type CreateProviderOptions,
  type ModelSpec,
  type ProviderName,
} from './factory.js';
export {
  Budget,
  BudgetExceededError,
  estimateRequestTokens,
  type BudgetLimits,
  type LlmUsage,
} from './budget.js';
export {
  createModelSession,
  meteredProvider,
  openSession,
  type ModelSession,
  type SessionCall,
} from './session.js';
export type { ModelSettings } from './settings.js';
export { loadPriceTable, parsePriceTable, PriceTable, DEFAULT_PRICES_URL, type Price } from './prices.js';
export {
  renderPrompt,
  renderTemplate,
  promptVariables,
  quoteUntrusted,
  DEFAULT_PROMPTS_DIR,
} from './prompts.js';
export { askForTool, pickCall } from './tool-call.js';
export { OpenAiProvider } from './openai.js';
export { AnthropicProvider } from './anthropic.js';
