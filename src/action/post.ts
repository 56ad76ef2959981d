/**
 * The post step: removes what the main step's sandboxes left behind when it was killed (cancelled job,
 * timeout) before it could dispose of them. Main records its work folder in the step state; every folder
 * in it is one sandbox (`<slug>-<hex>`, which is also the docker container's `buildbench.sandbox` label).
 * Cleanup failures are warnings: the job's outcome is already decided.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';

import { errorMessage } from '../base/errors.js';
import { findExecutable, removeTree } from '../sandbox/common.js';
import { runProcess } from '../base/process.js';

export const STATE_IS_POST = 'isPost';
export const STATE_WORK_ROOT = 'workRoot';
export const SANDBOX_LABEL = 'buildbench.sandbox';

export interface CommandResult {
  exitCode: number;
  output: string;
}

export interface PostDeps {
  /** Runs a program (no shell). */
  exec: (command: string, args: string[]) => Promise<CommandResult>;
  hasDocker: () => Promise<boolean>;
  removeTree: (dir: string) => Promise<void>;
  isRoot: boolean;
}

export const defaultPostDeps: PostDeps = {
  exec: async (command, args) => {
    const r = await runProcess(command, args, { timeoutMs: 120_000 });
    return { exitCode: r.exitCode, output: r.output };
  },
  hasDocker: async () => (await findExecutable('docker')) !== undefined,
  removeTree,
  isRoot: process.getuid?.() === 0,
};

export interface PostLog {
  info: (message: string) => void;
  warning: (message: string) => void;
}

export interface PostReport {
  containersRemoved: string[];
  workRootRemoved: boolean;
  warnings: string[];
}

/** Tears down what is left in `workRoot` (from the step state). Never throws. */
export async function cleanUp(
  workRoot: string,
  log: PostLog,
  deps: PostDeps = defaultPostDeps,
): Promise<PostReport> {
  const report: PostReport = { containersRemoved: [], workRootRemoved: false, warnings: [] };
  const warn = (message: string): void => {
    report.warnings.push(message);
    log.warning(message);
  };
  if (!workRoot) {
    log.info('buildbench post: the main step created no sandbox work folder; nothing to clean up');
    return report;
  }
  if (!existsSync(workRoot)) {
    log.info(`buildbench post: ${workRoot} is gone; the main step cleaned up after itself`);
    return report;
  }
  let ids: string[] = [];
  try {
    ids = (await readdir(workRoot, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (error) {
    warn(`buildbench post: cannot list ${workRoot}: ${errorMessage(error)}`);
  }

  if (ids.length > 0 && (await deps.hasDocker().catch(() => false))) {
    for (const id of ids) {
      try {
        const ps = await deps.exec('docker', ['ps', '-aq', '--filter', `label=${SANDBOX_LABEL}=${id}`]);
        if (ps.exitCode !== 0) {
          warn(
            `buildbench post: docker ps failed for sandbox ${id}: ${ps.output.trim().split('\n').pop() ?? ''}`,
          );
          continue;
        }
        const containers = ps.output.split(/\s+/).filter((s) => /^[0-9a-f]{6,64}$/i.test(s));
        if (containers.length === 0) continue;
        const rm = await deps.exec('docker', ['rm', '-f', ...containers]);
        if (rm.exitCode === 0) report.containersRemoved.push(...containers);
        else warn(`buildbench post: docker rm -f ${containers.join(' ')} failed: ${rm.output.trim()}`);
      } catch (error) {
        warn(`buildbench post: cannot remove the container of sandbox ${id}: ${errorMessage(error)}`);
      }
    }
  }
  if (report.containersRemoved.length > 0) {
    log.info(`buildbench post: removed ${report.containersRemoved.length} sandbox container(s)`);
  }

  try {
    await deps.removeTree(workRoot);
    report.workRootRemoved = true;
  } catch (error) {
    // Containers write files as root; a runner user with passwordless sudo can still remove them.
    let removed = false;
    if (!deps.isRoot) {
      const sudo = await deps
        .exec('sudo', ['-n', 'rm', '-rf', '--one-file-system', '--', workRoot])
        .catch(() => undefined);
      removed = sudo?.exitCode === 0;
    }
    if (removed) report.workRootRemoved = true;
    else warn(`buildbench post: could not remove ${workRoot}: ${errorMessage(error)}`);
  }
  if (report.workRootRemoved)
    log.info(`buildbench post: removed ${workRoot} (${ids.length} sandbox folder(s) left by the main step)`);
  return report;
}
