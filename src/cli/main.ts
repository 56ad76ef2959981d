/**
 * src/cli/ — the command-line front door (floor 5). It owns argv: `build` flags become one `BuildSettings`
 * through the shared resolver (core/settings.ts `resolveRunSettings` with the CLI's spelling of each flag),
 * `report` and `verify` their own small settings; then one call into core, one error boundary (one line, exit
 * 2 for usage and configuration errors, never a stack trace), SIGINT/SIGTERM handling and the exit codes.
 */
import path from 'node:path';
import { repoNameOf, resolveRunSettings, CLI_DOOR, type BuildSettings } from '../core/settings.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import { runBuild } from '../core/run-build.js';
import { VERSION } from '../core/version.js';
import { runVerifyCommand } from './verify.js';
import { runMatrixCommand } from './matrix.js';
import { runBenchCommand } from './bench.js';
import { runCompareCommand, runLeaderboardCommand } from './compare.js';
import { runDiagnoseCommand } from './diagnose.js';
import { parseCliArgs, RUN_FLAGS, sandboxFromFlags } from './args.js';
import { renderSummary, writeRunbook } from '../report/runbook.js';
import { runDeployCommand } from './deploy.js';
import { exitCodeFor, runWithSignals, summaryFor } from './engine.js';

/** The build command's options, environment and exit status: the end of USAGE, and all of `build --help`. */
const BUILD_OPTIONS = `build options:
  --out <dir>          where results go (default: ./buildbench-out/<repo>)
  --sandbox <kind>     auto | rootfs | docker | host (default: auto — docker if an engine answers, else rootfs)
  --image <image>      docker image for --sandbox docker (default: ubuntu:22.04)
  --strategy <name>    rules | baseline | llm | hybrid (default: rules; hybrid when --model is given)
  --max-turns <n>      at most n scripts (default: 10)
  --timeout <time>     wall-clock budget for the whole run, e.g. 900, 20m, 1h (default: 1h)
  --turn-timeout <t>   wall-clock cap for one script (default: 30m)
  --idle-timeout <t>   a script that prints nothing this long is ended and the run is 'stalled'
                       (default: 10m; 0 or off: never)
  --expect <names>     comma-separated binaries that must be built, e.g. foo,libfoo.so
                       (default: inferred from the build files)
  --model <p:model>    a model for the llm/hybrid strategies: openai:<model> (any OpenAI-compatible
                       server via --base-url) or anthropic:<model>
  --api-key <key>      the model's key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)
  --base-url <url>     the model server (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's)
  --max-tokens <n>     token budget for the whole run (input + output)
  --max-cost <usd>     dollar budget for the whole run
  --prices <file>      a price table (YAML) replacing the shipped one
  --keep               keep the sandbox's build tree for inspection (its location is printed)
  --no-preinstall      do not install the dependencies the build files declare before the first script
                       (the repair loop then finds each missing package; for before/after measurements)
  --always-replay      replay build.sh in a new fresh sandbox even when the first turn, the first script of
                       the run's fresh sandbox, passed and is build.sh byte for byte (default: that turn is
                       the replay; a second, independent build catches one that is not repeatable)
  --build-cache <dir>  package downloads and ccache shared by rootfs and docker sandboxes, or 'off'
                       (default: BUILDBENCH_BUILD_CACHE, else <cache>/build-cache)
  --network <mode>     isolated | host | none: the build's network (default: isolated — its own network
                       namespace with user-mode networking: package mirrors yes, this machine's loopback no)
  --memory <size|off>  memory limit of the sandbox, e.g. 8G (default: 3/4 of this machine's memory)
  --pids <n|off>       most processes at once in the sandbox (default: 16384)
  --spec <file.yml>    a layer-2 verifier spec: commands run in the final environment and what they
                       must show (exit code, files, output, a port, GPU); hidden: true runs it after the end
  --secret-env <names> variables of this environment whose values are secrets, e.g. DATABASE_URL,DEPLOY_KEY
                       (repeatable; also BUILDBENCH_SECRET_ENV): redacted from every output file like
                       *_TOKEN, *_KEY, *SECRET* and *PASSWORD* variables are
  --max-log-size <n>   each log keeps its first and last half of n bytes, e.g. 512K, 20M (default: 20M)
  --json               print result.json on stdout instead of a summary

Environment:
  BUILDBENCH_CACHE_DIR  cache for the rootfs base and toolchain layer (default: ~/.cache/buildbench)
  BUILDBENCH_WORK_DIR   where per-build sandboxes live (default: <cache>/work)
  BUILDBENCH_BUILD_CACHE  the build cache folder, or 'off' (default: <cache>/build-cache)
  BUILDBENCH_MIRROR     Debian mirror for the rootfs base (default: http://deb.debian.org/debian)
  BUILDBENCH_SECRET_ENV comma-separated variable names whose values are secrets (as --secret-env)

Exit status: 0 success, 1 partial or failed build, 2 usage or configuration error, 3 sandbox error
(the sandbox could not be started or failed, not the build), 130 cancelled.
Results: <out>/result.json, trajectory.jsonl, logs/turn-NN.log, artifacts/.
`;

