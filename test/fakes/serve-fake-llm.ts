/**
 * The fake model server as a process, for workflows (e2e.yml) and trying the action by hand: a scripted
 * model that reports the README's instructions, runs one build script, then claims SUCCESS (the verifiers
 * still decide). It answers on 127.0.0.1 only, writes its OpenAI base URL to --url-file, prints every
 * request's path, and exits by itself after --timeout.
 *
 *   npx tsx test/fakes/serve-fake-llm.ts --url-file /tmp/llm-url --script 'make' [--timeout 30m]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { parseDuration } from '../../src/core/settings.js';
import { FakeLlmServer, type FakeReply, type RecordedRequest } from './fake-llm-server.js';

/** The tool names a request offers the model (either API's shape). */
export function offeredTools(request: RecordedRequest): string[] {
  const tools = (request.body.tools ?? []) as { name?: string; function?: { name?: string } }[];
  return tools.map((t) => t.function?.name ?? t.name ?? '');
}

/**
 * Retrieval gets the instructions; the first build turn runs `script`; every later turn claims SUCCESS. A run
 * starts with retrieval, so a retrieval request starts the count again (one server can serve many runs).
 */
export function oneScriptModel(script: string): (request: RecordedRequest) => FakeReply {
  let turns = 0;
  return (request) => {
    if (offeredTools(request).includes('report_instructions')) {
      turns = 0;
      return {
        toolCalls: [
          {
            name: 'report_instructions',
            arguments: { instructions: 'build with the script', sufficient: true, links: [] },
          },
        ],
        usage: { input: 200, output: 20 },
      };
    }
    turns++;
    if (turns === 1) {
      return {
        toolCalls: [{ name: 'run_script', arguments: { script, purpose: 'build' } }],
        usage: { input: 1000, output: 50 },
      };
    }
    return {
      toolCalls: [{ name: 'finish', arguments: { status: 'SUCCESS', reason: 'the build script succeeded' } }],
      usage: { input: 1000, output: 20 },
    };
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      'url-file': { type: 'string' },
      script: { type: 'string' },
      timeout: { type: 'string' },
    },
  });
  if (!values['url-file'] || !values.script) {
    process.stderr.write('usage: serve-fake-llm.ts --url-file <file> --script <bash> [--timeout 30m]\n');
    process.exit(2);
  }
  const server = await FakeLlmServer.start();
  const model = oneScriptModel(values.script);
  server.handler = (request) => {
    process.stdout.write(`fake-llm: ${request.method} ${request.path}\n`);
    return model(request);
  };
  writeFileSync(values['url-file'], `${server.openaiBaseUrl}\n`);
  process.stdout.write(`fake-llm: listening at ${server.openaiBaseUrl}\n`);
  const limit = parseDuration(values.timeout ?? '30m', '--timeout');
  setTimeout(() => void server.close().then(() => process.exit(0)), limit).unref();
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await new Promise(() => undefined);
}
