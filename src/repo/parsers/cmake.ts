/**
 * Expected targets from CMakeLists.txt files: a small CMake reader (commands, quoting, bracket
 * arguments, comments) and an evaluator that follows set/option/project, if/else with three-valued
 * logic, foreach over literal lists and add_subdirectory, enough to name what `cmake --build` makes.
 */

import { ancestorsOf, dirOf, joinRel, roleOfDir, roleOfName } from '../paths.js';
import type { TargetKind } from '../types.js';
import { makeTarget, type InferredTarget } from './common.js';

export interface CMakeArg {
  value: string;
  quoted: boolean;
}

export interface CMakeCommand {
  /** Lower-cased command name. */
  name: string;
  args: CMakeArg[];
  line: number;
}

/** Splits CMake source into command invocations. Never throws; unbalanced input ends the last command. */
export function parseCMake(text: string): CMakeCommand[] {
  const commands: CMakeCommand[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;

  const bracketAt = (pos: number): number => {
    // `[`, `=`*, `[` → number of `=`; -1 when not a bracket opener.
    if (text[pos] !== '[') return -1;
    let j = pos + 1;
    while (text[j] === '=') j++;
    return text[j] === '[' ? j - pos - 1 : -1;
  };
  const skipBracket = (pos: number, level: number): { end: number; body: string } => {
    const open = pos + level + 2;
    const close = `]${'='.repeat(level)}]`;
    const at = text.indexOf(close, open);
    const end = at < 0 ? n : at + close.length;
    const body = text.slice(open, at < 0 ? n : at);
    for (const ch of text.slice(pos, end)) if (ch === '\n') line++;
    return { end, body: body.startsWith('\n') ? body.slice(1) : body };
  };
  const skipComment = (pos: number): number => {
    const level = bracketAt(pos + 1);
    if (level >= 0) return skipBracket(pos + 1, level).end;
    const nl = text.indexOf('\n', pos);
    return nl < 0 ? n : nl;
  };

  while (i < n) {
    const ch = text[i] ?? '';
    if (ch === '\n') {
      line++;
      i++;
    } else if (ch === '#') {
      i = skipComment(i);
    } else if (/[A-Za-z_]/.test(ch)) {
      const start = i;
      while (i < n && /[A-Za-z0-9_]/.test(text[i] ?? '')) i++;
      const name = text.slice(start, i).toLowerCase();
      let j = i;
      while (text[j] === ' ' || text[j] === '\t') j++;
      if (text[j] !== '(') continue;
      const commandLine = line;
      i = j + 1;
      const args: CMakeArg[] = [];
      let depth = 1;
      while (i < n && depth > 0) {
        const c = text[i] ?? '';
        if (c === '\n') {
          line++;
          i++;
        } else if (c === ' ' || c === '\t' || c === '\r') {
          i++;
        } else if (c === '#') {
          i = skipComment(i);
        } else if (c === '(') {
          depth++;
          args.push({ value: '(', quoted: false });
          i++;
        } else if (c === ')') {
          depth--;
          if (depth > 0) args.push({ value: ')', quoted: false });
          i++;
        } else if (c === '"') {
          let value = '';
          i++;
          while (i < n && text[i] !== '"') {
            const q = text[i] ?? '';
            if (q === '\\' && i + 1 < n) {
              const e = text[i + 1] ?? '';
              if (e === '\n') line++;
              else value += e === 'n' ? '\n' : e === 't' ? '\t' : e === ';' ? '\\;' : e;
              i += 2;
              continue;
            }
            if (q === '\n') line++;
            value += q;
            i++;
          }
          i++;
          args.push({ value, quoted: true });
        } else if (bracketAt(i) >= 0) {
          const { end, body } = skipBracket(i, bracketAt(i));
          i = end;
          args.push({ value: body, quoted: true });
        } else {
          let value = '';
          while (i < n) {
            const u = text[i] ?? '';
            if (u === ' ' || u === '\t' || u === '\r' || u === '\n' || u === '(' || u === ')') break;
            if (u === '\\' && i + 1 < n) {
              value += u + (text[i + 1] ?? '');
              i += 2;
              continue;
            }
            if (u === '"') {
              // A quote inside an unquoted argument (-DX="y") runs to its closing quote.
              const close = text.indexOf('"', i + 1);
              const end = close < 0 || text.slice(i, close).includes('\n') ? i + 1 : close + 1;
              value += text.slice(i, end);
              i = end;
              continue;
            }
            value += u;
            i++;
          }
          args.push({ value, quoted: false });
        }
      }
      commands.push({ name, args, line: commandLine });
    } else {
      i++;
    }
  }
  return commands;
}

type Tri = 'on' | 'off' | 'unknown';

const FALSE_CONSTANTS = new Set(['', '0', 'OFF', 'NO', 'FALSE', 'N', 'IGNORE', 'NOTFOUND']);
const TRUE_CONSTANTS = new Set(['ON', 'YES', 'TRUE', 'Y']);

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

function constantTruth(value: string): Tri | undefined {
  const upper = value.toUpperCase();
  if (TRUE_CONSTANTS.has(upper)) return 'on';
  if (FALSE_CONSTANTS.has(upper) || upper.endsWith('-NOTFOUND')) return 'off';
  if (/^-?\d+(?:\.\d+)?$/.test(value)) return Number(value) !== 0 ? 'on' : 'off';
  return undefined;
}

function and(a: Tri, b: Tri): Tri {
  if (a === 'off' || b === 'off') return 'off';
  return a === 'on' && b === 'on' ? 'on' : 'unknown';
}
function or(a: Tri, b: Tri): Tri {
  if (a === 'on' || b === 'on') return 'on';
  return a === 'off' && b === 'off' ? 'off' : 'unknown';
}
function not(a: Tri): Tri {
  return a === 'on' ? 'off' : a === 'off' ? 'on' : 'unknown';
}

/** Values longer than this are not tracked (self-appending lists can grow without bound). */
const MAX_VALUE_LENGTH = 64 * 1024;

const UNRESOLVED_OPEN = '\u0001';
const UNRESOLVED_CLOSE = '\u0002';

type Vars = Map<string, string>;

/** Expands `${VAR}` (innermost first); unknown variables stay as written and mark the result unresolved. */
export function expandCMake(value: string, vars: Vars): { text: string; unresolved: boolean } {
  let text = value;
  let unresolved = /\$ENV\{|\$<|\$CACHE\{/.test(text);
  for (let round = 0; round < 20 && text.includes('${'); round++) {
    const next = text.replace(/\$\{([^${}]*)\}/g, (_m, name: string) => {
      const v = vars.get(name);
      if (v !== undefined) return v;
      unresolved = true;
      return `${UNRESOLVED_OPEN}${name}${UNRESOLVED_CLOSE}`;
    });
    if (next === text) break;
    if (next.length > MAX_VALUE_LENGTH) return { text: value, unresolved: true };
    text = next;
  }
  if (text.includes('${')) unresolved = true;
  text = text.replaceAll(UNRESOLVED_OPEN, '${').replaceAll(UNRESOLVED_CLOSE, '}');
  return { text, unresolved };
}

const BINARY_OPERATORS = new Set([
  'STREQUAL',
  'STRLESS',
  'STRGREATER',
  'STRLESS_EQUAL',
  'STRGREATER_EQUAL',
  'EQUAL',
  'LESS',
  'GREATER',
  'LESS_EQUAL',
  'GREATER_EQUAL',
  'MATCHES',
  'VERSION_EQUAL',
  'VERSION_LESS',
  'VERSION_GREATER',
  'VERSION_LESS_EQUAL',
  'VERSION_GREATER_EQUAL',
  'IN_LIST',
  'IS_NEWER_THAN',
  'PATH_EQUAL',
]);
const UNARY_OPERATORS = new Set([
  'EXISTS',
  'COMMAND',
  'POLICY',
  'TARGET',
  'TEST',
  'IS_DIRECTORY',
  'IS_SYMLINK',
  'IS_ABSOLUTE',
]);

export interface ConditionContext {
  /** Targets defined so far, for `if(TARGET name)`. */
  targets?: ReadonlySet<string>;
}

/**
 * Evaluates an if()/elseif() condition: on, off, or unknown when it depends on the machine, the user or
 * something inspection cannot see. Supports parentheses, NOT/AND/OR, DEFINED, TARGET, STREQUAL and EQUAL.
 */
export function evalCondition(args: readonly CMakeArg[], vars: Vars, context: ConditionContext = {}): Tri {
  let i = 0;
  const isWord = (a: CMakeArg | undefined, word: string): boolean =>
    a !== undefined && !a.quoted && a.value === word;
  const truth = (a: CMakeArg): Tri => {
    const { text, unresolved } = expandCMake(a.value, vars);
    if (unresolved) return 'unknown';
    const constant = constantTruth(text);
    if (constant !== undefined) return constant;
    if (a.quoted) return 'unknown';
    const v = vars.get(text);
    if (v === undefined) return 'unknown';
    if (expandCMake(v, vars).unresolved) return 'unknown';
    return constantTruth(v) === 'off' ? 'off' : 'on';
  };
  /** The string an operand of STREQUAL/EQUAL stands for; undefined when it cannot be known. */
  const valueOf = (a: CMakeArg, left: boolean): string | undefined => {
    const { text, unresolved } = expandCMake(a.value, vars);
    if (unresolved) return undefined;
    if (a.quoted) return text;
    const v = vars.get(text);
    if (v !== undefined) {
      const e = expandCMake(v, vars);
      return e.unresolved ? undefined : e.text;
    }
    // An undefined name on the left is usually a variable set by a module or the toolchain.
    if (left && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) && !/^\d/.test(text)) return undefined;
    return text;
  };
  const primary = (): Tri => {
    const a = args[i];
    if (a === undefined) return 'unknown';
    if (isWord(a, '(')) {
      i++;
      const value = orExpr();
      if (isWord(args[i], ')')) i++;
      return value;
    }
    if (isWord(a, 'DEFINED')) {
      const name = args[i + 1];
      i += 2;
      if (name === undefined) return 'unknown';
      const { text, unresolved } = expandCMake(name.value, vars);
      if (unresolved || /^(?:ENV|CACHE)\{/.test(text)) return 'unknown';
      return vars.has(text) ? 'on' : 'off';
    }
    if (isWord(a, 'TARGET')) {
      const name = args[i + 1];
      i += 2;
      if (name === undefined) return 'unknown';
      const { text, unresolved } = expandCMake(name.value, vars);
      return !unresolved && context.targets?.has(text) ? 'on' : 'unknown';
    }
    if (!a.quoted && UNARY_OPERATORS.has(a.value)) {
      i += 2;
      return 'unknown';
    }
    const op = args[i + 1];
    if (op !== undefined && !op.quoted && BINARY_OPERATORS.has(op.value)) {
      const b = args[i + 2];
      i += 3;
      if (b === undefined) return 'unknown';
      if (op.value !== 'STREQUAL' && op.value !== 'EQUAL') return 'unknown';
      const left = valueOf(a, true);
      const right = valueOf(b, false);
      if (left === undefined || right === undefined) return 'unknown';
      if (op.value === 'EQUAL') {
        const l = Number(left);
        const r = Number(right);
        return Number.isFinite(l) && Number.isFinite(r) ? (l === r ? 'on' : 'off') : 'unknown';
      }
      return left === right ? 'on' : 'off';
    }
    i++;
    return truth(a);
  };
  const notExpr = (): Tri => {
    if (isWord(args[i], 'NOT')) {
      i++;
      return not(notExpr());
    }
    return primary();
  };
  const andExpr = (): Tri => {
    let value = notExpr();
    while (isWord(args[i], 'AND')) {
      i++;
      value = and(value, notExpr());
    }
    return value;
  };
  const orExpr = (): Tri => {
    let value = andExpr();
    while (isWord(args[i], 'OR')) {
      i++;
      value = or(value, andExpr());
    }
    return value;
  };
  if (args.length === 0) return 'off';
  const value = orExpr();
  // Anything left over means the condition was not understood.
  return i >= args.length ? value : 'unknown';
}

interface RawTarget {
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

interface SubdirRecord {
  vars: Vars;
  state: Tri;
  excluded: boolean;
}

interface Frame {
  branch: Tri;
  taken: Tri;
}

const LIBRARY_TYPES = new Set(['STATIC', 'SHARED', 'MODULE', 'OBJECT', 'INTERFACE', 'UNKNOWN']);
const EXECUTABLE_COMMANDS = new Set([
  'add_executable',
  'cuda_add_executable',
  'qt_add_executable',
  'qt6_add_executable',
]);
const LIBRARY_COMMANDS = new Set(['add_library', 'cuda_add_library', 'qt_add_library', 'qt6_add_library']);

/** A CMake directory path as CMake would see it, under a fake absolute root. */
const SOURCE_ROOT = '/@src';
const sourcePath = (dir: string): string => (dir === '' ? SOURCE_ROOT : `${SOURCE_ROOT}/${dir}`);

interface UserCommand {
  params: string[];
  body: CMakeCommand[];
  macro: boolean;
}

/** Commands run at most, across all files and function calls: keeps pathological trees fast. */
const COMMAND_BUDGET = 200_000;
const MAX_CALL_DEPTH = 12;

/**
 * Expected targets of a CMake build made of `files` (path → text, paths relative to the repository root).
 * Directories are read parents first; a subdirectory sees its parent's variables as they were at its
 * add_subdirectory(). function()/macro() definitions are run when called, foreach() over lists is
 * unrolled. Targets in branches that are off on Linux by default, behind EXCLUDE_FROM_ALL, or in
 * subdirectories added that way get the role `excluded`.
 */
export function cmakeTargets(
  files: ReadonlyMap<string, string>,
  modules: ReadonlyMap<string, string> = new Map(),
): InferredTarget[] {
  const parsedModules = new Map<string, CMakeCommand[]>();
  const including = new Set<string>();
  const ordered = [...files.keys()].sort((a, b) => {
    const da = a.split('/').length;
    const db = b.split('/').length;
    return da - db || (a < b ? -1 : a > b ? 1 : 0);
  });
  const subdirs = new Map<string, SubdirRecord>();
  const finalScopes = new Map<string, { vars: Vars; state: Tri; excluded: boolean }>();
  const raw: RawTarget[] = [];
  const targetNames = new Set<string>();
  const properties = new Map<string, Map<string, string>>();
  const unresolvedProps = new Set<string>();
  const userCommands = new Map<string, UserCommand>();
  let sawTopProject = false;
  let budget = COMMAND_BUDGET;

  const setProperty = (target: string, key: string, value: string, unresolved: boolean): void => {
    let map = properties.get(target);
    if (!map) properties.set(target, (map = new Map<string, string>()));
    map.set(key, value);
    if (unresolved) unresolvedProps.add(`${target}\0${key}`);
    else unresolvedProps.delete(`${target}\0${key}`);
  };

  for (const file of ordered) {
    const dir = dirOf(file);
    let vars: Vars;
    let inherited: Tri;
    let dirExcluded: boolean;
    const record = subdirs.get(dir);
    if (record) {
      vars = new Map(record.vars);
      inherited = record.state;
      dirExcluded = record.excluded;
    } else {
      let ancestor: { vars: Vars; state: Tri; excluded: boolean } | undefined;
      for (const above of ancestorsOf(dir)) {
        ancestor = finalScopes.get(above);
        if (ancestor) break;
      }
      if (ancestor) {
        // Under a CMake root but not added by any add_subdirectory we could follow.
        vars = new Map(ancestor.vars);
        inherited = and(ancestor.state, 'unknown');
        dirExcluded = ancestor.excluded;
      } else {
        vars = new Map(Object.entries(LINUX_DEFAULTS));
        vars.set('CMAKE_SOURCE_DIR', sourcePath(dir));
        inherited = 'on';
        dirExcluded = false;
      }
    }
    vars.set('CMAKE_CURRENT_SOURCE_DIR', sourcePath(dir));
    vars.set('CMAKE_CURRENT_LIST_DIR', sourcePath(dir));
    /** Callers' scopes while a function() runs, for set(… PARENT_SCOPE). */
    const parents: Vars[] = [];
    const stack: Frame[] = [];
    let callDepth = 0;
    const state = (): Tri => stack.reduce<Tri>((s, f) => and(s, f.branch), inherited);
    /** The state of the if() blocks in this file only (an orphan directory's doubt is not counted). */
    const localState = (): Tri => stack.reduce<Tri>((s, f) => and(s, f.branch), 'on');
    /** Sets a variable; in a branch that may or may not run, a changed value becomes unknown. */
    const assign = (target: Vars, name: string, value: string | undefined): void => {
      let v = value;
      if (v !== undefined && v.length > MAX_VALUE_LENGTH) v = `\${${name}?}`;
      if (localState() === 'unknown' && target.get(name) !== v) v = `\${${name}?}`;
      if (v === undefined) target.delete(name);
      else target.set(name, v);
    };
    const expand = (a: CMakeArg | undefined): { text: string; unresolved: boolean } =>
      a === undefined ? { text: '', unresolved: true } : expandCMake(a.value, vars);
    /** Expanded arguments, unquoted ones split on `;` as CMake does. */
    const expandAll = (args: readonly CMakeArg[]): string[] =>
      args.flatMap((a) => {
        const { text } = expandCMake(a.value, vars);
        return a.quoted ? [text] : text.split(';').filter((s) => s !== '');
      });
    const isWord = (a: CMakeArg | undefined, ...words: string[]): boolean =>
      a !== undefined && !a.quoted && words.includes(a.value);
    /** A repository file for include(): a path (relative to this directory) or a module on CMAKE_MODULE_PATH. */
    const resolveModule = (what: string): string | undefined => {
      const toRel = (p: string, base: string): string | undefined => {
        if (p === SOURCE_ROOT || p.startsWith(`${SOURCE_ROOT}/`))
          return joinRel('', p.slice(SOURCE_ROOT.length));
        return p.startsWith('/') ? undefined : joinRel(base, p);
      };
      if (what.includes('/') || what.endsWith('.cmake')) {
        const rel = toRel(what, dir);
        return rel !== undefined && modules.has(rel) ? rel : undefined;
      }
      for (const entry of (vars.get('CMAKE_MODULE_PATH') ?? '').split(';')) {
        const base = toRel(entry, dir);
        const rel = base === undefined ? undefined : joinRel(base, `${what}.cmake`);
        if (rel !== undefined && modules.has(rel)) return rel;
      }
      return undefined;
    };

    const run = (commands: readonly CMakeCommand[]): void => {
      for (let k = 0; k < commands.length; k++) {
        if (--budget < 0) return;
        const cmd = commands[k] as CMakeCommand;
        const { name, args } = cmd;
        if (name === 'function' || name === 'macro' || name === 'while' || name === 'foreach') {
          const end = `end${name}`;
          let depth = 1;
          let j = k + 1;
          for (; j < commands.length; j++) {
            const c = commands[j]?.name;
            if (c === name) depth++;
            else if (c === end && --depth === 0) break;
          }
          const body = commands.slice(k + 1, j);
          if (name === 'foreach' && state() !== 'off') runForeach(args, body);
          else if (name === 'function' || name === 'macro') {
            const [fnName, ...params] = expandAll(args);
            if (fnName !== undefined && state() !== 'off')
              userCommands.set(fnName.toLowerCase(), { params, body, macro: name === 'macro' });
          }
          k = j;
          continue;
        }
        if (name === 'if') {
          const c = state() === 'off' ? 'off' : evalCondition(args, vars, { targets: targetNames });
          stack.push({ branch: c, taken: c });
          continue;
        }
        if (name === 'elseif' || name === 'else') {
          const top = stack[stack.length - 1];
          if (!top) continue;
          if (top.taken === 'on') {
            top.branch = 'off';
          } else {
            const c = name === 'else' ? 'on' : evalCondition(args, vars, { targets: targetNames });
            top.branch = top.taken === 'off' ? c : and(c, 'unknown');
            top.taken = or(top.taken, c);
          }
          continue;
        }
        if (name === 'endif') {
          stack.pop();
          continue;
        }
        const user = userCommands.get(name);
        if (user) {
          call(user, args);
          continue;
        }
        const s = state();
        if (
          s === 'off' &&
          !EXECUTABLE_COMMANDS.has(name) &&
          !LIBRARY_COMMANDS.has(name) &&
          name !== 'add_subdirectory'
        )
          continue;
        handle(cmd, s);
      }
    };

    const call = (user: UserCommand, args: readonly CMakeArg[]): void => {
      if (callDepth >= MAX_CALL_DEPTH) return;
      const values = expandAll(args);
      const bindings = new Map<string, string>();
      user.params.forEach((p, n) => bindings.set(p, values[n] ?? ''));
      bindings.set('ARGN', values.slice(user.params.length).join(';'));
      bindings.set('ARGV', values.join(';'));
      bindings.set('ARGC', String(values.length));
      values.forEach((v, n) => bindings.set(`ARGV${n}`, v));
      const depthBefore = stack.length;
      callDepth++;
      if (user.macro) {
        // A macro runs in the caller's scope; its parameters are replaced text, not variables.
        const saved = new Map([...bindings.keys()].map((key) => [key, vars.get(key)]));
        for (const [key, value] of bindings) vars.set(key, value);
        run(user.body);
        for (const [key, value] of saved) {
          if (value === undefined) vars.delete(key);
          else vars.set(key, value);
        }
      } else {
        const caller = vars;
        vars = new Map(caller);
        for (const [key, value] of bindings) vars.set(key, value);
        parents.push(caller);
        run(user.body);
        parents.pop();
        vars = caller;
      }
      callDepth--;
      stack.length = Math.min(stack.length, depthBefore);
    };

    const runForeach = (args: readonly CMakeArg[], body: readonly CMakeCommand[]): void => {
      const loopVar = expand(args[0]).text;
      let items: string[];
      const rest = args.slice(1);
      if (isWord(rest[0], 'RANGE') || (isWord(rest[0], 'IN') && isWord(rest[1], 'ZIP_LISTS'))) return;
      if (isWord(rest[0], 'IN')) {
        items = [];
        let mode = '';
        for (const a of rest.slice(1)) {
          if (isWord(a, 'LISTS', 'ITEMS')) {
            mode = a.value;
            continue;
          }
          if (mode === 'LISTS')
            items.push(...(vars.get(expand(a).text) ?? '').split(';').filter((x) => x !== ''));
          else items.push(...expandAll([a]));
        }
      } else {
        items = expandAll(rest);
      }
      const saved = vars.get(loopVar);
      for (const item of items.slice(0, 200)) {
        vars.set(loopVar, item);
        run(body);
      }
      if (saved === undefined) vars.delete(loopVar);
      else vars.set(loopVar, saved);
    };

    const handle = (cmd: CMakeCommand, s: Tri): void => {
      const { name, args } = cmd;
      switch (name) {
        case 'set': {
          const varName = expand(args[0]).text;
          const values: CMakeArg[] = [];
          let mode = '';
          for (const a of args.slice(1)) {
            if (isWord(a, 'CACHE', 'PARENT_SCOPE')) {
              mode = a.value;
              break;
            }
            values.push(a);
          }
          const value = values.length === 0 ? undefined : expandAll(values).join(';');
          if (mode === 'PARENT_SCOPE') {
            const parent = parents[parents.length - 1];
            if (parent) assign(parent, varName, value);
            return;
          }
          if (mode === 'CACHE' && vars.has(varName)) return;
          assign(vars, varName, value);
          return;
        }
        case 'unset':
          assign(vars, expand(args[0]).text, undefined);
          return;
        case 'get_property': {
          // The one property whose value on Linux is known and gates shared libraries (curl and others).
          const out = expand(args[0]).text;
          if (args.some((a) => a.value === 'TARGET_SUPPORTS_SHARED_LIBS')) assign(vars, out, 'TRUE');
          else assign(vars, out, undefined);
          return;
        }
        case 'get_filename_component': {
          const out = expand(args[0]).text;
          const input = expand(args[1]);
          const mode = expand(args[2]).text;
          const base = input.text.slice(input.text.lastIndexOf('/') + 1);
          let v: string | undefined;
          if (input.unresolved) v = undefined;
          else if (mode === 'NAME') v = base;
          else if (mode === 'NAME_WE') v = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
          else if (mode === 'NAME_WLE') v = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
          else if (mode === 'DIRECTORY' || mode === 'PATH')
            v = input.text.slice(0, Math.max(0, input.text.lastIndexOf('/')));
          assign(vars, out, v === undefined ? `\${${out}?}` : v);
          return;
        }
        case 'list': {
          const op = expand(args[0]).text.toUpperCase();
          const listName = expand(args[1]).text;
          const current = (vars.get(listName) ?? '').split(';').filter((x) => x !== '');
          const items = expandAll(args.slice(2));
          if (op === 'APPEND') vars.set(listName, [...current, ...items].join(';'));
          else if (op === 'PREPEND') vars.set(listName, [...items, ...current].join(';'));
          else if (op === 'REMOVE_ITEM')
            vars.set(listName, current.filter((x) => !items.includes(x)).join(';'));
          return;
        }
        case 'string': {
          const op = expand(args[0]).text.toUpperCase();
          if (op === 'TOLOWER' || op === 'TOUPPER') {
            const input = expand(args[1]);
            const out = expand(args[2]).text;
            if (input.unresolved) assign(vars, out, `\${${out}?}`);
            else assign(vars, out, op === 'TOLOWER' ? input.text.toLowerCase() : input.text.toUpperCase());
            return;
          }
          if (op === 'APPEND' || op === 'PREPEND') {
            const out = expand(args[1]).text;
            const current = vars.get(out) ?? '';
            const more = expandAll(args.slice(2)).join('');
            assign(vars, out, op === 'APPEND' ? current + more : more + current);
            return;
          }
          // Other forms compute values inspection does not: their output variable becomes unknown.
          const outAt: Record<string, number> = {
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
          let at = outAt[op];
          if (op === 'REGEX') at = expand(args[1]).text.toUpperCase() === 'REPLACE' ? 4 : 3;
          if (at !== undefined && at >= 0) {
            const out = expand(args[at]).text;
            if (out !== '') assign(vars, out, `\${${out}?}`);
          }
          return;
        }
        case 'math':
        case 'cmake_path':
        case 'file': {
          // math(EXPR out …), cmake_path(GET path STEM out), file(GLOB out …), file(READ f out), …
          const words = expandAll(args);
          const out =
            name === 'math'
              ? words[1]
              : name === 'cmake_path'
                ? words[words.length - 1]
                : [
                      'GLOB',
                      'GLOB_RECURSE',
                      'STRINGS',
                      'READ',
                      'RELATIVE_PATH',
                      'TO_CMAKE_PATH',
                      'TO_NATIVE_PATH',
                      'SIZE',
                      'REAL_PATH',
                      'MD5',
                      'SHA256',
                    ].includes(words[0] ?? '')
                  ? words[0] === 'READ' ||
                    words[0] === 'STRINGS' ||
                    words[0] === 'SIZE' ||
                    words[0] === 'REAL_PATH' ||
                    words[0] === 'MD5' ||
                    words[0] === 'SHA256'
                    ? words[2]
                    : words[1]
                  : undefined;
          if (out !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(out)) assign(vars, out, `\${${out}?}`);
          return;
        }
        case 'option':
        case 'cmake_dependent_option': {
          const varName = expand(args[0]).text;
          if (!vars.has(varName)) assign(vars, varName, args[2] !== undefined ? expand(args[2]).text : 'OFF');
          return;
        }
        case 'project': {
          const projectName = expand(args[0]).text;
          if (projectName === '') return;
          const top = !sawTopProject;
          sawTopProject = true;
          vars.set('PROJECT_NAME', projectName);
          vars.set('PROJECT_SOURCE_DIR', sourcePath(dir));
          vars.set(`${projectName}_SOURCE_DIR`, sourcePath(dir));
          if (!vars.has('CMAKE_PROJECT_NAME')) vars.set('CMAKE_PROJECT_NAME', projectName);
          vars.set('PROJECT_IS_TOP_LEVEL', top ? 'ON' : 'OFF');
          vars.set(`${projectName}_IS_TOP_LEVEL`, top ? 'ON' : 'OFF');
          const versionAt = args.findIndex((a) => isWord(a, 'VERSION'));
          const version = versionAt >= 0 ? expand(args[versionAt + 1]).text : undefined;
          if (version !== undefined && /^\d/.test(version)) {
            vars.set('PROJECT_VERSION', version);
            vars.set(`${projectName}_VERSION`, version);
            const [major, minor, patch] = version.split('.');
            if (major !== undefined) vars.set('PROJECT_VERSION_MAJOR', major);
            if (minor !== undefined) vars.set('PROJECT_VERSION_MINOR', minor);
            if (patch !== undefined) vars.set('PROJECT_VERSION_PATCH', patch);
          }
          return;
        }
        case 'include': {
          const what = expand(args[0]);
          if (/^CTest$/i.test(what.text) && !vars.has('BUILD_TESTING')) vars.set('BUILD_TESTING', 'ON');
          if (what.unresolved || s === 'off') return;
          const found = resolveModule(what.text);
          if (found === undefined || including.has(found) || including.size >= MAX_CALL_DEPTH) return;
          let commands = parsedModules.get(found);
          if (!commands) parsedModules.set(found, (commands = parseCMake(modules.get(found) ?? '')));
          including.add(found);
          const savedListDir = vars.get('CMAKE_CURRENT_LIST_DIR');
          vars.set('CMAKE_CURRENT_LIST_DIR', sourcePath(dirOf(found)));
          const depthBefore = stack.length;
          run(commands);
          stack.length = Math.min(stack.length, depthBefore);
          if (savedListDir !== undefined) vars.set('CMAKE_CURRENT_LIST_DIR', savedListDir);
          including.delete(found);
          return;
        }
        case 'add_subdirectory': {
          const sub = expand(args[0]);
          if (sub.unresolved || sub.text === '') return;
          let target: string;
          if (sub.text === SOURCE_ROOT || sub.text.startsWith(`${SOURCE_ROOT}/`))
            target = joinRel('', sub.text.slice(SOURCE_ROOT.length));
          else if (sub.text.startsWith('/')) return;
          else target = joinRel(dir, sub.text);
          const excluded = args.slice(1).some((a) => isWord(a, 'EXCLUDE_FROM_ALL'));
          const previous = subdirs.get(target);
          // A directory added twice (in if/else branches) keeps the most built-looking record.
          if (previous && (previous.state === 'on' || (previous.state === 'unknown' && s === 'off'))) return;
          subdirs.set(target, { vars: new Map(vars), state: s, excluded: dirExcluded || excluded });
          return;
        }
        case 'set_target_properties': {
          const at = args.findIndex((a) => isWord(a, 'PROPERTIES'));
          if (at < 0 || s === 'off') return;
          const targets = expandAll(args.slice(0, at));
          const pairs = args.slice(at + 1);
          for (let p = 0; p + 1 < pairs.length; p += 2) {
            const key = expand(pairs[p]).text;
            const value = expand(pairs[p + 1]);
            for (const t of targets) setProperty(t, key, value.text, value.unresolved);
          }
          return;
        }
        case 'set_property': {
          if (!isWord(args[0], 'TARGET') || s === 'off') return;
          const at = args.findIndex((a) => isWord(a, 'PROPERTY'));
          if (at < 0) return;
          const targets = expandAll(args.slice(1, at)).filter((t) => t !== 'APPEND' && t !== 'APPEND_STRING');
          const key = expand(args[at + 1]).text;
          const value = args.slice(at + 2).map((a) => expand(a));
          for (const t of targets)
            setProperty(
              t,
              key,
              value.map((v) => v.text).join(';'),
              value.some((v) => v.unresolved),
            );
          return;
        }
        default:
          break;
      }
      if (EXECUTABLE_COMMANDS.has(name) || LIBRARY_COMMANDS.has(name)) {
        const logical = expand(args[0]);
        if (logical.text === '') return;
        const flags = new Set(expandAll(args.slice(1)));
        if (flags.has('IMPORTED') || flags.has('ALIAS')) return;
        let kind: TargetKind = 'executable';
        let defaultKind: RawTarget['defaultKind'];
        if (LIBRARY_COMMANDS.has(name)) {
          const type = [...flags].find((f) => LIBRARY_TYPES.has(f));
          if (type === 'OBJECT' || type === 'INTERFACE' || type === 'UNKNOWN') return;
          if (type === 'STATIC') kind = 'static_library';
          else if (type === 'SHARED') kind = 'shared_library';
          else if (type === 'MODULE') kind = 'module';
          else {
            // An add_library() with no type and no sources is a placeholder, not a product.
            if (args.length === 1) return;
            const shared = vars.has('BUILD_SHARED_LIBS')
              ? evalCondition([{ value: 'BUILD_SHARED_LIBS', quoted: false }], vars)
              : 'off';
            defaultKind = shared === 'on' ? 'shared' : shared === 'off' ? 'static' : 'unknown';
            kind = shared === 'on' ? 'shared_library' : 'static_library';
          }
        }
        targetNames.add(logical.text);
        const firstSource = expandAll(args.slice(1)).find((a) =>
          /\.(?:c|cc|cpp|cxx|c\+\+|cu|m|mm)$/i.test(a),
        );
        const sourceDir =
          firstSource === undefined || firstSource.includes('$')
            ? dir
            : firstSource.startsWith(`${SOURCE_ROOT}/`)
              ? dirOf(firstSource.slice(SOURCE_ROOT.length + 1))
              : joinRel(dir, dirOf(firstSource));
        raw.push({
          sourceDir,
          logical: logical.text,
          kind,
          defaultKind,
          file,
          dir,
          line: cmd.line,
          state: s,
          excludedFromAll: dirExcluded || flags.has('EXCLUDE_FROM_ALL'),
          unresolved: logical.unresolved,
        });
      }
    };

    run(parseCMake(files.get(file) ?? ''));
    finalScopes.set(dir, { vars, state: inherited, excluded: dirExcluded });
  }

  return raw.map((t) =>
    finish(t, properties.get(t.logical), (key) => unresolvedProps.has(`${t.logical}\0${key}`)),
  );
}

function finish(
  t: RawTarget,
  props: Map<string, string> | undefined,
  unresolvedProp: (key: string) => boolean,
): InferredTarget {
  const get = (key: string): string | undefined => props?.get(key);
  const kindKey =
    t.kind === 'executable'
      ? 'RUNTIME_OUTPUT_NAME'
      : t.kind === 'static_library'
        ? 'ARCHIVE_OUTPUT_NAME'
        : 'LIBRARY_OUTPUT_NAME';
  const outputKey =
    get(kindKey) !== undefined ? kindKey : get('OUTPUT_NAME') !== undefined ? 'OUTPUT_NAME' : undefined;
  const base = (outputKey && get(outputKey)) || t.logical;
  const isExe = t.kind === 'executable';
  const prefix = get('PREFIX') ?? (isExe ? '' : 'lib');
  const suffix = get('SUFFIX') ?? (isExe ? '' : t.kind === 'static_library' ? '.a' : '.so');
  const name = `${prefix}${base}${suffix}`;

  const notes: string[] = [];
  let confidence = 0.9;
  if (t.state === 'unknown') {
    confidence *= 0.7;
    notes.push('inside a condition that depends on the configuration');
  }
  if (t.defaultKind === 'static') {
    notes.push('add_library without a type: static unless BUILD_SHARED_LIBS is ON');
    confidence *= 0.95;
  } else if (t.defaultKind === 'shared') {
    notes.push('add_library without a type: shared because BUILD_SHARED_LIBS is ON');
  } else if (t.defaultKind === 'unknown') {
    notes.push('add_library without a type and BUILD_SHARED_LIBS depends on the configuration');
    confidence *= 0.7;
  }
  const unresolved =
    t.unresolved ||
    (outputKey !== undefined && unresolvedProp(outputKey)) ||
    unresolvedProp('PREFIX') ||
    unresolvedProp('SUFFIX');
  if (unresolved || name.includes('$')) {
    confidence = Math.min(confidence, 0.3);
    notes.push('the name has variables that could not be resolved');
  }
  const excludedProp = get('EXCLUDE_FROM_ALL');
  const excluded =
    t.excludedFromAll ||
    t.state === 'off' ||
    (excludedProp !== undefined && constantTruth(excludedProp) === 'on');
  if (excluded) {
    confidence = Math.min(confidence, 0.2);
    notes.push(
      t.state === 'off'
        ? 'not configured by default on Linux'
        : 'excluded from the default build (EXCLUDE_FROM_ALL)',
    );
  }
  return makeTarget('cmake', {
    name,
    kind: t.kind,
    file: t.file,
    line: t.line,
    confidence,
    logicalName: t.logical,
    role: excluded
      ? 'excluded'
      : (roleOfName(t.logical) ?? roleOfName(name) ?? roleOfDir(t.sourceDir) ?? roleOfDir(t.dir) ?? 'main'),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  });
}
