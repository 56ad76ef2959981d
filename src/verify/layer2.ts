/**
 * Runs a layer-2 spec's checks in the final environment, through the Sandbox interface only (so the same
 * spec works in the rootfs, docker and host backends).
 *
 * Each check is one `sandbox.exec` of a generated bash script: the check's command runs in the background
 * under `timeout` with stdout and stderr going to separate files; in the same exec the script probes the
 * TCP port (bash's `/dev/tcp`) and polls the serial log, because background processes do not survive
 * between exec calls (and, when GPU evidence is expected, samples nvidia-smi's compute processes while the
 * command runs); then it stops what is still running, asks `nvidia-smi -L` for a device when GPU
 * evidence is expected and tests the expected files (`-e`, `-s`, `find -newer` a marker written when the
 * check started) and copies each metrics file into the scratch folder (read inside the sandbox, so a link the
 * build planted is followed there, never on this machine). Its results go to a scratch folder in the working copy (`.buildbench/checks/<id>/`,
 * visible on this machine at `hostWorkdir`), are judged here — regular expressions in JavaScript syntax,
 * against the full captured streams — and the folder is removed.
 *
 * Hidden specs are run by the harness after the strategy finished (see spec.ts); this module does not know
 * or care which kind it runs. A deploy run passes `envFile` (its `.buildbench/deploy-env.sh`): sourced, when it
 * exists, before every check's command, so the checks run in the environment the setup made.
 */
import { randomBytes } from 'node:crypto';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';

import { lstatUnder, mkdirUnder, openUnder, writeFileUnder } from '../base/safe-fs.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Layer2Spec, SpecCheck, SpecMetric } from './spec.js';
import { shellQuote } from '../base/shell.js';
import { COMPUTE_APPS_QUERY, gpuUseEvidence, MEMORY_QUERY } from './gpu.js';

export interface ExpectationResult {
  /** `exit_code`, `files[0]`, `stdout`, `port`, `gpu`, `serial_log`, … */
  what: string;
  passed: boolean;
  detail: string;
}

export interface CheckOutcome {
  name: string;
  passed: boolean;
  /** One line: the failures, or what was shown when it passed. */
  detail: string;
  /** The command's exit status; null when it was still running when the probes ended, or never ran. */
  exitCode: number | null;
  durationMs: number;
  results: ExpectationResult[];
  /** When the check failed: the last lines of what its command printed (stdout, then stderr). */
  outputTail?: string;
}

export interface Layer2Result {
  /** The spec file. */
  spec: string;
  hidden: boolean;
  passed: boolean;
  checks: CheckOutcome[];
}

export interface RunSpecOptions {
  signal?: AbortSignal;
  /**
   * A shell file (relative to the repository root) sourced before every command when it exists: a deploy
   * run's environment (`DEPLOY_ENV_FILE`), so the checks see the tools its setup installed.
   */
  envFile?: string;
}

/** Scratch folder, relative to the repository root, for checks and probes. */
export const SCRATCH_DIR = '.buildbench';
/** Bytes of each stream read back for pattern matching (the tail, when a stream is longer). */
const MAX_STREAM_BYTES = 8 * 1024 * 1024;
const MAX_DETAIL = 600;
/** Bytes of a metrics file copied back (a results file, not a dataset). */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;
/** Lines of each stream kept as a failed check's output tail. */
const TAIL_LINES = 15;

const seconds = (ms: number): string => String(Math.round(ms) / 1000);

const smiArgs = (args: readonly string[]): string => args.map(shellQuote).join(' ');

/** Before a GPU check's command: the compute processes and device memory already there. */
function gpuBaseline(): string[] {
  return [
    'smi=$(command -v nvidia-smi 2> /dev/null)',
    'if [ -n "$smi" ]; then',
    `  timeout 20 "$smi" ${smiArgs(COMPUTE_APPS_QUERY)} > "$D/gpu-before" 2> /dev/null`,
    `  timeout 20 "$smi" ${smiArgs(MEMORY_QUERY)} 2> /dev/null | sed 's/^/mem /' >> "$D/gpu-before"`,
    'fi',
  ];
}

