/**
 * Issue 28, "one log freezes the App": every scan of a log is linear in its size. Proved structurally — every
 * pattern of the shipped catalog (verifiers/signatures.yaml and the legacy-API table, with their `unless` and
 * look-back patterns) compiles under RE2, the linear-time engine, and is matched by it; the parser and the
 * diagnosis hold no native RegExp (their line cleaning is one-pass scanners and linear patterns) — and by
 * behaviour: a hostile log is diagnosed to completion, to the same root cause as a benign log of the same size,
 * in at most three times its time (it took eleven times as long, and seconds, with the backtracking engine).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { parse } from 'yaml';

import { ConfigError } from '../../../../src/base/errors.js';
import { LinearRegex } from '../../../../src/base/linear-regex.js';
import { diagnoseLog, type Diagnosis } from '../../../../src/knowledge/diagnose/diagnosis.js';
import { loadLegacyApis } from '../../../../src/knowledge/diagnose/legacy-apis.js';
import {
  defaultSignatureCatalog,
  parseSignatureCatalog,
} from '../../../../src/knowledge/diagnose/signatures.js';
import { benignLog, hostileLog, realLogs } from '../../../helpers/hostile-log.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

interface RawSignature {
  id: string;
  pattern: string;
  flags?: string;
  unless?: string;
  lookbehind?: { pattern: string; flags?: string }[];
}

/** The catalog's patterns as written (macros expanded), each with where it comes from. */
function catalogPatterns(): { where: string; pattern: string; flags: string }[] {
  const doc = parse(readFileSync(path.join(ROOT, 'verifiers/signatures.yaml'), 'utf8')) as {
    macros: Record<string, string>;
    signatures: RawSignature[];
  };
  const expand = (p: string): string =>
    p.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => doc.macros[name] ?? '');
  const out: { where: string; pattern: string; flags: string }[] = [];
  for (const s of doc.signatures) {
    out.push({ where: s.id, pattern: expand(s.pattern), flags: s.flags ?? '' });
    if (s.unless) out.push({ where: `${s.id} unless`, pattern: expand(s.unless), flags: s.flags ?? '' });
    for (const lb of s.lookbehind ?? [])
      out.push({ where: `${s.id} lookbehind`, pattern: expand(lb.pattern), flags: lb.flags ?? '' });
  }
  for (const api of loadLegacyApis())
    out.push({ where: `legacy ${api.id}`, pattern: api.pattern, flags: '' });
  return out;
}

/** Every regular-expression literal and every use of `RegExp` in a source file, as `file:line text`. */
function nativeRegexps(rel: string): string[] {
  const text = readFileSync(path.join(ROOT, rel), 'utf8');
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isRegex =
      node.kind === ts.SyntaxKind.RegularExpressionLiteral ||
      (ts.isIdentifier(node) && node.text === 'RegExp');
    if (isRegex) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${rel}:${line + 1} ${node.getText().slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('every scan of a log is linear (structure)', () => {
  it('every pattern of the shipped catalog compiles under RE2 (no lookaround, no backreference)', () => {
    const refused: string[] = [];
    const patterns = catalogPatterns();
    for (const p of patterns) {
      try {
        new LinearRegex(p.pattern, p.flags);
      } catch (error) {
        refused.push(`${p.where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(refused).toEqual([]);
    expect(patterns.length).toBeGreaterThan(200);
  });

  it('the compiled catalog matches with the linear-time engine, its vetoes and look-backs too', () => {
    const catalog = defaultSignatureCatalog();
    for (const s of catalog.signatures) {
      expect([s.id, s.regex instanceof LinearRegex]).toEqual([s.id, true]);
      if (s.unless) expect(s.unless).toBeInstanceOf(LinearRegex);
      for (const lb of s.lookbehind) expect(lb.regex).toBeInstanceOf(LinearRegex);
    }
    expect(catalog.signatures.some((s) => s.unless)).toBe(true);
  });

  it('refuses a lookaround in a catalog, naming `unless:`', () => {
    const catalog = (pattern: string): string => `version: 1
signatures:
  - id: demo
    category: link-error
    pattern: '${pattern}'
    keywords: [boom]
    message: boom
`;
    expect(() => parseSignatureCatalog(catalog('^(?!.*skip)boom'))).toThrow(ConfigError);
    expect(() => parseSignatureCatalog(catalog('^(?!.*skip)boom'))).toThrow(/unless/);
    expect(() => parseSignatureCatalog(catalog('(boom)\\1'))).toThrow(ConfigError);
  });

  it('the parser and the diagnosis scan lines with no native RegExp', () => {
    const files = [
      'src/knowledge/diagnose/log-parser.ts',
      'src/knowledge/diagnose/diagnosis.ts',
      'src/knowledge/diagnose/terminal-text.ts',
      'src/knowledge/diagnose/worker.ts',
    ];
    expect(files.flatMap(nativeRegexps)).toEqual([]);
    // The check sees what it looks for.
    expect(nativeRegexps('src/knowledge/diagnose/signatures.ts').length).toBeGreaterThan(0);
  });
});

describe('every scan of a log is linear (behaviour)', () => {
  const cause = (d: Diagnosis): string => (d.found ? `${d.rootCause.id}: ${d.rootCause.message}` : d.reason);
  const timed = async (text: string): Promise<{ ms: number; diagnosis: Diagnosis }> => {
    const start = performance.now();
    const diagnosis = await diagnoseLog(text);
    return { ms: performance.now() - start, diagnosis };
  };

  it('a hostile log of 256 KiB lines is diagnosed to completion, to the benign cause, in at most 3x the time', async () => {
    const size = 2 * 1024 * 1024;
    const benign = benignLog(size);
    const hostile = hostileLog(size, 256 * 1024);
    expect(Math.abs(hostile.length - benign.length)).toBeLessThan(512 * 1024);
    await timed(benign.slice(0, 256 * 1024)); // warm up
    const b = await timed(benign);
    const h = await timed(hostile);
    expect(b.diagnosis.found).toBe(true);
    expect(cause(h.diagnosis)).toBe(cause(b.diagnosis));
    // The root cause is in the real lines after the hostile ones: the log was read to the end.
    const hostileLines = hostile.slice(0, hostile.length - realLogs().length).split('\n').length - 1;
    expect(h.diagnosis.found && h.diagnosis.rootCause.lines.at(-1)!.line).toBeGreaterThan(hostileLines);
    expect(h.ms).toBeLessThan(3 * b.ms);
  });

  it('a line of one word repeated costs what its length costs, whatever its length', async () => {
    // The same bytes as 2 KiB lines and as 16 KiB lines (the longest the raw-error search reads of a line):
    // a per-line quadratic scan made the second eight times slower.
    const size = 2 * 1024 * 1024;
    const lines = (length: number): string => `${'error '.repeat(length / 6)}\n`.repeat(size / length);
    await timed(lines(2048).slice(0, 64 * 1024));
    const short = (await timed(lines(2048))).ms;
    const long = (await timed(lines(16 * 1024))).ms;
    expect(long).toBeLessThan(3 * short + 100);
  });
});
