/**
 * Package resolver: which Debian/Ubuntu package provides a missing header, library, pkg-config module,
 * CMake package, command, Python module or file. Looked up, not guessed: one `apt-file search -x` over
 * standard locations for all needs at once (each call costs seconds), the winners checked with
 * `apt-cache policy` in the same script, and a small curated table (`verifiers/packages-fallback.yaml`)
 * only for what the index cannot answer. A package name is returned only when apt-cache confirmed it.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../base/errors.js';
import { runProcess } from '../../base/process.js';
import type { Sandbox } from '../../sandbox/types.js';
import type { Finding } from '../diagnose/types.js';
import { shellQuote } from '../../base/shell.js';

/** What a need can be; the curated table's sections are these too. */
export const NEED_KINDS = [
  'header',
  'library',
  'pkgconfig',
  'cmake',
  'command',
  'python-module',
  'file',
  'm4-macro',
] as const;

export type NeedKind = (typeof NEED_KINDS)[number];

/** Something the build lacks: a header `zlib.h`, a library `z` (for -lz), a pkg-config module, a CMake package name, ... */
export interface Need {
  kind: NeedKind;
  name: string;
}

export interface Resolution {
  need: Need;
  /** The package to install; only set when apt-cache confirmed that it exists. */
  package?: string;
  /** The packages considered, best first (the index's best 20, then curated names). */
  candidates: string[];
  via: 'apt-file' | 'fallback' | 'none';
  note?: string;
  /** The chosen package is already installed (the need is then about paths or flags, not packages). */
  installed?: boolean;
  /** Nothing needs installing (e.g. CMake's Threads, part of the C library). */
  noPackageNeeded?: boolean;
}

/** Runs a bash script where apt-file and apt-cache are (inside the sandbox). Output is stdout+stderr. */
export interface PackageIndexRunner {
  run(script: string): Promise<{ exitCode: number; output: string }>;
}

export interface ResolveOptions {
  /** The curated table (default: `verifiers/packages-fallback.yaml`). */
  fallback?: FallbackTable;
  /** Resolutions by `kind:name`, reused across calls (a build asks for the same things turn after turn). */
  cache?: Map<string, Resolution>;
  /** Index hits outside /usr/include and bin directories kept per file name (config.h matches hundreds). Default 40. */
  maxHitsPerName?: number;
}

// ───────────────────────────── curated fallback table ─────────────────────────────

export interface FallbackEntry {
  /** Candidate packages, first confirmed wins (several for names that differ between releases). Empty: nothing to install. */
  packages: string[];
  /** Use even when the index answers (the index's answer is known to be wrong or incomplete). */
  override: boolean;
  note?: string;
}

export interface FallbackTable {
  /** kind → lower-cased name → entry. Names ending in `*` are prefixes (m4 macros). */
  readonly entries: ReadonlyMap<NeedKind, ReadonlyMap<string, FallbackEntry>>;
  lookup(need: Need): FallbackEntry | undefined;
}

export const DEFAULT_FALLBACK_URL = new URL('../../../verifiers/packages-fallback.yaml', import.meta.url);

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
const NEED_NAME = /^[A-Za-z0-9_.+@/-]+$/;

function fallbackError(source: string, message: string): never {
  throw new ConfigError(`${source}: ${message}`, 'fix verifiers/packages-fallback.yaml');
}

function parseEntry(value: unknown, where: string): FallbackEntry {
  const names = (list: unknown): string[] => {
    if (list === null || list === undefined) return [];
    const arr = Array.isArray(list) ? list : [list];
    for (const p of arr) {
      if (typeof p !== 'string' || !PACKAGE_NAME.test(p))
        fallbackError(where, `"${String(p)}" is not a package name`);
    }
    return arr as string[];
  };
  if (value === null || typeof value === 'string' || Array.isArray(value)) {
    return { packages: names(value), override: false };
  }
  if (typeof value !== 'object')
    fallbackError(where, 'an entry is a package name, a list, null, or {package, override, note}');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!['package', 'packages', 'override', 'note'].includes(key))
      fallbackError(where, `unknown field "${key}"`);
  }
  if (raw.override !== undefined && typeof raw.override !== 'boolean')
    fallbackError(where, '"override" must be true or false');
  if (raw.note !== undefined && typeof raw.note !== 'string') fallbackError(where, '"note" must be text');
  return {
    packages: names(raw.packages ?? raw.package),
    override: raw.override === true,
    note: raw.note,
  };
}

