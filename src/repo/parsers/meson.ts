/** Expected targets from meson.build: executable(), library(), shared_library(), static_library(), … */

import { lineIndex, makeTarget, isPlainName, type InferredTarget } from './common.js';
import type { TargetKind } from '../types.js';

const CALL =
  /(?<![\w.])(executable|library|shared_library|static_library|shared_module|both_libraries)\s*\(/g;

/** Replaces `#` comments with spaces, leaving strings (and offsets) intact. */
export function blankMesonComments(text: string): string {
  return text.replace(/'''[\s\S]*?'''|'(?:[^'\\\n]|\\.)*'|#[^\n]*/g, (m) =>
    m.startsWith('#') ? ' '.repeat(m.length) : m,
  );
}

/** The text between the `(` at `open` and its matching `)`, skipping strings; undefined when unbalanced. */
export function balancedArgs(text: string, open: number): string | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      if (text.startsWith("'''", i)) {
        const end = text.indexOf("'''", i + 3);
        if (end < 0) return undefined;
        i = end + 2;
      } else {
        let j = i + 1;
        while (j < text.length && text[j] !== "'" && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
        i = j;
      }
    } else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  return undefined;
}

/** Splits call arguments at top-level commas. */
export function splitArgs(args: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i];
    if (ch === "'") {
      let j = i + 1;
      while (j < args.length && args[j] !== "'") j += args[j] === '\\' ? 2 : 1;
      i = j;
    } else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(args.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = args.slice(start).trim();
  if (last !== '') out.push(last);
  return out;
}

/** Splits `a + 'b' + c` at top-level `+` signs outside strings. */
function splitConcat(expr: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (ch === "'") {
      let j = i + 1;
      while (j < expr.length && expr[j] !== "'") j += expr[j] === '\\' ? 2 : 1;
      i = j;
    } else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === '+' && depth === 0) {
      out.push(expr.slice(start, i));
      start = i + 1;
    }
  }
  out.push(expr.slice(start));
  return out;
}

function stringLiteral(expr: string): string | undefined {
  const m = /^'((?:[^'\\]|\\.)*)'$/.exec(expr.trim());
  return m ? (m[1] ?? '').replace(/\\(.)/g, '$1') : undefined;
}

/** Resolves a name expression: a literal, a string variable, meson.project_name(), or `+` concatenations. */
function nameResolver(text: string, projectName: string | undefined): (expr: string) => string | undefined {
  const strings = new Map<string, string>();
  for (const m of text.matchAll(/^\s*([A-Za-z_]\w*)\s*=\s*('(?:[^'\\\n]|\\.)*')\s*$/gm)) {
    const value = stringLiteral(m[2] ?? '');
    if (value !== undefined) strings.set(m[1] ?? '', value);
  }
  const resolveTerm = (expr: string): string | undefined => {
    const literal = stringLiteral(expr);
    if (literal !== undefined) return literal;
    if (/^meson\.project_name\(\s*\)$/.test(expr)) return projectName;
    if (/^[A-Za-z_]\w*$/.test(expr)) return strings.get(expr);
    return undefined;
  };
  return (expr) => {
    const values = splitConcat(expr).map((t) => resolveTerm(t.trim()));
    return values.every((v) => v !== undefined) ? values.join('') : undefined;
  };
}

/** The positional and keyword arguments of a call whose `(` is at `open`; undefined when unbalanced. */
function callArgs(
  text: string,
  open: number,
): { positional: string[]; kwargs: Map<string, string> } | undefined {
  const body = balancedArgs(text, open);
  if (body === undefined) return undefined;
  const args = splitArgs(body);
  const positional = args.filter((a) => !/^[A-Za-z_]\w*\s*:/.test(a));
  const kwargs = new Map<string, string>();
  for (const a of args) {
    const kv = /^([A-Za-z_]\w*)\s*:\s*([\s\S]*)$/.exec(a);
    if (kv) kwargs.set(kv[1] ?? '', (kv[2] ?? '').trim());
  }
  return { positional, kwargs };
}

