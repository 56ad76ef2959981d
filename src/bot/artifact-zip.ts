/**
 * The buildbench output artifact, read in memory: a zip GitHub hands out for an uploaded folder. The archive
 * is untrusted (the workflow ran the repository's code), so it is read from its central directory by this
 * file, never by a general unzipper, and refused whole, with a reason fit for the sticky comment, when:
 * - it is over `maxArchiveBytes`, or lists more than `maxEntries` entries;
 * - an entry's name is absolute, has a `..` segment, a backslash or a NUL (zip-slip);
 * - two entries' byte ranges (local header through compressed data) overlap or share data — the trick of the
 *   zip bomb whose many entries all point at one deflated block — or a range leaves the archive;
 * - a wanted file declares more than `maxFileBytes`, the wanted files together more than `maxTotalBytes`, or
 *   a file claims more than deflate can give from its compressed size (MAX_DEFLATE_RATIO);
 * - a wanted file inflates to more or less than it declares, or its CRC-32 differs.
 * Inflating is bounded while it runs: zlib stops as soon as an entry's output passes what it declared (never
 * more than the per-file limit), so memory follows the limits, never what the archive claims. Symbolic links
 * (a Unix mode in the central directory's external attributes) are ignored, never followed or written. Only
 * the files the bot needs are decompressed: result.json, RUNBOOK.md, build.sh, Dockerfile and patches/*.patch.
 */
import { inflateRawSync } from 'node:zlib';

import { strFromU8 } from 'fflate';

export interface ArchiveLimits {
  /** The zip itself (default 100 MiB). */
  maxArchiveBytes: number;
  /** One wanted file, unpacked (default 4 MiB). */
  maxFileBytes: number;
  /** Every wanted file together, unpacked (default 16 MiB). */
  maxTotalBytes: number;
  /** Entries in the central directory, wanted or not (default 10,000; a run writes a few hundred). */
  maxEntries: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxArchiveBytes: 100 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxEntries: 10_000,
};

/**
 * The most bytes deflate can produce per compressed byte: its longest match (258 bytes) coded in two bits (a
 * one-bit length code and a one-bit distance code) is 258 × 8 / 2 = 1032. A file declaring more than this
 * times its compressed size is lying about one of them; it is refused before anything is inflated.
 */
export const MAX_DEFLATE_RATIO = 1032;

/** Why an artifact was refused; the message is for the sticky comment. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

/** The folder's files the bot reads: the outcome and the recipe. */
export function isWanted(name: string): boolean {
  return (
    ['result.json', 'RUNBOOK.md', 'build.sh', 'Dockerfile'].includes(name) ||
    /^patches\/[^/]+\.patch$/.test(name)
  );
}

/** Why an entry name is unsafe to unpack anywhere, or undefined. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes('\0')) return 'a NUL character';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((part) => part === '..')) return 'a .. segment';
  return undefined;
}

const fmt = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
const quote = (name: string): string => JSON.stringify(name.slice(0, 200));

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as zip computes it (zlib's own `crc32` export needs Node 20.15). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One central-directory entry, with where its local header says its data starts. */
export interface ZipEntry {
  name: string;
  nameBytes: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Offset of the local header. */
  offset: number;
  symlink: boolean;
}

const damaged = (what: string): ArchiveError =>
  new ArchiveError(`the artifact is a damaged zip archive (${what})`);

/** The end of central directory record: where the directory starts and how many entries it lists. */
function directory(zip: Uint8Array, view: DataView): { entries: number; offset: number; end: number } {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError('the artifact is not a zip archive (no end of central directory)');
  if (view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 6, true) !== 0)
    throw new ArchiveError('the artifact is a multi-disk zip archive');
  let entries = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  let end = eocd;
  if (offset === 0xffffffff || entries === 0xffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50)
      throw new ArchiveError('the artifact is a damaged zip64 archive');
    const z64 = Number(view.getBigUint64(locator + 8, true));
    if (z64 + 56 > locator || view.getUint32(z64, true) !== 0x06064b50)
      throw new ArchiveError('the artifact is a damaged zip64 archive');
    entries = Number(view.getBigUint64(z64 + 32, true));
    offset = Number(view.getBigUint64(z64 + 48, true));
    end = z64;
  }
  if (offset > end) throw damaged('central directory');
  return { entries, offset, end };
}

/**
 * The central directory's entries, at most `maxEntries` of them (more refuses the archive before any is
 * read); the sizes and offset come from the zip64 extra field where the 32-bit fields say so.
 */
