/**
 * What the build files declare they need from the system, read before anything runs: meson
 * `dependency('x')`, CMake `find_package(X)`, `pkg_check_modules`/`pkg_search_module`, autoconf
 * `PKG_CHECK_MODULES`/`AC_CHECK_LIB`/`AC_CHECK_HEADERS`, `pkg-config --cflags x` in Makefiles, the
 * `#include <…>` lines of the sources of a plain Makefile project and the `-l` libraries and generator
 * tools of its default goal (make-goal.ts), and the packages a build doc's
 * `apt-get install` line names. Meson, CMake and configure stop at the first missing dependency, so a
 * project that needs four `-dev` packages otherwise spends four turns discovering them one by one; the
 * rules strategy resolves these declarations in one batched lookup and installs the required ones up front.
 *
 * Each declaration keeps where it came from (file:line and the text as written) so result.json can say why
 * a package was pre-installed. Only the project's own files are read (vendored and submodule trees are
 * the caller's to exclude); reads are small and never follow symlinks out of the tree.
 */
import path from 'node:path';

import type { BuildDeclaration, BuildSystem, DeclarationKind, DocFile } from './types.js';

export type { BuildDeclaration, DeclarationKind } from './types.js';
import { cmakeCallText, cmakeCommands, cmakeFinds } from './cmake-finds.js';
import { programInstallLines } from './documented.js';
import { makeGoalNeeds } from './make-goal.js';
import { readSmallText } from './walk.js';

/** At most this many declarations per repository (a plain Makefile project's includes can run long). */
const MAX_DECLARATIONS = 200;
/** Sources read for `#include <…>` in a plain Makefile project. */
const MAX_INCLUDE_SOURCES = 400;
const READ_BYTES = 256 * 1024;

/** A macro or function call found in a build file: its arguments as written and its line. */
interface Call {
  body: string;
  line: number;
  text: string;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/** Drops `#` comments (meson, CMake, Makefiles) and `dnl` lines (autoconf), keeping line numbers. */
function stripLineComments(text: string, style: 'hash' | 'm4'): string {
  return text
    .split('\n')
    .map((line) => {
      if (style === 'm4') return /^\s*(dnl\b|#)/.test(line) ? '' : line;
      const hash = line.indexOf('#');
      return hash >= 0 ? line.slice(0, hash) : line;
    })
    .join('\n');
}

/** Every call of `name(...)` (case-sensitive), its parentheses balanced across lines. */
function callsOf(text: string, name: string): Call[] {
  const calls: Call[] = [];
  const pattern = new RegExp(`(?<![A-Za-z0-9_])${name}\\s*\\(`, 'g');
  for (const match of text.matchAll(pattern)) {
    const open = match.index + match[0].length;
    let depth = 1;
    let i = open;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
    }
    if (depth !== 0) continue;
    const body = text.slice(open, i - 1);
    calls.push({ body, line: lineOf(text, match.index), text: oneLine(text.slice(match.index, i)) });
  }
  return calls;
}

/** Splits m4 arguments at top-level commas, dropping one level of `[...]` quoting around each. */
function m4Args(body: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of body) {
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    if (c === ',' && depth === 0) {
      args.push(current);
      current = '';
    } else current += c;
  }
  args.push(current);
  return args.map((a) =>
    a
      .trim()
      .replace(/^\[([\s\S]*)\]$/, '$1')
      .trim(),
  );
}

/** pkg-config module names from a module list (`glib-2.0 >= 2.56 gio-2.0`): versions and operators dropped. */
function moduleNames(list: string): string[] {
  const words = list.split(/[\s,]+/).filter(Boolean);
  const names: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (/^[<>=!]=?$/.test(w)) {
      i++; // the version after the operator
      continue;
    }
    const name = w.split(/[<>=!]/)[0]!;
    if (/^[A-Za-z0-9][A-Za-z0-9_.+-]*$/.test(name)) names.push(name);
  }
  return names;
}

type Collect = (
  kind: DeclarationKind,
  name: string,
  required: boolean,
  file: string,
  call: Call,
  group?: string,
) => void;

