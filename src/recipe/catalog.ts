/**
 * The per-build-system recipes are DATA (`src/recipe/catalog.yaml`: tools, build directory and step
 * templates per build-system kind), validated here on load with errors naming the file and the entry, and
 * turned into a `Recipe` for each detected build system. The one choice a system needs (autotools: generate
 * `configure` with the autogen script, with autoreconf, or not at all) is written as step conditions on
 * inspection's details, so no system needs code of its own; direct compilation, which depends on the
 * repository's sources rather than on a build system, is `direct.ts`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseShippedYaml } from '../base/shipped-yaml.js';
import { ConfigError } from '../base/errors.js';
import { inDir, shq } from '../base/shell.js';
import type { BuildSystem, BuildSystemKind, RepoInfo } from '../repo/types.js';
import { directCompileRecipe } from './direct.js';
import { STEP_PURPOSES, type Recipe, type RecipeStep, type StepPurpose, type ToolNeed } from './model.js';

/**
 * The shipped catalog. Resolved against this module so that it works from `src/recipe/` (tsx, jest) and
 * from the compiled `lib/recipe/` alike: both are two levels below the repository root.
 */
export const DEFAULT_CATALOG_URL = new URL('../../src/recipe/catalog.yaml', import.meta.url);

/** Every build-system kind (the Record makes the compiler check the list against BuildSystemKind). */
const KINDS: Record<BuildSystemKind, true> = {
  cmake: true,
  autotools: true,
  configure: true,
  make: true,
  meson: true,
  qmake: true,
  scons: true,
  bazel: true,
  cargo: true,
  'setup.py': true,
  script: true,
  msbuild: true,
  xcode: true,
};

/** One step template of a catalog entry. */
export interface StepTemplate {
  purpose: StepPurpose;
  command: string;
  /** Run from the repository root instead of the system's directory. */
  atRoot: boolean;
  /** Detail names that must be set / unset for the step to apply. */
  if: string[];
  unless: string[];
}

/** One build system's recipe template. */
export interface CatalogEntry {
  kind: BuildSystemKind;
  id: string;
  label: string;
  tools: ToolNeed[];
  /** Out-of-tree build directory name, relative to the system's directory. */
  buildDir?: string;
  steps: StepTemplate[];
}

export interface RecipeCatalog {
  readonly version: number;
  readonly entries: ReadonlyMap<BuildSystemKind, CatalogEntry>;
}

const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const NAME_VARS = new Set(['kind', 'dir', 'file', 'where']);
const COMMAND_VARS = new Set(['src', 'build', 'basename', 'autogen', 'jobs']);
/** Command placeholders that come from a string detail of the build system (the step is skipped without it). */
const DETAIL_VARS: Record<string, string> = { autogen: 'hasAutogen' };
const JOBS = '-j"${BB_JOBS:-$(nproc)}"';
const STEP_KEYS = new Set([...STEP_PURPOSES, 'in', 'if', 'unless']);
const ENTRY_KEYS = new Set(['id', 'label', 'tools', 'buildDir', 'steps']);

type Fail = (where: string, message: string) => never;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, where: string, fail: Fail): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== ''))
    fail(where, 'expected a list of names');
  return value as string[];
}

function checkPlaceholders(text: string, allowed: ReadonlySet<string>, where: string, fail: Fail): void {
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (!allowed.has(match[1]!))
      fail(where, `unknown placeholder {{${match[1]}}} (known: ${[...allowed].join(', ')})`);
  }
}

