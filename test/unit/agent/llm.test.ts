/** The LLM and hybrid strategies with a scripted in-process model, driven by the real loop and a fake sandbox. */
import { describe, expect, it } from '@jest/globals';
import { runAgentLoop, type LoopDeps } from '../../../src/agent/loop.js';
import { LlmStrategy, type ModelCall } from '../../../src/agent/strategies/llm.js';
import { HybridStrategy } from '../../../src/agent/strategies/hybrid.js';
import type { Strategy } from '../../../src/agent/types.js';
import type { Verdict } from '../../../src/verify/types.js';
import { ProviderError } from '../../../src/base/errors.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import { NO_KNOWLEDGE } from '../../../src/knowledge/repair/repair.js';
import { Budget } from '../../../src/llm/budget.js';
import { openSession } from '../../../src/llm/session.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { repoInfo, system } from '../../fakes/repo-info.js';
import { finish, runScript, ScriptedProvider } from '../../fakes/scripted-provider.js';

const KEY = 'sk-test-secret-0123456789abcdef';

const repo = repoInfo({
  name: 'app',
  root: '/nonexistent/app',
  buildSystems: [system('cmake')],
  docs: [{ path: 'README.md', score: 8, why: 'README at the root' }],
  expectedTargets: [
    { name: 'app', kind: 'executable', source: 'CMakeLists.txt:3', confidence: 0.9, role: 'main' },
  ],
});
const base = {
  maxTurns: 6,
  repo,
  expected: { names: ['app'], source: 'inferred' as const },
  workdir: '/workspace',
};
const limits = (maxTurns = 6) => ({
  maxTurns,
  deadline: Date.now() + 60_000,
  turnTimeoutMs: 10_000,
  logDir: '/tmp',
});

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

function deps(strategy: Strategy, sandbox: FakeSandbox, passWhen: () => boolean): LoopDeps {
  return {
    strategy,
    sandbox,
    emit: () => undefined,
    analyze: (output) => Promise.resolve(analyzeLog(output)),
    verify: () => {
      const passed = passWhen();
      return Promise.resolve({
        artifacts: passed ? [{ path: 'build/app', kind: 'executable' as const, size: 100 }] : [],
        verdict: verdict(passed),
      });
    },
  };
}

/** A noisy CMake build log of about `bytes` bytes ending in `error`. */
function buildLog(bytes: number, error: string): string {
  const lines: string[] = [
    '-- The C compiler identification is GNU 12.2.0',
    '-- Configuring done',
    '-- Generating done',
  ];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `[ ${String(i % 100).padStart(2)}%] Building C object CMakeFiles/app.dir/src/mod${i % 50}/file${i}.c.o`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(
    error,
    'compilation terminated.',
    'make[2]: *** [CMakeFiles/app.dir/build.make:76: CMakeFiles/app.dir/src/main.c.o] Error 1',
    'make: *** [all] Error 2',
  );
  return lines.join('\n') + '\n';
}

const MISSING_ZLIB = '/workspace/src/main.c:3:10: fatal error: zlib.h: No such file or directory';
const STRLCPY =
  "/workspace/src/util.c:12:5: error: implicit declaration of function 'strlcpy'; did you mean 'strncpy'? [-Wimplicit-function-declaration]";

