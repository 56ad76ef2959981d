/**
 * Python: the manifests a research repository declares its dependencies in — `requirements*.txt` (with
 * `-r` includes, environment markers and extras), `pyproject.toml` (PEP 621 and Poetry), `setup.cfg`,
 * `setup.py` (read as text, never executed), conda's `environment.yml` and `Pipfile` — and the interpreter
 * they pin or the code implies: `python_requires`, a Python 2 `print` statement, a pin older than the first
 * release with wheels for this interpreter (`numpy<1.20`). Runtime hints are said, never acted on here.
 */
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import { defaultPythonTable, oldPinNote, type PythonTable } from './python-table.js';
import { depthOf, dirOf, readManifest } from './manifest-files.js';
import { readTomlManifest, tomlGet, tomlTable, type TomlTable } from './toml.js';

/** Manifests deeper than this are examples or vendored tools, not the paper's environment. */
const MAX_DEPTH = 2;
/** Python files read when looking for Python 2 syntax, and bytes of each. */
const SYNTAX_FILES = 60;
const SYNTAX_BYTES = 128 * 1024;
/** `-r` includes followed at most this deep. */
const MAX_INCLUDE_DEPTH = 5;

const REQUIREMENTS = /(?:^|\/)(?:requirements[^/]*\.txt|requirements\/[^/]+\.txt)$/i;
const DEV_FILE = /(?:dev|test|tests|lint|doc|docs|ci)(?:[-_.]|\.txt$)/i;

/** One requirement line split: name, extras, the constraint as written, and its environment marker. */
export interface Requirement {
  name: string;
  extras: string[];
  constraint?: string;
  marker?: string;
}