/**
 * While a GPU check's command runs: every half second, nvidia-smi's compute processes and device memory, and
 * the command's own processes (its process group, which `timeout` leads) from /proc — so the judge can tell
 * the target's use of the GPU from a GPU that merely exists (see `gpuUseEvidence` in gpu.ts).
 */
function gpuSampler(): string[] {
  return [
    'sampler=',
    'if [ -n "$smi" ]; then',
    '  (',
    '    while kill -0 "$pid" 2> /dev/null; do',
    '      echo "# sample $(now_ms)"',
    `      timeout 20 "$smi" ${smiArgs(COMPUTE_APPS_QUERY)} 2> /dev/null`,
    `      timeout 20 "$smi" ${smiArgs(MEMORY_QUERY)} 2> /dev/null | sed 's/^/mem /'`,
    '      for s in /proc/[0-9]*/stat; do',
    '        read -r l < "$s" 2> /dev/null || continue',
    '        r=${l##*) }; set -- $r',
    '        [ "${3:-}" = "$pid" ] || continue',
    '        c=${l#*(}; c=${c%)*}; p=${s#/proc/}',
    '        echo "proc ${p%/stat} $c"',
    '      done',
    '      sleep 0.5',
    '    done',
    '  ) >> "$D/gpu-samples" 2> /dev/null &',
    '  sampler=$!',
    'fi',
  ];
}

/**
 * The script for one check. `dir` is the check's scratch folder as the sandbox sees it; the command itself
 * is in `<dir>/cmd.sh` and the serial-log pattern in `<dir>/serial.pat` (written by the caller), so nothing
 * from the spec is pasted into shell syntax except quoted paths and validated numbers.
 */
