/**
 * `buildbench diagnose <log file|-> [--json] [--file path…]`: the diagnosis of a failed build log with no
 * sandbox — the same code the GitHub App runs on a failed CI job. The log is streamed (hundreds of MB are
 * fine); `--file` adds build files (the workflow that ran, a Makefile) for a suggestion on the line a fix
 * concerns. Exit status: 0 a diagnosis was printed, 1 nothing build-related was found, 2 usage errors.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

import { ConfigError, errorMessage } from '../base/errors.js';
import {
  diagnoseLogStream,
  suggestionDiff,
  type DiagnoseFile,
  type Diagnosis,
} from '../knowledge/diagnose/diagnosis.js';
import { collectSecretValues } from '../trajectory/redact.js';
import { parseCliArgs } from './parse-args.js';

export const DIAGNOSE_USAGE = 'usage: buildbench diagnose <log file|-> [--json] [--file path…]';

export const DIAGNOSE_HELP = `${DIAGNOSE_USAGE}

Reads a failed build log (a CI job's log: GitHub Actions timestamps, ##[group]/##[error] markers, colours
and CRLF are understood) and prints the root cause — the log lines it rests on, with their line numbers —,
the suggested fix (packages, flags, commands, a patch) and its confidence, or says plainly that it found
nothing build-related and why (a clean log, a network flake, failing tests, an error it does not know).
No sandbox, no model, no network: package names come from the offline tables in verifiers/.
  <log file|->         the log; - reads standard input
  --file <path>        a build file (the workflow that ran, a Makefile, CMakeLists.txt) for a suggestion
                       on the line the fix concerns, or a source file a patch would change, to see the
                       change as a diff (repeatable)
  --json               print the diagnosis as JSON (the shape in src/knowledge/diagnose/diagnosis.ts)

Secrets in the environment (tokens, *_KEY, *_SECRET, …) and well-known token formats are redacted from
the quoted lines. Exit status: 0 a diagnosis was printed, 1 nothing build-related found, 2 usage error.
`;

export interface DiagnoseIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Standard input, for `-` (default: process.stdin). */
  stdin?: Readable;
}

/** A build file given with --file is read whole up to this size; larger ones are refused by name. */
const MAX_BUILD_FILE_BYTES = 2 * 1024 * 1024;

function readBuildFile(cwd: string, given: string): DiagnoseFile {
  const absolute = path.resolve(cwd, given);
  let size: number;
  try {
    const stat = statSync(absolute);
    if (!stat.isFile())
      throw new ConfigError(`diagnose: --file ${given}: not a regular file`, DIAGNOSE_USAGE);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `diagnose: --file ${given}: cannot read it (${errorMessage(error)})`,
      DIAGNOSE_USAGE,
    );
  }
  if (size > MAX_BUILD_FILE_BYTES)
    throw new ConfigError(
      `diagnose: --file ${given}: ${size} bytes; a build file of at most ${MAX_BUILD_FILE_BYTES} bytes was expected`,
      DIAGNOSE_USAGE,
    );
  const relative = path.relative(cwd, absolute);
  const shown = relative && !relative.startsWith('..') ? relative : given;
  return { path: shown.split(path.sep).join('/'), content: readFileSync(absolute, 'utf8') };
}

function logStream(cwd: string, given: string, stdin: Readable): Readable {
  if (given === '-') return stdin;
  const absolute = path.resolve(cwd, given);
  try {
    if (!statSync(absolute).isFile())
      throw new ConfigError(`diagnose: ${given}: not a regular file`, DIAGNOSE_USAGE);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`diagnose: ${given}: cannot read the log (${errorMessage(error)})`, DIAGNOSE_USAGE);
  }
  return createReadStream(absolute, { highWaterMark: 256 * 1024 });
}

/** The diagnosis for a person. */
export function renderDiagnosis(diagnosis: Diagnosis): string {
  if (!diagnosis.found) {
    const what = {
      'no-error': 'no build error',
      unrecognized: 'an error the knowledge has no signature for',
      'flaky-network': 'not a build problem: a network flake',
      'tests-failed': 'not a build problem: tests failed',
      'runner-out-of-disk': 'not a build problem: the runner is out of disk',
      cancelled: 'not a build problem: the job was cancelled',
      timeout: 'not a build problem: the job ran out of time',
      infrastructure: 'not a build problem: the runner or a service failed',
    }[diagnosis.kind];
    const evidence = diagnosis.evidence ? `\n  ${diagnosis.evidence.line} | ${diagnosis.evidence.text}` : '';
    return `nothing build-related to fix (${what}): ${diagnosis.reason}${evidence}\n`;
  }
  const { rootCause, fix, confidence } = diagnosis;
  const out: string[] = [
    `root cause: ${rootCause.message} (${rootCause.id}, ${rootCause.category}; confidence ${confidence})`,
  ];
  const width = String(rootCause.lines.at(-1)?.line ?? 0).length;
  for (const q of rootCause.lines) out.push(`  ${String(q.line).padStart(width)} | ${q.text}`);
  if (rootCause.symptoms?.length) {
    out.push('later lines it explains:');
    for (const q of rootCause.symptoms) out.push(`  ${String(q.line).padStart(width)} | ${q.text}`);
  }
  if (!fix) {
    out.push('fix: nothing specific — the knowledge has no fix for this error');
    return `${out.join('\n')}\n`;
  }
  out.push(`fix (${fix.kind}, the engine's rule ${fix.rule}): ${fix.summary}`);
  if (fix.lookups?.length) out.push(`  look up: ${fix.lookups.join('; ')}`);
  if (fix.packages?.length) out.push(`  packages: ${fix.packages.join(' ')}`);
  for (const c of fix.commands ?? []) out.push(`  $ ${c}`);
  if (fix.suggestion) {
    out.push(`suggestion: ${fix.suggestion.path} line ${fix.suggestion.line} — ${fix.suggestion.why}`);
    for (const l of suggestionDiff(fix.suggestion).trimEnd().split('\n')) out.push(`  ${l}`);
  } else if (fix.patch) {
    for (const l of fix.patch.trimEnd().split('\n')) out.push(`  ${l}`);
  }
  return `${out.join('\n')}\n`;
}

/** `buildbench diagnose`. Usage errors are ConfigErrors (the CLI's boundary prints one line, exit 2). */
export async function runDiagnoseCommand(args: string[], io: DiagnoseIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(DIAGNOSE_HELP);
    return 0;
  }
  const { values, positionals } = parseCliArgs(
    args,
    { json: { type: 'boolean' }, file: { type: 'string', multiple: true } },
    { prefix: 'diagnose: ', hint: DIAGNOSE_USAGE },
  );
  if (positionals.length !== 1) {
    throw new ConfigError(
      `diagnose: expected one log file (or - for standard input), got ${positionals.length}${positionals.length > 0 ? `: ${positionals.join(' ')}` : ''}`,
      DIAGNOSE_USAGE,
    );
  }
  const files = (values.file ?? []).map((f) => readBuildFile(io.cwd, f));
  const stream = logStream(io.cwd, positionals[0] as string, io.stdin ?? process.stdin);
  let diagnosis: Diagnosis;
  try {
    diagnosis = await diagnoseLogStream(stream, { files, secrets: collectSecretValues(io.env) });
  } catch (error) {
    throw new ConfigError(`diagnose: ${positionals[0]}: cannot read the log (${errorMessage(error)})`);
  }
  io.stdout(values.json ? `${JSON.stringify(diagnosis, null, 2)}\n` : renderDiagnosis(diagnosis));
  return diagnosis.found ? 0 : 1;
}
