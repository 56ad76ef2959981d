/**
 * The target experiment as a VISIBLE layer-2 spec (`targetSpec`): the goal of a deploy run is not "these
 * binaries exist" but "this command runs from its folder within its time limit and leaves this evidence", and
 * the ordinary spec runner judges it after every turn (the stop-gate reads that verdict) and again in the
 * replay. The strategy sees the target anyway (it is the goal); the task's own verifier stays hidden.
 *
 * What the target must show: exit code 0; every evidence file exists, is non-empty and was written while the
 * target ran (an old results file in the checkout does not count); every output pattern matches its stdout
 * or stderr; every metric lies within its bounds.
 */
import { guestCheck } from './guest.js';
import { shq } from '../base/shell.js';
import type { Layer2Spec, SpecCheck } from '../verify/spec.js';
import type { DeployGoal, DeployTarget } from './types.js';

/** The name of the target's check in result.json and the RUNBOOK (`spec: target experiment`). */
export const TARGET_CHECK = 'target experiment';
/** The spec's `file`, as verification records name it (the target is not read from a file). */
export const TARGET_SPEC_FILE = '(deploy target)';

/** The target's working directory as the sandbox takes it: undefined for the repository root. */
export function targetCwd(target: DeployTarget): string | undefined {
  const cwd = target.cwd.trim().replace(/\/+$/, '');
  return cwd === '' || cwd === '.' ? undefined : cwd;
}

/** The one check that runs the target experiment and judges its evidence. */
export function targetCheck(target: DeployTarget): SpecCheck {
  const cwd = targetCwd(target);
  const { files = [], output = [], metrics = [] } = target.evidence;
  return {
    name: TARGET_CHECK,
    command: target.command,
    ...(cwd !== undefined ? { cwd } : {}),
    timeoutMs: target.timeoutMs,
    env: {},
    expect: {
      exitCode: [0],
      files: files.map((path) => ({ path, nonEmpty: true, newerThanStart: true })),
      stdout: [],
      stdoutNot: [],
      stderr: [],
      stderrNot: [],
      output: [...output],
      outputNot: [],
      metrics: metrics.map((m) => ({ ...m })),
    },
    line: 0,
  };
}

/**
 * The target experiment of a deploy goal as a visible spec; a task's guest adds its boot check (guest.ts:
 * built, booted under QEMU — KVM when the task requires it and it is usable inside — judged by the console).
 */
export function targetSpec(goal: DeployGoal): Layer2Spec {
  return {
    file: goal.taskFile ? `${goal.taskFile} (target)` : TARGET_SPEC_FILE,
    name: TARGET_CHECK,
    hidden: false,
    probes: { run: false, debugInfo: false },
    checks: [
      targetCheck(goal.target),
      ...(goal.guest ? [guestCheck(goal, { kvm: goal.requires.includes('kvm') })!] : []),
    ],
  };
}

/**
 * The visible spec of a deploy run: the target first, then the checks of a visible spec the user gave (a
 * check named like the target is renamed, so result.json can always tell the target's apart).
 */
export function deployVisibleSpec(goal: DeployGoal, visible?: Layer2Spec): Layer2Spec {
  const spec = targetSpec(goal);
  if (!visible) return spec;
  const checks = visible.checks.map((c) =>
    c.name === TARGET_CHECK ? { ...c, name: `${c.name} (${visible.file})` } : c,
  );
  return {
    ...spec,
    file: `${spec.file} + ${visible.file}`,
    probes: visible.probes,
    checks: [...spec.checks, ...checks],
  };
}

/** The exact lines that run the target by hand from the repository root: into its folder, then the command. */
export function targetCommandLines(target: DeployTarget): string[] {
  const cwd = targetCwd(target);
  return [...(cwd !== undefined ? [`cd ${shq(cwd)}`] : []), target.command];
}
