/**
 * The model strategies on a deploy run (`TurnContext.goal`): the deploy system prompt and finish tool, the
 * target experiment and its evidence as the goal, the ecosystems and the DEPLOY_ENV_FILE convention; hybrid
 * runs the deploy recipes first and hands their attempts to the model. The last part is the whole run
 * (runBuild) with the real OpenAI and Anthropic SDKs against the fake model server and a hidden verifier:
 * nothing of the hidden spec reaches any request the server receives.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runAgentLoop, type LoopDeps } from '../../../src/agent/loop.js';
import { describeDeployGoal, describeEcosystems } from '../../../src/agent/strategies/deploy-prompt.js';
import { HybridStrategy } from '../../../src/agent/strategies/hybrid.js';
import { LlmStrategy, type ModelCall } from '../../../src/agent/strategies/llm.js';
import type { Strategy } from '../../../src/agent/types.js';
import { runBuild } from '../../../src/core/run-build.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import type { BuildResult } from '../../../src/report/result.js';
import { DEPLOY_ENV_FILE, type DeployGoal } from '../../../src/deploy/types.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import { NO_KNOWLEDGE } from '../../../src/knowledge/repair/repair.js';
import { openSession } from '../../../src/llm/session.js';
import type { RepoInfo } from '../../../src/repo/types.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { FakeLlmServer, type FakeReply, type RecordedRequest } from '../../fakes/fake-llm-server.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { repoInfo } from '../../fakes/repo-info.js';
import { finish, promptOf, runScript, ScriptedProvider } from '../../fakes/scripted-provider.js';
import { offeredTools } from '../../fakes/serve-fake-llm.js';

const goal: DeployGoal = {
  target: {
    command: 'python3 analysis.py --out results/metrics.json',
    cwd: 'experiments',
    timeoutMs: 600_000,
    evidence: {
      files: ['results/metrics.json'],
      output: ['^accuracy: [0-9.]+$'],
      metrics: [{ file: 'results/metrics.json', key: 'scores.accuracy', min: 0.8 }],
    },
  },
  requires: [],
  registries: { mode: 'auto', mirrors: { PIP_INDEX_URL: 'https://user:pw@mirror.example/simple' } },
  paper: { title: 'A tiny analysis', url: 'https://example.org/paper' },
};

const repo: RepoInfo = repoInfo({
  name: 'paper',
  languages: { python: 3 },
  ecosystems: [
    {
      kind: 'python',
      manifests: ['requirements.txt'],
      dependencies: [
        { name: 'numpy', constraint: '<1.20', manifest: 'requirements.txt:1' },
        { name: 'pytest', manifest: 'requirements.txt:2', dev: true },
      ],
      runtime: { name: 'python', version: '3.8', why: 'numpy<1.20 has no wheel for newer Pythons' },
      notes: [],
    },
  ],
});

const base = {
  maxTurns: 4,
  repo,
  expected: { names: [], source: 'inferred' as const },
  workdir: '/workspace',
  goal,
};
const limits = { maxTurns: 4, deadline: Date.now() + 60_000, turnTimeoutMs: 10_000, logDir: '/tmp' };

function loopDeps(strategy: Strategy, sandbox: FakeSandbox, passWhen: () => boolean): LoopDeps {
  return {
    strategy,
    sandbox,
    emit: () => undefined,
    analyze: (output) => Promise.resolve(analyzeLog(output)),
    verify: () => {
      const passed = passWhen();
      return Promise.resolve({
        artifacts: [],
        verdict: {
          passed,
          metrics: { completion: passed, strict: passed, flexible: passed, matched: [], missing: [] },
          failures: passed ? [] : ['target: results/metrics.json was not written'],
        },
      });
    },
  };
}

describe('the deploy prompt', () => {
  it('states the target, its evidence, the paper, the registries (mirror names only) and the env file', () => {
    const text = describeDeployGoal(goal, '/workspace');
    expect(text).toContain('`python3 analysis.py --out results/metrics.json`');
    expect(text).toContain('runs in /workspace/experiments, with a time limit of 10 min');
    expect(text).toContain('results/metrics.json');
    expect(text).toContain('/^accuracy: [0-9.]+$/');
    expect(text).toContain('`scores.accuracy`');
    expect(text).toContain('of at least 0.8');
    expect(text).toContain('A tiny analysis');
    expect(text).toContain(`/workspace/${DEPLOY_ENV_FILE}`);
    expect(text).toContain('PIP_INDEX_URL');
    expect(text).not.toContain('mirror.example'); // a mirror's value may carry credentials
  });

  it('describes a guest to boot and what the task requires', () => {
    const text = describeDeployGoal(
      {
        ...goal,
        requires: ['kvm'],
        guest: { kind: 'kernel', image: 'arch/x86/boot/bzImage', pattern: 'login:', withinMs: 120_000 },
      },
      '/workspace',
    );
    expect(text).toContain('The task needs: kvm.');
    expect(text).toContain(
      'Guest: a kernel image at arch/x86/boot/bzImage, booted under QEMU; its serial console must match /login:/ within 2 min.',
    );
  });

  it('lists the ecosystems as quoted repository data, dev dependencies left out', () => {
    const text = describeEcosystems(repo, 'full');
    expect(text).toMatch(/^<<<UNTRUSTED ecosystems/);
    expect(text).toContain('python: requirements.txt; runtime python 3.8');
    expect(text).toContain('numpy <1.20');
    expect(text).not.toContain('pytest');
    expect(describeEcosystems(repoInfo(), 'full')).toContain('none recognised');
  });

  it('llm: the deploy system prompt and finish tool; the model is told what the checks still miss', async () => {
    const provider = new ScriptedProvider([
      runScript('python3 -m venv .venv', 'venv'),
      finish('SUCCESS', 'the target ran'),
      runScript('mkdir -p results && echo ok', 'run the target'),
    ]);
    const calls: ModelCall[] = [];
    const strategy = new LlmStrategy({
      session: openSession(provider),
      instructions: 'Run analysis.py.',
      onModelCall: (c) => calls.push(c),
    });
    const sandbox = new FakeSandbox(() => ({ exitCode: 0, output: 'done\n' }));
    const outcome = await runAgentLoop(
      base,
      loopDeps(strategy, sandbox, () => sandbox.scripts.length >= 2),
      limits,
    );

    expect(outcome.end.kind).toBe('verified');
    expect(calls[0]!.system).toContain('You are the deploy engineer of buildbench');
    expect(calls[0]!.system).toContain(`/workspace/${DEPLOY_ENV_FILE}`);
    expect(calls[0]!.system).not.toContain('expected binaries');
    const finishTool = provider.requests[0]!.tools.find((t) => t.name === 'finish')!;
    expect(finishTool.description).toContain('target experiment runs and leaves its evidence');
    const first = promptOf(provider.requests[0]!);
    expect(first).toContain('Target experiment: `python3 analysis.py --out results/metrics.json`');
    expect(first).toContain('numpy <1.20');
    // The finish claim was judged by the checks, and the refusal is what the model sees next.
    expect(promptOf(provider.requests[2]!)).toContain('target: results/metrics.json was not written');
  });

  it('a build run keeps the build prompt', async () => {
    const provider = new ScriptedProvider([finish('IMPOSSIBLE', 'no')]);
    const strategy = new LlmStrategy({ session: openSession(provider), instructions: '' });
    await strategy.next({ ...base, goal: undefined, turn: 0, history: [] });
    expect(provider.requests[0]!.system).toContain('You are the build engineer');
    expect(promptOf(provider.requests[0]!)).not.toContain('Target experiment');
  });

  it('hybrid: the deploy recipe (rules) runs first, then the model with its attempt in the history', async () => {
    const provider = new ScriptedProvider([runScript('pip install numpy', 'install')]);
    const strategy = HybridStrategy.create(
      NO_KNOWLEDGE,
      {},
      {
        session: openSession(provider),
        instructions: '',
      },
      { rulesTurns: 1 },
    );
    const sandbox = new FakeSandbox((_s, n) =>
      n === 0 ? { exitCode: 1, output: "ModuleNotFoundError: No module named 'numpy'\n" } : { exitCode: 0 },
    );
    const outcome = await runAgentLoop(
      base,
      loopDeps(strategy, sandbox, () => sandbox.scripts.length >= 2),
      limits,
    );
    expect(outcome.end.kind).toBe('verified');
    expect(outcome.history[0]!.action).toMatchObject({ kind: 'run', recipe: expect.anything() });
    expect(strategy.handoffTurn).toBe(1);
    const prompt = promptOf(provider.requests[0]!);
    expect(prompt).toContain('The rule-based recipes used their 1 turns');
    expect(prompt).toContain('### Turn 1');
    expect(prompt).toContain('Target experiment:');
    expect(provider.requests[0]!.system).toContain('deploy engineer');
  });
});

// ---------------------------------------------------------------------------------------------------------
// The whole run, the real SDKs, a hidden verifier

const HIDDEN_COMMAND = 'python3 hidden_checker_7f3a.py --compare golden_ref_91c2.csv';
const HIDDEN_PATTERN = 'SECRET_ACCEPTANCE_PATTERN_4b1e';
const HIDDEN_FILE = 'golden_output_d8e0.json';

describe('a deploy run with a hidden verifier, against the fake model server', () => {
  let server: FakeLlmServer;
  const root = mkdtempSync(path.join(tmpdir(), 'bb-deploy-llm-'));
  const repoDir = path.join(root, 'repo');
  const specFile = path.join(root, 'hidden.yml');

  beforeAll(async () => {
    server = await FakeLlmServer.start();
    mkdirSync(path.join(repoDir, 'experiments'), { recursive: true });
    writeFileSync(path.join(repoDir, 'requirements.txt'), 'numpy\n');
    writeFileSync(path.join(repoDir, 'experiments', 'analysis.py'), 'print("accuracy: 0.9")\n');
    writeFileSync(path.join(repoDir, 'README.md'), '# paper\nRun experiments/analysis.py.\n');
    writeFileSync(
      specFile,
      [
        'name: hidden-acceptance',
        'hidden: true',
        'checks:',
        '  - name: compares with the golden results',
        `    command: ${HIDDEN_COMMAND}`,
        '    expect:',
        `      stdout: ['${HIDDEN_PATTERN}']`,
        `      files: [${HIDDEN_FILE}]`,
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Retrieval gets the README; the first turn runs a script, the next claims SUCCESS, then gives up. */
  function model(): (request: RecordedRequest) => FakeReply {
    let turns = 0;
    return (request) => {
      if (offeredTools(request).includes('report_instructions'))
        return {
          toolCalls: [
            {
              name: 'report_instructions',
              arguments: { instructions: 'run it', sufficient: true, links: [] },
            },
          ],
          usage: { input: 100, output: 10 },
        };
      turns++;
      const call =
        turns === 1
          ? { name: 'run_script', arguments: { script: 'python3 experiments/analysis.py', purpose: 'run' } }
          : turns === 2
            ? { name: 'finish', arguments: { status: 'SUCCESS', reason: 'the target ran' } }
            : { name: 'finish', arguments: { status: 'PARTIAL', reason: 'nothing more to try' } };
      return { toolCalls: [call], usage: { input: 500, output: 20 } };
    };
  }

  async function deploy(
    strategy: 'llm' | 'hybrid',
    api: 'openai' | 'anthropic',
  ): Promise<{ requests: RecordedRequest[]; result: BuildResult }> {
    server.handler = model();
    const before = server.requests.length;
    const settings: BuildSettings = {
      source: repoDir,
      outDir: path.join(root, `out-${strategy}-${api}`),
      strategy,
      maxTurns: 4,
      timeoutMs: 60_000,
      turnTimeoutMs: 10_000,
      expect: [],
      json: false,
      keep: false,
      sandbox: { ...defaultSandboxSettings({ HOME: root }), choice: 'host', allowHost: true },
      model: {
        model: `${api}:test-model`,
        apiKey: 'sk-test-key-0123456789',
        baseUrl: api === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
        maxRetries: 0,
      },
      spec: specFile,
      deploy: goal,
    };
    let n = 0;
    const result = await runBuild(
      settings,
      {},
      {
        createSandbox: (_s, request) => {
          const tree = path.join(root, `tree-${strategy}-${api}-${n++}`);
          cpSync(request.repoDir, tree, { recursive: true });
          const box = new (class extends FakeSandbox {
            override readonly hostWorkdir = tree;
          })(() => ({ exitCode: 0, output: 'accuracy: 0.9\n' }));
          return Promise.resolve(box);
        },
      },
    );
    return { requests: server.requests.slice(before), result };
  }

  it.each([
    ['llm', 'openai'],
    ['hybrid', 'anthropic'],
  ] as const)(
    '%s through %s: the target reaches the model, the hidden spec never does',
    async (strategy, api) => {
      const { requests, result } = await deploy(strategy, api);
      // The hidden spec was part of the run: it ran once, after the loop (its command fails on the fake box).
      expect(result.verification?.spec).toMatchObject({ hidden: true });
      const turns = requests.filter((r) => offeredTools(r).includes('run_script'));
      expect(turns.length).toBeGreaterThan(0);
      expect(turns.every((r) => r.api === api)).toBe(true);
      expect(turns[0]!.raw).toContain('python3 analysis.py --out results/metrics.json');
      for (const request of requests) {
        for (const secret of [
          HIDDEN_COMMAND,
          'hidden_checker_7f3a',
          'golden_ref_91c2',
          HIDDEN_PATTERN,
          HIDDEN_FILE,
          'hidden-acceptance',
          'compares with the golden',
        ])
          expect(request.raw).not.toContain(secret);
      }
    },
  );
});
