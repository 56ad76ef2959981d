/** Provider contract tests: the real OpenAI and Anthropic SDKs against the fake server, by base URL. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeLlmServer } from '../../fakes/fake-llm-server.js';
import { createProvider } from '../../../src/llm/factory.js';
import { parsePriceTable } from '../../../src/llm/prices.js';
import { CancelledError, ConfigError, ProviderError } from '../../../src/base/errors.js';
import type { CompletionRequest, LlmProvider, ToolSpec } from '../../../src/llm/types.js';

const KEY = 'sk-test-0123456789abcdefghij';
const PRICES = parsePriceTable(
  'openai:\n  gpt-test: { input: 2, output: 8 }\nanthropic:\n  claude-test: { input: 3, output: 15 }\n',
  'test-prices.yaml',
);
const TOOL: ToolSpec = {
  name: 'run_script',
  description: 'run a script',
  parameters: { type: 'object', properties: { script: { type: 'string' } }, required: ['script'] },
};
const REQUEST: CompletionRequest = {
  system: 'You build software.',
  messages: [{ role: 'user', content: 'Build it.' }],
  tools: [TOOL],
  maxTokens: 512,
};

let server: FakeLlmServer;
beforeAll(async () => {
  server = await FakeLlmServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});
afterEach(() => {
  // Every scripted reply was used (checked here, so a failure names the test that left one).
  const left = server.pending;
  server.reset();
  expect(left).toBe(0);
});

/** The key as sent: `x-api-key` (Anthropic, older SDKs) or `Authorization: Bearer` (OpenAI; Anthropic SDK 1.x). */
function keyHeader(headers: Record<string, string>): string | undefined {
  return headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '');
}

function provider(
  kind: 'openai' | 'anthropic',
  extra: { stream?: boolean; maxRetries?: number; timeoutMs?: number } = {},
): LlmProvider {
  return createProvider({
    spec: kind === 'openai' ? 'openai:gpt-test' : 'anthropic:claude-test',
    apiKey: KEY,
    baseUrl: kind === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
    env: {},
    prices: PRICES,
    maxRetries: extra.maxRetries ?? 2,
    timeoutMs: extra.timeoutMs ?? 10_000,
    stream: extra.stream,
  });
}

