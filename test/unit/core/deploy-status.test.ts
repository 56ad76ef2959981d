/**
 * A deploy's status (core/status.ts), DeployBench's way: SUCCESS only when the target and the verifier both
 * passed; PARTIAL when the setup ran through but one failed (with the failing evidence); FAILED when the setup
 * never ran through. And the facts it is decided from (core/stages/final-checks.ts `deployFacts`).
 */
import { TARGET_RUN_MARKER } from '../../../src/deploy/recipes/target-run.js';
import { describe, expect, it } from '@jest/globals';

import type { LoopEnd } from '../../../src/agent/loop.js';
import type { TurnRecord } from '../../../src/agent/types.js';
import { deployFacts, TARGET_CHECK_NAME } from '../../../src/core/stages/final-checks.js';
import { decideStatus, type DeployFacts } from '../../../src/core/status.js';
import type { VerificationCheck } from '../../../src/verify/verification.js';

const verified: LoopEnd = { kind: 'verified', turn: 0, reason: 'the verifiers passed after turn 0 (setup)' };
const gaveUp: LoopEnd = {
  kind: 'claim',
  claim: { claim: 'partial', reason: 'no more recipes', turn: 2 },
  passed: false,
  completion: true,
  reason: 'no more recipes',
};
const turnsOut: LoopEnd = { kind: 'limit', limit: 'turns', reason: 'the turn limit (3) was reached' };
const target = { name: 'spec: target experiment', passed: true, detail: 'exit 0; results.json exists' };
const failingTarget = {
  name: 'spec: target experiment',
  passed: false,
  detail: 'exit code 1, expected 0 (last output: ModuleNotFoundError: No module named scipy)',
  outputTail: 'stderr:\nModuleNotFoundError: No module named scipy',
};
const verifier = [{ name: 'spec: reproduces table 2', passed: true, detail: 'exit 0; r.json: acc = 0.9' }];
const failingVerifier = [
  { name: 'spec: reproduces table 2', passed: false, detail: 'r.json: acc = 0.1, expected ≥ 0.8' },
];

function decide(end: LoopEnd, deploy: DeployFacts) {
  // The build's facts (a passing final verdict, new binaries) must not matter to a deploy.
  return decideStatus({ end, final: { passed: true, completion: true, failures: [] }, claims: [], deploy });
}

describe('a deploy’s status', () => {
  it('is SUCCESS only when the target and the verifier both passed', () => {
    expect(decide(verified, { setupRan: true, target, verifier })).toEqual({
      status: 'success',
      reason:
        'the target experiment ran and left its evidence (exit 0; results.json exists), and the verifier passed (1 check)',
    });
  });

  it('is PARTIAL when the setup ran through but the target failed, naming the target’s evidence', () => {
    const d = decide(gaveUp, { setupRan: true, target: failingTarget, verifier: failingVerifier });
    expect(d.status).toBe('partial');
    expect(d.reason).toBe(`the setup ran through, but the target experiment failed: ${failingTarget.detail}`);
  });

  it('is PARTIAL when the target passed but the hidden verifier did not: a weaker check is never SUCCESS', () => {
    const d = decide(verified, { setupRan: true, target, verifier: failingVerifier });
    expect(d).toEqual({
      status: 'partial',
      reason:
        'the setup ran through, but the verifier failed: spec: reproduces table 2: r.json: acc = 0.1, expected ≥ 0.8',
    });
    // A target passing with no verifier check at all is not SUCCESS either.
    expect(decide(verified, { setupRan: true, target, verifier: [] }).status).toBe('partial');
  });

  it('counts a target that ran as a setup that ran through, even when every setup script failed', () => {
    const d = decide(turnsOut, { setupRan: false, target, verifier: failingVerifier });
    expect(d.status).toBe('partial');
    expect(d.reason).toMatch(/the run ended: the turn limit \(3\) was reached$/);
  });

  it('is FAILED when the setup never ran through, with the first failing evidence and why the run ended', () => {
    expect(decide(turnsOut, { setupRan: false, target: failingTarget, verifier: [] })).toEqual({
      status: 'failed',
      reason: `the setup never ran through: the target experiment failed: ${failingTarget.detail}; the run ended: the turn limit (3) was reached`,
    });
    expect(decide(gaveUp, { setupRan: false, verifier: [] })).toEqual({
      status: 'failed',
      reason: 'the setup never ran through: the target experiment never ran',
    });
  });

  it('keeps cancelled, sandbox and provider errors, and errors caught on the way', () => {
    const facts: DeployFacts = { setupRan: true, target, verifier };
    expect(decide({ kind: 'cancelled', reason: 'cancelled during turn 1' }, facts).status).toBe('cancelled');
    expect(decide({ kind: 'sandbox_error', reason: 'bwrap died' }, facts).status).toBe('sandbox_error');
    expect(decide({ kind: 'provider_error', reason: '500' }, facts).status).toBe('provider_error');
    expect(
      decideStatus({ caught: { error: new Error('boom'), aborted: false }, claims: [], deploy: facts }),
    ).toEqual({ status: 'failed', reason: 'boom' });
  });
});

describe('deployFacts', () => {
  const check = (
    name: string,
    passed: boolean,
    extra: Partial<VerificationCheck> = {},
  ): VerificationCheck => ({
    name,
    passed,
    detail: passed ? 'ok' : 'bad',
    source: 'spec',
    required: true,
    ...extra,
  });
  const turn = (n: number, exitCode: number | null, timedOut = false, output = ''): TurnRecord =>
    ({
      turn: n,
      action: { kind: 'run', script: 'x', purpose: 'setup', reason: 'r' },
      observation: { exec: { exitCode, timedOut }, output },
      notes: [],
    }) as unknown as TurnRecord;
  const artifacts: VerificationCheck = {
    name: 'artifacts: any new binary',
    passed: true,
    detail: 'new binaries were built',
    source: 'artifacts',
    required: false,
  };

  it('takes the target’s check, the hidden verifier’s checks and whether a setup script ended with 0', () => {
    const checks = [
      artifacts,
      check(TARGET_CHECK_NAME, false, { outputTail: 'stderr:\nboom' }),
      check('spec: hidden one', true, { hidden: true }),
    ];
    expect(deployFacts({ checks }, [turn(0, 1), turn(1, 0)], true)).toEqual({
      setupRan: true,
      target: { name: TARGET_CHECK_NAME, passed: false, detail: 'bad', outputTail: 'stderr:\nboom' },
      verifier: [{ name: 'spec: hidden one', passed: true, detail: 'ok' }],
    });
  });

  it('takes a visible verifier’s checks beside the target, and no setup from failed or timed-out scripts', () => {
    const checks = [check(TARGET_CHECK_NAME, true), check('spec: visible one', false)];
    const facts = deployFacts({ checks }, [turn(0, 2), turn(1, 0, true), turn(2, null)], false);
    expect(facts.setupRan).toBe(false);
    expect(facts.verifier.map((c) => c.name)).toEqual(['spec: visible one']);
    expect(deployFacts({ checks: [] }, [], true)).toEqual({ setupRan: false, verifier: [] });
  });

  it('counts a script that failed in the target’s run (after every setup step) as a setup that ran through', () => {
    const reached = turn(0, 1, false, `### buildbench: dependencies\n${TARGET_RUN_MARKER}./simulate\nboom\n`);
    expect(deployFacts({ checks: [] }, [reached], true).setupRan).toBe(true);
    expect(
      deployFacts({ checks: [] }, [turn(0, 1, false, 'E: Unable to locate package\n')], true).setupRan,
    ).toBe(false);
  });
});
