import { describe, expect, it } from '@jest/globals';
import { runAgentLoop, type LoopDeps } from '../../../src/agent/loop.js';
import type { Action, Strategy, TurnContext, Verdict } from '../../../src/agent/types.js';
import { EventBus, type RunEvent } from '../../../src/agent/events.js';
import type { Finding, LogAnalysis } from '../../../src/knowledge/diagnose/types.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { repoInfo } from '../../fakes/repo-info.js';

class Scripted implements Strategy {
  readonly name = 'scripted';
  readonly seen: TurnContext[] = [];
  constructor(private readonly actions: Action[]) {}
  next(context: TurnContext): Promise<Action> {
    this.seen.push(context);
    const a = this.actions[Math.min(context.turn, this.actions.length - 1)]!;
    return Promise.resolve(a);
  }
}

const run = (script: string): Action => ({ kind: 'run', script, purpose: script, reason: 'test' });
const verdict = (passed: boolean, completion = passed): Verdict => ({
  passed,
  metrics: { completion, strict: passed, flexible: passed, matched: [], missing: passed ? [] : ['x'] },
  failures: passed ? [] : ["expected binary 'x' (cli) was not produced"],
});
const finding = (message: string): Finding => ({
  id: 'compile-error',
  category: 'compile-error',
  message,
  captures: {},
  line: 1,
  excerpt: message,
});

function deps(
  strategy: Strategy,
  sandbox: FakeSandbox,
  passAfter: number,
  events = new EventBus(),
): LoopDeps {
  return {
    strategy,
    sandbox,
    events,
    analyze: (output): Promise<LogAnalysis> =>
      Promise.resolve(
        output
          ? { findings: [finding(output)], rootCause: finding(output), lines: 1, bytes: output.length }
          : { findings: [], lines: 0, bytes: 0 },
      ),
    verify: () => {
      return Promise.resolve({ artifacts: [], verdict: verdict(sandbox.scripts.length > passAfter) });
    },
  };
}

const base = {
  maxTurns: 5,
  repo: repoInfo(),
  expected: { names: ['x'], source: 'cli' as const },
  workdir: '/workspace',
};
const limits = { maxTurns: 5, deadline: Date.now() + 60_000, turnTimeoutMs: 10_000, logDir: '/tmp' };

describe('agent loop', () => {
  it('ends with success as soon as the verifiers pass, never before', async () => {
    const sandbox = new FakeSandbox((_s, n) => ({
      exitCode: n === 0 ? 2 : 0,
      output: n === 0 ? 'boom' : '',
    }));
    const strategy = new Scripted([run('a'), run('b'), run('c')]);
    const events: RunEvent[] = [];
    const bus = new EventBus();
    bus.on((e) => events.push(e));
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 1, bus), limits);
    expect(outcome.status).toBe('success');
    expect(sandbox.scripts).toEqual(['a', 'b']);
    expect(outcome.history).toHaveLength(2);
    expect(outcome.history[0]!.observation!.rootCause!.message).toBe('boom');
    expect(strategy.seen[1]!.history[0]!.observation!.exec.exitCode).toBe(2);
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'turn_end', 'turn_start', 'turn_end']);
  });

  it('refuses a SUCCESS claim the verifiers do not back and feeds the failure back', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 0 }));
    const strategy = new Scripted([
      { kind: 'finish', claim: 'success', reason: 'I think it built' },
      { kind: 'finish', claim: 'impossible', reason: 'giving up' },
    ]);
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99), limits);
    expect(outcome.status).toBe('failed');
    expect(outcome.history[0]!.notes[0]).toMatch(
      /finish\(success\) refused by the verifiers: expected binary 'x'/,
    );
    expect(strategy.seen[1]!.history[0]!.notes).toHaveLength(1);
    expect(outcome.claim).toEqual({ claim: 'impossible', reason: 'giving up', turn: 1 });
  });

  it('stops a strategy that repeats the same failing script', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: 'same error' }));
    const outcome = await runAgentLoop(base, deps(new Scripted([run('again')]), sandbox, 99), limits);
    expect(outcome.status).toBe('stuck');
    expect(sandbox.scripts).toHaveLength(2);
  });

  it('enforces the turn limit and the wall-clock deadline', async () => {
    let n = 0;
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: `error ${n++}` }));
    const strategy = { name: 'varied', next: (c: TurnContext) => Promise.resolve(run(`s${c.turn}`)) };
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99), { ...limits, maxTurns: 3 });
    expect(outcome.status).toBe('limits_exceeded');
    expect(sandbox.scripts).toHaveLength(3);
    const late = await runAgentLoop(base, deps(strategy, new FakeSandbox(() => ({})), 99), {
      ...limits,
      deadline: Date.now() - 1,
    });
    expect(late.status).toBe('limits_exceeded');
    expect(late.reason).toMatch(/wall-clock/);
  });

  it('passes the remaining time as the script timeout and reports cancellation', async () => {
    const controller = new AbortController();
    const sandbox = new FakeSandbox((_s, _n, options) => {
      expect(options.timeoutMs).toBeLessThanOrEqual(10_000);
      controller.abort();
      return { exitCode: 137, cancelled: true };
    });
    const outcome = await runAgentLoop(base, deps(new Scripted([run('a')]), sandbox, 99), {
      ...limits,
      signal: controller.signal,
    });
    expect(outcome.status).toBe('cancelled');
  });
});