describe.each([
  ['openai', false],
  ['openai', true],
  ['anthropic', false],
  ['anthropic', true],
] as const)('%s provider (stream: %s)', (kind, stream) => {
  it('returns tool calls with parsed arguments, usage and cost', async () => {
    server.reply({
      text: 'Installing zlib first.',
      toolCalls: [
        { id: 'call_1', name: 'run_script', arguments: { script: 'apt-get install -y zlib1g-dev\nmake' } },
      ],
      usage: { input: 1000, output: 200 },
    });
    const result = await provider(kind, { stream }).complete(REQUEST);
    expect(result.toolCalls).toEqual([
      { id: 'call_1', name: 'run_script', arguments: { script: 'apt-get install -y zlib1g-dev\nmake' } },
    ]);
    expect(result.text).toBe('Installing zlib first.');
    expect(result.usage).toEqual({ inputTokens: 1000, outputTokens: 200 });
    expect(result.stopReason).toBe('tool_calls');
    expect(result.priced).toBe(true);
    const expected = kind === 'openai' ? (1000 * 2 + 200 * 8) / 1e6 : (1000 * 3 + 200 * 15) / 1e6;
    expect(result.costUsd).toBeCloseTo(expected, 12);

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.api).toBe(kind);
    expect(req.stream).toBe(stream);
    // The key travels in a header only, never in the body.
    expect(keyHeader(req.headers)).toBe(KEY);
    expect(req.raw).not.toContain(KEY);
    expect(JSON.stringify(req.body)).not.toContain(KEY);
  });

  it('sends the system prompt, messages and tools in the API shape', async () => {
    server.reply({ text: 'ok' });
    const result = await provider(kind, { stream }).complete({ ...REQUEST, toolChoice: 'required' });
    expect(result.toolCalls).toEqual([]);
    expect(result.stopReason).toBe('end');
    const body = server.requests[0]!.body;
    if (kind === 'openai') {
      expect(body.messages).toEqual([
        { role: 'system', content: 'You build software.' },
        { role: 'user', content: 'Build it.' },
      ]);
      expect(body.tools).toEqual([
        {
          type: 'function',
          function: { name: 'run_script', description: 'run a script', parameters: TOOL.parameters },
        },
      ]);
      // A custom base URL: compatible servers get max_tokens and tool_choice auto.
      expect(body.max_tokens).toBe(512);
      expect(body.tool_choice).toBe('auto');
    } else {
      expect(body.system).toBe('You build software.');
      expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Build it.' }] }]);
      expect(body.tools).toEqual([
        { name: 'run_script', description: 'run a script', input_schema: TOOL.parameters },
      ]);
      expect(body.max_tokens).toBe(512);
      expect(body.tool_choice).toEqual({ type: 'any' });
    }
  });

  it('retries 429 and 5xx inside the SDK and counts only the answered call', async () => {
    const overload = kind === 'anthropic' ? 529 : 500;
    // retry-after-ms: the OpenAI SDK honours 0; the Anthropic SDK treats 0 as "no advice", so 1 ms keeps it fast.
    const wait = kind === 'anthropic' ? 1 : 0;
    server.reply(
      { error: 429, retryAfterMs: wait },
      { error: overload, retryAfterMs: wait },
      { toolCalls: [{ name: 'run_script', arguments: { script: 'make' } }], usage: { input: 10, output: 5 } },
    );
    const result = await provider(kind, { stream }).complete(REQUEST);
    expect(server.requests).toHaveLength(3);
    expect(result.toolCalls[0]!.arguments).toEqual({ script: 'make' });
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it('turns errors left after the retries into a retryable ProviderError with the status', async () => {
    const overload = kind === 'anthropic' ? 529 : 500;
    const wait = kind === 'anthropic' ? 1 : 0;
    server.reply({ error: overload, retryAfterMs: wait }, { error: overload, retryAfterMs: wait });
    const error = await provider(kind, { stream, maxRetries: 1 })
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(overload);
    expect((error as ProviderError).retryable).toBe(true);
    expect(server.requests).toHaveLength(2);
  });
});

describe('provider errors', () => {
  it('a rejected key is a non-retryable ProviderError whose message and hint do not carry the key', async () => {
    server.reply({ error: 401, message: `Incorrect API key provided: ${KEY}` });
    const error = await provider('openai')
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const e = error as ProviderError;
    expect(e.status).toBe(401);
    expect(e.retryable).toBe(false);
    expect(e.message).not.toContain(KEY);
    expect(e.message).toContain('[REDACTED]');
    expect(e.hint).toMatch(/--api-key/);
    expect(server.requests).toHaveLength(1); // 401 is not retried
  });

  it('a client timeout is retried by the SDK, then reported as retryable', async () => {
    server.reply({ text: 'late', delayMs: 2000 }, { text: 'late', delayMs: 2000 });
    const error = await provider('anthropic', { timeoutMs: 150, maxRetries: 1 })
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toMatch(/timed out/);
    expect(server.requests).toHaveLength(2);
  });

  it('an aborted request is a CancelledError', async () => {
    server.reply({ text: 'late', delayMs: 2000 });
    const controller = new AbortController();
    const pending = provider('openai')
      .complete({ ...REQUEST, signal: controller.signal })
      .catch((e: unknown) => e);
    await server.waitForRequests(1);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(CancelledError);
  });

  it('malformed tool arguments come back as the raw text', async () => {
    server.reply({ toolCalls: [{ name: 'run_script', rawArguments: '{"script": "make' }] });
    const result = await provider('openai').complete(REQUEST);
    expect(result.toolCalls[0]!.arguments).toBe('{"script": "make');
    server.reply({ toolCalls: [{ name: 'run_script', rawArguments: '{"script": ' }] });
    const streamed = await provider('anthropic', { stream: true }).complete(REQUEST);
    expect(streamed.toolCalls[0]!.arguments).toBe('{"script": ');
  });
});

describe('conversation shapes', () => {
  const conversation: CompletionRequest = {
    ...REQUEST,
    messages: [
      { role: 'user', content: 'Build it.' },
      {
        role: 'assistant',
        content: 'Trying cmake.',
        toolCalls: [{ id: 't1', name: 'run_script', arguments: { script: 'cmake -B build' } }],
      },
      {
        role: 'tool',
        toolCallId: 't1',
        name: 'run_script',
        content: 'exit 1: zlib.h missing',
        isError: true,
      },
      { role: 'user', content: 'Go on.' },
    ],
  };

  it('openai: assistant tool_calls and tool messages', async () => {
    server.reply({ text: 'ok' });
    await provider('openai').complete(conversation);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You build software.' },
      { role: 'user', content: 'Build it.' },
      {
        role: 'assistant',
        content: 'Trying cmake.',
        tool_calls: [
          {
            id: 't1',
            type: 'function',
            function: { name: 'run_script', arguments: '{"script":"cmake -B build"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'exit 1: zlib.h missing' },
      { role: 'user', content: 'Go on.' },
    ]);
  });

  it('anthropic: tool_use blocks, and tool results merged with the next user text into one turn', async () => {
    server.reply({ text: 'ok' });
    await provider('anthropic').complete(conversation);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Build it.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Trying cmake.' },
          { type: 'tool_use', id: 't1', name: 'run_script', input: { script: 'cmake -B build' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'exit 1: zlib.h missing', is_error: true },
          { type: 'text', text: 'Go on.' },
        ],
      },
    ]);
  });
});

