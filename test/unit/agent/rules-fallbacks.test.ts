import { describe, expect, it } from '@jest/globals';

import {
  failedInBuildStep,
  mayBeParallelFailure,
  RulesStrategy,
  serialRecipe,
} from '../../../src/agent/strategies/rules.js';
import type { Action, Observation, TurnContext, TurnRecord } from '../../../src/agent/types.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import type { Finding } from '../../../src/knowledge/diagnose/types.js';
import { RuleKnowledge } from '../../../src/knowledge/repair/rules/index.js';
import type { RepoInfo } from '../../../src/repo/types.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function failed(output: string, rootCause?: Finding): Observation {
  return {
    exec: { exitCode: 2, timedOut: false, cancelled: false, durationMs: 5, truncated: false, totalBytes: 10 },
    output,
    findings: rootCause ? [rootCause] : [],
    rootCause,
    artifacts: [],
    verdict: {
      passed: false,
      metrics: { completion: false, strict: false, flexible: false, matched: [], missing: ['x'] },
      failures: ['x missing'],
    },
  };
}

const compileError: Finding = {
  id: 'compile-error',
  category: 'compile-error',
  message: "error: 'x' undeclared",
  captures: {},
  line: 3,
  excerpt: '',
};

function ctx(history: TurnRecord[], repo: RepoInfo): TurnContext {
  return {
    turn: history.length,
    maxTurns: 10,
    repo,
    expected: { names: [], source: 'none' },
    workdir: '/w',
    history,
  };
}

async function play(s: RulesStrategy, repo: RepoInfo, outputs: Observation[]): Promise<Action[]> {
  const history: TurnRecord[] = [];
  const actions: Action[] = [];
  for (let i = 0; ; i++) {
    const action = await s.next(ctx(history, repo));
    actions.push(action);
    if (action.kind === 'finish' || i >= outputs.length) return actions;
    history.push({ turn: i, action, observation: outputs[i], notes: [] });
  }
}

const documented: RepoInfo['documented'] = {
  blocks: [
    {
      source: 'README.md:9',
      section: 'Building',
      text: 'sudo apt-get install -y libfoo-dev nosuchpkg\nsh gen.sh && make -j4',
      from: 'docs',
    },
  ],
  prosePackages: [],
};