export const USAGE = `buildbench ${VERSION} — builds other people's software in a sandbox and proves the result

Usage:
  buildbench build <path|git-url> [options]
  buildbench deploy <path|git-url> --task <deploy-task.yml> [options]
                                   make a paper's target experiment run; a hidden verifier judges it (see deploy --help)
  buildbench report <out-dir>      re-render RUNBOOK.md and print the summary from result.json + trajectory.jsonl
  buildbench verify <out-dir|build-tree> [--spec file.yml] [--expect names] [--sandbox auto|rootfs|host|none] [--json]
                                   re-run the verifiers on a kept (--keep) or hand-made build; exit 0 all pass, 1 not
  buildbench bench <task files or dirs…> [--runs N] [--concurrency C] [--out DIR] [--resume] [--repos-dir DIR]
                                   run a benchmark suite into a bench folder with a leaderboard (see bench --help)
  buildbench matrix <task files or dirs…> [--runs N] [--chunk 256] [--labels gpu=self-hosted,gpu]…
                                   print the GitHub Actions matrix of a benchmark (JSON; see matrix --help)
  buildbench leaderboard <dirs…> [--out DIR]
                                   (re)render leaderboard.md, .json and .svg from result folders
  buildbench compare <A> <B> [--json] [--fail-if strict-dropped|flexible-dropped|any-loss]
                                   per-task wins, losses and ties of B against A; exit 1 when --fail-if holds
  buildbench diagnose <log file|-> [--json] [--file path…]
                                   root cause and fix of a failed build log, no sandbox; exit 1 nothing build-related
  buildbench --help | --version
  buildbench <command> --help      one command's options

${BUILD_OPTIONS}`;

/** `buildbench build --help`. */
export const BUILD_HELP = `usage: buildbench build <path|git-url> [options]

Builds the repository at <path> (or a clone of <git-url>) in a fresh sandbox, repairs what fails, proves the
result with verifiers and writes result.json, RUNBOOK.md, build.sh, a Dockerfile and patches to --out.

${BUILD_OPTIONS}`;

/** `buildbench report --help`. */
export const REPORT_HELP = `usage: buildbench report <out-dir>

Re-renders RUNBOOK.md in <out-dir> from its result.json and trajectory.jsonl and prints the summary
\`buildbench build\` printed. Runs nothing: no sandbox, no model.

Exit status: 0 done, 2 usage error or an unreadable result.json.
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
};

export function parseBuildArgs(args: string[], io: Pick<CliIo, 'env' | 'cwd'>): BuildSettings {
  const parsed = parseCliArgs(
    args,
    {
      ...RUN_FLAGS,
      out: { type: 'string' },
      expect: { type: 'string' },
      keep: { type: 'boolean' },
      'no-preinstall': { type: 'boolean' },
      'always-replay': { type: 'boolean' },
      json: { type: 'boolean' },
      spec: { type: 'string' },
    },
    { hint: 'see buildbench --help' },
  );
  const { values, positionals } = parsed;
  if (positionals.length === 0)
    throw new ConfigError(
      'build: missing <path|git-url>',
      'usage: buildbench build <path|git-url> [options]',
    );
  if (positionals.length > 1) {
    throw new ConfigError(
      `build: expected one repository, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const source = positionals[0]!;
  const run = resolveRunSettings(values, io.env, CLI_DOOR, io.cwd);
  return {
    source,
    outDir: path.resolve(io.cwd, values.out ?? path.join('buildbench-out', repoNameOf(source))),
    ...run,
    json: values.json ?? false,
    keep: values.keep ?? false,
    ...(values['no-preinstall'] ? { preinstall: false } : {}),
    ...(values['always-replay'] ? { replay: 'always' as const } : {}),
    sandbox: sandboxFromFlags(values, io),
    ...(values.spec !== undefined ? { spec: path.resolve(io.cwd, values.spec) } : {}),
  };
}

export { exitCodeFor, summaryFor };

/** The CLI's one error boundary: one clear line and a non-zero exit, never a stack trace. */
export async function run(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-V') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    if (command === 'report') return await runReport(rest, io);
    if (command === 'verify') return await runVerifyCommand(rest, io);
    if (command === 'matrix') return await runMatrixCommand(rest, io);
    if (command === 'bench') return await runBenchCommand(rest, io);
    if (command === 'leaderboard') return await runLeaderboardCommand(rest, io);
    if (command === 'compare') return await runCompareCommand(rest, io);
    if (command === 'diagnose') return await runDiagnoseCommand(rest, io);
    if (command === 'deploy') return await runDeployCommand(rest, io);
    if (command !== 'build')
      throw new ConfigError(
        `unknown command '${command}'`,
        'expected build, deploy, report, verify, bench, matrix, leaderboard, compare or diagnose; see buildbench --help',
      );
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(BUILD_HELP);
      return 0;
    }
    const settings = parseBuildArgs(rest, io);
    return await runWithSignals(
      io,
      { json: settings.json, outDir: settings.outDir, what: 'build' },
      (options) => runBuild(settings, options),
    );
  } catch (error) {
    io.stderr(`buildbench: ${errorMessage(error)}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}

/** `buildbench report <out-dir>`: RUNBOOK.md and the summary from the files alone; no sandbox. */
async function runReport(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(REPORT_HELP);
    return 0;
  }
  const unknown = args.find((a) => a.startsWith('-'));
  const usage = 'usage: buildbench report <out-dir>';
  if (unknown) throw new ConfigError(`report: unknown option '${unknown}'`, usage);
  if (args.length !== 1) throw new ConfigError('report: expected one output folder', usage);
  const outDir = path.resolve(io.cwd, args[0]!);
  const input = await writeRunbook(outDir);
  if (input.trajectoryRefused)
    io.stderr(`buildbench: report: the trajectory was not read: ${input.trajectoryRefused}\n`);
  io.stdout(renderSummary(input, outDir));
  return 0;
}
