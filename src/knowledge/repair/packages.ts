/**
 * Package resolver: which Debian/Ubuntu package provides a missing header, library, pkg-config module,
 * CMake package, command, Python module or file. Looked up, not guessed: one `apt-file search -x` over
 * standard locations for all needs at once (each call costs seconds), the winners checked with
 * `apt-cache policy` in the same script, and a small curated table (`verifiers/packages-fallback.yaml`)
 * only for what the index cannot answer. A package name is returned only when apt confirmed it: apt-cache in
 * the sandbox, or, while the sandbox still has its image's packages, the image's package state that apt
 * itself dumped (package-state.ts), read on this machine with no command at all.
 * The needs are in `needs.ts`, the index queries, look-up script and ranking in `package-index.ts`, the
 * curated table in `package-fallback.ts`; this file decides and runs.
 */
import { runProcess } from '../../base/process.js';
import type { Sandbox } from '../../sandbox/types.js';
import { defaultFallbackTable, type FallbackEntry, type FallbackTable } from './package-fallback.js';
import {
  MAX_CANDIDATES,
  buildLookupScript,
  knownLookupOutput,
  parseLookupOutput,
  policyNames,
  queryFor,
  rankCandidates,
  type LookupOutput,
  type NeedQuery,
  type PolicyEntry,
  type RankedCandidates,
} from './package-index.js';
import { needKey, type Need, type Resolution } from './needs.js';
import type { ContentsIndex } from './contents-index.js';
import type { PolicyAnswer } from './package-state.js';

/** Runs a bash script where apt-file and apt-cache are (inside the sandbox). Output is stdout+stderr. */
export interface PackageIndexRunner {
  /** `offline`: the script only reads the local package lists (the host-side index answered the file look-up). */
  run(script: string, options?: { offline?: boolean }): Promise<{ exitCode: number; output: string }>;
}

export interface ResolveOptions {
  /** The curated table (default: `verifiers/packages-fallback.yaml`). */
  fallback?: FallbackTable;
  /** Resolutions by `kind:name`, reused across calls (a build asks for the same things turn after turn). */
  cache?: Map<string, Resolution>;
  /** Index hits outside /usr/include and bin directories kept per file name (config.h matches hundreds). Default 40. */
  maxHitsPerName?: number;
  /**
   * A host-side index of the image's Contents files (contents-index.ts): when it covers every need, its hits
   * replace the apt-file search and the sandbox only runs apt-cache policy.
   */
  index?: Pick<ContentsIndex, 'covers' | 'search'>;
  /**
   * apt's answer for package names without a command (package-state.ts), or undefined when it cannot be given
   * (the sandbox's packages are no longer its image's). With the index's hits and this answer, nothing runs.
   */
  policy?: PolicyAnswer;
}

// ───────────────────────────── resolution ─────────────────────────────

/** Paths kept of where the chosen package ships a need's file. */
const MAX_PATHS = 8;

/** apt knows the package: it has a candidate, or it is installed. */
export function confirmed(policy: ReadonlyMap<string, PolicyEntry>, pkg: string): boolean {
  return policy.get(pkg)?.candidate !== undefined || policy.get(pkg)?.installed !== undefined;
}

function describeIndex(out: LookupOutput): string {
  switch (out.aptFile) {
    case 'missing':
      return 'apt-file is not installed';
    case 'error':
    case 'unknown':
      return `apt-file failed${out.aptFileMessage ? ` (${out.aptFileMessage})` : ''}`;
    default:
      return '';
  }
}

/** What one need's decision works from: the need, the look-up's output, the curated entry and the ranked index hits. */
interface Decision {
  need: Need;
  query?: NeedQuery;
  out: LookupOutput;
  entry: FallbackEntry | undefined;
  ranked: RankedCandidates;
  candidates: string[];
  hasRunner: boolean;
}

const NOTHING_RANKED: RankedCandidates = {
  ranked: [],
  unwanted: [],
  ambiguous: false,
  weak: false,
  cmakeModuleOnly: false,
};

function joinNotes(...notes: (string | undefined)[]): string {
  return notes.filter(Boolean).join('; ');
}