export function centralDirectory(
  zip: Uint8Array,
  maxEntries = DEFAULT_ARCHIVE_LIMITS.maxEntries,
): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const { entries, offset: start, end } = directory(zip, view);
  if (entries > maxEntries)
    throw new ArchiveError(
      `the artifact lists ${entries} entries, over the bot's limit of ${maxEntries}; nothing of it was inflated`,
    );
  if (entries * 46 > end - start) throw damaged('its directory is shorter than the entries it lists');
  const out: ZipEntry[] = [];
  let offset = start;
  for (let n = 0; n < entries; n++) {
    if (offset + 46 > end || view.getUint32(offset, true) !== 0x02014b50) throw damaged('central directory');
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const flags = view.getUint16(offset + 8, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const mode = view.getUint32(offset + 38, true) >>> 16;
    const next = offset + 46 + nameLength + extraLength + commentLength;
    if (next > end) throw damaged('central directory');
    const nameBytes = zip.subarray(offset + 46, offset + 46 + nameLength);
    let size = view.getUint32(offset + 24, true);
    let compressedSize = view.getUint32(offset + 20, true);
    let local = view.getUint32(offset + 42, true);
    // zip64: the extra field holds, in this order, only those of the three that are 0xffffffff above.
    for (let e = offset + 46 + nameLength; e + 4 <= offset + 46 + nameLength + extraLength;) {
      const id = view.getUint16(e, true);
      const length = view.getUint16(e + 2, true);
      if (id === 0x0001) {
        let at = e + 4;
        const field = (): number => {
          if (at + 8 > e + 4 + length) throw damaged('zip64 extra field');
          const value = Number(view.getBigUint64(at, true));
          at += 8;
          return value;
        };
        if (size === 0xffffffff) size = field();
        if (compressedSize === 0xffffffff) compressedSize = field();
        if (local === 0xffffffff) local = field();
      }
      e += 4 + length;
    }
    out.push({
      name: strFromU8(nameBytes, (flags & 0x800) === 0),
      nameBytes,
      flags,
      method: view.getUint16(offset + 10, true),
      crc: view.getUint32(offset + 16, true),
      compressedSize,
      size,
      offset: local,
      // 3: Unix, 19: macOS — the ones whose high attribute bits are a st_mode.
      symlink: (madeBy === 3 || madeBy === 19) && (mode & 0o170000) === 0o120000,
    });
    offset = next;
  }
  return out;
}

/** Names of the central directory's entries that carry a Unix symbolic-link mode. */
export function symlinkEntries(zip: Uint8Array): Set<string> {
  return new Set(
    centralDirectory(zip)
      .filter((e) => e.symlink)
      .map((e) => e.name),
  );
}

/**
 * Where each entry's data starts (after its local header), refusing entries whose byte ranges overlap,
 * share data or leave the part of the archive before the central directory.
 */
function dataStarts(zip: Uint8Array, entries: ZipEntry[], directoryStart: number): Map<ZipEntry, number> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const ranges = entries.map((entry) => {
    if (entry.offset + 30 > directoryStart || view.getUint32(entry.offset, true) !== 0x04034b50)
      throw damaged(`no local header for ${quote(entry.name)}`);
    const data =
      entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
    const end = data + entry.compressedSize;
    if (end > directoryStart) throw damaged(`${quote(entry.name)} runs past the end of its data`);
    return { entry, start: entry.offset, data, end };
  });
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    const after = sorted[i]!;
    if (after.start < before.end)
      throw new ArchiveError(
        `the artifact was refused: its entries ${quote(before.entry.name)} and ${quote(after.entry.name)} ` +
          `${after.start === before.start ? 'share the same data' : 'overlap'} (the shape of a zip bomb); nothing of it was inflated`,
      );
  }
  return new Map(ranges.map((r) => [r.entry, r.data]));
}