function parseStep(raw: unknown, where: string, buildDir: string | undefined, fail: Fail): StepTemplate {
  if (!isObject(raw)) fail(where, 'expected a mapping like {build: "make {{jobs}}"}');
  for (const key of Object.keys(raw)) if (!STEP_KEYS.has(key)) fail(where, `unknown key '${key}'`);
  const purposes = STEP_PURPOSES.filter((p) => p in raw);
  if (purposes.length !== 1)
    fail(where, `expected exactly one of ${STEP_PURPOSES.join(', ')} as the step's purpose`);
  const purpose = purposes[0]!;
  const command = raw[purpose];
  if (typeof command !== 'string' || command.trim() === '') fail(where, `${purpose}: expected a command`);
  const allowed = new Set(COMMAND_VARS);
  if (buildDir === undefined) allowed.delete('build');
  checkPlaceholders(command, allowed, `${where}.${purpose}`, fail);
  if (raw.in !== undefined && raw.in !== 'root') fail(where, `in: expected 'root'`);
  return {
    purpose,
    command,
    atRoot: raw.in === 'root',
    if: stringList(raw.if, `${where}.if`, fail),
    unless: stringList(raw.unless, `${where}.unless`, fail),
  };
}

function parseEntry(
  kind: BuildSystemKind,
  raw: unknown,
  tools: ReadonlyMap<string, string>,
  fail: Fail,
): CatalogEntry {
  const where = `systems.${kind}`;
  if (!isObject(raw)) fail(where, 'expected a mapping');
  for (const key of Object.keys(raw)) if (!ENTRY_KEYS.has(key)) fail(where, `unknown key '${key}'`);
  const id = raw.id ?? '{{kind}}:{{dir}}';
  if (typeof id !== 'string' || id === '') fail(`${where}.id`, 'expected a template');
  if (typeof raw.label !== 'string' || raw.label === '') fail(`${where}.label`, 'expected a template');
  checkPlaceholders(id, NAME_VARS, `${where}.id`, fail);
  checkPlaceholders(raw.label, NAME_VARS, `${where}.label`, fail);
  const needs = stringList(raw.tools, `${where}.tools`, fail).map((command): ToolNeed => {
    const pkg = tools.get(command);
    if (pkg === undefined) fail(`${where}.tools`, `'${command}' is not in the top-level tools table`);
    return { command, pkg };
  });
  const buildDir = raw.buildDir;
  if (buildDir !== undefined && (typeof buildDir !== 'string' || !/^[\w.-]+$/.test(buildDir)))
    fail(`${where}.buildDir`, 'expected a directory name');
  if (!Array.isArray(raw.steps) || raw.steps.length === 0) fail(`${where}.steps`, 'expected a list of steps');
  const steps = raw.steps.map((s, i) => parseStep(s, `${where}.steps[${i}]`, buildDir, fail));
  return { kind, id, label: raw.label, tools: needs, buildDir, steps };
}

/** Parses and validates a catalog; `source` names the file in errors. */
export function parseCatalog(text: string, source: string): RecipeCatalog {
  const fail: Fail = (where, message) => {
    throw new ConfigError(
      `${source}: ${where}: ${message}`,
      'fix the recipe catalog (src/recipe/catalog.yaml)',
    );
  };
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, source);
  } catch (error) {
    fail('YAML', error instanceof Error ? error.message : String(error));
  }
  if (!isObject(doc)) fail('top level', 'expected a mapping with version, tools and systems');
  if (doc.version !== 1) fail('version', 'expected 1');
  if (!isObject(doc.tools)) fail('tools', 'expected a mapping of command to package(s)');
  const tools = new Map<string, string>();
  for (const [command, pkg] of Object.entries(doc.tools)) {
    if (typeof pkg !== 'string' || pkg.trim() === '') fail(`tools.${command}`, 'expected package name(s)');
    tools.set(command, pkg);
  }
  if (!isObject(doc.systems)) fail('systems', 'expected a mapping of build-system kind to recipe');
  const entries = new Map<BuildSystemKind, CatalogEntry>();
  for (const [kind, raw] of Object.entries(doc.systems)) {
    if (!(kind in KINDS))
      fail(`systems.${kind}`, `not a build-system kind (${Object.keys(KINDS).join(', ')})`);
    entries.set(kind as BuildSystemKind, parseEntry(kind as BuildSystemKind, raw, tools, fail));
  }
  return { version: 1, entries };
}

