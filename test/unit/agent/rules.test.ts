import { describe, expect, it } from '@jest/globals';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import type { Observation, TurnContext, TurnRecord } from '../../../src/agent/types.js';
import type { RepairKnowledge } from '../../../src/knowledge/repair/repair.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function observation(exitCode: number, message?: string, completion = false): Observation {
  const rootCause = message
    ? {
        id: 'missing-header',
        category: 'missing-dependency' as const,
        message,
        captures: { header: 'zlib.h' },
        line: 3,
        excerpt: message,
      }
    : undefined;
  return {
    exec: { exitCode, timedOut: false, cancelled: false, durationMs: 5, truncated: false, totalBytes: 10 },
    output: message ?? '',
    findings: rootCause ? [rootCause] : [],
    rootCause,
    artifacts: [],
    verdict: {
      passed: false,
      metrics: { completion, strict: false, flexible: false, matched: [], missing: ['x'] },
      failures: ['x missing'],
    },
  };
}

function context(
  history: TurnRecord[],
  repo = repoInfo({ buildSystems: [system('cmake'), system('make')] }),
): TurnContext {
  return {
    turn: history.length,
    maxTurns: 10,
    repo,
    expected: { names: [], source: 'none' },
    workdir: '/workspace',
    history,
  };
}

describe('rules strategy', () => {
  it('tries recipes in order and finishes honestly when all fail', async () => {
    const s = new RulesStrategy();
    const history: TurnRecord[] = [];
    const a0 = await s.next(context(history));
    expect(a0).toMatchObject({ kind: 'run', purpose: 'cmake' });
    history.push({ turn: 0, action: a0, observation: observation(1, 'missing header zlib.h'), notes: [] });
    const a1 = await s.next(context(history));
    expect(a1).toMatchObject({ kind: 'run', purpose: 'make' });
    history.push({ turn: 1, action: a1, observation: observation(2, 'compile error'), notes: [] });
    const a2 = await s.next(context(history));
    expect(a2.kind).toBe('finish');
    if (a2.kind === 'finish') {
      expect(a2.claim).toBe('impossible');
      expect(a2.reason).toBe(
        'no known repair for the root cause "compile error", and all 2 recipes failed; tried 2 scripts: cmake; make; ' +
          'no repair rule, generic move (configure-first, versioned-file-lookup, other-compiler) or other recipe is left',
      );
    }
  });

  it('applies a repair from the knowledge base to the same recipe, once per key, and carries packages over', async () => {
    const knowledge: RepairKnowledge = {
      propose: (input) =>
        Promise.resolve(
          input.rootCause.captures.header
            ? [
                {
                  rule: 'install-header-package',
                  key: 'pkg:zlib1g-dev',
                  reason: 'zlib.h is missing',
                  packages: ['zlib1g-dev'],
                },
              ]
            : [],
        ),
    };
    const s = new RulesStrategy(knowledge);
    const history: TurnRecord[] = [];
    const a0 = await s.next(context(history));
    history.push({ turn: 0, action: a0, observation: observation(1, 'missing header zlib.h'), notes: [] });
    const a1 = await s.next(context(history));
    expect(a1).toMatchObject({
      kind: 'run',
      purpose: 'cmake + install-header-package',
      reason: 'zlib.h is missing',
    });
    if (a1.kind === 'run') expect(a1.script).toContain('bb_apt_install zlib1g-dev');
    history.push({ turn: 1, action: a1, observation: observation(1, 'missing header zlib.h'), notes: [] });
    const a2 = await s.next(context(history));
    expect(a2).toMatchObject({ kind: 'run', purpose: 'make' });
    if (a2.kind === 'run') expect(a2.script).toContain('bb_apt_install zlib1g-dev');
  });

  it('passes over a repair that would only install what the recipe installs already', async () => {
    // zlib1g-dev was declared and installed up front; the header is still "missing" (it is not on the path).
    const knowledge: RepairKnowledge = {
      propose: () =>
        Promise.resolve([
          {
            rule: 'install-header-package',
            key: 'pkg:zlib1g-dev',
            reason: 'again',
            packages: ['zlib1g-dev'],
          },
          {
            rule: 'add-include-dir',
            key: 'cpath:/usr/include/zlib',
            reason: 'not on the path',
            env: { CPATH: '/usr/include/zlib' },
          },
        ]),
    };
    const repo = repoInfo({
      buildSystems: [system('cmake')],
      declaredDeps: [
        { kind: 'header', name: 'zlib.h', required: true, source: 'a.c:1', text: '#include <zlib.h>' },
      ],
    });
    const services = {
      resolvePackages: (needs: { kind: string; name: string }[]) =>
        Promise.resolve(
          needs.map((need) => ({ need, candidates: [], via: 'apt-file' as const, package: 'zlib1g-dev' })),
        ),
    };
    const s = new RulesStrategy(knowledge, services as never);
    const history: TurnRecord[] = [];
    const a0 = await s.next(context(history, repo));
    if (a0.kind === 'run') expect(a0.script).toContain('bb_apt_install zlib1g-dev');
    history.push({ turn: 0, action: a0, observation: observation(1, 'missing header zlib.h'), notes: [] });
    const a1 = await s.next(context(history, repo));
    expect(a1).toMatchObject({ kind: 'run', purpose: 'cmake + add-include-dir', reason: 'not on the path' });
  });

  it('says why when there is nothing to build', async () => {
    const a = await new RulesStrategy().next(context([], repoInfo()));
    expect(a).toMatchObject({ kind: 'finish', claim: 'impossible' });
    if (a.kind === 'finish') expect(a.reason).toMatch(/no build system was recognised/);
    const b = await new RulesStrategy().next(
      context([], repoInfo({ buildSystems: [system('msbuild', '', 'app.sln')] })),
    );
    if (b.kind === 'finish')
      expect(b.reason).toMatch(/only non-Linux build systems were found \(msbuild: app.sln\)/);
  });
});

describe('rules strategy and missing submodules', () => {
  it('fetches submodules the checkout lacks before the first recipe, and says so when the build fails', async () => {
    const repo = repoInfo({
      buildSystems: [system('make')],
      submodules: [{ path: 'vendor/lib', url: 'https://example.invalid/lib.git', populated: false }],
    });
    const s = new RulesStrategy();
    const history: TurnRecord[] = [];
    const a0 = await s.next(context(history, repo));
    expect(a0.kind === 'run' && a0.script).toContain('git submodule update --init --recursive');
    history.push({ turn: 0, action: a0, observation: observation(2, 'no rule to make all'), notes: [] });
    const a1 = await s.next(context(history, repo));
    expect(a1.kind === 'finish' && a1.reason).toMatch(
      /git submodules vendor\/lib are not checked out and could not be fetched/,
    );
  });
});