describe('createProvider', () => {
  it('reads the key and base URL from the environment', async () => {
    server.reply({ text: 'ok' });
    const p = createProvider({
      spec: 'anthropic:claude-test',
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.anthropicBaseUrl },
      prices: PRICES,
    });
    expect(p.name).toBe('anthropic');
    expect(p.model).toBe('claude-test');
    await p.complete(REQUEST);
    expect(keyHeader(server.requests[0]!.headers)).toBe(KEY);
  });

  it('prefers --api-key and --base-url over the environment', async () => {
    server.reply({ text: 'ok' });
    const p = createProvider({
      spec: 'openai:gpt-test',
      apiKey: KEY,
      baseUrl: server.openaiBaseUrl,
      env: { OPENAI_API_KEY: 'sk-from-env-aaaaaaaaaaaaaaaa', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
      prices: PRICES,
    });
    await p.complete(REQUEST);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('rejects a bad spec and a missing key with messages naming the flag and variable', () => {
    expect(() => createProvider({ spec: 'gpt-4o', env: {} })).toThrow(ConfigError);
    expect(() => createProvider({ spec: 'gemini:pro', env: {} })).toThrow(
      /--model: 'gemini:pro' is not valid/,
    );
    expect(() => createProvider({ spec: 'openai:', env: {} })).toThrow(ConfigError);
    try {
      createProvider({ spec: 'anthropic:claude-sonnet-4-5', env: {} });
      throw new Error('no error');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(/no API key/);
      expect((error as ConfigError).hint).toMatch(/ANTHROPIC_API_KEY.*--api-key/);
    }
    expect(() => createProvider({ spec: 'openai:gpt-4o-mini', env: {} })).toThrow(/no API key/);
    expect(() =>
      createProvider({ spec: 'openai:gpt-4o-mini', apiKey: KEY, baseUrl: 'ftp://x', env: {} }),
    ).toThrow(/--base-url/);
    expect(() =>
      createProvider({ spec: 'openai:gpt-4o-mini', apiKey: KEY, env: { OPENAI_BASE_URL: 'not a url' } }),
    ).toThrow(/OPENAI_BASE_URL/);
  });

  it('needs no key for an OpenAI-compatible server at a custom base URL', async () => {
    server.reply({ text: 'ok' });
    const p = createProvider({
      spec: 'openai:qwen2.5-coder:7b',
      baseUrl: server.openaiBaseUrl,
      env: {},
      prices: PRICES,
    });
    expect(p.model).toBe('qwen2.5-coder:7b');
    const result = await p.complete(REQUEST);
    expect(result.priced).toBe(false);
    expect(result.costUsd).toBe(0);
  });
});