describe('rules strategy fallbacks before FAILED', () => {
  it("installs a CI file's packages with the CI's steps only, not up front", async () => {
    const repo = repoInfo({
      buildSystems: [system('make')],
      documented: {
        blocks: [
          {
            source: '.github/workflows/ci.yml:12',
            section: 'build',
            text: 'sudo apt-get install -y gcc-multilib libci-dev\ncmake -B build && cmake --build build',
            from: 'ci',
          },
        ],
        prosePackages: [],
      },
    });
    const s = new RulesStrategy(undefined, { knownPackages: (names) => Promise.resolve([...names]) });
    const actions = await play(s, repo, [failed('', compileError), failed('', compileError)]);
    const runs = actions.filter((a): a is Extract<Action, { kind: 'run' }> => a.kind === 'run');
    expect(runs.map((a) => a.purpose)).toEqual(['make', 'CI build steps']);
    expect(runs[0]!.script).not.toContain('libci-dev');
    expect(runs[0]!.reason).not.toContain('installs up front');
    expect(runs[1]!.script).toContain('bb_apt_install gcc-multilib libci-dev');
  });

  it('tries the documented commands, then the other build system, then a serial build, each with why', async () => {
    const repo = repoInfo({ buildSystems: [system('cmake'), system('make')], documented });
    const looked: string[][] = [];
    const s = new RulesStrategy(undefined, {
      knownPackages: (names) => {
        looked.push([...names]);
        return Promise.resolve(names.filter((n) => n !== 'nosuchpkg'));
      },
    });
    const buildFailure = failed(
      '### buildbench: configure\n### buildbench: build\nmake: *** Waiting for unfinished jobs....\nmake: *** [x] Error 1',
      compileError,
    );
    const actions = await play(s, repo, [
      buildFailure,
      failed('', compileError),
      failed('', compileError),
      failed('', compileError),
    ]);
    const runs = actions.filter((a): a is Extract<Action, { kind: 'run' }> => a.kind === 'run');
    expect(runs.map((a) => a.purpose)).toEqual(['cmake', 'documented commands', 'make', 'cmake, serial']);
    expect(looked).toEqual([['libfoo-dev', 'nosuchpkg']]);
    // The known documented packages are installed up front, in every recipe.
    for (const run of runs) expect(run.script).toContain('bb_apt_install libfoo-dev');
    expect(runs[0]!.reason).toContain('installs up front the packages the documentation names: libfoo-dev');
    expect(runs[1]!.reason).toMatch(
      /^no known repair for "error: 'x' undeclared" after cmake; trying the documented commands \(README.md:9\)/,
    );
    expect(runs[1]!.script).toContain('(sh gen.sh && make -j4)');
    expect(runs[1]!.script).not.toContain('apt-get install -y libfoo-dev nosuchpkg');
    expect(runs[2]!.reason).toContain('trying the other build system present');
    expect(runs[3]!.reason).toContain('retrying that step serially (-j1)');
    expect(runs[3]!.script).toContain('cmake --build build -j1');
    const last = actions[actions.length - 1]!;
    expect(last).toMatchObject({ kind: 'finish', claim: 'impossible' });
    if (last.kind === 'finish') expect(last.reason).toContain('all 3 recipes and a serial build');
  });

  it('without a build system, runs the documented commands first and direct compilation after them', async () => {
    const repo = repoInfo({ buildSystems: [], mainSources: ['src/zinfo.c'], documented });
    const s = new RulesStrategy(undefined, { knownPackages: (names) => Promise.resolve([...names]) });
    const actions = await play(s, repo, [failed('', compileError), failed('', compileError)]);
    const runs = actions.filter((a): a is Extract<Action, { kind: 'run' }> => a.kind === 'run');
    expect(runs.map((a) => a.purpose)).toEqual(['documented commands', 'direct compilation']);
    expect(runs[0]!.reason).toMatch(
      /^the documented commands \(README.md:9\).*; no build system was found, so the documentation’s own commands come first/,
    );
    expect(runs[1]!.reason).toMatch(
      /^no known repair for "error: 'x' undeclared" after documented commands; trying direct compilation \(no build system; 1 source file\(s\) define main\(\)\)/,
    );
    // Without documented commands, direct compilation is still the first recipe.
    const bare = await new RulesStrategy().next(
      ctx([], repoInfo({ buildSystems: [], mainSources: ['a.c'] })),
    );
    expect(bare).toMatchObject({ kind: 'run', purpose: 'direct compilation' });
  });

  it('has no serial retry when the failure was not in a build step', async () => {
    const repo = repoInfo({ buildSystems: [system('cmake')] });
    const actions = await play(new RulesStrategy(), repo, [
      failed('### buildbench: configure\nCMake Error', compileError),
    ]);
    expect(actions.map((a) => a.kind)).toEqual(['run', 'finish']);
  });

  it('names the documented build system as the reason for the first recipe', async () => {
    const repo = repoInfo({
      buildSystems: [system('autotools'), system('cmake')],
      buildSystemChoice: {
        kind: 'autotools',
        file: 'configure.ac',
        why: 'README.md:4 says `./configure && make`',
      },
    });
    const [first] = await play(new RulesStrategy(), repo, []);
    expect(first).toMatchObject({ kind: 'run', purpose: 'autotools' });
    if (first?.kind === 'run')
      expect(first.reason).toBe(
        'configure.ac found; the documentation uses autotools: README.md:4 says `./configure && make`',
      );
  });

  it('says a removed API without a mechanical migration is left to the model strategies', async () => {
    const legacy: Finding = {
      id: 'legacy-boost-asio-get-io-service',
      category: 'toolchain-drift',
      message: 'uses an API that Boost removed in 1.70 (get_io_service())',
      hint: 'migration: use get_executor().context()',
      captures: {},
      line: 1,
      excerpt: '',
    };
    const actions = await play(new RulesStrategy(), repoInfo({ buildSystems: [system('make')] }), [
      failed('', legacy),
    ]);
    const last = actions[actions.length - 1]!;
    expect(last.kind).toBe('finish');
    if (last.kind === 'finish')
      expect(last.reason).toContain(
        'the code uses an API that Boost removed in 1.70 (get_io_service()), and its documented migration is not mechanical, so the rules strategy does not patch it: it is left to the model strategies',
      );
  });

  it('makes build steps serial and leaves serial ones alone', () => {
    const [cmake] = candidateRecipes(repoInfo({ buildSystems: [system('cmake')] }));
    expect(serialRecipe(cmake!)?.steps.map((s) => s.command)).toEqual(
      ['cmake -S . -B build ', 'cmake --build build -j1'].map((c) => expect.stringContaining(c.trim())),
    );
    const [meson] = candidateRecipes(repoInfo({ buildSystems: [system('meson')] }));
    expect(serialRecipe(meson!)?.steps.at(-1)?.command).toBe('ninja -j1 -C builddir');
    const plain = { ...cmake!, steps: [{ purpose: 'build' as const, command: 'make' }] };
    expect(serialRecipe(plain)).toBeUndefined();
    expect(failedInBuildStep('### buildbench: configure\nerr')).toBe(false);
    expect(failedInBuildStep('### buildbench: configure\n### buildbench: build\nerr')).toBe(true);
    const inBuild = '### buildbench: build\nx.c:1: error: y';
    expect(mayBeParallelFailure({ output: inBuild, rootCause: compileError })).toBe(false);
    expect(mayBeParallelFailure({ output: inBuild })).toBe(true);
    expect(
      mayBeParallelFailure({
        output: `${inBuild}\nmake: *** Waiting for unfinished jobs....`,
        rootCause: compileError,
      }),
    ).toBe(true);
  });
});

