/** Expected targets from Makefile.am primaries: *_PROGRAMS, *_LTLIBRARIES, *_LIBRARIES. */

import { makeTarget, plainBase, isPlainName, type InferredTarget } from './common.js';
import { dirOf, roleOf } from '../paths.js';
import type { ExpectedTarget, TargetKind } from '../types.js';

export interface MakeLine {
  /** Recipe lines keep their leading tab; other lines are trimmed. */
  text: string;
  line: number;
  /** Depth of `if`/`ifeq`-style conditionals around the line. */
  conditional: number;
  /** A tab-started line inside a rule: a shell command. */
  recipe: boolean;
}

const CONDITIONAL_OPEN = /^(?:if|ifeq|ifneq|ifdef|ifndef)\b/;

/**
 * Joins backslash-continued lines and drops comments. A tab-started line is a recipe line only after a
 * rule (elsewhere, as in GNU make, it is ordinary syntax: indented assignments inside ifeq blocks).
 * `if`/`ifeq`/`ifdef`/… `endif` blocks are tracked, not evaluated; `define … endef` bodies are skipped.
 */
export function logicalLines(text: string): MakeLine[] {
  const out: MakeLine[] = [];
  const physical = text.split(/\r?\n/);
  let depth = 0;
  let inRule = false;
  let inDefine = false;
  for (let i = 0; i < physical.length; i++) {
    const start = i + 1;
    let line = physical[i] ?? '';
    while (line.endsWith('\\') && i + 1 < physical.length) {
      line = `${line.slice(0, -1)} ${(physical[i + 1] ?? '').trimStart()}`;
      i++;
    }
    if (inDefine) {
      if (/^\s*endef\b/.test(line)) inDefine = false;
      continue;
    }
    if (line.startsWith('\t') && inRule) {
      if (line.trim() !== '') out.push({ text: line, line: start, conditional: depth, recipe: true });
      continue;
    }
    const trimmed = line.replace(/(^|\s)#.*$/, '$1').trim();
    if (trimmed === '') continue;
    if (CONDITIONAL_OPEN.test(trimmed)) {
      depth++;
      continue;
    }
    if (/^endif\b/.test(trimmed)) {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (/^else\b/.test(trimmed)) continue;
    if (/^(?:override\s+)?define\b/.test(trimmed)) {
      inDefine = true;
      inRule = false;
      continue;
    }
    inRule = isRuleLine(trimmed);
    out.push({ text: trimmed, line: start, conditional: depth, recipe: false });
  }
  return out;
}

/** `targets: prereqs` (a colon before any `=`), not `VAR := value`. */
export function isRuleLine(trimmed: string): boolean {
  if (ASSIGNMENT.test(trimmed)) return false;
  const colon = trimmed.search(/:(?!=)/);
  const eq = trimmed.indexOf('=');
  return colon > 0 && (eq < 0 || colon < eq);
}

export interface Assignment {
  name: string;
  op: string;
  value: string;
  line: number;
  conditional: number;
}

const ASSIGNMENT = /^(?:override\s+|export\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*(:{1,3}=|\?=|\+=|!=|=)\s*(.*)$/;

export function parseAssignment(line: MakeLine): Assignment | undefined {
  if (line.recipe) return undefined;
  const m = ASSIGNMENT.exec(line.text.trim());
  if (!m) return undefined;
  return {
    name: m[1] ?? '',
    op: m[2] ?? '=',
    value: (m[3] ?? '').trim(),
    line: line.line,
    conditional: line.conditional,
  };
}

/** Expands `$(VAR)` / `${VAR}` from `vars`; references it cannot resolve (functions, unknown names) stay. */
export function expandMake(value: string, vars: ReadonlyMap<string, string>, depth = 0): string {
  if (depth > 8) return value;
  return value.replace(
    /\$(?:\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\{([A-Za-z_][A-Za-z0-9_.-]*)\})/g,
    (m, a?: string, b?: string) => {
      const v = vars.get(a ?? b ?? '');
      return v === undefined ? m : expandMake(v, vars, depth + 1);
    },
  );
}

/** Replaces each `$(…)` / `${…}` left after expansion (functions, unknown variables) with `$(_)`, so it stays one word. */
export function collapseUnresolved(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '$' && (next === '(' || next === '{')) {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        const c = text[j];
        if (c === '(' || c === '{') depth++;
        else if ((c === ')' || c === '}') && --depth === 0) break;
      }
      out += '$(_)';
      i = j;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Variables of a Makefile(.am): unconditional assignments win over conditional ones; `+=` appends. */
export function collectVariables(lines: readonly MakeLine[]): Map<string, string> {
  const vars = new Map<string, string>();
  const unconditional = new Set<string>();
  for (const line of lines) {
    const a = parseAssignment(line);
    if (!a || a.op === '!=') continue;
    if (a.conditional > 0 && unconditional.has(a.name) && a.op !== '+=') continue;
    if (a.op === '+=') vars.set(a.name, `${vars.get(a.name) ?? ''} ${a.value}`.trim());
    else if (a.op === '?=') {
      if (!vars.has(a.name)) vars.set(a.name, a.value);
    } else vars.set(a.name, a.value);
    if (a.conditional === 0) unconditional.add(a.name);
  }
  return vars;
}

interface PrimaryRule {
  role?: ExpectedTarget['role'];
  confidence: number;
  note?: string;
}

function primaryRule(prefix: string, primary: string): PrimaryRule | undefined {
  if (prefix === 'EXTRA')
    return { role: 'excluded', confidence: 0.2, note: 'EXTRA_: built only when configure selects it' };
  if (prefix === 'check')
    return { role: 'test', confidence: 0.3, note: 'check_: built by `make check` only' };
  if (prefix === 'noinst') {
    // Convenience libraries are intermediate; not-installed programs are usually helpers or tests.
    if (primary !== 'PROGRAMS') return undefined;
    return {
      role: 'test',
      confidence: 0.4,
      note: 'noinst_PROGRAMS: built but not installed (helper or test)',
    };
  }
  if (['bin', 'sbin', 'libexec', 'pkglibexec', 'lib', 'pkglib'].includes(prefix)) return { confidence: 0.85 };
  return { confidence: 0.6, note: `installed to ${prefix}dir` };
}

/** Canonical automake name: `libfoo.la` → `libfoo_la`. */
export function canonicalName(name: string): string {
  return name.replace(/[^A-Za-z0-9_@]/g, '_');
}

/** Targets named by the primaries of one Makefile.am (`file` is its repository-relative path). */
export function automakeTargets(text: string, file: string): InferredTarget[] {
  const lines = logicalLines(text);
  const vars = collectVariables(lines);
  const out: InferredTarget[] = [];
  for (const line of lines) {
    const a = parseAssignment(line);
    if (!a) continue;
    const m = /^(?:(?:nobase|dist|nodist)_)*([A-Za-z0-9]+)_(PROGRAMS|LTLIBRARIES|LIBRARIES)$/.exec(a.name);
    if (!m) continue;
    const prefix = m[1] ?? '';
    const primary = m[2] ?? '';
    const rule = primaryRule(prefix, primary);
    if (!rule) continue;
    for (const word of expandMake(a.value, vars).split(/\s+/)) {
      const name = plainBase(word.replace(/\$\(EXEEXT\)$/, ''));
      if (name === '' || !isPlainName(name)) continue;
      let kind: TargetKind = 'executable';
      let produced = name;
      let note = rule.note;
      let unresolvedRelease = false;
      if (primary === 'LTLIBRARIES') {
        if (!name.endsWith('.la')) continue;
        const stem = name.slice(0, -3);
        const ldflags =
          vars.get(`${canonicalName(word.replace(/\$\(EXEEXT\)$/, ''))}_LDFLAGS`) ??
          vars.get(`${canonicalName(name)}_LDFLAGS`) ??
          '';
        if (/(?:^|\s)-module\b/.test(ldflags)) {
          kind = 'module';
          produced = `${stem}.so`;
          note = joinNotes(note, 'libtool module (-module)');
        } else {
          kind = 'shared_library';
          produced = `${stem}.so`;
          note = joinNotes(note, `libtool also builds ${stem}.a unless configured with --disable-static`);
        }
        // libtool's `-release R` puts the release in the name (libfoo-R.so, libfoo-R.so.N with -version-info);
        // -version-info alone only adds the .so.N suffix that scoring drops.
        const release = releaseOf(expandMake(ldflags, vars));
        if (release !== undefined) {
          produced = `${stem}-${release}.so`;
          if (release.includes('$') || release.includes('@')) {
            unresolvedRelease = true;
            note = joinNotes(
              note,
              `libtool -release ${release} could not be expanded: the name is uncertain`,
            );
          } else note = joinNotes(note, `libtool -release ${release} names it ${produced}`);
        }
      } else if (primary === 'LIBRARIES') {
        if (!name.endsWith('.a')) continue;
        kind = 'static_library';
      }
      const conditional = line.conditional > 0;
      out.push(
        makeTarget('automake', {
          name: produced,
          kind,
          file,
          line: a.line,
          confidence: rule.confidence * (conditional ? 0.7 : 1) * (unresolvedRelease ? 0.4 : 1),
          ...(rule.role !== undefined ? { role: roleFor(rule.role, name, file) } : {}),
          ...(unresolvedRelease && !conditional
            ? {
                uncertain: `${produced}: libtool's -release could not be expanded, so the file name is not known`,
              }
            : {}),
          ...(conditional
            ? { note: joinNotes(note, 'inside an automake conditional') }
            : note
              ? { note }
              : {}),
        }),
      );
    }
  }
  return out;
}

/** The argument of libtool's `-release` in LDFLAGS, if any. */
function releaseOf(ldflags: string): string | undefined {
  const words = ldflags.split(/\s+/);
  const at = words.indexOf('-release');
  const value = at >= 0 ? words[at + 1] : undefined;
  return value === undefined || value === '' || value.startsWith('-') ? undefined : value;
}

/** EXTRA_ stays excluded; check_/noinst_ become `test` unless the name or directory says example. */
function roleFor(role: ExpectedTarget['role'], name: string, file: string): ExpectedTarget['role'] {
  if (role !== 'test') return role;
  const natural = roleOf(name, dirOf(file));
  return natural === 'main' ? 'test' : natural;
}

function joinNotes(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b;
}
