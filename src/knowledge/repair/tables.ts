/**
 * The repair rules' tables as data (`verifiers/repairs.yaml`): which package ships an autoconf macro, which
 * standard header declares a symbol, which toolchain library defines one, which FetchContent dependency Debian
 * ships as sources, which names are test frameworks or programs, and which words are never names. Loaded
 * once and validated on load like the signature catalog: every error names the file and the entry.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';
import { PACKAGE_NAME } from './needs.js';

/** Where the tables shipped with the tool live (three folders up from `src/knowledge/repair/`; ncc copies it into dist/). */
export const DEFAULT_REPAIRS_URL = new URL('../../../verifiers/repairs.yaml', import.meta.url);

/** A pattern and what it stands for, tried in file order (first match wins). */
export interface PatternEntry<T> {
  readonly pattern: RegExp;
  readonly value: T;
}

export interface FetchContentSource {
  /** The Debian package that ships the sources. */
  readonly package: string;
  /** Where the package puts them (FETCHCONTENT_SOURCE_DIR_<NAME>). */
  readonly dir: string;
}

/** A project builds download, as the distribution ships it (`shipped_sources`). */
export interface ShippedSource {
  /** The entry's key. */
  readonly name: string;
  readonly package: string;
  /** Lower-cased FetchContent names. */
  readonly names: readonly string[];
  /** Lower-cased `host/owner/name` of the upstream repository. */
  readonly repositories: readonly string[];
  /**
   * Path in the upstream repository (`.` the whole tree) → the shipped file or folder, in file order. Empty
   * when the package ships the built library, not the sources (a missing submodule of the project then gets
   * the package installed: a build that looks for the library on the system uses it).
   */
  readonly tree: readonly { readonly at: string; readonly from: string }[];
}

export interface RepairTables {
  /** Autoconf macro prefix → the packages shipping its .m4 files. */
  readonly autoconfMacros: readonly PatternEntry<readonly string[]>[];
  /** Standard-library symbol → the header to force-include. */
  readonly stdHeaders: readonly PatternEntry<string>[];
  /** Undefined toolchain symbol → the linker flag that provides it. */
  readonly toolchainLibraries: readonly PatternEntry<string>[];
  /** Lower-cased FetchContent name → the Debian package with its whole source tree (`shipped_sources` with `.`). */
  readonly fetchContentSources: ReadonlyMap<string, FetchContentSource>;
  /** What the distribution ships of projects builds download (FetchContent, `git clone`). */
  readonly shippedSources: readonly ShippedSource[];
  /** Lower-cased FetchContent names of test frameworks. */
  readonly testFrameworks: ReadonlySet<string>;
  /** Upper-cased, alphanumeric CMake package names of test frameworks. */
  readonly testPackages: ReadonlySet<string>;
  /** Lower-cased find_package names that are programs. */
  readonly cmakePrograms: ReadonlySet<string>;
  /** Lower-cased words that are never a name in an error's prose. */
  readonly notNames: ReadonlySet<string>;
  /** Autoconf macros newer than a release, by the release that introduced them (lowering AC_PREREQ is unsafe with one). */
  readonly autoconfNewMacros: readonly AutoconfNewMacros[];
}

/** Macros an Autoconf release introduced, with where that is documented. */
export interface AutoconfNewMacros {
  readonly version: string;
  readonly macros: readonly string[];
  readonly source: string;
}

const SECTIONS = [
  'version',
  'autoconf_macros',
  'std_headers',
  'toolchain_libraries',
  'shipped_sources',
  'test_frameworks',
  'test_packages',
  'cmake_programs',
  'not_names',
  'autoconf_new_macros',
] as const;

const WORD = /^[A-Za-z0-9_+.-]+$/;

