/**
 * src/cli/ — the command-line front door (floor 5). It owns argv: each command's module parses its own flags
 * (build and report: build-command.ts; the others: one file each) and makes one call into core; this file is the
 * one error boundary (one line, exit 2 for usage and configuration errors, never a stack trace) and the
 * dispatcher. A command's module is imported only when that command runs, so `--version` and `--help` load
 * nothing but the help texts, and no command loads what another one uses (issue 32; the model SDKs and the
 * chart libraries are imported later still, where they are used: test/integration/startup-modules.int.test.ts).
 */
import { ConfigError, errorMessage } from '../base/errors.js';
import { unknownNameHint } from '../base/suggest.js';
import { VERSION } from '../base/version.js';
import type { CliIo } from './io.js';
import { USAGE } from './usage.js';

export { BUILD_HELP, REPORT_HELP, USAGE } from './usage.js';

export type { CliIo } from './io.js';

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY,
  env: process.env,
  cwd: process.cwd(),
};

type Command = (args: string[], io: CliIo) => Promise<number>;

/** Each command, loaded when it runs. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  build: async () => (await import('./build-command.js')).runBuildCommand,
  deploy: async () => (await import('./deploy.js')).runDeployCommand,
  report: async () => (await import('./build-command.js')).runReportCommand,
  verify: async () => (await import('./verify.js')).runVerifyCommand,
  bench: async () => (await import('./bench.js')).runBenchCommand,
  matrix: async () => (await import('./matrix.js')).runMatrixCommand,
  leaderboard: async () => (await import('./compare.js')).runLeaderboardCommand,
  compare: async () => (await import('./compare.js')).runCompareCommand,
  diagnose: async () => (await import('./diagnose.js')).runDiagnoseCommand,
};

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
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!load)
      throw new ConfigError(
        `unknown command '${command}'${unknownNameHint(command, Object.keys(COMMANDS))}`,
        'see buildbench --help',
      );
    if (command === 'build' && (rest.includes('--help') || rest.includes('-h'))) {
      io.stdout((await import('./usage.js')).BUILD_HELP);
      return 0;
    }
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    io.stderr(`buildbench: ${errorMessage(error)}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}
