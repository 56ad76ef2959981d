/**
 * Issue 31, "a script that did not run through is never SUCCESS", as the status decides it: the run's last script
 * (`lastScriptOf`) and the recipe's replay (`decideAfterReplay`) must have exited 0 for a SUCCESS; otherwise the
 * honest lower status with the reason and the evidence.
 */
import { describe, expect, it } from '@jest/globals';

import type { LoopEnd } from '../../../src/agent/loop.js';
import type { TurnRecord } from '../../../src/agent/types.js';
import {
  decideAfterReplay,
  decideStatus,
  lastScriptOf,
  type LastScript,
  type StatusDecision,
} from '../../../src/core/status.js';
import type { Finding } from '../../../src/knowledge/diagnose/types.js';

const verified: LoopEnd = { kind: 'verified', turn: 0, reason: 'the verifiers passed after turn 0 (make)' };
const turnsOut: LoopEnd = {
  kind: 'limit',
  limit: 'turns',
  reason: 'the turn limit (2) was reached before the verifiers passed',
};
const stuck: LoopEnd = {
  kind: 'stuck',
  repeats: 2,
  reason: 'the same script failed the same way 2 times (make)',
};
const passing = { passed: true, completion: true, failures: [] };
const failing = { passed: false, completion: true, failures: ["expected binary 'sieve' was not produced"] };

const missingHeader: Finding = {
  id: 'missing-header',
  category: 'missing-dependency',
  message: 'missing header sievecodec/codec.h',
  captures: { header: 'sievecodec/codec.h' },
  line: 7,
  excerpt: 'sieve.c:5:10: fatal error: sievecodec/codec.h: No such file or directory',
};

function ran(
  turn: number,
  exitCode: number,
  extra: { timedOut?: boolean; rootCause?: Finding } = {},
): TurnRecord {
  return {
    turn,
    action: { kind: 'run', script: 'make', purpose: 'make', reason: 'Makefile found' },
    notes: [],
    observation: {
      exec: {
        exitCode,
        timedOut: extra.timedOut ?? false,
        cancelled: false,
        durationMs: 10,
        truncated: false,
        totalBytes: 9,
      },
      output: '',
      findings: extra.rootCause ? [extra.rootCause] : [],
      ...(extra.rootCause ? { rootCause: extra.rootCause } : {}),
      artifacts: [],
      verdict: {
        passed: true,
        metrics: { completion: true, strict: true, flexible: true, matched: ['gen'], missing: [] },
        failures: [],
      },
    },
  };
}
const finish: TurnRecord = {
  turn: 2,
  action: { kind: 'finish', claim: 'partial', reason: 'no known repair' },
  notes: [],
};

describe('lastScriptOf', () => {
  it('is the last turn that ran a script, with its root cause as evidence when it failed', () => {
    expect(lastScriptOf([ran(0, 0), ran(1, 2, { rootCause: missingHeader }), finish])).toEqual({
      turn: 1,
      exitCode: 2,
      timedOut: false,
      evidence: 'missing header sievecodec/codec.h (log line 7)',
    });
    // a script that ran through carries no evidence of a failure, even when layer 1 found something
    expect(lastScriptOf([ran(0, 2), ran(1, 0, { rootCause: missingHeader })])).toEqual({
      turn: 1,
      exitCode: 0,
      timedOut: false,
    });
    expect(lastScriptOf([finish])).toBeUndefined();
    expect(lastScriptOf([])).toBeUndefined();
  });
});