const cache = new Map<string, RecipeCatalog>();

/** The catalog at `url` (default: the shipped one), read and validated once. */
export function loadCatalog(url: URL | string = DEFAULT_CATALOG_URL): RecipeCatalog {
  const key = String(url);
  const hit = cache.get(key);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the recipe catalog ${key}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const catalog = parseCatalog(text, typeof url === 'string' ? url : url.pathname);
  cache.set(key, catalog);
  return catalog;
}

function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => vars[name] ?? '');
}

function detailSet(system: BuildSystem, name: string): boolean {
  const value = system.details[name];
  return value === true || (typeof value === 'string' && value !== '');
}

/** The steps of `entry` that apply to `system`: conditions met, the first one of each purpose group. */
function stepsFor(entry: CatalogEntry, system: BuildSystem, vars: Record<string, string>): RecipeStep[] {
  const steps: RecipeStep[] = [];
  let previous: StepTemplate | undefined;
  let taken = false;
  for (const step of entry.steps) {
    if (!previous || previous.purpose !== step.purpose) taken = false;
    previous = step;
    if (taken) continue;
    const details = [...step.command.matchAll(PLACEHOLDER)].map((m) => DETAIL_VARS[m[1]!]).filter(Boolean);
    const applies =
      step.if.every((d) => detailSet(system, d)) &&
      !step.unless.some((d) => detailSet(system, d)) &&
      details.every((d) => typeof system.details[d!] === 'string');
    if (!applies) continue;
    taken = true;
    const command = fill(step.command, vars);
    steps.push({ purpose: step.purpose, command: step.atRoot ? command : inDir(system.dir, command) });
  }
  return steps;
}

/** The recipe for one detected build system, or undefined when the catalog has none for Linux. */
export function recipeFor(system: BuildSystem, catalog: RecipeCatalog = loadCatalog()): Recipe | undefined {
  const entry = catalog.entries.get(system.kind);
  if (!entry) return undefined;
  const dir = system.dir;
  const buildDir =
    entry.buildDir === undefined ? undefined : dir === '' ? entry.buildDir : `${dir}/${entry.buildDir}`;
  const names = { kind: system.kind, dir, file: system.file, where: dir === '' ? '' : ` (${dir}/)` };
  const autogen = system.details.hasAutogen;
  const commandVars: Record<string, string> = {
    src: shq(dir || '.'),
    build: buildDir === undefined ? '' : shq(buildDir),
    basename: shq(path.posix.basename(system.file)),
    autogen: typeof autogen === 'string' ? shq(autogen) : '',
    jobs: JOBS,
  };
  return {
    id: fill(entry.id, names),
    system: system.kind,
    ...(buildDir === undefined ? {} : { buildDir }),
    label: fill(entry.label, names),
    evidence: `${system.file} found`,
    dir,
    tools: entry.tools.map((t) => ({ ...t })),
    steps: stepsFor(entry, system, commandVars),
  };
}

/** Recipes in order of evidence: every Linux build system inspection found, then direct compilation. */
export function candidateRecipes(repo: RepoInfo, catalog: RecipeCatalog = loadCatalog()): Recipe[] {
  const recipes: Recipe[] = [];
  const ids = new Set<string>();
  // A script that deploys or waits (scp/ssh/rsync, sleep loops) is not a build when a real build system is there.
  const realBuild = repo.buildSystems.some((s) => s.linux && s.kind !== 'script');
  for (const system of repo.buildSystems) {
    if (realBuild && system.kind === 'script' && system.details.deploys) continue;
    const recipe = recipeFor(system, catalog);
    if (recipe && !ids.has(recipe.id)) {
      ids.add(recipe.id);
      recipes.push(recipe);
    }
  }
  const direct = directCompileRecipe(repo);
  if (direct && (recipes.length === 0 || repo.buildSystems.every((s) => !s.linux))) recipes.push(direct);
  return recipes;
}
