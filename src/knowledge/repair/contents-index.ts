/**
 * A package index that answers in milliseconds, host-side: the archive's Contents files (the ones apt-file
 * downloads into the image's /var/lib/apt/lists) turned once per toolchain layer into a sorted text file,
 * one `basename<TAB>/path<TAB>pkg,pkg` line per file, searched by binary search on disk. `apt-file search`
 * reads and regex-matches the whole 670 MB index on every query (about 4 s); a look-up here reads a few
 * kilobytes around the tail's basename.
 *
 * Why a sorted file and not a JSON map: the filtered index is ~1 M lines / ~100 MB; a map would have to be
 * parsed into memory on every run (seconds, hundreds of MB), a sorted file needs neither, and the query
 * tails are regexes whose basename starts with a literal, so a prefix range of a sorted file holds all
 * candidates. No new dependency: `lz4cat`, `awk` and `sort` build it (apt-file stays the fallback when they
 * or the Contents files are missing).
 *
 * Only what the need kinds can place is kept (include directories, bin directories, pkg-config, CMake,
 * aclocal, libraries, Python 3 modules); `covers` says when a need falls outside, and the caller then asks
 * apt-file instead.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

import { runProcess } from '../../base/process.js';
import { escapeRegex } from '../../base/escape-regex.js';
import { type AptFileHit, type NeedQuery } from './package-index.js';
import { SortedLines } from './sorted-lines.js';

/** Bump when the line format or the filter changes: an index of another version is rebuilt. */
export const CONTENTS_INDEX_VERSION = 1;
export const CONTENTS_INDEX_FILE = `contents-index-v${CONTENTS_INDEX_VERSION}.tsv`;

/** The paths the index keeps (the same test decides whether a `file` need is covered). */
const KEPT_PATH =
  /\/include\/|^\/(?:usr\/)?s?bin\/|\.(?:pc|cmake|m4|a)$|\.so(?:\.[0-9.]+)?$|^\/usr\/lib\/python3/;

