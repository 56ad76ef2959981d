/**
 * `buildbench bench`: task files or folders → a benchmark folder (core/run-bench.ts `runBenchmark`), with the
 * same settings resolver and sandbox flags as `build`, the suite's progress on stderr, SIGINT/SIGTERM as a
 * cancel (the running builds are stopped and cleaned up; `--resume` redoes them), and a short summary (or
 * JSON) on stdout.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { createBenchProgress } from '../bench/progress.js';
import { runBenchmark, type BenchmarkOutcome, type BenchSettings } from '../core/run-bench.js';
import { registrySettingsFrom } from '../core/deploy-goal.js';
import { parsePositiveInt, resolveRunSettings, CLI_DOOR } from '../core/settings.js';
import { parseCliArgs, RUN_FLAGS, sandboxFromFlags } from './args.js';

export const BENCH_USAGE =
  'usage: buildbench bench <task files or dirs…> [--runs N] [--concurrency C] [--out DIR] [--resume] [options]';

export const BENCH_HELP = `${BENCH_USAGE}

Runs every task N times through the same engine as \`buildbench build\` (one fresh sandbox per run, at most C
at once) and writes a benchmark folder:
  <out>/bench.json                 what it was run with (strategy, model, runs, tasks)
  <out>/runs/<task-id>/<n>/        each run's output folder (result.json, trajectory.jsonl, RUNBOOK.md, logs/,
                                   artifacts/) and its run.json, written last when the run has ended
  <out>/leaderboard.md/.json/.svg  the results of every run in the folder
A run folder without run.json was cut off (killed, cancelled): --resume deletes and redoes it, and skips every
run that has one. A repository that is missing or cannot be checked out is that task's error (in its
run.json), not the end of the benchmark.

bench options:
  --runs <n>           runs of each task (default: 1)
  --concurrency <c>    runs at once (default: 1)
  --out <dir>          the benchmark folder (default: ./buildbench-out/bench-<UTC date and time>); a folder that
                       holds a benchmark is refused unless --resume is given
  --resume             continue the benchmark in --out (same strategy and model): finished runs are kept
  --repos-dir <dir>    local mirrors: owner/name and GitHub URLs are <dir>/owner+name/ (a clone or a bare git
                       dir, or one in its repo/); without it they are cloned from GitHub once per benchmark.
                       A local repository must be inside the work tree that holds its task file, or here
  --strategy <name>    rules | baseline | llm | hybrid (default: rules; hybrid when --model is given)
  --model <p:model>, --api-key <key>, --base-url <url>, --prices <file>   the model, as for build
  --max-tokens <n>     token budget of each run (a task's budgets.maxTokens wins)
  --max-cost <usd>     dollar budget of each run (a task's budgets.maxCost wins)
  --max-turns <n>, --timeout <time>, --turn-timeout <t>
                       each run's limits, as for build (default 10, 1h, 30m); a task's budgets win
  --sandbox <kind>     auto | rootfs | docker | host (default: auto); --image, --build-cache, --network,
                       --memory, --pids, --secret-env, --max-log-size as for build
  --registries <mode>  deploy tasks: auto | online | offline, and the mirrors of the environment, as for
                       deploy (default: auto)
  --json               print the outcome as JSON on stdout instead of a summary

Tasks: see tasks/README.md (build tasks name the expected binaries; deploy tasks a verifier spec).
Exit status: 0 when the benchmark ran, whatever its builds did (their statuses are in the leaderboard and in
each run.json); 2 for bad flags, task files or --out; 130 when it was cancelled (SIGINT/SIGTERM).
`;

export interface BenchIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** `bench-2026-12-01T15-04-05Z`: a new folder name per invocation, sorted by time. */
export function defaultBenchFolder(now: Date): string {
  return `bench-${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}`;
}

