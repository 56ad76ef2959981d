/**
 * Issue 12's classes 5, 7 and 8 outside the rule table: the idle limit (process runner → loop → status),
 * deploy scripts skipped as recipes, submodules that only tests need, and the rules strategy repairing a
 * script that exited 0 without its binaries.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentLoop } from '../../../src/agent/loop.js';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import type { Action, Strategy, TurnContext, TurnRecord } from '../../../src/agent/types.js';
import { runProcess, TIMEOUT_EXIT_CODE } from '../../../src/base/process.js';
import { decideStatus } from '../../../src/core/status.js';
import { parseIdleTimeout } from '../../../src/core/settings.js';
import { EventBus } from '../../../src/agent/events.js';
import type { RepairKnowledge } from '../../../src/knowledge/repair/repair.js';
import { submodulesThatMatter, usedOnlyUnderTestsOff } from '../../../src/knowledge/repair/submodules.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { deployEvidence } from '../../../src/repo/build-systems.js';
import type { Finding } from '../../../src/knowledge/diagnose/types.js';
import type { Verdict } from '../../../src/verify/types.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

const failing: Verdict = {
  passed: false,
  metrics: { completion: false, strict: false, flexible: false, matched: [], missing: ['x'] },
  failures: ["expected binary 'x' (cli) was not produced"],
};

describe('class 7: the idle limit', () => {
  it('ends a command that prints nothing for idleTimeoutMs, and only that one', async () => {
    const silent = await runProcess('bash', ['-c', 'echo start; sleep 30'], {
      timeoutMs: 20_000,
      idleTimeoutMs: 400,
    });
    expect(silent).toMatchObject({ stalled: true, timedOut: false, exitCode: TIMEOUT_EXIT_CODE });
    expect(silent.durationMs).toBeLessThan(5000);
    expect(silent.output).toContain('start');
    const chatty = await runProcess('bash', ['-c', 'for i in 1 2 3 4 5 6; do echo $i; sleep 0.15; done'], {
      timeoutMs: 20_000,
      idleTimeoutMs: 500,
    });
    expect(chatty.stalled).toBeUndefined();
    expect(chatty.exitCode).toBe(0);
  });

  class Once implements Strategy {
    readonly name = 'once';
    next(): Promise<Action> {
      return Promise.resolve({ kind: 'run', script: './deploy.sh', purpose: './deploy.sh', reason: 'test' });
    }
  }

  it('a stalled turn ends the loop as `stalled`, with the idle limit passed to the sandbox', async () => {
    const sandbox = new FakeSandbox((_s, _n, options) => {
      expect(options.idleTimeoutMs).toBe(600_000);
      return { exitCode: TIMEOUT_EXIT_CODE, stalled: true, durationMs: 600_000 };
    });
    const outcome = await runAgentLoop(
      { repo: repoInfo(), expected: { names: ['x'], source: 'cli' }, workdir: '/workspace', maxTurns: 5 },
      {
        strategy: new Once(),
        sandbox,
        emit: (e) => new EventBus().emit(e),
        analyze: () => Promise.resolve({ findings: [], lines: 0, bytes: 0 }),
        verify: () => Promise.resolve({ artifacts: [], verdict: failing }),
      },
      {
        maxTurns: 5,
        deadline: Date.now() + 60_000,
        turnTimeoutMs: 1_800_000,
        idleTimeoutMs: 600_000,
        logDir: '/tmp',
      },
    );
    expect(outcome.end).toMatchObject({ kind: 'stalled', turn: 0, idleMs: 600_000 });
    expect(outcome.end.reason).toMatch(/printed nothing for 600 s/);
    expect(sandbox.scripts).toHaveLength(1);
    const decided = decideStatus({
      end: outcome.end,
      final: { passed: false, completion: false, failures: failing.failures },
      claims: [],
    });
    expect(decided.status).toBe('stalled');
  });

  it('reads --idle-timeout: a duration, 0/off for never, 10 minutes by default', () => {
    expect(parseIdleTimeout(undefined, '--idle-timeout')).toBe(600_000);
    expect(parseIdleTimeout('90s', '--idle-timeout')).toBe(90_000);
    expect(parseIdleTimeout('off', '--idle-timeout')).toBe(0);
    expect(() => parseIdleTimeout('soon', '--idle-timeout')).toThrow(/--idle-timeout/);
  });
});

describe('class 7: scripts that deploy or wait are not build recipes', () => {
  it('tells deploy scripts from build scripts', () => {
    expect(deployEvidence('#!/bin/sh\nrsync -a ./ "deploy@$host:/opt/app/"\n')).toMatch(/rsync/);
    expect(deployEvidence('scp build/app pi@raspberry.local:~\n')).toMatch(/scp/);
    expect(deployEvidence('ssh -p 2222 user@lab make -C /opt/x\n')).toMatch(/ssh/);
    expect(deployEvidence('while true; do sleep 30; done\n')).toMatch(/sleep loop/);
    expect(deployEvidence('#!/bin/sh\nset -e\nrsync -a src/ build/\nmake -j4\n')).toBeUndefined();
    expect(deployEvidence('# scp app host:/tmp (by hand)\ncc -o app app.c\n')).toBeUndefined();
  });

  it('drops such a script when a real build system is there, keeps it when it is the only one', () => {
    const script = system('script', '', 'build.sh', { deploys: 'copies files to another host (scp/rsync)' });
    const withMake = candidateRecipes(repoInfo({ buildSystems: [system('make', ''), script] }));
    expect(withMake.map((r) => r.system)).toEqual(['make']);
    const alone = candidateRecipes(repoInfo({ buildSystems: [script] }));
    expect(alone.map((r) => r.system)).toEqual(['script']);
  });
});

describe('class 5: submodules only the tests need', () => {
  const cmake = [
    'option(FOO_BUILD_TESTS "tests" OFF)',
    'option(FOO_DOCS "docs" OFF)',
    'add_executable(foo foo.c)',
    'if(FOO_BUILD_TESTS)',
    '  add_subdirectory(third_party/googletest)',
    'endif()',
    'if(FOO_DOCS)',
    '  add_subdirectory(third_party/theme)',
    'endif()',
    'add_subdirectory(third_party/core)',
  ].join('\n');

  it('is not needed under a test option that is off', () => {
    expect(usedOnlyUnderTestsOff(cmake, 'third_party/googletest')).toBe(true);
    expect(usedOnlyUnderTestsOff(cmake, 'third_party/theme')).toBe(false);
    expect(usedOnlyUnderTestsOff(cmake, 'third_party/core')).toBe(false);
    expect(usedOnlyUnderTestsOff(cmake.replace('"tests" OFF', '"tests" ON'), 'third_party/googletest')).toBe(
      false,
    );
    expect(
      usedOnlyUnderTestsOff('include(CTest)\nif(BUILD_TESTING)\nadd_subdirectory(gt)\nendif()', 'gt'),
    ).toBe(false);
    expect(usedOnlyUnderTestsOff('if(BUILD_TESTING)\nadd_subdirectory(gt)\nendif()', 'gt')).toBe(true);
  });

  it('keeps the submodules the build can need', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-sub-'));
    writeFileSync(path.join(root, 'CMakeLists.txt'), cmake);
    const missing = ['third_party/googletest', 'third_party/theme', 'third_party/core'].map((p) => ({
      path: p,
      url: 'https://example.invalid/x.git',
      populated: false,
    }));
    expect((await submodulesThatMatter(root, '', missing)).map((s) => s.path)).toEqual([
      'third_party/theme',
      'third_party/core',
    ]);
  });
});

describe('class 8: a script that exits 0 although its compiler failed', () => {
  it('the rules strategy repairs the root cause when the expected binaries are missing', async () => {
    const cause: Finding = {
      id: 'missing-header',
      category: 'missing-dependency',
      message: 'missing header zlib.h',
      captures: { header: 'zlib.h' },
      line: 2,
      excerpt: 'z.c:1:10: fatal error: zlib.h: No such file or directory',
    };
    const knowledge: RepairKnowledge = {
      propose: () =>
        Promise.resolve([
          {
            rule: 'install-header-package',
            key: 'pkg:zlib1g-dev',
            reason: 'zlib.h',
            packages: ['zlib1g-dev'],
          },
        ]),
    };
    const strategy = new RulesStrategy(knowledge);
    const repo = repoInfo({ buildSystems: [system('script', '', 'build.sh')] });
    const context = (history: TurnRecord[]): TurnContext => ({
      turn: history.length,
      history,
      repo,
      expected: { names: ['zcheck'], source: 'cli' },
      workdir: '/workspace',
      maxTurns: 5,
    });
    const first = await strategy.next(context([]));
    const record: TurnRecord = {
      turn: 0,
      action: first,
      notes: [],
      observation: {
        exec: {
          exitCode: 0,
          timedOut: false,
          cancelled: false,
          durationMs: 1,
          truncated: false,
          totalBytes: 1,
        },
        output: cause.excerpt,
        findings: [cause],
        rootCause: cause,
        artifacts: [],
        verdict: failing,
      },
    };
    const second = await strategy.next(context([record]));
    expect(second).toMatchObject({ kind: 'run', purpose: './build.sh + install-header-package' });
  });
});