describe('rules strategy: the alternatives of a deploy', () => {
  const goal: DeployGoal = {
    target: { command: 'java org.example.Main', cwd: '', timeoutMs: 1000, evidence: {} },
    requires: [],
    registries: { mode: 'auto', mirrors: {} },
  };
  const repo = repoInfo({
    root: '/nonexistent',
    ecosystems: [
      {
        kind: 'java',
        manifests: ['pom.xml'],
        dependencies: [
          { name: 'org.apache.commons:commons-math3', constraint: '3.6.1', manifest: 'pom.xml' },
        ],
        notes: [],
      },
    ],
  });
  function mavenFailed(line: string): Observation {
    const analysis = analyzeLog(line);
    return { ...failed(line, analysis.rootCause), findings: analysis.findings };
  }

  it('a recipe a repair switched to is not started again: a failure there goes on to the next alternative', async () => {
    // Maven Central unreachable (the plugin Maven needs first), then, offline over Debian's maven-repo, a plugin
    // version no Debian package ships (bookworm's Maven 3.8.7 wording).
    const network = mavenFailed(
      '[ERROR] Plugin org.apache.maven.plugins:maven-resources-plugin:2.6 or one of its dependencies could not be resolved: Failed to read artifact descriptor for org.apache.maven.plugins:maven-resources-plugin:jar:2.6: Could not transfer artifact org.apache.maven.plugins:maven-resources-plugin:pom:2.6 from/to central (https://repo.maven.apache.org/maven2): transfer failed',
    );
    const pinned = mavenFailed(
      '[ERROR] Plugin org.apache.maven.plugins:maven-compiler-plugin:3.13.0 or one of its dependencies could not be resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.apache.maven.plugins:maven-compiler-plugin:jar:3.13.0 has not been downloaded from it before. -> [Help 1]',
    );
    const s = new RulesStrategy(new RuleKnowledge(), {
      resolvePackages: (needs) =>
        Promise.resolve(needs.map((need) => ({ need, candidates: [], via: 'none' as const }))),
    });
    const history: TurnRecord[] = [];
    const actions: Action[] = [];
    for (const observation of [network, pinned, undefined]) {
      const action = await s.next({ ...ctx(history, repo), goal });
      actions.push(action);
      if (observation) history.push({ turn: history.length, action, observation, notes: [] });
    }
    const runs = actions.filter((a): a is Extract<Action, { kind: 'run' }> => a.kind === 'run');
    expect(runs.map((a) => a.purpose)).toEqual([
      'maven',
      'maven -o with Debian artifacts (offline) + deploy-offline-setup',
      'javac without the build tool (Debian jars)',
    ]);
    expect(runs[2]!.reason).toMatch(
      /^no known repair for "Maven \(offline\) has no org\.apache\.maven\.plugins:maven-compiler-plugin:3\.13\.0 in its local repository" after maven -o with Debian artifacts \(offline\); trying the next way to set it up, javac without the build tool \(Debian jars\): .*built without the build tool/,
    );
  });
});
