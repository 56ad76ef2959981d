/**
 * The Python migrations table as data (`verifiers/python-migrations.yaml`): for an API a newer library or
 * interpreter removed (NumPy's `np.float`, `collections.Mapping`), the documented drop-in replacement, where
 * it was removed and the source that says so. Loaded once and validated on load (every error names the file
 * and the entry); `migrationEdit` turns matching entries into the one command that rewrites the sources.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';
import { shq } from '../../base/shell.js';
import type { SourceEdit } from './source-edits.js';

export const DEFAULT_MIGRATIONS_URL = new URL('../../../verifiers/python-migrations.yaml', import.meta.url);

export interface PythonMigration {
  id: string;
  module: string;
  /** Removed name → its replacement. */
  names: Readonly<Record<string, string>>;
  pattern: string;
  replacement: string;
  since: string;
  source: string;
  why: string;
}

const FIELDS = ['id', 'module', 'names', 'pattern', 'replacement', 'since', 'source', 'why'];

function fail(where: string, message: string): never {
  throw new ConfigError(
    `${where}: ${message}`,
    'fix the Python migrations (verifiers/python-migrations.yaml)',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a parsed migrations document. */
export function validateMigrations(doc: unknown, source = 'python-migrations.yaml'): PythonMigration[] {
  if (!isRecord(doc) || doc.version !== 1)
    fail(source, 'expected a mapping with "version: 1" and "migrations"');
  if (!Array.isArray(doc.migrations) || doc.migrations.length === 0)
    fail(source, '"migrations" must be a non-empty list');
  const ids = new Set<string>();
  return doc.migrations.map((raw: unknown, i: number): PythonMigration => {
    const where = `${source}: migrations[${i}]`;
    if (!isRecord(raw)) fail(where, 'must be a mapping');
    for (const key of Object.keys(raw)) if (!FIELDS.includes(key)) fail(where, `unknown field "${key}"`);
    for (const key of FIELDS.filter((k) => k !== 'names')) {
      if (typeof raw[key] !== 'string' || raw[key] === '') fail(where, `"${key}" must be a non-empty string`);
    }
    const m = raw as unknown as PythonMigration;
    if (ids.has(m.id)) fail(where, `duplicate id "${m.id}"`);
    ids.add(m.id);
    if (!isRecord(raw.names) || Object.keys(raw.names).length === 0)
      fail(where, '"names" must map removed names to replacements');
    for (const [name, to] of Object.entries(raw.names)) {
      if (!/^\w+$/.test(name) || typeof to !== 'string' || !/^[\w.]+$/.test(to))
        fail(where, `names.${name}: expected identifiers`);
    }
    if (!m.pattern.includes('(?P<name>{names})')) fail(where, '"pattern" must hold (?P<name>{names})');
    if (!/^https:\/\//.test(m.source)) fail(where, '"source" must be an https URL');
    return { ...m, names: raw.names as Record<string, string> };
  });
}

let cached: PythonMigration[] | undefined;

/** The shipped migrations, loaded once. */
export function defaultPythonMigrations(): PythonMigration[] {
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(DEFAULT_MIGRATIONS_URL, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read ${DEFAULT_MIGRATIONS_URL.pathname}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (cached = validateMigrations(
    parseShippedYaml(text, DEFAULT_MIGRATIONS_URL),
    DEFAULT_MIGRATIONS_URL.pathname,
  ));
}

/** A migration as the source edit it makes (what `buildbench diagnose --file` and the pre-emptive scan read). */
export function migrationAsEdit(m: PythonMigration): SourceEdit {
  return {
    extensions: ['.py'],
    pattern: m.pattern,
    replacement: m.replacement,
    style: 'python',
    renames: m.names,
  };
}

/** The migrations for a removed `name` of `module` (every form of it: attribute use and import). */
export function migrationsFor(
  module: string,
  name: string,
  table: readonly PythonMigration[],
): PythonMigration[] {
  return table.filter((m) => m.module === module && Object.hasOwn(m.names, name));
}

/**
 * The program that applies migrations to the repository's *.py files (not .git, .buildbench, node_modules;
 * never through a symbolic link), each pattern over the whole text in multi-line mode; it prints the files
 * it changed. Python, because the patterns are Python regular expressions and the interpreter is there.
 */
const EDIT_PROGRAM = `import json, os, re, sys
specs = json.loads(sys.argv[1])
for s in specs:
    alt = "|".join(sorted(map(re.escape, s["names"]), key=len, reverse=True))
    s["re"] = re.compile(s["pattern"].replace("{names}", alt), re.M)
changed = []
for root, dirs, files in os.walk("."):
    dirs[:] = [d for d in dirs if d not in (".git", ".buildbench", "node_modules", "__pycache__") and not os.path.islink(os.path.join(root, d))]
    for f in files:
        p = os.path.join(root, f)
        if not f.endswith(".py") or os.path.islink(p): continue
        with open(p, encoding="utf-8", errors="surrogateescape") as h: text = h.read()
        new = text
        for s in specs:
            new = s["re"].sub(lambda m, s=s: m.expand(s["replacement"].replace("{new}", s["names"][m.group("name")])), new)
        if new != text:
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as h: h.write(new)
            changed.append(p[2:])
print("buildbench: migrated " + (", ".join(changed) or "no file"))`;

/** The shell command that applies `migrations` (stable text: the same migrations give the same command). */
export function migrationEdit(migrations: readonly PythonMigration[]): string {
  const specs = migrations.map((m) => ({ pattern: m.pattern, replacement: m.replacement, names: m.names }));
  return `python3 -c ${shq(EDIT_PROGRAM)} ${shq(JSON.stringify(specs))}`;
}
