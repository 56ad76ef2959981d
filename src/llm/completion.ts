/** The one place a provider's reply becomes a `CompletionResult`: usage, price and the neutral stop reason. */
import type { PriceTable } from './prices.js';
import type { CompletionResult, StopReason, ToolCall } from './types.js';

/** What a provider read off one reply, in its own vocabulary (`stop` is its raw finish or stop reason). */
export interface ReplyParts {
  text: string | undefined;
  toolCalls: ToolCall[];
  inputTokens: number;
  outputTokens: number;
  stop: string | undefined;
}

/** A provider's stop reasons mapped to the neutral ones; anything else is `other`. */
export type StopReasonMap = Readonly<Record<string, StopReason>>;

export const OPENAI_STOP_REASONS: StopReasonMap = {
  stop: 'end',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
};

export const ANTHROPIC_STOP_REASONS: StopReasonMap = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
};

export function completionResult(
  parts: ReplyParts,
  priced: { prices: PriceTable; provider: string; model: string; stopReasons: StopReasonMap },
): CompletionResult {
  const usage = { inputTokens: parts.inputTokens, outputTokens: parts.outputTokens };
  const cost = priced.prices.cost(priced.provider, priced.model, usage);
  const stop = parts.stop;
  return {
    text: parts.text === '' ? undefined : parts.text,
    toolCalls: parts.toolCalls,
    usage,
    costUsd: cost ?? 0,
    priced: cost !== undefined,
    stopReason:
      (stop !== undefined && Object.hasOwn(priced.stopReasons, stop) && priced.stopReasons[stop]) || 'other',
    rawStopReason: stop,
  };
}
