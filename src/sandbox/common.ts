/** Pieces shared by the sandbox backends: ids, the environment allowlist, copying and removing trees. */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, posix, resolve } from 'node:path';

import { ConfigError, SandboxError } from '../base/errors.js';
import { resolveCommand, runProcess } from '../base/process.js';
import { removeGitCredentials, type CredentialsRemoval } from './git-credentials.js';
import type { ExecOptions, ExecResult } from './types.js';

/** PATH inside rootfs and docker sandboxes. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The only variables a command inside a sandbox sees besides `ExecOptions.env`. */
export function baseSandboxEnv(overrides: { PATH?: string; HOME?: string } = {}): Record<string, string> {
  return {
    PATH: overrides.PATH ?? SANDBOX_PATH,
    HOME: overrides.HOME ?? '/root',
    LANG: 'C.UTF-8',
    DEBIAN_FRONTEND: 'noninteractive',
    TERM: 'dumb',
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Allowlist plus the caller's extra variables, as `NAME=value` strings. Names are checked. */
export function sandboxEnvAssignments(
  extra: Record<string, string> | undefined,
  base: Record<string, string> = baseSandboxEnv(),
): string[] {
  const merged: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!ENV_NAME.test(name)) {
      throw new ConfigError(
        `invalid environment variable name ${JSON.stringify(name)} for a sandbox command`,
        'names must match [A-Za-z_][A-Za-z0-9_]*',
      );
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new ConfigError(
        `invalid value for environment variable ${name} for a sandbox command`,
        'values must be strings without NUL bytes',
      );
    }
    merged[name] = value;
  }
  return Object.entries(merged).map(([k, v]) => `${k}=${v}`);
}

/** A short unique id usable as a folder and container name: `<slug>-<8 hex>`. */
export function makeSandboxId(name: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .replace(/-+$/, '')
      .slice(0, 40) || 'build';
  return `${slug}-${randomBytes(4).toString('hex')}`;
}

/** Resolves `ExecOptions.cwd` against the sandbox's working directory (POSIX paths inside a sandbox). */
export function resolveSandboxCwd(workdir: string, cwd: string | undefined): string {
  if (!cwd) return workdir;
  return posix.isAbsolute(cwd) ? posix.normalize(cwd) : posix.join(workdir, cwd);
}

/** Finds an executable on PATH or in the usual system folders (like `command -v`). */
export function findExecutable(name: string, pathVar = process.env.PATH ?? ''): Promise<string | undefined> {
  const dirs = [pathVar, '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']
    .filter(Boolean)
    .join(delimiter);
  return Promise.resolve(resolveCommand(name, dirs));
}

/**
 * Prefixes `setpriv --pdeathsig KILL` when util-linux setpriv is installed, so the command gets SIGKILL if
 * this process dies (for `unshare --kill-child` that ends the whole sandbox namespace).
 */
export async function dieWithParent(command: string, args: string[]): Promise<[string, string[]]> {
  const setpriv = await findExecutable('setpriv');
  return setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
}

/** Rejects paths that cannot appear in overlayfs mount options. */
export function checkMountablePath(path: string, what: string): void {
  if (!isAbsolute(path) || /[,:\\\n\r]/.test(path)) {
    throw new ConfigError(
      `${what} ${JSON.stringify(path)} cannot be used as a sandbox mount: overlayfs and docker mount paths must be absolute and free of ',' ':' '\\' and newlines`,
      'set BUILDBENCH_CACHE_DIR / BUILDBENCH_WORK_DIR to a plain absolute path',
    );
  }
}

function checkResult(result: ExecResult, what: string, hint: string): void {
  if (result.exitCode !== 0) {
    const detail = result.cancelled
      ? 'cancelled'
      : result.timedOut
        ? 'timed out'
        : `exit code ${result.exitCode}: ${result.output.trim().slice(-2000)}`;
    throw new SandboxError(`${what} failed (${detail})`, hint);
  }
}

/** Copies a repository (hidden files and .git included, owners and modes kept) into a new folder. */
/**
 * Copies the repository into a sandbox's working copy and removes the git credentials from the copy at once,
 * before anything runs in the sandbox (see git-credentials.ts); `onCopied` hears what was removed.
 */
export async function copyRepository(
  repoDir: string,
  dest: string,
  signal?: AbortSignal,
  onCopied?: (removal: CredentialsRemoval) => void,
): Promise<void> {
  const source = resolve(repoDir);
  let info;
  try {
    info = await stat(source);
  } catch {
    throw new ConfigError(
      `the repository folder ${source} does not exist`,
      'pass the path of a checked-out repository',
    );
  }
  if (!info.isDirectory()) {
    throw new ConfigError(`${source} is not a folder`, 'pass the path of a checked-out repository');
  }
  await mkdir(dest, { recursive: true });
  const result = await runProcess('cp', ['-a', '--', `${source}/.`, `${dest}/`], {
    timeoutMs: 30 * 60_000,
    ...(signal ? { signal } : {}),
  });
  if (result.cancelled) throw new SandboxError('copying the repository into the sandbox was cancelled');
  if (result.exitCode !== 0) {
    const { why, hint } = describeCopyFailure(result);
    throw new SandboxError(`copying ${source} into the sandbox failed: ${why}`, hint);
  }
  const removal = await removeGitCredentials(dest);
  onCopied?.(removal);
}

