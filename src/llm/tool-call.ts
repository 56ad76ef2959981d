/**
 * One tool call from the model, re-asked within a cap when the reply has none or its arguments are malformed.
 * Provider failures (ProviderError, BudgetExceededError, CancelledError) propagate: only the caller knows how
 * to end its part of the run.
 */
import type { CompletionRequest, CompletionResult, LlmProvider, ToolCall, ToolSpec } from './types.js';

export type ParsedCall<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface AskForToolOptions<T> {
  system: string;
  prompt: string;
  tools: ToolSpec[];
  maxTokens: number;
  /** How many times a reply without a usable tool call is answered with a correction (default 2). */
  maxReasks?: number;
  /** Validates the arguments of a call to one of `tools` (already known to be a JSON object). */
  parse: (name: string, args: Record<string, unknown>) => ParsedCall<T>;
  /** The correction appended to the prompt after an unusable reply. */
  reask: (problem: string) => string;
  signal?: AbortSignal;
  /** Sees every request and its reply (for recording). */
  onReply?: (reply: CompletionResult, attempt: number, request: CompletionRequest) => void;
}

export type AskResult<T> =
  { ok: true; value: T; call: ToolCall; attempts: number } | { ok: false; problem: string; attempts: number };

/** What is wrong with a reply, or the first call to a known tool with an arguments object. */
export function pickCall(
  reply: CompletionResult,
  tools: readonly ToolSpec[],
): { ok: true; call: ToolCall; args: Record<string, unknown> } | { ok: false; problem: string } {
  if (reply.toolCalls.length === 0) {
    const cut =
      reply.stopReason === 'max_tokens'
        ? ' (it was cut off at the token limit: keep the script shorter)'
        : '';
    const text = reply.text ? `; it was text: "${reply.text.replace(/\s+/g, ' ').slice(0, 160)}"` : '';
    return { ok: false, problem: `the reply had no tool call${cut}${text}` };
  }
  const names = tools.map((t) => t.name);
  const call = reply.toolCalls.find((c) => names.includes(c.name));
  if (!call)
    return {
      ok: false,
      problem: `unknown tool '${reply.toolCalls[0]!.name}'; the tools are ${names.join(', ')}`,
    };
  const args = call.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    const shown = typeof args === 'string' ? args.slice(0, 160) : JSON.stringify(args);
    const cut =
      reply.stopReason === 'max_tokens' ? ' (the reply was cut off at the token limit: keep it shorter)' : '';
    return { ok: false, problem: `the arguments of ${call.name} were not a JSON object${cut}: ${shown}` };
  }
  return { ok: true, call, args: args as Record<string, unknown> };
}

export async function askForTool<T>(
  provider: LlmProvider,
  options: AskForToolOptions<T>,
): Promise<AskResult<T>> {
  const maxReasks = options.maxReasks ?? 2;
  let prompt = options.prompt;
  let problem = 'no reply';
  for (let attempt = 1; attempt <= maxReasks + 1; attempt++) {
    const request: CompletionRequest = {
      system: options.system,
      messages: [{ role: 'user', content: prompt }],
      tools: options.tools,
      maxTokens: options.maxTokens,
      toolChoice: 'required',
      signal: options.signal,
    };
    const reply = await provider.complete(request);
    options.onReply?.(reply, attempt, request);
    const picked = pickCall(reply, options.tools);
    if (picked.ok) {
      const parsed = options.parse(picked.call.name, picked.args);
      if (parsed.ok) return { ok: true, value: parsed.value, call: picked.call, attempts: attempt };
      problem = parsed.problem;
    } else {
      problem = picked.problem;
    }
    prompt = `${options.prompt}\n\n${options.reask(problem)}`;
  }
  return { ok: false, problem, attempts: maxReasks + 1 };
}
