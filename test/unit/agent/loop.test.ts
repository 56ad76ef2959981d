import { describe, expect, it } from '@jest/globals';
import { runAgentLoop, type LoopDeps } from '../../../src/agent/loop.js';
import type { Action, Strategy, TurnContext } from '../../../src/agent/types.js';
import type { Verdict } from '../../../src/verify/types.js';
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
    emit: (event) => events.emit(event),
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
    expect(outcome.end).toEqual({
      kind: 'verified',
      turn: 1,
      reason: 'the verifiers passed after turn 1 (b)',
    });
    expect(sandbox.scripts).toEqual(['a', 'b']);
    expect(outcome.history).toHaveLength(2);
    expect(outcome.history[0]!.observation!.rootCause!.message).toBe('boom');
    expect(strategy.seen[1]!.history[0]!.observation!.exec.exitCode).toBe(2);
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'turn_end', 'turn_start', 'turn_end']);
  });

  it('asks for a fresh sandbox before each later turn (never turn 0) and marks the turns that got one', async () => {
    // two failed scripts, then one that runs through with the binaries
    const sandbox = new FakeSandbox((_s, n) => (n < 2 ? { exitCode: 1, output: 'boom' } : { exitCode: 0 }));
    const asked: [number, string, number][] = [];
    const outcome = await runAgentLoop(
      base,
      {
        ...deps(new Scripted([run('a'), run('b'), run('c')]), sandbox, 2),
        freshSandbox: (turn, action, history) => {
          asked.push([turn, action.script, history.length]);
          // Before the hook, nothing of this turn has run: the history holds the earlier turns only.
          return Promise.resolve(turn === 1);
        },
      },
      limits,
    );
    expect(outcome.end.kind).toBe('verified');
    expect(asked).toEqual([
      [1, 'b', 1],
      [2, 'c', 2],
    ]);
    expect(outcome.history.map((r) => r.freshSandbox)).toEqual([undefined, true, undefined]);
  });

  it('refuses a SUCCESS claim the verifiers do not back and feeds the failure back', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 0 }));
    const strategy = new Scripted([
      { kind: 'finish', claim: 'success', reason: 'I think it built' },
      { kind: 'finish', claim: 'impossible', reason: 'giving up' },
    ]);
    const events: RunEvent[] = [];
    const bus = new EventBus();
    bus.on((e) => events.push(e));
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99, bus), limits);
    expect(outcome.end).toMatchObject({ kind: 'claim', passed: false, completion: false });
    // The refused claim is a step of its own in the trajectory, with the gate's note.
    expect(events.map((e) => e.type)).toEqual(['claim', 'step', 'claim']);
    expect(events[1]).toMatchObject({
      type: 'step',
      turn: 0,
      action: { kind: 'finish', claim: 'success' },
      notes: [expect.stringMatching(/^finish\(success\) refused by the verifiers/)],
    });
    expect(outcome.history[0]!.notes[0]).toMatch(
      /finish\(success\) refused by the verifiers: expected binary 'x'/,
    );
    expect(strategy.seen[1]!.history[0]!.notes).toHaveLength(1);
    expect(outcome.claim).toEqual({ claim: 'impossible', reason: 'giving up', turn: 1 });
  });

  it("refuses a claim the run's refuseClaim refuses (never a backed one), feeds the reason back, then accepts", async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: 'boom' }));
    const strategy = new Scripted([
      run('a'),
      { kind: 'finish', claim: 'impossible', reason: 'nothing left' },
      run('b'),
      { kind: 'finish', claim: 'impossible', reason: 'nothing left' },
    ]);
    const asked: [string, number][] = [];
    const events: RunEvent[] = [];
    const bus = new EventBus();
    bus.on((e) => events.push(e));
    const outcome = await runAgentLoop(
      base,
      {
        ...deps(strategy, sandbox, 99, bus),
        refuseClaim: (claim, history) => {
          asked.push([claim, history.length]);
          return asked.length === 1 ? 'finish(impossible) refused: try b first' : undefined;
        },
      },
      limits,
    );
    expect(sandbox.scripts).toEqual(['a', 'b']);
    expect(asked).toEqual([
      ['impossible', 2],
      ['impossible', 4],
    ]);
    expect(outcome.history[1]!.notes).toEqual(['finish(impossible) refused: try b first']);
    expect(strategy.seen[2]!.history[1]!.notes).toEqual(['finish(impossible) refused: try b first']);
    expect(
      events.filter((e) => e.type === 'claim').map((e) => (e as { accepted: boolean }).accepted),
    ).toEqual([false, true]);
    expect(outcome.end).toMatchObject({ kind: 'claim', claim: { claim: 'impossible', turn: 3 } });
    // A claim the verifiers back is never asked about.
    const passing = new FakeSandbox(() => ({ exitCode: 0 }));
    let askedWhenPassed = 0;
    const end = await runAgentLoop(
      base,
      {
        ...deps(new Scripted([{ kind: 'finish', claim: 'partial', reason: 'done' }]), passing, -1),
        refuseClaim: () => {
          askedWhenPassed++;
          return 'no';
        },
      },
      limits,
    );
    expect(askedWhenPassed).toBe(0);
    expect(end.end).toMatchObject({ kind: 'claim', passed: true });
  });

  it('stops a strategy that repeats the same failing script', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: 'same error' }));
    const outcome = await runAgentLoop(base, deps(new Scripted([run('again')]), sandbox, 99), limits);
    expect(outcome.end).toMatchObject({ kind: 'stuck', repeats: 2 });
    expect(sandbox.scripts).toHaveLength(2);
  });

  it('enforces the turn limit and the wall-clock deadline', async () => {
    let n = 0;
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: `error ${n++}` }));
    const strategy = { name: 'varied', next: (c: TurnContext) => Promise.resolve(run(`s${c.turn}`)) };
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99), { ...limits, maxTurns: 3 });
    expect(outcome.end).toMatchObject({ kind: 'limit', limit: 'turns' });
    expect(sandbox.scripts).toHaveLength(3);
    const late = await runAgentLoop(base, deps(strategy, new FakeSandbox(() => ({})), 99), {
      ...limits,
      deadline: Date.now() - 1,
    });
    expect(late.end).toMatchObject({ kind: 'limit', limit: 'wall_clock' });
    expect(late.end.reason).toMatch(/wall-clock/);
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
    expect(outcome.end.kind).toBe('cancelled');
  });

  it('ends with the budget limit once limits.budget is spent, recording the stop as a PARTIAL finish', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: '' }));
    let spent: string | undefined;
    const stopped: string[] = [];
    const budget = { exhausted: () => spent, stop: (reason: string) => stopped.push(reason) };
    const strategy = {
      name: 'spender',
      next: (c: TurnContext) => (
        (spent = 'token budget exhausted: 10 of 10 tokens used'),
        Promise.resolve(run(`s${c.turn}`))
      ),
    };
    const events: RunEvent[] = [];
    const bus = new EventBus();
    bus.on((e) => events.push(e));
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99, bus), { ...limits, budget });
    expect(sandbox.scripts).toEqual(['s0']);
    expect(outcome.end).toEqual({
      kind: 'limit',
      limit: 'budget',
      reason: 'token budget exhausted: 10 of 10 tokens used',
    });
    expect(stopped).toEqual(['token budget exhausted: 10 of 10 tokens used']);
    expect(outcome.claim).toEqual({
      claim: 'partial',
      reason: 'token budget exhausted: 10 of 10 tokens used',
      turn: 1,
    });
    expect(events.at(-1)).toMatchObject({ type: 'claim', claim: 'partial', accepted: true });
  });

  it("maps a strategy's typed stop to its end unless the verifiers pass", async () => {
    const stop = (cause: 'budget' | 'provider_error'): Action => ({
      kind: 'finish',
      claim: cause === 'budget' ? 'partial' : 'impossible',
      reason: `stopped: ${cause}`,
      stop: { cause, reason: `stopped: ${cause}` },
    });
    const failing = await runAgentLoop(
      base,
      deps(new Scripted([stop('provider_error')]), new FakeSandbox(() => ({})), 99),
      limits,
    );
    expect(failing.end).toEqual({ kind: 'provider_error', reason: 'stopped: provider_error' });
    const passing = await runAgentLoop(
      base,
      deps(new Scripted([stop('budget')]), new FakeSandbox(() => ({})), -1),
      limits,
    );
    expect(passing.end).toMatchObject({ kind: 'claim', passed: true, claim: { claim: 'partial', turn: 0 } });
  });

  it('reads the deadline from the injected clock', async () => {
    let t = 1_000;
    const strategy = {
      name: 'slow',
      next: (c: TurnContext) => ((t += 600), Promise.resolve(run(`s${c.turn}`))),
    };
    let n = 0;
    const sandbox = new FakeSandbox(() => ({ exitCode: 1, output: `error ${n++}` }));
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 99), {
      ...limits,
      deadline: 2_000,
      now: () => t,
    });
    expect(sandbox.scripts).toEqual(['s0', 's1']);
    expect(outcome.end).toMatchObject({ kind: 'limit', limit: 'wall_clock' });
  });
});

