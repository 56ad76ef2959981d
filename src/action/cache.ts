/**
 * Caches across workflow runs with @actions/cache: what makes the next run faster, without crowding out
 * the repository's other caches (GitHub keeps 10 GB per repository and evicts the least recently used
 * entries past that, whoever saved them). Two entries:
 *
 * - `build`: the shared build cache folder (package downloads and ccache, see src/sandbox/build-cache.ts).
 * - `rootfs`: the rootfs sandbox's Debian base and toolchain layer, which never change under one key (the
 *   key names the toolchain layer, whose folder name hashes its package list): saved once.
 *
 * The footprint is bounded three ways:
 *
 * - **One key per toolchain, not per run.** GitHub scopes entries by ref (a branch, a pull request's
 *   merge ref) and a run restores from its own ref first, then from the default branch; so one fixed key
 *   means at most one entry of each kind per branch. Entries are immutable: to refresh the build cache the
 *   branch's entry is deleted first (`replace`, the REST API, needs `actions: write`) and saved again under
 *   the same key. Without that permission the entry a branch has stays until GitHub evicts it.
 * - **Saved only when it changed meaningfully.** What was restored is listed (path → size) and compared
 *   with what is there after the build: new packages (the `apt/` part: each is a download the next run
 *   saves), or compiler-cache files added or rewritten that make up a tenth of what was restored (`ccache/`
 *   gains a few objects on every commit; those alone are not worth re-uploading the whole entry). ccache's
 *   counters and scratch, and the per-sandbox `incoming/` folders, do not count. A listing rather than a
 *   digest: it says how much changed, not only that something did.
 * - **At most `maxBytes`** (input cache-max-size) per entry, measured on disk before compression; a larger
 *   entry is not saved, with a notice.
 *
 * Caching is an optimisation: a service that is missing or failing costs a warning, never the build.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

import * as actionsCache from '@actions/cache';

import { errorMessage } from '../base/errors.js';
import { httpStatus, type GitHubClient } from '../github/client.js';
import { rootfsPaths } from '../sandbox/rootfs.js';
import type { SandboxKind, SandboxSettings } from '../sandbox/types.js';

/** Bump to start every cache afresh (a change of layout or of keys; v1 keyed the build cache per run). */
const KEY_VERSION = 'v2';

/** The share of the restored compiler cache that new or rewritten files must reach to be saved again. */
export const GROWTH_TO_SAVE = 0.1;

/** The cache service, as @actions/cache offers it; tests may replace it. */
export interface CacheService {
  isFeatureAvailable(): boolean;
  restoreCache(paths: string[], primaryKey: string, restoreKeys?: string[]): Promise<string | undefined>;
  saveCache(paths: string[], key: string): Promise<number>;
}

export const actionsCacheService: CacheService = {
  isFeatureAvailable: () => actionsCache.isFeatureAvailable(),
  restoreCache: (paths, key, restoreKeys) => actionsCache.restoreCache(paths, key, restoreKeys),
  saveCache: (paths, key) => actionsCache.saveCache(paths, key),
};

/**
 * Deletes this ref's entry under `key` so that it can be saved again: 'deleted', or 'absent' when this
 * ref has none (what was restored came from the default branch). Throws when it may not.
 */
export type CacheReplacer = (key: string) => Promise<'deleted' | 'absent'>;

/** The replacer over the REST API: DELETE /repos/{owner}/{repo}/actions/caches?key=…&ref=… (actions: write). */
export function githubCacheReplacer(
  github: () => GitHubClient,
  repository: { owner: string; repo: string },
  ref: string,
): CacheReplacer {
  return async (key) => {
    try {
      await github().rest.actions.deleteActionsCacheByKey({ ...repository, key, ...(ref ? { ref } : {}) });
      return 'deleted';
    } catch (error) {
      if (httpStatus(error) === 404) return 'absent';
      throw error;
    }
  };
}

export interface CacheEntry {
  name: 'build' | 'rootfs';
  /** What it holds, for messages. */
  what: string;
  paths: string[];
  key: string;
  restoreKeys: string[];
  /** Saved only when it was not restored under its exact key (its content never changes under one key). */
  immutable: boolean;
}