/** Parses a PEP 508 requirement (`numpy[extra]>=1.20,<2; python_version >= "3.8"`); undefined for URLs and paths. */
export function parseRequirement(text: string): Requirement | undefined {
  const [spec = '', marker] = text.split(';', 2).map((s) => s.trim());
  if (/^(?:[a-z+]+:\/\/|\.|\/|git\+)/i.test(spec)) return undefined;
  const m =
    /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*(?:\(?\s*([<>=!~^][^;()]*?)\s*\)?)?\s*(?:@.*)?$/.exec(
      spec,
    );
  if (!m) return undefined;
  const constraint = m[3]?.replace(/\s+/g, '');
  return {
    name: m[1]!,
    extras: (m[2] ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
    ...(constraint ? { constraint } : {}),
    ...(marker ? { marker } : {}),
  };
}

/**
 * Whether an environment marker holds on Linux with CPython `python` (`3.11`): the common atoms
 * (python_version, python_full_version, sys_platform, platform_system, os_name, implementation_name)
 * joined by `and`/`or`; an atom it does not know counts as true (installing too much is the safer error).
 */
export function markerHolds(marker: string, python: string): boolean {
  const values: Record<string, string> = {
    python_version: python,
    python_full_version: `${python}.0`,
    sys_platform: 'linux',
    platform_system: 'Linux',
    os_name: 'posix',
    implementation_name: 'cpython',
    platform_python_implementation: 'CPython',
    platform_machine: 'x86_64',
  };
  const atom = (text: string): boolean => {
    const m = /^\(?\s*(\w+)\s*(==|!=|<=|>=|<|>|~=|not in|in)\s*["']([^"']*)["']\s*\)?$/.exec(text.trim());
    if (!m) return true;
    const [, key, op, want] = m as unknown as [string, string, string, string];
    const have = values[key];
    if (have === undefined) return true;
    if (key.startsWith('python')) {
      const c = compareDotted(have, want);
      return (
        { '==': c === 0, '!=': c !== 0, '<=': c <= 0, '>=': c >= 0, '<': c < 0, '>': c > 0, '~=': c >= 0 }[
          op
        ] ?? true
      );
    }
    if (op === '==') return have === want;
    if (op === '!=') return have !== want;
    if (op === 'in') return want.includes(have);
    if (op === 'not in') return !want.includes(have);
    return true;
  };
  return marker.split(/\s+or\s+/).some((any) => any.split(/\s+and\s+/).every(atom));
}

function compareDotted(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** What one manifest contributed. */
interface Found {
  dependencies: DeclaredDependency[];
  notes: string[];
  /** A `python_requires`-like constraint and where it came from. */
  python?: { constraint: string; where: string };
}

function empty(): Found {
  return { dependencies: [], notes: [] };
}

function dependency(req: Requirement, manifest: string, dev = false, optional = false): DeclaredDependency {
  return {
    name: req.name,
    ...(req.constraint ? { constraint: req.constraint } : {}),
    manifest,
    ...(dev ? { dev } : {}),
    ...(optional ? { optional } : {}),
  };
}

/** requirements.txt with its `-r`/`-c` includes (relative to the including file, inside the repository). */
async function readRequirements(
  root: string,
  rel: string,
  table: PythonTable,
  seen: Set<string>,
  depth = 0,
): Promise<Found> {
  const found = empty();
  if (seen.has(rel) || depth > MAX_INCLUDE_DEPTH) return found;
  seen.add(rel);
  const text = await readManifest(root, rel);
  if (text === undefined) {
    found.notes.push(`${rel} could not be read`);
    return found;
  }
  const dev = DEV_FILE.test(path.posix.basename(rel));
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/(?:^|\s)#.*$/, '').trim();
    if (!line) continue;
    const include = /^(?:-r|--requirement|-c|--constraint)\s*=?\s*(\S+)/.exec(line);
    if (include) {
      const target = path.posix.normalize(path.posix.join(dirOf(rel), include[1]!));
      if (target.startsWith('..')) {
        found.notes.push(`${rel}:${i + 1} includes ${include[1]}, outside the repository (not read)`);
        continue;
      }
      if (/^-c|--constraint/.test(line)) {
        found.notes.push(`${rel}:${i + 1} constrains versions through ${target}`);
        continue;
      }
      const inner = await readRequirements(root, target, table, seen, depth + 1);
      found.dependencies.push(...inner.dependencies.map((d) => (dev ? { ...d, dev } : d)));
      found.notes.push(...inner.notes);
      continue;
    }
    if (/^--?(?:index-url|extra-index-url|i|f|find-links|trusted-host)\b/.test(line)) {
      found.notes.push(
        `${rel}:${i + 1} names a package index (${line}); mirrors the user passes take precedence`,
      );
      continue;
    }
    if (line.startsWith('-e ') || line.startsWith('--editable')) {
      found.notes.push(
        `${rel}:${i + 1} installs ${line.replace(/^(-e|--editable)\s*=?\s*/, '')} in editable mode`,
      );
      continue;
    }
    if (line.startsWith('-')) continue;
    const req = parseRequirement(line);
    if (!req) {
      found.notes.push(`${rel}:${i + 1} is a URL or path requirement (${line}), installed by pip only`);
      continue;
    }
    if (req.marker && !markerHolds(req.marker, table.python)) {
      found.notes.push(`${rel}:${i + 1} ${req.name} is skipped here (marker "${req.marker}" does not hold)`);
      continue;
    }
    found.dependencies.push(dependency(req, `${rel}:${i + 1}`, dev));
  }
  return found;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function addRequirements(
  found: Found,
  specs: string[],
  manifest: string,
  table: PythonTable,
  dev = false,
  optional = false,
): void {
  for (const spec of specs) {
    const req = parseRequirement(spec);
    if (!req) continue;
    if (req.marker && !markerHolds(req.marker, table.python)) continue;
    found.dependencies.push(dependency(req, manifest, dev, optional));
  }
}

/** Poetry's `name = "^1.2"` or `{ version = "^1.2", optional = true }` tables. */
function addPoetry(found: Found, deps: TomlTable | undefined, manifest: string, dev: boolean): void {
  for (const [name, spec] of Object.entries(deps ?? {})) {
    const version =
      typeof spec === 'string'
        ? spec
        : typeof spec === 'object' && !Array.isArray(spec)
          ? spec.version
          : undefined;
    const constraint = typeof version === 'string' && version !== '*' ? version : undefined;
    if (name.toLowerCase() === 'python') {
      if (constraint) found.python ??= { constraint, where: `${manifest} (tool.poetry.dependencies.python)` };
      continue;
    }
    const optional = typeof spec === 'object' && !Array.isArray(spec) && spec.optional === true;
    found.dependencies.push({
      name,
      ...(constraint ? { constraint } : {}),
      manifest,
      ...(dev ? { dev } : {}),
      ...(optional ? { optional } : {}),
    });
  }
}

async function readPyproject(root: string, rel: string, table: PythonTable): Promise<Found> {
  const found = empty();
  const doc = await readTomlManifest(root, rel, found.notes);
  if (!doc) return found;
  const project = tomlTable(doc, 'project');
  if (project) {
    addRequirements(found, stringsOf(project.dependencies), `${rel} (project.dependencies)`, table);
    for (const [extra, specs] of Object.entries(tomlTable(project, 'optional-dependencies') ?? {})) {
      const dev = /^(dev|test|tests|lint|docs?)$/i.test(extra);
      addRequirements(
        found,
        stringsOf(specs),
        `${rel} (project.optional-dependencies.${extra})`,
        table,
        dev,
        !dev,
      );
    }
    const requires = project['requires-python'];
    if (typeof requires === 'string')
      found.python = { constraint: requires.replace(/\s+/g, ''), where: `${rel} (project.requires-python)` };
  }
  const poetry = tomlTable(doc, 'tool', 'poetry');
  if (poetry) {
    addPoetry(found, tomlTable(poetry, 'dependencies'), `${rel} (tool.poetry.dependencies)`, false);
    addPoetry(found, tomlTable(poetry, 'dev-dependencies'), `${rel} (tool.poetry.dev-dependencies)`, true);
    for (const [group, body] of Object.entries(tomlTable(poetry, 'group') ?? {})) {
      if (typeof body === 'object' && !Array.isArray(body)) {
        addPoetry(
          found,
          tomlTable(body, 'dependencies'),
          `${rel} (tool.poetry.group.${group})`,
          group !== 'main',
        );
      }
    }
  }
  const build = stringsOf(tomlGet(doc, 'build-system', 'requires'));
  if (build.length > 0) found.notes.push(`${rel} builds with ${build.join(', ')}`);
  return found;
}

/** `setup.cfg` `[options]`: install_requires (indented continuation lines) and python_requires. */
async function readSetupCfg(root: string, rel: string, table: PythonTable): Promise<Found> {
  const found = empty();
  const text = await readManifest(root, rel);
  if (text === undefined) return found;
  let section = '';
  let key = '';
  const values = new Map<string, string[]>();
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]/.exec(raw);
    if (header) {
      section = header[1]!.trim();
      key = '';
      continue;
    }
    if (section !== 'options') continue;
    const kv = /^([A-Za-z_][\w-]*)\s*=\s*(.*)$/.exec(raw);
    if (kv) {
      key = kv[1]!;
      values.set(key, kv[2]!.trim() ? [kv[2]!.trim()] : []);
    } else if (/^\s+\S/.test(raw) && key) values.get(key)?.push(raw.trim());
  }
  const specs = (values.get('install_requires') ?? []).filter((s) => !s.startsWith('#'));
  addRequirements(found, specs, `${rel} ([options] install_requires)`, table);
  const requires = values.get('python_requires')?.[0];
  if (requires)
    found.python = { constraint: requires.replace(/\s+/g, ''), where: `${rel} (python_requires)` };
  return found;
}

