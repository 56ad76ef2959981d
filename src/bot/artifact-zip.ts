/**
 * The buildbench output artifact, read in memory: a zip GitHub hands out for an uploaded folder. The archive
 * is untrusted (the workflow ran the repository's code), so reading it is bounded and refuses what could write
 * outside the folder it is unpacked into: the archive over `maxArchiveBytes`, a wanted file over
 * `maxFileBytes`, more than `maxTotalBytes` unpacked in all; an entry whose name is absolute, has a `..`
 * segment, a backslash or a NUL (zip-slip) refuses the whole archive, so nothing of it is used. Symbolic links
 * (a Unix mode in the central directory's external attributes) are ignored, never followed or written. Only
 * the files the bot needs are decompressed: result.json, RUNBOOK.md, build.sh, Dockerfile and patches/*.patch.
 */
import { strFromU8, unzipSync } from 'fflate';

export interface ArchiveLimits {
  /** The zip itself (default 100 MiB). */
  maxArchiveBytes: number;
  /** One wanted file, unpacked (default 4 MiB). */
  maxFileBytes: number;
  /** Every wanted file together, unpacked (default 16 MiB). */
  maxTotalBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxArchiveBytes: 100 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
};

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

/** Names of the central directory's entries that carry a Unix symbolic-link mode. */
export function symlinkEntries(zip: Uint8Array): Set<string> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const links = new Set<string>();
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError('the artifact is not a zip archive (no end of central directory)');
  let entries = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if (offset === 0xffffffff || entries === 0xffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50)
      throw new ArchiveError('the artifact is a damaged zip64 archive');
    const z64 = Number(view.getBigUint64(locator + 8, true));
    if (z64 + 56 > zip.length || view.getUint32(z64, true) !== 0x06064b50)
      throw new ArchiveError('the artifact is a damaged zip64 archive');
    entries = Number(view.getBigUint64(z64 + 32, true));
    offset = Number(view.getBigUint64(z64 + 48, true));
  }
  for (let n = 0; n < entries; n++) {
    if (offset + 46 > zip.length || view.getUint32(offset, true) !== 0x02014b50)
      throw new ArchiveError('the artifact is a damaged zip archive (central directory)');
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const flags = view.getUint16(offset + 8, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const mode = view.getUint32(offset + 38, true) >>> 16;
    const name = strFromU8(zip.subarray(offset + 46, offset + 46 + nameLength), (flags & 0x800) === 0);
    // 3: Unix, 19: macOS — the ones whose high attribute bits are a st_mode.
    if ((madeBy === 3 || madeBy === 19) && (mode & 0o170000) === 0o120000) links.add(name);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return links;
}

/**
 * The wanted files of the artifact, name → bytes, within `limits`; ArchiveError says why an archive was
 * refused. The whole listing is checked for unsafe names before anything is used.
 */
export function readArtifactZip(
  zip: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Map<string, Uint8Array> {
  if (zip.byteLength > limits.maxArchiveBytes)
    throw new ArchiveError(
      `the artifact is ${fmt(zip.byteLength)}, over the bot's limit of ${fmt(limits.maxArchiveBytes)}`,
    );
  const links = symlinkEntries(zip);
  const refusals: string[] = [];
  let total = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter: (file) => {
        const unsafe = unsafeEntryName(file.name);
        if (unsafe) {
          refusals.push(`the entry ${JSON.stringify(file.name.slice(0, 200))} has ${unsafe}`);
          return false;
        }
        if (links.has(file.name) || !isWanted(file.name)) return false;
        if (file.originalSize > limits.maxFileBytes) {
          refusals.push(
            `${file.name} is ${fmt(file.originalSize)} unpacked, over the limit of ${fmt(limits.maxFileBytes)}`,
          );
          return false;
        }
        total += file.originalSize;
        return true;
      },
    });
  } catch (error) {
    throw new ArchiveError(
      `the artifact is not a readable zip archive (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (total > limits.maxTotalBytes)
    refusals.push(`its files are ${fmt(total)} unpacked, over the limit of ${fmt(limits.maxTotalBytes)}`);
  if (refusals.length > 0) throw new ArchiveError(`the artifact was refused: ${refusals.join('; ')}`);
  const out = new Map<string, Uint8Array>();
  for (const [name, bytes] of Object.entries(files)) {
    // A header that understated the size would not get past fflate's fixed output buffer; checked anyway.
    if (bytes.byteLength > limits.maxFileBytes)
      throw new ArchiveError(`the artifact was refused: ${name} unpacks to more than its header says`);
    out.set(name, bytes);
  }
  return out;
}
