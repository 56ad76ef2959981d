/** Expected targets from qmake project files: TEMPLATE (app, lib, subdirs) and TARGET. */

import { baseOf } from '../paths.js';
import { isPlainName, makeTarget, plainBase, type InferredTarget } from './common.js';

/** Scopes that are off when building on Linux. */
const FOREIGN_SCOPE =
  /^(?:win32|win64|windows|winrt|msvc\S*|macx\S*|mac|macos|darwin|ios|android|wasm|emscripten|haiku|freebsd|openbsd|netbsd|qnx|vxworks|integrity)$/i;

interface ScopeFrame {
  off: boolean;
}

function conditionOff(condition: string): boolean {
  // `win32`, `win32|macx`, `win32:debug` are off; `!win32`, `unix`, `linux*`, `CONFIG(debug, …)` are not.
  const alternatives = condition.split('|').map((s) => s.trim());
  return alternatives.every((alt) => {
    const first = alt.split(':')[0]?.trim() ?? '';
    return FOREIGN_SCOPE.test(first);
  });
}

/** Whether a .pro file is a qmake project (GNU indent also uses `.indent.pro`, Prolog uses `.pro`). */
export function looksLikeQmake(file: string, text: string): boolean {
  if (baseOf(file).startsWith('.')) return false;
  return /^\s*(?:[\w!|:]+\s*:\s*)?(?:TEMPLATE|TARGET|SOURCES|HEADERS|QT|CONFIG|SUBDIRS|FORMS|INCLUDEPATH|LIBS|DEFINES|DESTDIR)\s*[+*\-~]?=/m.test(
    text,
  );
}

/** What a .pro file sets on Linux: its variables, CONFIG words and the line of its TARGET. */
interface ProState {
  vars: Map<string, string>;
  config: Set<string>;
  targetLine: number;
  stack: ScopeFrame[];
}

/** Reads the assignments of a .pro file, skipping scopes that are off on Linux. */
function readPro(text: string): ProState {
  const state: ProState = { vars: new Map(), config: new Set(), targetLine: 1, stack: [] };
  const { stack } = state;
  const physical = text.split(/\r?\n/);
  for (let i = 0; i < physical.length; i++) {
    const lineNo = i + 1;
    let raw = physical[i] ?? '';
    while (/\\\s*$/.test(raw.replace(/#.*$/, '')) && i + 1 < physical.length) {
      raw = `${raw.replace(/#.*$/, '').replace(/\\\s*$/, '')} ${physical[++i] ?? ''}`;
    }
    let line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    // Close scopes first (`}` or `} else {`).
    while (line.startsWith('}')) {
      const frame = stack.pop();
      line = line.slice(1).trim();
      if (/^else\s*\{/.test(line)) {
        stack.push({ off: frame ? !frame.off : false });
        line = line.replace(/^else\s*\{/, '').trim();
      }
    }
    if (line === '') continue;
    const open = /^([^={}]+?)\s*\{\s*(.*)$/.exec(line);
    if (open && !/[+\-*~]?=/.test(open[1] ?? '')) {
      stack.push({ off: conditionOff(open[1] ?? '') });
      line = (open[2] ?? '').replace(/\}\s*$/, '').trim();
      const closesInline = /\}\s*$/.test(open[2] ?? '');
      if (line !== '') assignLine(state, line, lineNo);
      if (closesInline) stack.pop();
      continue;
    }
    assignLine(state, line, lineNo);
  }
  return state;
}

/** One `NAME op value` line (possibly behind a `scope:` prefix); CONFIG is kept as a set of words. */
function assignLine(state: ProState, text: string, lineNo: number): void {
  if (state.stack.some((f) => f.off)) return;
  let line = text;
  // `win32: TARGET = x` style single-line scopes.
  const scoped = /^([A-Za-z0-9_!|*:.()-]+?)\s*:\s*([A-Za-z_][\w.]*\s*[+\-*~]?=.*)$/.exec(line);
  if (scoped) {
    if (conditionOff(scoped[1] ?? '')) return;
    line = scoped[2] ?? '';
  }
  const m = /^([A-Za-z_][\w.]*)\s*([+\-*~]?=)\s*(.*)$/.exec(line);
  if (!m) return;
  const name = m[1] ?? '';
  const op = m[2] ?? '=';
  const value = (m[3] ?? '').trim();
  const { vars, config } = state;
  if (name === 'CONFIG') {
    for (const word of value.split(/\s+/)) {
      if (op === '-=') config.delete(word);
      else if (op === '+=' || op === '*=' || op === '=') config.add(word);
    }
    return;
  }
  if (op === '=' || op === '*=') vars.set(name, value);
  else if (op === '+=') vars.set(name, `${vars.get(name) ?? ''} ${value}`.trim());
  if (name === 'TARGET') state.targetLine = lineNo;
}

/** TARGET with qtLibraryTarget(), $$TARGET and $$PWD resolved, or the .pro file's base name. */
function targetName(vars: ReadonlyMap<string, string>, file: string): string {
  const proBase = baseOf(file).replace(/\.pro$/, '');
  const target = (vars.get('TARGET') ?? proBase)
    .replace(/\$\$\{?qtLibraryTarget\}?\(([^)]*)\)/, '$1')
    .replace(/\$\$\{?TARGET\}?/g, proBase)
    .replace(/\$\$\{?PWD\}?\/?/g, '')
    .replace(/^"(.*)"$/, '$1');
  return plainBase(target);
}

/** Targets of one .pro file (`file` is its repository-relative path). */
export function qmakeTargets(text: string, file: string): InferredTarget[] {
  if (!looksLikeQmake(file, text)) return [];
  const { vars, config, targetLine } = readPro(text);
  const template = (vars.get('TEMPLATE') ?? 'app').toLowerCase();
  if (template !== 'app' && template !== 'lib' && template !== 'vcapp' && template !== 'vclib') return [];
  const target = targetName(vars, file);
  const fromVar = vars.has('TARGET');
  const unresolved = !isPlainName(target);

  let confidence = unresolved ? 0.3 : fromVar ? 0.85 : 0.75;
  const notes: string[] = [];
  if (!fromVar) notes.push('TARGET not set: the .pro file name');
  if (unresolved) notes.push('TARGET could not be resolved');
  if (template === 'app' || template === 'vcapp') {
    return [
      makeTarget('qmake', {
        name: target,
        kind: 'executable',
        file,
        line: targetLine,
        confidence,
        ...(notes.length ? { note: notes.join('; ') } : {}),
      }),
    ];
  }
  const isStatic = config.has('staticlib') || config.has('static');
  const isPlugin = config.has('plugin');
  if (!isStatic && !config.has('shared') && !config.has('dll') && !isPlugin) {
    notes.push('TEMPLATE = lib: shared unless CONFIG has staticlib');
    confidence *= 0.95;
  }
  return [
    makeTarget('qmake', {
      name: `lib${target}${isStatic ? '.a' : '.so'}`,
      kind: isStatic ? 'static_library' : isPlugin ? 'module' : 'shared_library',
      file,
      line: targetLine,
      confidence,
      logicalName: target,
      ...(notes.length ? { note: notes.join('; ') } : {}),
    }),
  ];
}
