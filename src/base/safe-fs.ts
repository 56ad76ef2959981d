/**
 * Reading and copying files of a tree an untrusted build could have touched, without ever leaving it.
 *
 * Host-side code (artifact copy, patch collection, inspection, retrieval, probe results) runs as this
 * process's user — often root — on trees the build wrote into. A build can replace any folder with a
 * symbolic link to `/etc`; a plain `copyFile(path.join(root, rel))` then copies the host's files. Here a
 * path relative to the root is opened so that:
 *
 * - `rel` is relative, without `..`, `.` or empty components (rejected otherwise);
 * - in `strict` mode (trees the build wrote: the sandbox's working copy) no component may be a symbolic
 *   link: the folders on the way are checked with `lstat` and the last component is opened with
 *   `O_NOFOLLOW`; in `inside` mode (a checkout before any build: inspection, retrieval) symbolic links are
 *   resolved and allowed only when everything they lead to stays under the root;
 * - after the open, the file actually opened is checked through `/proc/self/fd/N`: it must be the path the
 *   walk expected, so a folder swapped for a link between the check and the open (a build still running)
 *   is caught, not raced;
 * - only regular files are opened (`O_NONBLOCK`: a FIFO swapped in does not block), checked with `fstat`.
 *
 * The same holds for output folders read back from elsewhere (`buildbench report`, `verify`, `compare`, the
 * bench's collection, the Action): their files are opened in `strict` mode, a path a file in them names
 * (result.json's `files.trajectory`) is checked with `checkNamedPath` / read with `readNamedFileUnder`, and a
 * file written into them is a new file renamed over the old name (`replaceFileUnder`), so a link planted under
 * that name is replaced, never written through.
 *
 * Paths may be strings or Buffers (file names that are not UTF-8). Floor 0: imports nothing of the project.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

export type RelPath = string | Buffer;

/** A path that leads outside the root, through a symbolic link, or to something that is not a regular file. */
export class UnsafePathError extends Error {
  readonly code = 'EUNSAFEPATH';
  constructor(
    readonly rel: string,
    readonly why: string,
  ) {
    super(`${rel}: ${why}`);
    this.name = 'UnsafePathError';
  }
}

export type FollowMode = 'strict' | 'inside';

export interface OpenUnderOptions {
  /** `strict` (default): no symbolic link anywhere on the path. `inside`: links allowed when they stay under the root. */
  follow?: FollowMode;
}

const SLASH = 0x2f;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

function toBuffer(p: RelPath): Buffer {
  return typeof p === 'string' ? Buffer.from(p, 'utf8') : p;
}

