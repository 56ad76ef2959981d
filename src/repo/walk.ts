/** A bounded, breadth-first walk of a checkout, and careful reads of small files in it. */

import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';

import { isExecutableUnder, openUnder } from '../base/safe-fs.js';

/** Directory names never descended into. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', 'node_modules']);

export const DEFAULT_MAX_ENTRIES = 200_000;

export interface WalkOptions {
  /** Stop after this many entries (files, directories and links together). */
  maxEntries?: number;
  /** Directories read at the same time. */
  concurrency?: number;
}

export interface RepoTree {
  /** Regular files and symbolic links (never followed), '/'-separated, relative to the root, breadth-first. */
  files: string[];
  /** Directories, relative to the root, breadth-first; the root itself is not listed. */
  dirs: string[];
  /** Entries seen, including skipped directories' names. */
  entries: number;
  /** The walk stopped at maxEntries; files and dirs are a shallow-first prefix of the tree. */
  truncated: boolean;
}

/**
 * Lists the tree under `root` level by level (shallow files first, names sorted within a directory).
 * Skips `.git` and `node_modules`, never follows symbolic links (so link loops cannot trap it), and
 * ignores directories it cannot read. Sockets, FIFOs and devices are counted but not listed.
 */
export async function walkTree(root: string, options: WalkOptions = {}): Promise<RepoTree> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const files: string[] = [];
  const dirs: string[] = [];
  let entries = 0;
  let truncated = false;
  let level: string[] = [''];
  while (level.length > 0 && !truncated) {
    const next: string[] = [];
    for (let i = 0; i < level.length && !truncated; i += concurrency) {
      const chunk = level.slice(i, i + concurrency);
      const listings = await Promise.all(chunk.map((dir) => readDirSafe(path.join(root, dir))));
      for (const [k, listing] of listings.entries()) {
        const dir = chunk[k] ?? '';
        for (const entry of listing) {
          if (entries >= maxEntries) {
            truncated = true;
            break;
          }
          entries++;
          const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
          if (entry.isDirectory()) {
            if (SKIPPED_DIRS.has(entry.name)) continue;
            dirs.push(rel);
            next.push(rel);
          } else if (entry.isFile() || entry.isSymbolicLink()) {
            if (entry.name === '.git') continue; // a submodule's gitlink file
            files.push(rel);
          }
        }
        if (truncated) break;
      }
    }
    level = next;
  }
  return { files, dirs, entries, truncated };
}

async function readDirSafe(dir: string): Promise<Dirent[]> {
  try {
    const list = await fs.readdir(dir, { withFileTypes: true });
    return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

export interface ReadOptions {
  /** Read at most this many bytes (default 256 KiB). */
  maxBytes?: number;
  /** Give up (undefined) instead of reading a prefix when the file is larger than maxBytes. */
  whole?: boolean;
}

export const DEFAULT_MAX_READ = 256 * 1024;

/**
 * The text of a small regular file, or undefined when it is missing, not a regular file (a directory,
 * a FIFO, a device, a dangling or looping link), a symbolic link that leads outside `root` (links that stay
 * inside are followed), unreadable, or binary (a NUL byte near the start). Larger files yield their first
 * `maxBytes` bytes unless `whole` is set.
 */
export async function readSmallText(
  root: string,
  rel: string,
  options: ReadOptions = {},
): Promise<string | undefined> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ;
  let opened;
  try {
    opened = await openUnder(root, rel, { follow: 'inside' });
  } catch {
    return undefined;
  }
  const { handle, stats } = opened;
  try {
    if (options.whole && stats.size > maxBytes) return undefined;
    const length = Math.min(stats.size, maxBytes);
    if (length === 0) return '';
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const data = buffer.subarray(0, bytesRead);
    if (data.subarray(0, 8192).includes(0)) return undefined;
    return data.toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Whether `rel` is a regular file with any execute bit set (links followed only while they stay inside
 * `root`); false on any error.
 */
export async function isExecutableFile(root: string, rel: string): Promise<boolean> {
  return isExecutableUnder(root, rel, { follow: 'inside' });
}