export interface CachePlanContext {
  platform?: string;
  arch?: string;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'default';

/** The entries for a build in a sandbox of `kind`; none for the host sandbox or without a build cache. */
export function planCaches(
  sandbox: SandboxSettings,
  kind: SandboxKind,
  ctx: CachePlanContext = {},
): CacheEntry[] {
  if (kind === 'host') return [];
  const platform = `${ctx.platform ?? process.platform}-${ctx.arch ?? process.arch}`;
  const entries: CacheEntry[] = [];
  const layers = kind === 'rootfs' ? rootfsPaths(sandbox.cacheDir, sandbox.suite) : undefined;
  if (sandbox.buildCache) {
    // ccache's objects are only good for the same compilers: the key names the image or the toolchain layer.
    const toolchain = layers
      ? `debian-${sandbox.suite}-${basename(layers.toolchainDir)}`
      : slug(sandbox.image);
    entries.push({
      name: 'build',
      what: 'the build cache (package downloads and ccache)',
      paths: [sandbox.buildCache],
      key: `buildbench-build-${KEY_VERSION}-${platform}-${kind}-${slug(toolchain)}`,
      restoreKeys: [],
      immutable: false,
    });
  }
  if (layers) {
    entries.push({
      name: 'rootfs',
      what: `the rootfs sandbox's Debian ${sandbox.suite} base and toolchain layer`,
      paths: [layers.baseDir, layers.toolchainDir],
      key: `buildbench-rootfs-${KEY_VERSION}-${platform}-${basename(layers.suiteDir)}-${basename(layers.toolchainDir)}`,
      restoreKeys: [],
      immutable: true,
    });
  }
  return entries;
}

/** The files under an entry's paths (`<path index>:<relative path>` → bytes) and their total. */
export interface CacheListing {
  files: Map<string, number>;
  bytes: number;
}

/** Folders whose content is scratch: ccache's `tmp/`, the build cache's per-sandbox `incoming/`. */
const SCRATCH_DIRS = new Set(['tmp', 'incoming']);

/**
 * Lists the regular files under `paths` with their sizes, never following links. ccache's counters
 * (`stats` files) change on every hit and are left out, as are scratch folders; times do not count
 * (ccache touches what it hits, to know what to evict).
 */
export async function listCache(paths: string[]): Promise<CacheListing> {
  const files = new Map<string, number>();
  let bytes = 0;
  const walk = async (root: number, dir: string, rel: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SCRATCH_DIRS.has(entry.name)) await walk(root, full, name);
      } else if (entry.isFile() && entry.name !== 'stats') {
        const info = await lstat(full).catch(() => undefined);
        if (!info) continue;
        files.set(`${root}:${name}`, info.size);
        bytes += info.size;
      }
    }
  };
  for (const [i, p] of paths.entries()) await walk(i, p, '');
  return { files, bytes };
}

/** What a build changed in the build cache, against what was restored. */
export interface CacheChange {
  /** Package files (under `apt/`) that were not there before. */
  newPackages: number;
  /** Other files added or rewritten (a different size), and their bytes. */
  changedFiles: number;
  changedBytes: number;
  /** The bytes of the other files before the build. */
  baseBytes: number;
  meaningful: boolean;
  /** For the log and the summary: "3 new packages, 120 files (4.2 MB) of the compiler cache". */
  summary: string;
}

const isPackage = (key: string): boolean => /^\d+:apt\//.test(key);

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Compares the listing after the build with the one taken after the restore. */
export function cacheChange(before: CacheListing, after: CacheListing): CacheChange {
  let newPackages = 0;
  let changedFiles = 0;
  let changedBytes = 0;
  let baseBytes = 0;
  for (const [key, size] of before.files) if (!isPackage(key)) baseBytes += size;
  for (const [key, size] of after.files) {
    const was = before.files.get(key);
    if (isPackage(key)) {
      if (was === undefined) newPackages++;
    } else if (was !== size) {
      changedFiles++;
      changedBytes += size;
    }
  }
  const grewEnough = changedBytes > 0 && changedBytes >= GROWTH_TO_SAVE * baseBytes;
  const parts = [
    `${newPackages} new package${newPackages === 1 ? '' : 's'}`,
    `${changedFiles} new or rewritten file${changedFiles === 1 ? '' : 's'} (${formatBytes(changedBytes)}) of the compiler cache's ${formatBytes(baseBytes)}`,
  ];
  return {
    newPackages,
    changedFiles,
    changedBytes,
    baseBytes,
    meaningful: newPackages > 0 || grewEnough,
    summary: parts.join(', '),
  };
}

/** What happened to one entry, for the log and the job summary. */
export interface CacheOutcome {
  name: CacheEntry['name'];
  what: string;
  /** The key it was restored from, or undefined on a miss. */
  restoredKey?: string;
  /** The key it was saved under, when it was. */
  savedKey?: string;
  /** Why it was not restored or saved, when that is worth saying. */
  note?: string;
  /** The files after the restore, to tell what the build changed (mutable entries only). */
  listing?: CacheListing;
}

export interface CacheLog {
  info: (message: string) => void;
  warning: (message: string) => void;
  /** For what the user may want to change (an entry over the size cap); info when absent. */
  notice?: (message: string) => void;
}

/** Restores every entry; a miss or a failing service is reported, never thrown. */
export async function restoreCaches(
  entries: CacheEntry[],
  service: CacheService,
  log: CacheLog,
): Promise<CacheOutcome[]> {
  if (entries.length === 0) return [];
  if (!service.isFeatureAvailable()) {
    const note =
      'the Actions cache service is not available here (no ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL): nothing is restored or saved';
    log.info(`buildbench cache: ${note}`);
    return entries.map((e) => ({ name: e.name, what: e.what, note }));
  }
  const outcomes: CacheOutcome[] = [];
  for (const entry of entries) {
    const outcome: CacheOutcome = { name: entry.name, what: entry.what };
    try {
      const key = await service.restoreCache(entry.paths, entry.key, entry.restoreKeys);
      if (key) {
        outcome.restoredKey = key;
        log.info(`buildbench cache: restored ${entry.what} from ${key}`);
      } else {
        log.info(`buildbench cache: no saved entry for ${entry.what} yet (key ${entry.key})`);
      }
    } catch (error) {
      outcome.note = `could not restore ${entry.what}: ${errorMessage(error)}`;
      log.warning(`buildbench cache: ${outcome.note}`);
    }
    if (!entry.immutable) outcome.listing = await listCache(entry.paths);
    outcomes.push(outcome);
  }
  return outcomes;
}

