/**
 * `src/knowledge/` owns what the engine knows about build failures, in two jobs: `diagnose/` reads a build
 * log against the signature catalog (`verifiers/signatures.yaml`) and names the root cause as a `Finding`;
 * `repair/` maps a finding to general repairs (rules by family, their tables in `verifiers/repairs.yaml`) and
 * resolves missing files to Debian/Ubuntu packages from the sandbox's own index. This file wires the repair
 * knowledge and its read-only sandbox services for the composition root. It imports only `base/`, `recipe/`
 * and `repo/` types, and the `Sandbox` interface.
 */
import path from 'node:path';

import { loadCatalog } from '../recipe/catalog.js';
import type { Sandbox } from '../sandbox/types.js';
import { defaultSignatureCatalog } from './diagnose/signatures.js';
import { CONTENTS_INDEX_FILE, ensureContentsIndex, type ContentsIndex } from './repair/contents-index.js';
import type { RepairKnowledge, StrategyServices } from './repair/repair.js';
import { RuleKnowledge } from './repair/rules/index.js';
import { confirmed, resolvePackages, sandboxRunner } from './repair/packages.js';
import type { Resolution } from './repair/needs.js';
import { parseAptCachePolicy } from './repair/package-index.js';
import { PackageState, packageStateFile, type PolicyAnswer } from './repair/package-state.js';
import { PACKAGE_NAME } from './repair/needs.js';
import { defaultRepairTables } from './repair/tables.js';

/**
 * Reads the shipped tables every run's first turn needs (the signature catalog, the repair tables, the recipe
 * catalog) now, once per process; each is read on first use otherwise. A run calls it while its sandbox's first
 * command runs, when this process only waits (issue 32: 30–50 ms of the time before the first script).
 */
export function loadKnowledge(): void {
  defaultSignatureCatalog();
  defaultRepairTables();
  loadCatalog();
}

/** The repair knowledge base used by the rules strategy. */
export function createKnowledge(): RepairKnowledge {
  return new RuleKnowledge();
}

/** Read-only services backed by the sandbox: package look-ups in the sandbox's own package index. */
export function createServices(sandbox: Sandbox): StrategyServices {
  const cache = new Map<string, Resolution>();
  const runner = sandboxRunner(sandbox);
  let index: Promise<ContentsIndex | undefined> | undefined;
  const policy = imagePolicy(sandbox);
  return {
    resolvePackages: async (needs) => {
      index ??= contentsIndexFor(sandbox);
      const opened = await index;
      return resolvePackages(needs, runner, { cache, policy, ...(opened ? { index: opened } : {}) });
    },
    findHeaders: (header) => findHeaders(sandbox, header),
    searchPaths: async (tails) => {
      index ??= contentsIndexFor(sandbox);
      const opened = await index;
      const query = {
        need: { kind: 'file' as const, name: tails.join('|') },
        tails: [...tails],
        place: () => undefined,
      };
      return opened ? opened.search([query]) : [];
    },
    knownPackages: (names) => knownPackages(sandbox, names, policy),
    packageStatus: (names) => packageStatus(sandbox, names, policy),
  };
}

/**
 * apt's answer for package names from the image's package state (package-state.ts), while the sandbox still
 * has the image's packages (the first turn's plan, and turns that installed nothing); undefined otherwise.
 * The state file is read where the sandbox is at the time of the look-up (a fresh repair turn's is another).
 */
function imagePolicy(sandbox: Sandbox): PolicyAnswer {
  return (names) => {
    const lists = sandbox.packageLists;
    if (!lists?.asImage()) return undefined;
    const file = packageStateFile(lists);
    // A state file is never changed once written (ensurePackageState makes it whole or not at all).
    let state = openedStates.get(file);
    if (!state) {
      state = PackageState.open(file);
      if (state) openedStates.set(file, state);
    }
    return state?.policy(names);
  };
}

/** The package state files this process has opened, by path: one descriptor each, whatever the number of runs. */
const openedStates = new Map<string, PackageState>();

/**
 * Those of `names` the sandbox's package index has (`apt-cache show`), in the order given; the index is
 * fetched first when the sandbox has none yet. Names that are not package names are never passed to the shell.
 * `policy` answers instead when it can (the image's package state).
 */
