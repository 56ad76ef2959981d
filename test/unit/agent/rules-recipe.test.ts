import { describe, expect, it } from '@jest/globals';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import { describeScript, renderScript } from '../../../src/recipe/render-turn.js';
import type { Observation, TurnContext, TurnRecord } from '../../../src/agent/types.js';
import type { RepairKnowledge } from '../../../src/knowledge/repair/repair.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function failed(message: string): Observation {
  const rootCause = {
    id: 'x',
    category: 'compile-error' as const,
    message,
    captures: {},
    line: 1,
    excerpt: message,
  };
  return {
    exec: { exitCode: 2, timedOut: false, cancelled: false, durationMs: 5, truncated: false, totalBytes: 10 },
    output: message,
    findings: [rootCause],
    rootCause,
    artifacts: [],
    verdict: {
      passed: false,
      metrics: { completion: false, strict: false, flexible: false, matched: [], missing: [] },
      failures: [],
    },
  };
}

function context(history: TurnRecord[]): TurnContext {
  const repo = repoInfo({ buildSystems: [system('cmake')] });
  return {
    turn: history.length,
    maxTurns: 10,
    repo,
    expected: { names: [], source: 'none' },
    workdir: '/workspace',
    history,
  };
}

describe('rules strategy: the structured recipe on each action', () => {
  it('describes the script it renders; source-editing prelude lines are marked as edits', async () => {
    const knowledge: RepairKnowledge = {
      propose: (input) =>
        Promise.resolve(
          input.rootCause.message === 'sysctl'
            ? [
                {
                  rule: 'guard',
                  key: 'guard',
                  reason: 'header removed',
                  prelude: ["sed -i '/sysctl/d' a.c"],
                  patches: [{ file: 'files including <sys/sysctl.h>', reason: 'header removed' }],
                },
              ]
            : [
                {
                  rule: 'pkg',
                  key: 'pkg',
                  reason: 'zlib missing',
                  packages: ['zlib1g-dev'],
                  prelude: ['rm -rf build'],
                  configureArgs: ['-DFOO=a b'],
                  env: { BB_EXTRA_CFLAGS: '-fcommon' },
                },
              ],
        ),
    };
    const s = new RulesStrategy(knowledge);
    const history: TurnRecord[] = [];
    const a0 = await s.next(context(history));
    if (a0.kind !== 'run') throw new Error('expected a run');
    expect(a0.recipe).toEqual({
      system: 'cmake',
      tools: [
        { command: 'cc', pkg: 'build-essential' },
        { command: 'make', pkg: 'make' },
        { command: 'cmake', pkg: 'cmake' },
      ],
      packages: [],
      prelude: [],
      edits: [],
      env: {},
      steps: [
        { purpose: 'configure', command: 'cmake -S . -B build' },
        { purpose: 'build', command: 'cmake --build build -j"${BB_JOBS:-$(nproc)}"' },
      ],
    });
    history.push({ turn: 0, action: a0, observation: failed('zlib'), notes: [] });
    const a1 = await s.next(context(history));
    history.push({ turn: 1, action: a1, observation: failed('sysctl'), notes: [] });
    const a2 = await s.next(context(history));
    if (a2.kind !== 'run') throw new Error('expected a run');
    expect(a2.recipe).toMatchObject({
      packages: ['zlib1g-dev'],
      prelude: ['rm -rf build'],
      edits: ["sed -i '/sysctl/d' a.c"],
      env: { BB_EXTRA_CFLAGS: '-fcommon' },
    });
    expect(a2.recipe!.steps[0]!.command).toBe("cmake -S . -B build '-DFOO=a b'");
    // Every step command appears verbatim in the rendered script.
    for (const step of a2.recipe!.steps) expect(a2.script).toContain(`(${step.command})`);
  });

  it('describeScript matches renderScript for every recipe kind', () => {
    const repo = repoInfo({
      buildSystems: [system('cmake'), system('make'), system('meson'), system('autotools', 'lib')],
      mainSources: ['main.c'],
    });
    for (const recipe of candidateRecipes(repo)) {
      const fixes = { ...emptyFixes(), configureArgs: ['--x'] };
      const script = renderScript(recipe, fixes);
      for (const step of describeScript(recipe, fixes, new Set()).steps)
        expect(script).toContain(`(${step.command})`);
    }
  });
});