export interface SaveOptions {
  /** The largest entry saved, in bytes on disk (input cache-max-size). */
  maxBytes: number;
  /** Deletes this ref's entry under a key before it is saved again; without it an entry is never replaced. */
  replace?: CacheReplacer;
}

/**
 * Saves what is worth saving: the build cache when the build changed it meaningfully, the rootfs layers
 * when they are complete and were not restored under their exact key; nothing over `maxBytes`. Never throws.
 */
export async function saveCaches(
  entries: CacheEntry[],
  restored: CacheOutcome[],
  service: CacheService,
  log: CacheLog,
  options: SaveOptions,
): Promise<CacheOutcome[]> {
  if (entries.length === 0 || !service.isFeatureAvailable()) return restored;
  const notice = log.notice ?? log.info;
  const outcomes: CacheOutcome[] = [];
  for (const entry of entries) {
    const before = restored.find((o) => o.name === entry.name) ?? { name: entry.name, what: entry.what };
    const { listing: restoredListing, ...rest } = before;
    const outcome: CacheOutcome = { ...rest };
    delete outcome.note;
    outcomes.push(outcome);
    if (entry.immutable && before.restoredKey === entry.key) continue;
    const missing = entry.paths.filter((p) => !existsSync(p));
    if (missing.length > 0) {
      outcome.note = `not saved: ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`;
      continue;
    }
    if (entry.name === 'rootfs' && !entry.paths.every((p) => existsSync(join(p, 'READY')))) {
      outcome.note = 'not saved: the layers are not complete';
      continue;
    }
    const listing = await listCache(entry.paths);
    if (!entry.immutable) {
      if (listing.files.size === 0) {
        outcome.note = 'not saved: it is empty';
        continue;
      }
      // Nothing restored: the first entry under this key (for this branch and the default branch).
      if (before.restoredKey !== undefined) {
        const change = cacheChange(restoredListing ?? { files: new Map(), bytes: 0 }, listing);
        if (!change.meaningful) {
          outcome.note = `not saved: the build changed too little (${change.summary}; it takes a new package or a tenth more)`;
          log.info(`buildbench cache: ${entry.what} changed too little to save again (${change.summary})`);
          continue;
        }
        log.info(`buildbench cache: ${entry.what} changed (${change.summary})`);
      }
    }
    if (listing.bytes > options.maxBytes) {
      outcome.note = `not saved: ${formatBytes(listing.bytes)} is over cache-max-size (${formatBytes(options.maxBytes)})`;
      notice(
        `buildbench cache: ${entry.what} is ${formatBytes(listing.bytes)}, over cache-max-size (${formatBytes(options.maxBytes)}); not saved. Raise cache-max-size to cache it, or set cache: false.`,
      );
      continue;
    }
    let replaceProblem: string | undefined;
    if (before.restoredKey === entry.key) {
      // Restored under this very key: this branch may hold an entry with it, which must go first.
      if (!options.replace) replaceProblem = 'no token to delete it with';
      else {
        try {
          const how = await options.replace(entry.key);
          if (how === 'deleted') log.info(`buildbench cache: deleted this branch's older ${entry.key}`);
        } catch (error) {
          replaceProblem = errorMessage(error);
        }
      }
    }
    try {
      const id = await service.saveCache(entry.paths, entry.key);
      // @actions/cache reports its own failures as warnings and returns -1.
      if (id !== -1) {
        outcome.savedKey = entry.key;
        log.info(`buildbench cache: saved ${entry.what} as ${entry.key}`);
      } else if (replaceProblem !== undefined) {
        outcome.note = `not saved: this branch already has an entry under ${entry.key} and it could not be deleted (${replaceProblem}); give the job \`permissions: actions: write\` to keep it fresh`;
        notice(`buildbench cache: ${outcome.note}`);
      } else {
        outcome.note = 'not saved: the cache service did not accept it (see the message above)';
      }
    } catch (error) {
      outcome.note = `could not save ${entry.what}: ${errorMessage(error)}`;
      log.warning(`buildbench cache: ${outcome.note}`);
    }
  }
  return outcomes;
}

/** One line per entry for the job summary. */
export function cacheSummaryLines(outcomes: CacheOutcome[]): string[] {
  return outcomes.map((o) => {
    const restored = o.restoredKey ? `restored from \`${o.restoredKey}\`` : 'nothing restored';
    const saved = o.savedKey ? `; saved as \`${o.savedKey}\`` : '';
    const note = o.note ? ` (${o.note})` : '';
    return `- ${o.what}: ${restored}${saved}${note}`;
  });
}