export function checkScript(check: SpecCheck, dir: string): string {
  const e = check.expect;
  const stopAfterProbes = (e.port !== undefined || e.serialLog !== undefined) && e.exitCode === undefined;
  const lines = [
    'set +e',
    `D=${shellQuote(dir)}`,
    ': > "$D/results"',
    'record() { printf "%s\\n" "$*" >> "$D/results"; }',
    'now_ms() { local t; t=$(date +%s%N); echo $(( t / 1000000 )); }',
    // The marker's mtime is the check's start; a short pause so that a file written right after it gets a
    // later (coarse-grained) timestamp.
    ': > "$D/start"',
    'sleep 0.05',
    't0=$(now_ms)',
    ...(e.gpu ? gpuBaseline() : []),
    `timeout -k 5 ${seconds(check.timeoutMs)} bash "$D/cmd.sh" > "$D/stdout" 2> "$D/stderr" < /dev/null &`,
    'pid=$!',
    ...(e.gpu ? gpuSampler() : []),
  ];
  if (e.port) {
    lines.push(
      `deadline=$(( t0 + ${e.port.withinMs} ))`,
      'ok=0',
      'while :; do',
      `  if timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' probe ${shellQuote(e.port.host)} ${e.port.port} > /dev/null 2>&1; then ok=1; break; fi`,
      '  [ "$(now_ms)" -ge "$deadline" ] && break',
      '  sleep 0.2',
      'done',
      'record "port $ok $(( $(now_ms) - t0 ))"',
    );
  }
  if (e.serialLog) {
    lines.push(
      `F=${shellQuote(e.serialLog.path)}`,
      `deadline=$(( t0 + ${e.serialLog.withinMs} ))`,
      'ok=0',
      // Only a log written since the check started counts: a previous boot's log is never evidence.
      'fresh() { [ -f "$F" ] && [ -n "$(find "$F" -maxdepth 0 -newer "$D/start" 2> /dev/null)" ]; }',
      'seen() { fresh && grep -qaP -f "$D/serial.pat" -- "$F" 2> /dev/null; }',
      'while :; do',
      // grep -P is close to JavaScript's syntax; it only ends the wait early. The verdict is made with the
      // JavaScript expression on the log read back.
      '  if seen; then ok=1; break; fi',
      // The command (the guest) ended: one last look, and no waiting for a log nothing writes any more.
      '  if ! kill -0 "$pid" 2> /dev/null; then seen && ok=1; break; fi',
      '  [ "$(now_ms)" -ge "$deadline" ] && break',
      '  sleep 0.2',
      'done',
      'record "serial $ok $(( $(now_ms) - t0 ))"',
      'fresh && tail -c 4194304 -- "$F" > "$D/serial.log" 2> /dev/null',
    );
  }
  lines.push('running=0');
  if (stopAfterProbes) {
    lines.push('if kill -0 "$pid" 2> /dev/null; then running=1; kill -TERM "$pid" 2> /dev/null; fi');
  }
  lines.push(
    'wait "$pid"',
    'rc=$?',
    ...(e.gpu
      ? ['[ -n "${sampler:-}" ] && { kill "$sampler" 2> /dev/null; wait "$sampler" 2> /dev/null; }']
      : []),
    'record "exit $rc $(( $(now_ms) - t0 )) $running"',
    // timeout made its own process group: whatever the command left running in it goes now.
    'kill -KILL -- -"$pid" 2> /dev/null',
  );
  if (e.gpu) {
    lines.push(
      'if command -v nvidia-smi > /dev/null 2>&1; then',
      '  timeout 60 nvidia-smi -L > "$D/gpu" 2>&1',
      '  record "gpu $?"',
      'else',
      '  record "gpu 127"',
      'fi',
    );
  }
  e.metrics.forEach((metric, i) => {
    lines.push(
      `f=${shellQuote(metric.file)}`,
      `if [ -f "$f" ]; then head -c ${MAX_METRICS_BYTES} -- "$f" > "$D/metric-${i}" 2> /dev/null; record "metric ${i} 1"; else record "metric ${i} 0"; fi`,
    );
  });
  e.files.forEach((file, i) => {
    lines.push(
      `f=${shellQuote(file.path)}; x=0; s=0; n=0`,
      '[ -e "$f" ] && x=1',
      '[ -s "$f" ] && s=1',
      '[ -n "$(find "$f" -maxdepth 0 -newer "$D/start" 2> /dev/null)" ] && n=1',
      `record "file ${i} $x$s$n"`,
    );
  });
  lines.push('record done', 'exit 0');
  return lines.join('\n') + '\n';
}

interface ScriptResults {
  exit?: { code: number; ms: number; running: boolean };
  port?: { ok: boolean; ms: number };
  serial?: { ok: boolean; ms: number };
  gpu?: number;
  files: Map<number, { exists: boolean; nonEmpty: boolean; newer: boolean }>;
  /** Metrics file index → it existed (and was copied to `metric-<i>`). */
  metrics: Map<number, boolean>;
  done: boolean;
}

export function parseResults(text: string): ScriptResults {
  const results: ScriptResults = { files: new Map(), metrics: new Map(), done: false };
  for (const line of text.split('\n')) {
    const [kind, ...rest] = line.trim().split(/\s+/);
    const n = rest.map(Number);
    if (kind === 'exit' && n.length >= 3) results.exit = { code: n[0]!, ms: n[1]!, running: n[2] === 1 };
    else if (kind === 'port' && n.length >= 2) results.port = { ok: n[0] === 1, ms: n[1]! };
    else if (kind === 'serial' && n.length >= 2) results.serial = { ok: n[0] === 1, ms: n[1]! };
    else if (kind === 'gpu' && n.length >= 1) results.gpu = n[0]!;
    else if (kind === 'file' && rest.length >= 2) {
      const flags = rest[1]!;
      results.files.set(Number(rest[0]), {
        exists: flags[0] === '1',
        nonEmpty: flags[1] === '1',
        newer: flags[2] === '1',
      });
    } else if (kind === 'metric' && n.length >= 2) results.metrics.set(n[0]!, n[1] === 1);
    else if (kind === 'done') results.done = true;
  }
  return results;
}