/** Meson names that are not pkg-config modules (built-in dependencies meson finds itself). */
const MESON_BUILTIN = new Set(['threads', 'openmp', 'dl', 'iconv', 'intl', 'appleframeworks', '']);

function readMeson(text: string, file: string, add: Collect): void {
  for (const call of callsOf(stripLineComments(text, 'hash'), 'dependency')) {
    const name = /^\s*'([^']*)'/.exec(call.body)?.[1];
    if (name === undefined || MESON_BUILTIN.has(name)) continue;
    // `required: false` or a feature option (`required: get_option('x')`) may be skipped by the default build.
    const required = !/required\s*:\s*(false|get_option|not\b)/.test(call.body);
    add('pkgconfig', name, required, file, call);
  }
}

/** CMake packages that are part of CMake or the toolchain, not something to install. */
const CMAKE_BUILTIN = new Set(['threads', 'pkgconfig', 'openmp', 'git', 'doxygen', 'python', 'python3']);

function readCmake(text: string, file: string, add: Collect): void {
  // One linear pass over the file's commands (cmake-finds.ts), read per command name in this order.
  const commands = cmakeCommands(text);
  const callsNamed = (name: string): Call[] =>
    commands
      .filter((c) => c.name === name)
      .map((c) => ({ body: c.args, line: c.line, text: oneLine(cmakeCallText(c)) }));
  // `if(NOT X_FOUND)` in a file that downloads (FetchContent, ExternalProject): the project fetches X when the
  // system lacks it, which fails offline and costs a download online, so X is needed as if REQUIRED.
  const downloads = commands.some((c) => /^(?:fetchcontent_declare|externalproject_add)$/i.test(c.name));
  const fetchedUnlessFound = new Set(
    downloads
      ? commands
          .filter((c) => c.name === 'if')
          .map((c) => /^\s*NOT\s+([A-Za-z][A-Za-z0-9_+-]*)_FOUND\s*$/i.exec(c.args)?.[1]?.toLowerCase())
          .filter((n): n is string => n !== undefined)
      : [],
  );
  for (const call of callsNamed('find_package')) {
    const words = call.body.trim().split(/\s+/);
    const name = words[0];
    if (!name || !/^[A-Za-z][A-Za-z0-9_+-]*$/.test(name) || CMAKE_BUILTIN.has(name.toLowerCase())) continue;
    add('cmake', name, words.includes('REQUIRED') || fetchedUnlessFound.has(name.toLowerCase()), file, call);
  }
  for (const fn of ['pkg_check_modules', 'pkg_search_module']) {
    for (const call of callsNamed(fn)) {
      const words = call.body.trim().split(/\s+/).slice(1); // the prefix first
      const required = words.includes('REQUIRED');
      const list = words.filter((w) => !/^(REQUIRED|QUIET|IMPORTED_TARGET|GLOBAL|NO_CMAKE_\w+)$/.test(w));
      const names = moduleNames(list.join(' '));
      // pkg_search_module takes the first that exists: the first is the one to install.
      for (const name of fn === 'pkg_search_module' ? names.slice(0, 1) : names)
        add('pkgconfig', name, required, file, call);
    }
  }
}

/**
 * The top configure.ac's AC_PROG_YACC / AC_PROG_LEX when the tree has a grammar (`.y`, `.yy`) or scanner
 * (`.l`, `.ll`) it does not ship generated (no `.c` beside it): bison or flex is needed, though the macros
 * never fail themselves (they fall back to `yacc`/`:`), and the build stops later on the missing tool.
 */
function readParserGenerators(clean: string, file: string, add: Collect, files: ReadonlySet<string>): void {
  for (const [macro, ext, pkg] of [
    ['AC_PROG_YACC', /\.yy?$/, 'bison'],
    ['AC_PROG_LEX', /\.ll?$/, 'flex'],
  ] as const) {
    const m = new RegExp(`(?<![A-Za-z0-9_])${macro}\\b`).exec(clean);
    if (!m) continue;
    if ([...files].some((f) => ext.test(f) && !files.has(f.replace(ext, '.c'))))
      add('package', pkg, true, file, { body: '', line: lineOf(clean, m.index), text: macro });
  }
}

