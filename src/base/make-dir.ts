/**
 * `mkdir -p` that fails at once, with a reason a person can act on.
 *
 * Node's `mkdir(dir, { recursive: true })` never returns for a folder a special file system refuses:
 * `mkdir("/proc/x")` answers ENOENT although `/proc` exists, and Node retries that thousands of times, then
 * waits forever (a `--out /proc/x` hung the CLI). Here each missing folder is created on its own, once, and
 * the first refusal is the answer. Symbolic links on the way are followed (the caller named the path),
 * but a link that leads nowhere is named as such. Floor 0: imports nothing of the project.
 */
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';

/** Why a folder could not be made; `message` is `cannot create '<dir>': <why>`. */
export class MakeDirError extends Error {
  readonly code = 'EMAKEDIR';
  constructor(
    readonly dir: string,
    readonly why: string,
  ) {
    super(`cannot create '${dir}': ${why}`);
    this.name = 'MakeDirError';
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Why creating `entry` (a folder, or a file with `noun` 'files') failed with `error`, in words. */
export function refusal(entry: string, error: unknown, noun: 'folders' | 'files' = 'folders'): string {
  const parent = path.dirname(entry);
  switch (codeOf(error)) {
    case 'ENOENT':
      // The parent exists (it was just checked), yet the new folder "does not exist": procfs, sysfs, …
      return `'${parent}' is on a special file system that takes no new ${noun}`;
    case 'EROFS':
      return `'${parent}' is on a read-only file system`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to create ${noun} in '${parent}'`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left on the device of '${parent}'`;
    default:
      return `creating '${entry}' failed (${(error as Error).message})`;
  }
}

/**
 * Creates `dir` and any missing parents; a no-op when it is a directory already (or a link to one).
 * Throws MakeDirError (never hangs) when a part of the path is not a directory, is a dangling link, or the
 * file system refuses a new folder.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  let current = target;
  let denied = false;
  for (;;) {
    let info;
    try {
      info = await stat(current);
    } catch (error) {
      const code = codeOf(error);
      if (code === 'EACCES') {
        // Some folder above cannot be searched: the deepest one that can be looked at is the culprit.
        denied = true;
      } else if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new MakeDirError(target, `cannot look at '${current}' (${(error as Error).message})`);
      }
      const link = denied ? undefined : await lstat(current).catch(() => undefined);
      if (link?.isSymbolicLink()) {
        const to = await readlink(current).catch(() => '?');
        throw new MakeDirError(target, `'${current}' is a symbolic link to '${to}', which does not exist`);
      }
      const parent = path.dirname(current);
      if (parent === current) throw new MakeDirError(target, `'${current}' does not exist`);
      missing.unshift(current);
      current = parent;
      continue;
    }
    if (denied) throw new MakeDirError(target, `no permission to look into '${current}'`);
    if (!info.isDirectory()) {
      throw new MakeDirError(target, `'${current}' exists and is not a directory`);
    }
    break;
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (error) {
      // Another process made it in the meantime: fine.
      if (codeOf(error) === 'EEXIST' && (await stat(folder).catch(() => undefined))?.isDirectory()) continue;
      throw new MakeDirError(target, refusal(folder, error));
    }
  }
}
