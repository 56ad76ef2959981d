/**
 * Per-build folders in the work root (BUILDBENCH_WORK_DIR): who owns each, and the sweep of those whose
 * owner is gone.
 *
 * A sandbox's build folder (repository copy, overlay upper) is removed by `dispose`. When buildbench is
 * killed (`kill -9`, an OOM kill, a lost machine) nothing removes it, and such folders pile up. So each build
 * folder gets an owner record (`.buildbench-owner.json`: pid, host name, the process's start time, the
 * time it was made) the moment it exists, and the start of every later build removes the folders whose owner
 * is gone:
 *
 * - owner on this host: gone when no process has that pid, or the process with that pid started at another
 *   time (`/proc/<pid>/stat` field 22), so a reused pid is not taken for the owner;
 * - owner on another host sharing the folder: left alone unless the record is older than a week;
 * - kept (`--keep`): the record says so at dispose; never removed;
 * - no owner record: made by an older buildbench (perhaps a `--keep` tree someone still wants) or by hand;
 *   removed only when it is older than an hour and holds no file at all (made, then killed before its record
 *   was written); otherwise left alone.
 *
 * A folder judged stale is first renamed to `.stale-<name>` (atomic: of two sweeps at once only one gets
 * it), then removed with removeTree (lazy unmounts, never crossing into another file system).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { makeDirectory, MakeDirError } from '../base/make-dir.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import { removeTree } from './common.js';
import type { Sandbox, SandboxSettings } from './types.js';

export const OWNER_FILE = '.buildbench-owner.json';
const FORMAT = 'buildbench.work-dir/v1';
const STALE_PREFIX = '.stale-';

export interface OwnerRecord {
  format: typeof FORMAT;
  pid: number;
  host: string;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks since boot), when it could be read. */
  startTime?: string;
  createdAt: string;
  /** The backend that made the folder (rootfs, docker, host, verify). */
  kind: string;
  /** Set by `dispose({ keep: true })`: the folder is for a person to look at; never swept. */
  keptAt?: string;
}

