/** The target experiment as a visible layer-2 spec, and the lines that run it by hand. */
import { describe, expect, it } from '@jest/globals';

import {
  deployVisibleSpec,
  TARGET_CHECK,
  targetCommandLines,
  targetSpec,
} from '../../../src/deploy/target.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { parseSpec } from '../../../src/verify/spec.js';

function goal(overrides: Partial<DeployGoal['target']> = {}): DeployGoal {
  return {
    target: {
      command: 'python3 train.py --epochs 1',
      cwd: 'experiments/',
      timeoutMs: 120_000,
      evidence: {
        files: ['out/metrics.json'],
        output: ['accuracy: \\d'],
        metrics: [{ file: 'out/metrics.json', key: 'eval.accuracy', min: 0.5 }],
      },
      ...overrides,
    },
    requires: [],
    registries: { mode: 'auto', mirrors: {} },
    taskFile: 'tasks/x.yml',
  };
}

describe('targetSpec', () => {
  it('is one visible check: the command in its folder, its time limit, exit 0 and every piece of evidence', () => {
    const spec = targetSpec(goal());
    expect(spec).toMatchObject({ file: 'tasks/x.yml (target)', hidden: false, name: TARGET_CHECK });
    expect(spec.checks).toHaveLength(1);
    const check = spec.checks[0]!;
    expect(check).toMatchObject({
      name: 'target experiment',
      command: 'python3 train.py --epochs 1',
      cwd: 'experiments',
      timeoutMs: 120_000,
    });
    expect(check.expect.exitCode).toEqual([0]);
    // Evidence files must be non-empty and written while the target ran: an old results file does not count.
    expect(check.expect.files).toEqual([{ path: 'out/metrics.json', nonEmpty: true, newerThanStart: true }]);
    expect(check.expect.output).toEqual(['accuracy: \\d']);
    expect(check.expect.metrics).toEqual([{ file: 'out/metrics.json', key: 'eval.accuracy', min: 0.5 }]);
  });

  it('runs at the repository root when the cwd is empty or "."', () => {
    expect(targetSpec(goal({ cwd: '' })).checks[0]!.cwd).toBeUndefined();
    expect(targetSpec(goal({ cwd: '.' })).checks[0]!.cwd).toBeUndefined();
    expect(targetSpec(goal({ cwd: '', evidence: {} })).checks[0]!.expect.files).toEqual([]);
  });

  it('puts a visible spec of the user after the target, renaming a check that takes the target’s name', () => {
    const user = parseSpec(
      "checks:\n  - { name: target experiment, command: 'true' }\n  - { name: imports, command: 'python3 -c 1' }\n",
      'user.yml',
    );
    const spec = deployVisibleSpec(goal(), user);
    expect(spec.checks.map((c) => c.name)).toEqual([
      'target experiment',
      'target experiment (user.yml)',
      'imports',
    ]);
    expect(spec.hidden).toBe(false);
    expect(deployVisibleSpec(goal())).toEqual(targetSpec(goal()));
  });

  it('gives the exact lines to run the target by hand, quoting an odd folder', () => {
    expect(targetCommandLines(goal().target)).toEqual(['cd experiments', 'python3 train.py --epochs 1']);
    expect(targetCommandLines(goal({ cwd: 'my runs' }).target)).toEqual([
      "cd 'my runs'",
      'python3 train.py --epochs 1',
    ]);
    expect(targetCommandLines(goal({ cwd: '' }).target)).toEqual(['python3 train.py --epochs 1']);
  });
});
