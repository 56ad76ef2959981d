/**
 * The CMake commands that are not control flow, as a table from the lower-cased name to a handler over
 * the explicit `Scope`: variables (set, list, string, option, project, …), targets (add_executable,
 * add_library and their Qt/CUDA variants), target properties and add_subdirectory(). A command that
 * computes something inspection does not evaluate makes its output variable unknown.
 */

import { dirOf, joinRel } from '../../paths.js';
import type { TargetKind } from '../../types.js';
import { evalCondition } from './condition.js';
import type { CMakeArg, CMakeCommand } from './lexer.js';
import {
  assign,
  assignTo,
  assignUnknown,
  branchState,
  expand,
  expandAll,
  isWord,
  repoPathOf,
  type RawTarget,
  type Scope,
  setProperty,
  SOURCE_ROOT,
  sourcePath,
} from './scope.js';

export type Command = (cmd: CMakeCommand, scope: Scope) => void;

const set: Command = ({ args }, scope) => {
  const varName = expand(scope, args[0]).text;
  const values: CMakeArg[] = [];
  let mode = '';
  for (const a of args.slice(1)) {
    if (isWord(a, 'CACHE', 'PARENT_SCOPE')) {
      mode = a.value;
      break;
    }
    values.push(a);
  }
  const value = values.length === 0 ? undefined : expandAll(scope, values).join(';');
  if (mode === 'PARENT_SCOPE') {
    const parent = scope.parents[scope.parents.length - 1];
    if (parent) assignTo(scope, parent, varName, value);
    return;
  }
  if (mode === 'CACHE' && scope.vars.has(varName)) return;
  assign(scope, varName, value);
};

const unset: Command = ({ args }, scope) => assign(scope, expand(scope, args[0]).text, undefined);

/** The one property whose value on Linux is known and gates shared libraries (curl and others). */
const getProperty: Command = ({ args }, scope) => {
  const out = expand(scope, args[0]).text;
  if (args.some((a) => a.value === 'TARGET_SUPPORTS_SHARED_LIBS')) assign(scope, out, 'TRUE');
  else assign(scope, out, undefined);
};

const getFilenameComponent: Command = ({ args }, scope) => {
  const out = expand(scope, args[0]).text;
  const input = expand(scope, args[1]);
  const mode = expand(scope, args[2]).text;
  const base = input.text.slice(input.text.lastIndexOf('/') + 1);
  let v: string | undefined;
  if (input.unresolved) v = undefined;
  else if (mode === 'NAME') v = base;
  else if (mode === 'NAME_WE') v = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  else if (mode === 'NAME_WLE') v = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  else if (mode === 'DIRECTORY' || mode === 'PATH')
    v = input.text.slice(0, Math.max(0, input.text.lastIndexOf('/')));
  if (v === undefined) assignUnknown(scope, out);
  else assign(scope, out, v);
};

const list: Command = ({ args }, scope) => {
  const op = expand(scope, args[0]).text.toUpperCase();
  const listName = expand(scope, args[1]).text;
  const current = (scope.vars.get(listName) ?? '').split(';').filter((x) => x !== '');
  const items = expandAll(scope, args.slice(2));
  if (op === 'APPEND') scope.vars.set(listName, [...current, ...items].join(';'));
  else if (op === 'PREPEND') scope.vars.set(listName, [...items, ...current].join(';'));
  else if (op === 'REMOVE_ITEM')
    scope.vars.set(listName, current.filter((x) => !items.includes(x)).join(';'));
};

/** Where string(<op> …) puts its output, for the forms inspection does not compute (-1: none). */
const STRING_OUTPUT_AT: Readonly<Record<string, number>> = {
  REPLACE: 3,
  CONCAT: 1,
  JOIN: 2,
  STRIP: 2,
  LENGTH: 2,
  SUBSTRING: 4,
  MD5: 1,
  SHA1: 1,
  SHA256: 1,
  TIMESTAMP: 1,
  RANDOM: -1,
  MAKE_C_IDENTIFIER: 2,
  GENEX_STRIP: 2,
  REPEAT: 3,
};

const string: Command = ({ args }, scope) => {
  const op = expand(scope, args[0]).text.toUpperCase();
  if (op === 'TOLOWER' || op === 'TOUPPER') {
    const input = expand(scope, args[1]);
    const out = expand(scope, args[2]).text;
    if (input.unresolved) assignUnknown(scope, out);
    else assign(scope, out, op === 'TOLOWER' ? input.text.toLowerCase() : input.text.toUpperCase());
    return;
  }
  if (op === 'APPEND' || op === 'PREPEND') {
    const out = expand(scope, args[1]).text;
    const current = scope.vars.get(out) ?? '';
    const more = expandAll(scope, args.slice(2)).join('');
    assign(scope, out, op === 'APPEND' ? current + more : more + current);
    return;
  }
  // Other forms compute values inspection does not: their output variable becomes unknown.
  let at = Object.hasOwn(STRING_OUTPUT_AT, op) ? STRING_OUTPUT_AT[op] : undefined;
  if (op === 'REGEX') at = expand(scope, args[1]).text.toUpperCase() === 'REPLACE' ? 4 : 3;
  if (at !== undefined && at >= 0) {
    const out = expand(scope, args[at]).text;
    if (out !== '') assignUnknown(scope, out);
  }
};

