/**
 * `buildbench build` and `buildbench report`: their flags become one `BuildSettings` through the shared resolver
 * (core/settings.ts `resolveRunSettings` with the CLI's spelling of each flag); then one call into core. main.ts
 * imports this module only when one of these commands runs.
 */
import path from 'node:path';
import {
  repoNameOf,
  resolveRunSettings,
  parseProgressInterval,
  CLI_DOOR,
  type BuildSettings,
} from '../core/settings.js';
import { ConfigError } from '../base/errors.js';
import { runBuild } from '../core/run-build.js';
import { checkLocalSource, isGitUrl } from '../core/source.js';
import { loadSpec } from '../verify/spec.js';
import { parseCliArgs, RUN_FLAGS, sandboxFromFlags } from './args.js';
import { renderSummary, writeRunbook } from '../report/runbook.js';
import { runWithSignals } from './engine.js';
import { BUILD_HELP, REPORT_HELP } from './usage.js';
import type { CliIo } from './io.js';

export function parseBuildArgs(args: string[], io: Pick<CliIo, 'env' | 'cwd'>): BuildSettings {
  return parseBuildCommand(args, io).settings;
}

/** The build's settings, and how often a running script's heartbeat is printed (`--progress-interval`). */
export function parseBuildCommand(
  args: string[],
  io: Pick<CliIo, 'env' | 'cwd'>,
): { settings: BuildSettings; progressIntervalMs: number } {
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
      'progress-interval': { type: 'string' },
    },
    { hint: 'see buildbench build --help' },
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
  const progressIntervalMs = parseProgressInterval(values['progress-interval'], '--progress-interval');
  const settings: BuildSettings = {
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
  return { settings, progressIntervalMs };
}

/** `buildbench build <path|git-url> [options]`. */
export async function runBuildCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(BUILD_HELP);
    return 0;
  }
  const { settings, progressIntervalMs } = parseBuildCommand(args, io);
  // Usage errors are found before any output folder exists: a wrong path or spec leaves nothing behind.
  if (!isGitUrl(settings.source))
    await checkLocalSource(settings.source, path.resolve(io.cwd, settings.source));
  if (settings.spec !== undefined) await loadSpec(settings.spec);
  return await runWithSignals(
    io,
    { json: settings.json, outDir: settings.outDir, what: 'build', progressIntervalMs },
    (options) => runBuild(settings, options),
  );
}

/** `buildbench report <out-dir>`: RUNBOOK.md and the summary from the files alone; no sandbox. */
export async function runReportCommand(args: string[], io: CliIo): Promise<number> {
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