/** The resolution with its candidates, marked installed when apt-cache says the chosen package is. */
function finish(d: Decision, r: Omit<Resolution, 'need' | 'candidates'>): Resolution {
  const result: Resolution = { need: d.need, candidates: d.candidates, ...r };
  const chosen = result.package;
  const query = d.query;
  if (chosen && query) {
    const paths = [
      ...new Set(d.out.hits.filter((h) => h.pkg === chosen && query.place(h.path)).map((h) => h.path)),
    ];
    if (paths.length > 0) result.paths = paths.slice(0, MAX_PATHS);
  }
  if (result.package) {
    const installed = d.out.policy.get(result.package)?.installed;
    if (installed !== undefined) {
      result.installed = true;
      result.note = joinNotes(result.note, `${result.package} is already installed`);
    }
  }
  if (result.note === '') delete result.note;
  return result;
}

/** The curated entry's answer (`why` says why it is consulted), or undefined without an entry. */
function fromCurated(d: Decision, why: string): Resolution | undefined {
  const entry = d.entry;
  if (!entry) return undefined;
  if (entry.packages.length === 0) {
    return finish(d, {
      via: 'fallback',
      noPackageNeeded: true,
      note: joinNotes(why, entry.note ?? 'nothing to install'),
    });
  }
  if (!d.hasRunner) {
    return finish(d, {
      via: 'fallback',
      note: joinNotes(
        why,
        `curated: ${entry.packages.join(' | ')} (unverified: no package index runner)`,
        entry.note,
      ),
    });
  }
  const ok = entry.packages.find((p) => confirmed(d.out.policy, p));
  if (ok) return finish(d, { via: 'fallback', package: ok, note: joinNotes(why, entry.note) });
  return finish(d, {
    via: 'none',
    note: joinNotes(
      why,
      `curated ${entry.packages.join(' | ')} not known to apt-cache${d.out.policyRan ? '' : ' (apt-cache did not run)'}`,
    ),
  });
}

/** The index's clear answer: its best package that apt-cache confirms, else the curated one. */
function fromIndex(d: Decision): Resolution {
  const ranked = d.ranked.ranked;
  const choice = ranked.find((p) => confirmed(d.out.policy, p));
  if (choice) {
    const skipped = ranked.indexOf(choice);
    return finish(d, {
      via: 'apt-file',
      package: choice,
      note: skipped > 0 ? `apt-cache does not know ${ranked.slice(0, skipped).join(', ')}` : undefined,
    });
  }
  const why = `apt-file names ${ranked.slice(0, 5).join(', ')}, but apt-cache does not know ${
    ranked.length > 1 ? 'them' : 'it'
  }${d.out.policyRan ? ' (run apt-get update?)' : ''}`;
  return fromCurated(d, why) ?? finish(d, { via: 'none', note: why });
}

/** Why the index gives no clear answer for the need. */
function whyUnclear(d: Decision): string {
  const { ranked, need } = d;
  if (ranked.ambiguous) {
    return `ambiguous: ${ranked.ranked.length} packages ship ${need.name} outside the standard location (${ranked.ranked
      .slice(0, 5)
      .join(', ')}, ...)`;
  }
  if (ranked.weak)
    return `${need.name} is only shipped outside the default search paths (${ranked.ranked.slice(0, 3).join(', ')})`;
  if (ranked.cmakeModuleOnly)
    return `Find${need.name}.cmake ships with CMake; the library it looks for is what is missing`;
  const indexProblem = describeIndex(d.out);
  if (indexProblem) return indexProblem;
  if (ranked.unwanted.length > 0)
    return `only cross/multilib packages ship it (${ranked.unwanted.slice(0, 3).join(', ')})`;
  return `no package in the index ships ${need.name} in a standard location`;
}

