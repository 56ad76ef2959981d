/**
 * Prompt size per turn of the LLM strategy on a scripted run whose every script writes a 20 MB build log:
 * the real agent loop and layer-1 parser, a sandbox that answers with the log, a scripted model that runs
 * six scripts (the verifiers pass after the sixth), once with the default 8000-token prompt budget and once
 * with 2500. Reports the largest and mean prompt (system + user + tool schemas, estimated at 4 characters a
 * token; goal ≤ 8000), the raw log's size in the same unit, whether each prompt kept the previous turn's
 * root-cause line, the compaction level the tight budget needed, and the time to build a prompt.
 * Run alone: `npx tsx bench/llm-prompt.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { runAgentLoop } from '../src/agent/loop.js';
import { LlmStrategy, type ModelCall } from '../src/agent/strategies/llm.js';
import { openSession } from '../src/llm/session.js';
import type { Verdict } from '../src/verify/types.js';
import { analyzeLog } from '../src/knowledge/diagnose/log-parser.js';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../src/llm/types.js';
import type { RepoInfo } from '../src/repo/types.js';
import type { ExecOptions, ExecResult, Sandbox } from '../src/sandbox/types.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const MB = 1024 * 1024;
const TURNS = 6;
const LOG_BYTES = 20 * MB;

/** The error each failing turn ends with; the next prompt must carry its root-cause line. */
const ERRORS = [
  {
    line: 'src/net/socket.c:14:10: fatal error: openssl/ssl.h: No such file or directory',
    cause: 'openssl/ssl.h',
  },
  { line: "src/core/util.c:88:9: error: implicit declaration of function 'strlcpy'", cause: 'strlcpy' },
  {
    line: "/usr/bin/ld: obj/http.o: in function `fetch': http.c:(.text+0x1e): undefined reference to `inflateInit_'",
    cause: 'inflateInit_',
  },
  { line: '  Could NOT find PNG (missing: PNG_LIBRARY PNG_PNG_INCLUDE_DIR)', cause: 'PNG' },
  {
    line: "src/io/file.c:57:17: error: 'strncpy' output truncated [-Werror=stringop-truncation]",
    cause: 'stringop-truncation',
  },
];

/** A deterministic 20 MB CMake/make log: progress lines, compile commands, warnings, the error near the end. */
function buildLog(turn: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < LOG_BYTES; n++) {
    const line =
      n % 3 === 0
        ? `[ ${String(Math.floor((n / 3000) % 100)).padStart(2)}%] Building C object CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o`
        : n % 3 === 1
          ? `/usr/bin/cc -DNDEBUG -I/workspace/include -I/workspace/src/mod${n % 97} -O2 -g -Wall -Wextra -std=gnu11 -fPIC -o CMakeFiles/app.dir/src/mod${n % 97}/file${n}.c.o -c /workspace/src/mod${n % 97}/file${n}.c`
          : `/workspace/src/mod${n % 97}/file${n}.c:${n % 300}:5: warning: unused variable 'tmp${n}' [-Wunused-variable]`;
    parts.push(line);
    size += line.length + 1;
  }
  const error = ERRORS[turn % ERRORS.length]!;
  parts.push(
    error.line,
    `make[2]: *** [CMakeFiles/app.dir/build.make:${1000 + turn}: all] Error 1`,
    'make: *** [all] Error 2',
  );
  return parts.join('\n') + '\n';
}

const logs = new Map<number, string>();
function cachedLog(turn: number): string {
  let log = logs.get(turn);
  if (log === undefined) logs.set(turn, (log = buildLog(turn)));
  return log;
}

