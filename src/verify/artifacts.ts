/**
 * Finding the binaries a build produced: a snapshot of the tree before the build, a scan for files that
 * are new or changed since, and a classification of each by its first bytes (ELF type, `ar` magic).
 *
 * Only regular files count. Symbolic links are never followed nor reported (for `libfoo.so → libfoo.so.1.2`
 * the real file `libfoo.so.1.2` is the artifact; scoring matches it to `libfoo.so`). Everything named `.git`
 * (the repository's own directory, a submodule's gitfile) is skipped.
 */
import { constants as fsConstants, type Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

import { createLimiter, mapLimit } from '../util/concurrency.js';
import type { Artifact, ArtifactKind, FileStamp, TreeSnapshot } from './types.js';

/**
 * Called for each directory and file below the root with its relative '/'-separated path; true leaves it
 * out. Returning true for a directory prunes the whole subtree without reading it.
 */
export type ExcludeFn = (relPath: string, isDirectory: boolean) => boolean;

export interface SnapshotOptions {
  /** Paths to leave out (in addition to `.git`). Use the same function for the snapshot and the scan. */
  exclude?: ExcludeFn;
  /** File-system operations in flight at once. Default 64. */
  concurrency?: number;
  /**
   * Told about entries below the root that could not be read (a directory without permission); they are
   * left out either way. Entries that vanish while the tree is walked are left out silently. Only a root
   * that cannot be read makes the call fail.
   */
  onError?: (relPath: string, error: Error) => void;
}

/** What a file was classified as the last time it was read, to skip reading it again while it stays the same. */
export interface ClassifiedStamp extends FileStamp {
  kind: ArtifactKind | undefined;
}

export interface ScanOptions extends SnapshotOptions {
  /**
   * Remembers classifications across scans of the same tree (the agent loop scans after every turn): a file
   * whose size and mtime are unchanged since it was last classified is not read again. The scan adds and
   * removes entries itself.
   */
  cache?: Map<string, ClassifiedStamp>;
}

/** What `classifyBinary` can say about a file. `'object'` (ELF relocatable, `.o`) is not an artifact. */
export type BinaryClass = ArtifactKind | 'object';

/** A piece of a file beyond its head, read because classification needs it. */
export interface FileChunk {
  offset: number;
  bytes: Buffer;
}

/** How much of a file the scanner reads first; enough for the ELF header and, almost always, the program headers. */
export const HEAD_BYTES = 4096;
/** The most read for one extra piece (program header table, dynamic segment); anything larger is implausible. */
const MAX_CHUNK_BYTES = 256 * 1024;
const DEFAULT_CONCURRENCY = 64;

const ET_REL = 1;
const ET_EXEC = 2;
const ET_DYN = 3;
const ET_CORE = 4;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const PN_XNUM = 0xffff;
const DT_NULL = 0;
const DT_SONAME = 14;
const DT_FLAGS_1 = 0x6ffffffb;
const DF_1_PIE = 0x08000000;

const AR_MAGIC = Buffer.from('!<arch>\n', 'latin1');
const THIN_AR_MAGIC = Buffer.from('!<thin>\n', 'latin1');
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

// ---------------------------------------------------------------------------------------------------------
// Classification (pure)

interface ElfHeader {
  is64: boolean;
  little: boolean;
  type: number;
  phoff: number;
  phentsize: number;
  phnum: number;
}

interface ProgramHeader {
  type: number;
  offset: number;
  filesz: number;
}

/** Reads `length` bytes at `offset` from the head or one of the chunks; undefined when no piece covers them. */
function slice(head: Buffer, chunks: readonly FileChunk[], offset: number, length: number): Buffer | undefined {
  if (offset + length <= head.length) return head.subarray(offset, offset + length);
  for (const chunk of chunks) {
    if (offset >= chunk.offset && offset + length <= chunk.offset + chunk.bytes.length) {
      return chunk.bytes.subarray(offset - chunk.offset, offset - chunk.offset + length);
    }
  }
  return undefined;
}

function readWord(buf: Buffer, at: number, is64: boolean, little: boolean): number {
  if (!is64) return little ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
  const value = little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at);
  // Offsets beyond 2^53 are not real files; make them unreachable instead of wrong.
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

function readHalf(buf: Buffer, at: number, little: boolean): number {
  return little ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
}

function readElfHeader(head: Buffer): ElfHeader | undefined {
  if (head.length < 20 || !head.subarray(0, 4).equals(ELF_MAGIC)) return undefined;
  const elfClass = head[4];
  const data = head[5];
  if ((elfClass !== 1 && elfClass !== 2) || (data !== 1 && data !== 2)) return undefined;
  const is64 = elfClass === 2;
  const little = data === 1;
  const type = readHalf(head, 16, little);
  const size = is64 ? 64 : 52;
  if (head.length < size) return { is64, little, type, phoff: 0, phentsize: 0, phnum: 0 };
  return {
    is64,
    little,
    type,
    phoff: readWord(head, is64 ? 32 : 28, is64, little),
    phentsize: readHalf(head, is64 ? 54 : 42, little),
    phnum: readHalf(head, is64 ? 56 : 44, little),
  };
}

/** Where the program header table is, or undefined when the header declares none or an impossible one. */
function phdrTableRange(elf: ElfHeader): { offset: number; length: number } | undefined {
  const minimum = elf.is64 ? 56 : 32;
  if (elf.phnum === 0 || elf.phnum === PN_XNUM || elf.phentsize < minimum || elf.phoff === 0) return undefined;
  return { offset: elf.phoff, length: elf.phnum * elf.phentsize };
}

function readProgramHeaders(
  elf: ElfHeader,
  head: Buffer,
  chunks: readonly FileChunk[],
): ProgramHeader[] | undefined {
  const range = phdrTableRange(elf);
  if (!range) return undefined;
  const table = slice(head, chunks, range.offset, range.length);
  if (!table) return undefined;
  const headers: ProgramHeader[] = [];
  for (let i = 0; i < elf.phnum; i++) {
    const at = i * elf.phentsize;
    const type = elf.little ? table.readUInt32LE(at) : table.readUInt32BE(at);
    const offset = readWord(table, at + (elf.is64 ? 8 : 4), elf.is64, elf.little);
    const filesz = readWord(table, at + (elf.is64 ? 32 : 16), elf.is64, elf.little);
    headers.push({ type, offset, filesz });
  }
  return headers;
}

function dynamicRange(phdrs: readonly ProgramHeader[]): { offset: number; length: number } | undefined {
  const dynamic = phdrs.find((p) => p.type === PT_DYNAMIC);
  if (!dynamic || dynamic.filesz === 0) return undefined;
  return { offset: dynamic.offset, length: Math.min(dynamic.filesz, MAX_CHUNK_BYTES) };
}

/** DF_1_PIE and DT_SONAME from the dynamic segment; undefined when the segment is not in the pieces given. */
function readDynamicHints(
  elf: ElfHeader,
  phdrs: readonly ProgramHeader[],
  head: Buffer,
  chunks: readonly FileChunk[],
): { pie: boolean; soname: boolean } | undefined {
  const range = dynamicRange(phdrs);
  if (!range) return undefined;
  const bytes = slice(head, chunks, range.offset, range.length);
  if (!bytes) return undefined;
  const entry = elf.is64 ? 16 : 8;
  let pie = false;
  let soname = false;
  for (let at = 0; at + entry <= bytes.length; at += entry) {
    const tag = elf.is64
      ? Number(elf.little ? bytes.readBigInt64LE(at) : bytes.readBigInt64BE(at))
      : elf.little
        ? bytes.readInt32LE(at)
        : bytes.readInt32BE(at);
    if (tag === DT_NULL) break;
    if (tag === DT_SONAME) soname = true;
    if (tag === DT_FLAGS_1) {
      const value = readWord(bytes, at + (elf.is64 ? 8 : 4), elf.is64, elf.little);
      if ((value & DF_1_PIE) !== 0) pie = true;
    }
  }
  return { pie, soname };
}

/** `.deb` packages are `ar` archives too; their first member is `debian-binary`. */
function isDebianPackage(head: Buffer): boolean {
  return head.length >= 8 + 13 && head.toString('latin1', 8, 8 + 13) === 'debian-binary';
}

/**
 * What kind of binary a file is, from its first bytes (pure; no file access).
 *
 * - `!<arch>\n` and thin `!<thin>\n` archives → `static_library` (a `.deb` package is not one).
 * - ELF `ET_EXEC` → `executable`; `ET_REL` → `'object'` (not an artifact); `ET_CORE` (a core dump) → undefined;
 *   other ELF types (OS- or processor-specific) → `elf_other`.
 * - ELF `ET_DYN` is a shared library unless it is a position-independent executable. The dynamic segment
 *   decides when it is available: `DF_1_PIE` → executable; otherwise a `PT_INTERP` program header without
 *   a `DT_SONAME` → executable (a PIE from a linker that does not set `DF_1_PIE`), and with a `DT_SONAME` →
 *   shared library (libraries that can also be run, like glibc's `libc.so.6`). Without the dynamic segment,
 *   `PT_INTERP` alone decides. When the program headers are not in the pieces given, `shared_library`.
 *
 * `head` must start at offset 0 of the file; `chunks` are further pieces (see `missingChunk`). 32- and
 * 64-bit, little- and big-endian files are read. Anything else → undefined.
 */
export function classifyBinary(head: Buffer, chunks: readonly FileChunk[] = []): BinaryClass | undefined {
  if (head.length >= 8 && head.subarray(0, 8).equals(THIN_AR_MAGIC)) return 'static_library';
  if (head.length >= 8 && head.subarray(0, 8).equals(AR_MAGIC)) {
    return isDebianPackage(head) ? undefined : 'static_library';
  }
  const elf = readElfHeader(head);
  if (!elf) return head.length >= 4 && head.subarray(0, 4).equals(ELF_MAGIC) ? 'elf_other' : undefined;
  switch (elf.type) {
    case ET_REL:
      return 'object';
    case ET_EXEC:
      return 'executable';
    case ET_CORE:
      return undefined;
    case ET_DYN: {
      const phdrs = readProgramHeaders(elf, head, chunks);
      if (!phdrs) return 'shared_library';
      const hints = readDynamicHints(elf, phdrs, head, chunks);
      const interp = phdrs.some((p) => p.type === PT_INTERP);
      if (hints?.pie) return 'executable';
      if (interp) return hints?.soname ? 'shared_library' : 'executable';
      return 'shared_library';
    }
    default:
      return 'elf_other';
  }
}

/**
 * The next piece of the file `classifyBinary` would use but does not have: the program header table when it
 * lies beyond `head` (patchelf moves it to the end of the file), then the dynamic segment of an `ET_DYN` file.
 * Undefined when nothing more would help. Pieces are capped at 256 KiB.
 */
export function missingChunk(
  head: Buffer,
  chunks: readonly FileChunk[] = [],
): { offset: number; length: number } | undefined {
  const elf = readElfHeader(head);
  if (!elf || elf.type !== ET_DYN) return undefined;
  const table = phdrTableRange(elf);
  if (!table || table.length > MAX_CHUNK_BYTES) return undefined;
  if (!slice(head, chunks, table.offset, table.length)) return table;
  const phdrs = readProgramHeaders(elf, head, chunks);
  const dynamic = phdrs && dynamicRange(phdrs);
  if (dynamic && !slice(head, chunks, dynamic.offset, dynamic.length)) return dynamic;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Walking the tree

function isVanished(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function toPosix(relPath: string): string {
  return path.sep === '/' ? relPath : relPath.split(path.sep).join('/');
}

/**
 * Every regular file below `root` (relative '/'-separated path → size and mtime), skipping `.git` and
 * anything `exclude` leaves out. Symbolic links are neither followed nor recorded; sockets, FIFOs and
 * devices are left out. Directories are read and files stat'ed with at most `concurrency` operations in
 * flight. Take it before the first build command runs.
 */
export async function snapshotTree(root: string, options: SnapshotOptions = {}): Promise<TreeSnapshot> {
  const { exclude, onError } = options;
  const limit = createLimiter(options.concurrency ?? DEFAULT_CONCURRENCY);
  const snapshot: TreeSnapshot = new Map();
  const pending: Promise<void>[] = [];
  let failure: unknown;
  const fail = (error: unknown): void => {
    failure ??= error;
  };

  const statFile = async (rel: string, abs: string): Promise<void> => {
    try {
      const stats = await fs.lstat(abs);
      if (stats.isFile()) snapshot.set(rel, { size: stats.size, mtimeMs: stats.mtimeMs });
    } catch (error) {
      if (!isVanished(error)) onError?.(rel, error as Error);
    }
  };

  const visitDirectory = async (abs: string, rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await limit(() => fs.readdir(abs, { withFileTypes: true }));
    } catch (error) {
      if (rel === '') return fail(error); // the root itself: nothing to snapshot
      if (!isVanished(error)) onError?.(rel, error as Error);
      return;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git') continue;
      const childRel = rel === '' ? toPosix(name) : `${rel}/${toPosix(name)}`;
      const childAbs = path.join(abs, name);
      if (entry.isDirectory()) {
        if (exclude?.(childRel, true)) continue;
        pending.push(visitDirectory(childAbs, childRel).catch(fail));
      } else if (entry.isFile()) {
        if (exclude?.(childRel, false)) continue;
        pending.push(limit(() => statFile(childRel, childAbs)).catch(fail));
      }
      // Symbolic links, sockets, FIFOs and devices are not build products.
    }
  };

  await visitDirectory(root, '');
  // `pending` grows while earlier directories are read; every promise in it already handles its own failure.
  for (let i = 0; i < pending.length; i++) await pending[i];
  if (failure !== undefined) throw failure;
  return snapshot;
}

/** Paths in `after` that are not in `before` or whose size or mtime differ, sorted. */
export function changedPaths(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changed: string[] = [];
  for (const [rel, stamp] of after) {
    const old = before.get(rel);
    if (!old || old.size !== stamp.size || old.mtimeMs !== stamp.mtimeMs) changed.push(rel);
  }
  return changed.sort(comparePaths);
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function readAt(handle: fs.FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Reads what `classifyBinary` needs from a file: its head, then at most two further pieces. */
async function classifyFile(abs: string, size: number): Promise<BinaryClass | undefined> {
  // O_NOFOLLOW: a file swapped for a symbolic link since the walk is not read through the link.
  const handle = await fs.open(abs, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    const head = await readAt(handle, 0, Math.min(size, HEAD_BYTES));
    const chunks: FileChunk[] = [];
    for (let round = 0; round < 2; round++) {
      const need = missingChunk(head, chunks);
      if (!need || need.offset >= size) break;
      const bytes = await readAt(handle, need.offset, Math.min(need.length, size - need.offset));
      if (bytes.length < need.length) break; // the file ends first: classify with what there is
      chunks.push({ offset: need.offset, bytes });
    }
    return classifyBinary(head, chunks);
  } finally {
    await handle.close();
  }
}

/**
 * Binaries that are new or changed (size or mtime differ) since `before`: ELF executables (PIE or not),
 * shared libraries, `ar` archives, other ELF files. Object files (ELF `ET_REL`) are not artifacts, except
 * Linux kernel modules (`*.ko`), reported as `elf_other`; core dumps are not artifacts. Only the first
 * bytes of a file are read (plus its program headers and dynamic segment when they lie further in), so
 * file size does not matter. Sorted by path.
 *
 * A file rewritten with the same size and a preserved mtime (`cp -p` over an existing file) is not seen
 * as changed. Unreadable files are left out (and told to `onError`).
 */
export async function scanNewArtifacts(
  root: string,
  before: TreeSnapshot,
  options: ScanOptions = {},
): Promise<Artifact[]> {
  const after = await snapshotTree(root, options);
  const { cache, onError } = options;
  if (cache) {
    for (const rel of cache.keys()) if (!after.has(rel)) cache.delete(rel);
  }
  // Neither an ELF header nor an archive magic fits in fewer than 8 bytes.
  const candidates = changedPaths(before, after).filter((rel) => (after.get(rel)?.size ?? 0) >= 8);
  const kinds = await mapLimit(candidates, options.concurrency ?? DEFAULT_CONCURRENCY, async (rel) => {
    const stamp = after.get(rel) as FileStamp;
    const cached = cache?.get(rel);
    if (cached && cached.size === stamp.size && cached.mtimeMs === stamp.mtimeMs) return cached.kind;
    let kind: ArtifactKind | undefined;
    try {
      const found = await classifyFile(path.join(root, rel), stamp.size);
      kind = found === 'object' ? (rel.endsWith('.ko') ? 'elf_other' : undefined) : found;
    } catch (error) {
      if (!isVanished(error) && (error as NodeJS.ErrnoException).code !== 'ELOOP') onError?.(rel, error as Error);
      cache?.delete(rel);
      return undefined;
    }
    cache?.set(rel, { ...stamp, kind });
    return kind;
  });
  const artifacts: Artifact[] = [];
  candidates.forEach((rel, i) => {
    const kind = kinds[i];
    if (kind) artifacts.push({ path: rel, kind, size: (after.get(rel) as FileStamp).size });
  });
  return artifacts;
}