/** Parses the curated table's YAML. */
export function parseFallbackTable(text: string, source = 'packages-fallback.yaml'): FallbackTable {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    fallbackError(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    fallbackError(source, 'must be a mapping');
  const root = doc as Record<string, unknown>;
  if (root.version !== 1) fallbackError(source, 'version must be 1');
  const entries = new Map<NeedKind, Map<string, FallbackEntry>>();
  for (const [kind, section] of Object.entries(root)) {
    if (kind === 'version') continue;
    if (!NEED_KINDS.includes(kind as NeedKind)) fallbackError(source, `unknown need kind "${kind}"`);
    if (typeof section !== 'object' || section === null || Array.isArray(section)) {
      fallbackError(source, `"${kind}" must map names to packages`);
    }
    const map = new Map<string, FallbackEntry>();
    for (const [name, value] of Object.entries(section as Record<string, unknown>)) {
      map.set(name.toLowerCase(), parseEntry(value, `${source}: ${kind}.${name}`));
    }
    entries.set(kind as NeedKind, map);
  }
  return {
    entries,
    lookup(need: Need): FallbackEntry | undefined {
      const map = entries.get(need.kind);
      if (!map) return undefined;
      const key = need.name.toLowerCase();
      const exact = map.get(key);
      if (exact) return exact;
      let best: { length: number; entry: FallbackEntry } | undefined;
      for (const [name, entry] of map) {
        if (!name.endsWith('*')) continue;
        const prefix = name.slice(0, -1);
        if (key.startsWith(prefix) && (!best || prefix.length > best.length))
          best = { length: prefix.length, entry };
      }
      return best?.entry;
    },
  };
}

export function loadFallbackTable(location: URL | string = DEFAULT_FALLBACK_URL): FallbackTable {
  let text: string;
  try {
    text = readFileSync(location, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read ${String(location)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseFallbackTable(text, typeof location === 'string' ? location : location.pathname);
}

let defaultFallback: FallbackTable | undefined;
export function defaultFallbackTable(): FallbackTable {
  return (defaultFallback ??= loadFallbackTable());
}

// ───────────────────────────── index queries ─────────────────────────────

/** Multiarch directory (`x86_64-linux-gnu`, `aarch64-linux-gnu`, ...). */
const TRIPLET = '[a-z0-9_]+-linux-gnu\\w*';

/** Escapes text for a regular expression that Perl (apt-file) and JavaScript read alike. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** How good a hit's location is: lower tier is better (0 = where the toolchain looks by default). */
export interface Placement {
  tier: number;
  /** Extra directory levels below the standard location. */
  depth: number;
  /** A CMake Find module that ships with CMake itself (cmake-data): not a package need. */
  cmakeModule?: boolean;
}

export interface NeedQuery {
  need: Need;
  /**
   * Path tails for the apt-file regex: a hit is any path that ends in `/<tail>` (regex syntax, relative,
   * literal-first so that apt-file's Perl matches the whole batch as one trie).
   */
  tails: string[];
  /** Where a hit's path stands for this need; undefined when the path does not serve it. */
  place(path: string): Placement | undefined;
}

function extraDepth(rest: string): number {
  return rest.length === 0 ? 0 : rest.split('/').length - 1;
}

/** A bare header in one subdirectory that is named after it (`glib-2.0/glib.h`, `SDL2/SDL.h`, `cairo/cairo.h`). */
function relatedSubdir(dir: string, header: string): boolean {
  const stem = header
    .replace(/\.[^.]*$/, '')
    .replace(/[\d.]+$/, '')
    .toLowerCase();
  return stem.length >= 2 && dir.toLowerCase().includes(stem);
}

/** A need's query from its trimmed name and that name escaped for a regex; undefined when the name cannot be one. */
type QueryBuilder = (need: Need, name: string, n: string) => NeedQuery | undefined;

function headerQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.startsWith('/') || name.endsWith('/')) return undefined;
  const bare = !name.includes('/');
  const standard = new RegExp(`^/usr/include/(?:${TRIPLET}/)?${n}$`);
  const under = new RegExp(`^/usr/include/(?:${TRIPLET}/)?(.+)/${n}$`);
  const other = new RegExp(`/include/(?:.+/)?${n}$`);
  return {
    need,
    tails: [n],
    place(path) {
      if (standard.test(path)) return { tier: 0, depth: 0 };
      const u = under.exec(path);
      if (u) {
        const dirs = u[1] ?? '';
        const depth = dirs.split('/').length;
        // <lib/header.h> in /usr/include/<subdir>/lib/header.h: the library's own directory, found via -I (pkg-config).
        if (!bare) return { tier: 1, depth };
        // A bare <header.h> in a subdirectory is the library's only when the directory is named after it.
        if (depth === 1 && relatedSubdir(dirs, name)) return { tier: 1, depth };
        return { tier: 2, depth };
      }
      return other.test(path) ? { tier: 2, depth: path.split('/').length } : undefined;
    },
  };
}

/** A query whose hits are `standard` (tier 0) or `other` (tier 1, deeper is worse; group 1 is the extra path). */
function tieredQuery(need: Need, tails: string[], standard: RegExp, other: RegExp): NeedQuery {
  return {
    need,
    tails,
    place(path) {
      if (standard.test(path)) return { tier: 0, depth: 0 };
      const o = other.exec(path);
      return o ? { tier: 1, depth: extraDepth(o[1] ?? '') } : undefined;
    },
  };
}

function libraryQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.includes('/')) return undefined;
  return tieredQuery(
    need,
    [`lib${n}\\.so`, `lib${n}\\.a`],
    new RegExp(`^/usr/lib/(?:${TRIPLET}/)?lib${n}\\.(?:so|a)$`),
    new RegExp(`^/usr/lib/(.+/)?lib${n}\\.(?:so|a)$`),
  );
}

function pkgconfigQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.includes('/')) return undefined;
  return tieredQuery(
    need,
    [`${n}\\.pc`],
    new RegExp(`^/usr/(?:lib/(?:${TRIPLET}/)?|share/)pkgconfig/${n}\\.pc$`),
    new RegExp(`^/usr/(.+/)?pkgconfig/${n}\\.pc$`),
  );
}

function cmakeQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.includes('/')) return undefined;
  const lower = escapeRegex(name.toLowerCase());
  const config = `(?:${n}Config|${lower}-config)\\.cmake`;
  // CMake's default search for <prefix>=/usr: (lib/<arch>|lib*|share)/cmake/<name>*/, (lib/<arch>|lib*|share)/<name>*/,
  // (lib/<arch>|lib*|share)/<name>*/(cmake|CMake)/.
  const standard = new RegExp(
    `^/usr/(?:lib/${TRIPLET}|lib\\w*|share)/(?:cmake/[^/]+|[^/]+|[^/]+/(?:cmake|CMake))/${config}$`,
  );
  const shipped = new RegExp(`^/usr/share/cmake(?:-[^/]+)?/Modules/Find${n}\\.cmake$`);
  const tiered = tieredQuery(
    need,
    [`${n}Config\\.cmake`, `${lower}-config\\.cmake`, `Find${n}\\.cmake`],
    standard,
    new RegExp(`^/usr/(.+/)?${config}$`),
  );
  return {
    ...tiered,
    place: (path) => (shipped.test(path) ? { tier: 0, depth: 0, cmakeModule: true } : tiered.place(path)),
  };
}

function commandQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.includes('/')) return undefined;
  const standard = new RegExp(`^/(?:usr/)?s?bin/${n}$`);
  return { need, tails: [n], place: (path) => (standard.test(path) ? { tier: 0, depth: 0 } : undefined) };
}