/** Why a wanted entry cannot be inflated as declared, before inflating it; or undefined. */
function declaredProblem(zip: Uint8Array, entry: ZipEntry, limits: ArchiveLimits): string | undefined {
  const name = entry.name;
  if (entry.flags & 0x1) return `${name} is encrypted`;
  if (entry.method !== 0 && entry.method !== 8)
    return `${name} uses compression method ${entry.method} (only stored and deflate are read)`;
  if (entry.size > limits.maxFileBytes)
    return `${name} is ${fmt(entry.size)} unpacked, over the limit of ${fmt(limits.maxFileBytes)}`;
  if (entry.method === 0 && entry.size !== entry.compressedSize)
    return `${name} is stored yet declares ${entry.size} bytes from ${entry.compressedSize}`;
  if (entry.method === 8 && entry.size > entry.compressedSize * MAX_DEFLATE_RATIO)
    return (
      `${name} claims ${fmt(entry.size)} from ${entry.compressedSize} compressed bytes, ` +
      `more than deflate can give (${MAX_DEFLATE_RATIO}:1)`
    );
  // The local header repeats the name and, unless a data descriptor follows the data, the sizes and CRC.
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const nameLength = view.getUint16(entry.offset + 26, true);
  const localName = zip.subarray(entry.offset + 30, entry.offset + 30 + nameLength);
  if (Buffer.compare(localName, entry.nameBytes) !== 0) return `${name} has another name in its local header`;
  if ((view.getUint16(entry.offset + 6, true) & 0x8) === 0) {
    const crc = view.getUint32(entry.offset + 14, true);
    const compressed = view.getUint32(entry.offset + 18, true);
    const size = view.getUint32(entry.offset + 22, true);
    const zip64 = compressed === 0xffffffff && size === 0xffffffff;
    if (crc !== entry.crc || (!zip64 && (compressed !== entry.compressedSize || size !== entry.size)))
      return `${name} declares other sizes in its local header than in the central directory`;
  }
  return undefined;
}

/** The entry's bytes, inflated by zlib with its output capped at what the entry declared. */
function inflateEntry(zip: Uint8Array, entry: ZipEntry, data: number): Uint8Array {
  const compressed = zip.subarray(data, data + entry.compressedSize);
  let bytes: Uint8Array;
  if (entry.method === 0) bytes = compressed.slice();
  else {
    try {
      // zlib stops and throws as soon as its output passes maxOutputLength (checked per 16 KiB chunk).
      bytes = inflateRawSync(compressed, { maxOutputLength: Math.max(1, entry.size) });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new ArchiveError(
          `the artifact was refused: ${entry.name} inflates to more than the ${entry.size} bytes it declares; inflating stopped there`,
        );
      throw new ArchiveError(
        `the artifact was refused: ${entry.name} does not inflate (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  if (bytes.byteLength !== entry.size)
    throw new ArchiveError(
      `the artifact was refused: ${entry.name} inflates to ${bytes.byteLength} bytes, not the ${entry.size} it declares`,
    );
  if (crc32(bytes) !== entry.crc)
    throw new ArchiveError(`the artifact was refused: ${entry.name} fails its CRC-32 check`);
  return bytes;
}

/**
 * The wanted files of the artifact, name → bytes, within `limits` (the defaults for those not given);
 * ArchiveError says why an archive was refused. The whole listing and the layout of every entry are checked,
 * and every wanted file's declared size, before anything is inflated.
 */
export function readArtifactZip(
  zip: Uint8Array,
  given: Partial<ArchiveLimits> = {},
): Map<string, Uint8Array> {
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...given };
  if (zip.byteLength > limits.maxArchiveBytes)
    throw new ArchiveError(
      `the artifact is ${fmt(zip.byteLength)}, over the bot's limit of ${fmt(limits.maxArchiveBytes)}`,
    );
  const entries = centralDirectory(zip, limits.maxEntries);
  const refusals: string[] = [];
  for (const entry of entries) {
    const unsafe = unsafeEntryName(entry.name);
    if (unsafe) refusals.push(`the entry ${quote(entry.name)} has ${unsafe}`);
  }
  if (refusals.length > 0) throw new ArchiveError(`the artifact was refused: ${refusals.join('; ')}`);
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const starts = dataStarts(zip, entries, directory(zip, view).offset);
  const wanted = entries.filter((e) => !e.symlink && isWanted(e.name));
  let declared = 0;
  const names = new Set<string>();
  for (const entry of wanted) {
    if (names.has(entry.name)) refusals.push(`it lists ${entry.name} twice`);
    names.add(entry.name);
    const problem = declaredProblem(zip, entry, limits);
    if (problem) refusals.push(problem);
    else declared += entry.size;
  }
  if (declared > limits.maxTotalBytes)
    refusals.push(`its files are ${fmt(declared)} unpacked, over the limit of ${fmt(limits.maxTotalBytes)}`);
  if (refusals.length > 0) throw new ArchiveError(`the artifact was refused: ${refusals.join('; ')}`);
  // Each inflation is capped at its declared size, and the declared sizes fit the limits: the total holds.
  const out = new Map<string, Uint8Array>();
  for (const entry of wanted) {
    out.set(entry.name, inflateEntry(zip, entry, starts.get(entry)!));
  }
  return out;
}
