/**
 * The layer-1 signature catalog: failure signatures are DATA (`verifiers/signatures.yaml`), compiled here
 * into a line matcher. One line yields at most one match: the highest-priority signature that matches.
 *
 * Every pattern is compiled by the linear-time engine (base/linear-regex.ts, RE2): a log line is untrusted
 * text, and no line may make a match slower than linear in its length. RE2 has no lookaround, so a signature
 * says "but not on lines like this" with `unless:` (a second pattern that vetoes the line), and a look-back
 * reads at most `lines` earlier lines (each kept to the parser's excerpt length): the work per log line is
 * bounded by the catalog, not by the log.
 */
import { legacySignatures } from './legacy-apis.js';
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';
import { LinearRegex, LinearSyntaxError } from '../../base/linear-regex.js';
import { FINDING_CATEGORIES, type FindingCategory } from './types.js';

export { FINDING_CATEGORIES };

/**
 * Causal tier by category: 1 = causes (a missing dependency, a configure error, the environment),
 * 2 = effects (compile and link errors, crashes), 3 = weak evidence (noise-prone generic messages).
 * The root cause is the first finding of the lowest tier. A signature may override its tier.
 */
export const CATEGORY_TIER: Readonly<Record<FindingCategory, number>> = {
  'missing-dependency': 1,
  'configure-error': 1,
  layout: 1,
  'toolchain-drift': 1,
  network: 1,
  permission: 1,
  gpu: 1,
  oom: 1,
  timeout: 1,
  infrastructure: 1,
  'compile-error': 2,
  'link-error': 2,
  'runtime-crash': 2,
  'build-failed': 3,
};

/** Where the catalog shipped with the tool lives (three folders up from `src/knowledge/diagnose/`; ncc copies it into dist/). */
export const DEFAULT_SIGNATURES_URL = new URL('../../../verifiers/signatures.yaml', import.meta.url);

/**
 * A look-back: captures taken from one of the previous `lines` lines (at most MAX_LOOKBEHIND): the nearest line
 * that matches (`pick: nearest`, the default), or the earliest of them (`pick: earliest`: the first line of a
 * block that explains the later ones). Either way at most `lines` lines are read per matched line.
 */
export interface LookbehindSpec {
  pattern: string;
  flags?: string;
  lines: number;
  pick?: 'nearest' | 'earliest';
}

/** Who owns a failure class (issue 30): the one field every reader of the catalog asks. */
export const REPAIR_OWNERS = ['rule', 'generic', 'model', 'not-build'] as const;
export type RepairOwner = (typeof REPAIR_OWNERS)[number];

/** What a failure that is not a build problem is (a diagnosis says so and proposes nothing). */
export const NOT_BUILD_KINDS = [
  'flaky-network',
  'tests-failed',
  'runner-out-of-disk',
  'cancelled',
  'timeout',
  'infrastructure',
] as const;
export type NotBuildKind = (typeof NOT_BUILD_KINDS)[number];

/**
 * `repair:` of a signature: `rule` — a repair rule (src/knowledge/repair/rules/) answers the id; `generic` — a
 * generic move of the engine handles it (the package look-up of a missing file, the next recipe, a model-less
 * strategy's fallbacks); `model` — only a model can help; `not-build` — not a build problem (`kind` says which),
 * left alone. `why` says why, in one line.
 */
export interface RepairOwnerSpec {
  owner: RepairOwner;
  why: string;
  kind?: NotBuildKind;
}

