/**
 * Runs one command as its own process group and collects its output without letting it grow memory:
 * stdout and stderr are interleaved, streamed in full to a log file when one is given, and only a head and
 * a tail are kept in memory. Timeouts and cancellation kill the whole process group with SIGKILL.
 *
 * Built on execa (the product's design names it), which starts the process and reports how it ended. Its
 * own buffering, timeout and cancellation are switched off on purpose: `maxBuffer` keeps only the head of the
 * output and fails the command when it is reached, and `timeout`/`cancelSignal`/`kill()` signal only the
 * child's pid, not its process group, so background jobs would survive. So this module reads execa's raw
 * streams itself (head and tail, UTF-8-safe cuts, the log file with back-pressure), kills the group itself
 * (`process.kill(-pid, 'SIGKILL')`) and maps the end to 124 (timeout) / 137 (cancel) / 128 + signal.
 */
import {
  accessSync,
  constants as fsConstants,
  createWriteStream,
  mkdirSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';

import { execa, type Result as ExecaResult } from 'execa';

import { SandboxError } from './errors.js';

export interface ProcessResult {
  /** Exit status; 128 + signal number when killed by a signal; 124 on timeout or when stalled. */
  exitCode: number;
  timedOut: boolean;
  /** True when the command printed nothing for `idleTimeoutMs` and was ended for it (not a timeout). */
  stalled?: boolean;
  cancelled: boolean;
  durationMs: number;
  /** stdout and stderr interleaved, capped: the head and tail are kept, the middle replaced by a marker line. */
  output: string;
  /** True when `output` lost bytes to the cap (the full text is in `logPath`). */
  truncated: boolean;
  /** Bytes the command printed in all. */
  totalBytes: number;
  logPath?: string;
  /** True when the log file kept only the head and tail of the output (`OutputPolicy.maxLogBytes`). */
  logTruncated?: boolean;
}

export const DEFAULT_HEAD_BYTES = 48 * 1024;
export const DEFAULT_TAIL_BYTES = 48 * 1024;
/** Exit code reported when the time limit was reached (as GNU `timeout` does). */
export const TIMEOUT_EXIT_CODE = 124;
/** Exit code reported when the command was cancelled: 128 + SIGKILL. */
export const CANCELLED_EXIT_CODE = 128 + 9;

export interface RunProcessOptions {
  cwd?: string;
  /** The child's complete environment. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Wall-clock limit in milliseconds; 0 or absent means none. */
  timeoutMs?: number;
  /**
   * Ends the command (its whole process group) once it has printed nothing for this many milliseconds:
   * `stalled` is then true and the exit code 124. 0 or absent means never.
   */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Streams the complete interleaved output to this file (created, parent folders too; truncated first). */
  logPath?: string;
  onOutput?: (chunk: string) => void;
  /** Bytes kept from the start of the output. Default 48 KiB. */
  headBytes?: number;
  /** Bytes kept from the end of the output. Default 48 KiB. */
  tailBytes?: number;
  /**
   * Sends the command's stderr into the same pipe as its stdout (through `/bin/sh -c 'exec 2>&1; exec "$@"'`),
   * so the interleaving is exact. Default true. When false both pipes are read and merged as chunks arrive.
   */
  mergeStderr?: boolean;
  /**
   * Sends the command's stderr to /dev/null: `output` is its stdout alone (for commands whose stdout is data,
   * such as `git ls-files -z`). Default false; when true, `mergeStderr` does not apply.
   */
  discardStderr?: boolean;
  /** After the command exits, SIGKILL what is left of its process group (background jobs). Default true. */
  killGroupOnExit?: boolean;
  /**
   * How long to wait for the output pipes to close after the command exited (a process that left the
   * group may still hold them) before they are closed from this side. Default 2000 ms.
   */
  closeGraceMs?: number;
}

/** Keeps the first `headBytes` and the last `tailBytes` of a byte stream; counts everything. */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private readonly tail: TailBuffer;
  private total = 0;

  constructor(
    readonly headBytes = DEFAULT_HEAD_BYTES,
    readonly tailBytes = DEFAULT_TAIL_BYTES,
  ) {
    if (!Number.isInteger(headBytes) || headBytes < 0 || !Number.isInteger(tailBytes) || tailBytes < 0) {
      throw new RangeError(
        `output cap must be whole numbers of bytes >= 0, got head=${headBytes} tail=${tailBytes}`,
      );
    }
    this.tail = new TailBuffer(tailBytes);
  }

  get totalBytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tailBytes;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const take = Math.min(this.headBytes - this.headSize, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headSize += take;
      rest = rest.subarray(take);
    }
    this.tail.push(rest);
  }

  /** The kept text; when bytes were dropped, a marker line replaces them. */
  text(logPath?: string): string {
    const head = Buffer.concat(this.head);
    const tail = this.tail.concat();
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    const elided = this.total - head.length - tail.length;
    const where = logPath ? `the full output is in ${logPath}` : 'no log file was kept';
    const headText = trimIncompleteUtf8End(head).toString('utf8');
    const tailText = skipUtf8Continuation(tail).toString('utf8');
    const sep = headText.endsWith('\n') || headText.length === 0 ? '' : '\n';
    return `${headText}${sep}[... ${elided} bytes of output omitted; ${where} ...]\n${tailText}`;
  }
}