class LogSandbox implements Sandbox {
  readonly kind = 'host' as const;
  readonly id = 'bench';
  readonly workdir = '/workspace';
  readonly hostWorkdir = '/nonexistent';
  readonly image = 'bench';
  runs = 0;
  exec(_script: string, _options: ExecOptions): Promise<ExecResult> {
    const turn = this.runs++;
    const passed = turn >= TURNS - 1;
    const output = passed ? '[100%] Built target app\n' : cachedLog(turn);
    return Promise.resolve({
      exitCode: passed ? 0 : 2,
      timedOut: false,
      cancelled: false,
      durationMs: 60_000,
      output,
      truncated: false,
      totalBytes: output.length,
    });
  }
  describeLocation(): string {
    return 'nowhere';
  }
  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

/** Answers every call with a different whole script; reports no real usage. */
class ScriptModel implements LlmProvider {
  readonly name = 'scripted';
  readonly model = 'bench';
  private n = 0;
  complete(_request: CompletionRequest): Promise<CompletionResult> {
    const n = this.n++;
    const script = `set -euo pipefail\n# attempt ${n}\napt-get install -y libssl-dev zlib1g-dev libpng-dev\ncmake -S /workspace -B /workspace/build -DCMAKE_C_FLAGS=-Wno-error\ncmake --build /workspace/build -j"$(nproc)"\n`;
    return Promise.resolve({
      toolCalls: [{ id: `c${n}`, name: 'run_script', arguments: { script, purpose: `attempt ${n}` } }],
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      priced: true,
      stopReason: 'tool_calls',
    });
  }
}

const repo: RepoInfo = {
  root: '/nonexistent',
  name: 'bench-app',
  fileCount: 4200,
  buildSystems: [{ kind: 'cmake', dir: '', file: 'CMakeLists.txt', linux: true, details: {} }],
  docs: [{ path: 'README.md', score: 8, why: 'README at the root' }],
  ciFiles: ['.github/workflows/ci.yml'],
  dockerfiles: [],
  submodules: [],
  languages: { c: 4000 },
  mainSources: ['src/main.c'],
  expectedTargets: [
    { name: 'app', kind: 'executable', source: 'CMakeLists.txt:12', confidence: 0.9, role: 'main' },
  ],
};

interface Scenario {
  tokens: number[];
  retained: number;
  level: number;
  maxMs: number;
}

/** One scripted run with the given per-turn prompt budget. */
async function scenario(logDir: string, promptTokens: number): Promise<Scenario> {
  const calls: (ModelCall & { ms: number })[] = [];
  let started = 0;
  const strategy = new LlmStrategy({
    session: openSession(new ScriptModel()),
    promptTokens,
    instructions:
      'Install OpenSSL, zlib and libpng development packages, then build with CMake:\n' +
      'cmake -S . -B build && cmake --build build\n'.repeat(40),
    onModelCall: (call) => calls.push({ ...call, ms: performance.now() - started }),
  });
  const timed = {
    name: strategy.name,
    next: (context: Parameters<LlmStrategy['next']>[0]) => (
      (started = performance.now()),
      strategy.next(context)
    ),
  };
  const sandbox = new LogSandbox();
  const verdict = (passed: boolean): Verdict => ({
    passed,
    metrics: {
      completion: passed,
      strict: passed,
      flexible: passed,
      matched: passed ? ['app'] : [],
      missing: passed ? [] : ['app'],
    },
    failures: passed ? [] : ["expected binary 'app' (inferred) was not produced"],
  });
  const outcome = await runAgentLoop(
    { maxTurns: TURNS + 2, repo, expected: { names: ['app'], source: 'inferred' }, workdir: '/workspace' },
    {
      strategy: timed,
      sandbox,
      emit: () => undefined,
      analyze: (output) => Promise.resolve(analyzeLog(output)),
      verify: () => Promise.resolve({ artifacts: [], verdict: verdict(sandbox.runs >= TURNS) }),
    },
    { maxTurns: TURNS + 2, deadline: Date.now() + 600_000, turnTimeoutMs: 60_000, logDir },
  );
  if (outcome.end.kind !== 'verified')
    throw new Error(`the scripted run ended ${outcome.end.kind}: ${outcome.end.reason}`);
  if (calls.length !== TURNS) throw new Error(`expected ${TURNS} model calls, saw ${calls.length}`);
  // Turn k's prompt must carry the root-cause line of turn k-1 (from the parser, not a raw log search).
  let retained = 0;
  for (let k = 1; k < calls.length; k++) {
    const cause = outcome.history[k - 1]?.observation?.rootCause;
    const expected = ERRORS[(k - 1) % ERRORS.length]!.cause;
    if (cause && calls[k]!.prompt.includes(cause.message) && calls[k]!.prompt.includes(expected)) retained++;
  }
  return {
    tokens: calls.map((c) => c.promptTokens),
    retained: retained / (calls.length - 1),
    level: Math.max(...calls.map((c) => c.level)),
    maxMs: Math.max(...calls.map((c) => c.ms)),
  };
}

export async function benchLlmPrompt(): Promise<BenchResult[]> {
  const logDir = await mkdtemp(path.join(tmpdir(), 'bb-bench-llm-'));
  try {
    const normal = await scenario(logDir, 8000);
    // The same run under a tight budget: compaction must still keep every root cause.
    const tight = await scenario(logDir, 2500);
    const mean = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    return [
      { name: 'llm-prompt: build log per turn', value: Math.round(LOG_BYTES / MB), unit: 'MB' },
      { name: 'llm-prompt: raw log as prompt (for scale)', value: Math.round(LOG_BYTES / 4), unit: 'tokens' },
      {
        name: 'llm-prompt: largest prompt per turn (budget 8000)',
        value: Math.max(...normal.tokens),
        unit: 'tokens',
      },
      { name: 'llm-prompt: mean prompt per turn (budget 8000)', value: mean(normal.tokens), unit: 'tokens' },
      {
        name: 'llm-prompt: previous root cause kept (budget 8000)',
        value: Number(normal.retained.toFixed(2)),
        unit: 'fraction',
      },
      {
        name: 'llm-prompt: prompt build time per turn, max',
        value: Number(normal.maxMs.toFixed(1)),
        unit: 'ms',
      },
      {
        name: 'llm-prompt: largest prompt per turn (budget 2500)',
        value: Math.max(...tight.tokens),
        unit: 'tokens',
      },
      { name: 'llm-prompt: compaction level used (budget 2500)', value: tight.level, unit: 'level' },
      {
        name: 'llm-prompt: previous root cause kept (budget 2500)',
        value: Number(tight.retained.toFixed(2)),
        unit: 'fraction',
      },
    ];
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchLlmPrompt())
    console.log(`${r.name.padEnd(56)} ${String(r.value).padStart(12)} ${r.unit}`);
}
