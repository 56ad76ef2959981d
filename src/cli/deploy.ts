/**
 * `buildbench deploy <repo> --task <deploy-task.yml>`: the run flags of `build` (the same resolver and
 * sandbox flags), the task file (the benchmark's deploy format, read by bench/load.ts), `--registries` and
 * the mirrors of the environment, then core/run-deploy.ts `runDeploy` under the same signal handling, summary
 * and exit status as `build`.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { MIRROR_VARIABLES, registrySettingsFrom } from '../core/deploy-goal.js';
import { runDeploy, type DeploySettings } from '../core/run-deploy.js';
import { CLI_DOOR, parseProgressInterval, repoNameOf, resolveRunSettings } from '../core/settings.js';
import { parseCliArgs, RUN_FLAGS, sandboxFromFlags } from './args.js';
import { runWithSignals } from './engine.js';

export const DEPLOY_USAGE = 'usage: buildbench deploy <path|git-url> --task <deploy-task.yml> [options]';

export const DEPLOY_HELP = `${DEPLOY_USAGE}

Turns a fresh sandbox into one where a paper's target experiment runs: the same engine as \`buildbench build\`
(the loop, the repairs, the stop-gate, the recipe replayed in a fresh sandbox) with the task's target as its
goal. After every script the target runs from its folder within its time limit and must leave its evidence
(files written during the run, output patterns, metrics in a results file); the task's verifier, hidden from
the strategy by default, runs once at the end. The task format is tasks/README.md (kind: deploy); a task's
budgets win over the flags below, as in \`buildbench bench\`. The repository deployed is <path|git-url> (the
task's own \`repository\` is what \`buildbench bench\` checks out).

Status: SUCCESS only when the target and the verifier both passed; PARTIAL when the setup ran through but the
target or the verifier failed (the failing check and its output are in result.json and RUNBOOK.md); FAILED
when the setup never ran through.

deploy options:
  --task <file.yml>    the deploy task (required)
  --registries <mode>  auto | online | offline: how language registries are reached (default: auto — the
                       registry, falling back to the distribution's packages when it is unreachable;
                       offline: the distribution's packages only; online: the registry only)
  --out <dir>          where results go (default: ./buildbench-out/<repo>)
  --keep               keep the sandbox's tree for inspection
  --json               print result.json on stdout instead of a summary
  --repos-dir <dir>    a folder the task's local repository may be in besides the task file's work tree
  --no-preinstall      do nothing before the first script (no programs or declared dependencies installed up
                       front, no repair the tree predicts): for before/after measurements
  --sandbox, --image, --strategy, --max-turns, --timeout, --turn-timeout, --model, --api-key, --base-url,
  --max-tokens, --max-cost, --prices, --build-cache, --network, --memory, --pids, --secret-env,
  --max-log-size, --idle-timeout, --progress-interval
                       as for build (see buildbench build --help)

Mirrors: these variables of this environment are passed to the setups (a value with user:password@ in it is
left out: secrets never enter a sandbox):
  ${MIRROR_VARIABLES.join(', ')}

Exit status: 0 success, 1 partial or failed, 2 usage or configuration error (a bad flag, a task file that does
not validate, a build task), 3 sandbox error, 130 cancelled.
Results: <out>/result.json (with a deploy section), RUNBOOK.md (how to run the target), build.sh, Dockerfile,
trajectory.jsonl, logs/.
`;

export interface DeployIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The deploy's settings from argv; every problem is a ConfigError naming the flag. */
export function parseDeployArgs(
  args: string[],
  io: Pick<DeployIo, 'env' | 'cwd'>,
): DeploySettings & { notes: string[]; progressIntervalMs: number } {
  const { values, positionals } = parseCliArgs(
    args,
    {
      ...RUN_FLAGS,
      task: { type: 'string' },
      registries: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      json: { type: 'boolean' },
      'repos-dir': { type: 'string' },
      'progress-interval': { type: 'string' },
      'no-preinstall': { type: 'boolean' },
    },
    { prefix: 'deploy: ', hint: 'see buildbench deploy --help' },
  );
  if (positionals.length === 0) throw new ConfigError('deploy: missing <path|git-url>', DEPLOY_USAGE);
  if (positionals.length > 1) {
    throw new ConfigError(
      `deploy: expected one repository, got ${positionals.length}: ${positionals.join(' ')}`,
      DEPLOY_USAGE,
    );
  }
  if (values.task === undefined) {
    throw new ConfigError('deploy: missing --task <deploy-task.yml>', DEPLOY_USAGE);
  }
  const source = positionals[0]!;
  const { expect: _expect, ...run } = resolveRunSettings(values, io.env, CLI_DOOR, io.cwd);
  const { registries, notes } = registrySettingsFrom(values.registries, io.env);
  return {
    ...run,
    source,
    taskFile: path.resolve(io.cwd, values.task),
    ...(values['repos-dir'] !== undefined ? { reposDir: path.resolve(io.cwd, values['repos-dir']) } : {}),
    outDir: path.resolve(io.cwd, values.out ?? path.join('buildbench-out', repoNameOf(source))),
    json: values.json ?? false,
    keep: values.keep ?? false,
    ...(values['no-preinstall'] ? { preinstall: false } : {}),
    sandbox: sandboxFromFlags(values, io),
    registries,
    notes,
    progressIntervalMs: parseProgressInterval(values['progress-interval'], '--progress-interval'),
  };
}

/** `buildbench deploy …`. */
export async function runDeployCommand(args: string[], io: DeployIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(DEPLOY_HELP);
    return 0;
  }
  const { notes, progressIntervalMs, ...settings } = parseDeployArgs(args, io);
  for (const note of notes) io.stderr(`buildbench: note: ${note}\n`);
  return runWithSignals(
    io,
    { json: settings.json, outDir: settings.outDir, what: 'deploy', progressIntervalMs },
    (options) => runDeploy(settings, options),
  );
}
