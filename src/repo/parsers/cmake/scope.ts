/**
 * The interpreter's state, passed explicitly: `Build` is what the whole tree shares (targets, properties,
 * user commands, the command budget), `Scope` is one directory's run (its variables, the if() stack, the
 * callers of the running function()). The helpers here read and write that state the way CMake would.
 */

import { ancestorsOf, joinRel } from '../../paths.js';
import type { TargetKind } from '../../types.js';
import { and, type Tri } from './condition.js';
import { expandCMake, MAX_VALUE_LENGTH, type Vars } from './expand.js';
import type { CMakeArg, CMakeCommand } from './lexer.js';

/** Variables CMake defines on Linux before reading CMakeLists.txt. */
export const LINUX_DEFAULTS: Readonly<Record<string, string>> = {
  UNIX: 'ON',
  LINUX: 'ON',
  CMAKE_HOST_UNIX: 'ON',
  CMAKE_HOST_LINUX: 'ON',
  WIN32: 'OFF',
  WINCE: 'OFF',
  WINDOWS_PHONE: 'OFF',
  WINDOWS_STORE: 'OFF',
  CMAKE_HOST_WIN32: 'OFF',
  APPLE: 'OFF',
  CMAKE_HOST_APPLE: 'OFF',
  IOS: 'OFF',
  ANDROID: 'OFF',
  MSVC: 'OFF',
  MSVC_IDE: 'OFF',
  MINGW: 'OFF',
  CYGWIN: 'OFF',
  MSYS: 'OFF',
  BORLAND: 'OFF',
  WATCOM: 'OFF',
  XCODE: 'OFF',
  EMSCRIPTEN: 'OFF',
  CMAKE_CROSSCOMPILING: 'OFF',
  // Other platforms' flags, so that `if(DOS)` or `elseif(HAIKU)` reads as off rather than unknown.
  DOS: 'OFF',
  AMIGA: 'OFF',
  HAIKU: 'OFF',
  BEOS: 'OFF',
  AIX: 'OFF',
  SOLARIS: 'OFF',
  BSD: 'OFF',
  // The sandboxes build with GCC.
  CMAKE_C_COMPILER_ID: 'GNU',
  CMAKE_CXX_COMPILER_ID: 'GNU',
  CMAKE_COMPILER_IS_GNUCC: 'TRUE',
  CMAKE_COMPILER_IS_GNUCXX: 'TRUE',
  CMAKE_BUILD_TYPE: '',
  CMAKE_SYSTEM_NAME: 'Linux',
  CMAKE_HOST_SYSTEM_NAME: 'Linux',
  CMAKE_EXECUTABLE_SUFFIX: '',
  CMAKE_SHARED_LIBRARY_PREFIX: 'lib',
  CMAKE_SHARED_LIBRARY_SUFFIX: '.so',
  CMAKE_SHARED_MODULE_PREFIX: 'lib',
  CMAKE_SHARED_MODULE_SUFFIX: '.so',
  CMAKE_STATIC_LIBRARY_PREFIX: 'lib',
  CMAKE_STATIC_LIBRARY_SUFFIX: '.a',
};

/** Commands run at most, across all files and function calls: keeps pathological trees fast. */
export const COMMAND_BUDGET = 200_000;
export const MAX_CALL_DEPTH = 12;

/** A CMake directory path as CMake would see it, under a fake absolute root. */
export const SOURCE_ROOT = '/@src';
export const sourcePath = (dir: string): string => (dir === '' ? SOURCE_ROOT : `${SOURCE_ROOT}/${dir}`);

/** A path under SOURCE_ROOT or relative to `base` as a repository path; undefined for other absolute paths. */
export function repoPathOf(p: string, base: string): string | undefined {
  if (p === SOURCE_ROOT || p.startsWith(`${SOURCE_ROOT}/`)) return joinRel('', p.slice(SOURCE_ROOT.length));
  return p.startsWith('/') ? undefined : joinRel(base, p);
}

export interface RawTarget {
  logical: string;
  kind: TargetKind;
  /** add_library without STATIC/SHARED/MODULE. */
  defaultKind: 'static' | 'shared' | 'unknown' | undefined;
  file: string;
  dir: string;
  line: number;
  state: Tri;
  excludedFromAll: boolean;
  unresolved: boolean;
  /** Directory of the first source file, relative to the repository root. */
  sourceDir: string;
}

/** A directory's variables, branch state and exclusion, as handed down by add_subdirectory() or its end. */
export interface SubdirRecord {
  vars: Vars;
  state: Tri;
  excluded: boolean;
}

/** One if() block: whether the branch running now is on, and whether an earlier branch was taken. */
export interface Frame {
  branch: Tri;
  taken: Tri;
}

export interface UserCommand {
  params: string[];
  body: CMakeCommand[];
  macro: boolean;
}

/** What all directories of one build share. */
export interface Build {
  /** Other CMake files (path → text) that include() may read. */
  modules: ReadonlyMap<string, string>;
  parsedModules: Map<string, CMakeCommand[]>;
  /** Modules being included now, against include cycles. */
  including: Set<string>;
  /** Directories added by add_subdirectory(), with the scope they were added in. */
  subdirs: Map<string, SubdirRecord>;
  /** Each directory's scope at the end of its CMakeLists.txt. */
  finalScopes: Map<string, SubdirRecord>;
  raw: RawTarget[];
  targetNames: Set<string>;
  properties: Map<string, Map<string, string>>;
  /** `target\0key` of properties whose value had unresolved variables. */
  unresolvedProps: Set<string>;
  userCommands: Map<string, UserCommand>;
  sawTopProject: boolean;
  /** Commands left to run (see COMMAND_BUDGET). */
  budget: number;
}