function fail(where: string, message: string): never {
  throw new ConfigError(`${where}: ${message}`, 'fix the repair tables (verifiers/repairs.yaml)');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(raw: Record<string, unknown>, key: string, where: string): string {
  const value = raw[key];
  if (typeof value !== 'string' || value.length === 0) fail(where, `"${key}" must be a non-empty string`);
  return value;
}

function onlyFields(raw: Record<string, unknown>, fields: readonly string[], where: string): void {
  for (const key of Object.keys(raw)) if (!fields.includes(key)) fail(where, `unknown field "${key}"`);
}

function regex(pattern: string, where: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    return fail(where, `bad pattern: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function packageName(value: unknown, where: string): string {
  if (typeof value !== 'string' || !PACKAGE_NAME.test(value))
    fail(where, `"${String(value)}" is not a package name`);
  return value;
}

function list(doc: Record<string, unknown>, section: string, source: string): unknown[] {
  const value = doc[section];
  if (!Array.isArray(value) || value.length === 0) fail(`${source}: ${section}`, 'must be a non-empty list');
  return value;
}

/** A list of `{<key>: pattern, <field>: …}` mappings, each compiled. */
function patterns<T>(
  doc: Record<string, unknown>,
  section: string,
  key: string,
  field: string,
  source: string,
  read: (raw: Record<string, unknown>, where: string) => T,
): PatternEntry<T>[] {
  return list(doc, section, source).map((raw, i) => {
    const where = `${source}: ${section} #${i + 1}`;
    if (!isRecord(raw)) fail(where, `must be a mapping with "${key}" and "${field}"`);
    onlyFields(raw, [key, field], where);
    return { pattern: regex(text(raw, key, where), where), value: read(raw, where) };
  });
}

/** A list of words, each checked, normalised by `norm`. */
function words(
  doc: Record<string, unknown>,
  section: string,
  source: string,
  norm: (word: string) => string,
): Set<string> {
  return new Set(
    list(doc, section, source).map((word, i) => {
      if (typeof word !== 'string' || !WORD.test(word))
        fail(`${source}: ${section} #${i + 1}`, `"${String(word)}" is not a single word`);
      return norm(word);
    }),
  );
}

/** `autoconf_new_macros`: [{version, macros, source}]. */
function autoconfNewMacros(doc: Record<string, unknown>, source: string): AutoconfNewMacros[] {
  return list(doc, 'autoconf_new_macros', source).map((raw, i) => {
    const where = `${source}: autoconf_new_macros #${i + 1}`;
    if (!isRecord(raw)) fail(where, 'must be a mapping with "version", "macros" and "source"');
    onlyFields(raw, ['version', 'macros', 'source'], where);
    const version = text(raw, 'version', where);
    if (!/^\d+(\.\d+)+$/.test(version)) fail(where, `"version" must look like 2.72, got "${version}"`);
    const macros = raw.macros;
    if (
      !Array.isArray(macros) ||
      macros.length === 0 ||
      macros.some((m) => typeof m !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(m))
    )
      fail(where, '"macros" must be a non-empty list of macro names (AC_FOO)');
    return { version, macros: macros as string[], source: text(raw, 'source', where) };
  });
}

/** A path inside a repository: relative, no `..`, plain characters (it goes into a shell line). */
const REPO_PATH = /^(?:\.|[\w+-][\w.+-]*(?:\/[\w+-][\w.+-]*)*)$/;

function shippedSources(doc: Record<string, unknown>, source: string): ShippedSource[] {
  const section = doc.shipped_sources;
  if (!isRecord(section))
    fail(`${source}: shipped_sources`, 'must map names to {package, names, repositories, tree?}');
  return Object.entries(section).map(([name, raw]): ShippedSource => {
    const where = `${source}: shipped_sources.${name}`;
    if (!/^[a-z0-9][a-z0-9_.-]*$/.test(name)) fail(where, 'the key must be a lower-case word');
    if (!isRecord(raw)) fail(where, 'must be a mapping with "package", "names", "repositories" and "tree"?');
    onlyFields(raw, ['package', 'names', 'repositories', 'tree'], where);
    const list = (field: string, valid: RegExp, what: string): string[] => {
      const value = raw[field];
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !valid.test(v)))
        fail(where, `"${field}" must be a list of ${what}`);
      return (value as string[]).map((v) => v.toLowerCase());
    };
    const tree = raw.tree ?? {};
    if (!isRecord(tree) || (raw.tree !== undefined && Object.keys(tree).length === 0))
      fail(where, '"tree", when given, must map paths in the repository to shipped paths');
    return {
      name,
      package: packageName(raw.package, where),
      names: list('names', WORD, 'names'),
      repositories: list('repositories', /^[\w.-]+(?:\/[\w.-]+){2}$/, 'host/owner/name addresses'),
      tree: Object.entries(tree).map(([at, from]) => {
        if (!REPO_PATH.test(at)) fail(where, `tree path "${at}" must be relative, without ".."`);
        if (typeof from !== 'string' || !/^\/[\w./+-]+$/.test(from) || from.includes('..'))
          fail(where, `tree.${at} must be an absolute path, got "${String(from)}"`);
        return { at, from };
      }),
    };
  });
}