/** The start time of process `pid` (field 22 of /proc/<pid>/stat), or undefined when it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 is the command name in parentheses and may hold spaces and ')': count from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return fields[22 - 3];
}

/** True when process `pid` exists and, if `startTime` is known, is the process that started then. */
export function processIsAlive(pid: number, startTime: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (startTime !== undefined) {
    const now = processStartTime(pid);
    if (now !== undefined) return now === startTime;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function writeRecord(buildDir: string, record: OwnerRecord): Promise<void> {
  const tmp = join(buildDir, `${OWNER_FILE}.tmp-${randomBytes(4).toString('hex')}`);
  await writeFile(tmp, JSON.stringify(record) + '\n');
  await rename(tmp, join(buildDir, OWNER_FILE));
}

/** Creates `buildDir` if needed and records this process as its owner. Call right after the folder is made. */
export async function writeOwnerRecord(buildDir: string, kind: string): Promise<void> {
  await makeDirectory(buildDir);
  const startTime = processStartTime(process.pid);
  await writeRecord(buildDir, {
    format: FORMAT,
    pid: process.pid,
    host: hostname(),
    ...(startTime !== undefined ? { startTime } : {}),
    createdAt: new Date().toISOString(),
    kind,
  });
}

/** The owner record of `buildDir`, or undefined when there is none (or it is not one). */
export async function readOwnerRecord(buildDir: string): Promise<OwnerRecord | undefined> {
  try {
    const file = join(buildDir, OWNER_FILE);
    if (!(await lstat(file)).isFile()) return undefined;
    const json = JSON.parse(await readFile(file, 'utf8')) as Partial<OwnerRecord> | null;
    if (
      json?.format !== FORMAT ||
      typeof json.pid !== 'number' ||
      typeof json.host !== 'string' ||
      typeof json.createdAt !== 'string'
    ) {
      return undefined;
    }
    return json as OwnerRecord;
  } catch {
    return undefined;
  }
}

/** Marks `buildDir` as kept for inspection, so no later sweep removes it. */
export async function markKept(buildDir: string): Promise<void> {
  const record = await readOwnerRecord(buildDir);
  const startTime = processStartTime(process.pid);
  await writeRecord(buildDir, {
    ...(record ?? {
      format: FORMAT,
      pid: process.pid,
      host: hostname(),
      ...(startTime !== undefined ? { startTime } : {}),
      createdAt: new Date().toISOString(),
      kind: 'unknown',
    }),
    keptAt: new Date().toISOString(),
  });
}

export interface SweepOptions {
  /** This machine's name (default: os.hostname()). */
  host?: string;
  /** Now, in ms since the epoch (tests). */
  now?: number;
  isAlive?: (pid: number, startTime: string | undefined) => boolean;
  /** A folder of another host is removed only past this age (default: 7 days). */
  otherHostMaxAgeMs?: number;
  /** A folder without an owner record (and without files) is removed only past this age (default: 1 hour). */
  unownedMaxAgeMs?: number;
  remove?: (dir: string) => Promise<void>;
}

export interface SweepReport {
  removed: { dir: string; why: string }[];
  failed: { dir: string; error: string }[];
}

/** True when the tree below `dir` holds nothing but folders. */
async function holdsNoFiles(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return false;
  for (const entry of entries) {
    if (!entry.isDirectory() || !(await holdsNoFiles(join(dir, entry.name)))) return false;
  }
  return true;
}

/** Why the folder `dir` (named `name`) is stale, or undefined when it must stay. */
async function staleBecause(
  dir: string,
  name: string,
  sinceMs: number,
  o: Required<Omit<SweepOptions, 'remove'>>,
): Promise<string | undefined> {
  const age = o.now - sinceMs;
  if (name.startsWith(STALE_PREFIX)) {
    return age > o.unownedMaxAgeMs ? 'left half-removed by an earlier sweep' : undefined;
  }
  const record = await readOwnerRecord(dir);
  if (!record) {
    return age > o.unownedMaxAgeMs && (await holdsNoFiles(dir))
      ? 'no owner record and nothing in it'
      : undefined;
  }
  if (record.keptAt !== undefined) return undefined;
  if (record.host !== o.host) {
    const recordAge = o.now - Date.parse(record.createdAt);
    return recordAge > o.otherHostMaxAgeMs
      ? `made by process ${record.pid} on ${record.host} on ${record.createdAt}, long ago`
      : undefined;
  }
  if (record.pid === process.pid && record.startTime === processStartTime(process.pid)) return undefined;
  if (o.isAlive(record.pid, record.startTime)) return undefined;
  return `process ${record.pid} that made it on ${record.createdAt} is gone`;
}

/**
 * Removes the folders in `workRoot` whose owner is gone (see the top of this file). Never throws: what could
 * not be looked at is left, what could not be removed is reported in `failed`.
 */
export async function sweepStaleWorkDirs(workRoot: string, options: SweepOptions = {}): Promise<SweepReport> {
  const o = {
    host: options.host ?? hostname(),
    now: options.now ?? Date.now(),
    isAlive: options.isAlive ?? processIsAlive,
    otherHostMaxAgeMs: options.otherHostMaxAgeMs ?? 7 * 24 * 3600_000,
    unownedMaxAgeMs: options.unownedMaxAgeMs ?? 3600_000,
  };
  const remove = options.remove ?? removeTree;
  const report: SweepReport = { removed: [], failed: [] };
  const names = await readdir(workRoot).catch(() => [] as string[]);
  for (const name of names) {
    const dir = join(workRoot, name);
    try {
      const info = await lstat(dir);
      if (!info.isDirectory()) continue;
      // A folder renamed aside keeps its mtime; its ctime says when the rename happened.
      const since = name.startsWith(STALE_PREFIX) ? info.ctimeMs : info.mtimeMs;
      const why = await staleBecause(dir, name, since, o);
      if (why === undefined) continue;
      let aside = dir;
      if (!name.startsWith(STALE_PREFIX)) {
        aside = join(workRoot, `${STALE_PREFIX}${name}`);
        try {
          await rename(dir, aside);
        } catch (error) {
          // Another sweep took it first: nothing to do.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw error;
        }
      }
      await remove(aside);
      report.removed.push({ dir, why });
    } catch (error) {
      report.failed.push({ dir, error: errorMessage(error) });
    }
  }
  return report;
}

/** The sweep's report as progress lines (none when nothing happened). */
export function describeSweep(workRoot: string, report: SweepReport): string[] {
  const lines: string[] = [];
  if (report.removed.length > 0) {
    const shown = report.removed.slice(0, 5).map((r) => `${r.dir.slice(workRoot.length + 1)}: ${r.why}`);
    const more = report.removed.length > 5 ? `; and ${report.removed.length - 5} more` : '';
    lines.push(
      `removed ${report.removed.length} stale work folder(s) in ${workRoot} left by builds that did not end (${shown.join('; ')}${more})`,
    );
  }
  for (const f of report.failed) lines.push(`could not remove the stale work folder ${f.dir}: ${f.error}`);
  return lines;
}

/**
 * Makes the folders a sandbox needs on this machine (the work root; for rootfs and docker also the cache and
 * the build cache), so a folder no sandbox can use is one ConfigError naming its variable before any work,
 * never a hang (Node's recursive mkdir of `/proc/x` never returns; see make-dir.ts).
 */
export async function ensureSandboxFolders(settings: SandboxSettings): Promise<void> {
  const folders: [string | undefined, string][] = [
    [settings.workRoot, 'BUILDBENCH_WORK_DIR (the work folder)'],
    ...(settings.choice === 'host'
      ? []
      : ([
          [settings.cacheDir, 'BUILDBENCH_CACHE_DIR (the cache folder)'],
          [settings.buildCache, 'the build cache folder (--build-cache, BUILDBENCH_BUILD_CACHE)'],
        ] as [string | undefined, string][])),
  ];
  for (const [dir, what] of folders) {
    if (dir === undefined) continue;
    try {
      await makeDirectory(dir);
    } catch (error) {
      throw new ConfigError(
        `${what}: cannot use '${dir}': ${error instanceof MakeDirError ? error.why : errorMessage(error)}`,
        'expected a writable folder',
      );
    }
  }
}

/** Sweeps `workRoot` (see sweepStaleWorkDirs) and tells `onProgress` what was removed or could not be. */
export async function sweepWorkRoot(workRoot: string, onProgress?: (message: string) => void): Promise<void> {
  const report = await sweepStaleWorkDirs(workRoot);
  for (const line of describeSweep(workRoot, report)) onProgress?.(line);
}

/**
 * Makes `sandbox.dispose({ keep: true })` first mark its build folder (`<workRoot>/<id>`) kept, so no sweep
 * removes what a person asked to keep. Returns the same object.
 */
export function markKeptOnDispose<T extends Sandbox>(sandbox: T, workRoot: string): T {
  const dispose = sandbox.dispose.bind(sandbox);
  const buildDir = join(workRoot, sandbox.id);
  sandbox.dispose = async (options: { keep?: boolean } = {}): Promise<void> => {
    if (options.keep) await markKept(buildDir).catch(() => undefined);
    await dispose(options);
  };
  return sandbox;
}
