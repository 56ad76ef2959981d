/** What a run needs to know about its model, as the front doors (CLI flags, Action inputs) give it. */
import type { ModelOptionNames } from './factory.js';

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
