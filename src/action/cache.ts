/**
 * Caches across workflow runs with @actions/cache: what makes the next run faster. Two entries:
 *
 * - `build`: the shared build cache folder (package downloads and ccache, see src/sandbox/build-cache.ts).
 *   It changes with every build, so each run saves a new entry (`…-<run id>-<attempt>`) and restores the
 *   newest one by prefix, as compiler-cache actions do; a run that added nothing saves nothing.
 * - `rootfs`: the rootfs sandbox's Debian base and toolchain layer. They never change under one key (the
 *   key names the toolchain layer, whose folder name hashes its package list), so they are saved once.
 *
 * Caching is an optimisation: a service that is missing or failing costs a warning, never the build.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

import * as actionsCache from '@actions/cache';

import { errorMessage } from '../base/errors.js';
import { rootfsPaths } from '../sandbox/rootfs.js';
import type { SandboxKind, SandboxSettings } from '../sandbox/types.js';

/** Bump to start every cache afresh (a change of layout). */
const KEY_VERSION = 'v1';

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
  /** GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT: what makes the build cache's key new in every run. */
  runId: string;
  runAttempt: string;
  platform?: string;
  arch?: string;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'default';

/** The entries for a build in a sandbox of `kind`; none for the host sandbox or without a build cache. */
export function planCaches(sandbox: SandboxSettings, kind: SandboxKind, ctx: CachePlanContext): CacheEntry[] {
  if (kind === 'host') return [];
  const platform = `${ctx.platform ?? process.platform}-${ctx.arch ?? process.arch}`;
  const entries: CacheEntry[] = [];
  if (sandbox.buildCache) {
    const base = slug(kind === 'docker' ? sandbox.image : `debian-${sandbox.suite}`);
    const prefix = `buildbench-build-${KEY_VERSION}-${platform}-${kind}-${base}-`;
    entries.push({
      name: 'build',
      what: 'the build cache (package downloads and ccache)',
      paths: [sandbox.buildCache],
      key: `${prefix}${slug(ctx.runId || String(Date.now()))}-${slug(ctx.runAttempt || '1')}`,
      restoreKeys: [prefix],
      immutable: false,
    });
  }
  if (kind === 'rootfs') {
    const paths = rootfsPaths(sandbox.cacheDir, sandbox.suite);
    entries.push({
      name: 'rootfs',
      what: `the rootfs sandbox's Debian ${sandbox.suite} base and toolchain layer`,
      paths: [paths.baseDir, paths.toolchainDir],
      key: `buildbench-rootfs-${KEY_VERSION}-${platform}-${basename(paths.suiteDir)}-${basename(paths.toolchainDir)}`,
      restoreKeys: [],
      immutable: true,
    });
  }
  return entries;
}

/** What happened to one entry, for the log and the job summary. */
export interface CacheOutcome {
  name: CacheEntry['name'];
  what: string;
  /** The key it was restored from (exact or by prefix), or undefined on a miss. */
  restoredKey?: string;
  /** The key it was saved under, when it was. */
  savedKey?: string;
  /** Why it was not restored or saved, when that is worth saying. */
  note?: string;
  /** Files and bytes after restore, to tell whether the build added anything. */
  fingerprint?: string;
}

export interface CacheLog {
  info: (message: string) => void;
  warning: (message: string) => void;
}

/**
 * Counts files and bytes under the paths: equal before and after means the build added nothing. ccache's
 * counters (`stats` files) and its scratch folder change on every hit, so they do not count; neither do
 * times (ccache touches what it hits, to know what to evict).
 */
export async function fingerprint(paths: string[]): Promise<string> {
  let files = 0;
  let size = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'tmp') await walk(path);
      } else if (entry.isFile() && entry.name !== 'stats') {
        const info = await stat(path).catch(() => undefined);
        if (!info) continue;
        files++;
        size += info.size;
      }
    }
  };
  for (const p of paths) await walk(p);
  return `${files} files, ${size} bytes`;
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
    if (!entry.immutable) outcome.fingerprint = await fingerprint(entry.paths);
    outcomes.push(outcome);
  }
  return outcomes;
}

/**
 * Saves what the build added: the build cache when its files changed, the rootfs layers when they exist
 * and were not restored under their exact key. Never throws.
 */
export async function saveCaches(
  entries: CacheEntry[],
  restored: CacheOutcome[],
  service: CacheService,
  log: CacheLog,
): Promise<CacheOutcome[]> {
  if (entries.length === 0 || !service.isFeatureAvailable()) return restored;
  const outcomes: CacheOutcome[] = [];
  for (const entry of entries) {
    const before = restored.find((o) => o.name === entry.name) ?? { name: entry.name, what: entry.what };
    const outcome: CacheOutcome = { ...before };
    delete outcome.note;
    if (entry.immutable && before.restoredKey === entry.key) {
      outcomes.push(outcome);
      continue;
    }
    const missing = entry.paths.filter((p) => !existsSync(p));
    if (missing.length > 0) {
      outcome.note = `not saved: ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`;
      outcomes.push(outcome);
      continue;
    }
    if (entry.name === 'rootfs' && !entry.paths.every((p) => existsSync(join(p, 'READY')))) {
      outcome.note = 'not saved: the layers are not complete';
      outcomes.push(outcome);
      continue;
    }
    if (!entry.immutable && before.fingerprint === (await fingerprint(entry.paths))) {
      outcome.note = 'not saved: the build added nothing to it';
      log.info(`buildbench cache: ${entry.what} is unchanged; not saved`);
      outcomes.push(outcome);
      continue;
    }
    try {
      const id = await service.saveCache(entry.paths, entry.key);
      // @actions/cache reports its own failures as warnings and returns -1.
      if (id !== -1) {
        outcome.savedKey = entry.key;
        log.info(`buildbench cache: saved ${entry.what} as ${entry.key}`);
      } else {
        outcome.note = 'not saved: the cache service did not accept it (see the warning above)';
      }
    } catch (error) {
      outcome.note = `could not save ${entry.what}: ${errorMessage(error)}`;
      log.warning(`buildbench cache: ${outcome.note}`);
    }
    outcomes.push(outcome);
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