/** Longest path Linux accepts in one system call (PATH_MAX), bytes with the terminating NUL. */
const PATH_MAX = 4096;

/** A path of cp's message with long runs of folders shortened to `…`, so a 10 000-deep path stays one short line. */
function shortenPaths(line: string, max = 200): string {
  const short = line.replace(/([^\s'‘’/]+\/){6,}/g, (run) => {
    const parts = run.split('/').filter(Boolean);
    return `${parts.slice(0, 2).join('/')}/…(${parts.length - 3} more)…/${parts[parts.length - 1]}/`;
  });
  return short.length > max ? `${short.slice(0, max - 1)}…` : short;
}

/**
 * The real cause of a failed `cp -a` of the repository, in one line, and what to do about it: a path longer than
 * PATH_MAX (a folder nested thousands deep), a full disk, a permission problem, or else cp's first message.
 */
export function describeCopyFailure(result: Pick<ExecResult, 'exitCode' | 'timedOut' | 'output'>): {
  why: string;
  hint: string;
} {
  if (result.timedOut)
    return { why: 'the copy timed out', hint: 'the repository is very large or the work folder is slow' };
  const lines = result.output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = (pattern: RegExp): string | undefined => lines.find((l) => pattern.test(l));
  const tooLong = first(/File name too long/);
  if (tooLong) {
    return {
      why: `the repository has a path longer than the system allows (PATH_MAX, ${PATH_MAX} bytes: a folder nested thousands deep) — ${shortenPaths(tooLong)}`,
      hint: 'remove or flatten the deeply nested folder; no sandbox can copy it',
    };
  }
  const full = first(/No space left on device|Disk quota exceeded/);
  if (full)
    return {
      why: `the disk is full — ${shortenPaths(full)}`,
      hint: 'free disk space in the work folder (BUILDBENCH_WORK_DIR)',
    };
  const denied = first(/Permission denied|Operation not permitted|Read-only file system/);
  if (denied)
    return {
      why: shortenPaths(denied),
      hint: 'check the permissions of the repository and of the work folder (BUILDBENCH_WORK_DIR)',
    };
  return {
    why: `exit code ${result.exitCode}${lines[0] ? `: ${shortenPaths(lines[0])}` : ''}${lines.length > 1 ? ` (and ${lines.length - 1} more lines)` : ''}`,
    hint: 'check free disk space and permissions in the work folder (BUILDBENCH_WORK_DIR)',
  };
}

/** Mount points at or below `dir` in this process's mount namespace. */
export async function mountsUnder(dir: string): Promise<string[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const prefix = resolve(dir);
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const field = line.split(' ')[4];
    if (!field) continue;
    const mountPoint = field.replace(/\\([0-7]{3})/g, (_m, oct: string) =>
      String.fromCharCode(parseInt(oct, 8)),
    );
    if (mountPoint === prefix || mountPoint.startsWith(`${prefix}/`)) found.push(mountPoint);
  }
  return found;
}

/**
 * Removes a folder tree without ever crossing into another filesystem. Anything still mounted below it
 * (which the backends never leave behind) is lazily unmounted first.
 */
export async function removeTree(dir: string): Promise<void> {
  const mounts = await mountsUnder(dir);
  for (const mountPoint of mounts.sort((a, b) => b.length - a.length)) {
    await runProcess('umount', ['-l', mountPoint], { timeoutMs: 30_000 });
  }
  const result = await runProcess('rm', ['-rf', '--one-file-system', '--', dir], { timeoutMs: 30 * 60_000 });
  checkResult(
    result,
    `removing ${dir}`,
    'remove the folder by hand; check that nothing is still mounted below it',
  );
}

/** Runs exec calls one after the other: a sandbox's state must not be used by two commands at once. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves once everything queued so far has settled. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}

/** The user's signal combined with the sandbox's own (aborted by dispose). */
export function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}

/**
 * The shell lines that run the command's script file `script` and then, when it exited 0 and the file
 * `epilogue` exists, that one (ExecOptions.epilogue: no input, output discarded), ending with the script's
 * status. Without an epilogue file the script replaces the shell, as a command always did.
 */
export function runScriptLines(script: string, epilogue: string): string[] {
  return [
    `if [ -f ${epilogue} ]; then`,
    `  /bin/bash ${script}`,
    '  rc=$?',
    `  [ "$rc" -ne 0 ] || /bin/bash ${epilogue} < /dev/null > /dev/null 2>&1`,
    '  exit "$rc"',
    'fi',
    `exec /bin/bash ${script}`,
  ];
}

/** The fields of ExecOptions that `runProcess` takes as they are. */
export function passThroughOptions(options: ExecOptions): {
  logPath?: string;
  onOutput?: (chunk: string) => void;
  idleTimeoutMs?: number;
} {
  return {
    ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    ...(options.logPath ? { logPath: options.logPath } : {}),
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
  };
}

/** Checks ExecOptions.timeoutMs. */
export function checkTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigError(
      `a sandbox command needs a positive timeoutMs, got ${timeoutMs}`,
      'pass the wall-clock limit in milliseconds',
    );
  }
}