/** Length of a cut-off multi-byte UTF-8 sequence at the end of `buf` (0 when it ends on a character). */
export function incompleteUtf8Tail(buf: Buffer): number {
  let i = buf.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return 0;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? continuation + 1 : 0;
}

/** Drops a multi-byte UTF-8 sequence cut off at the end of `buf`. */
function trimIncompleteUtf8End(buf: Buffer): Buffer {
  return buf.subarray(0, buf.length - incompleteUtf8Tail(buf));
}

/** Skips UTF-8 continuation bytes at the start of `buf` (the tail may start inside a character). */
export function skipUtf8Continuation(buf: Buffer): Buffer {
  let i = 0;
  while (i < buf.length && i < 3 && (buf[i]! & 0xc0) === 0x80) i++;
  return buf.subarray(i);
}

/** The last `limit` bytes of a stream, as a list of chunks (copied: the caller may reuse its buffers). */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.size;
  }

  push(buf: Buffer): void {
    if (buf.length === 0 || this.limit === 0) return;
    if (buf.length >= this.limit) {
      this.chunks = [Buffer.from(buf.subarray(buf.length - this.limit))];
      this.size = this.limit;
      return;
    }
    this.chunks.push(Buffer.from(buf));
    this.size += buf.length;
    while (this.size > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  concat(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return (osConstants.signals as Record<string, number | undefined>)[signal] ?? 9;
}

/** SIGKILLs a whole process group; a group that is already gone is not an error. */
export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined || pid <= 0) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The program's path as `execvp` would find it with `pathVar`, or undefined. */
export function resolveCommand(
  command: string,
  pathVar: string | undefined,
  cwd?: string,
): string | undefined {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : resolvePath(cwd ?? process.cwd(), command);
    return isExecutableFile(full) ? full : undefined;
  }
  for (const dir of (pathVar ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (dir && isExecutableFile(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** setTimeout fires at once for delays above 2^31-1 ms (~24.8 days): longer limits are clamped to this. */
const MAX_TIMER_MS = 2_147_483_647;

/** What ended a run early; set by the watchers of `watchRun`. */
interface RunState {
  timedOut: boolean;
  cancelled: boolean;
  exited: boolean;
  stalled: boolean;
}

/** `runProcess`'s options once the program is found: the complete environment is known. */
type SuperviseOptions = RunProcessOptions & { env: NodeJS.ProcessEnv };

/**
 * Runs `command args` in a new process group. Never rejects for a failing command: a non-zero exit,
 * a timeout or a cancellation is a result. Rejects with SandboxError only when the command cannot be
 * started at all (missing program) or the log file cannot be written.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  const started = Date.now();
  if (options.signal?.aborted) return Promise.resolve(notStarted(options.logPath));
  const log = openLog(options.logPath);
  if (log instanceof SandboxError) return Promise.reject(log);
  const env = options.env ?? process.env;
  const program = resolveCommand(command, env.PATH, options.cwd);
  if (!program) {
    log?.end();
    return Promise.reject(
      new SandboxError(
        `could not start \`${command}\`: no such program${command.includes('/') ? '' : ' on PATH'}`,
        `install ${command} or put it on PATH`,
      ),
    );
  }
  const [file, argv] =
    (options.mergeStderr ?? true) && !options.discardStderr
      ? ['/bin/sh', ['-c', 'exec 2>&1; exec "$@"', 'sh', program, ...args]]
      : [program, [...args]];
  return supervise(command, file, argv, { ...options, env }, log, started);
}

/** The result for a signal that was aborted before the command could start. */
function notStarted(logPath: string | undefined): ProcessResult {
  return {
    exitCode: CANCELLED_EXIT_CODE,
    timedOut: false,
    cancelled: true,
    durationMs: 0,
    output: '',
    truncated: false,
    totalBytes: 0,
    ...(logPath ? { logPath } : {}),
  };
}

/** Opens the log file (parent folders too; truncated first): undefined without one, the error if it cannot. */
function openLog(logPath: string | undefined): WriteStream | SandboxError | undefined {
  if (!logPath) return undefined;
  try {
    mkdirSync(dirname(logPath), { recursive: true });
  } catch (error) {
    return new SandboxError(
      `cannot create the folder for the log file ${logPath}: ${(error as Error).message}`,
      'choose a writable log location',
    );
  }
  return createWriteStream(logPath);
}

/** Starts the program through execa, reads its output until it ends and turns the end into a result. */
async function supervise(
  command: string,
  file: string,
  argv: string[],
  options: SuperviseOptions,
  log: WriteStream | undefined,
  started: number,
): Promise<ProcessResult> {
  const capture = new OutputCapture(options.headBytes, options.tailBytes);
  const child = execa(file, argv, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: options.discardStderr ? 'ignore' : 'pipe',
    encoding: 'buffer',
    buffer: false,
    reject: false,
  });
  const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
  const output = pumpOutput(streams, capture, log, options.onOutput);
  const watch = watchRun(child, streams, options);
  const end: ExecaResult = await child;
  watch.stop();
  for (const s of streams) if (!s.destroyed) s.destroy();
  if (child.pid === undefined) {
    log?.end();
    throw cannotStart(command, end.cause);
  }
  if (log) await new Promise<void>((resolve) => log.end(() => resolve()));
  const logError = output.logError();
  if (logError) {
    throw new SandboxError(
      `could not write the log file ${options.logPath}: ${logError.message}`,
      'check free disk space and permissions of the log folder',
    );
  }
  return {
    exitCode: exitCodeOf(end, watch.state),
    timedOut: watch.state.timedOut,
    ...(watch.state.stalled ? { stalled: true } : {}),
    cancelled: watch.state.cancelled,
    durationMs: Date.now() - started,
    output: capture.text(options.logPath),
    truncated: capture.truncated,
    totalBytes: capture.totalBytes,
    ...(options.logPath ? { logPath: options.logPath } : {}),
  };
}

/**
 * Feeds both pipes into `capture`, the log file and `onOutput` as chunks arrive. Back-pressure: when the log
 * file cannot keep up, reading stops until it drains, so memory stays flat. A log write error stops the
 * writing (not the command) and is reported once it has ended.
 */
function pumpOutput(
  streams: Readable[],
  capture: OutputCapture,
  log: WriteStream | undefined,
  onOutput: ((chunk: string) => void) | undefined,
): { logError: () => Error | undefined } {
  let logError: Error | undefined;
  const pauseAll = (): void => streams.forEach((s) => s.pause());
  const resumeAll = (): void => streams.forEach((s) => s.resume());
  log?.on('drain', resumeAll);
  log?.on('error', (error) => {
    logError = error;
    resumeAll();
  });
  for (const stream of streams) {
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      capture.push(chunk);
      if (log && !logError && !log.write(chunk)) pauseAll();
      if (onOutput) {
        const text = decoder.write(chunk);
        if (text) onOutput(text);
      }
    });
    stream.on('end', () => {
      const text = decoder.end();
      if (text && onOutput) onOutput(text);
    });
    stream.on('error', () => {
      /* destroyed after the grace period; nothing to report */
    });
  }
  return { logError: () => logError };
}

/**
 * Watches the limits of a run: the timeout and the signal kill the whole process group; once the command
 * exits, what is left of its group is killed too (`killGroupOnExit`) and the pipes get `closeGraceMs` to
 * close before they are destroyed from this side (a process that left the group may still hold them).
 */
function watchRun(
  child: { pid?: number | undefined; once(event: 'exit', listener: () => void): unknown },
  streams: Readable[],
  options: SuperviseOptions,
): { state: RunState; stop: () => void } {
  const state: RunState = { timedOut: false, cancelled: false, exited: false, stalled: false };
  const kill = (): void => {
    try {
      killProcessGroup(child.pid);
    } catch {
      // EPERM cannot happen for our own child; anything else: the command's end still ends the run.
    }
  };
  const onAbort = (): void => {
    if (state.exited) return;
    state.cancelled = true;
    kill();
  };
  const timeoutMs = options.timeoutMs ?? 0;
  const timer =
    timeoutMs > 0
      ? setTimeout(
          () => {
            if (state.exited) return;
            state.timedOut = true;
            kill();
          },
          Math.min(timeoutMs, MAX_TIMER_MS),
        )
      : undefined;
  const idle = watchIdle(streams, options.idleTimeoutMs ?? 0, () => {
    if (state.exited || state.timedOut || state.cancelled) return;
    state.stalled = true;
    kill();
  });
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let grace: NodeJS.Timeout | undefined;
  child.once('exit', () => {
    state.exited = true;
    if (options.killGroupOnExit ?? true) kill();
    grace = setTimeout(() => streams.forEach((s) => s.destroy()), options.closeGraceMs ?? 2000);
  });
  const stop = (): void => {
    clearTimeout(timer);
    idle.stop();
    clearTimeout(grace);
    options.signal?.removeEventListener('abort', onAbort);
  };
  return { state, stop };
}

/**
 * Calls `onIdle` once no stream has delivered a byte for `idleMs` (0: never). One timer, re-armed for what is
 * left of the window when it fires early, so a chatty command costs a timestamp per chunk, not a timer.
 */
function watchIdle(streams: Readable[], idleMs: number, onIdle: () => void): { stop: () => void } {
  if (!(idleMs > 0)) return { stop: () => undefined };
  let last = Date.now();
  const touch = (): void => {
    last = Date.now();
  };
  for (const stream of streams) stream.on('data', touch);
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number): void => {
    timer = setTimeout(
      () => {
        const quiet = Date.now() - last;
        if (quiet >= idleMs) onIdle();
        else arm(idleMs - quiet);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  };
  arm(idleMs);
  return {
    stop: () => {
      clearTimeout(timer);
      for (const stream of streams) stream.off('data', touch);
    },
  };
}

/** 124 on timeout or stall, 137 on cancel, 128 + signal number when killed by a signal, else the exit status. */
function exitCodeOf(end: Pick<ExecaResult, 'exitCode' | 'signal'>, state: RunState): number {
  if (state.timedOut || state.stalled) return TIMEOUT_EXIT_CODE;
  if (state.cancelled) return CANCELLED_EXIT_CODE;
  if (end.signal) return 128 + signalNumber(end.signal);
  return end.exitCode ?? 1;
}

function cannotStart(command: string, cause: unknown): SandboxError {
  const error = cause instanceof Error ? (cause as NodeJS.ErrnoException) : new Error(String(cause));
  return new SandboxError(
    `could not start \`${command}\`: ${error.message}`,
    (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? `install ${command} or put it on PATH`
      : 'check that the program exists and is executable',
  );
}