/** One CMakeLists.txt while it runs. */
export interface Scope {
  build: Build;
  file: string;
  dir: string;
  /** The variables in effect: a function()'s own while it runs. */
  vars: Vars;
  /** Callers' scopes while a function() runs, for set(… PARENT_SCOPE). */
  parents: Vars[];
  stack: Frame[];
  callDepth: number;
  /** The branch state this directory was added in. */
  inherited: Tri;
  /** Added with EXCLUDE_FROM_ALL (or under such a directory). */
  dirExcluded: boolean;
}

export function newBuild(modules: ReadonlyMap<string, string>): Build {
  return {
    modules,
    parsedModules: new Map(),
    including: new Set(),
    subdirs: new Map(),
    finalScopes: new Map(),
    raw: [],
    targetNames: new Set(),
    properties: new Map(),
    unresolvedProps: new Set(),
    userCommands: new Map(),
    sawTopProject: false,
    budget: COMMAND_BUDGET,
  };
}

/**
 * The scope `file` starts in: the one its add_subdirectory() recorded, else its nearest CMake ancestor's
 * final scope (with doubt, since no add_subdirectory we could follow added it), else a new top level.
 */
export function openScope(build: Build, file: string, dir: string): Scope {
  const start = startOf(build, dir);
  const vars = new Map(start.vars);
  vars.set('CMAKE_CURRENT_SOURCE_DIR', sourcePath(dir));
  vars.set('CMAKE_CURRENT_LIST_DIR', sourcePath(dir));
  return {
    build,
    file,
    dir,
    vars,
    parents: [],
    stack: [],
    callDepth: 0,
    inherited: start.state,
    dirExcluded: start.excluded,
  };
}

function startOf(build: Build, dir: string): SubdirRecord {
  const record = build.subdirs.get(dir);
  if (record) return record;
  for (const above of ancestorsOf(dir)) {
    const ancestor = build.finalScopes.get(above);
    // Under a CMake root but not added by any add_subdirectory we could follow.
    if (ancestor)
      return { vars: ancestor.vars, state: and(ancestor.state, 'unknown'), excluded: ancestor.excluded };
  }
  const vars = new Map(Object.entries(LINUX_DEFAULTS));
  vars.set('CMAKE_SOURCE_DIR', sourcePath(dir));
  return { vars, state: 'on', excluded: false };
}

/** Whether the command running now runs: the directory's state and every enclosing if() branch. */
export function branchState(scope: Scope): Tri {
  return scope.stack.reduce<Tri>((s, f) => and(s, f.branch), scope.inherited);
}

/** The state of the if() blocks in this file only (an orphan directory's doubt is not counted). */
function localState(scope: Scope): Tri {
  return scope.stack.reduce<Tri>((s, f) => and(s, f.branch), 'on');
}

/** Sets a variable in `target`; in a branch that may or may not run, a changed value becomes unknown. */
export function assignTo(scope: Scope, target: Vars, name: string, value: string | undefined): void {
  let v = value;
  if (v !== undefined && v.length > MAX_VALUE_LENGTH) v = `\${${name}?}`;
  if (localState(scope) === 'unknown' && target.get(name) !== v) v = `\${${name}?}`;
  if (v === undefined) target.delete(name);
  else target.set(name, v);
}

/** Sets a variable in the current scope (see `assignTo`). */
export function assign(scope: Scope, name: string, value: string | undefined): void {
  assignTo(scope, scope.vars, name, value);
}

/** Marks a variable as computed by something inspection does not evaluate. */
export function assignUnknown(scope: Scope, name: string): void {
  assign(scope, name, `\${${name}?}`);
}

export function expand(scope: Scope, a: CMakeArg | undefined): { text: string; unresolved: boolean } {
  return a === undefined ? { text: '', unresolved: true } : expandCMake(a.value, scope.vars);
}

/** Expanded arguments, unquoted ones split on `;` as CMake does. */
export function expandAll(scope: Scope, args: readonly CMakeArg[]): string[] {
  return args.flatMap((a) => {
    const { text } = expandCMake(a.value, scope.vars);
    return a.quoted ? [text] : text.split(';').filter((s) => s !== '');
  });
}

/** Whether `a` is one of the unquoted keywords `words`. */
export function isWord(a: CMakeArg | undefined, ...words: string[]): boolean {
  return a !== undefined && !a.quoted && words.includes(a.value);
}

export function setProperty(
  build: Build,
  target: string,
  key: string,
  value: string,
  unresolved: boolean,
): void {
  let map = build.properties.get(target);
  if (!map) build.properties.set(target, (map = new Map<string, string>()));
  map.set(key, value);
  if (unresolved) build.unresolvedProps.add(`${target}\0${key}`);
  else build.unresolvedProps.delete(`${target}\0${key}`);
}

/** A repository file for include(): a path (relative to this directory) or a module on CMAKE_MODULE_PATH. */
export function resolveModule(scope: Scope, what: string): string | undefined {
  const { modules } = scope.build;
  if (what.includes('/') || what.endsWith('.cmake')) {
    const rel = repoPathOf(what, scope.dir);
    return rel !== undefined && modules.has(rel) ? rel : undefined;
  }
  for (const entry of (scope.vars.get('CMAKE_MODULE_PATH') ?? '').split(';')) {
    const base = repoPathOf(entry, scope.dir);
    const rel = base === undefined ? undefined : joinRel(base, `${what}.cmake`);
    if (rel !== undefined && modules.has(rel)) return rel;
  }
  return undefined;
}