function pythonModuleQuery(need: Need, name: string): NeedQuery | undefined {
  if (!/^[A-Za-z_][\w.]*$/.test(name) || name.endsWith('.')) return undefined;
  const p = name.split('.').map(escapeRegex).join('/');
  const tail = `${p}(?:/__init__\\.py|\\.py|\\.[^/]*\\.so|\\.so)`;
  const standard = new RegExp(`^/usr/lib/python3/dist-packages/${tail}$`);
  const versioned = new RegExp(`^/usr/lib/python3\\.\\d+/dist-packages/${tail}$`);
  return {
    need,
    tails: [`${p}/__init__\\.py`, `${p}\\.py`, `${p}\\.[^/]*so`],
    place(path) {
      if (standard.test(path)) return { tier: 0, depth: 0 };
      return versioned.test(path) ? { tier: 1, depth: 0 } : undefined;
    },
  };
}

function fileQuery(need: Need, name: string, n: string): NeedQuery | undefined {
  if (name.startsWith('/')) {
    return {
      need,
      tails: [escapeRegex(name.slice(1))],
      place: (path) => (path === name ? { tier: 0, depth: 0 } : undefined),
    };
  }
  const any = new RegExp(`^/(.+/)?${n}$`);
  return {
    need,
    tails: [n],
    place(path) {
      const m = any.exec(path);
      return m ? { tier: 1, depth: extraDepth(m[1] ?? '') } : undefined;
    },
  };
}

function m4MacroQuery(need: Need, name: string): NeedQuery | undefined {
  if (!/^[A-Za-z_]\w*$/.test(name)) return undefined;
  const file = escapeRegex(name.toLowerCase());
  const standard = new RegExp(`^/usr/share/aclocal/${file}\\.m4$`);
  return {
    need,
    tails: [`${file}\\.m4`],
    place: (path) => (standard.test(path) ? { tier: 0, depth: 0 } : undefined),
  };
}

const QUERY_BUILDERS: Readonly<Record<NeedKind, QueryBuilder>> = {
  header: headerQuery,
  library: libraryQuery,
  pkgconfig: pkgconfigQuery,
  cmake: cmakeQuery,
  command: commandQuery,
  'python-module': pythonModuleQuery,
  file: fileQuery,
  'm4-macro': m4MacroQuery,
};

/** The apt-file search and the path classification for one need; undefined for names that are not safe. */
export function queryFor(need: Need): NeedQuery | undefined {
  const name = need.name.trim();
  if (name.length === 0 || name.length > 200 || !NEED_NAME.test(name) || name.includes('//'))
    return undefined;
  return QUERY_BUILDERS[need.kind](need, name, escapeRegex(name));
}

/**
 * One apt-file regex for many needs: `^/`, any directories, then one of the tails, `$`. apt-file strips the leading `^/`
 * and the `$`; the tails start with literals, so Perl matches the whole batch about as fast as one name
 * (~3-8 s over the Debian index), where per-location alternatives with inner wildcards take minutes.
 */
export function buildAptFilePattern(queries: readonly NeedQuery[]): string {
  const tails = [...new Set(queries.flatMap((q) => q.tails))];
  return `^/(?:\\S*/)?(?:${tails.join('|')})$`;
}

const MARK = '@@buildbench';

/**
 * Images without the package index (a docker `ubuntu:22.04` has neither package lists nor apt-file): as root
 * with apt-get, fetch the lists and the Contents index once per sandbox, so look-ups work on Debian and
 * Ubuntu bases alike. Quiet, and harmless when everything is already there (the rootfs toolchain layer).
 */
const INDEX_SETUP = [
  'if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then',
  '  export DEBIAN_FRONTEND=noninteractive',
  '  if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 && ! ls /var/lib/apt/lists/*_Packages.lz4 >/dev/null 2>&1; then apt-get update -q >/dev/null 2>&1 || true; fi',
  '  if ! command -v apt-file >/dev/null 2>&1; then apt-get install -y -q --no-install-recommends apt-file >/dev/null 2>&1 || true; fi',
  '  if command -v apt-file >/dev/null 2>&1 && ! ls /var/lib/apt/lists/*Contents* >/dev/null 2>&1; then apt-file update >/dev/null 2>&1 || true; fi',
  'fi',
];