/** The string literals of a Python list literal (`['numpy>=1.2', "scipy"]`). */
function stringLiterals(list: string): string[] {
  return [...list.matchAll(/(['"])((?:(?!\1)[^\\\n]|\\.)*)\1/g)].map((m) => m[2]!);
}

/** `setup.py`, read as text: the literal `install_requires=[...]` and `python_requires='...'`. Never executed. */
async function readSetupPy(root: string, rel: string, table: PythonTable): Promise<Found> {
  const found = empty();
  const text = await readManifest(root, rel);
  if (text === undefined) return found;
  const install = /install_requires\s*=\s*\[([^\]]*)\]/.exec(text);
  if (install) addRequirements(found, stringLiterals(install[1]!), `${rel} (install_requires)`, table);
  else if (/install_requires\s*=/.test(text)) {
    found.notes.push(
      `${rel} computes install_requires in code; it is not executed to find out what (read only literal lists)`,
    );
  }
  const requires = /python_requires\s*=\s*(['"])([^'"]+)\1/.exec(text);
  if (requires)
    found.python = { constraint: requires[2]!.replace(/\s+/g, ''), where: `${rel} (python_requires)` };
  return found;
}

/** conda's `name=1.2`, `name>=1.2`, `name 1.2 build`, `channel::name=1.2` → a requirement. */
export function parseCondaSpec(spec: string): Requirement | undefined {
  const bare = spec.replace(/^[\w.-]+::/, '').trim();
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:(==?|>=|<=|<|>|!=)\s*([^\s=]+)|\s+([^\s]+))?/.exec(bare);
  if (!m) return undefined;
  const op = m[2];
  const version = m[3] ?? m[4];
  if (!version) return { name: m[1]!, extras: [] };
  // conda's `=1.2` means 1.2.* ; `==1.2` is exact
  const constraint = op === '=' ? `==${version.replace(/\.\*$/, '')}.*` : `${op ?? '=='}${version}`;
  return { name: m[1]!, extras: [], constraint: constraint.replace('.*.*', '.*') };
}

async function readEnvironmentYml(root: string, rel: string, table: PythonTable): Promise<Found> {
  const found = empty();
  const text = await readManifest(root, rel);
  if (text === undefined) return found;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    found.notes.push(`${rel} is not valid YAML (${error instanceof Error ? error.message : String(error)})`);
    return found;
  }
  const deps = (doc as { dependencies?: unknown })?.dependencies;
  if (!Array.isArray(deps)) return found;
  const notPython: string[] = [];
  for (const entry of deps) {
    if (typeof entry === 'string') {
      const req = parseCondaSpec(entry);
      if (!req) continue;
      if (req.name === 'python') {
        if (req.constraint)
          found.python = { constraint: req.constraint, where: `${rel} (conda dependency python)` };
        continue;
      }
      if (/^(pip|setuptools|wheel)$/.test(req.name)) continue;
      if (/^(r-|cuda|cudatoolkit|cudnn|mkl|libgcc|gcc|gxx|cmake|make|nodejs|openjdk)/.test(req.name)) {
        notPython.push(req.name);
        continue;
      }
      found.dependencies.push(dependency(req, `${rel} (conda)`));
    } else if (entry && typeof entry === 'object' && Array.isArray((entry as { pip?: unknown }).pip)) {
      addRequirements(found, stringsOf((entry as { pip: unknown[] }).pip), `${rel} (pip)`, table);
    }
  }
  if (notPython.length > 0)
    found.notes.push(`${rel} also asks conda for non-Python packages: ${notPython.join(', ')}`);
  found.notes.push(
    `${rel} is a conda environment: its packages are mapped to pip and Debian names (conda itself is not used)`,
  );
  return found;
}

async function readPipfile(root: string, rel: string): Promise<Found> {
  const found = empty();
  const doc = await readTomlManifest(root, rel, found.notes);
  if (!doc) return found;
  for (const [section, dev] of [
    ['packages', false],
    ['dev-packages', true],
  ] as const) {
    for (const [name, spec] of Object.entries(tomlTable(doc, section) ?? {})) {
      const version =
        typeof spec === 'string'
          ? spec
          : typeof spec === 'object' && !Array.isArray(spec)
            ? spec.version
            : undefined;
      const constraint =
        typeof version === 'string' && version !== '*' ? version.replace(/\s+/g, '') : undefined;
      found.dependencies.push({
        name,
        ...(constraint ? { constraint } : {}),
        manifest: `${rel} [${section}]`,
        ...(dev ? { dev } : {}),
      });
    }
  }
  const python = tomlGet(doc, 'requires', 'python_version');
  if (typeof python === 'string')
    found.python = { constraint: `==${python}.*`, where: `${rel} (requires.python_version)` };
  return found;
}

/** A Python 2 statement in the code (`print "x"`, `except E, e:`, `exec "..."`), with where; undefined if none. */
export function python2Evidence(text: string): { line: number; text: string } | undefined {
  const lines = text.split(/\r?\n/);
  let inString = false;
  for (const [i, raw] of lines.entries()) {
    const triples = (raw.match(/"""|'''/g) ?? []).length;
    if (inString) {
      if (triples % 2 === 1) inString = false;
      continue;
    }
    if (triples % 2 === 1) {
      inString = true;
      continue;
    }
    const line = raw.replace(/#.*$/, '');
    if (
      (/^\s*print\s+(?:["'\w>])/.test(line) &&
        !/^\s*print\s+(?:=|\+=|is\b|in\b|and\b|or\b|if\b)/.test(line)) ||
      /^\s*except\s+[\w.]+\s*,\s*\w+\s*:/.test(line) ||
      /^\s*exec\s+["']/.test(line)
    ) {
      return { line: i + 1, text: raw.trim() };
    }
  }
  return undefined;
}

async function findPython2(root: string, files: readonly string[]): Promise<string | undefined> {
  const sources = files.filter((f) => f.endsWith('.py') && depthOf(f) <= 3).slice(0, SYNTAX_FILES);
  for (const file of sources) {
    const text = await readManifest(root, file, SYNTAX_BYTES);
    const hit = text === undefined ? undefined : python2Evidence(text);
    if (hit) return `${file}:${hit.line} is Python 2 (${hit.text.slice(0, 60)})`;
  }
  return undefined;
}

/** The manifests this detector reads, most authoritative first. */
function manifestsIn(files: readonly string[]): { file: string; read: typeof readPyproject }[] {
  const shallow = files.filter((f) => depthOf(f) <= MAX_DEPTH);
  const byName = (re: RegExp, read: typeof readPyproject) =>
    shallow.filter((f) => re.test(f)).map((file) => ({ file, read }));
  const rank = (f: string) => depthOf(f);
  return [
    ...byName(/(?:^|\/)pyproject\.toml$/, readPyproject),
    ...byName(/(?:^|\/)Pipfile$/, readPipfile),
    ...byName(/(?:^|\/)environment\.ya?ml$/, readEnvironmentYml),
    ...byName(/(?:^|\/)setup\.cfg$/, readSetupCfg),
    ...byName(/(?:^|\/)setup\.py$/, readSetupPy),
  ].sort((a, b) => rank(a.file) - rank(b.file));
}

/** Structurally an `EcosystemDetector` (index.ts), which lists it; not imported from there to keep files acyclic. */
/** `requirements.txt` first, then the other requirement files, shallow before deep. */
function requirementRank(file: string): number {
  return depthOf(file) * 2 + (/(?:^|\/)requirements\.txt$/i.test(file) ? 0 : 1);
}

export const pythonDetector = {
  kind: 'python' as const,
  async detect(root: string, files: readonly string[]): Promise<EcosystemInfo | undefined> {
    const table = defaultPythonTable();
    const requirementFiles = files
      .filter((f) => depthOf(f) <= MAX_DEPTH && REQUIREMENTS.test(f))
      .sort((a, b) => requirementRank(a) - requirementRank(b) || a.localeCompare(b));
    const others = manifestsIn(files);
    const pySources = files.filter((f) => f.endsWith('.py')).length;
    if (requirementFiles.length === 0 && others.length === 0 && pySources === 0) return undefined;

    const info: EcosystemInfo = { kind: 'python', manifests: [], dependencies: [], notes: [] };
    const seen = new Set<string>();
    let python: Found['python'];
    const add = (found: Found, file: string) => {
      info.manifests.push(file);
      info.notes.push(...found.notes);
      python ??= found.python;
      for (const dep of found.dependencies) {
        if (
          !info.dependencies.some((d) => d.name.toLowerCase() === dep.name.toLowerCase() && d.dev === dep.dev)
        )
          info.dependencies.push(dep);
      }
    };
    for (const file of requirementFiles) {
      if (seen.has(file)) continue; // already read as another file's -r include
      add(await readRequirements(root, file, table, seen), file);
    }
    for (const { file, read } of others) add(await read(root, file, table), file);

    const python2 = await findPython2(root, files);
    if (python2) {
      info.runtime = {
        name: 'python',
        version: '2',
        why: `${python2}; Debian bookworm has no Python 2: the code must be ported (e.g. 2to3), which is not done automatically`,
      };
    } else if (python) {
      info.runtime = {
        name: 'python',
        version: python.constraint,
        why: `${python.where} asks for Python ${python.constraint}; the sandbox has Debian's python3 (${table.python})`,
      };
    } else if (info.manifests.length > 0 || pySources > 0) {
      info.runtime = {
        name: 'python',
        version: '3',
        why: `no interpreter pin; Debian's python3 (${table.python})`,
      };
    }
    for (const dep of info.dependencies) {
      const note = oldPinNote(dep.name, dep.constraint, table);
      if (note) info.notes.push(`${dep.manifest}: ${note}`);
    }
    if (info.manifests.length === 0)
      info.notes.push(`${pySources} Python file(s) and no manifest: the imports are all there is to go by`);
    return info;
  },
};