describe('a script that did not run through is never a success (issue 31)', () => {
  const finish = (claim: 'success' | 'partial'): Action => ({
    kind: 'finish',
    claim,
    reason: `claims ${claim}`,
  });

  it('binaries all there but the script exited 2 after them: no verified end, a note, and another turn', async () => {
    // turn 0 makes every binary and then fails (docs, tests); turn 1 runs through
    const sandbox = new FakeSandbox((_s, n) => ({
      exitCode: n === 0 ? 2 : 0,
      output: n === 0 ? 'doc failed' : '',
    }));
    const strategy = new Scripted([run('make all docs'), run('make all')]);
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 0), limits);
    expect(outcome.end).toEqual({
      kind: 'verified',
      turn: 1,
      reason: 'the verifiers passed after turn 1 (make all)',
    });
    expect(outcome.history[0]!.notes.join('\n')).toContain(
      'every expected binary exists, but the script exited 2 after them',
    );
  });

  it('refuses a success claim after such a turn; a partial claim ends with passed false', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 2, output: 'doc failed' }));
    const strategy = new Scripted([run('make'), finish('success'), finish('partial')]);
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 0), limits);
    expect(outcome.history[1]!.notes.join('\n')).toContain(
      'finish(success) refused: every expected binary exists, but the script exited 2',
    );
    expect(outcome.end).toMatchObject({ kind: 'claim', passed: false, completion: true });
  });

  it('a timed-out script with every binary built is no success either', async () => {
    const sandbox = new FakeSandbox(() => ({ exitCode: 124, timedOut: true, output: '' }));
    const strategy = new Scripted([run('make check'), finish('partial')]);
    const outcome = await runAgentLoop(base, deps(strategy, sandbox, 0), limits);
    expect(outcome.end?.kind).not.toBe('verified');
    expect(outcome.history[0]!.notes.join('\n')).toContain('was stopped at its time limit after them');
  });
});