describe('decideStatus with the last script', () => {
  const script = (exitCode: number | null, timedOut = false): LastScript => ({
    turn: 0,
    exitCode,
    timedOut,
    ...(exitCode !== 0 ? { evidence: 'missing header sievecodec/codec.h (log line 7)' } : {}),
  });

  it('keeps a success whose last script exited 0', () => {
    expect(decideStatus({ end: verified, final: passing, claims: [], lastScript: script(0) })).toEqual({
      status: 'success',
      reason: verified.reason,
    });
  });

  it('never calls SUCCESS a run whose last script exited non-zero or was stopped, whatever ended the loop', () => {
    expect(decideStatus({ end: verified, final: passing, claims: [], lastScript: script(2) })).toEqual({
      status: 'partial',
      reason:
        'every expected binary exists, but the script of turn 0 exited 2 after them (missing header sievecodec/codec.h (log line 7)): a build that did not run through is not a success',
    });
    const claimed: LoopEnd = {
      kind: 'claim',
      claim: { claim: 'success', reason: 'done', turn: 1 },
      passed: true,
      completion: true,
      reason: 'done',
    };
    const decided = decideStatus({
      end: claimed,
      final: passing,
      claims: [{ turn: 1, claim: 'success', reason: 'done', accepted: true }],
      lastScript: script(null, true),
    });
    expect(decided.status).toBe('partial');
    expect(decided.reason).toContain('the script of turn 0 was stopped at its time limit after them');
  });

  it('says PARTIAL, not limits_exceeded or stuck, when every expected binary exists after a failed script', () => {
    for (const end of [turnsOut, stuck]) {
      const decided = decideStatus({ end, final: passing, claims: [], lastScript: script(2) });
      expect(decided).toEqual({
        status: 'partial',
        reason: `every expected binary exists, but the script of turn 0 exited 2 after them (missing header sievecodec/codec.h (log line 7)): a build that did not run through is not a success; the run ended: ${end.reason}`,
      });
    }
    // binaries missing: the limit is the honest end
    expect(decideStatus({ end: turnsOut, final: failing, claims: [], lastScript: script(2) }).status).toBe(
      'limits_exceeded',
    );
    expect(decideStatus({ end: stuck, final: failing, claims: [], lastScript: script(2) }).status).toBe(
      'stuck',
    );
  });
});

describe('decideAfterReplay', () => {
  const success: StatusDecision = { status: 'success', reason: verified.reason };
  const partial: StatusDecision = { status: 'partial', reason: 'half' };

  it('makes a success whose recipe replay exited non-zero PARTIAL, with the replay’s reason', () => {
    expect(
      decideAfterReplay(success, {
        status: 'failed',
        reason: 'the verifiers passed but build.sh exited 2',
        exitCode: 2,
        timedOut: false,
      }),
    ).toEqual({
      status: 'partial',
      reason:
        "the build ran through in the run's sandbox, but the replay of its recipe in a fresh sandbox exited 2 (the verifiers passed but build.sh exited 2): a recipe that does not run through is not a success",
    });
  });

  it('leaves the status alone for a replay that ran through, never ran, or was stopped at its limit', () => {
    const passed = { status: 'passed', reason: 'build.sh built 1 binary', exitCode: 0, timedOut: false };
    expect(decideAfterReplay(success, passed)).toBe(success);
    expect(decideAfterReplay(success, undefined)).toBe(success);
    expect(decideAfterReplay(success, { status: 'skipped', reason: 'no time left' })).toBe(success);
    expect(decideAfterReplay(success, { status: 'error', reason: 'the replay could not run' })).toBe(success);
    expect(
      decideAfterReplay(success, { status: 'failed', reason: 'stopped', exitCode: 124, timedOut: true }),
    ).toBe(success);
    // only a success is lowered
    expect(decideAfterReplay(partial, { status: 'failed', reason: 'x', exitCode: 2 })).toBe(partial);
  });
});

describe('decideStatus with an uncertain expectation (issue 31)', () => {
  const doubt = ['tally-1.3-$(?): part of the name is computed when make runs (Makefile:11)'];

  it('makes a success PARTIAL, with the reason and where the name comes from', () => {
    const decided = decideStatus({ end: verified, final: passing, claims: [], uncertainExpectation: doubt });
    expect(decided.status).toBe('partial');
    expect(decided.reason).toContain(verified.reason);
    expect(decided.reason).toContain(`the expectation is uncertain (${doubt[0]!})`);
  });

  it('changes nothing else: a partial stays partial, a limit stays a limit, a deploy is judged its own way', () => {
    const partial = decideStatus({
      end: verified,
      final: passing,
      claims: [],
      lastScript: { turn: 0, exitCode: 2, timedOut: false },
      uncertainExpectation: doubt,
    });
    expect(partial.reason).toContain('did not run through');
    expect(partial.reason).not.toContain('uncertain');
    expect(decideStatus({ end: turnsOut, final: failing, claims: [], uncertainExpectation: doubt })).toEqual({
      status: 'limits_exceeded',
      reason: turnsOut.reason,
    });
    expect(decideStatus({ end: verified, final: passing, claims: [], uncertainExpectation: [] }).status).toBe(
      'success',
    );
  });
});
