/**
 * Deploy fixtures (tasks/deploy-fixtures/<name>/) for the integration tests: the task file read by the
 * benchmark loader, its DeployGoal, and a visible layer-2 spec made from the task's target (the command must
 * exit 0, leave its files and print its output patterns) — what a deploy run's stop-gate judges by until
 * `runDeploy` makes the target spec itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadTasks } from '../../src/bench/load.js';
import type { DeployTask } from '../../src/bench/types.js';
import type { DeployGoal, RegistrySettings } from '../../src/deploy/types.js';
import { parseSpecDuration } from '../../src/verify/spec.js';

export const DEPLOY_FIXTURES = path.resolve('tasks/deploy-fixtures');

export async function loadDeployFixture(name: string): Promise<DeployTask> {
  const [task] = await loadTasks([path.join(DEPLOY_FIXTURES, `${name}.yml`)]);
  if (task?.kind !== 'deploy') throw new Error(`${name}: not a deploy task`);
  return task;
}

/** The task's target as the goal of a deploy run, with the registries as given. */
export function goalOf(task: DeployTask, registries: RegistrySettings): DeployGoal {
  return {
    target: {
      command: task.target.command,
      cwd: task.target.cwd ?? '',
      timeoutMs: parseSpecDuration(task.target.timeout) ?? 120_000,
      evidence: task.target.evidence,
    },
    requires: task.requires ?? [],
    registries,
    ...(task.paper ? { paper: task.paper } : {}),
  };
}

/** A visible spec file (in a temporary folder) checking the goal's target. */
export function targetSpecFile(goal: DeployGoal): string {
  const { evidence } = goal.target;
  const spec = {
    name: 'target',
    hidden: false,
    checks: [
      {
        name: 'the target experiment',
        command: `if [ -f .buildbench/deploy-env.sh ]; then . ./.buildbench/deploy-env.sh; fi; ${goal.target.command}`,
        ...(goal.target.cwd ? { cwd: goal.target.cwd } : {}),
        timeout: `${Math.ceil(goal.target.timeoutMs / 1000)}s`,
        expect: {
          files: (evidence.files ?? []).map((f) => ({ path: f, non_empty: true, newer_than_start: true })),
          ...(evidence.output && evidence.output.length > 0 ? { output: evidence.output } : {}),
        },
      },
    ],
  };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bb-deploy-spec-')), 'target.spec.yml');
  writeFileSync(file, stringify(spec));
  return file;
}