describe('LlmStrategy in the agent loop', () => {
  it('a model that needs three turns (install a package, then patch a file) gets distilled root causes within the prompt budget', async () => {
    const provider = new ScriptedProvider([
      runScript(
        'set -euo pipefail\ncmake -S /workspace -B /workspace/build\ncmake --build /workspace/build -j"$(nproc)"',
        'cmake build',
      ),
      runScript(
        'set -euo pipefail\napt-get update\napt-get install -y zlib1g-dev\ncmake --build /workspace/build',
        'install zlib1g-dev and rebuild',
      ),
      runScript(
        "set -euo pipefail\nsed -i 's/strlcpy/strncpy/' /workspace/src/util.c\ncmake --build /workspace/build",
        'patch strlcpy and rebuild',
      ),
    ]);
    const calls: ModelCall[] = [];
    const strategy = new LlmStrategy({
      session: openSession(provider),
      instructions: 'Install zlib, then run cmake.',
      onModelCall: (c) => calls.push(c),
    });
    const sandbox = new FakeSandbox((_script, n) =>
      n === 0
        ? { exitCode: 2, output: buildLog(2_000_000, MISSING_ZLIB) }
        : n === 1
          ? { exitCode: 2, output: buildLog(50_000, STRLCPY) }
          : { exitCode: 0, output: '[100%] Built target app\n' },
    );
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => sandbox.scripts.length >= 3),
      limits(),
    );

    expect(outcome.end.kind).toBe('verified');
    expect(sandbox.scripts).toHaveLength(3);
    expect(sandbox.scripts[1]).toContain('apt-get install -y zlib1g-dev');
    expect(outcome.history.map((r) => r.action.kind === 'run' && r.action.purpose)).toEqual([
      'cmake build',
      'install zlib1g-dev and rebuild',
      'patch strlcpy and rebuild',
    ]);

    const [first, second, third] = provider.prompts;
    expect(first).toContain('Nothing yet: this is the first script.');
    expect(first).toContain(
      'Expected binaries (inferred from the build files): app (executable, CMakeLists.txt:3)',
    );
    expect(first).toContain('Install zlib, then run cmake.');
    expect(first).toContain('cmake (CMakeLists.txt)');
    // Turn 2 sees the distilled root cause of turn 1, its excerpt and the log tail — not the 2 MB log.
    expect(second).toContain('Root cause: missing header zlib.h [missing-header');
    expect(second).toContain(MISSING_ZLIB);
    expect(second).toContain("Verifiers: not passed: expected binary 'app' (inferred) was not produced");
    expect(second).toContain('<<<UNTRUSTED end of the log>>>');
    expect(second!.length).toBeLessThan(32_000);
    // Turn 3: the new root cause in full, the old one still there in brief.
    expect(third).toContain('Root cause: implicit declaration of strlcpy is an error in newer compilers');
    expect(third).toContain('missing header zlib.h');
    expect(third).toContain('### Turn 2 (latest script): install zlib1g-dev and rebuild');

    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.promptTokens).toBeLessThanOrEqual(8000);
    expect(strategy.usage()).toMatchObject({ calls: 3, outputTokens: 150 });
    expect(outcome.history.some((r) => r.action.kind === 'finish')).toBe(false);
  });

  it('a SUCCESS claimed too early is refused by the gate and the refusal reaches the model', async () => {
    const provider = new ScriptedProvider([
      finish('SUCCESS', 'the README says it builds'),
      runScript('cmake -S /workspace -B /workspace/build && cmake --build /workspace/build', 'cmake build'),
    ]);
    const strategy = new LlmStrategy({ session: openSession(provider), instructions: '' });
    const sandbox = new FakeSandbox(() => ({ exitCode: 0, output: 'ok\n' }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => sandbox.scripts.length >= 1),
      limits(),
    );

    expect(outcome.end.kind).toBe('verified');
    expect(outcome.history[0]!.action).toEqual({
      kind: 'finish',
      claim: 'success',
      reason: 'the README says it builds',
    });
    expect(outcome.history[0]!.notes[0]).toMatch(/finish\(success\) refused by the verifiers/);
    expect(provider.prompts[1]).toContain('finish(SUCCESS): the README says it builds');
    expect(provider.prompts[1]).toContain(
      "refused by the verifiers: expected binary 'app' (inferred) was not produced",
    );
    expect(provider.prompts[0]).toContain('(none found: work from the build files)');
  });

  it('a model that repeats the same failing script is stopped by the stuck detector', async () => {
    const provider = new ScriptedProvider(() => runScript('make -C /workspace', 'make'));
    const strategy = new LlmStrategy({ session: openSession(provider), instructions: 'make' });
    const sandbox = new FakeSandbox(() => ({
      exitCode: 2,
      output: `${MISSING_ZLIB}\nmake: *** [all] Error 2\n`,
    }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => false),
      limits(),
    );
    expect(outcome.end.kind).toBe('stuck');
    expect(sandbox.scripts).toHaveLength(2);
    expect(outcome.rootCause?.id).toBe('missing-header');
  });

  it('stops calling the model when the token budget is spent and finishes partial', async () => {
    const provider = new ScriptedProvider(() => runScript('make -C /workspace V=1', 'make'));
    const budget = new Budget({ maxTokens: 2500 });
    let n = 0;
    const strategy = new LlmStrategy({ session: openSession(provider, { budget }), instructions: 'make' });
    const sandbox = new FakeSandbox(() => ({ exitCode: 2, output: `error ${n++}: something\n` }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => false),
      limits(),
    );

    expect(provider.requests).toHaveLength(1);
    expect(outcome.claim?.claim).toBe('partial');
    expect(outcome.claim?.reason).toMatch(/^token budget exhausted/);
    // No binaries: the budget stop ends the loop as a limit (the run's status: limits_exceeded).
    expect(outcome.end).toEqual({
      kind: 'limit',
      limit: 'budget',
      reason: outcome.claim?.reason,
    });
    expect(outcome.history.at(-1)?.action).toMatchObject({ stop: { cause: 'budget' } });
    expect(strategy.usage().exhausted).toMatch(/^token budget/);
    expect(strategy.usage().calls).toBe(1);
  });

  it('re-asks after malformed tool arguments and a reply without a tool call, then runs the script', async () => {
    const provider = new ScriptedProvider([
      {
        raw: {
          toolCalls: [{ id: 'a', name: 'run_script', arguments: '{"script": "make' }],
          stopReason: 'tool_calls',
        },
      },
      { text: 'I would run make.' },
      runScript('make -C /workspace', 'make'),
    ]);
    const calls: ModelCall[] = [];
    const strategy = new LlmStrategy({
      session: openSession(provider),
      instructions: '',
      promptTokens: 3000,
      onModelCall: (c) => calls.push(c),
    });
    const action = await strategy.next({ ...base, turn: 0, history: [] });
    expect(action).toMatchObject({ kind: 'run', script: 'make -C /workspace', purpose: 'make' });
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    for (const call of calls) expect(call.promptTokens).toBeLessThanOrEqual(3000);
    expect(calls[2]!.prompt).toBe(provider.prompts[2]);
    expect(provider.prompts[1]).toContain(
      'Your previous reply could not be used: the arguments of run_script were not a JSON object',
    );
    expect(provider.prompts[2]).toContain(
      'Your previous reply could not be used: the reply had no tool call',
    );
  });

  it('finishes impossible with a reason when the model never gives a usable tool call, and the run ends cleanly', async () => {
    const provider = new ScriptedProvider(() => ({ tool: 'run_script', args: { purpose: 'no script' } }));
    const strategy = new LlmStrategy({ session: openSession(provider), instructions: '', maxReasks: 2 });
    const sandbox = new FakeSandbox(() => ({ exitCode: 0 }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => false),
      limits(),
    );
    expect(provider.requests).toHaveLength(3);
    expect(outcome.end).toMatchObject({ kind: 'claim', passed: false, completion: false });
    expect(outcome.claim?.claim).toBe('impossible');
    expect(outcome.claim?.reason).toMatch(/no usable tool call in 3 attempts: run_script needs `script`/);
    // Not a budget or provider stop: an ordinary IMPOSSIBLE claim (the run's status: failed).
    expect(outcome.history.at(-1)?.action).not.toHaveProperty('stop');
  });

  it('turns a provider failure (after the SDK retries) into finish(impossible) with stop cause provider_error', async () => {
    const provider = new ScriptedProvider([
      { throw: new ProviderError('openai API error 529: overloaded', 529, true) },
    ]);
    const strategy = new LlmStrategy({ session: openSession(provider), instructions: '' });
    const action = await strategy.next({ ...base, turn: 0, history: [] });
    expect(action).toEqual({
      kind: 'finish',
      claim: 'impossible',
      reason: 'the model provider failed: openai API error 529: overloaded',
      stop: {
        cause: 'provider_error',
        reason: 'the model provider failed: openai API error 529: overloaded',
      },
    });
    expect(strategy.usage()).toMatchObject({ calls: 0, failedCalls: 1 });
  });

  it('keeps the API key out of prompts and scripts', async () => {
    const provider = new ScriptedProvider([
      runScript(`export OPENAI_API_KEY=${KEY}\nmake`, `use ${KEY}`),
      runScript('make', 'make'),
    ]);
    const strategy = new LlmStrategy({
      session: openSession(provider, { secrets: [KEY] }),
      instructions: `a README quoting ${KEY}`,
    });
    // the first script fails, the second runs through with the binaries
    const sandbox = new FakeSandbox((_s, n) => ({
      exitCode: n === 0 ? 1 : 0,
      output: `token ${KEY} leaked\n`,
    }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => sandbox.scripts.length >= 2),
      limits(),
    );
    expect(outcome.end.kind).toBe('verified');
    expect(sandbox.scripts[0]).toBe('export OPENAI_API_KEY=[REDACTED]\nmake');
    for (const request of provider.requests) {
      expect(JSON.stringify(request)).not.toContain(KEY);
    }
    expect(JSON.stringify(outcome.history)).not.toContain(`use ${KEY}`);
  });

  it('uses the configured build type and install prefix in the system prompt', async () => {
    const provider = new ScriptedProvider([runScript('make', 'make')]);
    const strategy = new LlmStrategy({
      session: openSession(provider),
      instructions: '',
      buildType: 'debug',
    });
    await strategy.next({ ...base, turn: 0, history: [] });
    const system = provider.requests[0]!.system;
    expect(system).toContain('-DCMAKE_BUILD_TYPE=Debug');
    expect(system).toContain('--prefix=/workspace/_install');
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(['run_script', 'finish']);
  });
});

