/**
 * Input files read under a cap, and local paths kept inside a folder. A task, spec or configuration file can
 * come from a stranger's repository (a pull request, a downloaded suite): it is `fstat`-ed after the open and
 * refused over its cap before a byte is read, then read into a buffer of cap + 1 bytes, so a file that grows
 * after the check is refused too and memory never follows the file. Paths a file names (a task's local
 * repository) are checked against a folder by their real path, so a symbolic link cannot lead out of it.
 * Floor 0: imports nothing of the project.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The cap on task, spec and configuration files: such files are a few KiB; 1 MiB is far above any real one. */
export const MAX_INPUT_FILE_BYTES = 1024 * 1024;

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;

/** A file over its cap; the message names the file (as given), its size when known and the cap. */
export class FileTooLargeError extends Error {
  constructor(
    readonly file: string,
    readonly limit: number,
    readonly bytes?: number,
  ) {
    super(
      bytes === undefined
        ? `${file} grew past the cap of ${size(limit)} while it was read; refused`
        : `${file} is ${size(bytes)}, over the cap of ${size(limit)}; nothing of it was read`,
    );
    this.name = 'FileTooLargeError';
  }
}

/**
 * The text (UTF-8) of the regular file `file`, at most `maxBytes`: FileTooLargeError when it is larger (by
 * `fstat` before reading) or grows larger while read; the system's error (ENOENT, EISDIR…) otherwise. A FIFO
 * or device is refused without blocking.
 */
export async function readTextCapped(file: string, maxBytes = MAX_INPUT_FILE_BYTES): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory())
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR' });
    if (!info.isFile()) throw new Error(`${file} is not a regular file`);
    if (info.size > maxBytes) throw new FileTooLargeError(file, maxBytes, info.size);
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw new FileTooLargeError(file, maxBytes);
    return buffer.toString('utf8', 0, filled);
  } finally {
    await handle.close();
  }
}

/** Whether the absolute path `candidate` is `folder` or under it (by the names, nothing resolved). */
export function isWithin(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

/**
 * The real path of `p` (symbolic links resolved); for a path that does not exist, the real path of its
 * nearest existing folder with the rest of the names after it.
 */
export async function realPathOf(p: string): Promise<string> {
  return realOrNearest(path.resolve(p));
}

async function realOrNearest(p: string): Promise<string> {
  const rest: string[] = [];
  for (let at = p; ; at = path.dirname(at)) {
    try {
      return path.join(await realpath(at), ...rest.reverse());
    } catch {
      if (at === path.dirname(at)) return p;
      rest.push(path.basename(at));
    }
  }
}

/**
 * The top of the work tree that holds `file`: the nearest folder above it with a `.git` (a folder, or the
 * file of a linked work tree or submodule); undefined when there is none.
 */
export async function workTreeOf(file: string): Promise<string | undefined> {
  for (let folder = path.dirname(path.resolve(file)); ; folder = path.dirname(folder)) {
    if (
      await stat(path.join(folder, '.git')).then(
        () => true,
        () => false,
      )
    )
      return folder;
    if (folder === path.dirname(folder)) return undefined;
  }
}