/**
 * The whole lookup as one bash script: apt-file over all needs, then apt-cache policy over every
 * package it named, their unversioned aliases (libboost-system1.74-dev → libboost-system-dev) and the
 * curated names.
 */
export function buildLookupScript(
  queries: readonly NeedQuery[],
  extraPackages: readonly string[],
  maxHitsPerName = 40,
): string {
  const extras = [...new Set(extraPackages.filter((p) => PACKAGE_NAME.test(p)))].map(shellQuote).join(' ');
  const lines = [
    'export LC_ALL=C',
    ...INDEX_SETUP,
    'tmp=$(mktemp 2>/dev/null || echo "/tmp/buildbench-apt-file.$$")',
    ': > "$tmp"',
    `echo '${MARK} apt-file'`,
  ];
  if (queries.length > 0) {
    lines.push(
      'if command -v apt-file >/dev/null 2>&1; then',
      `  apt-file search -x ${shellQuote(buildAptFilePattern(queries))} > "$tmp" 2>&1`,
      '  status=$?',
      // Keep every hit in a standard place; cap the rest per file name (config.h is in hundreds of packages).
      `  awk -F': ' '{ n = split($2, part, "/"); k = part[n]; if (k == "__init__.py") k = part[n - 1] "/" k;` +
        ` if ($2 ~ /^\\/(usr\\/)?s?bin\\/[^\\/]+$/ || $2 ~ /^\\/usr\\/include\\// || seen[k]++ < ${maxHitsPerName}) print }' "$tmp"` +
        ' | head -n 5000 > "$tmp.hits"',
      '  mv "$tmp.hits" "$tmp"',
      '  cat "$tmp"',
      `  echo "${MARK} apt-file-status $status"`,
      'else',
      `  echo '${MARK} apt-file-status missing'`,
      'fi',
    );
  } else {
    lines.push(`echo '${MARK} apt-file-status skipped'`);
  }
  lines.push(
    `pkgs=$(sed -n 's/^\\([a-z0-9][a-z0-9+.-]*\\): \\/.*$/\\1/p' "$tmp" | sort -u)`,
    `aliases=$(printf '%s\\n' $pkgs | sed -n 's/^\\(.*[a-z]\\)[0-9][0-9]*\\.[0-9.]*-dev$/\\1-dev/p' | sort -u)`,
    'rm -f "$tmp"',
    `set -- $pkgs $aliases ${extras}`,
    `echo '${MARK} apt-cache'`,
    // One line per package: name, installed version, candidate version ("(none)" when absent).
    'if [ $# -gt 0 ]; then',
    `  apt-cache policy "$@" 2>/dev/null | awk '/^[^ ]+:$/ { if (p != "") print p, i, c; p = substr($0, 1, length($0) - 1); i = "(none)"; c = "(none)" }` +
      ` /^  Installed: / { i = $2 } /^  Candidate: / { c = $2 } END { if (p != "") print p, i, c }'`,
    `  echo "${MARK} apt-cache-status \${PIPESTATUS[0]}"`,
    'fi',
    `echo '${MARK} end'`,
  );
  return `${lines.join('\n')}\n`;
}

export interface AptFileHit {
  pkg: string;
  path: string;
}

/** Parses `package: /path` lines (apt-file search output). */
export function parseAptFileOutput(text: string): AptFileHit[] {
  const hits: AptFileHit[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9][a-z0-9+.-]*): (\/\S.*?)\s*$/.exec(line);
    if (m) hits.push({ pkg: m[1] as string, path: m[2] as string });
  }
  return hits;
}

export interface PolicyEntry {
  installed?: string;
  candidate?: string;
}

/**
 * Parses `apt-cache policy` output, raw or condensed to `name installed candidate` lines (what the lookup
 * script prints): package → installed and candidate versions (`(none)` becomes undefined).
 */