/** A path for messages: UTF-8 where it is, `\xNN` for other bytes, control characters escaped. */
export function displayPath(p: RelPath): string {
  const bytes = toBuffer(p);
  const text = bytes.toString('utf8');
  const shown = Buffer.from(text, 'utf8').equals(bytes) ? text : escapeBytes(bytes);
  return shown.replace(
    // eslint-disable-next-line no-control-regex
    /[\x00-\x1f\x7f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * A file name's bytes as a string key: the name itself when it is UTF-8 without control characters, else its
 * UTF-8 parts with the other bytes (and control characters: a newline, an escape) as `\xNN`, and the bytes
 * themselves in `raw` (use them for every file operation). A key never carries a byte that could rewrite a
 * terminal line or a Markdown table.
 */
export function nameKey(bytes: Buffer): { key: string; raw?: Buffer } {
  const text = bytes.toString('utf8');
  // Bytes that are not UTF-8 decode to U+FFFD; a name that really holds U+FFFD takes the slow path.
  if (!text.includes('\ufffd') && !CONTROL.test(text)) return { key: text };
  if (Buffer.from(text, 'utf8').equals(bytes) && !CONTROL.test(text)) return { key: text };
  return { key: displayPath(bytes), raw: bytes };
}

function escapeBytes(bytes: Buffer): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    // the longest valid UTF-8 sequence starting at i, else one escaped byte
    let taken = false;
    for (let n = Math.min(4, bytes.length - i); n >= 1; n--) {
      const piece = bytes.subarray(i, i + n);
      const text = piece.toString('utf8');
      if (!text.includes('\ufffd') && Buffer.from(text, 'utf8').equals(piece)) {
        out += text;
        i += n;
        taken = true;
        break;
      }
    }
    if (!taken) {
      out += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

/** The components of a relative path; throws UnsafePathError for absolute paths and `..`, `.` or empty parts. */
export function relComponents(rel: RelPath): Buffer[] {
  const bytes = toBuffer(rel);
  const shown = displayPath(rel);
  if (bytes.length === 0) throw new UnsafePathError(shown, 'an empty path');
  if (bytes.includes(0)) throw new UnsafePathError(shown, 'a NUL byte in the path');
  if (bytes[0] === SLASH) throw new UnsafePathError(shown, 'an absolute path');
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === SLASH) {
      const part = bytes.subarray(start, i);
      const text = part.toString('latin1');
      if (text === '' || text === '.' || text === '..')
        throw new UnsafePathError(shown, `'${text}' is not allowed in a path relative to the root`);
      parts.push(part);
      start = i + 1;
    }
  }
  return parts;
}

function join(base: Buffer, part: Buffer): Buffer {
  return base.length > 0 && base[base.length - 1] === SLASH
    ? Buffer.concat([base, part])
    : Buffer.concat([base, Buffer.from('/'), part]);
}

function isUnder(realRoot: Buffer, real: Buffer): boolean {
  if (real.equals(realRoot)) return true;
  const prefix =
    realRoot[realRoot.length - 1] === SLASH ? realRoot : Buffer.concat([realRoot, Buffer.from('/')]);
  return real.length > prefix.length && real.subarray(0, prefix.length).equals(prefix);
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Where an opened descriptor really is; undefined when /proc cannot say (then the lstat walk stands alone). */
function fdPathSync(fd: number): Buffer | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
  } catch {
    return undefined;
  }
}

async function fdPath(fd: number): Promise<Buffer | undefined> {
  try {
    return await readlink(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
  } catch {
    return undefined;
  }
}

/** The absolute path `rel` may be opened at, every folder on the way checked (sync). */
function planSync(root: string, rel: RelPath, follow: FollowMode): Buffer {
  const realRoot = realpathSync(root, { encoding: 'buffer' });
  const shown = displayPath(rel);
  const parts = relComponents(rel);
  if (follow === 'inside') {
    let real: Buffer;
    try {
      real = realpathSync(join(realRoot, toBuffer(rel)), { encoding: 'buffer' });
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw new UnsafePathError(shown, 'a symbolic link loop');
      throw error;
    }
    if (!isUnder(realRoot, real) || real.equals(realRoot))
      throw new UnsafePathError(shown, 'leads outside the tree through a symbolic link (not followed)');
    return real;
  }
  let current: Buffer = realRoot;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    if (i === parts.length - 1) break;
    const stats = lstatSync(current);
    if (stats.isSymbolicLink())
      throw new UnsafePathError(
        shown,
        `the folder ${displayPath(part)} on its path is a symbolic link (not followed)`,
      );
    if (!stats.isDirectory())
      throw Object.assign(new Error(`${shown}: ${displayPath(part)} is not a directory`), {
        code: 'ENOTDIR',
      });
  }
  return current;
}

/**
 * `planSync` for the async callers: the walk is a few lstat calls on this machine, not worth a second copy
 * of the same checks.
 */
function plan(root: string, rel: RelPath, follow: FollowMode): Promise<Buffer> {
  return new Promise((resolve) => resolve(planSync(root, rel, follow)));
}

function openedError(shown: string, error: unknown): Error {
  if (errnoCode(error) === 'ELOOP') return new UnsafePathError(shown, 'a symbolic link (not followed)');
  return error as Error;
}

/**
 * Opens the regular file `rel` under `root` for reading (sync), never through a symbolic link out of the root
 * (none at all in `strict` mode). Returns the descriptor and its `fstat`; the caller closes it. Throws
 * UnsafePathError for a path that is not safe, the system's error (ENOENT, …) otherwise.
 */
export function openUnderSync(
  root: string,
  rel: RelPath,
  options: OpenUnderOptions = {},
): { fd: number; stats: Stats } {
  const shown = displayPath(rel);
  const target = planSync(root, rel, options.follow ?? 'strict');
  let fd: number;
  try {
    fd = openSync(target, READ_FLAGS);
  } catch (error) {
    throw openedError(shown, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnsafePathError(shown, 'not a regular file');
    const actual = fdPathSync(fd);
    if (actual && !actual.equals(target))
      throw new UnsafePathError(
        shown,
        'a folder on its path was replaced while it was opened (not followed)',
      );
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** `openUnderSync`, with a FileHandle. */
export async function openUnder(
  root: string,
  rel: RelPath,
  options: OpenUnderOptions = {},
): Promise<{ handle: FileHandle; stats: Stats }> {
  const shown = displayPath(rel);
  const target = await plan(root, rel, options.follow ?? 'strict');
  let handle: FileHandle;
  try {
    handle = await open(target, READ_FLAGS);
  } catch (error) {
    throw openedError(shown, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnsafePathError(shown, 'not a regular file');
    const actual = await fdPath(handle.fd);
    if (actual && !actual.equals(target))
      throw new UnsafePathError(
        shown,
        'a folder on its path was replaced while it was opened (not followed)',
      );
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export interface ReadUnderOptions extends OpenUnderOptions {
  /** Read at most this many bytes (default: the whole file). */
  maxBytes?: number;
}

/** The bytes of the regular file `rel` under `root` (at most `maxBytes`), opened as `openUnder` does. */
export async function readFileUnder(
  root: string,
  rel: RelPath,
  options: ReadUnderOptions = {},
): Promise<Buffer> {
  const { handle, stats } = await openUnder(root, rel, options);
  try {
    const length = Math.min(stats.size, options.maxBytes ?? Number.MAX_SAFE_INTEGER);
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

const COPY_CHUNK = 1 << 20;

/**
 * Copies the regular file `rel` under `root` to `dest` (which must not exist; created with O_EXCL and
 * O_NOFOLLOW) with `strict` no-follow semantics. The copy keeps the permission bits but never setuid,
 * setgid or sticky: root inside a sandbox can make a setuid-root binary, and the copy belongs to this
 * process's user.
 */
export async function copyFileNoFollow(
  root: string,
  rel: RelPath,
  dest: string | Buffer,
  options: OpenUnderOptions = {},
): Promise<{ size: number; mode: number }> {
  const { handle, stats } = await openUnder(root, rel, options);
  const mode = stats.mode & 0o777;
  try {
    const out = await open(
      dest,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    let size = 0;
    try {
      const buffer = Buffer.alloc(COPY_CHUNK);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, COPY_CHUNK, size);
        if (bytesRead === 0) break;
        await out.write(buffer, 0, bytesRead, size);
        size += bytesRead;
      }
      await out.chmod(mode);
    } finally {
      await out.close();
    }
    return { size, mode };
  } finally {
    await handle.close();
  }
}

/** Whether `rel` under `root` is a regular file with an execute bit, opened as `openUnder` does; false on any error. */
export async function isExecutableUnder(
  root: string,
  rel: RelPath,
  options: OpenUnderOptions = {},
): Promise<boolean> {
  try {
    const { handle, stats } = await openUnder(root, rel, options);
    await handle.close();
    return (stats.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The real path of the directory `rel` under `root` (or the root itself for ''), or undefined when it is not a
 * directory or leads outside the root (links allowed when they stay inside).
 */
export async function resolveDirUnder(root: string, rel: RelPath): Promise<Buffer | undefined> {
  try {
    const realRoot = await realpath(root, { encoding: 'buffer' });
    if (toBuffer(rel).length === 0) return realRoot;
    relComponents(rel);
    const real = await realpath(join(realRoot, toBuffer(rel)), { encoding: 'buffer' });
    if (!isUnder(realRoot, real)) return undefined;
    const stats = await lstat(real);
    return stats.isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the folder `rel` under `root` (and the folders on the way) without following a symbolic link: a
 * component that is a link or not a folder throws UnsafePathError. Returns the absolute path.
 */
export async function mkdirUnder(root: string, rel: RelPath): Promise<string> {
  const realRoot = await realpath(root, { encoding: 'buffer' });
  let current: Buffer = realRoot;
  for (const part of relComponents(rel)) {
    current = join(current, part);
    const stats = await lstat(current).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats) {
      await mkdir(current).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      });
      const made = await lstat(current);
      if (!made.isDirectory() || made.isSymbolicLink())
        throw new UnsafePathError(displayPath(rel), `${displayPath(part)} was replaced while it was made`);
    } else if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new UnsafePathError(
        displayPath(rel),
        `${displayPath(part)} on its path is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a folder'} (not followed)`,
      );
    }
  }
  return current.toString();
}

/**
 * `lstat` of `rel` under `root` with no symbolic link among the folders on the way (the last component may be
 * one: it is described, not followed). Undefined when it does not exist; UnsafePathError for a linked folder.
 */
export async function lstatUnder(root: string, rel: RelPath): Promise<Stats | undefined> {
  try {
    const target = await plan(root, rel, 'strict');
    return await lstat(target);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The text of the symbolic link `rel` under `root` (never followed), no folder on the way a link. */
export async function readlinkUnder(root: string, rel: RelPath): Promise<Buffer> {
  return readlink(await plan(root, rel, 'strict'), { encoding: 'buffer' });
}

/**
 * Writes `content` to `rel` under `root`, creating the folders on the way, never through a symbolic link (a
 * linked folder or a link at `rel` throws UnsafePathError; an existing regular file is replaced).
 */
export async function writeFileUnder(
  root: string,
  rel: string,
  content: string | Buffer,
  mode = 0o644,
): Promise<void> {
  const parts = relComponents(rel);
  const dir = parts.length > 1 ? await mkdirUnder(root, rel.slice(0, rel.lastIndexOf('/'))) : undefined;
  const target = join(
    dir ? Buffer.from(dir) : await realpath(root, { encoding: 'buffer' }),
    parts[parts.length - 1]!,
  );
  let handle: FileHandle;
  try {
    handle = await open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      mode,
    );
  } catch (error) {
    throw openedError(displayPath(rel), error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnsafePathError(displayPath(rel), 'not a regular file');
    const actual = await fdPath(handle.fd);
    if (actual && !actual.equals(target))
      throw new UnsafePathError(displayPath(rel), 'a folder on its path was replaced while it was opened');
    await handle.truncate(0);
    await handle.writeFile(content);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` to `rel` under `root` as a new file: created exclusively (`O_EXCL | O_NOFOLLOW`) beside
 * the target, in a folder reached with no symbolic link on the way (made when missing), then renamed over
 * the target. Whatever `rel` was before — a regular file, a symbolic link to a file outside the root, a
 * dangling link — is replaced, never written through. For output folders read back from elsewhere
 * (`buildbench report` re-rendering RUNBOOK.md, a leaderboard written over an old one); a folder at `rel`
 * is an error (EISDIR), left as it is.
 */
export async function replaceFileUnder(
  root: string,
  rel: string,
  content: string | Buffer,
  mode = 0o644,
): Promise<void> {
  const parts = relComponents(rel);
  const dir =
    parts.length > 1
      ? Buffer.from(await mkdirUnder(root, rel.slice(0, rel.lastIndexOf('/'))))
      : await realpath(root, { encoding: 'buffer' });
  const name = parts[parts.length - 1]!;
  // A short name of its own (a name near NAME_MAX could not take a suffix), unguessable: O_EXCL does the rest.
  const temp = join(dir, Buffer.from(`.buildbench-${process.pid}-${randomBytes(6).toString('hex')}.tmp`));
  let handle: FileHandle;
  try {
    handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
  } catch (error) {
    throw openedError(displayPath(rel), error);
  }
  try {
    try {
      const actual = await fdPath(handle.fd);
      if (actual && !actual.equals(temp))
        throw new UnsafePathError(displayPath(rel), 'a folder on its path was replaced while it was written');
      await handle.writeFile(content);
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(temp, join(dir, name));
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Checks a path that a file under a folder names (a field of result.json such as `files.trajectory`): it must
 * stay inside the folder — relative, without `..`, `.` or empty components. Returns it; throws an
 * UnsafePathError that names the field and the path otherwise. Links are refused when the path is opened
 * (`readNamedFileUnder`).
 */
export function checkNamedPath(field: string, value: string): string {
  try {
    relComponents(value);
    return value;
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    throw namedError(field, value, `${error.why}; it must name a file inside the folder`);
  }
}

function namedError(field: string, value: RelPath, why: string): UnsafePathError {
  const shown = displayPath(value);
  return new UnsafePathError(
    `${field} ${JSON.stringify(shown.length > 120 ? `${shown.slice(0, 119)}…` : shown)}`,
    why,
  );
}

/**
 * The bytes of the file a field names (`checkNamedPath`), opened under `root` with no symbolic link anywhere
 * on its path (strict). Every refusal is an UnsafePathError naming the field and the path; a missing file is
 * the system's ENOENT (so `readIfExists` answers undefined).
 */
export async function readNamedFileUnder(
  root: string,
  field: string,
  value: string,
  options: Omit<ReadUnderOptions, 'follow'> = {},
): Promise<Buffer> {
  const rel = checkNamedPath(field, value);
  try {
    return await readFileUnder(root, rel, { ...options, follow: 'strict' });
  } catch (error) {
    if (error instanceof UnsafePathError) throw namedError(field, value, error.why);
    throw error;
  }
}

/** Whether `rel` under `root` is a regular file itself (not a link to one), no folder on the way a link. */
export async function isFileUnder(root: string, rel: RelPath): Promise<boolean> {
  try {
    return (await lstatUnder(root, rel))?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** Whether `rel` under `root` is a folder itself (not a link to one), no folder on the way a link. */
export async function isDirUnder(root: string, rel: RelPath): Promise<boolean> {
  try {
    return (await lstatUnder(root, rel))?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** True for the errors that mean "there is no such file": ENOENT, and ENOTDIR (a parent is not a folder). */
export function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * What `read` returns, or undefined when the file is not there. Only a missing file is an answer: every
 * other error (EACCES, EIO, a path refused as unsafe) is thrown, so it is never mistaken for "absent".
 */
export async function readIfExists<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** `readIfExists` for synchronous reads. */
export function readIfExistsSync<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
