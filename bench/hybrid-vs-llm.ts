/**
 * Tokens spent by `hybrid` against `llm` on the fixture corpus (issue 5). The model is the fake OpenAI
 * server on 127.0.0.1 driven through the real SDK; it plays a competent model: for each fixture it
 * answers with the script that is known to build it (the rules strategy's verified build.sh from a first
 * run), then claims SUCCESS. So `llm` pays for retrieval and every turn's prompt, while `hybrid` lets the
 * rules build what they can and pays nothing there. Reported: calls and tokens per strategy, and the ratio.
 * Run alone: `npx tsx bench/hybrid-vs-llm.ts`.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../src/core/settings.js';
import { rootfsProblems } from '../src/sandbox/index.js';
import { FakeLlmServer, type RecordedRequest } from '../test/fakes/fake-llm-server.js';
import { expectedFromReadme } from './rules-vs-baseline.js';

interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/repos');
/** Fixtures the rules build, some at once and some after repairs (a small, varied corpus). */
const CORPUS = [
  'cmake-hello',
  'meson-hello',
  'missing-header',
  'fcommon-globals',
  'werror-newer-gcc',
  'autotools-hello',
];

function tools(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as { function?: { name?: string } }[]).map(
    (t) => t.function?.name ?? '',
  );
}

export async function benchHybridVsLlm(): Promise<BenchResult[]> {
  const sandbox = sandboxSettingsFrom(process.env, 'rootfs', undefined);
  const problems = await rootfsProblems(sandbox);
  if (problems.length > 0)
    throw new Error(`the hybrid-vs-llm benchmark needs the rootfs sandbox: ${problems.join('; ')}`);
  const expected = expectedFromReadme(readFileSync(path.join(FIXTURES, 'README.md'), 'utf8'));
  const server = await FakeLlmServer.start();
  const root = await mkdtemp(path.join(tmpdir(), 'bb-bench-hybrid-'));
  const totals = { llm: { calls: 0, tokens: 0, ok: 0 }, hybrid: { calls: 0, tokens: 0, ok: 0 } };
  try {
    for (const fixture of CORPUS) {
      const base = (strategy: BuildSettings['strategy'], out: string): BuildSettings => ({
        source: path.join(FIXTURES, fixture),
        outDir: path.join(root, `${fixture}-${out}`),
        strategy,
        maxTurns: 6,
        timeoutMs: 10 * 60_000,
        turnTimeoutMs: 5 * 60_000,
        expect: expected.get(fixture) ?? [],
        json: false,
        keep: false,
        sandbox,
        ...(strategy === 'llm' || strategy === 'hybrid'
          ? {
              model: {
                model: 'openai:bench-model',
                baseUrl: server.openaiBaseUrl,
                apiKey: 'sk-bench-not-a-real-key-000000',
              },
            }
          : {}),
      });
      const rules = await runBuild(base('rules', 'rules'));
      if (!rules.recipe?.verified) throw new Error(`${fixture}: the rules did not leave a verified recipe`);
      const script = readFileSync(path.join(root, `${fixture}-rules`, 'build.sh'), 'utf8');
      let answered = 0;
      // Usage as a real server would report it: about 4 characters a token, prompt and reply.
      const usage = (request: RecordedRequest, reply: unknown): { input: number; output: number } => ({
        input: Math.ceil(request.raw.length / 4),
        output: Math.ceil(JSON.stringify(reply).length / 4),
      });
      server.handler = (request) => {
        if (tools(request).includes('report_instructions')) {
          const args = { instructions: 'see build.sh', sufficient: true, links: [] };
          return {
            toolCalls: [{ name: 'report_instructions', arguments: args }],
            usage: usage(request, args),
          };
        }
        answered++;
        const call =
          answered % 2 === 1
            ? { name: 'run_script', arguments: { script, purpose: 'build' } }
            : { name: 'finish', arguments: { status: 'SUCCESS', reason: 'built' } };
        return { toolCalls: [call], usage: usage(request, call.arguments) };
      };
      for (const strategy of ['llm', 'hybrid'] as const) {
        answered = 0;
        const result = await runBuild(base(strategy, strategy));
        const usage = (result.llm ?? {}) as { calls?: number; totalTokens?: number };
        totals[strategy].calls += usage.calls ?? 0;
        totals[strategy].tokens += usage.totalTokens ?? 0;
        if (result.status === 'success') totals[strategy].ok++;
        process.stderr.write(
          `bench: ${fixture} ${strategy}: ${result.status}, ${usage.totalTokens ?? 0} tokens\n`,
        );
      }
    }
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
  return [
    { name: 'hybrid_vs_llm.fixtures', value: CORPUS.length, unit: 'repos' },
    { name: 'hybrid_vs_llm.llm.successes', value: totals.llm.ok, unit: 'repos' },
    { name: 'hybrid_vs_llm.llm.calls', value: totals.llm.calls, unit: 'calls' },
    { name: 'hybrid_vs_llm.llm.tokens', value: totals.llm.tokens, unit: 'tokens' },
    { name: 'hybrid_vs_llm.hybrid.successes', value: totals.hybrid.ok, unit: 'repos' },
    { name: 'hybrid_vs_llm.hybrid.calls', value: totals.hybrid.calls, unit: 'calls' },
    { name: 'hybrid_vs_llm.hybrid.tokens', value: totals.hybrid.tokens, unit: 'tokens' },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await benchHybridVsLlm()) console.log(`${row.name}\t${row.value}\t${row.unit}`);
}
