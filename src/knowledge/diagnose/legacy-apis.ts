/**
 * APIs a dependency removed (`verifiers/legacy-apis.yaml`): each entry is a documented fact — who removed
 * what in which release, the migration, the source — and becomes a layer-1 signature `legacy-<id>` whose
 * message says it in words a person understands ("uses an API that glibc removed in 2.32 (sys_errlist)")
 * with the migration as its hint. Entries whose migration is mechanical carry a `patch`, which the repair
 * rule applies (knowledge/repair/rules/legacy-apis.ts); the others are explained and left to the model
 * strategies. Loaded and validated here, with errors naming the file and the entry.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';

import { ConfigError } from '../../base/errors.js';
import { LinearRegex } from '../../base/linear-regex.js';
import type { FindingCategory } from './types.js';

export const DEFAULT_LEGACY_APIS_URL = new URL('../../../verifiers/legacy-apis.yaml', import.meta.url);

/** A mechanical, documented migration: an ERE replaced in C and C++ sources, and a header they then need. */
export interface LegacyPatch {
  replace: string;
  with: string;
  include?: string;
}

export interface LegacyApi {
  id: string;
  dependency: string;
  removedIn: string;
  api: string;
  pattern: string;
  keywords: string[];
  example: string;
  migration: string;
  source: string;
  patch?: LegacyPatch;
}

/** The signature an entry becomes (the shape of signatures.ts's SignatureSpec). */
export interface LegacySignature {
  id: string;
  category: FindingCategory;
  pattern: string;
  keywords: string[];
  message: string;
  hint: string;
  priority: number;
  /** Who owns the class (signatures.ts RepairOwnerSpec): the legacy-api rule when the migration is mechanical. */
  repair: { owner: 'rule' | 'model'; why: string };
}

/** The signature id of an entry. */
export const legacySignatureId = (id: string): string => `legacy-${id}`;

const FIELDS = ['id', 'dependency', 'removedIn', 'api', 'pattern', 'example', 'migration', 'source'] as const;
const KEYS = new Set<string>([...FIELDS, 'keywords', 'patch']);