/** One signature as written in the YAML file. */
export interface SignatureSpec {
  id: string;
  category: FindingCategory;
  /**
   * Regular expression in RE2 syntax (JavaScript's without lookaround or backreferences) with named groups;
   * `{{macro}}` expands from the catalog's `macros`.
   */
  pattern: string;
  flags?: string;
  /** A second pattern (same flags): a line it matches is not this signature's, even when `pattern` matches. */
  unless?: string;
  /** Literal substrings; a line is only tried against the pattern when it contains one of them. */
  keywords: string[];
  /** Every named group of the pattern (and of the look-backs), documented. */
  captures?: Record<string, string>;
  /** One line for a person; `{name}` or `{name|fallback}` insert captures. */
  message: string;
  hint?: string;
  /** Follow-up noise (`make: *** Error 2`): never the root cause when anything else matched. */
  followUp?: boolean;
  /** Categories or signature ids: when one of them was seen earlier, this finding is a follow-up. */
  followUpAfter?: string[];
  /** A catch-all (`error:`): superseded by a specific finding on a nearby later line. */
  generic?: boolean;
  /** Per-line precedence when several signatures match one line (higher wins). Default 50, generic 10. */
  priority?: number;
  /** Overrides the category's causal tier (1 cause, 2 effect, 3 weak). */
  tier?: number;
  lookbehind?: LookbehindSpec[];
  /**
   * Categories or signature ids: findings of these in the lines just before this one are weak evidence
   * (tier 3), e.g. the network errors of a submodule fetch that only warned and let the build go on.
   */
  demotes?: string[];
  /** Who owns this failure class, and why (required in the shipped catalog). */
  repair?: RepairOwnerSpec;
  /**
   * A warning that explains a later error only when that error names it (see `symptomOf`): never the root cause
   * on its own (`warning: implicit declaration of function 'f'` in a build that failed for another reason).
   */
  latent?: boolean;
  /**
   * This finding is a symptom of an earlier latent finding of signature `id` whose capture `capture` has the same
   * value (`undefined reference to 'f'` after `implicit declaration of function 'f'`): that warning becomes the
   * root cause and this finding its symptom.
   */
  symptomOf?: SymptomOfSpec;
}

export interface SymptomOfSpec {
  id: string;
  capture: string;
}

export interface CatalogSpec {
  version: number;
  macros?: Record<string, string>;
  signatures: SignatureSpec[];
}

export interface Lookbehind {
  readonly regex: LinearRegex;
  readonly lines: number;
  readonly pick: 'nearest' | 'earliest';
}

/** A compiled signature. */
export interface Signature {
  readonly id: string;
  readonly category: FindingCategory;
  readonly regex: LinearRegex;
  /** Vetoes a line the pattern matches (SignatureSpec.unless). */
  readonly unless?: LinearRegex;
  readonly keywords: readonly string[];
  readonly caseInsensitive: boolean;
  readonly message: string;
  readonly hint?: string;
  readonly followUp: boolean;
  readonly followUpAfter: readonly string[];
  readonly generic: boolean;
  readonly priority: number;
  readonly tier: number;
  readonly lookbehind: readonly Lookbehind[];
  /** Categories or ids whose findings just before this one become weak evidence (see SignatureSpec.demotes). */
  readonly demotes: readonly string[];
  /** Named groups of the pattern and its look-backs. */
  readonly captureNames: readonly string[];
  /** Documentation of the captures, from the catalog. */
  readonly captureDocs: Readonly<Record<string, string>>;
  /** Position in the catalog file. */
  readonly index: number;
  /** Who owns this failure class (SignatureSpec.repair); absent only in a hand-made catalog without it. */
  readonly repair?: RepairOwnerSpec;
  /** Never a root cause unless a later finding names it (SignatureSpec.latent). */
  readonly latent: boolean;
  /** The latent finding this one is a symptom of, by a shared capture (SignatureSpec.symptomOf). */
  readonly symptomOf?: Readonly<SymptomOfSpec>;
}

export interface SignatureCatalog {
  readonly version: number;
  /** In catalog order. */
  readonly signatures: readonly Signature[];
  readonly byId: ReadonlyMap<string, Signature>;
  /** The longest look-back any signature needs. */
  readonly maxLookbehind: number;
  /** Tries one (normalized) line; `previous(k)` returns the k-th line before it (1 = the one just before). */
  match(line: string, previous?: (k: number) => string | undefined): SignatureMatch | undefined;
}

export interface SignatureMatch {
  signature: Signature;
  captures: Record<string, string>;
}

/** Longest capture value kept; longer values are cut (a capture of a 4 KiB line is not useful whole). */
export const MAX_CAPTURE_LENGTH = 512;
const ALLOWED_FLAGS = /^[imsu]*$/;
const MACRO = /\{\{(\w+)\}\}/g;
/** The most lines a look-back reads (per matched line). */
export const MAX_LOOKBEHIND = 16;
/** `{name}`, `{name|fallback}`, `{name?prefix}` in message templates. */
const PLACEHOLDER = /\{(\w+)(?:([|?])([^}]*))?\}/g;

