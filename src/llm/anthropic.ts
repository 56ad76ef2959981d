/** Anthropic Messages with tool_use, through the official SDK. Retries and timeouts belong to the client. */
// Types only: the SDK (a third of a second to load) is imported on the first request, so that a run without a
// model never loads it (issue 32; test/unit/cli/startup-modules.test.ts).
import type Anthropic from '@anthropic-ai/sdk';
import { completionResult, ANTHROPIC_STOP_REASONS } from './completion.js';
import type { PriceTable } from './prices.js';
import { toProviderError, type SdkFailure } from './errors.js';
import type { ChatMessage, CompletionRequest, CompletionResult, LlmProvider, ToolCall } from './types.js';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type MessageCreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  model: string;
  apiKey: string;
  baseUrl: string;
  prices: PriceTable;
  timeoutMs: number;
  maxRetries: number;
  /** Stream the reply (SSE) instead of one JSON response. */
  stream?: boolean;
  keySource?: string;
}

export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic';
  readonly model: string;
  private client?: Promise<{ sdk: AnthropicSdk; client: Anthropic }>;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.model = options.model;
  }

  /** The SDK and its client, loaded and made on first use. */
  private connect(): Promise<{ sdk: AnthropicSdk; client: Anthropic }> {
    // A key passed in code is the client's only credential: the SDK reads no variable or profile for another.
    this.client ??= import('@anthropic-ai/sdk').then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: this.options.apiKey,
        baseURL: this.options.baseUrl,
        timeout: this.options.timeoutMs,
        maxRetries: this.options.maxRetries,
      }),
    }));
    return this.client;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { sdk, client } = await this.connect();
    const params: MessageCreateParams = {
      model: this.model,
      max_tokens: request.maxTokens,
      system: request.system,
      messages: toAnthropicMessages(request.messages),
    };
    if (request.tools.length > 0) {
      params.tools = request.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: { ...t.parameters, type: 'object' as const },
      }));
      params.tool_choice = { type: request.toolChoice === 'required' ? 'any' : 'auto' };
    }
    try {
      if (this.options.stream) return await this.streamed(client, params, request.signal);
      const message = await client.messages.create(params, { signal: request.signal });
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use')
          toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
      }
      return this.result(
        text,
        toolCalls,
        message.usage.input_tokens,
        message.usage.output_tokens,
        message.stop_reason ?? undefined,
      );
    } catch (error) {
      throw toProviderError('anthropic', classify(sdk, error), error, {
        secrets: [this.options.apiKey],
        keyHint: `check the key in ${this.options.keySource ?? 'ANTHROPIC_API_KEY or --api-key'}`,
      });
    }
  }

  private async streamed(
    client: Anthropic,
    params: MessageCreateParams,
    signal: AbortSignal | undefined,
  ): Promise<CompletionResult> {
    const stream = await client.messages.create({ ...params, stream: true }, { signal });
    let text = '';
    let input = 0;
    let output = 0;
    let stop: string | undefined;
    const blocks = new Map<number, { id: string; name: string; json: string; input: unknown }>();
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          input = event.message.usage.input_tokens;
          output = event.message.usage.output_tokens;
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') {
            blocks.set(event.index, {
              id: event.content_block.id,
              name: event.content_block.name,
              json: '',
              input: event.content_block.input,
            });
          } else if (event.content_block.type === 'text') {
            text += event.content_block.text;
          }
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') text += event.delta.text;
          else if (event.delta.type === 'input_json_delta') {
            const block = blocks.get(event.index);
            if (block) block.json += event.delta.partial_json;
          }
          break;
        case 'message_delta':
          if (event.delta.stop_reason) stop = event.delta.stop_reason;
          if (typeof event.usage.output_tokens === 'number') output = event.usage.output_tokens;
          if (typeof event.usage.input_tokens === 'number') input = event.usage.input_tokens;
          break;
        default:
          break;
      }
    }
    const toolCalls = [...blocks.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, b]) => ({ id: b.id, name: b.name, arguments: b.json === '' ? b.input : parseJson(b.json) }));
    return this.result(text, toolCalls, input, output, stop);
  }

  private result(
    text: string,
    toolCalls: ToolCall[],
    input: number,
    output: number,
    stop: string | undefined,
  ): CompletionResult {
    return completionResult(
      { text, toolCalls, inputTokens: input, outputTokens: output, stop: stop },
      {
        prices: this.options.prices,
        provider: 'anthropic',
        model: this.model,
        stopReasons: ANTHROPIC_STOP_REASONS,
      },
    );
  }
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Neutral messages → Anthropic turns: tool results become `tool_result` blocks of a user turn, and consecutive
 * messages of the same role are merged (the API alternates user and assistant).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content }]);
    else if (m.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: m.toolCallId,
          content: m.content,
          ...(m.isError ? { is_error: true } : {}),
        },
      ]);
    } else {
      const blocks: ContentBlockParam[] = [];
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) {
        const input =
          c.arguments !== null && typeof c.arguments === 'object' && !Array.isArray(c.arguments)
            ? c.arguments
            : { raw: c.arguments };
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input });
      }
      push('assistant', blocks);
    }
  }
  return out;
}

type AnthropicSdk = typeof import('@anthropic-ai/sdk');

function classify(sdk: AnthropicSdk, error: unknown): SdkFailure {
  if (error instanceof sdk.APIUserAbortError) return { kind: 'abort' };
  if (error instanceof sdk.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof sdk.APIConnectionError) return { kind: 'connection' };
  if (error instanceof sdk.APIError && typeof error.status === 'number')
    return { kind: 'status', status: error.status };
  if (error instanceof Error && error.name === 'AbortError') return { kind: 'abort' };
  return { kind: 'other' };
}
