/**
 * `buildbench build --strategy llm|hybrid --model openai:…` end to end: the real OpenAI and Anthropic SDKs
 * talk to the fake model server on 127.0.0.1, the scripts run for real in the rootfs sandbox, and the
 * verifiers — not the model — decide.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main.js';
import type { BuildResult } from '../../src/report/result.js';
import { FakeLlmServer } from '../fakes/fake-llm-server.js';
import { oneScriptModel as scriptedModel } from '../fakes/serve-fake-llm.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const KEY = 'sk-test-planted-secret-0123456789abcdef';
let server: FakeLlmServer;

async function build(
  args: string[],
  env: NodeJS.ProcessEnv = { OPENAI_API_KEY: KEY },
): Promise<{ code: number; result: BuildResult; out: string; stderr: string }> {
  const out = mkdtempSync(path.join(tmpdir(), 'bb-llm-'));
  const stderr: string[] = [];
  const code = await run(['build', ...args, '--out', out, '--sandbox', 'rootfs'], {
    stdout: () => undefined,
    stderr: (t) => stderr.push(t),
    env: { ...process.env, ...env },
    cwd: process.cwd(),
  });
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
  return { code, result, out, stderr: stderr.join('') };
}

beforeAll(async () => {
  server = await FakeLlmServer.start();
});
afterAll(async () => {
  await server.close();
});

describe('model-driven builds against the fake model server', () => {
  it('llm: the model builds a plain Makefile project and the verifiers accept it; the key never leaks', async () => {
    server.handler = scriptedModel('set -euo pipefail\nmake\n');
    const { code, result, out } = await build([
      path.join(FIXTURES, 'make-hello'),
      '--strategy',
      'llm',
      '--model',
      'openai:test-model',
      '--base-url',
      server.openaiBaseUrl,
      '--expect',
      'hello',
    ]);
    expect(code).toBe(0);
    expect(result.status).toBe('success');
    expect(result.metrics.strict).toBe(true);
    expect(result.llm).toMatchObject({ model: 'openai:test-model' });
    expect(result.retrieval?.mode).toBe('llm');
    const trajectory = readFileSync(path.join(out, 'trajectory.jsonl'), 'utf8');
    expect(trajectory).not.toContain(KEY);
    // Every model call (retrieval's and the turns') is in the trajectory, with its prompt and reply.
    const calls = trajectory
      .split('\n')
      .filter((line) => line.includes('"type":"model_call"'))
      .map((line) => (JSON.parse(line) as { data: { messages: unknown[]; reply?: unknown } }).data);
    expect(calls).toHaveLength(server.requests.length);
    for (const call of calls) expect(call.messages.length > 0 && call.reply !== undefined).toBe(true);
    for (const request of server.requests) expect(request.raw).not.toContain(KEY);
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('llm with an Anthropic endpoint: the same build through the Messages API', async () => {
    server.handler = scriptedModel('set -euo pipefail\nmake\n');
    const before = server.requests.length;
    const { code, result } = await build(
      [
        path.join(FIXTURES, 'make-hello'),
        '--strategy',
        'llm',
        '--model',
        'anthropic:claude-test',
        '--base-url',
        server.anthropicBaseUrl,
        '--expect',
        'hello',
      ],
      { ANTHROPIC_API_KEY: KEY },
    );
    expect(code).toBe(0);
    expect(result.status).toBe('success');
    const used = server.requests.slice(before);
    expect(used.length).toBeGreaterThan(0);
    expect(used.every((r) => r.api === 'anthropic')).toBe(true);
    for (const request of used) expect(request.raw).not.toContain(KEY);
  });

  it('llm: a SUCCESS claim the verifiers do not back is refused and the run does not end SUCCESS', async () => {
    server.handler = scriptedModel('echo "pretending to build"\n');
    const { code, result } = await build([
      path.join(FIXTURES, 'make-hello'),
      '--strategy',
      'llm',
      '--model',
      'openai:test-model',
      '--base-url',
      server.openaiBaseUrl,
      '--expect',
      'hello',
      '--max-turns',
      '3',
    ]);
    expect(code).toBe(1);
    expect(result.status).not.toBe('success');
    expect(result.metrics.strict).toBe(false);
  });

  it('hybrid: an easy repository is built by the rules alone, at zero tokens', async () => {
    server.handler = scriptedModel('exit 1\n');
    const before = server.requests.length;
    const { result } = await build([
      path.join(FIXTURES, 'cmake-hello'),
      '--model',
      'openai:test-model',
      '--base-url',
      server.openaiBaseUrl,
    ]);
    expect(result.strategy).toBe('hybrid');
    expect(result.status).toBe('success');
    expect(server.requests.length - before).toBe(0);
    expect(result.llm).toMatchObject({ calls: 0, totalTokens: 0 });
  });

  it('a missing key is a usage error naming the flag and the variable', async () => {
    const stderr: string[] = [];
    const code = await run(
      ['build', path.join(FIXTURES, 'make-hello'), '--strategy', 'llm', '--model', 'anthropic:claude-test'],
      {
        stdout: () => undefined,
        stderr: (t) => stderr.push(t),
        env: { PATH: process.env.PATH },
        cwd: process.cwd(),
      },
    );
    expect(code).toBe(2);
    expect(stderr.join('')).toMatch(/ANTHROPIC_API_KEY|--api-key/);
  });
});
