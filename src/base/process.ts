/**
 * Runs one command as its own process group and collects its output without letting it grow memory:
 * stdout and stderr are interleaved, streamed in full to a log file when one is given, and only a head and
 * a tail are kept in memory. Timeouts and cancellation kill the whole process group with SIGKILL.
 */
import { spawn } from 'node:child_process';
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

import { SandboxError } from './errors.js';

export interface ProcessResult {
  /** Exit status; 128 + signal number when killed by a signal; 124 on timeout. */
  exitCode: number;
  timedOut: boolean;
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
  const capture = new OutputCapture(options.headBytes, options.tailBytes);
  const mergeStderr = options.mergeStderr ?? true;
  const killGroupOnExit = options.killGroupOnExit ?? true;
  const closeGraceMs = options.closeGraceMs ?? 2000;
  const logPath = options.logPath;

  if (options.signal?.aborted) {
    return Promise.resolve({
      exitCode: CANCELLED_EXIT_CODE,
      timedOut: false,
      cancelled: true,
      durationMs: 0,
      output: '',
      truncated: false,
      totalBytes: 0,
      ...(logPath ? { logPath } : {}),
    });
  }

  let log: WriteStream | undefined;
  if (logPath) {
    try {
      mkdirSync(dirname(logPath), { recursive: true });
    } catch (error) {
      return Promise.reject(
        new SandboxError(
          `cannot create the folder for the log file ${logPath}: ${(error as Error).message}`,
          'choose a writable log location',
        ),
      );
    }
    log = createWriteStream(logPath);
  }

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
  const [file, argv] = mergeStderr
    ? ['/bin/sh', ['-c', 'exec 2>&1; exec "$@"', 'sh', program, ...args]]
    : [program, [...args]];

  return new Promise<ProcessResult>((resolve, reject) => {
    const child = spawn(file, argv, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
    let timedOut = false;
    let cancelled = false;
    let exitCode: number | undefined;
    let exitSignal: NodeJS.Signals | null = null;
    let finished = false;
    let logError: Error | undefined;
    let timer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const kill = (): void => {
      try {
        killProcessGroup(child.pid);
      } catch {
        // EPERM cannot happen for our own child; anything else: the 'close' handler still ends the run.
      }
    };
    const onAbort = (): void => {
      if (finished || exitCode !== undefined) return;
      cancelled = true;
      kill();
    };

    if (options.timeoutMs && options.timeoutMs > 0) {
      // setTimeout fires at once for delays above 2^31-1 ms (~24.8 days): clamp.
      timer = setTimeout(
        () => {
          if (finished || exitCode !== undefined) return;
          timedOut = true;
          kill();
        },
        Math.min(options.timeoutMs, 2_147_483_647),
      );
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });

    // Back-pressure: when the log file cannot keep up, stop reading so memory stays flat.
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
        if (options.onOutput) {
          const text = decoder.write(chunk);
          if (text) options.onOutput(text);
        }
      });
      stream.on('end', () => {
        const text = decoder.end();
        if (text && options.onOutput) options.onOutput(text);
      });
      stream.on('error', () => {
        /* destroyed after the grace period; nothing to report */
      });
    }

    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const s of streams) if (!s.destroyed) s.destroy();
      const code = timedOut
        ? TIMEOUT_EXIT_CODE
        : cancelled
          ? CANCELLED_EXIT_CODE
          : exitSignal
            ? 128 + signalNumber(exitSignal)
            : (exitCode ?? 1);
      const result: ProcessResult = {
        exitCode: code,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
        output: capture.text(logPath),
        truncated: capture.truncated,
        totalBytes: capture.totalBytes,
        ...(logPath ? { logPath } : {}),
      };
      const done = (): void => {
        if (logError) {
          reject(
            new SandboxError(
              `could not write the log file ${logPath}: ${logError.message}`,
              'check free disk space and permissions of the log folder',
            ),
          );
        } else resolve(result);
      };
      if (log) log.end(done);
      else done();
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      log?.end();
      const missing = error.code === 'ENOENT';
      reject(
        new SandboxError(
          `could not start \`${command}\`: ${error.message}`,
          missing
            ? `install ${command} or put it on PATH`
            : 'check that the program exists and is executable',
        ),
      );
    });
    child.on('exit', (code, sig) => {
      exitCode = code ?? undefined;
      exitSignal = sig;
      if (exitCode === undefined && !sig) exitCode = 1;
      if (killGroupOnExit) kill();
      graceTimer = setTimeout(finish, closeGraceMs);
    });
    child.on('close', (code, sig) => {
      if (exitCode === undefined && exitSignal === null) {
        exitCode = code ?? undefined;
        exitSignal = sig;
      }
      finish();
    });
  });
}
