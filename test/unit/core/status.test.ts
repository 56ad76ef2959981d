/** decideStatus: every RunStatus from the facts that lead to it, one row each (plus the final checks' turns). */
import { describe, expect, it } from '@jest/globals';

import type { LoopEnd } from '../../../src/agent/loop.js';
import { ConfigError, SandboxError } from '../../../src/base/errors.js';
import { RUN_STATUSES, type RunStatus } from '../../../src/base/status.js';
import { decideStatus, finalChecksRun, type StatusFacts } from '../../../src/core/status.js';
import type { ClaimRecord } from '../../../src/verify/verification.js';

const claim = (c: ClaimRecord['claim'], accepted: boolean, turn = 0): ClaimRecord => ({
  turn,
  claim: c,
  reason: 'r',
  accepted,
});
const loopClaim = (c: ClaimRecord['claim'], turn = 0) => ({ claim: c, reason: 'r', turn });

const verified: LoopEnd = { kind: 'verified', turn: 1, reason: 'the verifiers passed after turn 1 (build)' };
const turnsOut: LoopEnd = { kind: 'limit', limit: 'turns', reason: 'the turn limit (3) was reached' };
const stuck: LoopEnd = { kind: 'stuck', repeats: 2, reason: 'the same script failed the same way 2 times' };
const cancelledEnd: LoopEnd = { kind: 'cancelled', reason: 'cancelled during turn 0' };
const stalled: LoopEnd = {
  kind: 'stalled',
  turn: 0,
  idleMs: 600_000,
  reason: 'turn 0 printed nothing for 600 s',
};
const passing = { passed: true, completion: true, failures: [] };
const failing = { passed: false, completion: true, failures: ['spec: runs: exit code 1, expected 0'] };