export async function knownPackages(
  sandbox: Pick<Sandbox, 'exec'>,
  names: readonly string[],
  policy?: PolicyAnswer,
): Promise<string[]> {
  const valid = [...new Set(names)].filter((n) => PACKAGE_NAME.test(n)).slice(0, 200);
  if (valid.length === 0) return [];
  // From the image's package state: a package with a candidate or installed is one `apt-cache show` shows.
  const answered = policy?.(valid);
  if (answered) return valid.filter((n) => confirmed(answered, n));
  const script = [
    'export DEBIAN_FRONTEND=noninteractive',
    "[ -n \"$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' || true)\" ] || apt-get update -q >/dev/null 2>&1 || true",
    `for p in ${valid.join(' ')}; do apt-cache show "$p" >/dev/null 2>&1 && echo "known:$p"; done; true`,
  ].join('\n');
  const result = await sandbox.exec(script, { timeoutMs: 180_000 });
  const known = new Set(
    result.output
      .split('\n')
      .map((line) => /^known:(\S+)$/.exec(line.trim())?.[1])
      .filter((n): n is string => n !== undefined),
  );
  return valid.filter((n) => known.has(n));
}

/**
 * The host-side Contents index of the sandbox's image, built on first use and cached with its layer;
 * undefined when the image's lists are not on this machine or the index cannot be built (apt-file then).
 * Opened once per process (`openedIndexes`): an index file is never changed once written (it is renamed into
 * place whole), and a run that opened its own would leave one descriptor behind per run.
 */
async function contentsIndexFor(sandbox: Sandbox): Promise<ContentsIndex | undefined> {
  const lists = sandbox.packageLists;
  if (!lists) return undefined;
  const file = path.join(lists.cacheDir, CONTENTS_INDEX_FILE);
  let opening = openedIndexes.get(file);
  if (!opening) {
    opening = ensureContentsIndex(lists.listsDir, file).catch(() => undefined);
    openedIndexes.set(file, opening);
  }
  const index = await opening;
  // One that could not be built is tried again by the next run (the lists may be there by then).
  if (!index && openedIndexes.get(file) === opening) openedIndexes.delete(file);
  return index;
}

/** The Contents indexes this process has opened (or is opening), by path. */
const openedIndexes = new Map<string, Promise<ContentsIndex | undefined>>();

/**
 * What apt-cache policy says of package names (a doc's `apt-get install` line): installed, available, or
 * absent; `policy` answers instead when it can (the image's package state).
 */
export async function packageStatus(
  sandbox: Pick<Sandbox, 'exec'>,
  names: readonly string[],
  policy?: PolicyAnswer,
): Promise<Map<string, 'installed' | 'available'>> {
  const valid = names.filter((n) => PACKAGE_NAME.test(n));
  const status = new Map<string, 'installed' | 'available'>();
  if (valid.length === 0) return status;
  const answered =
    policy?.(valid) ??
    parseAptCachePolicy(
      (
        await sandbox.exec(`apt-cache policy ${valid.join(' ')} 2>/dev/null`, {
          timeoutMs: 60_000,
          offline: true,
        })
      ).output,
    );
  for (const [name, entry] of answered) {
    if (entry.installed !== undefined) status.set(name, 'installed');
    else if (entry.candidate !== undefined) status.set(name, 'available');
  }
  return status;
}

/** A header name that is safe in a `find -path` pattern: no globs, no `..`, relative. */
const HEADER_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*(?:\/[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)*$/;

/** Installed copies of `header` anywhere under the system include directories, read-only. */
export async function findHeaders(sandbox: Pick<Sandbox, 'exec'>, header: string): Promise<string[]> {
  if (!HEADER_NAME.test(header)) return [];
  const script = `find /usr/include /usr/local/include -path '*/${header}' \\( -type f -o -type l \\) 2>/dev/null | head -n 50`;
  const result = await sandbox.exec(script, { timeoutMs: 60_000, offline: true });
  return result.output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('/') && line.endsWith(`/${header}`));
}
