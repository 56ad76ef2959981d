/**
 * OpenAI Chat Completions with function tools, through the official SDK. Works with any OpenAI-compatible
 * server (vLLM, Ollama, llama.cpp, LiteLLM) given its base URL. Retries and timeouts belong to the client.
 */
// Types only: the SDK (a third of a second to load) is imported on the first request, so that a run without a
// model never loads it (issue 32; test/unit/cli/startup-modules.test.ts).
import type OpenAI from 'openai';
import { completionResult, OPENAI_STOP_REASONS } from './completion.js';
import type { PriceTable } from './prices.js';
import { toProviderError, type SdkFailure } from './errors.js';
import type { ChatMessage, CompletionRequest, CompletionResult, LlmProvider, ToolCall } from './types.js';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ChatCompletionCreateParamsBase = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatCompletionMessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatCompletionTool = OpenAI.Chat.Completions.ChatCompletionTool;

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiProviderOptions {
  model: string;
  apiKey: string;
  baseUrl: string;
  prices: PriceTable;
  /** Per-request timeout of the client (ms). */
  timeoutMs: number;
  /** Retries of the client for 408/409/429/5xx, timeouts and dropped connections. */
  maxRetries: number;
  /** Stream the reply (SSE) instead of one JSON response. */
  stream?: boolean;
  /**
   * Which request field caps the reply: OpenAI's own API wants `max_completion_tokens` (required by its
   * reasoning models); many compatible servers only know `max_tokens`. Default: by base URL.
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /**
   * Send `tool_choice: "required"` when a request asks for a tool call. Some compatible servers reject it;
   * then `auto` is sent and a reply without a tool call is re-asked. Default: only for OpenAI's own API.
   */
  toolChoiceRequired?: boolean;
  /** Which variable or flag holds the key, for error hints. */
  keySource?: string;
}

export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai';
  readonly model: string;
  private client?: Promise<{ sdk: OpenAiSdk; client: OpenAI }>;
  private readonly maxTokensField: 'max_completion_tokens' | 'max_tokens';
  private readonly toolChoiceRequired: boolean;

  constructor(private readonly options: OpenAiProviderOptions) {
    this.model = options.model;
    const official = new URL(options.baseUrl).hostname === 'api.openai.com';
    this.maxTokensField = options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');
    this.toolChoiceRequired = options.toolChoiceRequired ?? official;
  }

  /** The SDK and its client, loaded and made on first use. */
  private connect(): Promise<{ sdk: OpenAiSdk; client: OpenAI }> {
    this.client ??= import('openai').then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: this.options.apiKey,
        baseURL: this.options.baseUrl,
        organization: null,
        project: null,
        timeout: this.options.timeoutMs,
        maxRetries: this.options.maxRetries,
      }),
    }));
    return this.client;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { sdk, client } = await this.connect();
    const params: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: toOpenAiMessages(request.system, request.messages),
      [this.maxTokensField]: request.maxTokens,
    };
    if (request.tools.length > 0) {
      params.tools = request.tools.map((t): ChatCompletionTool => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      params.tool_choice = request.toolChoice === 'required' && this.toolChoiceRequired ? 'required' : 'auto';
    }
    try {
      if (this.options.stream) return await this.streamed(client, params, request.signal);
      const completion = await client.chat.completions.create(
        { ...params, stream: false },
        { signal: request.signal },
      );
      const choice = completion.choices[0];
      const toolCalls: ToolCall[] = [];
      for (const call of choice?.message.tool_calls ?? []) {
        if (call.type === 'function')
          toolCalls.push({
            id: call.id,
            name: call.function.name,
            arguments: parseArguments(call.function.arguments),
          });
      }
      return this.result(
        choice?.message.content ?? undefined,
        toolCalls,
        completion.usage?.prompt_tokens ?? 0,
        completion.usage?.completion_tokens ?? 0,
        choice?.finish_reason ?? undefined,
      );
    } catch (error) {
      throw toProviderError('openai', classify(sdk, error), error, {
        secrets: [this.options.apiKey],
        keyHint: `check the key in ${this.options.keySource ?? 'OPENAI_API_KEY or --api-key'}`,
      });
    }
  }

  private async streamed(
    client: OpenAI,
    params: ChatCompletionCreateParamsBase,
    signal: AbortSignal | undefined,
  ): Promise<CompletionResult> {
    const stream = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let text = '';
    let finish: string | undefined;
    let usage: ChatCompletionChunk['usage'];
    const calls = new Map<number, { id: string; name: string; args: string }>();
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        if (choice.delta.content) text += choice.delta.content;
        for (const delta of choice.delta.tool_calls ?? []) {
          const call = calls.get(delta.index) ?? { id: '', name: '', args: '' };
          if (delta.id) call.id = delta.id;
          if (delta.function?.name) call.name += delta.function.name;
          if (delta.function?.arguments) call.args += delta.function.arguments;
          calls.set(delta.index, call);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    }
    const toolCalls = [...calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, c]) => ({ id: c.id || `call_${i}`, name: c.name, arguments: parseArguments(c.args) }));
    return this.result(
      text || undefined,
      toolCalls,
      usage?.prompt_tokens ?? 0,
      usage?.completion_tokens ?? 0,
      finish,
    );
  }

  private result(
    text: string | undefined,
    toolCalls: ToolCall[],
    input: number,
    output: number,
    finish: string | undefined,
  ): CompletionResult {
    return completionResult(
      { text, toolCalls, inputTokens: input, outputTokens: output, stop: finish },
      {
        prices: this.options.prices,
        provider: 'openai',
        model: this.model,
        stopReasons: OPENAI_STOP_REASONS,
      },
    );
  }
}

/** The arguments object, or the raw text when it is not valid JSON (the strategy re-asks). */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function toOpenAiMessages(
  system: string,
  messages: readonly ChatMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
    else {
      const calls = (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
        },
      }));
      out.push({
        role: 'assistant',
        content: m.content ?? null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    }
  }
  return out;
}

type OpenAiSdk = typeof import('openai');

function classify(sdk: OpenAiSdk, error: unknown): SdkFailure {
  if (error instanceof sdk.APIUserAbortError) return { kind: 'abort' };
  if (error instanceof sdk.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof sdk.APIConnectionError) return { kind: 'connection' };
  if (error instanceof sdk.APIError && typeof error.status === 'number')
    return { kind: 'status', status: error.status };
  if (error instanceof Error && error.name === 'AbortError') return { kind: 'abort' };
  return { kind: 'other' };
}
