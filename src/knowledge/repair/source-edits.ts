/**
 * A repair's source edit as data (`Repair.edits`): the pattern, its replacement and the files it applies to, as the
 * rule's shell line applies them in the sandbox (sed -E for C and C++ sources, the migration program for Python).
 * The diagnosis of a log applies the same edit to the files a person gave with `--file` and shows the change as a
 * unified diff: one description of the fix, two readers (issue 30).
 *
 * The patterns are the catalogs' own (ERE for sed, Python `re` for the migrations); RE2 reads both syntaxes as far
 * as these tables use them (POSIX classes, `[^]]`, `(?P<name>…)`), and runs in time linear in the file, which a
 * stranger may have sent. Each pattern is applied in multi-line mode (`^` and `$` at every line), as sed reads a
 * line at a time and the migrations compile with `re.M`.
 */
import path from 'node:path';
import { RE2JS } from 're2js';
import { escapeRegex } from '../../base/escape-regex.js';

/** One edit a repair makes to the sources. */
export interface SourceEdit {
  /** File name endings the edit applies to (`.c`, `.py`). */
  extensions: readonly string[];
  /** When set, only files with these base names (the files the log named). */
  names?: readonly string[];
  /** The pattern (sed -E's ERE, or Python `re`; `{names}` stands for the alternation of `names`' keys). */
  pattern: string;
  /**
   * The replacement: `sed` style reads `\1`…`\9` and `&`; `python` style reads `\1`, `\g<name>` and `{new}` (the
   * new name of the matched `name` group, from `renames`).
   */
  replacement: string;
  style: 'sed' | 'python';
  /** Removed name → its replacement, for a `python` edit's `{names}` and `{new}`. */
  renames?: Readonly<Record<string, string>>;
  /** A header to include at the top of a changed file that does not include it yet (`string.h`). */
  include?: string;
}

/** A changed file: its path as given, and its text before and after. */
export interface EditedFile {
  path: string;
  before: string;
  after: string;
}

/** Whether `edit` applies to the file at `file` (by its ending, and by its base name when the edit names files). */
export function editApplies(edit: SourceEdit, file: string): boolean {
  const base = path.posix.basename(file.replace(/\\/g, '/'));
  if (!edit.extensions.some((ext) => base.endsWith(ext))) return false;
  return !edit.names?.length || edit.names.includes(base);
}

/** The pattern with `{names}` expanded (the longest names first, as the migration program orders them). */
function patternOf(edit: SourceEdit): string {
  if (!edit.pattern.includes('{names}')) return edit.pattern;
  const alternation = Object.keys(edit.renames ?? {})
    .sort((a, b) => b.length - a.length)
    .map(escapeRegex)
    .join('|');
  return edit.pattern.split('{names}').join(alternation);
}

/** The replacement text for one match: groups by number (1-based) and by name. */
function expand(
  edit: SourceEdit,
  whole: string,
  numbered: readonly (string | undefined)[],
  named: Readonly<Record<string, string | undefined>>,
): string {
  const { replacement } = edit;
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    const next = replacement[i + 1];
    if (edit.style === 'sed' && c === '&') {
      out += whole;
    } else if (c === '\\' && next !== undefined && /\d/.test(next)) {
      out += numbered[Number(next) - 1] ?? '';
      i++;
    } else if (edit.style === 'python' && c === '\\' && next === 'g' && replacement[i + 2] === '<') {
      const end = replacement.indexOf('>', i + 3);
      const key = replacement.slice(i + 3, end < 0 ? replacement.length : end);
      out += (/^\d+$/.test(key) ? numbered[Number(key) - 1] : named[key]) ?? '';
      i = end < 0 ? replacement.length : end;
    } else if (edit.style === 'python' && replacement.startsWith('{new}', i)) {
      const name = named.name;
      out += (name !== undefined ? edit.renames?.[name] : undefined) ?? '';
      i += '{new}'.length - 1;
    } else if (c === '\\' && next !== undefined) {
      out += next; // an escaped character stands for itself (\& \\ \n is not used by these tables)
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

const INCLUDE_LINE = (header: string): RE2JS =>
  RE2JS.compile(`^[ \\t]*#[ \\t]*include[ \\t]*<${escapeRegex(header)}>`, RE2JS.MULTILINE);

/** The edit's pattern compiled as it is applied (multi-line), or undefined when RE2 cannot read it. */
function compiled(edit: SourceEdit): RE2JS | undefined {
  try {
    return RE2JS.compile(patternOf(edit), RE2JS.MULTILINE);
  } catch {
    return undefined;
  }
}

/**
 * `content` after `edit`, or undefined when the edit changes nothing there (or its pattern is one RE2 cannot
 * read: the table's test compiles every pattern, so this is never silent in practice).
 */
export function applyEdit(edit: SourceEdit, content: string): string | undefined {
  const re = compiled(edit);
  if (!re?.test(content)) return undefined;
  const groups = re.groupCount();
  const after = re.matcher(content).replaceAll((...args: unknown[]) => {
    const whole = String(args[0]);
    const numbered = args.slice(1, 1 + groups).map((g) => (typeof g === 'string' ? g : undefined));
    const last = args.at(-1);
    const named =
      typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : {};
    return expand(edit, whole, numbered, named);
  });
  if (after === content) return undefined;
  if (edit.include && !INCLUDE_LINE(edit.include).test(after)) return `#include <${edit.include}>\n${after}`;
  return after;
}

/** The 1-based line of the edit's first match in `content`, or undefined when it matches nowhere. */
export function firstMatchLine(edit: SourceEdit, content: string): number | undefined {
  const m = compiled(edit)?.matcher(content);
  if (!m?.find()) return undefined;
  let line = 1;
  for (let i = m.start(); i-- > 0;) if (content.charCodeAt(i) === 10) line++;
  return line;
}

/** Every file of `files` that the edits change, in the order given (each file's edits applied in turn). */
export function applyEdits(
  edits: readonly SourceEdit[],
  files: readonly { path: string; content: string }[],
): EditedFile[] {
  const changed: EditedFile[] = [];
  for (const file of files) {
    let text = file.content;
    for (const edit of edits) {
      if (!editApplies(edit, file.path)) continue;
      text = applyEdit(edit, text) ?? text;
    }
    if (text !== file.content) changed.push({ path: file.path, before: file.content, after: text });
  }
  return changed;
}

/** The changed files as one unified diff (`a/` and `b/` paths, three lines of context), for a person to apply. */
export async function editsDiff(changed: readonly EditedFile[]): Promise<string> {
  if (changed.length === 0) return '';
  // Loaded only when there is a diff to render: `buildbench diagnose` starts without it (issue 32).
  const { createTwoFilesPatch } = await import('diff');
  return changed
    .map((f) => {
      let p = f.path.replace(/\\/g, '/');
      while (p.startsWith('/')) p = p.slice(1);
      return createTwoFilesPatch(`a/${p}`, `b/${p}`, f.before, f.after, undefined, undefined, {
        context: 3,
      })
        .split('\n')
        .filter((line) => !line.startsWith('====='))
        .join('\n');
    })
    .join('');
}