function fail(source: string, message: string): never {
  throw new ConfigError(`${source}: ${message}`, 'fix the signature catalog (verifiers/signatures.yaml)');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expandMacros(pattern: string, macros: Record<string, string>, where: string): string {
  return pattern.replace(MACRO, (_all, name: string) => {
    const value = macros[name];
    if (value === undefined) fail(where, `unknown macro {{${name}}}`);
    return value;
  });
}

function compile(pattern: string, flags: string, where: string, deferred = false): LinearRegex {
  if (!ALLOWED_FLAGS.test(flags)) fail(where, `flags "${flags}" not allowed (use i, m, s, u)`);
  try {
    return new LinearRegex(pattern, flags, { deferred });
  } catch (error) {
    const why = error instanceof LinearSyntaxError ? error.message : String(error);
    return fail(
      where,
      `bad pattern: ${why}${/\(\?<?[=!]/.test(pattern) ? '; for a lookaround use "unless:"' : ''}`,
    );
  }
}

function stringField(
  raw: Record<string, unknown>,
  key: string,
  where: string,
  required: boolean,
): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) {
    if (required) fail(where, `"${key}" is required`);
    return undefined;
  }
  if (typeof value !== 'string' || value.length === 0) fail(where, `"${key}" must be a non-empty string`);
  return value;
}

function stringList(raw: Record<string, unknown>, key: string, where: string): string[] | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0)) {
    fail(where, `"${key}" must be a list of non-empty strings`);
  }
  return value as string[];
}

/** The fields a signature may have: one Set (one per signature was 4 of the catalog validation's 6 ms; issue 32). */
const SIGNATURE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'category',
  'pattern',
  'flags',
  'unless',
  'keywords',
  'captures',
  'message',
  'hint',
  'followUp',
  'followUpAfter',
  'generic',
  'priority',
  'tier',
  'lookbehind',
  'demotes',
  'repair',
  'latent',
  'symptomOf',
]);

function validateSpec(raw: unknown, index: number, source: string): SignatureSpec {
  const where = `${source}: signature #${index + 1}`;
  if (!isRecord(raw)) fail(where, 'must be a mapping');
  const id = stringField(raw, 'id', where, true) as string;
  const at = `${source}: signature "${id}"`;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) fail(at, 'id must be lower-case words joined by "-"');
  const category = stringField(raw, 'category', at, true) as FindingCategory;
  if (!FINDING_CATEGORIES.includes(category)) fail(at, `unknown category "${category}"`);
  const keywords = stringList(raw, 'keywords', at);
  if (!keywords || keywords.length === 0)
    fail(at, '"keywords" is required (literal substrings of every matching line)');
  const captures = raw.captures;
  if (captures !== undefined && captures !== null) {
    if (!isRecord(captures) || Object.values(captures).some((v) => typeof v !== 'string')) {
      fail(at, '"captures" must map each group name to a description');
    }
  }
  for (const key of ['followUp', 'generic']) {
    if (raw[key] !== undefined && typeof raw[key] !== 'boolean') fail(at, `"${key}" must be true or false`);
  }
  for (const key of ['priority', 'tier']) {
    if (raw[key] !== undefined && (typeof raw[key] !== 'number' || !Number.isFinite(raw[key]))) {
      fail(at, `"${key}" must be a number`);
    }
  }
  if (raw.tier !== undefined && ![1, 2, 3].includes(raw.tier as number)) fail(at, '"tier" must be 1, 2 or 3');
  let lookbehind: LookbehindSpec[] | undefined;
  if (raw.lookbehind !== undefined && raw.lookbehind !== null) {
    if (!Array.isArray(raw.lookbehind)) fail(at, '"lookbehind" must be a list');
    lookbehind = raw.lookbehind.map((entry: unknown) => {
      if (!isRecord(entry)) fail(at, 'each lookbehind must be a mapping');
      const lines = entry.lines;
      if (typeof lines !== 'number' || !Number.isInteger(lines) || lines < 1 || lines > MAX_LOOKBEHIND) {
        fail(at, `lookbehind "lines" must be an integer 1..${MAX_LOOKBEHIND}`);
      }
      const pick = entry.pick ?? 'nearest';
      if (pick !== 'nearest' && pick !== 'earliest')
        fail(at, 'lookbehind "pick" must be nearest or earliest');
      for (const key of Object.keys(entry)) {
        if (!['pattern', 'flags', 'lines', 'pick'].includes(key))
          fail(at, `unknown lookbehind field "${key}"`);
      }
      return {
        pattern: stringField(entry, 'pattern', at, true) as string,
        flags: stringField(entry, 'flags', at, false),
        lines,
        pick,
      };
    });
  }
  for (const key of Object.keys(raw)) if (!SIGNATURE_FIELDS.has(key)) fail(at, `unknown field "${key}"`);
  return {
    id,
    category,
    pattern: stringField(raw, 'pattern', at, true) as string,
    flags: stringField(raw, 'flags', at, false),
    unless: stringField(raw, 'unless', at, false),
    keywords,
    captures: captures as Record<string, string> | undefined,
    message: stringField(raw, 'message', at, true) as string,
    hint: stringField(raw, 'hint', at, false),
    followUp: raw.followUp as boolean | undefined,
    followUpAfter: stringList(raw, 'followUpAfter', at),
    generic: raw.generic as boolean | undefined,
    priority: raw.priority as number | undefined,
    tier: raw.tier as number | undefined,
    lookbehind,
    demotes: stringList(raw, 'demotes', at),
    ...(raw.repair !== undefined ? { repair: repairOwnerSpec(raw.repair, at) } : {}),
    ...(raw.latent !== undefined ? { latent: booleanField(raw.latent, 'latent', at) } : {}),
    ...(raw.symptomOf !== undefined ? { symptomOf: symptomOfSpec(raw.symptomOf, at) } : {}),
  };
}

