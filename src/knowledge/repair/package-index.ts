/**
 * The package index, asked in one script: per-need apt-file queries and how a hit's path serves the need,
 * the batch pattern, the look-up script (apt-file, then apt-cache policy), the parsers of its output, and the
 * ranking of the packages whose files serve a need.
 */
import { escapeRegex } from '../../base/escape-regex.js';
import { shellQuote } from '../../base/shell.js';
import { PACKAGE_NAME, type Need, type NeedKind } from './needs.js';

/** Multiarch directory (`x86_64-linux-gnu`, `aarch64-linux-gnu`, ...). */
const TRIPLET = '[a-z0-9_]+-linux-gnu\\w*';

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

/** A safe need name (before the per-kind checks). */
const NEED_NAME = /^[A-Za-z0-9_.+@/-]+$/;

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
  /** Hits already found in a host-side index (contents-index.ts): listed instead of running apt-file. */
  knownHits?: readonly AptFileHit[],
): string {
  const extras = [...new Set(extraPackages.filter((p) => PACKAGE_NAME.test(p)))].map(shellQuote).join(' ');
  const lines = [
    'export LC_ALL=C',
    ...INDEX_SETUP,
    'tmp=$(mktemp 2>/dev/null || echo "/tmp/buildbench-apt-file.$$")',
    ': > "$tmp"',
    `echo '${MARK} apt-file'`,
  ];
  if (queries.length > 0 && knownHits) {
    const listed = listedHits(knownHits);
    lines.push(
      `cat > "$tmp" <<'${MARK}-hits'`,
      ...listed.map((h) => `${h.pkg}: ${h.path}`),
      `${MARK}-hits`,
      'cat "$tmp"',
      `echo '${MARK} apt-file-status ${listed.length > 0 ? 0 : 1}'`,
      // The names are known here: the same list the host-side answer (knownLookupOutput) asks about.
      `set -- ${policyNames(listed, extraPackages).join(' ')}`,
    );
  } else if (queries.length > 0) {
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
  if (!(queries.length > 0 && knownHits)) {
    lines.push(
      `pkgs=$(sed -n 's/^\\([a-z0-9][a-z0-9+.-]*\\): \\/.*$/\\1/p' "$tmp" | sort -u)`,
      `aliases=$(printf '%s\\n' $pkgs | sed -n 's/^\\(.*[a-z]\\)[0-9][0-9]*\\.[0-9.]*-dev$/\\1-dev/p' | sort -u)`,
      `set -- $pkgs $aliases ${extras}`,
    );
  }
  lines.push(
    'rm -f "$tmp"',
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

/** The hits a look-up lists: a package name apt accepts, a path the script's here-document can hold. */
function listedHits(hits: readonly AptFileHit[]): AptFileHit[] {
  return hits.filter((h) => PACKAGE_NAME.test(h.pkg) && !/['\n]/.test(h.path));
}

/**
 * The package names a look-up asks apt about: every package the listed hits name, the unversioned alias of a
 * versioned `-dev` package (`unversionedAlias`), and the curated names; sorted, once each. (The script's
 * apt-file branch, whose hits are only known inside, derives the same list with sed.)
 */
export function policyNames(hits: readonly AptFileHit[], extraPackages: readonly string[]): string[] {
  const pkgs = new Set(listedHits(hits).map((h) => h.pkg));
  const aliases = [...pkgs].flatMap((p) => unversionedAlias(p) ?? []);
  const extras = extraPackages.filter((p) => PACKAGE_NAME.test(p));
  return [...new Set([...pkgs, ...aliases, ...extras])].sort();
}

/**
 * The look-up's output without running the script: the host-side index's hits and apt's answer for their
 * names (`policy`, from package-state.ts), as `parseLookupOutput` would read the script's.
 */
export function knownLookupOutput(
  knownHits: readonly AptFileHit[],
  policy: Map<string, PolicyEntry>,
): LookupOutput {
  const hits = listedHits(knownHits);
  return { aptFile: hits.length > 0 ? 'ok' : 'no-match', hits, policy, policyRan: true };
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
export const MAX_CANDIDATES = 20;

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
