/**
 * What a tree held before its build, for telling new binaries from old ones after the fact
 * (`buildbench verify`):
 * - a build kept with `--keep` leaves the snapshot taken before its first command next to result.json
 *   (`snapshot.json.gz`);
 * - a tree built by hand has no snapshot; when it is a git checkout, the files git tracks count as "there
 *   before" (a committed binary is not a build product); otherwise every binary in it is new.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

import { runProcess } from '../base/process.js';
import { readNamedFileUnder, UnsafePathError } from '../base/safe-fs.js';
import { snapshotTree } from './artifacts.js';
import { excludeBuildScratch } from './exclude.js';
import type { TreeSnapshot } from './types.js';

export const SNAPSHOT_FILE = 'snapshot.json.gz';
const FORMAT = 'buildbench.snapshot/v1';

interface SnapshotJson {
  format: typeof FORMAT;
  takenAt: string;
  /** [relative path, size, mtimeMs] */
  files: [string, number, number][];
}

export async function saveSnapshot(file: string, snapshot: TreeSnapshot): Promise<void> {
  const json: SnapshotJson = {
    format: FORMAT,
    takenAt: new Date().toISOString(),
    files: [...snapshot].map(([rel, stamp]) => [rel, stamp.size, stamp.mtimeMs]),
  };
  await writeFile(file, gzipSync(JSON.stringify(json)));
}

/**
 * Where a snapshot is: a file named by the user, or the file an output folder's result.json names
 * (`files.snapshot`), read inside that folder with no symbolic link on its path.
 */
export type SnapshotSource = string | { dir: string; rel: string; field: string };

function shownSource(source: SnapshotSource): string {
  return typeof source === 'string' ? source : path.join(source.dir, source.rel);
}

/**
 * The snapshot in `source`, or why it cannot be used (missing, not gzip, not JSON, not a snapshot). A path in
 * an output folder that leads out of it (`..`, absolute, a symbolic link) is an UnsafePathError naming the
 * field, thrown: it is refused, not a snapshot that happens to be unusable.
 */
export async function readSnapshot(
  source: SnapshotSource,
): Promise<{ snapshot: TreeSnapshot } | { why: string }> {
  let data: Buffer;
  try {
    data =
      typeof source === 'string'
        ? await readFile(source)
        : await readNamedFileUnder(source.dir, source.field, source.rel);
  } catch (error) {
    if (error instanceof UnsafePathError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    return {
      why: code === 'ENOENT' ? 'it does not exist' : `it cannot be read (${(error as Error).message})`,
    };
  }
  let text: string;
  try {
    text = gunzipSync(data).toString('utf8');
  } catch (error) {
    return { why: `it is not gzip-compressed (${(error as Error).message})` };
  }
  let json: Partial<SnapshotJson> | null;
  try {
    json = JSON.parse(text) as Partial<SnapshotJson> | null;
  } catch {
    return { why: 'it does not hold JSON' };
  }
  if (json?.format !== FORMAT || !Array.isArray(json.files)) return { why: `it is not a ${FORMAT} snapshot` };
  const files = json.files.filter(
    (f): f is [string, number, number] =>
      Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && typeof f[2] === 'number',
  );
  if (files.length !== json.files.length) return { why: `it is not a ${FORMAT} snapshot (bad entries)` };
  return { snapshot: new Map(files.map(([rel, size, mtimeMs]) => [rel, { size, mtimeMs }])) };
}

export type BaselineKind = 'snapshot' | 'git' | 'none';

/** The most of `git ls-files` output read; a longer list is not used (no baseline from git). */
const GIT_LIST_MAX_BYTES = 256 * 1024 * 1024;

/** Files git tracks in `dir` (relative paths), or undefined when it is not a git checkout git can read. */
export async function gitTrackedFiles(dir: string): Promise<Set<string> | undefined> {
  let result;
  try {
    result = await runProcess('git', ['-c', 'safe.directory=*', '-C', dir, 'ls-files', '-z', '--cached'], {
      discardStderr: true,
      headBytes: GIT_LIST_MAX_BYTES,
      tailBytes: 0,
      timeoutMs: 60_000,
    });
  } catch {
    return undefined;
  }
  if (result.exitCode !== 0 || result.truncated) return undefined;
  return new Set(result.output.split('\0').filter((f) => f !== ''));
}

/**
 * A "before" snapshot for a tree that has none: tracked files are given their current stamps (so they never
 * look new); untracked files are left out (so every untracked binary is new).
 */
export async function baselineFromGit(root: string): Promise<TreeSnapshot | undefined> {
  const tracked = await gitTrackedFiles(root);
  if (!tracked) return undefined;
  const now = await snapshotTree(root, { exclude: excludeBuildScratch });
  const before: TreeSnapshot = new Map();
  for (const [rel, stamp] of now) if (tracked.has(rel)) before.set(rel, stamp);
  return before;
}

/**
 * The best baseline there is for `root`: the saved snapshot, else git's tracked files, else nothing. When a
 * snapshot file was named but could not be used, `note` says why and what was used instead.
 */
export async function baselineFor(
  root: string,
  snapshotFile?: SnapshotSource,
): Promise<{ before: TreeSnapshot; kind: BaselineKind; note?: string }> {
  const saved = snapshotFile ? await readSnapshot(snapshotFile) : undefined;
  if (saved && 'snapshot' in saved) return { before: saved.snapshot, kind: 'snapshot' };
  const unusable =
    saved && snapshotFile
      ? `the snapshot ${shownSource(snapshotFile)} was not used: ${saved.why}; `
      : undefined;
  const git = await baselineFromGit(root);
  if (git) {
    return {
      before: git,
      kind: 'git',
      ...(unusable ? { note: `${unusable}fell back to the files git tracks in the tree` } : {}),
    };
  }
  return {
    before: new Map(),
    kind: 'none',
    ...(unusable
      ? { note: `${unusable}fell back to no baseline: every binary in the tree counts as new` }
      : {}),
  };
}