/** FetchContent name → the package and folder of the entries whose package ships the whole tree. */
function fetchContentSources(shipped: readonly ShippedSource[]): Map<string, FetchContentSource> {
  const out = new Map<string, FetchContentSource>();
  for (const entry of shipped) {
    const whole = entry.tree.find((t) => t.at === '.');
    if (whole) for (const name of entry.names) out.set(name, { package: entry.package, dir: whole.from });
  }
  return out;
}

/** Validates a parsed tables document. */
export function validateRepairTables(doc: unknown, source = 'repairs.yaml'): RepairTables {
  if (!isRecord(doc)) fail(source, 'must be a mapping');
  if (doc.version !== 1) fail(source, `unsupported version ${String(doc.version)} (expected 1)`);
  for (const key of Object.keys(doc)) {
    if (!(SECTIONS as readonly string[]).includes(key)) fail(source, `unknown section "${key}"`);
  }
  const lower = (w: string): string => w.toLowerCase();
  const tables: Omit<RepairTables, 'fetchContentSources'> = {
    autoconfMacros: patterns(doc, 'autoconf_macros', 'pattern', 'packages', source, (raw, where) => {
      const packages = raw.packages;
      if (!Array.isArray(packages) || packages.length === 0)
        fail(where, '"packages" must be a non-empty list');
      return packages.map((p) => packageName(p, where));
    }),
    stdHeaders: patterns(doc, 'std_headers', 'symbol', 'header', source, (raw, where) => {
      const header = text(raw, 'header', where);
      if (!/^[\w./+-]+$/.test(header)) fail(where, `"${header}" is not a header name`);
      return header;
    }),
    toolchainLibraries: patterns(doc, 'toolchain_libraries', 'symbol', 'flag', source, (raw, where) => {
      const flag = text(raw, 'flag', where);
      if (!/^(?:-l[\w+.-]+|-pthread)$/.test(flag)) fail(where, `"${flag}" is not -l<library> or -pthread`);
      return flag;
    }),
    shippedSources: shippedSources(doc, source),
    testFrameworks: words(doc, 'test_frameworks', source, lower),
    testPackages: words(doc, 'test_packages', source, (w) => w.replace(/[^A-Za-z0-9]/g, '').toUpperCase()),
    cmakePrograms: words(doc, 'cmake_programs', source, lower),
    notNames: words(doc, 'not_names', source, lower),
    autoconfNewMacros: autoconfNewMacros(doc, source),
  };
  return { ...tables, fetchContentSources: fetchContentSources(tables.shippedSources) };
}

/** Parses and validates the tables' YAML text. */
export function parseRepairTables(text: string, source = 'repairs.yaml'): RepairTables {
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, source);
  } catch (error) {
    fail(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return validateRepairTables(doc, source);
}

/** Reads a tables file (default: the one shipped in `verifiers/`). */
export function loadRepairTables(location: URL | string = DEFAULT_REPAIRS_URL): RepairTables {
  let content: string;
  try {
    content = readFileSync(location, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the repair tables ${String(location)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseRepairTables(content, typeof location === 'string' ? location : location.pathname);
}

let defaultTables: RepairTables | undefined;

/** The shipped tables, loaded once. */
export function defaultRepairTables(): RepairTables {
  return (defaultTables ??= loadRepairTables());
}

/** The value of the first entry whose pattern matches `subject`. */
export function firstMatch<T>(entries: readonly PatternEntry<T>[], subject: string): T | undefined {
  return entries.find((e) => e.pattern.test(subject))?.value;
}
