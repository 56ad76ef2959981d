/**
 * Issue 31, §2: the generic moves the engine makes when no rule has a plan — a missing file looked up by its
 * path in versioned places, a skipped configure step run first, the other compiler for an option one does not
 * know — through the real log parser and the rule table, with a fake package index (the real one, end to end:
 * test/integration/generic-moves.int.test.ts). And the catalog's `repair: {owner: generic}` matches the moves.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import { defaultSignatureCatalog } from '../../../../src/knowledge/diagnose/signatures.js';
import {
  GENERIC_MOVES,
  configureStep,
  newestVersioned,
  type PathHit,
} from '../../../../src/knowledge/repair/rules/generic.js';
import { compareVersions } from '../../../../src/knowledge/repair/rules/autotools.js';
import { RuleKnowledge, knownSignatureIds } from '../../../../src/knowledge/repair/rules/index.js';
import type { RepairInput, StrategyServices } from '../../../../src/knowledge/repair/repair.js';
import { recipeFor } from '../../../../src/recipe/catalog.js';
import { emptyFixes, type Recipe } from '../../../../src/recipe/model.js';
import { repoInfo, system } from '../../../fakes/repo-info.js';

/** A package index with these `{pkg, path}` entries; the per-kind look-up finds none of them (ambiguous). */
function services(hits: PathHit[], known: string[] = hits.map((h) => h.pkg)): StrategyServices {
  return {
    resolvePackages: (needs) =>
      Promise.resolve(needs.map((need) => ({ need, candidates: [], via: 'none' as const }))),
    searchPaths: (tails) => {
      const res = tails.map((t) => new RegExp(`^${t}$`));
      return Promise.resolve(hits.filter((h) => res.some((re) => re.test(path.posix.basename(h.path)))));
    },
    knownPackages: (names) => Promise.resolve(names.filter((n) => known.includes(n))),
  };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'bb-generic-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

function input(log: string, recipe: Recipe, root = '/nonexistent'): RepairInput {
  const analysis = analyzeLog(log);
  if (!analysis.rootCause) throw new Error(`no root cause in: ${log}`);
  return {
    rootCause: analysis.rootCause,
    findings: analysis.findings,
    recipe,
    fixes: emptyFixes(),
    repo: repoInfo({ root }),
    output: log,
  };
}

const make = recipeFor(system('make', ''))!;
const cmake = recipeFor(system('cmake', ''))!;
const autotools = recipeFor(system('autotools', ''))!;
const script: Recipe = {
  ...make,
  id: 'script:build.sh',
  system: 'script',
  label: './build.sh',
  steps: [{ purpose: 'build', command: 'sh ./build.sh' }],
};
const direct: Recipe = {
  ...make,
  id: 'direct',
  system: 'direct',
  label: 'direct compilation',
  steps: [{ purpose: 'build', command: 'cc -o cfg cfg.c' }],
};
const knowledge = new RuleKnowledge();

const LUA_HEADERS: PathHit[] = [
  { pkg: 'liblua5.1-0-dev', path: '/usr/include/lua5.1/lua.h' },
  { pkg: 'liblua5.3-dev', path: '/usr/include/lua5.3/lua.h' },
  { pkg: 'liblua5.4-dev', path: '/usr/include/lua5.4/lua.h' },
  { pkg: 'libluajit-5.1-dev', path: '/usr/include/luajit-2.1/lua.h' },
  { pkg: 'libtexlua-dev', path: '/usr/include/texlua53/lua.h' },
  { pkg: 'libdmlc-dev', path: '/usr/include/dmlc/lua.h' },
];

describe('versioned-file-lookup: a missing file looked up by its path', () => {
  it('a header only in versioned include folders: the newest one is installed and its folder put on CPATH', async () => {
    const log = 'luaver.c:2:10: fatal error: lua.h: No such file or directory\ncompilation terminated.';
    const repairs = await knowledge.propose(input(log, make), services(LUA_HEADERS));
    expect(repairs[0]).toMatchObject({
      rule: 'versioned-file-lookup',
      packages: ['liblua5.4-dev'],
      env: { CPATH: '/usr/include/lua5.4' },
    });
    expect(repairs[0]!.reason).toContain('/usr/include/lua5.4');
  });

  it('autotools aclocal, shipped only as aclocal-1.16 (the name is an alternative)', async () => {
    const hits = [
      { pkg: 'automake1.11', path: '/usr/bin/aclocal-1.11' },
      { pkg: 'automake', path: '/usr/bin/aclocal-1.16' },
    ];
    const log = './autogen.sh: 3: aclocal: not found';
    const repairs = await knowledge.propose(input(log, script), services(hits));
    expect(repairs.find((r) => r.rule === 'versioned-file-lookup')).toMatchObject({
      packages: ['automake'],
    });
    expect(repairs.find((r) => r.rule === 'versioned-file-lookup')!.prelude![0]).toContain(
      'ln -sf /usr/bin/aclocal-1.16 /usr/local/bin/aclocal',
    );
  });

  it('a program under versioned names: the newest (5.10 after 5.4)', () => {
    const hits = [
      { pkg: 'lua5.4', path: '/usr/bin/lua5.4' },
      { pkg: 'lua5.10', path: '/usr/bin/lua5.10' },
      { pkg: 'luarocks', path: '/usr/bin/luarocks' },
      { pkg: 'other', path: '/usr/lib/lua5.11' },
    ];
    expect(newestVersioned('command', 'lua', hits)?.hit.pkg).toBe('lua5.10');
    expect(compareVersions('5.10', '5.4')).toBeGreaterThan(0);
    expect(compareVersions('1.16', '1.16.0')).toBe(0);
  });

  it('proposes nothing when two packages share the newest version, none is versioned, or apt does not know it', async () => {
    const tie = [
      { pkg: 'a-dev', path: '/usr/include/foo2/foo.h' },
      { pkg: 'b-dev', path: '/usr/include/foo2/foo.h' },
    ];
    expect(newestVersioned('header', 'foo.h', tie)).toBeUndefined();
    expect(newestVersioned('header', 'lua.h', LUA_HEADERS.slice(3))).toBeUndefined();
    const log = 'luaver.c:2:10: fatal error: lua.h: No such file or directory';
    expect(await knowledge.propose(input(log, make), services(LUA_HEADERS, []))).toEqual([]);
    // Offline (a diagnosis of a CI log): no generic move, they read the index or the tree.
    const offline = await knowledge.propose(input(log, make), { ...services(LUA_HEADERS), offline: true });
    expect(offline.map((r) => r.rule)).toEqual(['install-header-package']);
  });
});

describe('configure-first: a generated file is missing', () => {
  it('config.h under direct compilation: the tree’s own config.sh runs first', async () => {
    const root = tree({ 'config.sh': 'echo "#define X 1" > config.h\n', 'cfg.c': '#include "config.h"\n' });
    const log = 'cfg.c:2:10: fatal error: config.h: No such file or directory';
    const repairs = await knowledge.propose(input(log, direct, root), services([]));
    expect(repairs[0]).toMatchObject({ rule: 'configure-first', prelude: ['sh ./config.sh'] });
  });

  it('make found no Makefile after a build script: configure.sh runs first', async () => {
    const root = tree({ 'configure.sh': 'true\n', 'build.sh': 'make\n' });
    const log = 'make: *** No targets specified and no makefile found.  Stop.';
    const repairs = await knowledge.propose(input(log, script, root), services([]));
    expect(repairs).toEqual([
      expect.objectContaining({ rule: 'configure-first', prelude: ['sh ./configure.sh'] }),
    ]);
  });

  it('which configure step: configure, else autogen or autoreconf then configure, else a script', () => {
    expect(configureStep(new Set(['configure', 'configure.ac']))?.commands).toEqual(['sh ./configure']);
    expect(configureStep(new Set(['configure.ac', 'autogen.sh']))?.commands).toEqual([
      'NOCONFIGURE=1 sh ./autogen.sh',
      'sh ./configure',
    ]);
    expect(configureStep(new Set(['configure.ac']))).toMatchObject({
      commands: ['autoreconf -fi', 'sh ./configure'],
      packages: expect.arrayContaining(['autoconf', 'automake']),
    });
    expect(configureStep(new Set(['bootstrap']))?.commands).toEqual(['sh ./bootstrap']);
    expect(configureStep(new Set(['Makefile', 'main.c']))).toBeUndefined();
  });

  it('not when the recipe configures already, the header is in the tree, or the tree has no configure step', async () => {
    const log = 'cfg.c:2:10: fatal error: config.h: No such file or directory';
    const withScript = tree({ 'config.sh': 'true\n' });
    expect(await knowledge.propose(input(log, autotools, withScript), services([]))).toEqual([]);
    const present = tree({ 'config.sh': 'true\n', 'config.h': '#define X 1\n' });
    expect(await knowledge.propose(input(log, direct, present), services([]))).toEqual([]);
    const bare = tree({ 'cfg.c': '' });
    expect(await knowledge.propose(input(log, direct, bare), services([]))).toEqual([]);
  });
});

describe('other-compiler: an option this compiler does not know', () => {
  it('GCC does not know a clang-only option: clang, from a fresh build directory', async () => {
    const log = "gcc: error: unrecognized command-line option '-ibuiltininc'";
    const repairs = await knowledge.propose(input(log, cmake), services([]));
    expect(repairs).toEqual([
      expect.objectContaining({
        rule: 'other-compiler',
        packages: ['clang'],
        env: { CC: 'clang', CXX: 'clang++' },
        prelude: ['rm -rf build'],
      }),
    ]);
  });

  it('clang does not know a GCC option: gcc; and not again once CC is set', async () => {
    const log = "clang: error: unknown argument: '-fno-semantic-interposition-x'";
    const repairs = await knowledge.propose(input(log, make), services([]));
    expect(repairs[0]).toMatchObject({ rule: 'other-compiler', env: { CC: 'gcc', CXX: 'g++' } });
    const again = input(log, make);
    again.fixes.env = { CC: 'gcc' };
    expect(await knowledge.propose(again, services([]))).toEqual([]);
  });
});

describe('the catalog and the generic moves', () => {
  const catalog = defaultSignatureCatalog();
  const byId = new Map(catalog.signatures.map((s) => [s.id, s]));
  const ruled = new Set(knownSignatureIds());

  it('every id a move owns is a catalog signature marked owner generic, and no rule claims it', () => {
    for (const id of GENERIC_MOVES.flatMap((m) => m.owns)) {
      expect({ id, owner: byId.get(id)?.repair?.owner }).toEqual({ id, owner: 'generic' });
      expect(ruled.has(id)).toBe(false);
      expect(byId.get(id)?.repair?.why).toMatch(/generic move/);
    }
  });

  it('every id a move follows is a signature a rule answers', () => {
    for (const id of GENERIC_MOVES.flatMap((m) => m.after)) {
      expect({ id, known: byId.has(id), ruled: ruled.has(id) }).toEqual({ id, known: true, ruled: true });
    }
  });
});