function repairOwnerSpec(value: unknown, at: string): RepairOwnerSpec {
  if (!isRecord(value)) fail(at, '"repair" must be a mapping with owner, why and (for not-build) kind');
  for (const key of Object.keys(value))
    if (!['owner', 'why', 'kind'].includes(key)) fail(at, `unknown repair field "${key}"`);
  const owner = value.owner;
  if (typeof owner !== 'string' || !(REPAIR_OWNERS as readonly string[]).includes(owner))
    fail(at, `repair "owner" must be one of ${REPAIR_OWNERS.join(', ')}`);
  const why = value.why;
  if (typeof why !== 'string' || why.trim() === '') fail(at, 'repair "why" must say why, in one line');
  const kind = value.kind;
  if (owner === 'not-build') {
    if (typeof kind !== 'string' || !(NOT_BUILD_KINDS as readonly string[]).includes(kind))
      fail(at, `repair "kind" must be one of ${NOT_BUILD_KINDS.join(', ')} for owner not-build`);
    return { owner, why, kind: kind as NotBuildKind };
  }
  if (kind !== undefined) fail(at, 'repair "kind" is only for owner not-build');
  return { owner: owner as RepairOwner, why };
}

/** Validates a parsed catalog document. */
export function validateCatalogSpec(doc: unknown, source = 'signatures.yaml'): CatalogSpec {
  if (!isRecord(doc)) fail(source, 'the catalog must be a mapping with "version" and "signatures"');
  if (doc.version !== 1) fail(source, `unsupported catalog version ${String(doc.version)} (expected 1)`);
  const macros = doc.macros ?? {};
  if (!isRecord(macros) || Object.values(macros).some((v) => typeof v !== 'string')) {
    fail(source, '"macros" must map names to pattern fragments');
  }
  if (!Array.isArray(doc.signatures) || doc.signatures.length === 0)
    fail(source, '"signatures" must be a non-empty list');
  return {
    version: 1,
    macros: macros as Record<string, string>,
    signatures: doc.signatures.map((raw: unknown, i: number) => validateSpec(raw, i, source)),
  };
}

function keep(value: string): string {
  return value.length > MAX_CAPTURE_LENGTH ? value.slice(0, MAX_CAPTURE_LENGTH) : value;
}

