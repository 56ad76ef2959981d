/**
 * The curated fallback table (`verifiers/packages-fallback.yaml`): packages for the needs the package index
 * cannot answer or answers wrongly, loaded and validated on load.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';
import { NEED_KINDS, PACKAGE_NAME, type Need, type NeedKind } from './needs.js';

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
    doc = parseShippedYaml(text, source);
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
