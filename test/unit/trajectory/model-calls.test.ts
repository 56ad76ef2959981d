/** Model calls reach trajectory.jsonl: the session's onModelCall → a model_call event → the redacting recorder. */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { EventBus, modelCallEvent } from '../../../src/agent/events.js';
import { runAgentLoop } from '../../../src/agent/loop.js';
import { LlmStrategy } from '../../../src/agent/strategies/llm.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import { openSession } from '../../../src/llm/session.js';
import type { Verdict } from '../../../src/verify/types.js';
import { readTrajectory, TrajectoryRecorder } from '../../../src/trajectory/recorder.js';
import { createRedactor, REDACTED } from '../../../src/trajectory/redact.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { repoInfo } from '../../fakes/repo-info.js';
import { runScript, ScriptedProvider } from '../../fakes/scripted-provider.js';

const KEY = 'sk-proj-' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bb-model-calls-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const verdict = (passed: boolean): Verdict => ({
  passed,
  metrics: { completion: passed, strict: passed, flexible: passed, matched: [], missing: [] },
  failures: passed ? [] : ['no binary yet'],
});

describe('model calls in the trajectory', () => {
  it('records each call with its prompt and reply, redacted, before the turn it produced', async () => {
    const provider = new ScriptedProvider([
      runScript(`make # ${KEY}`, 'make'),
      runScript('make install', 'install'),
    ]);
    const session = openSession(provider, { limits: { maxTokens: 1_000_000 }, secrets: [] });
    const file = path.join(dir, 'trajectory.jsonl');
    const recorder = new TrajectoryRecorder(file, { redact: createRedactor([KEY]) });
    const events = new EventBus();
    events.on((event) => recorder.record(event.type, event));
    session.onModelCall((call) => events.emit(modelCallEvent(call)));

    const sandbox = new FakeSandbox(() => ({ exitCode: 0, output: 'ok\n' }));
    const outcome = await runAgentLoop(
      { maxTurns: 4, repo: repoInfo(), expected: { names: [], source: 'none' }, workdir: '/workspace' },
      {
        strategy: new LlmStrategy({ session, instructions: `README mentions ${KEY}` }),
        sandbox,
        analyze: (output) => Promise.resolve(analyzeLog(output)),
        verify: () => Promise.resolve({ artifacts: [], verdict: verdict(sandbox.scripts.length >= 2) }),
        emit: (event) => events.emit(event),
      },
      { maxTurns: 4, deadline: Date.now() + 60_000, turnTimeoutMs: 10_000, logDir: dir },
    );
    recorder.close();
    expect(outcome.end.kind).toBe('verified');
    expect(events.failure()).toBeUndefined();

    const trajectory = await readTrajectory(file);
    expect(trajectory.map((e) => e.type).filter((t) => t !== 'header')).toEqual([
      'model_call',
      'turn_start',
      'turn_end',
      'model_call',
      'turn_start',
      'turn_end',
    ]);
    const first = trajectory.find((e) => e.type === 'model_call')!.data as Record<string, unknown>;
    expect(first).toMatchObject({
      type: 'model_call',
      provider: 'scripted',
      model: 'scripted-model',
      tools: ['run_script', 'finish'],
      maxTokens: 4096,
    });
    expect(first.system).toContain('/workspace');
    const messages = first.messages as { role: string; content: string }[];
    expect(messages[0]!.role).toBe('user');
    expect(messages[0]!.content).toBe(provider.prompts[0]!.replace(KEY, REDACTED));
    const reply = first.reply as { toolCalls: { name: string; arguments: { script: string } }[] };
    expect(reply.toolCalls[0]!.name).toBe('run_script');
    // The reply is recorded as the model gave it, and redacted like everything else.
    expect(reply.toolCalls[0]!.arguments.script).toBe(`make # ${REDACTED}`);
    expect(JSON.stringify(trajectory)).not.toContain(KEY);
  });

  it('records a call the budget refused', async () => {
    const session = openSession(new ScriptedProvider([runScript('make', 'make')]), {
      limits: { maxTokens: 10 },
    });
    const seen: unknown[] = [];
    session.onModelCall((call) => seen.push(modelCallEvent(call)));
    const strategy = new LlmStrategy({ session, instructions: '' });
    const action = await strategy.next({
      turn: 0,
      maxTurns: 2,
      history: [],
      repo: repoInfo(),
      expected: { names: [], source: 'none' },
      workdir: '/workspace',
    });
    expect(action).toMatchObject({ kind: 'finish', claim: 'partial', stop: { cause: 'budget' } });
    expect(seen).toEqual([
      expect.objectContaining({
        type: 'model_call',
        refused: true,
        error: expect.stringMatching(/^token budget exhausted/),
      }),
    ]);
  });
});