/** The not-found action fails configure: an error in it that is not under an option's `= yes` test. */
function stopsConfigure(action: string | undefined): boolean {
  if (action === undefined) return false;
  const gates = featureGates(action);
  return action
    .split('\n')
    .some((line, i) => /AC_MSG_ERROR|AC_MSG_FAILURE|exit 1/.test(line) && !gates[i + 1]);
}

/** The variable a not-found action only sets to no (`found_ncurses=no`), if that is all it does. */
function notFoundVariable(action: string | undefined): string | undefined {
  return /^\s*([A-Za-z_]\w*)\s*=\s*["']?no["']?\s*$/.exec(action ?? '')?.[1];
}

/** A line that ends an `if` block: `fi`, or a one-line `if …; then …; fi`. */
function closesIf(line: string): boolean {
  return /^fi\b/.test(line) || /;\s*fi\s*;?$/.test(line);
}

/**
 * The shell variables configure fails on: an `if test … $V …` block (if/fi balanced by lines) that holds an
 * AC_MSG_ERROR in any branch, or `test … $V … && AC_MSG_ERROR` / `|| AC_MSG_ERROR` on one line. tmux's
 * `if test "x$found_libevent" = xno; then AC_MSG_ERROR(…)` is the pattern; a check whose not-found action only
 * sets that variable is then one of the need's alternatives, not an optional feature.
 */
export function variablesConfigureFailsOn(text: string): Set<string> {
  const out = new Set<string>();
  // One pass (a hostile configure.ac of unclosed `if`s must not cost a scan per line): each open `if` block
  // counts the errors seen inside it, and each `if`/`elif` line that tests variables remembers the count it
  // started at; a block's errors count for the block around it when it closes.
  interface Block {
    errors: number;
    watchers: { vars: string[]; from: number }[];
  }
  const stack: Block[] = [];
  const close = (block: Block): void => {
    for (const w of block.watchers) if (block.errors > w.from) for (const v of w.vars) out.add(v);
    const parent = stack[stack.length - 1];
    if (parent) parent.errors += block.errors;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const vars = [...line.matchAll(/\$\{?([A-Za-z_]\w*)\}?/g)].map((m) => m[1]!);
    const tests = vars.length > 0 && /\btest\b|\[\s/.test(line);
    const error = /AC_MSG_(ERROR|FAILURE)/.test(line);
    if (tests && error && /&&|\|\|/.test(line)) {
      for (const v of vars) out.add(v);
      continue;
    }
    if (/^if\s/.test(line)) stack.push({ errors: 0, watchers: [] });
    const top = stack[stack.length - 1];
    if (top && tests && /^(el)?if\s/.test(line)) top.watchers.push({ vars, from: top.errors });
    if (top && error) top.errors++;
    if (top && closesIf(line)) close(stack.pop()!);
  }
  while (stack.length > 0) close(stack.pop()!);
  return out;
}

/** A `case $host in` label for a system that is not Linux. */
const OTHER_HOST =
  /mingw|cygwin|msys|win32|win64|windows|darwin|apple|macos|bsd|dragonfly|solaris|sunos|haiku|aix|hpux|qnx/i;

/**
 * Per line (1-based), whether it sits in the first branch of an enclosing `if test "x$V" = xyes` block or
 * in an option's `case … yes)` branch: a feature the user turns on (`--enable-systemd` sets `enable_systemd=yes`; a default
 * configure leaves it empty), so a check there is not made by default; or in a `case $host in` branch for
 * other systems only (`*mingw*)`), which a Linux build never takes. An `else` branch, or a test for
 * `no`, is the default path.
 */
function featureGates(text: string): boolean[] {
  const gated: boolean[] = [false];
  const stack: { kind: 'if' | 'case'; gate: boolean }[] = [];
  // How many open blocks gate what they hold (kept as a count: a line's answer costs nothing however deep).
  let open = 0;
  const setGate = (entry: (typeof stack)[number], gate: boolean): void => {
    open += Number(gate) - Number(entry.gate);
    entry.gate = gate;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const top = stack[stack.length - 1];
    const caseOn = /^case\s+"?\$\{?[A-Za-z_]\w*\}?"?\s+in\b/.test(line);
    const label = /^([A-Za-z0-9_*|"'-]+)\)/.exec(line)?.[1];
    if (/^if\s/.test(line)) {
      const gate = /\$\{?([A-Za-z_]\w*)\}?"?\s*=\s*"?x?yes"?/.test(line);
      stack.push({ kind: 'if', gate });
      open += Number(gate);
    } else if (/^(elif|else)\b/.test(line) && top?.kind === 'if') {
      setGate(top, false);
    } else if (caseOn) {
      stack.push({ kind: 'case', gate: false });
    } else if (label !== undefined && top?.kind === 'case') {
      // `yes)` alone is what the option's user asked for; `check|yes)`, `*)` and `auto)` are the default path.
      // A branch for other hosts only (`case $host in *mingw*)`) is not taken on a Linux build machine either.
      const labels = label.split('|').map((l) => l.replace(/["']/g, ''));
      setGate(
        top,
        (labels.includes('yes') && !labels.some((l) => ['check', 'auto', '*', ''].includes(l))) ||
          labels.every((l) => OTHER_HOST.test(l) && !/linux|gnu/i.test(l)),
      );
    }
    gated.push(open > 0);
    const last = stack[stack.length - 1]; // the block this line opened, for one-line `if …; fi` and `yes) …;;`
    if (last?.kind === 'case' && /;;\s*$/.test(line)) setGate(last, false);
    if ((/^esac\b/.test(line) && last?.kind === 'case') || (closesIf(line) && last?.kind === 'if')) {
      setGate(last, false);
      stack.pop();
    }
  }
  return gated;
}

function readAutoconf(text: string, file: string, add: Collect, files: ReadonlySet<string>): void {
  const clean = stripLineComments(text, 'm4');
  if (!file.includes('/')) readParserGenerators(clean, file, add, files);
  const fatal = variablesConfigureFailsOn(clean);
  const gates = featureGates(clean);
  /** The call is inside a feature turned on by an option (`if test "x$enable_utempter" = xyes`). */
  const gated = (call: Call): boolean => gates[call.line] === true;
  // A not-found action that only sets a variable configure fails on: one alternative of a required need.
  const alternative = (action: string | undefined): string | undefined => {
    const v = notFoundVariable(action);
    return v !== undefined && fatal.has(v) ? v : undefined;
  };
  for (const call of callsOf(clean, 'PKG_CHECK_MODULES')) {
    const args = m4Args(call.body);
    const group = alternative(args[3]);
    // Without an action-if-not-found, PKG_CHECK_MODULES stops configure.
    const required =
      !gated(call) &&
      (args[3] === undefined || args[3] === '' || stopsConfigure(args[3]) || group !== undefined);
    for (const name of moduleNames(args[1] ?? '')) add('pkgconfig', name, required, file, call, group);
  }
  for (const call of callsOf(clean, 'AC_CHECK_LIB')) {
    const args = m4Args(call.body);
    const lib = args[0] ?? '';
    const group = alternative(args[3]);
    if (/^[A-Za-z0-9_+.-]+$/.test(lib))
      add(
        'library',
        lib,
        !gated(call) && (stopsConfigure(args[3]) || group !== undefined),
        file,
        call,
        group,
      );
  }
  for (const macro of ['AC_CHECK_HEADERS', 'AC_CHECK_HEADER']) {
    for (const call of callsOf(clean, macro)) {
      const args = m4Args(call.body);
      const group = alternative(args[2]);
      const required = !gated(call) && (stopsConfigure(args[2]) || group !== undefined);
      for (const header of (args[0] ?? '').split(/\s+/).filter((h) => /^[A-Za-z0-9_/.+-]+\.h$/.test(h)))
        add('header', header, required, file, call, group);
    }
  }
}

function readMakefile(text: string, file: string, add: Collect): void {
  const clean = stripLineComments(text, 'hash');
  for (const match of clean.matchAll(/pkg-config((?:\s+--[a-z-]+(?:=\S+)?)*)\s+([^`)\n;|&]+)/g)) {
    if (!/--(cflags|libs)/.test(match[1] ?? '')) continue;
    const list = (match[2] ?? '').replace(/--[a-z-]+/g, ' ');
    if (list.includes('$')) continue; // a variable: the names are elsewhere
    const call: Call = { body: '', line: lineOf(clean, match.index), text: oneLine(match[0]) };
    for (const name of moduleNames(list)) add('pkgconfig', name, true, file, call);
  }
}

/**
 * `#include <x.h>` (or .hh, .hpp, .hxx), and a library's extensionless header under its folder (`<Eigen/Core>`,
 * `<QtCore/QString>`): the standard C++ headers (`<vector>`) have no folder.
 */
const INCLUDE =
  /^\s*#\s*include\s*<([A-Za-z0-9_/.+-]+\.(?:h|hh|hpp|hxx)|[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)+)>/;
const DIRECTIVE = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b\s*(.*)$/;
/** Conditions that do not make an include optional: C++ linkage and the usual "is it defined" of the header. */
const HARMLESS_CONDITION = /^(?:defined\s*\(?\s*)?__cplusplus\b/;

/**
 * The `#include <…>` lines a default build of this file reads: those outside any `#if`, `#ifdef`, `#elif` or
 * `#else` block, where an include guard (`#ifndef X_H` then `#define X_H`) and `#ifdef __cplusplus` do not
 * count. An include under a condition is another platform's (`#ifdef _WIN32` + `<io.h>`) or an optional
 * feature's (`#if HAVE_SSL`): installing a package for it would be a guess, and a wrong one costs a download;
 * the repair loop is there if the default build does read it.
 */
export function unconditionalIncludes(text: string): { header: string; line: number; text: string }[] {
  const out: { header: string; line: number; text: string }[] = [];
  const lines = text.split('\n');
  // Per open block: whether it makes what it holds conditional.
  const stack: boolean[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      const [, word, rest = ''] = directive;
      const condition = rest.replace(/\/\*.*?\*\/|\/\/.*$/g, '').trim();
      if (word === 'if' || word === 'ifdef') stack.push(!HARMLESS_CONDITION.test(condition));
      else if (word === 'ifndef') {
        let n = i + 1;
        while (n < lines.length && (lines[n]!.trim() === '' || /^\s*(\/\/|\/\*)/.test(lines[n]!))) n++;
        const next = lines[n];
        const name = /^[A-Za-z_]\w*$/.test(condition) ? condition : undefined;
        const guard =
          name !== undefined && next !== undefined && new RegExp(`^\\s*#\\s*define\\s+${name}\\b`).test(next);
        stack.push(!guard && !HARMLESS_CONDITION.test(condition));
      } else if (word === 'elif' || word === 'else') {
        if (stack.length > 0) stack[stack.length - 1] = true;
      } else if (word === 'endif') stack.pop();
      continue;
    }
    if (stack.some(Boolean)) continue;
    const match = INCLUDE.exec(line);
    if (match) out.push({ header: match[1]!, line: i + 1, text: oneLine(match[0]) });
  }
  return out;
}

/** `#include <…>` of the sources, except the project's own headers (any file in the tree with that path tail). */
async function readIncludes(root: string, files: readonly string[], add: Collect): Promise<void> {
  const own = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 0; i < parts.length; i++) own.add(parts.slice(i).join('/'));
  }
  const sources = files.filter((f) => /\.(c|cc|cpp|cxx|h|hh|hpp)$/.test(f)).slice(0, MAX_INCLUDE_SOURCES);
  for (const file of sources) {
    const text = await readSmallText(root, file, { maxBytes: READ_BYTES });
    if (text === undefined) continue;
    for (const include of unconditionalIncludes(text)) {
      if (own.has(include.header)) continue;
      add('header', include.header, true, file, { body: '', line: include.line, text: include.text });
    }
  }
}

/** Macros of Autoconf and M4 themselves (`AC_`, `AS_`, `AH_`, `AU_`, `_AC_`): never a package's. */
/** At most this many undefined macros are declared (a real configure.ac calls a few dozen macros). */
const MAX_MACROS = 60;
const AUTOCONF_OWN = /^(?:_?AC|AS|AH|AU)_/;
const MACRO_CALL = /(?<![A-Za-z0-9_$])([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?=\s*\(|\s*$)/gm;
const MACRO_DEFINITION =
  /\b(?:AC_DEFUN(?:_ONCE)?|AU_DEFUN|m4_define|m4_defun)\(\s*\[?([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The macros a configure.ac that autoreconf will expand (no committed `configure` beside it) calls without
 * defining them in the tree (its .m4 files, acinclude.m4): each needs a package that ships it in aclocal's
 * path, or autoreconf stops. Autoconf's own are left out; which package ships the rest is the knowledge
 * base's table (knowledge/repair/declared.ts), and a macro it does not know is no declaration at all.
 */
async function readUndefinedMacros(
  root: string,
  configureAc: string,
  files: readonly string[],
  add: Collect,
): Promise<void> {
  const dir = path.posix.dirname(configureAc);
  const inDir = (name: string): string => (dir === '.' ? name : `${dir}/${name}`);
  if (files.includes(inDir('configure'))) return;
  const text = await readSmallText(root, configureAc, { maxBytes: READ_BYTES });
  if (text === undefined) return;
  const clean = stripLineComments(text, 'm4');
  const defined = new Set<string>();
  const prefix = dir === '.' ? '' : `${dir}/`;
  const m4Files = files.filter((f) => f.endsWith('.m4') && f.startsWith(prefix)).slice(0, 200);
  for (const file of [configureAc, ...m4Files]) {
    const body = file === configureAc ? clean : await readSmallText(root, file, { maxBytes: READ_BYTES });
    for (const m of (body ?? '').matchAll(MACRO_DEFINITION)) defined.add(m[1]!);
  }
  const named = new Set<string>();
  for (const m of clean.matchAll(MACRO_CALL)) {
    const name = m[1]!;
    if (AUTOCONF_OWN.test(name) || defined.has(name) || named.has(name)) continue;
    named.add(name);
    if (named.size > MAX_MACROS) break;
    const end = clean.indexOf('\n', m.index);
    const call: Call = {
      body: '',
      line: lineOf(clean, m.index),
      text: oneLine(clean.slice(m.index, end < 0 ? undefined : end)),
    };
    add('m4-macro', name, true, configureAc, call);
  }
}

const APT_LINE = /\b(?:apt-get|apt|aptitude)\s+(?:-\S+\s+)*install\b([^\n]*)/g;

/** Packages a build doc's `apt-get install` line names (options, variables and shell syntax skipped). */
function readDocInstall(text: string, file: string, add: Collect): void {
  // A line in a section about installing the finished program (`## Installing`) installs the project itself.
  const installing = programInstallLines(text);
  for (const match of text.matchAll(APT_LINE)) {
    const rest = (match[1] ?? '').split(/&&|\|\||;|\||`|#/)[0] ?? '';
    const call: Call = { body: '', line: lineOf(text, match.index), text: oneLine(match[0]) };
    if (installing[call.line - 1] === true) continue;
    for (const word of rest.replace(/\\$/, '').split(/\s+/)) {
      if (word.startsWith('-') || !/^[a-z0-9][a-z0-9+.-]+$/.test(word)) continue;
      add('package', word, true, file, call);
    }
  }
}

export interface DeclaredDepsInput {
  /** The project's own files (vendored and submodule trees left out), relative to `root`. */
  files: readonly string[];
  buildSystems: readonly BuildSystem[];
  docs: readonly DocFile[];
}

/** Docs worth reading for install lines: READMEs and build/install guides. */
function isBuildDoc(doc: DocFile): boolean {
  return /(^|\/)(readme|install|building|build|compiling|hacking|contributing)[^/]*$/i.test(doc.path);
}

/** What a reader is given: a build file's text and name, where to collect, and the project's files. */
type Reader = (text: string, file: string, add: Collect, files: ReadonlySet<string>) => void;

/** Primary build systems whose sources' `#include <…>` lines are read (none at all, too). */
const INCLUDE_SCANNED: ReadonlySet<BuildSystem['kind']> = new Set(['make', 'script', 'configure', 'scons']);

/** CMake files read for the project's own find_library/find_path (cmake-finds.ts). */
const MAX_CMAKE_FILES = 200;

function isCmakeFile(file: string): boolean {
  const base = path.posix.basename(file);
  return base === 'CMakeLists.txt' || base.endsWith('.cmake');
}

/** The build files of each reader, by base name. */
function readerFor(file: string): Reader | undefined {
  const base = path.posix.basename(file);
  if (base === 'meson.build') return readMeson;
  if (base === 'CMakeLists.txt' || base.endsWith('.cmake')) return readCmake;
  if (base === 'configure.ac' || base === 'configure.in') return readAutoconf;
  if (base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile' || base.endsWith('.mk'))
    return readMakefile;
  return undefined;
}

/**
 * Every declaration of the project's build files and build docs, de-duplicated by kind and name (a name
 * declared required anywhere is required). The sources' `#include <…>` lines are read only when the
 * primary build system declares nothing a reader understands (a plain Makefile, a build script, a
 * hand-written configure, SCons, or none at all); CMake, meson, autotools and qmake declare their own.
 */
export async function readDeclaredDependencies(
  root: string,
  input: DeclaredDepsInput,
): Promise<BuildDeclaration[]> {
  const found = new Map<string, BuildDeclaration>();
  const add: Collect = (kind, name, required, file, call, group) => {
    const key = `${kind}:${name}`;
    const seen = found.get(key);
    const where = { source: `${file}:${call.line}`, text: call.text };
    if (seen) {
      // Required on its own beats required as one of a group; either beats optional.
      if (required && (!seen.required || (seen.group !== undefined && group === undefined))) {
        const { group: _old, ...rest } = seen;
        found.set(key, { ...rest, required, ...where, ...(group !== undefined ? { group } : {}) });
      }
      return;
    }
    if (found.size >= MAX_DECLARATIONS) return;
    found.set(key, { kind, name, required, ...where, ...(group !== undefined ? { group } : {}) });
  };
  const files = new Set(input.files);
  for (const file of input.files) {
    const reader = readerFor(file);
    if (!reader) continue;
    const text = await readSmallText(root, file, { maxBytes: READ_BYTES });
    if (text !== undefined) reader(text, file, add, files);
  }
  const primary = input.buildSystems[0];
  if (primary?.kind === 'cmake') {
    const texts = new Map<string, string>();
    for (const file of input.files.filter(isCmakeFile).slice(0, MAX_CMAKE_FILES)) {
      const text = await readSmallText(root, file, { maxBytes: READ_BYTES });
      if (text !== undefined) texts.set(file, text);
    }
    for (const find of cmakeFinds(texts))
      add(find.kind, find.name, find.required, find.file, { body: '', line: find.line, text: find.text });
  }
  if (primary?.kind === 'autotools') {
    const configureAc = input.files.find(
      (f) =>
        path.posix.dirname(f) === (primary.dir || '.') && /^configure\.(ac|in)$/.test(path.posix.basename(f)),
    );
    if (configureAc) await readUndefinedMacros(root, configureAc, input.files, add);
  }
  // Build systems that declare nothing a reader understands: the sources' own includes say what they need.
  if (!primary || INCLUDE_SCANNED.has(primary.kind)) await readIncludes(root, input.files, add);
  if (primary?.kind === 'make') {
    const text = await readSmallText(root, primary.file, { maxBytes: READ_BYTES });
    if (text !== undefined) {
      for (const need of makeGoalNeeds(text)) {
        const call: Call = { body: '', line: need.line, text: need.text };
        add(need.kind === 'library' ? 'library' : 'package', need.name, true, primary.file, call);
      }
    }
  }
  for (const doc of input.docs.filter(isBuildDoc)) {
    const text = await readSmallText(root, doc.path, { maxBytes: READ_BYTES });
    if (text !== undefined) readDocInstall(text, doc.path, add);
  }
  return [...found.values()];
}
