import { describe, expect, it } from '@jest/globals';

import {
  ANTHROPIC_STOP_REASONS,
  completionResult,
  OPENAI_STOP_REASONS,
} from '../../../src/llm/completion.js';
import { loadPriceTable } from '../../../src/llm/prices.js';

const prices = loadPriceTable();
const parts = { text: 'hi', toolCalls: [], inputTokens: 10, outputTokens: 5 };

describe('completionResult: one reply shape for every provider', () => {
  it('maps each provider stop reason to the neutral one and keeps the raw one', () => {
    const of = (stop: string | undefined, stopReasons = OPENAI_STOP_REASONS) =>
      completionResult(
        { ...parts, stop },
        { prices, provider: 'openai', model: 'unknown-model', stopReasons },
      );
    expect(of('stop').stopReason).toBe('end');
    expect(of('length').stopReason).toBe('max_tokens');
    expect(of('function_call').stopReason).toBe('tool_calls');
    expect(of('tool_use', ANTHROPIC_STOP_REASONS).stopReason).toBe('tool_calls');
    expect(of('stop_sequence', ANTHROPIC_STOP_REASONS).stopReason).toBe('end');
    // Names of Object.prototype are not stop reasons.
    expect(of('constructor')).toMatchObject({ stopReason: 'other', rawStopReason: 'constructor' });
    expect(of(undefined).stopReason).toBe('other');
  });

  it('counts tokens, prices known models and says when a model has no price', () => {
    const unknown = completionResult(
      { ...parts, text: '', stop: 'stop' },
      { prices, provider: 'openai', model: 'no-such-model', stopReasons: OPENAI_STOP_REASONS },
    );
    expect(unknown).toMatchObject({
      text: undefined,
      usage: { inputTokens: 10, outputTokens: 5 },
      costUsd: 0,
      priced: false,
    });
  });
});