/** The awk program over `lz4cat` output: `path  section/pkg,section/pkg` → `basename\t/path\tpkg,pkg` (kept paths only). */
const AWK_PROGRAM = [
  '{ pk = $NF; p = substr($0, 1, length($0) - length(pk)); sub(/[ \\t]+$/, "", p); p = "/" p',
  '  if (!(p ~ /\\/include\\// || p ~ /^\\/(usr\\/)?s?bin\\// || p ~ /\\.(pc|cmake|m4|a)$/ || p ~ /\\.so(\\.[0-9.]+)?$/ || p ~ /^\\/usr\\/lib\\/python3/)) next',
  '  n = split(p, part, "/"); k = part[n]; if (k == "__init__.py") k = part[n - 1] "/" k',
  '  gsub(/[a-z0-9-]+\\//, "", pk); print k "\\t" p "\\t" pk }',
].join('\n');

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Builds the index from the Contents files in `listsDir` (a layer's /var/lib/apt/lists, read on the host)
 * into `indexFile`, atomically. Returns false (and leaves nothing) when there are no Contents files or a
 * tool is missing. Takes tens of seconds, once per toolchain layer.
 */
export async function buildContentsIndex(listsDir: string, indexFile: string): Promise<boolean> {
  const tmp = `${indexFile}.${process.pid}.tmp`;
  const script = [
    'set -o pipefail',
    'export LC_ALL=C',
    `cd ${shellQuote(listsDir)} || exit 3`,
    'ls ./*Contents-*.lz4 >/dev/null 2>&1 || exit 4',
    'command -v lz4cat >/dev/null 2>&1 || exit 5',
    `lz4cat ./*Contents-*.lz4 | awk ${shellQuote(AWK_PROGRAM)} | sort -S 200M -T ${shellQuote(path.dirname(indexFile))} > ${shellQuote(tmp)}`,
  ].join('\n');
  const result = await runProcess('bash', ['-c', script], { timeoutMs: 10 * 60_000 });
  if (result.exitCode !== 0 || !existsSync(tmp) || statSync(tmp).size === 0) {
    await runProcess('rm', ['-f', tmp], { timeoutMs: 10_000 });
    return false;
  }
  renameSync(tmp, indexFile);
  return true;
}

/** The literal start of a regex (what every match begins with), up to its first operator. */
export function literalPrefix(regex: string): string {
  let out = '';
  for (let i = 0; i < regex.length; i++) {
    const c = regex[i]!;
    if (c === '\\') {
      const next = regex[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) break; // \d, \w, ...: not a literal
      out += next;
      i++;
      continue;
    }
    if ('.[]()*+?{}|^$'.includes(c)) {
      // A quantifier makes the previous character optional or repeated: it is not part of the prefix.
      if ('*?{'.includes(c)) out = out.slice(0, -1);
      break;
    }
    out += c;
  }
  return out;
}

/** A tail regex split at its literal `/` (not those inside a `[...]` class such as `[^/]`). */
function splitPath(tail: string): string[] {
  const parts: string[] = [];
  let current = '';
  let inClass = false;
  for (let i = 0; i < tail.length; i++) {
    const c = tail[i]!;
    if (c === '\\') {
      current += c + (tail[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    if (c === '/' && !inClass) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/**
 * The index key part of a tail regex: its last path component, or the last two for a package's
 * `__init__.py` (the index keys those by `<package>/__init__.py`: thousands of files share the name).
 */
function keyRegex(tail: string): string {
  const parts = splitPath(tail);
  const last = parts[parts.length - 1]!;
  return last === '__init__\\.py' && parts.length >= 2 ? parts.slice(-2).join('/') : last;
}

/**
 * What every index line a tail can match starts with: the key's literal start, and when the key is all
 * literal (`string\\.h`), the whole key and its tab, so `string.hpp` and `string.html` are not read.
 */
function keyPrefix(tail: string): string {
  const key = keyRegex(tail);
  const prefix = literalPrefix(key);
  return escapeRegex(prefix) === key ? `${prefix}\t` : prefix;
}

/** Hits kept per file name outside include and bin directories (what apt-file's script caps too). */
const MAX_HITS_PER_NAME = 40;

/** A sorted index file opened for look-ups. */
export class ContentsIndex {
  private constructor(private readonly lines: SortedLines) {}

  /** Opens an index file; undefined when it does not exist or is empty. */
  static open(file: string): ContentsIndex | undefined {
    const lines = SortedLines.open(file);
    return lines ? new ContentsIndex(lines) : undefined;
  }

  close(): void {
    this.lines.close();
  }

  /** Whether the index can answer the query (a `file` need outside the kept paths cannot). */
  covers(query: NeedQuery): boolean {
    return query.need.kind !== 'file' || KEPT_PATH.test(query.need.name);
  }

  /** The `pkg: /path` hits of every query's tails, as apt-file would list them (capped per name). */
  search(queries: readonly NeedQuery[]): AptFileHit[] {
    const hits: AptFileHit[] = [];
    const seen = new Set<string>();
    const perName = new Map<string, number>();
    for (const tail of new Set(queries.flatMap((q) => q.tails))) {
      const full = new RegExp(`^/(?:\\S*/)?(?:${tail})$`);
      for (const line of this.lines.startingWith(keyPrefix(tail))) {
        const [base, file, pkgs] = line.split('\t');
        if (base === undefined || file === undefined || pkgs === undefined || !full.test(file)) continue;
        const standard = /^\/(usr\/)?s?bin\/[^/]+$/.test(file) || file.startsWith('/usr/include/');
        for (const pkg of pkgs.split(',')) {
          const id = `${pkg}\0${file}`;
          if (!pkg || seen.has(id)) continue;
          const count = perName.get(base) ?? 0;
          if (!standard && count >= MAX_HITS_PER_NAME) continue;
          perName.set(base, count + 1);
          seen.add(id);
          hits.push({ pkg, path: file });
        }
      }
    }
    return hits;
  }
}

/**
 * The index for a layer: opens `indexFile`, building it first from `listsDir` when missing. Undefined when
 * it cannot be built (no Contents files, no lz4cat): the caller uses apt-file.
 */
export async function ensureContentsIndex(
  listsDir: string,
  indexFile: string,
): Promise<ContentsIndex | undefined> {
  const existing = ContentsIndex.open(indexFile);
  if (existing) return existing;
  if (!(await buildContentsIndex(listsDir, indexFile))) return undefined;
  return ContentsIndex.open(indexFile);
}