/** One need's resolution: a curated override, else the index's clear answer, else the curated entry, else none. */
function decide(
  query: NeedQuery | undefined,
  need: Need,
  out: LookupOutput,
  fallback: FallbackTable,
  hasRunner: boolean,
): Resolution {
  const entry = fallback.lookup(need);
  const curated = entry?.packages ?? [];
  const aliases = new Set([...out.policy.keys()].filter((p) => confirmed(out.policy, p)));
  const ranked = query ? rankCandidates(query, out.hits, curated, aliases) : NOTHING_RANKED;
  const candidates = [...new Set([...ranked.ranked.slice(0, MAX_CANDIDATES), ...curated])];
  const d: Decision = { need, ...(query ? { query } : {}), out, entry, ranked, candidates, hasRunner };

  if (!query)
    return finish(d, { via: 'none', note: `not a name that can be looked up: ${JSON.stringify(need.name)}` });
  if (entry?.override) {
    const r = fromCurated(d, 'curated override');
    if (r && (r.package || r.noPackageNeeded || ranked.ranked.length === 0)) return r;
  }
  if (ranked.ranked.length > 0 && !ranked.ambiguous && !ranked.weak) return fromIndex(d);
  const why = whyUnclear(d);
  return fromCurated(d, why) ?? finish(d, { via: 'none', note: why });
}

/**
 * Resolves needs to packages. With a runner: ONE script (apt-file + apt-cache) for all needs that are
 * not cached. Without a runner: curated answers only, never a `package` (nothing could confirm it).
 * Returns one resolution per need, in order.
 */
export async function resolvePackages(
  needs: readonly Need[],
  runner?: PackageIndexRunner,
  options: ResolveOptions = {},
): Promise<Resolution[]> {
  const fallback = options.fallback ?? defaultFallbackTable();
  const cache = options.cache;
  const unique = new Map<string, Need>();
  for (const need of needs)
    if (!cache?.has(needKey(need))) unique.set(needKey(need), { kind: need.kind, name: need.name.trim() });
  const queries = new Map<string, NeedQuery | undefined>();
  for (const [key, need] of unique) queries.set(key, queryFor(need));

  let out: LookupOutput = { aptFile: 'skipped', hits: [], policy: new Map(), policyRan: false };
  if (runner && unique.size > 0) {
    const valid = [...queries.values()].filter((q): q is NeedQuery => q !== undefined);
    const curated = [...unique.values()].flatMap((n) => fallback.lookup(n)?.packages ?? []);
    const index = options.index;
    const known = index && valid.every((q) => index.covers(q)) ? index.search(valid) : undefined;
    const answered = known && options.policy?.(policyNames(known, curated));
    if (known && answered) {
      out = knownLookupOutput(known, answered);
    } else {
      // With the host-side index's hits (made from the sandbox's own package lists), the script only asks
      // apt-cache about them: no network needed.
      const result = await runner.run(buildLookupScript(valid, curated, options.maxHitsPerName, known), {
        offline: known !== undefined,
      });
      out = parseLookupOutput(result.output);
    }
  } else if (!runner) {
    out = { aptFile: 'missing', hits: [], policy: new Map(), policyRan: false };
  }

  const fresh = new Map<string, Resolution>();
  for (const [key, need] of unique) {
    const resolution = decide(queries.get(key), need, out, fallback, runner !== undefined);
    if (!runner) resolution.note = resolution.note ?? 'no package index runner';
    fresh.set(key, resolution);
    if (runner) cache?.set(key, resolution);
  }
  return needs.map((need) => {
    const r = fresh.get(needKey(need)) ?? cache?.get(needKey(need));
    const base = r ?? { need, candidates: [], via: 'none' as const, note: 'not resolved' };
    return { ...base, need, candidates: [...base.candidates] };
  });
}

// ───────────────────────────── runners ─────────────────────────────

/** A runner over a sandbox (the index lives in the sandbox's image). */
export function sandboxRunner(sandbox: Pick<Sandbox, 'exec'>, timeoutMs = 120_000): PackageIndexRunner {
  return {
    async run(script, options) {
      const result = await sandbox.exec(script, {
        timeoutMs,
        ...(options?.offline ? { offline: true } : {}),
      });
      return { exitCode: result.exitCode, output: result.output };
    },
  };
}

/** Output kept from a host look-up: the whole of it in practice (the script caps apt-file at 5000 lines). */
const HOST_OUTPUT = { headBytes: 8 * 1024 * 1024, tailBytes: 1024 * 1024 } as const;

/** A runner on this machine (the host backend, or recording fixtures), through the one host process runner. */
export function shellRunner(timeoutMs = 120_000): PackageIndexRunner {
  return {
    async run(script) {
      const result = await runProcess('bash', ['-c', script], { timeoutMs, ...HOST_OUTPUT });
      return { exitCode: result.exitCode, output: result.output };
    },
  };
}