/** file() forms with an output variable: the second word, or the third for these. */
const FILE_OUTPUT_SECOND = ['GLOB', 'GLOB_RECURSE', 'RELATIVE_PATH', 'TO_CMAKE_PATH', 'TO_NATIVE_PATH'];
const FILE_OUTPUT_THIRD = ['STRINGS', 'READ', 'SIZE', 'REAL_PATH', 'MD5', 'SHA256'];

/** The output variable of math(EXPR out …), cmake_path(GET path STEM out), file(GLOB out …), file(READ f out), … */
function computedOutput(name: string, words: readonly string[]): string | undefined {
  if (name === 'math') return words[1];
  if (name === 'cmake_path') return words[words.length - 1];
  const form = words[0] ?? '';
  if (FILE_OUTPUT_THIRD.includes(form)) return words[2];
  return FILE_OUTPUT_SECOND.includes(form) ? words[1] : undefined;
}

const computed: Command = ({ name, args }, scope) => {
  const out = computedOutput(name, expandAll(scope, args));
  if (out !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(out)) assignUnknown(scope, out);
};

const option: Command = ({ args }, scope) => {
  const varName = expand(scope, args[0]).text;
  if (!scope.vars.has(varName))
    assign(scope, varName, args[2] !== undefined ? expand(scope, args[2]).text : 'OFF');
};

const project: Command = ({ args }, scope) => {
  const { vars, build } = scope;
  const projectName = expand(scope, args[0]).text;
  if (projectName === '') return;
  const top = !build.sawTopProject;
  build.sawTopProject = true;
  vars.set('PROJECT_NAME', projectName);
  vars.set('PROJECT_SOURCE_DIR', sourcePath(scope.dir));
  vars.set(`${projectName}_SOURCE_DIR`, sourcePath(scope.dir));
  if (!vars.has('CMAKE_PROJECT_NAME')) vars.set('CMAKE_PROJECT_NAME', projectName);
  vars.set('PROJECT_IS_TOP_LEVEL', top ? 'ON' : 'OFF');
  vars.set(`${projectName}_IS_TOP_LEVEL`, top ? 'ON' : 'OFF');
  const versionAt = args.findIndex((a) => isWord(a, 'VERSION'));
  const version = versionAt >= 0 ? expand(scope, args[versionAt + 1]).text : undefined;
  if (version !== undefined && /^\d/.test(version)) {
    vars.set('PROJECT_VERSION', version);
    vars.set(`${projectName}_VERSION`, version);
    const [major, minor, patch] = version.split('.');
    if (major !== undefined) vars.set('PROJECT_VERSION_MAJOR', major);
    if (minor !== undefined) vars.set('PROJECT_VERSION_MINOR', minor);
    if (patch !== undefined) vars.set('PROJECT_VERSION_PATCH', patch);
  }
};

/** Records the directory with this scope's variables; it is read when the walk reaches it. */
const addSubdirectory: Command = ({ args }, scope) => {
  const s = branchState(scope);
  const sub = expand(scope, args[0]);
  if (sub.unresolved || sub.text === '') return;
  const target = repoPathOf(sub.text, scope.dir);
  if (target === undefined) return;
  const excluded = args.slice(1).some((a) => isWord(a, 'EXCLUDE_FROM_ALL'));
  const previous = scope.build.subdirs.get(target);
  // A directory added twice (in if/else branches) keeps the most built-looking record.
  if (previous && (previous.state === 'on' || (previous.state === 'unknown' && s === 'off'))) return;
  scope.build.subdirs.set(target, {
    vars: new Map(scope.vars),
    state: s,
    excluded: scope.dirExcluded || excluded,
  });
};

const setTargetProperties: Command = ({ args }, scope) => {
  const at = args.findIndex((a) => isWord(a, 'PROPERTIES'));
  if (at < 0 || branchState(scope) === 'off') return;
  const targets = expandAll(scope, args.slice(0, at));
  const pairs = args.slice(at + 1);
  for (let p = 0; p + 1 < pairs.length; p += 2) {
    const key = expand(scope, pairs[p]).text;
    const value = expand(scope, pairs[p + 1]);
    for (const t of targets) setProperty(scope.build, t, key, value.text, value.unresolved);
  }
};

