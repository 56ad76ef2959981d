/**
 * Every repair rule is reachable from `buildbench diagnose` (issue 30): for each rule in RULES, the log
 * `test/fixtures/rule-logs/<rule name>.log` — at least 20 lines of a real-shaped failed build — diagnoses to a
 * root cause the rule answers, and the diagnosis's fix is a plan that rule made. A rule that cannot decide from
 * a log alone says why (`needsTree`) and is exempt; the exemptions are listed by name in the test output.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  commonPackageTable,
  diagnoseLog,
  stripCiPrefixes,
  type Diagnosis,
} from '../../../../src/knowledge/diagnose/diagnosis.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import type { Finding } from '../../../../src/knowledge/diagnose/types.js';
import { logRepairInput, offlineServices } from '../../../../src/knowledge/repair/offline.js';
import { defaultFallbackTable } from '../../../../src/knowledge/repair/package-fallback.js';
import { RULES } from '../../../../src/knowledge/repair/rules/index.js';
import type { Rule } from '../../../../src/knowledge/repair/rules/rule.js';
import { defaultRepairTables } from '../../../../src/knowledge/repair/tables.js';

const LOG_DIR = new URL('../../../fixtures/rule-logs/', import.meta.url);
const MIN_LINES = 20;

/** The rule's name (its first signature id until every rule carries `name`). */
function nameOf(rule: Rule): string {
  return (rule as { name?: string }).name ?? rule.ids[0]!;
}

/** What a rule's log may be called: its name, or (logs written before rules had names) its first signature id. */
function logNames(rule: Rule): string[] {
  return [...new Set([nameOf(rule), rule.ids[0]!])];
}

/** Why the rule cannot decide from a log alone, when it says so. */
function needsTreeOf(rule: Rule): string | undefined {
  return (rule as { needsTree?: string }).needsTree;
}

/** Lines of a log, a trailing newline not counting as one more. */
function lineCount(text: string): number {
  const lines = text.split('\n');
  return lines.at(-1) === '' ? lines.length - 1 : lines.length;
}

interface Reached {
  file: string;
  lines: number;
  diagnosis: Diagnosis;
  /** The root-cause finding, as the diagnosis's analysis sees it (the same stripped lines). */
  root?: Finding;
  /** The other findings, in log order. */
  others: Finding[];
}

const reached = new Map<string, Reached>();

beforeAll(async () => {
  for (const file of readdirSync(LOG_DIR).filter((f) => f.endsWith('.log'))) {
    const text = readFileSync(new URL(file, LOG_DIR), 'utf8');
    const diagnosis = await diagnoseLog(text);
    const analysis = analyzeLog(text.split('\n').map(stripCiPrefixes).join('\n'));
    const root = analysis.rootCause;
    reached.set(file.replace(/\.log$/, ''), {
      file,
      lines: lineCount(text),
      diagnosis,
      ...(root ? { root } : {}),
      others: analysis.findings.filter((f) => f !== root),
    });
  }
});

function logOf(rule: Rule): Reached | undefined {
  return logNames(rule)
    .map((n) => reached.get(n))
    .find((log) => log !== undefined);
}

/**
 * The `Repair.rule` values of the plans `rule` makes for the log's root cause, asked as the diagnosis asks
 * (knowledge/repair/offline.ts: no tree, an unknown recipe, the offline package tables).
 */
async function plansOf(rule: Rule, log: Reached): Promise<Set<string>> {
  if (!log.root) return new Set();
  const output = [log.root, ...log.others]
    .map((f) => f.excerpt)
    .join('\n')
    .slice(0, 64 * 1024);
  const repairs = await rule.propose(log.root, logRepairInput(log.root, log.others, output), {
    services: offlineServices([defaultFallbackTable(), commonPackageTable()]),
    tables: defaultRepairTables(),
  });
  return new Set(repairs.map((r) => r.rule));
}

/** What the log's diagnosis says, in one line, for a failure message. */
function said(log: Reached): string {
  const d = log.diagnosis;
  if (!d.found) return `${log.file}: found nothing (${d.kind}): ${d.reason}`;
  return `${log.file}: root cause ${d.rootCause.id}, fix ${d.fix ? `${d.fix.rule} (${d.fix.kind})` : 'none'}`;
}

/** Checks (a) and (b): a long enough log whose root cause the rule answers. */
function expectRootCause(rule: Rule, log: Reached | undefined): asserts log is Reached {
  const name = nameOf(rule);
  if (!log) throw new Error(`no log test/fixtures/rule-logs/${name}.log for the repair rule ${name}`);
  if (log.lines < MIN_LINES)
    throw new Error(`${log.file} has ${log.lines} lines; a rule's log needs at least ${MIN_LINES}`);
  if (!log.diagnosis.found || !rule.ids.includes(log.diagnosis.rootCause.id))
    throw new Error(`${said(log)}; expected a root cause among ${rule.ids.join(', ')}`);
  // The analysis replayed here is the diagnosis's: the same root cause.
  expect(log.root?.id).toBe(log.diagnosis.rootCause.id);
}

const exempt = RULES.filter((r) => needsTreeOf(r) !== undefined);
const decidable = RULES.filter((r) => needsTreeOf(r) === undefined);

describe('every repair rule is reachable from buildbench diagnose', () => {
  it('rule names are unique, so each names one log', () => {
    const names = RULES.map(nameOf);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('every log in rule-logs names a rule', () => {
    const names = new Set(RULES.flatMap(logNames));
    expect([...reached.keys()].filter((n) => !names.has(n)).sort()).toEqual([]);
  });

  it.each(decidable.map((rule) => [nameOf(rule), rule] as const))(
    '%s: its log diagnoses to its root cause and renders its plan',
    async (name, rule) => {
      const log = logOf(rule);
      expectRootCause(rule, log);
      const diagnosis = log.diagnosis as Extract<Diagnosis, { found: true }>;
      const plans = await plansOf(rule, log);
      if (!diagnosis.fix || !plans.has(diagnosis.fix.rule))
        throw new Error(
          `${said(log)}; expected a fix rendering a plan of ${name} (${plans.size > 0 ? [...plans].join(', ') : 'it made none for this root cause'})`,
        );
    },
  );

  if (exempt.length > 0) {
    it.each(exempt.map((rule) => [nameOf(rule), needsTreeOf(rule) ?? '', rule] as const))(
      '%s is exempt — it needs the tree: %s',
      (_name, reason, rule) => {
        expect(reason.trim()).not.toBe('');
        // A log written for an exempt rule must still show its failure.
        const log = logOf(rule);
        if (log) expectRootCause(rule, log);
      },
    );
  }
});
