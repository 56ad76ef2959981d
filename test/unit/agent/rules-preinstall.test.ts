import { describe, expect, it } from '@jest/globals';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import type { TurnContext } from '../../../src/agent/types.js';
import type { Need, Resolution } from '../../../src/knowledge/repair/needs.js';
import type { StrategyServices } from '../../../src/knowledge/repair/repair.js';
import type { RepoInfo } from '../../../src/repo/types.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function context(repo: RepoInfo): TurnContext {
  return {
    turn: 0,
    maxTurns: 5,
    repo,
    expected: { names: [], source: 'none' },
    workdir: '/workspace',
    history: [],
  };
}

const repo = repoInfo({
  buildSystems: [system('meson')],
  declaredDeps: [
    { kind: 'pkgconfig', name: 'zlib', required: true, source: 'meson.build:2', text: "dependency('zlib')" },
    {
      kind: 'pkgconfig',
      name: 'libpng',
      required: true,
      source: 'meson.build:3',
      text: "dependency('libpng')",
    },
    {
      kind: 'pkgconfig',
      name: 'liblzma',
      required: false,
      source: 'meson.build:4',
      text: "dependency('liblzma', required: false)",
    },
  ],
});

const PACKAGES: Record<string, string> = { zlib: 'zlib1g-dev', libpng: 'libpng-dev', liblzma: 'liblzma-dev' };

function services(calls: Need[][]): StrategyServices {
  return {
    resolvePackages: (needs) => {
      calls.push(needs);
      return Promise.resolve(
        needs.map((need): Resolution => ({
          need,
          candidates: [],
          via: 'apt-file',
          package: PACKAGES[need.name],
        })),
      );
    },
  };
}

describe('rules strategy: declared dependencies', () => {
  it('installs the required declared packages in the first script, in one look-up, and reports them', async () => {
    const calls: Need[][] = [];
    const action = await new RulesStrategy(undefined, services(calls)).next(context(repo));
    expect(calls).toHaveLength(1);
    expect(action.kind).toBe('run');
    if (action.kind !== 'run') return;
    expect(action.recipe?.packages).toEqual(['zlib1g-dev', 'libpng-dev']);
    expect(action.script).toContain('zlib1g-dev libpng-dev');
    expect(action.script).not.toContain('liblzma-dev');
    expect(action.preinstall?.packages).toEqual([
      { package: 'zlib1g-dev', declarations: ["meson.build:2: dependency('zlib')"] },
      { package: 'libpng-dev', declarations: ["meson.build:3: dependency('libpng')"] },
    ]);
  });

  it('leaves everything to the repair loop when pre-installing is off', async () => {
    const calls: Need[][] = [];
    const action = await new RulesStrategy(undefined, services(calls), { preinstall: false }).next(
      context(repo),
    );
    expect(calls).toHaveLength(0);
    expect(action.kind === 'run' && action.recipe?.packages).toEqual([]);
    expect(action.kind === 'run' && action.preinstall).toBeUndefined();
  });

  it('goes on without pre-installed packages when the look-up fails', async () => {
    const failing: StrategyServices = { resolvePackages: () => Promise.reject(new Error('sandbox gone')) };
    const action = await new RulesStrategy(undefined, failing).next(context(repo));
    expect(action.kind === 'run' && action.recipe?.packages).toEqual([]);
    expect(action.kind === 'run' && action.preinstall?.skipped[0]?.why).toBe(
      'the look-up failed: sandbox gone',
    );
  });

  it("puts a declared header's include root on CPATH in every recipe, and says why", async () => {
    const make = repoInfo({
      buildSystems: [system('make')],
      declaredDeps: [
        {
          kind: 'header',
          name: 'Eigen/Core',
          required: true,
          source: 'norm.cpp:1',
          text: '#include <Eigen/Core>',
        },
      ],
    });
    const eigen: StrategyServices = {
      resolvePackages: (needs) =>
        Promise.resolve(
          needs.map((need): Resolution => ({
            need,
            candidates: ['libeigen3-dev'],
            via: 'apt-file',
            package: 'libeigen3-dev',
            paths: ['/usr/include/eigen3/Eigen/Core'],
          })),
        ),
    };
    const strategy = new RulesStrategy(undefined, eigen);
    const action = await strategy.next(context(make));
    if (action.kind !== 'run') throw new Error('expected a script');
    expect(action.preinstall?.includeDirs).toEqual([
      { dir: '/usr/include/eigen3', declarations: ['norm.cpp:1: #include <Eigen/Core>'] },
    ]);
    expect(action.script).toMatch(/CPATH=.*\/usr\/include\/eigen3/);
    expect(action.reason).toContain('include roots on CPATH: /usr/include/eigen3');
    expect(action.recipe?.packages).toEqual(['libeigen3-dev']);
  });
});
