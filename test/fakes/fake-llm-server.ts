/**
 * A real HTTP server on 127.0.0.1:<random port> that speaks just enough of two model APIs for contract tests
 * with the real SDKs pointed at it by base URL:
 *   POST /v1/chat/completions  (OpenAI Chat Completions: JSON, or SSE when `stream: true`; tool calls; usage)
 *   POST /v1/messages          (Anthropic Messages: JSON, or SSE when `stream: true`; tool_use; usage)
 * Replies are scripted per test (a queue shared by both endpoints, or a handler); errors are injected with
 * their status (429, 500, 529, …) and `retry-after-ms` (default 0, so SDK retries do not sleep); every
 * request is recorded (headers and parsed body).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  id?: string;
  name: string;
  /** The arguments object; serialised as JSON unless `rawArguments` is given. */
  arguments?: unknown;
  /** Sent verbatim as the arguments text (to inject malformed JSON). */
  rawArguments?: string;
}

export interface FakeMessage {
  text?: string;
  toolCalls?: FakeToolCall[];
  usage?: { input: number; output: number };
  /** Provider's own stop word; default `tool_calls`/`tool_use` with tool calls, else `stop`/`end_turn`. */
  stopReason?: string;
  /** Wait this long before answering (to provoke client timeouts). */
  delayMs?: number;
}

export interface FakeError {
  error: number;
  message?: string;
  /** Sent as `retry-after-ms` (default 0). */
  retryAfterMs?: number;
  headers?: Record<string, string>;
}

export type FakeReply = FakeMessage | FakeError;

export interface RecordedRequest {
  api: 'openai' | 'anthropic';
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body text. */
  raw: string;
  body: Record<string, unknown>;
  stream: boolean;
}

function isError(reply: FakeReply): reply is FakeError {
  return typeof (reply as FakeError).error === 'number';
}

export class FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  /** Answers when the queue is empty. */
  handler: ((request: RecordedRequest) => FakeReply) | undefined;
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeLlmServer> {
    const holder: { instance?: FakeLlmServer } = {};
    const server = createServer((req, res) => {
      void holder.instance!.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.instance = new FakeLlmServer(server, `http://127.0.0.1:${port}`);
    return holder.instance;
  }

  /** Base URL for the OpenAI SDK (it appends `/chat/completions`). */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Base URL for the Anthropic SDK (it appends `/v1/messages`). */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Queues replies, answered in order by either endpoint. */
  reply(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Forgets queued replies, the handler and the recorded requests (between tests). */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.handler = undefined;
  }

  /** Resolves once `count` requests have arrived (polls; for tests that act while a request is in flight). */
  async waitForRequests(count: number, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > until)
        throw new Error(
          `fake-llm-server: ${this.requests.length} of ${count} requests after ${timeoutMs} ms`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    const api =
      path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : undefined;
    if (req.method !== 'POST' || !api) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded as empty
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    const request: RecordedRequest = {
      api,
      method: req.method,
      path,
      headers,
      raw,
      body,
      stream: body.stream === true,
    };
    this.requests.push(request);

    const reply: FakeReply = this.queue.shift() ??
      this.handler?.(request) ?? { error: 400, message: 'fake-llm-server: no scripted reply left' };
    if (!isError(reply) && reply.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, reply.delayMs);
        res.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
    }
    if (isError(reply)) return this.sendError(api, res, reply);
    const id = ++this.counter;
    const model = typeof body.model === 'string' ? body.model : 'fake-model';
    if (api === 'openai') {
      if (request.stream) this.openaiStream(res, reply, id, model, body);
      else this.json(res, openaiCompletion(reply, id, model));
    } else if (request.stream) this.anthropicStream(res, reply, id, model);
    else this.json(res, anthropicMessage(reply, id, model));
  }

  private json(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  }

  private sendError(api: 'openai' | 'anthropic', res: ServerResponse, reply: FakeError): void {
    const message = reply.message ?? `injected error ${reply.error}`;
    const type =
      reply.error === 429
        ? 'rate_limit_error'
        : reply.error === 529
          ? 'overloaded_error'
          : reply.error >= 500
            ? 'api_error'
            : reply.error === 401
              ? 'authentication_error'
              : 'invalid_request_error';
    const body =
      api === 'openai'
        ? { error: { message, type, code: null, param: null } }
        : { type: 'error', error: { type, message } };
    res
      .writeHead(reply.error, {
        'content-type': 'application/json',
        'retry-after-ms': String(reply.retryAfterMs ?? 0),
        ...(reply.error === 400 && !reply.headers ? { 'x-should-retry': 'false' } : {}),
        ...reply.headers,
      })
      .end(JSON.stringify(body));
  }

  private openaiStream(
    res: ServerResponse,
    reply: FakeMessage,
    id: number,
    model: string,
    body: Record<string, unknown>,
  ): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_700_000_000, model };
    const send = (value: unknown): boolean => res.write(`data: ${JSON.stringify(value)}\n\n`);
    send({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    if (reply.text) {
      for (const piece of split(reply.text, 3))
        send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    }
    (reply.toolCalls ?? []).forEach((call, index) => {
      const args = argumentsText(call);
      send({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index,
                  id: call.id ?? `call_${id}_${index}`,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      for (const piece of split(args, 3)) {
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index, function: { arguments: piece } }] },
              finish_reason: null,
            },
          ],
        });
      }
    });
    send({
      ...base,
      choices: [
        {
          index: 0,
          delta: {},
          finish_reason: reply.stopReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop'),
        },
      ],
    });
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) {
      const u = reply.usage ?? { input: 100, output: 20 };
      send({
        ...base,
        choices: [],
        usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
      });
    }
    res.end('data: [DONE]\n\n');
  }

  private anthropicStream(res: ServerResponse, reply: FakeMessage, id: number, model: string): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, value: Record<string, unknown>): boolean =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`);
    const u = reply.usage ?? { input: 100, output: 20 };
    send('message_start', {
      message: {
        id: `msg_${id}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: u.input, output_tokens: 1 },
      },
    });
    let index = 0;
    if (reply.text) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of split(reply.text, 3))
        send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      send('content_block_stop', { index });
      index++;
    }
    for (const call of reply.toolCalls ?? []) {
      send('content_block_start', {
        index,
        content_block: {
          type: 'tool_use',
          id: call.id ?? `toolu_${id}_${index}`,
          name: call.name,
          input: {},
        },
      });
      for (const piece of split(argumentsText(call), 3))
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      send('content_block_stop', { index });
      index++;
    }
    send('message_delta', {
      delta: {
        stop_reason: reply.stopReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
      },
      usage: { output_tokens: u.output },
    });
    send('message_stop', {});
    res.end();
  }
}

function argumentsText(call: FakeToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.arguments ?? {});
}

/** A text in `parts` roughly equal pieces (at least one). */
function split(text: string, parts: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function openaiCompletion(reply: FakeMessage, id: number, model: string): unknown {
  const u = reply.usage ?? { input: 100, output: 20 };
  const calls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${id}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: argumentsText(call) },
  }));
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: reply.stopReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
  };
}

function anthropicMessage(reply: FakeMessage, id: number, model: string): unknown {
  const u = reply.usage ?? { input: 100, output: 20 };
  const content: unknown[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text, citations: null });
  (reply.toolCalls ?? []).forEach((call, index) => {
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${id}_${index}`,
      name: call.name,
      input: call.rawArguments !== undefined ? call.rawArguments : (call.arguments ?? {}),
    });
  });
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.stopReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: u.input, output_tokens: u.output },
  };
}