function collectGroups(
  into: Record<string, string>,
  groups: Readonly<Record<string, string | undefined>> | undefined,
): void {
  if (!groups) return;
  for (const [name, value] of Object.entries(groups)) {
    if (value === undefined || into[name] !== undefined) continue;
    const trimmed = value.trim();
    if (trimmed.length > 0) into[name] = keep(trimmed);
  }
}

/**
 * Finds which of many literal keywords occur in a line in one pass: a bitmap of the keywords' first three
 * characters rejects almost every position, `startsWith` confirms the rest. One alternation regex of ~200
 * literals (or 200 `includes` calls) is 10-50 times slower on long compiler command lines.
 */
class KeywordIndex {
  private readonly bitmap = new Uint8Array(1 << 16);
  private readonly byHash = new Map<number, string[]>();
  private readonly short: string[] = [];
  readonly empty: boolean;

  constructor(keywords: readonly string[]) {
    const unique = [...new Set(keywords)];
    this.empty = unique.length === 0;
    for (const k of unique) {
      if (k.length < 3) {
        this.short.push(k);
        continue;
      }
      const h = KeywordIndex.hash(k.charCodeAt(0), k.charCodeAt(1), k.charCodeAt(2));
      this.bitmap[h] = 1;
      const list = this.byHash.get(h);
      if (list) list.push(k);
      else this.byHash.set(h, [k]);
    }
  }

  private static hash(a: number, b: number, c: number): number {
    return (a * 961 + b * 31 + c) & 0xffff;
  }

  /** Adds every keyword that occurs in `line` to `into`. */
  find(line: string, into: Set<string>): void {
    for (const k of this.short) if (line.includes(k)) into.add(k);
    const end = line.length - 2;
    if (end <= 0) return;
    let a = line.charCodeAt(0);
    let b = line.charCodeAt(1);
    for (let i = 0; i < end; i++) {
      const c = line.charCodeAt(i + 2);
      const h = (a * 961 + b * 31 + c) & 0xffff;
      if (this.bitmap[h] === 1) {
        for (const k of this.byHash.get(h) ?? []) if (line.startsWith(k, i)) into.add(k);
      }
      a = b;
      b = c;
    }
  }
}

/** Fails unless the captures a signature documents are exactly its groups, and its message uses only those. */
function checkCaptures(s: SignatureSpec, names: readonly string[], at: string): void {
  const documented = Object.keys(s.captures ?? {});
  const undocumented = names.filter((n) => !documented.includes(n));
  const unknown = documented.filter((n) => !names.includes(n));
  if (undocumented.length > 0) fail(at, `captures not documented: ${undocumented.join(', ')}`);
  if (unknown.length > 0) fail(at, `documented captures that the pattern lacks: ${unknown.join(', ')}`);
  for (const m of s.message.matchAll(PLACEHOLDER)) {
    if (!names.includes(m[1] ?? '')) fail(at, `message uses {${m[1]}}, which is not a capture`);
  }
}