describe('HybridStrategy', () => {
  it('runs the rules first and hands over to the model, with the rules attempts in its history', async () => {
    const provider = new ScriptedProvider([
      runScript(
        'set -e\napt-get install -y zlib1g-dev\ncmake -S /workspace -B /workspace/build && cmake --build /workspace/build',
        'zlib + cmake',
      ),
    ]);
    const strategy = HybridStrategy.create(
      NO_KNOWLEDGE,
      {},
      { session: openSession(provider), instructions: 'cmake' },
    );
    const sandbox = new FakeSandbox((_s, n) =>
      n === 0 ? { exitCode: 2, output: `${MISSING_ZLIB}\n` } : { exitCode: 0, output: 'done\n' },
    );
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => sandbox.scripts.length >= 2),
      limits(),
    );

    expect(outcome.end.kind).toBe('verified');
    expect(outcome.history[0]!.action).toMatchObject({ kind: 'run', purpose: 'cmake' });
    expect(strategy.handoffTurn).toBe(1);
    expect(provider.requests).toHaveLength(1);
    const prompt = provider.prompts[0]!;
    expect(prompt).toContain('The rule-based recipes (turns 1–1) stopped without the verifiers passing');
    expect(prompt).toContain('### Turn 1 (latest script): cmake');
    expect(prompt).toContain('Root cause: missing header zlib.h');
    expect(strategy.usage().calls).toBe(1);
  });

  it('gives the model the remaining turns when the rules use their share', async () => {
    const provider = new ScriptedProvider(() => finish('IMPOSSIBLE', 'needs a proprietary SDK'));
    let n = 0;
    const rules: Strategy = {
      name: 'rules',
      next: () =>
        Promise.resolve({ kind: 'run', script: `make step${n++}`, purpose: 'make', reason: 'rules' }),
    };
    const { LlmStrategy: Llm } = await import('../../../src/agent/strategies/llm.js');
    const strategy = new HybridStrategy(
      rules,
      new Llm({ session: openSession(provider), instructions: '' }),
      { rulesTurns: 2 },
    );
    const sandbox = new FakeSandbox((_s, i) => ({ exitCode: 2, output: `error ${i}\n` }));
    const outcome = await runAgentLoop(
      base,
      deps(strategy, sandbox, () => false),
      limits(),
    );
    expect(sandbox.scripts).toEqual(['make step0', 'make step1']);
    expect(outcome.claim).toEqual({ claim: 'impossible', reason: 'needs a proprietary SDK', turn: 2 });
    expect(provider.prompts[0]).toContain('The rule-based recipes used their 2 turns');
  });
});
