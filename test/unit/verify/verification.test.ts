import { describe, expect, it } from '@jest/globals';
import { artifactChecks, auditSelfStop, type ClaimRecord } from '../../../src/verify/verification.js';
import type { Metrics } from '../../../src/verify/types.js';

const claim = (c: ClaimRecord['claim'], accepted: boolean, turn = 0): ClaimRecord => ({
  turn,
  claim: c,
  reason: 'r',
  accepted,
});

describe('self-stop audit', () => {
  it('counts a refused SUCCESS claim, a SUCCESS overturned later and a give-up on a passing build as wrong', () => {
    expect(auditSelfStop([], false)).toEqual({
      claimed: null,
      verdict: 'failed',
      wrong: false,
      refused: 0,
      claims: [],
    });
    expect(auditSelfStop([claim('success', true)], true)).toMatchObject({
      claimed: 'success',
      verdict: 'passed',
      wrong: false,
    });
    expect(auditSelfStop([claim('success', false), claim('impossible', true, 1)], false)).toMatchObject({
      claimed: 'impossible',
      wrong: true,
      refused: 1,
    });
    expect(auditSelfStop([claim('success', true)], false)).toMatchObject({ wrong: true, verdict: 'failed' }); // hidden spec
    expect(auditSelfStop([claim('partial', true)], true)).toMatchObject({ wrong: true });
    expect(auditSelfStop([claim('impossible', true)], false)).toMatchObject({ wrong: false });
  });
});

// The final status (settleStatus) is decided in core/status.ts now: test/unit/core/status.test.ts.

describe('artifact checks', () => {
  const metrics = (matched: string[], missing: string[], completion = true): Metrics => ({
    completion,
    strict: missing.length === 0 && matched.length > 0,
    flexible: matched.length > 0,
    matched,
    missing,
    matches: Object.fromEntries(matched.map((n) => [n, [`build/${n}`]])),
  });

  it('has one check per expected name and says where a missing one was built when it does not count', () => {
    const checks = artifactChecks(metrics(['app'], ['libz.a']), { names: ['app', 'libz.a'], source: 'cli' }, [
      {
        path: 'third_party/z/libz.a',
        kind: 'static_library',
        size: 1,
        reason: 'vendored',
        dir: 'third_party',
      },
    ]);
    expect(checks).toEqual([
      { name: 'artifact app', passed: true, detail: 'built: build/app', source: 'artifacts', required: true },
      {
        name: 'artifact libz.a',
        passed: false,
        detail:
          'not built by the project; only third_party/z/libz.a (under third_party/, vendored code), which does not count',
        source: 'artifacts',
        required: true,
      },
    ]);
  });

  it('checks for any new binary when nothing is expected', () => {
    const [check] = artifactChecks(metrics([], [], false), { names: [], source: 'none' }, [], false);
    expect(check).toEqual({
      name: 'artifacts: any new binary',
      passed: false,
      detail: 'no new executable or library was built',
      source: 'artifacts',
      required: false,
    });
  });
});
