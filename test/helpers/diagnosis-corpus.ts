/**
 * The diagnosis corpus (issue 30): real failed build logs in test/fixtures/ci-logs, their expected answers
 * (expected.json, its format in the folder's README) and the one scorer that says whether a Diagnosis is
 * right for a log. "Right" means the right root cause and a fix that contains what the thread's confirmed
 * fix says — or, for a failure that is not a build problem, `found: false` with the right kind and nothing
 * proposed. Used by test/unit/knowledge/diagnosis.test.ts and bench/diagnose.ts, so both count the same way.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Diagnosis } from '../../src/knowledge/diagnose/diagnosis.js';
import { NOT_BUILD_KINDS, type NotBuildKind } from '../../src/knowledge/diagnose/signatures.js';

export const CORPUS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ci-logs');

/** The kinds of failure that are not a build problem (the diagnosis says so and proposes nothing). */
export { NOT_BUILD_KINDS };
export type ExpectedKind = NotBuildKind;

/** A build problem: its root cause and the fix the thread confirms. */
export interface BuildExpectation {
  found: true;
  /** The root cause's category, or the acceptable ones. */
  category: string | readonly string[];
  /** Acceptable root-cause signature ids; any when absent. */
  ids?: readonly string[];
  /** Right when any of these is among the fix's packages. */
  packages?: readonly string[];
  /** Right when it appears in the fix's commands, summary or line suggestion. */
  flag?: string;
  /** Right when it is a substring of one of the fix's commands. */
  command?: string;
  /** Nothing specific should be proposed. */
  noFix?: true;
}

/** Not a build problem: the diagnosis is silent with this kind. */
export interface SilentExpectation {
  found: false;
  kind: ExpectedKind;
}

export type Expectation = BuildExpectation | SilentExpectation;

export interface CorpusLog {
  /** The file name in the corpus folder. */
  name: string;
  text: string;
  want: Expectation;
}

export interface Score {
  right: boolean;
  /** Why it is right or wrong, in a few words. */
  why: string;
}

const FIX_FIELDS = ['packages', 'flag', 'command', 'noFix'] as const;
const BUILD_FIELDS = new Set<string>(['found', 'category', 'ids', ...FIX_FIELDS]);

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s.length > 0);
}

