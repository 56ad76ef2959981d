/** The model side of the agent: one small interface, two implementations (OpenAI-compatible, Anthropic). */

/** A tool the model may call, with a JSON Schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A tool call from the model. `arguments` is the parsed JSON object, or the raw text when it was not valid JSON. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** Provider-neutral conversation messages (the system prompt is separate). */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content?: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };

export interface CompletionRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Cap on the reply's tokens. */
  maxTokens: number;
  /** `auto` (default): text or a tool call; `required`: some tool call. */
  toolChoice?: 'auto' | 'required';
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Why the model stopped: normalised across providers (`raw` keeps the provider's own word). */
export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'other';

export interface CompletionResult {
  text?: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** Dollars for this call from the price table; 0 when the model has no price (see `priced`). */
  costUsd: number;
  /** False when the price table has no entry for the model: `costUsd` is then 0, not the real cost. */
  priced: boolean;
  stopReason: StopReason;
  rawStopReason?: string;
}

export interface LlmProvider {
  /** `openai` or `anthropic`. */
  readonly name: string;
  readonly model: string;
  /**
   * One model call. Transient failures (429, 5xx, 529, timeouts, dropped connections) are retried by the
   * SDK client; what is left is thrown as ProviderError (or CancelledError when `signal` aborted).
   */
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

/** About how many characters make a token, for budgeting prompts (no tokenizer is shipped). */
export const CHARS_PER_TOKEN = 4;

/** Rough token count for budgeting prompts: about CHARS_PER_TOKEN characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