function fail(source: string, where: string, message: string): never {
  throw new ConfigError(
    `${source}: ${where}: ${message}`,
    'fix the legacy API table (verifiers/legacy-apis.yaml)',
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parsePatch(raw: unknown, where: string, source: string): LegacyPatch {
  if (!isRecord(raw)) fail(source, where, 'expected {replace, with, include?}');
  for (const key of Object.keys(raw))
    if (!['replace', 'with', 'include'].includes(key)) fail(source, where, `unknown key '${key}'`);
  const { replace, with: by, include } = raw;
  if (typeof replace !== 'string' || replace === '') fail(source, `${where}.replace`, 'expected an ERE');
  if (typeof by !== 'string') fail(source, `${where}.with`, 'expected the replacement text');
  for (const [name, text] of [
    ['replace', replace],
    ['with', by],
  ] as const) {
    if (/[#'\n]/.test(text)) fail(source, `${where}.${name}`, "must not contain '#', a quote or a newline");
  }
  if (include !== undefined && (typeof include !== 'string' || !/^[A-Za-z0-9_/.+-]+\.h$/.test(include)))
    fail(source, `${where}.include`, 'expected a header name like string.h');
  return { replace, with: by, ...(include ? { include } : {}) };
}

/**
 * Parses and validates the table; `source` names the file in errors. `checkPatterns: false` leaves out compiling
 * each pattern against its example here (the catalog compiles it on first use): for the shipped table, which
 * test/unit/knowledge/diagnose/legacy-apis.test.ts checks in full, so a command that never meets such a line
 * does not pay for it (issue 32).
 */
export function parseLegacyApis(
  text: string,
  source: string,
  { checkPatterns = true }: { checkPatterns?: boolean } = {},
): LegacyApi[] {
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, source);
  } catch (error) {
    fail(source, 'YAML', error instanceof Error ? error.message : String(error));
  }
  if (!isRecord(doc) || doc.version !== 1 || !Array.isArray(doc.apis))
    fail(source, 'top level', 'expected {version: 1, apis: [...]}');
  const ids = new Set<string>();
  return doc.apis.map((raw, i): LegacyApi => {
    const where = `apis[${i}]`;
    if (!isRecord(raw)) fail(source, where, 'expected a mapping');
    for (const key of Object.keys(raw)) if (!KEYS.has(key)) fail(source, where, `unknown key '${key}'`);
    for (const field of FIELDS) {
      if (typeof raw[field] !== 'string' || raw[field].trim() === '')
        fail(source, `${where}.${field}`, 'expected a non-empty string');
    }
    const entry = raw as Record<(typeof FIELDS)[number], string> & Record<string, unknown>;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(entry.id))
      fail(source, `${where}.id`, 'expected lower-case words joined by "-"');
    if (ids.has(entry.id)) fail(source, `${where}.id`, `'${entry.id}' is listed twice`);
    ids.add(entry.id);
    if (!/^https:\/\//.test(entry.source)) fail(source, `${where}.source`, 'expected an https:// URL');
    // Compiled as the catalog compiles it: by the linear-time engine (no lookaround, no backreferences).
    let regex: LinearRegex | undefined;
    if (checkPatterns) {
      try {
        regex = new LinearRegex(entry.pattern);
      } catch (error) {
        fail(source, `${where}.pattern`, error instanceof Error ? error.message : String(error));
      }
      if (regex.groupNames.length > 0) fail(source, `${where}.pattern`, 'named groups are not allowed');
    }
    const keywords = raw.keywords;
    if (
      !Array.isArray(keywords) ||
      keywords.length === 0 ||
      !keywords.every((k) => typeof k === 'string' && k)
    )
      fail(source, `${where}.keywords`, 'expected a list of literal substrings');
    if (regex && !regex.test(entry.example))
      fail(source, `${where}.example`, 'the pattern does not match its own example line');
    if (!keywords.some((k: string) => entry.example.includes(k)))
      fail(source, `${where}.keywords`, 'none of them is in the example line');
    return {
      id: entry.id,
      dependency: entry.dependency,
      removedIn: entry.removedIn,
      api: entry.api,
      pattern: entry.pattern,
      keywords: keywords as string[],
      example: entry.example,
      migration: entry.migration,
      source: entry.source,
      ...(raw.patch !== undefined ? { patch: parsePatch(raw.patch, `${where}.patch`, source) } : {}),
    };
  });
}

const cache = new Map<string, LegacyApi[]>();

/** The table at `url` (default: the shipped one), read and validated once. */
export function loadLegacyApis(url: URL | string = DEFAULT_LEGACY_APIS_URL): LegacyApi[] {
  const key = String(url);
  const hit = cache.get(key);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the legacy API table ${key}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const apis = parseLegacyApis(text, typeof url === 'string' ? url : url.pathname, {
    checkPatterns: key !== String(DEFAULT_LEGACY_APIS_URL),
  });
  cache.set(key, apis);
  return apis;
}

/** What a finding of an entry says: what was removed, by whom, when. */
export function legacyMessage(api: LegacyApi): string {
  return `uses an API that ${api.dependency} removed in ${api.removedIn} (${api.api})`;
}

/** The entries as signatures: above the generic compile errors of the same line, a cause (toolchain drift). */
export function legacySignatures(apis: readonly LegacyApi[] = loadLegacyApis()): LegacySignature[] {
  return apis.map((api) => ({
    id: legacySignatureId(api.id),
    category: 'toolchain-drift',
    pattern: api.pattern,
    keywords: [...api.keywords],
    message: legacyMessage(api),
    hint: `${api.patch ? 'mechanical migration' : 'migration (not mechanical: left to a model strategy)'}: ${api.migration} — ${api.source}`,
    priority: 85,
    repair: api.patch
      ? {
          owner: 'rule' as const,
          why: 'the legacy-API table has a mechanical migration: the legacy-api rule applies it as a patch',
        }
      : { owner: 'model' as const, why: 'the migration is not mechanical: a model strategy ports the code' },
  }));
}
