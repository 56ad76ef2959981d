import { estimateRequestTokens } from '../../src/llm/budget.js';
import type { CompletionRequest, CompletionResult, LlmProvider, ToolCall } from '../../src/llm/types.js';

/** What the scripted model answers: a tool call, text, or an error to throw. */
export type ScriptedReply =
  | { tool: string; args: unknown; text?: string }
  | { text: string }
  | { raw: Partial<CompletionResult> }
  | { throw: Error };

/** The user prompt of a recorded request (the strategies send one user message). */
export function promptOf(request: CompletionRequest): string {
  const first = request.messages[0];
  return first && first.role === 'user' ? first.content : '';
}

/**
 * An in-process model for strategy and retrieval tests: answers from a script (a list, or a function of the
 * request), records every request, and reports usage as the estimated prompt size plus 50 output tokens.
 */
export class ScriptedProvider implements LlmProvider {
  readonly name = 'scripted';
  readonly model = 'scripted-model';
  readonly requests: CompletionRequest[] = [];
  private calls = 0;

  constructor(
    private readonly script: ScriptedReply[] | ((request: CompletionRequest, index: number) => ScriptedReply),
  ) {}

  complete(request: CompletionRequest): Promise<CompletionResult> {
    this.requests.push(request);
    const index = this.calls++;
    const next = Array.isArray(this.script) ? this.script[index] : this.script(request, index);
    if (!next) return Promise.reject(new Error(`scripted provider: no reply for call ${index + 1}`));
    if ('throw' in next) return Promise.reject(next.throw);
    const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 50 };
    const base: CompletionResult = { toolCalls: [], usage, costUsd: 0, priced: true, stopReason: 'end' };
    if ('raw' in next) return Promise.resolve({ ...base, ...next.raw });
    if ('tool' in next) {
      const call: ToolCall = { id: `call_${index}`, name: next.tool, arguments: next.args };
      return Promise.resolve({ ...base, text: next.text, toolCalls: [call], stopReason: 'tool_calls' });
    }
    return Promise.resolve({ ...base, text: next.text });
  }

  get prompts(): string[] {
    return this.requests.map(promptOf);
  }
}

export const runScript = (script: string, purpose = 'step'): ScriptedReply => ({
  tool: 'run_script',
  args: { script, purpose },
});
export const finish = (status: string, reason: string): ScriptedReply => ({
  tool: 'finish',
  args: { status, reason },
});
