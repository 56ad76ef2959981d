/**
 * Issue 29's generic move for a build step that fetches from the network: a `git clone` of a project the
 * distribution ships, found in the scripts a run will run, gets a line before the first script that leaves the
 * clone alone when the repository answers and, when it does not, points git at a copy built from the
 * package's files in the upstream layout. The line is run here for real (bash and git) both ways: an address
 * that cannot resolve (`.invalid`) gets the shipped copy, tagged with the ref asked for; a reachable one is
 * cloned as it is.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  gitCheckoutRef,
  gitCloneOf,
  repositoryKey,
  shippedLibraryRepairs,
  shippedSourceLine,
  shippedSourceRepairs,
} from '../../../src/agent/strategies/shipped-sources.js';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import type { TurnContext } from '../../../src/agent/types.js';
import { RuleKnowledge } from '../../../src/knowledge/repair/rules/index.js';
import { defaultRepairTables, type ShippedSource } from '../../../src/knowledge/repair/tables.js';
import type { Recipe } from '../../../src/recipe/model.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'bb-shipped-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const script = (command: string): Recipe => ({
  id: 'own-script',
  system: 'deploy',
  label: 'build.sh',
  evidence: 'e',
  dir: '',
  tools: [],
  steps: [{ purpose: 'build', command }],
});

const shipped = defaultRepairTables().shippedSources;

describe('reading a git clone', () => {
  it.each([
    [
      'git clone https://github.com/google/googletest.git',
      { url: 'https://github.com/google/googletest.git' },
    ],
    [
      'git clone --depth 1 --branch 3.4.0 https://gitlab.com/libeigen/eigen.git third_party/eigen',
      { url: 'https://gitlab.com/libeigen/eigen.git', ref: '3.4.0' },
    ],
    [
      'git clone --branch=v1.0 -q git@github.com:nothings/stb.git',
      { url: 'git@github.com:nothings/stb.git', ref: 'v1.0' },
    ],
    [
      'GIT_SSL_NO_VERIFY=1 git -C deps clone -- https://github.com/g-truc/glm',
      { url: 'https://github.com/g-truc/glm' },
    ],
    ['git clone -b 0123abc https://github.com/g-truc/glm', { url: 'https://github.com/g-truc/glm' }],
  ])('%s', (command, expected) => {
    expect(gitCloneOf(command)).toEqual(expected);
  });

  it.each([
    'git pull https://github.com/g-truc/glm',
    'git clone "$REPO"',
    "git clone 'https://example.com/a/b;rm -rf /'",
    'echo git clone https://github.com/g-truc/glm',
  ])('no clone of a fixed address in %s', (command) => {
    expect(gitCloneOf(command)).toBeUndefined();
  });

  it('a checkout names a ref, never a commit id or an option', () => {
    expect(gitCheckoutRef('git -C third_party/glm checkout 0.9.9.8')).toBe('0.9.9.8');
    expect(gitCheckoutRef('git checkout 5f5e2b8')).toBeUndefined();
    expect(gitCheckoutRef('git checkout -b mine')).toBe('mine');
    expect(gitCheckoutRef('git checkout a.c b.c')).toBeUndefined();
  });

  it.each([
    ['https://GitHub.com/Google/googletest.git/', 'github.com/google/googletest'],
    ['git@github.com:nothings/stb.git', 'github.com/nothings/stb'],
    ['ssh://git@gitlab.com:22/libeigen/eigen', 'gitlab.com/libeigen/eigen'],
    ['https://example.com/group/sub/project', undefined],
  ])('the repository of %s', (url, key) => {
    expect(repositoryKey(url)).toBe(key);
  });
});

describe('the repairs before the first script', () => {
  it('a build script that clones a shipped project: the copy, with the line that clones as evidence', async () => {
    const root = tree({
      'build.sh':
        '#!/bin/sh\nset -e\n# Eigen, as we fetched it\ngit clone --depth 1 https://gitlab.com/libeigen/eigen.git ext/eigen\n' +
        'git -C ext/eigen checkout 3.4.0\ng++ -I ext/eigen -o fit fit.cpp\n',
    });
    const found = await shippedSourceRepairs(repoInfo({ root }), [script('bash ./build.sh')], shipped);
    expect(found).toHaveLength(1);
    expect(found[0]!.evidence).toBe(
      'build.sh:4: git clone --depth 1 https://gitlab.com/libeigen/eigen.git ext/eigen',
    );
    expect(found[0]!.repair).toEqual(
      expect.objectContaining({
        rule: 'shipped-source',
        packages: ['git', 'ca-certificates', 'libeigen3-dev'],
        reason: expect.stringMatching(/libeigen3-dev .*tagged 3\.4\.0/),
      }),
    );
  });

  it('a clone of a project the distribution does not ship, or no clone at all: nothing', async () => {
    const root = tree({ 'build.sh': 'git clone https://github.com/someone/own-thing.git\nmake\n' });
    expect(await shippedSourceRepairs(repoInfo({ root }), [script('bash build.sh')], shipped)).toEqual([]);
    expect(await shippedSourceRepairs(repoInfo({ root }), [script('make -j2')], shipped)).toEqual([]);
  });

  it("a deploy's target command is read too", async () => {
    const root = tree({
      'run.sh': 'git clone https://github.com/nothings/stb\ncc -I stb main.c && ./a.out\n',
    });
    const found = await shippedSourceRepairs(repoInfo({ root }), [], shipped, {
      target: { command: 'bash run.sh', evidence: {} },
    } as never);
    expect(found.map((f) => f.repair.packages?.at(-1))).toEqual(['libstb-dev']);
  });

  it('the rules strategy applies it to the first script and says why each package is there', async () => {
    const root = tree({
      'build.sh': 'git clone https://github.com/google/googletest\ncmake -S googletest -B b\n',
    });
    const repo = repoInfo({ root, buildSystems: [system('script', '', 'build.sh')] });
    const context: TurnContext = {
      turn: 0,
      maxTurns: 4,
      repo,
      expected: { names: [], source: 'none' },
      workdir: '/workspace',
      history: [],
    };
    const action = await new RulesStrategy(new RuleKnowledge(), {}).next(context);
    if (action.kind !== 'run') throw new Error('expected a script');
    expect(action.script).toContain('url."$m".insteadOf https://github.com/google/googletest ');
    expect(action.upFront).toContainEqual(
      expect.objectContaining({
        kind: 'package',
        what: 'googletest',
        why: expect.stringMatching(/^before the first script, shipped-source: .*build\.sh:1/),
      }),
    );
    // The line is the recipe's own preparation, not a source edit the patch series would replace.
    expect(action.recipe?.prelude.some((l) => l.includes('buildbench-shipped'))).toBe(true);
  });
});

describe('a missing submodule of a project the distribution ships as a library', () => {
  const onig = { path: 'vendor/oniguruma', url: 'https://github.com/kkos/oniguruma.git', populated: false };

  it("installs the distribution's package up front, with the .gitmodules line as evidence", () => {
    const found = shippedLibraryRepairs([onig], shipped);
    expect(found).toEqual([
      {
        repair: expect.objectContaining({
          rule: 'shipped-library',
          packages: ['libonig-dev'],
          reason: expect.stringContaining('vendor/oniguruma (github.com/kkos/oniguruma) is not checked out'),
        }),
        evidence: '.gitmodules: vendor/oniguruma = https://github.com/kkos/oniguruma.git',
      },
    ]);
    // scp-style addresses name the same project; an unknown project gets nothing.
    expect(
      shippedLibraryRepairs([{ ...onig, url: 'git@github.com:kkos/oniguruma.git' }], shipped),
    ).toHaveLength(1);
    expect(
      shippedLibraryRepairs([{ ...onig, url: 'https://github.com/someone/own-thing.git' }], shipped),
    ).toEqual([]);
  });

  it('a library entry never stands in for a clone (it has no sources to copy)', async () => {
    const root = tree({ 'build.sh': 'git clone https://github.com/kkos/oniguruma.git\n' });
    expect(await shippedSourceRepairs(repoInfo({ root }), [script('bash build.sh')], shipped)).toEqual([]);
  });

  it('the rules strategy installs it before the first script; a checked-out submodule gets nothing', async () => {
    const root = tree({ 'configure.ac': 'AC_INIT([x], [1])\n', 'CMakeLists.txt': '' });
    const context = (submodules: (typeof onig)[]): TurnContext => ({
      turn: 0,
      maxTurns: 4,
      repo: repoInfo({ root, submodules, buildSystems: [system('make', '', 'Makefile')] }),
      expected: { names: [], source: 'none' },
      workdir: '/workspace',
      history: [],
    });
    const action = await new RulesStrategy(new RuleKnowledge(), {}).next(context([onig]));
    if (action.kind !== 'run') throw new Error('expected a script');
    expect(action.upFront).toContainEqual(
      expect.objectContaining({
        kind: 'package',
        what: 'libonig-dev',
        why: expect.stringMatching(/shipped-library/),
      }),
    );
    const populated = await new RulesStrategy(new RuleKnowledge(), {}).next(
      context([{ ...onig, populated: true }]),
    );
    if (populated.kind !== 'run') throw new Error('expected a script');
    expect((populated.upFront ?? []).some((u) => u.what === 'libonig-dev')).toBe(false);
  });
});

describe('the line, run by bash and git', () => {
  const hasGit = spawnSync('git', ['--version']).status === 0;
  const itGit = hasGit ? it : it.skip;

  /** Runs the line, then the clone, in a scratch HOME and TMPDIR; returns the clone's folder and stderr. */
  function cloneWith(url: string, entry: ShippedSource, clone: string): { dir: string; stderr: string } {
    const scratch = mkdtempSync(path.join(tmpdir(), 'bb-shipped-run-'));
    const env = { ...process.env, HOME: scratch, TMPDIR: scratch, GIT_CONFIG_NOSYSTEM: '1' };
    const run = spawnSync(
      'bash',
      ['-c', `set -eo pipefail\n${shippedSourceLine(url, entry, ['1.2.3'])}\ncd "$HOME" && ${clone}`],
      {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    if (run.status !== 0) throw new Error(`exit ${run.status}: ${run.stderr}`);
    return { dir: path.join(scratch, 'dep'), stderr: run.stderr };
  }

  const shippedTree = (): ShippedSource => {
    const from = tree({ 'include/dep/dep.h': '#define DEP 1\n', LICENSE: 'l\n' });
    return {
      name: 'dep',
      package: 'libdep-dev',
      names: [],
      repositories: [],
      tree: [
        { at: 'include/dep', from: path.join(from, 'include/dep') },
        { at: 'LICENSE', from: path.join(from, 'LICENSE') },
      ],
    };
  };

  itGit(
    'an address out of reach: the clone gets the shipped files in the upstream layout, at the ref asked',
    () => {
      const url = 'https://unreachable.invalid/someone/dep.git';
      const { dir, stderr } = cloneWith(url, shippedTree(), `git clone --depth 1 -b 1.2.3 ${url} dep`);
      expect(readFileSync(path.join(dir, 'include/dep/dep.h'), 'utf8')).toBe('#define DEP 1\n');
      expect(existsSync(path.join(dir, 'LICENSE'))).toBe(true);
      expect(stderr).toMatch(
        /buildbench: the dep repository is unreachable: falling back to the distribution's libdep-dev/,
      );
    },
  );

  itGit('without the line, that clone fails (the failure the move prevents)', () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'bb-shipped-run-'));
    const run = spawnSync(
      'git',
      ['clone', 'https://unreachable.invalid/someone/dep.git', path.join(scratch, 'dep')],
      {
        env: { ...process.env, HOME: scratch, GIT_TERMINAL_PROMPT: '0' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).not.toBe(0);
  });

  itGit('an address that answers: cloned as it is, nothing rewritten', () => {
    const upstream = tree({ README: 'the real one\n' });
    const git = (...args: string[]): void => {
      execFileSync('git', ['-C', upstream, ...args], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
    };
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-qm', 'upstream');
    const url = `file://${upstream}`;
    const { dir, stderr } = cloneWith(url, shippedTree(), `git clone -q ${url} dep`);
    expect(readFileSync(path.join(dir, 'README'), 'utf8')).toBe('the real one\n');
    expect(existsSync(path.join(dir, 'include'))).toBe(false);
    expect(stderr).not.toMatch(/unreachable/);
  });
});