/** What a target function builds; library() and both_libraries() follow default_library. */
function kindsOf(fn: string, defaultLibrary: string): TargetKind[] {
  if (fn === 'executable') return ['executable'];
  if (fn === 'shared_library') return ['shared_library'];
  if (fn === 'static_library') return ['static_library'];
  if (fn === 'shared_module') return ['module'];
  if (fn === 'both_libraries' || defaultLibrary === 'both') return ['shared_library', 'static_library'];
  return defaultLibrary === 'static' ? ['static_library'] : ['shared_library'];
}

/** `<prefix><name><suffix>` with meson's defaults for the kind, or name_prefix / name_suffix when given. */
function producedFileName(
  kind: TargetKind,
  logical: string,
  prefixArg: string | undefined,
  suffixArg: string | undefined,
): string {
  const isExe = kind === 'executable';
  const prefix = prefixArg ?? (isExe ? '' : 'lib');
  let suffix: string;
  if (suffixArg !== undefined) suffix = suffixArg === '' ? '' : `.${suffixArg}`;
  else suffix = isExe ? '' : kind === 'static_library' ? '.a' : '.so';
  return `${prefix}${logical}${suffix}`;
}

/**
 * Targets of one meson.build. `projectName` and `defaultLibrary` come from the root project() when the
 * file is a subdir() part; string variables assigned in the same file resolve target names.
 */
export function mesonTargets(
  source: string,
  file: string,
  context: { projectName?: string; defaultLibrary?: string } = {},
): InferredTarget[] {
  const text = blankMesonComments(source);
  const lineOf = lineIndex(text);
  const project = mesonProject(source);
  const defaultLibrary = project.defaultLibrary ?? context.defaultLibrary ?? 'shared';
  const resolve = nameResolver(text, project.name ?? context.projectName);

  const out: InferredTarget[] = [];
  for (const m of text.matchAll(CALL)) {
    const fn = m[1] ?? '';
    const call = callArgs(text, (m.index ?? 0) + m[0].length - 1);
    const first = call?.positional[0];
    if (call === undefined || first === undefined) continue;
    const { kwargs } = call;
    const resolved = resolve(first);
    const logical = resolved ?? first;

    const notes: string[] = [];
    let confidence = 0.9;
    if (fn === 'library') notes.push(`library() builds default_library=${defaultLibrary}`);
    if (ifDepthAt(text, m.index ?? 0) > 0) {
      confidence *= 0.7;
      notes.push('inside an if block');
    }
    if (resolved === undefined || !isPlainName(logical)) {
      confidence = Math.min(confidence, 0.3);
      notes.push('the name is not a literal string');
    }
    const notByDefault = kwargs.get('build_by_default') === 'false';
    if (notByDefault) {
      confidence = Math.min(confidence, 0.2);
      notes.push('build_by_default: false');
    }
    const prefixArg = kwargs.has('name_prefix') ? stringLiteral(kwargs.get('name_prefix') ?? '') : undefined;
    const suffixArg = kwargs.has('name_suffix') ? stringLiteral(kwargs.get('name_suffix') ?? '') : undefined;
    for (const kind of kindsOf(fn, defaultLibrary)) {
      out.push(
        makeTarget('meson', {
          name: producedFileName(kind, logical, prefixArg, suffixArg),
          kind,
          file,
          line: lineOf(m.index ?? 0),
          confidence,
          logicalName: logical,
          ...(notByDefault ? { role: 'excluded' as const } : {}),
          ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
        }),
      );
    }
  }
  return out;
}

/** project('name', …, default_options: ['default_library=static']). */
export function mesonProject(source: string): { name?: string; defaultLibrary?: string } {
  const text = blankMesonComments(source);
  const m = /(?<![\w.])project\s*\(/.exec(text);
  if (!m) return {};
  const body = balancedArgs(text, m.index + m[0].length - 1) ?? '';
  const name = stringLiteral(splitArgs(body)[0] ?? '');
  const defaultLibrary = /'default_library=(shared|static|both)'/.exec(body)?.[1];
  return {
    ...(name !== undefined ? { name } : {}),
    ...(defaultLibrary !== undefined ? { defaultLibrary } : {}),
  };
}

/** How many `if` blocks are open at `offset` (meson `if … endif`, line-initial keywords). */
function ifDepthAt(text: string, offset: number): number {
  let depth = 0;
  for (const m of text.slice(0, offset).matchAll(/^\s*(if|endif)\b/gm)) depth += m[1] === 'if' ? 1 : -1;
  return Math.max(0, depth);
}