const setTargetProperty: Command = ({ args }, scope) => {
  if (!isWord(args[0], 'TARGET') || branchState(scope) === 'off') return;
  const at = args.findIndex((a) => isWord(a, 'PROPERTY'));
  if (at < 0) return;
  const targets = expandAll(scope, args.slice(1, at)).filter((t) => t !== 'APPEND' && t !== 'APPEND_STRING');
  const key = expand(scope, args[at + 1]).text;
  const value = args.slice(at + 2).map((a) => expand(scope, a));
  const text = value.map((v) => v.text).join(';');
  const unresolved = value.some((v) => v.unresolved);
  for (const t of targets) setProperty(scope.build, t, key, text, unresolved);
};

const LIBRARY_TYPES = new Set(['STATIC', 'SHARED', 'MODULE', 'OBJECT', 'INTERFACE', 'UNKNOWN']);
const EXECUTABLE_COMMANDS = [
  'add_executable',
  'cuda_add_executable',
  'qt_add_executable',
  'qt6_add_executable',
];
const LIBRARY_COMMANDS = ['add_library', 'cuda_add_library', 'qt_add_library', 'qt6_add_library'];

/** The kind of an add_library(); undefined for libraries that are not products (OBJECT, placeholders, …). */
function libraryKind(
  scope: Scope,
  flags: ReadonlySet<string>,
  args: readonly CMakeArg[],
): { kind: TargetKind; defaultKind?: RawTarget['defaultKind'] } | undefined {
  const type = [...flags].find((f) => LIBRARY_TYPES.has(f));
  if (type === 'OBJECT' || type === 'INTERFACE' || type === 'UNKNOWN') return undefined;
  if (type === 'STATIC') return { kind: 'static_library' };
  if (type === 'SHARED') return { kind: 'shared_library' };
  if (type === 'MODULE') return { kind: 'module' };
  // An add_library() with no type and no sources is a placeholder, not a product.
  if (args.length === 1) return undefined;
  const shared = scope.vars.has('BUILD_SHARED_LIBS')
    ? evalCondition([{ value: 'BUILD_SHARED_LIBS', quoted: false }], scope.vars)
    : 'off';
  return {
    kind: shared === 'on' ? 'shared_library' : 'static_library',
    defaultKind: shared === 'on' ? 'shared' : shared === 'off' ? 'static' : 'unknown',
  };
}

/** The directory of a target's first C-family source, relative to the repository root. */
function sourceDirOf(scope: Scope, args: readonly CMakeArg[]): string {
  const firstSource = expandAll(scope, args.slice(1)).find((a) =>
    /\.(?:c|cc|cpp|cxx|c\+\+|cu|m|mm)$/i.test(a),
  );
  if (firstSource === undefined || firstSource.includes('$')) return scope.dir;
  return firstSource.startsWith(`${SOURCE_ROOT}/`)
    ? dirOf(firstSource.slice(SOURCE_ROOT.length + 1))
    : joinRel(scope.dir, dirOf(firstSource));
}

/** add_executable() / add_library() and their variants; runs in off branches too (the target is `excluded`). */
const addTarget: Command = (cmd, scope) => {
  const { name, args } = cmd;
  const logical = expand(scope, args[0]);
  if (logical.text === '') return;
  const flags = new Set(expandAll(scope, args.slice(1)));
  if (flags.has('IMPORTED') || flags.has('ALIAS')) return;
  const kind: ReturnType<typeof libraryKind> = LIBRARY_COMMANDS.includes(name)
    ? libraryKind(scope, flags, args)
    : { kind: 'executable' };
  if (kind === undefined) return;
  scope.build.targetNames.add(logical.text);
  scope.build.raw.push({
    sourceDir: sourceDirOf(scope, args),
    logical: logical.text,
    kind: kind.kind,
    defaultKind: kind.defaultKind,
    file: scope.file,
    dir: scope.dir,
    line: cmd.line,
    state: branchState(scope),
    excludedFromAll: scope.dirExcluded || flags.has('EXCLUDE_FROM_ALL'),
    unresolved: logical.unresolved,
  });
};

/** Commands that are not control flow (include() is in the interpreter: it runs other files). */
export const COMMANDS: Readonly<Record<string, Command>> = {
  set,
  unset,
  get_property: getProperty,
  get_filename_component: getFilenameComponent,
  list,
  string,
  math: computed,
  cmake_path: computed,
  file: computed,
  option,
  cmake_dependent_option: option,
  project,
  add_subdirectory: addSubdirectory,
  set_target_properties: setTargetProperties,
  set_property: setTargetProperty,
  ...Object.fromEntries([...EXECUTABLE_COMMANDS, ...LIBRARY_COMMANDS].map((n) => [n, addTarget])),
};

/** Commands that still run in a branch that is off: what they define is reported as excluded. */
export const RUNS_WHEN_OFF: ReadonlySet<string> = new Set([
  ...EXECUTABLE_COMMANDS,
  ...LIBRARY_COMMANDS,
  'add_subdirectory',
]);