/** Checks one entry of expected.json; throws one line naming the file, the log and the field. */
export function parseExpectation(file: string, log: string, raw: unknown): Expectation {
  const bad = (what: string): never => {
    throw new Error(`${file}: "${log}": ${what}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('expected an object');
  const o = raw as Record<string, unknown>;
  if (o.found === false) {
    const extra = Object.keys(o).filter((k) => k !== 'found' && k !== 'kind');
    if (extra.length) bad(`field ${extra[0]} is not allowed with found: false (only kind)`);
    if (typeof o.kind !== 'string' || !(NOT_BUILD_KINDS as readonly string[]).includes(o.kind))
      bad(`kind: expected one of ${NOT_BUILD_KINDS.join(', ')}, got ${JSON.stringify(o.kind)}`);
    return { found: false, kind: o.kind as ExpectedKind };
  }
  if (o.found !== true) return bad(`found: expected true or false, got ${JSON.stringify(o.found)}`);
  const extra = Object.keys(o).filter((k) => !BUILD_FIELDS.has(k));
  if (extra.length) bad(`unknown field ${extra[0]} (expected ${[...BUILD_FIELDS].join(', ')})`);
  if (!(typeof o.category === 'string' && o.category.length > 0) && !isStringList(o.category))
    bad('category: expected a category or a list of them');
  if (o.ids !== undefined && !isStringList(o.ids)) bad('ids: expected a list of signature ids');
  const fixes = FIX_FIELDS.filter((k) => o[k] !== undefined);
  if (fixes.length !== 1)
    bad(`expected exactly one of ${FIX_FIELDS.join(', ')}, got ${fixes.length ? fixes.join(', ') : 'none'}`);
  if (o.packages !== undefined && !isStringList(o.packages))
    bad('packages: expected a list of package names');
  if (o.flag !== undefined && (typeof o.flag !== 'string' || !o.flag)) bad('flag: expected a flag');
  if (o.command !== undefined && (typeof o.command !== 'string' || !o.command)) bad('command: expected text');
  if (o.noFix !== undefined && o.noFix !== true) bad('noFix: expected true');
  return o as unknown as BuildExpectation;
}

/** The corpus: every log of the folder with its expectation, in file-name order. */
export function loadCorpus(dir = CORPUS_DIR): CorpusLog[] {
  const file = path.join(dir, 'expected.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${file}: expected an object of log file name → expectation`);
  const entries = raw as Record<string, unknown>;
  const logs = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  const missing = logs.filter((f) => !(f in entries));
  if (missing.length) throw new Error(`${file}: no expectation for ${missing.join(', ')}`);
  const orphans = Object.keys(entries).filter((k) => !logs.includes(k));
  if (orphans.length) throw new Error(`${file}: no log file for ${orphans.join(', ')}`);
  return logs.map((name) => ({
    name,
    text: readFileSync(path.join(dir, name), 'utf8'),
    want: parseExpectation(file, name, entries[name]),
  }));
}

/** The logs the README's table marks "made here" (all others are quoted from the cited public thread). */
export function madeHere(dir = CORPUS_DIR): string[] {
  return readFileSync(path.join(dir, 'README.md'), 'utf8')
    .split('\n')
    .map((row) => row.split('|').map((c) => c.trim()))
    .filter((cells) => cells[1]?.endsWith('.log') && cells[2] === 'made here')
    .map((cells) => cells[1]!);
}

/** The logs whose README row cites a public thread (an https URL in the thread column). */
export function publicLogs(dir = CORPUS_DIR): string[] {
  return readFileSync(path.join(dir, 'README.md'), 'utf8')
    .split('\n')
    .map((row) => row.split('|').map((c) => c.trim()))
    .filter(
      (cells) =>
        cells[1]?.endsWith('.log') &&
        /^https:\/\/github\.com\/\S+\/(?:issues|pull)\/\d+$/.test(cells[2] ?? ''),
    )
    .map((cells) => cells[1]!);
}

/** The acceptable root-cause categories of a build problem. */
export function categoriesOf(want: BuildExpectation): readonly string[] {
  return typeof want.category === 'string' ? [want.category] : want.category;
}

/** The expectation in a few words, for a table. */
export function describeExpectation(want: Expectation): string {
  if (!want.found) return `silent: ${want.kind}`;
  const category = categoriesOf(want).join('|');
  const fix = want.packages
    ? want.packages.join('|')
    : want.flag
      ? want.flag
      : want.command
        ? `\`${want.command}\``
        : 'no fix';
  return `${category}${want.ids ? ` (${want.ids.join('|')})` : ''}, ${fix}`;
}

/** The diagnosis in a few words, for a table. */
export function describeDiagnosis(d: Diagnosis): string {
  if (!d.found) return `silent: ${d.kind}`;
  const f = d.fix;
  const fix = !f
    ? 'no fix'
    : f.packages?.length
      ? f.packages.join(',')
      : f.commands?.length
        ? f.commands.join('; ')
        : f.lookups?.length
          ? `look up ${f.lookups.join(', ')}`
          : f.kind;
  return `${d.rootCause.category} (${d.rootCause.id}), ${fix}`;
}

/** Scores one diagnosis against its expectation. */
export function scoreDiagnosis(want: Expectation, d: Diagnosis): Score {
  if (!want.found) {
    if (d.found) return { right: false, why: `diagnosed ${d.rootCause.id}, expected silence (${want.kind})` };
    if (d.kind !== want.kind) return { right: false, why: `silent as ${d.kind}, expected ${want.kind}` };
    return { right: true, why: `silent: ${d.kind}` };
  }
  if (!d.found) return { right: false, why: `silent (${d.kind}), expected a root cause` };
  const categories = categoriesOf(want);
  if (!categories.includes(d.rootCause.category))
    return { right: false, why: `category ${d.rootCause.category}, expected ${categories.join(' or ')}` };
  if (want.ids && !want.ids.includes(d.rootCause.id))
    return { right: false, why: `root cause ${d.rootCause.id}, expected ${want.ids.join(' or ')}` };
  const fix = d.fix;
  if (want.noFix)
    return fix
      ? { right: false, why: `proposed ${fix.kind}, expected no fix` }
      : { right: true, why: 'no fix' };
  if (!fix) return { right: false, why: 'no fix proposed' };
  if (want.packages) {
    const hit = want.packages.find((p) => fix.packages?.includes(p));
    return hit
      ? { right: true, why: `installs ${hit}` }
      : {
          right: false,
          why: `packages ${fix.packages?.join(',') || 'none'}, expected ${want.packages.join(' or ')}`,
        };
  }
  if (want.flag) {
    const places = [...(fix.commands ?? []), fix.summary, fix.suggestion?.replacement ?? ''];
    return places.some((t) => t.includes(want.flag!))
      ? { right: true, why: `adds ${want.flag}` }
      : { right: false, why: `no ${want.flag} in the fix (${fix.commands?.join('; ') || fix.summary})` };
  }
  const command = want.command!;
  return (fix.commands ?? []).some((c) => c.includes(command))
    ? { right: true, why: `runs ${command}` }
    : {
        right: false,
        why: `no \`${command}\` in the fix's commands (${fix.commands?.join('; ') || 'none'})`,
      };
}

/** A Markdown table of the corpus's results: log, expected, got, right? and why. */
export function resultTable(rows: readonly { log: CorpusLog; got: Diagnosis; score: Score }[]): string {
  const cell = (s: string): string => s.split('|').join('\\|').split('\n').join(' ');
  return [
    '| log | expected | got | right? | why |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.log.name} | ${cell(describeExpectation(r.log.want))} | ${cell(describeDiagnosis(r.got))} | ${r.score.right ? 'yes' : 'NO'} | ${cell(r.score.why)} |`,
    ),
  ].join('\n');
}