/** One signature compiled: macros expanded, patterns and references checked, defaults filled in. */
function compileSignature(
  s: SignatureSpec,
  index: number,
  macros: Record<string, string>,
  ids: ReadonlySet<string>,
  at: string,
  deferred = false,
): Signature {
  const flags = s.flags ?? '';
  const pattern = expandMacros(s.pattern, macros, at);
  const regex = compile(pattern, flags, at, deferred);
  const unless =
    s.unless === undefined
      ? undefined
      : compile(expandMacros(s.unless, macros, at), flags, `${at} unless`, deferred);
  const lookbehind = (s.lookbehind ?? []).map((lb) => ({
    regex: compile(expandMacros(lb.pattern, macros, at), lb.flags ?? '', `${at} lookbehind`, deferred),
    lines: lb.lines,
    pick: lb.pick ?? 'nearest',
  }));
  const names = [...new Set([...regex.groupNames, ...lookbehind.flatMap((lb) => lb.regex.groupNames)])];
  checkCaptures(s, names, at);
  for (const ref of s.followUpAfter ?? []) {
    if (!ids.has(ref) && !FINDING_CATEGORIES.includes(ref as FindingCategory)) {
      fail(at, `followUpAfter "${ref}" is neither a category nor a signature id`);
    }
  }
  for (const ref of s.demotes ?? []) {
    if (!ids.has(ref) && !FINDING_CATEGORIES.includes(ref as FindingCategory)) {
      fail(at, `demotes "${ref}" is neither a category nor a signature id`);
    }
  }
  const caseInsensitive = flags.includes('i');
  const generic = s.generic ?? false;
  return {
    id: s.id,
    category: s.category,
    regex,
    ...(unless ? { unless } : {}),
    keywords: caseInsensitive ? s.keywords.map((k) => k.toLowerCase()) : s.keywords,
    caseInsensitive,
    message: s.message,
    hint: s.hint,
    followUp: s.followUp ?? s.category === 'build-failed',
    followUpAfter: s.followUpAfter ?? [],
    generic,
    priority: s.priority ?? (generic ? 10 : 50),
    tier: s.tier ?? CATEGORY_TIER[s.category],
    lookbehind: lookbehind.map(({ regex: r, lines, pick }) => ({ regex: r, lines, pick })),
    demotes: s.demotes ?? [],
    captureNames: names,
    captureDocs: s.captures ?? {},
    index,
    ...(s.repair ? { repair: s.repair } : {}),
    latent: s.latent ?? false,
    ...(s.symptomOf ? { symptomOf: s.symptomOf } : {}),
  };
}

/**
 * The captures of the nearest (or, with `pick: earliest`, the farthest) previous line within `lb.lines` that a
 * look-back matches. At most `lb.lines` lines are read.
 */
function lookBack(
  signature: Signature,
  previous: (k: number) => string | undefined,
  captures: Record<string, string>,
): void {
  for (const lb of signature.lookbehind) {
    let hit: Record<string, string | undefined> | undefined;
    for (let k = 1; k <= lb.lines; k++) {
      const before = previous(k);
      if (before === undefined) break;
      const m = lb.regex.exec(before);
      if (!m) continue;
      hit = m.groups;
      if (lb.pick === 'nearest') break;
    }
    collectGroups(captures, hit);
  }
}

/** The line matcher over compiled signatures: keywords first, then the most specific pattern that matches. */
function lineMatcher(signatures: readonly Signature[]): SignatureCatalog['match'] {
  // Most specific first; the first match on a line wins.
  const ordered = [...signatures].sort((a, b) => b.priority - a.priority || a.index - b.index);
  const sensitive = new KeywordIndex(ordered.filter((s) => !s.caseInsensitive).flatMap((s) => s.keywords));
  const insensitive = new KeywordIndex(ordered.filter((s) => s.caseInsensitive).flatMap((s) => s.keywords));
  const found = new Set<string>();
  return (line, previous) => {
    found.clear();
    sensitive.find(line, found);
    if (!insensitive.empty) insensitive.find(line.toLowerCase(), found);
    if (found.size === 0) return undefined;
    for (const signature of ordered) {
      if (!signature.keywords.some((k) => found.has(k))) continue;
      const m = signature.regex.exec(line);
      if (!m || signature.unless?.test(line)) continue;
      const captures: Record<string, string> = {};
      collectGroups(captures, m.groups);
      if (previous) lookBack(signature, previous, captures);
      return { signature, captures };
    }
    return undefined;
  };
}

function booleanField(value: unknown, name: string, at: string): boolean {
  if (typeof value !== 'boolean') fail(at, `"${name}" must be true or false`);
  return value;
}

function symptomOfSpec(value: unknown, at: string): SymptomOfSpec {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    fail(at, '"symptomOf" must be a mapping with "id" and "capture"');
  for (const key of Object.keys(v))
    if (key !== 'id' && key !== 'capture') fail(at, `unknown symptomOf field "${key}"`);
  if (typeof v.id !== 'string' || typeof v.capture !== 'string')
    fail(at, '"symptomOf" needs "id" (a latent signature) and "capture" (a capture both signatures have)');
  return { id: v.id, capture: v.capture };
}