const rows: [string, StatusFacts, RunStatus, string | RegExp][] = [
  [
    'the verifiers passed after a turn',
    { end: verified, final: passing, claims: [] },
    'success',
    verified.reason,
  ],
  [
    'an accepted SUCCESS claim',
    {
      end: { kind: 'claim', claim: loopClaim('success'), passed: true, completion: true, reason: 'done' },
      final: passing,
      claims: [claim('success', true)],
    },
    'success',
    'done',
  ],
  [
    'a PARTIAL claim with some binaries',
    {
      end: { kind: 'claim', claim: loopClaim('partial'), passed: false, completion: true, reason: 'half' },
      final: { ...failing, completion: true },
      claims: [claim('partial', true)],
    },
    'partial',
    'half',
  ],
  [
    'an IMPOSSIBLE claim with nothing built',
    {
      end: { kind: 'claim', claim: loopClaim('impossible'), passed: false, completion: false, reason: 'no' },
      final: { ...failing, completion: false },
      claims: [claim('impossible', true)],
    },
    'failed',
    'no',
  ],
  ['the turn limit', { end: turnsOut, final: failing, claims: [] }, 'limits_exceeded', turnsOut.reason],
  [
    'the wall clock',
    { end: { kind: 'limit', limit: 'wall_clock', reason: 'out of time' }, claims: [] },
    'limits_exceeded',
    'out of time',
  ],
  [
    'the token budget',
    {
      end: { kind: 'limit', limit: 'budget', reason: 'the token budget is spent' },
      final: failing,
      claims: [],
    },
    'limits_exceeded',
    'the token budget is spent',
  ],
  ['stuck', { end: stuck, final: failing, claims: [] }, 'stuck', stuck.reason],
  ['stalled', { end: stalled, final: failing, claims: [] }, 'stalled', stalled.reason],
  [
    'the provider failed',
    { end: { kind: 'provider_error', reason: 'HTTP 500 after 3 tries' }, final: failing, claims: [] },
    'provider_error',
    'HTTP 500 after 3 tries',
  ],
  [
    'the sandbox failed during a turn',
    { end: { kind: 'sandbox_error', reason: 'bwrap died' }, claims: [] },
    'sandbox_error',
    'bwrap died',
  ],
  ['cancelled during a turn', { end: cancelledEnd, claims: [] }, 'cancelled', cancelledEnd.reason],
  [
    'an error after the signal aborted',
    { caught: { error: new Error('EINTR'), aborted: true }, claims: [] },
    'cancelled',
    'cancelled',
  ],
  [
    'a SandboxError caught',
    { caught: { error: new SandboxError('cannot mount the overlay'), aborted: false }, claims: [] },
    'sandbox_error',
    'cannot mount the overlay',
  ],
  [
    'any other error caught, even after a passing loop',
    { end: verified, caught: { error: new Error('disk full'), aborted: false }, claims: [] },
    'failed',
    'disk full',
  ],
  [
    'a configuration error after the sandbox opened (message and hint)',
    {
      caught: { error: new ConfigError('--spec: no such file', 'check the path'), aborted: false },
      claims: [],
    },
    'failed',
    '--spec: no such file (check the path)',
  ],
  [
    'a configuration error before the sandbox, even with the signal aborted (its message, thrown as well)',
    {
      caught: { error: new ConfigError('bad --out', 'a hint'), aborted: true, beforeSandbox: true },
      claims: [],
    },
    'failed',
    'bad --out',
  ],
  [
    'another error before the sandbox after the signal aborted',
    { caught: { error: new Error('clone killed'), aborted: true, beforeSandbox: true }, claims: [] },
    'cancelled',
    'cancelled',
  ],
  [
    'success turned partial by the final verification (a hidden spec)',
    { end: verified, final: failing, claims: [] },
    'partial',
    'the build passed during the run but the final verification failed: spec: runs: exit code 1, expected 0',
  ],
  [
    'a refused SUCCESS claim as the last word, then the turn limit, with binaries',
    { end: turnsOut, final: failing, claims: [claim('success', false, 2)] },
    'partial',
    /claimed success \(turn 2\) but the verifiers did not pass: spec: runs/,
  ],
  [
    'a refused SUCCESS claim as the last word, then stuck, with nothing built',
    { end: stuck, final: { ...failing, completion: false }, claims: [claim('success', false, 1)] },
    'failed',
    /claimed success \(turn 1\) but the verifiers did not pass/,
  ],
  [
    'a refused SUCCESS claim, then cancelled: the final checks change nothing',
    { end: cancelledEnd, final: failing, claims: [claim('success', false, 2)] },
    'cancelled',
    cancelledEnd.reason,
  ],
  [
    'a refused SUCCESS claim followed by another claim is not the last word',
    { end: turnsOut, final: failing, claims: [claim('success', false, 1), claim('partial', true, 2)] },
    'limits_exceeded',
    turnsOut.reason,
  ],
];

describe('decideStatus', () => {
  it.each(rows)('%s', (_name, facts, status, reason) => {
    const decided = decideStatus(facts);
    expect(decided.status).toBe(status);
    if (typeof reason === 'string') expect(decided.reason).toBe(reason);
    else expect(decided.reason).toMatch(reason);
  });

  it('has a row for every status', () => {
    expect(new Set(rows.map((row) => row[2]))).toEqual(new Set(RUN_STATUSES));
  });

  it('keeps success when the final verification passes, and limits_exceeded without a refused claim', () => {
    expect(decideStatus({ end: verified, final: passing, claims: [] })).toEqual({
      status: 'success',
      reason: verified.reason,
    });
    expect(decideStatus({ end: turnsOut, final: failing, claims: [] }).status).toBe('limits_exceeded');
  });

  it('runs the final checks unless the run was cancelled or the sandbox failed', () => {
    expect(finalChecksRun(verified)).toBe(true);
    expect(finalChecksRun(stuck)).toBe(true);
    expect(finalChecksRun(cancelledEnd)).toBe(false);
    expect(finalChecksRun({ kind: 'sandbox_error', reason: 'x' })).toBe(false);
  });
});