export function parseAptCachePolicy(text: string): Map<string, PolicyEntry> {
  const result = new Map<string, PolicyEntry>();
  let current: PolicyEntry | undefined;
  for (const line of text.split('\n')) {
    const compact = /^([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9]+)? (\S+) (\S+)$/.exec(line);
    if (compact) {
      const entry: PolicyEntry = {};
      if (compact[2] !== '(none)') entry.installed = compact[2];
      if (compact[3] !== '(none)') entry.candidate = compact[3];
      result.set(compact[1] as string, entry);
      current = undefined;
      continue;
    }
    const header = /^([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9]+)?:$/.exec(line);
    if (header) {
      current = {};
      result.set(header[1] as string, current);
      continue;
    }
    if (!current) continue;
    const field = /^\s+(Installed|Candidate): (.+)$/.exec(line);
    if (field) {
      const value = (field[2] as string).trim();
      if (value === '(none)') continue;
      if (field[1] === 'Installed') current.installed = value;
      else current.candidate = value;
    }
  }
  return result;
}

export interface LookupOutput {
  aptFile: 'ok' | 'no-match' | 'missing' | 'error' | 'skipped' | 'unknown';
  aptFileMessage?: string;
  hits: AptFileHit[];
  policy: Map<string, PolicyEntry>;
  /** apt-cache ran and answered. */
  policyRan: boolean;
}

/** Splits the lookup script's output into its sections. */
export function parseLookupOutput(output: string): LookupOutput {
  const sections = new Map<string, string[]>();
  let section = 'preamble';
  let aptFileStatus: string | undefined;
  let policyRan = false;
  for (const line of output.split('\n')) {
    if (line.startsWith(`${MARK} `)) {
      const rest = line.slice(MARK.length + 1).trim();
      if (rest.startsWith('apt-file-status ')) aptFileStatus = rest.slice('apt-file-status '.length);
      else if (rest.startsWith('apt-cache-status ')) policyRan = true;
      else section = rest;
      continue;
    }
    const list = sections.get(section) ?? [];
    list.push(line);
    sections.set(section, list);
  }
  const aptFileText = (sections.get('apt-file') ?? []).join('\n');
  const hits = parseAptFileOutput(aptFileText);
  let aptFile: LookupOutput['aptFile'];
  if (aptFileStatus === undefined) aptFile = 'unknown';
  else if (aptFileStatus === 'missing') aptFile = 'missing';
  else if (aptFileStatus === 'skipped') aptFile = 'skipped';
  else if (aptFileStatus === '0') aptFile = 'ok';
  else if (aptFileStatus === '1' && hits.length === 0) aptFile = 'no-match';
  else aptFile = hits.length > 0 ? 'ok' : 'error';
  const errorLines = aptFileText.split('\n').filter((l) => /^(?:E|W): /.test(l));
  return {
    aptFile,
    aptFileMessage: errorLines.length > 0 ? errorLines.slice(0, 3).join(' ') : undefined,
    hits,
    policy: parseAptCachePolicy((sections.get('apt-cache') ?? []).join('\n')),
    policyRan,
  };
}

// ───────────────────────────── ranking ─────────────────────────────

/** Packages that never answer a need for a native build: cross toolchains, mingw, multilib, debug, docs. */
const UNWANTED =
  /(?:^|-)(?:mingw|cross)(?:-|$)|^lib(?:32|x32|n32|64)|^(?:dietlibc|klibc|libklibc|musl|android-)|-(?:dbg|dbgsym|doc)$/;

const LIBRARY_KINDS: ReadonlySet<NeedKind> = new Set(['header', 'library', 'pkgconfig', 'cmake', 'file']);

/** Candidates listed in a resolution (a generic name can have hundreds). */
const MAX_CANDIDATES = 20;

/** More than this many packages share the best non-standard location: the index cannot tell which one is meant. */
const AMBIGUOUS = 3;