/** The last `max` bytes of a scratch file the sandbox wrote, never read through a symbolic link; '' when unreadable. */
async function readTail(root: string, rel: string, max = MAX_STREAM_BYTES): Promise<string> {
  let opened;
  try {
    opened = await openUnder(root, rel);
  } catch {
    return '';
  }
  const { handle, stats } = opened;
  try {
    const length = Math.min(stats.size, max);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, stats.size - length);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

function clip(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  return clip(lines[lines.length - 1] ?? '');
}

/** ` (last output: …)` from the command's streams, or '' when it printed nothing: why a guest never spoke. */
function lastOutput(captured: Pick<Captured, 'stdout' | 'stderr'>): string {
  const tail = lastLine(captured.stderr) || lastLine(captured.stdout);
  return tail ? ` (last output: ${tail})` : '';
}

function matchLine(text: string, pattern: string): string | undefined {
  const m = new RegExp(pattern, 'm').exec(text);
  if (!m) return undefined;
  const start = text.lastIndexOf('\n', m.index) + 1;
  const end = text.indexOf('\n', m.index);
  return clip(text.slice(start, end < 0 ? undefined : end));
}

interface Captured {
  stdout: string;
  stderr: string;
  serial: string;
  gpu: string;
  /** Each metrics file's text as copied inside the sandbox ('' when it was missing). */
  metrics?: string[];
  /** What the GPU sampler recorded while the command ran, and just before (absent: not sampled). */
  gpuSamples?: string;
  gpuBefore?: string;
}

/** The value at a dotted path (`eval.top1`, `runs.0.loss`) of parsed JSON; undefined when it is not there. */
export function valueAt(data: unknown, key: string): unknown {
  let node: unknown = data;
  for (const segment of key.split('.')) {
    if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
    else if (node !== null && typeof node === 'object' && Object.hasOwn(node, segment))
      node = (node as Record<string, unknown>)[segment];
    else return undefined;
  }
  return node;
}

/** One metric's verdict from the text of its file. Pure. */
export function judgeMetric(
  metric: SpecMetric,
  text: string | undefined,
): { passed: boolean; detail: string } {
  const where = `${metric.file}: ${metric.key}`;
  if (text === undefined) return { passed: false, detail: `${where}: not read (no such file)` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { passed: false, detail: `${metric.file} is not valid JSON` };
  }
  const value = valueAt(data, metric.key);
  if (value === undefined) return { passed: false, detail: `${where} is missing` };
  if (typeof value !== 'number' || !Number.isFinite(value))
    return {
      passed: false,
      detail: `${where} is ${clip(JSON.stringify(value), 40)}, not a number`,
    };
  const bounds = [
    ...(metric.min !== undefined ? [`≥ ${metric.min}`] : []),
    ...(metric.max !== undefined ? [`≤ ${metric.max}`] : []),
  ].join(' and ');
  const low = metric.min !== undefined && value < metric.min;
  const high = metric.max !== undefined && value > metric.max;
  if (low || high) return { passed: false, detail: `${where} = ${value}, expected ${bounds}` };
  return { passed: true, detail: `${where} = ${value}${bounds ? ` (${bounds})` : ''}` };
}

/** The last lines of what a command printed, stdout then stderr, for a failed check's evidence. */
export function outputTail(stdout: string, stderr: string, lines = TAIL_LINES): string {
  const last = (text: string): string => text.trimEnd().split('\n').slice(-lines).join('\n');
  const parts = [
    ...(stdout.trim() ? [`stdout:\n${last(stdout)}`] : []),
    ...(stderr.trim() ? [`stderr:\n${last(stderr)}`] : []),
  ];
  const text = parts.join('\n');
  return text.length > 4000 ? `…${text.slice(-3999)}` : text;
}

/** Judges one check from what its script recorded. Pure; exported for tests. */
export function judgeCheck(
  check: SpecCheck,
  results: ScriptResults,
  captured: Captured,
  exec: { exitCode: number; timedOut: boolean; output: string },
): CheckOutcome {
  const e = check.expect;
  const out: ExpectationResult[] = [];
  const add = (what: string, passed: boolean, detail: string): void => {
    out.push({ what, passed, detail });
  };
  if (!results.exit) {
    const why = exec.timedOut
      ? 'the check did not finish in time'
      : `the check's script ended early (exit code ${exec.exitCode})`;
    const tail = lastLine(exec.output);
    add('run', false, `${why}${tail ? `: ${tail}` : ''}`);
    return finishOutcome(check, out, null, 0);
  }
  const { code, ms, running } = results.exit;
  const timedOut = !running && code === 124 && ms + 100 >= check.timeoutMs;
  if (e.exitCode) {
    if (timedOut) {
      add('exit_code', false, `timed out after ${seconds(check.timeoutMs)} s`);
    } else {
      const ok = e.exitCode.includes(code);
      const tail = lastLine(captured.stderr) || lastLine(captured.stdout);
      add(
        'exit_code',
        ok,
        ok
          ? `exit ${code}`
          : `exit code ${code}, expected ${e.exitCode.join(' or ')}${tail ? ` (last output: ${tail})` : ''}`,
      );
    }
  } else if (timedOut) {
    add('timeout', false, `timed out after ${seconds(check.timeoutMs)} s`);
  }
  const both = `${captured.stdout}\n${captured.stderr}`;
  const streams = [
    ['stdout', captured.stdout, e.stdout, e.stdoutNot],
    ['stderr', captured.stderr, e.stderr, e.stderrNot],
    ['output', both, e.output, e.outputNot],
  ] as const;
  for (const [label, text, must, mustNot] of streams) {
    for (const pattern of must) {
      const line = matchLine(text, pattern);
      add(
        label,
        line !== undefined,
        line !== undefined ? `${label} matches /${pattern}/` : `${label} has no match for /${pattern}/`,
      );
    }
    for (const pattern of mustNot) {
      const line = matchLine(text, pattern);
      add(
        `${label}_not`,
        line === undefined,
        line === undefined ? `${label} has no /${pattern}/` : `${label} matches /${pattern}/: ${line}`,
      );
    }
  }
  e.files.forEach((file, i) => {
    const got = results.files.get(i);
    const what = `files[${i}]`;
    if (!got?.exists) add(what, false, `${file.path} does not exist`);
    else if (file.nonEmpty && !got.nonEmpty) add(what, false, `${file.path} is empty`);
    else if (file.newerThanStart && !got.newer)
      add(what, false, `${file.path} was not written during the check`);
    else add(what, true, `${file.path} exists`);
  });
  if (e.port) {
    const where = `port ${e.port.port} on ${e.port.host}`;
    const ok = results.port?.ok === true;
    add(
      'port',
      ok,
      ok
        ? `${where} answered after ${seconds(results.port?.ms ?? 0)} s`
        : `${where} did not answer within ${seconds(e.port.withinMs)} s`,
    );
  }
  if (e.gpu) {
    const device = /^GPU \d+:.*$/m.exec(captured.gpu)?.[0];
    if (results.gpu === 127) add('gpu', false, 'nvidia-smi is not available in the sandbox');
    else if (results.gpu !== 0 || !device)
      add('gpu', false, `nvidia-smi lists no device (exit ${results.gpu ?? '?'}: ${lastLine(captured.gpu)})`);
    else add('gpu', true, `nvidia-smi lists ${clip(device, 80)}`);
    const line = e.gpu.pattern !== undefined ? matchLine(both, e.gpu.pattern) : undefined;
    if (e.gpu.pattern !== undefined) {
      add(
        'gpu.pattern',
        line !== undefined,
        line !== undefined
          ? `GPU use shown: ${line}`
          : `no output matches /${e.gpu.pattern}/ (GPU use not shown)`,
      );
    }
    // A GPU that exists is not a GPU that was used: the target's process among the compute processes, or
    // the framework's own report of the device (the pattern), is.
    if (results.gpu === 0 && device) {
      const use = gpuUseEvidence(captured.gpuSamples ?? '', captured.gpuBefore ?? '');
      if (use.shown) add('gpu.used', true, use.shown);
      else if (line !== undefined) add('gpu.used', true, `the output reports the device: ${line}`);
      else
        add(
          'gpu.used',
          false,
          `no evidence that the target used the GPU: none of its processes was a compute process in ${use.samples} nvidia-smi sample${use.samples === 1 ? '' : 's'}${e.gpu.pattern !== undefined ? '' : ', and no gpu.pattern names the line where it reports the device'}`,
        );
    }
  }
  e.metrics.forEach((metric, i) => {
    const copied = results.metrics.get(i) === true;
    const verdict = judgeMetric(metric, copied ? (captured.metrics?.[i] ?? '') : undefined);
    add(`metrics[${i}]`, verdict.passed, verdict.detail);
  });
  if (e.serialLog) {
    const log = e.serialLog;
    const line = matchLine(captured.serial, log.pattern);
    const when = results.serial?.ok ? ` after ${seconds(results.serial.ms)} s` : '';
    add(
      'serial_log',
      line !== undefined,
      line !== undefined
        ? `${log.path} shows /${log.pattern}/${when}`
        : `${
            captured.serial === ''
              ? `${log.path} is missing or empty after ${seconds(log.withinMs)} s`
              : `${log.path} has no match for /${log.pattern}/ within ${seconds(log.withinMs)} s`
          }${lastOutput(captured)}`,
    );
  }
  const outcome = finishOutcome(check, out, running ? null : code, ms);
  const tail = outcome.passed ? '' : outputTail(captured.stdout, captured.stderr);
  return tail ? { ...outcome, outputTail: tail } : outcome;
}

function finishOutcome(
  check: SpecCheck,
  results: ExpectationResult[],
  exitCode: number | null,
  durationMs: number,
): CheckOutcome {
  const failed = results.filter((r) => !r.passed);
  const passed = failed.length === 0;
  let detail = (passed ? results : failed).map((r) => r.detail).join('; ') || 'ran';
  if (detail.length > MAX_DETAIL) detail = `${detail.slice(0, MAX_DETAIL - 1)}…`;
  return { name: check.name, passed, detail, exitCode, durationMs, results };
}

/**
 * A fresh scratch folder `.buildbench/<kind>/<id>` in the tree the build wrote, made without following symbolic
 * links: its path on this machine, inside the sandbox, and relative to the tree. A build that planted a link where it goes gets a
 * `notRun` reason instead: nothing is written through the link, nothing runs.
 */
export async function makeScratchDir(
  sandbox: Pick<Sandbox, 'hostWorkdir' | 'workdir'>,
  kind: string,
): Promise<{ hostDir: string; boxDir: string; rel: string } | { notRun: string }> {
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const rel = path.posix.join(SCRATCH_DIR, kind, id);
  try {
    const hostDir = await mkdirUnder(sandbox.hostWorkdir, rel);
    return { hostDir, boxDir: path.posix.join(sandbox.workdir, rel), rel };
  } catch (error) {
    return { notRun: `not run: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Runs one check in the sandbox and judges it. */
export async function runCheck(
  check: SpecCheck,
  sandbox: Sandbox,
  options: RunSpecOptions = {},
): Promise<CheckOutcome> {
  const scratch = await makeScratchDir(sandbox, 'checks');
  if ('notRun' in scratch) {
    return {
      name: check.name,
      passed: false,
      detail: scratch.notRun,
      exitCode: null,
      durationMs: 0,
      results: [],
    };
  }
  const { hostDir, boxDir, rel } = scratch;
  const root = sandbox.hostWorkdir;
  try {
    // Through the no-follow writer: a process the build left running could swap the scratch folder.
    const command = check.command.endsWith('\n') ? check.command : `${check.command}\n`;
    await writeFileUnder(root, `${rel}/cmd.sh`, envPrelude(sandbox, options.envFile) + command);
    if (check.expect.serialLog)
      await writeFileUnder(root, `${rel}/serial.pat`, `${check.expect.serialLog.pattern}\n`);
    const e = check.expect;
    const budget = check.timeoutMs + (e.port?.withinMs ?? 0) + (e.serialLog?.withinMs ?? 0) + 90_000;
    const exec = await sandbox.exec(checkScript(check, boxDir), {
      cwd: check.cwd,
      timeoutMs: budget,
      env: check.env,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const results = parseResults(await readTail(root, `${rel}/results`, 16 * 1024 * 1024));
    const captured: Captured = {
      stdout: await readTail(root, `${rel}/stdout`),
      stderr: await readTail(root, `${rel}/stderr`),
      serial: await readTail(root, `${rel}/serial.log`),
      gpu: await readTail(root, `${rel}/gpu`, 64 * 1024),
      metrics: await Promise.all(
        check.expect.metrics.map((_, i) => readTail(root, `${rel}/metric-${i}`, MAX_METRICS_BYTES)),
      ),
      ...(check.expect.gpu
        ? {
            gpuSamples: await readTail(root, `${rel}/gpu-samples`, 4 * 1024 * 1024),
            gpuBefore: await readTail(root, `${rel}/gpu-before`, 256 * 1024),
          }
        : {}),
    };
    return judgeCheck(check, results, captured, exec);
  } finally {
    await removeScratch(sandbox.hostWorkdir, hostDir);
  }
}

/**
 * The lines put before a check's command to source `envFile` (relative to the repository root) when it
 * exists, keeping the check's working directory whatever the file does; '' without one.
 */
export function envPrelude(sandbox: Pick<Sandbox, 'workdir'>, envFile: string | undefined): string {
  if (envFile === undefined) return '';
  const file = shellQuote(path.posix.join(sandbox.workdir, envFile));
  return `if [ -f ${file} ]; then bb_cwd="$PWD"; . ${file}; cd "$bb_cwd" || exit 1; fi\n`;
}

/** Removes a scratch folder and its parents up to `.buildbench` when they are empty. */
export async function removeScratch(root: string, dir: string): Promise<void> {
  // The commands that wrote here are over, but they may have swapped a folder on the way for a link out of the
  // tree (to this machine's folders): then nothing is removed (the tree goes with the sandbox).
  const safe = await lstatUnder(root, path.relative(root, dir)).then(
    () => true,
    () => false,
  );
  if (!safe) return;
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  const top = path.join(root, SCRATCH_DIR);
  for (let d = path.dirname(dir); d.startsWith(top); d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      break;
    }
  }
}

/** Runs every check of a spec, in order. */
export async function runSpec(
  spec: Layer2Spec,
  sandbox: Sandbox,
  options: RunSpecOptions = {},
): Promise<Layer2Result> {
  const checks: CheckOutcome[] = [];
  for (const check of spec.checks) {
    if (options.signal?.aborted) break;
    checks.push(await runCheck(check, sandbox, options));
  }
  return {
    spec: spec.file,
    hidden: spec.hidden,
    passed: checks.length === spec.checks.length && checks.every((c) => c.passed),
    checks,
  };
}