/** A symptomOf names a latent signature, and the capture both have. */
function checkSymptomOf(s: Signature, byId: ReadonlyMap<string, Signature>, at: string): void {
  if (!s.symptomOf) return;
  const cause = byId.get(s.symptomOf.id);
  if (!cause) fail(at, `symptomOf "${s.symptomOf.id}" is not a signature id`);
  if (!cause.latent) fail(at, `symptomOf "${s.symptomOf.id}" is not a latent signature`);
  for (const sig of [s, cause])
    if (!sig.captureNames.includes(s.symptomOf.capture))
      fail(at, `symptomOf capture "${s.symptomOf.capture}" is not a capture of "${sig.id}"`);
}

/**
 * Compiles a validated catalog into a line matcher. `deferred`: each pattern compiles on its first use (the
 * shipped catalog, whose every pattern the tests compile; a run uses a few).
 */
export function compileCatalog(
  spec: CatalogSpec,
  source = 'signatures.yaml',
  { deferred = false }: { deferred?: boolean } = {},
): SignatureCatalog {
  const macros = spec.macros ?? {};
  const byId = new Map<string, Signature>();
  const signatures: Signature[] = [];
  const ids = new Set(spec.signatures.map((s) => s.id));
  spec.signatures.forEach((s, index) => {
    const at = `${source}: signature "${s.id}"`;
    if (byId.has(s.id)) fail(at, 'duplicate id');
    const signature = compileSignature(s, index, macros, ids, at, deferred);
    byId.set(s.id, signature);
    signatures.push(signature);
  });
  for (const s of signatures) checkSymptomOf(s, byId, `${source}: signature "${s.id}"`);
  const maxLookbehind = Math.max(0, ...signatures.flatMap((s) => s.lookbehind.map((lb) => lb.lines)));
  return { version: spec.version, signatures, byId, maxLookbehind, match: lineMatcher(signatures) };
}

/** Parses and compiles catalog YAML text. */
export function parseSignatureCatalog(text: string, source = 'signatures.yaml'): SignatureCatalog {
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, source);
  } catch (error) {
    fail(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return compileCatalog(validateCatalogSpec(doc, source), source);
}

/** Reads a catalog file (default: the one shipped in `verifiers/`). */
export function loadSignatureCatalog(location: URL | string = DEFAULT_SIGNATURES_URL): SignatureCatalog {
  let text: string;
  try {
    text = readFileSync(location, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the signature catalog ${String(location)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseSignatureCatalog(text, typeof location === 'string' ? location : location.pathname);
}

let defaultCatalog: SignatureCatalog | undefined;

/**
 * The shipped catalog, loaded once: `verifiers/signatures.yaml` and, after it, one signature per removed API
 * of `verifiers/legacy-apis.yaml` (diagnose/legacy-apis.ts).
 */
export function defaultSignatureCatalog(): SignatureCatalog {
  return (defaultCatalog ??= loadDefaultCatalog());
}

function loadDefaultCatalog(): SignatureCatalog {
  const source = DEFAULT_SIGNATURES_URL.pathname;
  let doc: unknown;
  try {
    doc = parseShippedYaml(readFileSync(DEFAULT_SIGNATURES_URL, 'utf8'), DEFAULT_SIGNATURES_URL);
  } catch (error) {
    throw new ConfigError(
      `cannot read the signature catalog ${source}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const spec = validateCatalogSpec(doc, source);
  return compileCatalog({ ...spec, signatures: [...spec.signatures, ...legacySignatures()] }, source, {
    deferred: true,
  });
}

/**
 * Fills a message template. `{name}` is the capture (empty when absent), `{name|text}` falls back to text
 * when the capture is absent, `{name?text}` is text followed by the capture, or nothing when it is absent.
 */
export function renderMessage(
  template: string,
  captures: Readonly<Record<string, string>>,
  maxLength = 300,
): string {
  const text = template
    .replace(PLACEHOLDER, (_all, name: string, kind: string | undefined, extra: string | undefined) => {
      const raw = captures[name];
      if (raw === undefined) return kind === '|' ? (extra ?? '') : '';
      const value = raw.length > 160 ? `${raw.slice(0, 157)}...` : raw;
      return kind === '?' ? `${extra ?? ''}${value}` : value;
    })
    .replace(/ {2,}/g, ' ')
    .trim();
  return text.length > maxLength ? `${text.slice(0, maxLength - 3)}...` : text;
}