export interface RankedCandidates {
  /** Best first, unwanted packages excluded. */
  ranked: string[];
  /** Unwanted packages that also ship the file (cross, mingw, ...). */
  unwanted: string[];
  /** The index cannot decide (a generic name in many non-standard places). */
  ambiguous: boolean;
  /** The best hits are in places the toolchain never looks by default (an include dir of another tool). */
  weak: boolean;
  /** The only useful hit is a Find module that ships with CMake. */
  cmakeModuleOnly: boolean;
}

/** The unversioned alias apt-cache may know (libboost-system1.74-dev → libboost-system-dev). */
export function unversionedAlias(pkg: string): string | undefined {
  const m = /^(.*[a-z])\d+\.[\d.]*-dev$/.exec(pkg);
  return m ? `${m[1]}-dev` : undefined;
}

/** Ranks the packages whose files serve a need. `prefer` are curated names that win ties within a tier. */
export function rankCandidates(
  query: NeedQuery,
  hits: readonly AptFileHit[],
  prefer: readonly string[] = [],
  knownAliases: ReadonlySet<string> = new Set(),
): RankedCandidates {
  const best = new Map<string, Placement>();
  let cmakeModule = false;
  for (const hit of hits) {
    const place = query.place(hit.path);
    if (!place) continue;
    if (place.cmakeModule) {
      cmakeModule = true;
      continue;
    }
    const old = best.get(hit.pkg);
    if (!old || place.tier < old.tier || (place.tier === old.tier && place.depth < old.depth))
      best.set(hit.pkg, place);
  }
  const unwanted = [...best.keys()].filter((p) => UNWANTED.test(p)).sort();
  const wanted = [...best.entries()].filter(([p]) => !UNWANTED.test(p));
  // Unversioned aliases that apt-cache knows stand in for their versioned packages.
  for (const [pkg, place] of [...wanted]) {
    const alias = unversionedAlias(pkg);
    if (alias && knownAliases.has(alias) && !best.has(alias) && !wanted.some(([p]) => p === alias)) {
      wanted.push([alias, place]);
    }
  }
  const libraryKind = LIBRARY_KINDS.has(query.need.kind);
  const key = (pkg: string, place: Placement): (number | string)[] => [
    place.tier,
    prefer.includes(pkg) ? 0 : 1,
    libraryKind && !pkg.endsWith('-dev') ? 1 : 0,
    /\d\.\d/.test(pkg) ? 1 : 0,
    place.depth,
    pkg.length,
    pkg,
  ];
  const compare = (a: (number | string)[], b: (number | string)[]): number => {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as number | string;
      const y = b[i] as number | string;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
  wanted.sort(([pa, a], [pb, b]) => compare(key(pa, a), key(pb, b)));
  const ranked = wanted.map(([p]) => p);
  const topTier = wanted[0]?.[1].tier;
  const atTop =
    topTier === undefined ? 0 : wanted.filter(([p, place]) => place.tier === topTier && best.has(p)).length;
  const curatedAmongTop = wanted.some(([p, place]) => place.tier === topTier && prefer.includes(p));
  const weak = topTier !== undefined && topTier >= 2 && !curatedAmongTop;
  const ambiguous = !weak && topTier !== undefined && topTier > 0 && atTop > AMBIGUOUS && !curatedAmongTop;
  return { ranked, unwanted, ambiguous, weak, cmakeModuleOnly: cmakeModule && ranked.length === 0 };
}

// ───────────────────────────── resolution ─────────────────────────────

function needKey(need: Need): string {
  return `${need.kind}:${need.name}`;
}

function confirmed(policy: Map<string, PolicyEntry>, pkg: string): boolean {
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
  const d: Decision = { need, out, entry, ranked, candidates, hasRunner };

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
    const result = await runner.run(buildLookupScript(valid, curated, options.maxHitsPerName));
    out = parseLookupOutput(result.output);
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

// ───────────────────────────── findings → needs ─────────────────────────────

/** Findings whose header capture is a removed glibc API, not something a package provides. */
const NO_PACKAGE_IDS: ReadonlySet<string> = new Set([
  'glibc-sysctl-removed',
  'glibc-xlocale-removed',
  'glibc-stropts-removed',
  'forgot-include-note',
]);

const COMPILERS: Readonly<Record<string, string>> = {
  C: 'gcc',
  'C++': 'g++',
  CXX: 'g++',
  Fortran: 'gfortran',
};
const GENERATORS: Readonly<Record<string, string>> = {
  'Unix Makefiles': 'make',
  Ninja: 'ninja',
  'Ninja Multi-Config': 'ninja',
};

/**
 * What to look up for a layer-1 finding, or undefined when the finding is not about a missing package.
 * Uses the conventional capture names (header, library, pkgconfig, cmake_package, command, python_module, file, macro).
 */
export function needFromFinding(finding: Pick<Finding, 'id' | 'category' | 'captures'>): Need | undefined {
  const c = finding.captures;
  if (NO_PACKAGE_IDS.has(finding.id)) return undefined;
  if (finding.id === 'make-no-rule' || finding.id === 'ninja-missing-input') {
    // CMake records absolute library paths; a missing /usr/... file is a missing package.
    return c.target?.startsWith('/usr/') ? { kind: 'file', name: c.target } : undefined;
  }
  if (finding.category === 'configure-error') return needFromConfigureCheck(c.check);
  if (
    finding.category !== 'missing-dependency' &&
    finding.category !== 'toolchain-drift' &&
    finding.category !== 'gpu'
  ) {
    return undefined;
  }
  if (c.header) return { kind: 'header', name: c.header };
  if (c.library) return { kind: 'library', name: c.library };
  if (c.pkgconfig) return { kind: 'pkgconfig', name: c.pkgconfig };
  if (c.cmake_package && finding.category === 'missing-dependency')
    return { kind: 'cmake', name: c.cmake_package };
  if (c.python_module) return { kind: 'python-module', name: c.python_module };
  if (c.command) return { kind: 'command', name: c.command };
  if (c.interpreter) return { kind: 'command', name: c.interpreter.split('/').pop() ?? c.interpreter };
  if (c.file && finding.category === 'missing-dependency') return { kind: 'file', name: c.file };
  if (c.macro) return { kind: 'm4-macro', name: c.macro };
  if (c.qt_module) {
    const first = c.qt_module.split(/\s+/)[0];
    return first ? { kind: 'file', name: `mkspecs/modules/qt_lib_${first}.pri` } : undefined;
  }
  if (c.compiler)
    return COMPILERS[c.compiler] ? { kind: 'command', name: COMPILERS[c.compiler] as string } : undefined;
  if (c.language)
    return COMPILERS[c.language] ? { kind: 'command', name: COMPILERS[c.language] as string } : undefined;
  if (c.generator)
    return GENERATORS[c.generator] ? { kind: 'command', name: GENERATORS[c.generator] as string } : undefined;
  return undefined;
}

/** configure's failed "checking for X... no" just above `configure: error:`. */
function needFromConfigureCheck(check: string | undefined): Need | undefined {
  if (!check) return undefined;
  if (/^[\w./+-]+\.h(?:pp|xx)?$/.test(check)) return { kind: 'header', name: check };
  const lib = / in -l([\w.+-]+)$/.exec(check);
  return lib?.[1] ? { kind: 'library', name: lib[1] } : undefined;
}

/** The distinct needs of many findings, in order. */
export function needsFromFindings(
  findings: readonly Pick<Finding, 'id' | 'category' | 'captures'>[],
): Need[] {
  const seen = new Set<string>();
  const needs: Need[] = [];
  for (const f of findings) {
    const need = needFromFinding(f);
    if (need && !seen.has(needKey(need))) {
      seen.add(needKey(need));
      needs.push(need);
    }
  }
  return needs;
}

// ───────────────────────────── runners ─────────────────────────────

/** A runner over a sandbox (the index lives in the sandbox's image). */
export function sandboxRunner(sandbox: Pick<Sandbox, 'exec'>, timeoutMs = 120_000): PackageIndexRunner {
  return {
    async run(script) {
      const result = await sandbox.exec(script, { timeoutMs });
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
