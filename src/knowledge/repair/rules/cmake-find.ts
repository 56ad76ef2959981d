/**
 * Rules for a project's own CMake look-ups (issue 12, classes 3 and 4): `find_library`/`find_program`/
 * `find_path(... REQUIRED)` that name what they look for in the error, and result variables left at
 * `*-NOTFOUND` (CMake's "variables are set to NOTFOUND" list, a `…-NOTFOUND` path, LibFindMacros' "Required
 * library Foo NOT FOUND"). For the latter the project's own `find_path(VAR NAMES … PATH_SUFFIXES …)` /
 * `find_library(VAR NAMES …)` calls (in its CMakeLists.txt and `cmake/` modules) say what to look up. Every
 * package comes from the package index, never from a name written here.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { lstatUnder, readFileUnder } from '../../../base/safe-fs.js';
import type { Finding } from '../../diagnose/types.js';
import type { Need } from '../needs.js';
import type { RepairInput } from '../repair.js';
import { RULE_LIMITS, cap, installEach, installFor, type Rule } from './rule.js';

/** The find_* commands whose first argument is a result variable. */
export type FindCommand = 'find_path' | 'find_library' | 'find_program' | 'find_file';

/** One `find_*(VAR …)` call of the project. */
export interface FindCall {
  command: FindCommand;
  variable: string;
  names: string[];
  suffixes: string[];
  /** Where it is, relative to the repository root. */
  file: string;
}

/** Keywords of the find_* signature that end a NAMES / PATH_SUFFIXES list. */
const FIND_KEYWORDS = new Set([
  'NAMES',
  'NAMES_PER_DIR',
  'HINTS',
  'PATHS',
  'PATH_SUFFIXES',
  'DOC',
  'REQUIRED',
  'NO_CACHE',
  'VALIDATOR',
  'ENV',
  'REGISTRY_VIEW',
  'NO_DEFAULT_PATH',
  'NO_PACKAGE_ROOT_PATH',
  'NO_CMAKE_PATH',
  'NO_CMAKE_ENVIRONMENT_PATH',
  'NO_SYSTEM_ENVIRONMENT_PATH',
  'NO_CMAKE_SYSTEM_PATH',
  'NO_CMAKE_INSTALL_PREFIX',
  'CMAKE_FIND_ROOT_PATH_BOTH',
  'ONLY_CMAKE_FIND_ROOT_PATH',
  'NO_CMAKE_FIND_ROOT_PATH',
]);

/** Directories (under the recipe's directory and the root) where projects keep their CMake modules. */
const MODULE_DIRS = ['cmake', 'CMake', 'cmake/Modules', 'cmake/modules', 'cmake_modules', 'CMakeModules'];
/** At most this many CMake files are read for one failure. */
const MAX_CMAKE_FILES = 60;