export function parseBenchArgs(
  args: string[],
  io: Pick<BenchIo, 'env' | 'cwd'>,
  now = new Date(),
): BenchSettings & { json: boolean } {
  const { values, positionals } = parseCliArgs(
    args,
    {
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'boolean' },
      'repos-dir': { type: 'string' },
      json: { type: 'boolean' },
      registries: { type: 'string' },
      ...RUN_FLAGS,
    },
    { prefix: 'bench: ', hint: 'see buildbench bench --help' },
  );
  if (positionals.length === 0) throw new ConfigError('bench: missing <task files or dirs…>', BENCH_USAGE);
  if (values.resume && values.out === undefined) {
    throw new ConfigError(
      'bench: --resume needs --out',
      'pass the benchmark folder to continue: --out <dir> --resume',
    );
  }
  const { secretEnv, ...run } = resolveRunSettings(values, io.env, CLI_DOOR, io.cwd);
  return {
    tasks: positionals.map((p) => path.resolve(io.cwd, p)),
    outDir: path.resolve(io.cwd, values.out ?? path.join('buildbench-out', defaultBenchFolder(now))),
    runs: values.runs !== undefined ? parsePositiveInt(values.runs, '--runs', 1000) : 1,
    concurrency:
      values.concurrency !== undefined ? parsePositiveInt(values.concurrency, '--concurrency', 256) : 1,
    resume: values.resume ?? false,
    ...(values['repos-dir'] !== undefined ? { reposDir: path.resolve(io.cwd, values['repos-dir']) } : {}),
    json: values.json ?? false,
    build: {
      ...run,
      secretEnv,
      sandbox: sandboxFromFlags(values, io),
      registries: registrySettingsFrom(values.registries, io.env).registries,
    },
  };
}

/** The summary on stdout: where the folder is, the runs by status, the leaderboard's files. */
export function renderBenchSummary(outcome: BenchmarkOutcome): string {
  const statuses = new Map<string, number>();
  for (const record of outcome.records) statuses.set(record.status, (statuses.get(record.status) ?? 0) + 1);
  const total = outcome.manifest.runs * outcome.tasks.length;
  const lines = [
    `benchmark: ${outcome.outDir}`,
    `  ${outcome.tasks.length} tasks × ${outcome.manifest.runs} runs: ${outcome.records.length}/${total} done` +
      ` (${outcome.ran} now, ${outcome.skipped} before)${outcome.cut > 0 ? `, ${outcome.cut} not done` : ''}`,
    `  statuses: ${[...statuses].map(([s, n]) => `${s} ${n}`).join(', ') || 'none yet'}`,
  ];
  const errors = outcome.records.filter((r) => r.status === 'error');
  for (const r of errors.slice(0, 10))
    lines.push(`  error: ${r.task.id} #${r.run}: ${r.error ?? 'no message'}`);
  if (errors.length > 10) lines.push(`  … and ${errors.length - 10} more errors (see each run.json)`);
  if (outcome.leaderboard)
    lines.push(`  leaderboard: ${outcome.leaderboard.files.markdown} (and .json, .svg)`);
  if (outcome.cancelled) {
    lines.push(
      `  cancelled: continue with buildbench bench <the same tasks> --out ${outcome.outDir} --resume`,
    );
  }
  return lines.join('\n') + '\n';
}

function jsonOutcome(outcome: BenchmarkOutcome): string {
  const { tasks: _tasks, leaderboard, ...rest } = outcome;
  return (
    JSON.stringify({ ...rest, ...(leaderboard ? { leaderboard: leaderboard.files } : {}) }, null, 2) + '\n'
  );
}

/** `buildbench bench …`; `stderrIsTTY` decides between the progress bar and plain lines. */
export async function runBenchCommand(
  args: string[],
  io: BenchIo,
  { stderrIsTTY = process.stderr.isTTY === true }: { stderrIsTTY?: boolean } = {},
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(BENCH_HELP);
    return 0;
  }
  const settings = parseBenchArgs(args, io);
  const progress = createBenchProgress({ write: io.stderr, isTTY: stderrIsTTY });
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      progress.stop();
      io.stderr(
        `\nbuildbench: ${signal} received — stopping the running builds and cleaning up (press Ctrl-C again to force); --resume continues\n`,
      );
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await runBenchmark(settings, {
      signal: controller.signal,
      onEvent: (event) => progress.onEvent(event),
    });
    io.stdout(settings.json ? jsonOutcome(outcome) : renderBenchSummary(outcome));
    return outcome.cancelled ? 130 : 0;
  } finally {
    progress.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
