/**
 * One knowledge, two readers (issue 30): for each failure class, the engine given a repository that fails that
 * way applies a repair rule, and `buildbench diagnose` — on the engine's own failed turn-0 log and on a CI log
 * of the same class from another project — names that same rule's plan as the fix. Builds run for real with
 * the rules strategy in the rootfs sandbox (packages from the Debian mirror inside it).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import { diagnoseLog, type Diagnosis } from '../../src/knowledge/diagnose/diagnosis.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('test/fixtures/repos');
const LOGS = path.resolve('test/fixtures');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-one-knowledge-'));
const BUILD_TIMEOUT_MS = 4 * 60_000;

interface Case {
  /** The repository that fails this way (test/fixtures/repos). */
  fixture: string;
  expect: string[];
  /** A CI log of the same class from another project (under test/fixtures). */
  log: string;
  /** The repair rule both readers must name. */
  rule: string;
}

const CASES: Case[] = [
  {
    fixture: 'fcommon-globals',
    expect: ['counter'],
    log: 'ci-logs/fcommon-parsec.log',
    rule: 'gcc10-fcommon',
  },
  {
    fixture: 'werror-newer-gcc',
    expect: ['greet'],
    log: 'ci-logs/werror-oftc-hybrid.log',
    rule: 'drop-werror',
  },
  {
    fixture: 'autotools-unbootstrapped',
    expect: ['boot'],
    log: 'rule-logs/autoconf-unexpanded-macro.log',
    rule: 'autotools-bootstrap',
  },
  { fixture: 'multilib-m32', expect: ['sum32'], log: 'ci-logs/multilib-void.log', rule: 'install-multilib' },
  {
    fixture: 'missing-header',
    expect: ['zversion'],
    log: 'ci-logs/zlib-proovread.log',
    rule: 'install-header-package',
  },
];

/** The rule of the diagnosis's fix, or what it said instead. */
function fixRule(d: Diagnosis): string {
  if (!d.found) return `found nothing (${d.kind}): ${d.reason}`;
  return d.fix ? d.fix.rule : `no fix for ${d.rootCause.id}`;
}

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

describe('the engine applies what the diagnosis suggests (rootfs sandbox)', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))(
    '%s',
    async (_name, c) => {
      const outDir = path.join(outRoot, c.fixture);
      const result = await runBuild({
        source: path.join(FIXTURES, c.fixture),
        outDir,
        strategy: 'rules',
        maxTurns: 4,
        timeoutMs: BUILD_TIMEOUT_MS,
        turnTimeoutMs: 3 * 60_000,
        expect: c.expect,
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
        // the failure must happen, not be prevented by a package installed before turn 0
        preinstall: false,
      });
      const turns = result.turns.map((t) => `${t.purpose} → ${t.exitCode} ${t.rootCause?.id ?? ''}`);
      expect({ status: result.status, turns }).toEqual({ status: 'success', turns });
      // the engine: turn 1 applies the rule
      expect(result.turns[1]?.purpose.endsWith(` + ${c.rule}`)).toBe(true);
      // reader 1: the engine's own failed log
      const turn0 = result.turns[0]!;
      expect(turn0.log).toBeDefined();
      const own = await diagnoseLog(readFileSync(path.join(outDir, turn0.log!), 'utf8'));
      expect(fixRule(own)).toBe(c.rule);
      // reader 2: another project's CI log of the same class
      const other = await diagnoseLog(readFileSync(path.join(LOGS, c.log), 'utf8'));
      expect(fixRule(other)).toBe(c.rule);
    },
    BUILD_TIMEOUT_MS + 30_000,
  );
});