/** The arguments of a CMake command call, unquoted; `${…}` references are kept as written. */
function tokens(args: string): string[] {
  const out: string[] = [];
  for (const m of args.replace(/#[^\n]*/g, ' ').matchAll(/"([^"]*)"|([^\s"()]+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

/** The values after `keyword` up to the next keyword. */
function after(list: readonly string[], keyword: string): string[] {
  const i = list.indexOf(keyword);
  if (i < 0) return [];
  const out: string[] = [];
  for (const t of list.slice(i + 1)) {
    if (FIND_KEYWORDS.has(t)) break;
    out.push(t);
  }
  return out;
}

/** Every `find_path/find_library/find_program/find_file(VAR …)` call in a CMake file's text. */
export function parseFindCalls(text: string, file: string): FindCall[] {
  const calls: FindCall[] = [];
  for (const m of text.matchAll(/\b(find_path|find_library|find_program|find_file)\s*\(([^)]*)\)/gi)) {
    const list = tokens(m[2]!);
    const variable = list[0];
    if (!variable || !/^[A-Za-z_][\w]*$/.test(variable)) continue;
    const rest = list.slice(1);
    // The short form: find_library(VAR name [path…]); the long form names them after NAMES.
    const names = rest.includes('NAMES') ? after(rest, 'NAMES') : rest.slice(0, 1);
    calls.push({
      command: m[1]!.toLowerCase() as FindCommand,
      variable,
      names: names.filter((n) => !n.includes('${') && !FIND_KEYWORDS.has(n)),
      suffixes: after(rest, 'PATH_SUFFIXES').filter((s) => !s.includes('${')),
      file,
    });
  }
  return calls;
}

/** A library name as `-l` takes it: `libsodium`, `libsodium.so` and `sodium` are all `sodium`. */
function libraryName(name: string): string {
  return name.replace(/\.(?:so(?:\.[\d.]+)?|a)$/, '').replace(/^lib(?=.)/, '');
}

/** What the package index is asked for one find_* call: its names (with the path suffixes for headers). */
export function needsOfCall(call: Pick<FindCall, 'command' | 'names' | 'suffixes'>): Need[] {
  const needs: Need[] = [];
  for (const name of call.names) {
    switch (call.command) {
      case 'find_library':
        needs.push({ kind: 'library', name: libraryName(name) });
        break;
      case 'find_program':
        needs.push({ kind: 'command', name: path.posix.basename(name) });
        break;
      case 'find_path':
      case 'find_file':
        for (const suffix of call.suffixes) needs.push({ kind: 'header', name: `${suffix}/${name}` });
        needs.push({ kind: name.includes('.') ? 'header' : 'file', name });
        break;
    }
  }
  return needs;
}

/** The find command a variable's name suggests when the log does not say (`…_LIBRARIES`, `…_EXECUTABLE`). */
export function commandFromVariable(variable: string): FindCommand {
  if (/(?:_|^)(?:EXE|EXECUTABLE|PROGRAM|BIN|TOOL|COMMAND)$/i.test(variable)) return 'find_program';
  if (/(?:INCLUDE|INC|HEADER|HEADERS)(?:_DIRS?|_PATH)?$/i.test(variable)) return 'find_path';
  return 'find_library';
}

/** `jansson, libjansson` → the names. */
function splitNames(names: string): string[] {
  return names
    .split(/[,\s]+/)
    .map((n) => n.trim())
    .filter((n) => /^[\w.+/-]+$/.test(n));
}

async function readText(root: string, file: string): Promise<string | undefined> {
  try {
    return (
      await readFileUnder(root, file, { follow: 'inside', maxBytes: RULE_LIMITS.cmakeListsBytes })
    ).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The `*.cmake` files directly in a module directory (a link is not followed). */
async function moduleFiles(root: string, dir: string): Promise<string[]> {
  const stat = await lstatUnder(root, dir).catch(() => undefined);
  if (!stat?.isDirectory()) return [];
  const names = await readdir(path.join(root, dir)).catch(() => [] as string[]);
  const files: string[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.cmake')) continue;
    const s = await lstat(path.join(root, dir, name)).catch(() => undefined);
    if (s?.isFile()) files.push(path.posix.join(dir, name));
  }
  return files;
}

/** The project's find_* calls: the recipe directory's and the root's CMakeLists.txt and their module directories. */
export async function projectFindCalls(root: string, recipeDir: string): Promise<FindCall[]> {
  const bases = [...new Set([recipeDir, ''])];
  const files: string[] = [];
  for (const base of bases) {
    files.push(path.posix.join(base || '.', 'CMakeLists.txt').replace(/^\.\//, ''));
    for (const dir of MODULE_DIRS)
      files.push(...(await moduleFiles(root, path.posix.join(base || '.', dir).replace(/^\.\//, ''))));
  }
  const calls: FindCall[] = [];
  for (const file of [...new Set(files)].slice(0, MAX_CMAKE_FILES)) {
    const text = await readText(root, file);
    if (text) calls.push(...parseFindCalls(text, file));
  }
  return calls;
}

/** The NOTFOUND variables the failure names (the root cause's first, then the other findings'). */
function notFoundVariables(f: Finding, input: RepairInput): { variables: string[]; prefixes: string[] } {
  const variables: string[] = [];
  const prefixes: string[] = [];
  for (const finding of [f, ...input.findings]) {
    if (!NOTFOUND_IDS.includes(finding.id)) continue;
    const variable = cap(finding, 'variable');
    const prefix = cap(finding, 'prefix');
    if (variable && !variables.includes(variable)) variables.push(variable);
    if (prefix && !prefixes.includes(prefix)) prefixes.push(prefix);
  }
  return { variables, prefixes };
}

const NOTFOUND_IDS = ['cmake-variables-notfound', 'cmake-notfound-path', 'libfind-required-not-found'];

export const CMAKE_FIND_RULES: Rule[] = [
  {
    ids: ['cmake-find-names-not-found'],
    propose(f, _input, { services: s }) {
      const variable = cap(f, 'variable');
      const names = splitNames(cap(f, 'names') ?? '');
      if (!variable || names.length === 0) return [];
      const command = (cap(f, 'command') as FindCommand | undefined) ?? commandFromVariable(variable);
      const needs = needsOfCall({ command, names, suffixes: [] });
      return installFor(
        'install-find-names-package',
        needs,
        `CMake's ${command}(${variable}) found none of ${names.join(', ')}`,
        s,
      );
    },
  },
  {
    ids: NOTFOUND_IDS,
    needsTree:
      "which package a NOTFOUND variable needs is said by the project's find_* calls in its CMakeLists.txt",
    async propose(f, input, { services: s }) {
      const { variables, prefixes } = notFoundVariables(f, input);
      if (variables.length === 0 && prefixes.length === 0) return [];
      const calls = await projectFindCalls(input.repo.root, input.recipe.dir);
      const wanted = calls.filter(
        (c) => variables.includes(c.variable) || prefixes.some((p) => c.variable.startsWith(`${p}_`)),
      );
      const items = wanted.map(needsOfCall).filter((needs) => needs.length > 0);
      if (items.length === 0) return [];
      const what = wanted.map((c) => `${c.command}(${c.variable}) in ${c.file}`).join(', ');
      return installEach(
        'install-notfound-package',
        items,
        `CMake left ${[...variables, ...prefixes.map((p) => `${p}_*`)].join(', ')} NOTFOUND; the project's ${what} say what it looks for`,
        s,
      );
    },
  },
];
