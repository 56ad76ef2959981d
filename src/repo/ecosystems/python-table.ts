/**
 * The Python package table as data (`verifiers/python-packages.yaml`): PyPI names whose Debian package is
 * not `python3-<name>`, and the first release of a few packages with wheels for the sandbox's interpreter.
 * Loaded once and validated on load like the other catalogs: an error names the file and the entry.
 * Detection (old pins), the deploy setup (Debian fallback) and the repair rules read it.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';

export const DEFAULT_PYTHON_TABLE_URL = new URL('../../../verifiers/python-packages.yaml', import.meta.url);

export interface RuntimePin {
  /** Normalized PyPI name. */
  package: string;
  /** The first release with wheels for `PythonTable.python`. */
  first: string;
  source: string;
}

export interface PythonTable {
  /** The interpreter version the runtime pins are about (Debian's python3). */
  python: string;
  /** Normalized PyPI name → Debian package, or null when Debian does not package it. */
  debian: ReadonlyMap<string, string | null>;
  runtimePins: readonly RuntimePin[];
}

const DEBIAN_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** PEP 503 normalization: lower case, runs of `-`, `_` and `.` as one `-`. */
export function normalizePyName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The Debian package for a PyPI distribution: the table's exception, else the general rule
 * `python3-<normalized name>` (a guess the setup confirms with apt-cache); null when Debian does not package it.
 */
export function debianPackageFor(name: string, table: PythonTable): string | null {
  const key = normalizePyName(name);
  const listed = table.debian.get(key);
  if (listed !== undefined) return listed;
  return `python3-${key.replace(/^python-/, '')}`;
}

function fail(where: string, message: string): never {
  throw new ConfigError(
    `${where}: ${message}`,
    'fix the Python package table (verifiers/python-packages.yaml)',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a parsed table document. */
export function validatePythonTable(doc: unknown, source = 'python-packages.yaml'): PythonTable {
  if (!isRecord(doc)) fail(source, 'the table must be a mapping');
  for (const key of Object.keys(doc)) {
    if (!['version', 'python', 'debian', 'runtime_pins'].includes(key))
      fail(source, `unknown section "${key}"`);
  }
  if (doc.version !== 1) fail(source, `unsupported version ${String(doc.version)} (expected 1)`);
  if (typeof doc.python !== 'string' || !/^\d+\.\d+$/.test(doc.python))
    fail(source, '"python" must be like "3.11"');
  if (!isRecord(doc.debian)) fail(source, '"debian" must map PyPI names to Debian packages');
  const debian = new Map<string, string | null>();
  for (const [name, pkg] of Object.entries(doc.debian)) {
    if (normalizePyName(name) !== name)
      fail(`${source}: debian.${name}`, 'write the normalized (PEP 503) name');
    if (pkg !== null && (typeof pkg !== 'string' || !DEBIAN_NAME.test(pkg))) {
      fail(`${source}: debian.${name}`, 'must be a Debian package name or null');
    }
    debian.set(name, pkg);
  }
  if (!Array.isArray(doc.runtime_pins)) fail(source, '"runtime_pins" must be a list');
  const runtimePins = doc.runtime_pins.map((raw: unknown, i: number): RuntimePin => {
    const where = `${source}: runtime_pins[${i}]`;
    if (!isRecord(raw)) fail(where, 'must be a mapping of package, first, source');
    const { package: pkg, first, source: url } = raw;
    if (typeof pkg !== 'string' || normalizePyName(pkg) !== pkg)
      fail(where, '"package" must be a normalized PyPI name');
    if (typeof first !== 'string' || !/^\d+(\.\d+)*$/.test(first))
      fail(where, '"first" must be a version like 1.23.2');
    if (typeof url !== 'string' || !/^https:\/\//.test(url)) fail(where, '"source" must be an https URL');
    return { package: pkg, first, source: url };
  });
  return { python: doc.python, debian, runtimePins };
}

let cached: PythonTable | undefined;

/** The shipped table, loaded once. */
export function defaultPythonTable(): PythonTable {
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(DEFAULT_PYTHON_TABLE_URL, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the Python package table ${DEFAULT_PYTHON_TABLE_URL.pathname}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (cached = validatePythonTable(
    parseShippedYaml(text, DEFAULT_PYTHON_TABLE_URL),
    DEFAULT_PYTHON_TABLE_URL.pathname,
  ));
}

/** Compares dotted numeric versions (`1.23.2` vs `1.20`); non-numeric parts compare as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The highest version a PEP 440 constraint allows, as far as it says: `<1.20` → `<1.20`, `==1.19.5` →
 * `==1.19.5`, `~=1.19.0` → `<1.20`; undefined when it has no upper bound.
 */
export function upperBound(constraint: string): { version: string; inclusive: boolean } | undefined {
  let best: { version: string; inclusive: boolean } | undefined;
  for (const part of constraint.split(',')) {
    const m = /^\s*(==|<=|<|~=|===)\s*v?([0-9][0-9.]*)(\.\*)?\s*$/.exec(part);
    if (!m) continue;
    const [, op, version] = m as unknown as [string, string, string, string | undefined];
    let bound: { version: string; inclusive: boolean };
    if (op === '~=') {
      const parts = version.split('.');
      parts.pop();
      const last = parts.length - 1;
      parts[last] = String((parseInt(parts[last] ?? '0', 10) || 0) + 1);
      bound = { version: parts.join('.'), inclusive: false };
    } else if (m[3]) {
      const parts = version.split('.');
      parts[parts.length - 1] = String((parseInt(parts[parts.length - 1] ?? '0', 10) || 0) + 1);
      bound = { version: parts.join('.'), inclusive: false };
    } else bound = { version, inclusive: op !== '<' };
    if (!best || compareVersions(bound.version, best.version) < 0) best = bound;
  }
  return best;
}

/** A note when a constraint allows only releases older than the first one with wheels for the table's Python. */
export function oldPinNote(
  name: string,
  constraint: string | undefined,
  table: PythonTable,
): string | undefined {
  if (!constraint) return undefined;
  const pin = table.runtimePins.find((p) => p.package === normalizePyName(name));
  if (!pin) return undefined;
  const bound = upperBound(constraint);
  if (!bound) return undefined;
  const cmp = compareVersions(bound.version, pin.first);
  if (cmp > 0 || (cmp === 0 && bound.inclusive)) return undefined;
  return `${name}${constraint} predates Python ${table.python} (the first ${pin.package} release with wheels for it is ${pin.first}, ${pin.source}): the code was written for an older interpreter; on this one a newer ${pin.package} is needed, with the documented migrations of what it removed`;
}
