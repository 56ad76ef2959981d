/**
 * Issue 12's failure classes, rule by rule: real log shapes through the real parser and the rule table, with a
 * fake package index (the real one is exercised by test/integration/repair-round2.int.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RuleKnowledge } from '../../../../src/knowledge/repair/rules/index.js';
import {
  commandFromVariable,
  needsOfCall,
  parseFindCalls,
  projectFindCalls,
} from '../../../../src/knowledge/repair/rules/cmake-find.js';
import { JOBS_FLAG, failedStepPurpose, serialStep } from '../../../../src/knowledge/repair/rules/parallel.js';
import { compareVersions, newerMacrosUsed } from '../../../../src/knowledge/repair/rules/autotools.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import type { Need } from '../../../../src/knowledge/repair/needs.js';
import type { RepairInput, StrategyServices } from '../../../../src/knowledge/repair/repair.js';
import { defaultRepairTables } from '../../../../src/knowledge/repair/tables.js';
import { recipeFor } from '../../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../../src/recipe/model.js';
import { repoInfo, system } from '../../../fakes/repo-info.js';

const INDEX: Record<string, string> = {
  'command:autopoint': 'autopoint',
  'command:gtkdocize': 'gtk-doc-tools',
  'library:jansson': 'libjansson-dev',
  'command:bison': 'bison',
  'header:sodium.h': 'libsodium-dev',
  'library:sodium': 'libsodium-dev',
  'header:portaudio.h': 'portaudio19-dev',
  'library:portaudio': 'portaudio19-dev',
  'cmake:ZLIB': 'zlib1g-dev',
  'pkgconfig:zlib': 'zlib1g-dev',
};

function services(asked: Need[][] = []): StrategyServices {
  return {
    resolvePackages: (needs) => {
      asked.push(needs);
      return Promise.resolve(
        needs.map((need) => {
          const pkg = INDEX[`${need.kind}:${need.name}`];
          return {
            need,
            package: pkg,
            candidates: pkg ? [pkg] : [],
            via: pkg ? ('apt-file' as const) : ('none' as const),
          };
        }),
      );
    },
  };
}

function input(log: string, kind: 'cmake' | 'make' | 'autotools', root = '/nonexistent'): RepairInput {
  const analysis = analyzeLog(log);
  if (!analysis.rootCause) throw new Error(`no root cause in: ${log}`);
  return {
    rootCause: analysis.rootCause,
    findings: analysis.findings,
    recipe: recipeFor(system(kind, ''))!,
    fixes: emptyFixes(),
    repo: repoInfo({ root }),
    output: log,
  };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'bb-round2-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const knowledge = new RuleKnowledge();

describe('class 1: autotools helper tools', () => {
  it.each([
    ['autopoint', 'autopoint'],
    ['gtkdocize', 'gtk-doc-tools'],
  ])('installs what provides %s (from the index) and regenerates configure', async (tool, pkg) => {
    const log = [
      '### buildbench: generate',
      `Can't exec "${tool}": No such file or directory at /usr/share/autoconf/Autom4te/FileUtils.pm line 293.`,
      `autoreconf: error: ${tool} failed with exit status: 2`,
    ].join('\n');
    const asked: Need[][] = [];
    const [repair] = await knowledge.propose(input(log, 'autotools'), services(asked));
    expect(repair).toMatchObject({ rule: 'install-autotools-helper', packages: [pkg] });
    expect(asked[0]).toEqual([{ kind: 'command', name: tool }]);
    expect(repair?.recipe?.steps[0]).toMatchObject({ purpose: 'generate', command: 'autoreconf -fi' });
  });

  it('proposes nothing for a helper the index does not know', async () => {
    const log = `Can't exec "vendor-gen": No such file or directory at /usr/bin/autoreconf line 1.`;
    expect(await knowledge.propose(input(log, 'autotools'), services())).toEqual([]);
  });
});

describe('class 2: AC_PREREQ newer than the installed Autoconf', () => {
  const log = 'configure.ac:1: error: Autoconf version 2.72 or higher is required';

  it('lowers the prerequisite as a recorded patch when no newer macro is used', async () => {
    const root = tree({ 'configure.ac': 'AC_PREREQ([2.72])\nAC_INIT([x], [1])\nAC_OUTPUT\n' });
    const [repair] = await knowledge.propose(input(log, 'autotools', root), services());
    expect(repair).toMatchObject({ rule: 'lower-ac-prereq', key: 'ac-prereq:configure.ac' });
    expect(repair?.patches).toEqual([
      { file: 'configure.ac', reason: expect.stringMatching(/Autoconf 2\.72/) },
    ]);
    expect(repair?.prelude?.[0]).toMatch(/autoconf --version/);
    expect(repair?.prelude?.[0]).toMatch(/sed -i -E 's\/AC_PREREQ/);
    expect(repair?.recipe?.steps[0]?.command).toBe('autoreconf -fi');
  });

  it('leaves it when configure.ac calls a macro that Autoconf 2.72 introduced', async () => {
    const root = tree({
      'configure.ac': 'AC_PREREQ([2.72])\nAC_INIT([x], [1])\nAC_SYS_YEAR2038\nAC_OUTPUT\n',
    });
    expect(await knowledge.propose(input(log, 'autotools', root), services())).toEqual([]);
  });

  it('reads the table of newer macros with their versions', () => {
    const tables = defaultRepairTables();
    expect(newerMacrosUsed('AC_SYS_YEAR2038_RECOMMENDED', '2.72', tables)).toEqual([
      'AC_SYS_YEAR2038_RECOMMENDED',
    ]);
    expect(newerMacrosUsed('AC_SYS_YEAR2038', '2.71', tables)).toEqual([]);
    expect(compareVersions('2.72', '2.71.1')).toBeGreaterThan(0);
    expect(compareVersions('2.69', '2.69.0')).toBe(0);
  });
});

describe('class 3: CMake find_library / find_program names', () => {
  it('installs what ships libNAME.so for find_library(… REQUIRED)', async () => {
    const log = [
      'CMake Error at CMakeLists.txt:3 (find_library):',
      '  Could not find JSON_LIBRARIES using the following names: jansson',
      '-- Configuring incomplete, errors occurred!',
    ].join('\n');
    const asked: Need[][] = [];
    const [repair] = await knowledge.propose(input(log, 'cmake'), services(asked));
    expect(repair).toMatchObject({ rule: 'install-find-names-package', packages: ['libjansson-dev'] });
    expect(asked[0]).toEqual([{ kind: 'library', name: 'jansson' }]);
  });

  it('looks up a command for find_program', async () => {
    const log = [
      'CMake Error at cmake/tools.cmake:7 (find_program):',
      '  Could not find BISON_EXECUTABLE using the following names: bison, yacc',
    ].join('\n');
    const asked: Need[][] = [];
    const [repair] = await knowledge.propose(input(log, 'cmake'), services(asked));
    expect(repair?.packages).toEqual(['bison']);
    expect(asked[0]).toEqual([
      { kind: 'command', name: 'bison' },
      { kind: 'command', name: 'yacc' },
    ]);
  });

  it('guesses the command from the variable when the log does not say', () => {
    expect(commandFromVariable('FOO_EXECUTABLE')).toBe('find_program');
    expect(commandFromVariable('FOO_INCLUDE_DIR')).toBe('find_path');
    expect(commandFromVariable('FOO_LIBRARIES')).toBe('find_library');
  });
});

describe("class 4: *-NOTFOUND variables, resolved through the project's own find_* calls", () => {
  it('parses find_path / find_library calls, long and short forms', () => {
    const calls = parseFindCalls(
      [
        'find_path(SODIUM_INCLUDE_DIR NAMES sodium.h PATH_SUFFIXES sodium include # comment',
        '  HINTS ${SODIUM_ROOT})',
        'find_library(SODIUM_LIBRARY NAMES sodium libsodium)',
        'find_library(M_LIB m)',
        'FIND_PROGRAM(GEN_EXE NAMES "gen-tool" DOC "the generator")',
      ].join('\n'),
      'cmake/FindSodium.cmake',
    );
    expect(calls).toEqual([
      {
        command: 'find_path',
        variable: 'SODIUM_INCLUDE_DIR',
        names: ['sodium.h'],
        suffixes: ['sodium', 'include'],
        file: 'cmake/FindSodium.cmake',
      },
      {
        command: 'find_library',
        variable: 'SODIUM_LIBRARY',
        names: ['sodium', 'libsodium'],
        suffixes: [],
        file: 'cmake/FindSodium.cmake',
      },
      {
        command: 'find_library',
        variable: 'M_LIB',
        names: ['m'],
        suffixes: [],
        file: 'cmake/FindSodium.cmake',
      },
      {
        command: 'find_program',
        variable: 'GEN_EXE',
        names: ['gen-tool'],
        suffixes: [],
        file: 'cmake/FindSodium.cmake',
      },
    ]);
    expect(needsOfCall(calls[0]!)).toEqual([
      { kind: 'header', name: 'sodium/sodium.h' },
      { kind: 'header', name: 'include/sodium.h' },
      { kind: 'header', name: 'sodium.h' },
    ]);
    expect(needsOfCall(calls[1]!)).toEqual([
      { kind: 'library', name: 'sodium' },
      { kind: 'library', name: 'sodium' },
    ]);
  });

  const project = {
    'CMakeLists.txt': 'project(x C)\ninclude(FindSodiumLib)\n',
    'cmake/FindSodiumLib.cmake':
      'find_path(SODIUM_INCLUDE_DIR NAMES sodium.h PATH_SUFFIXES sodium)\nfind_library(SODIUM_LIBRARY NAMES sodium)\n',
    'cmake/LibFindMacros.cmake':
      'find_path(Portaudio_INCLUDE_DIR NAMES portaudio.h)\nfind_library(Portaudio_LIBRARY NAMES portaudio)\n',
  };

  it("finds the calls in the project's CMakeLists.txt and cmake/ modules", async () => {
    const calls = await projectFindCalls(tree(project), '');
    expect(calls.map((c) => `${c.file}:${c.variable}`)).toEqual([
      'cmake/FindSodiumLib.cmake:SODIUM_INCLUDE_DIR',
      'cmake/FindSodiumLib.cmake:SODIUM_LIBRARY',
      'cmake/LibFindMacros.cmake:Portaudio_INCLUDE_DIR',
      'cmake/LibFindMacros.cmake:Portaudio_LIBRARY',
    ]);
  });

  it('installs what the NOTFOUND variables look for (CMake\'s "set to NOTFOUND" list)', async () => {
    const log = [
      'CMake Error: The following variables are used in this project, but they are set to NOTFOUND.',
      'Please set them or make sure they are set and tested correctly in the CMake files:',
      '/workspace/SODIUM_INCLUDE_DIR',
      '   used as include directory in directory /workspace',
      'SODIUM_LIBRARY',
      '    linked by target "sodiumver" in directory /workspace',
    ].join('\n');
    const [repair] = await knowledge.propose(input(log, 'cmake', tree(project)), services());
    expect(repair).toMatchObject({ rule: 'install-notfound-package', packages: ['libsodium-dev'] });
    expect(repair?.reason).toMatch(/SODIUM_INCLUDE_DIR, SODIUM_LIBRARY NOTFOUND/);
    expect(repair?.reason).toMatch(/cmake\/FindSodiumLib\.cmake/);
  });

  it('reads an INTERFACE_INCLUDE_DIRECTORIES path and a LibFindMacros prefix', async () => {
    const root = tree(project);
    const path1 = [
      'CMake Error in CMakeLists.txt:',
      '  Imported target "Sodium::Sodium" includes non-existent path',
      '    "/src/SODIUM_INCLUDE_DIR-NOTFOUND"',
    ].join('\n');
    expect((await knowledge.propose(input(path1, 'cmake', root), services()))[0]?.packages).toEqual([
      'libsodium-dev',
    ]);
    const libfind =
      'CMake Error at cmake/LibFindMacros.cmake:263 (message): Required library Portaudio NOT FOUND.';
    expect((await knowledge.propose(input(libfind, 'cmake', root), services()))[0]?.packages).toEqual([
      'portaudio19-dev',
    ]);
  });

  it('proposes nothing when the project has no call for the variable', async () => {
    const log = 'Foo_LIBRARY=Foo_LIBRARY-NOTFOUND';
    expect(await knowledge.propose(input(log, 'cmake', tree(project)), services())).toEqual([]);
  });
});

describe('class 5: a failed submodule fetch does not mask the real error', () => {
  it("ranks the configure error after the fetch above the fetch's network errors", () => {
    const log = [
      "Cloning into '/workspace/third_party/googletest'...",
      "fatal: unable to access 'https://github.com/google/googletest.git/': Could not resolve host: github.com",
      "fatal: clone of 'https://github.com/google/googletest.git' into submodule path '/workspace/third_party/googletest' failed",
      "Failed to clone 'third_party/googletest'. Retry scheduled",
      'buildbench: warning: could not fetch the git submodules',
      '### buildbench: configure',
      'CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):',
      '  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)',
    ].join('\n');
    const analysis = analyzeLog(log);
    expect(analysis.rootCause).toMatchObject({
      id: 'cmake-could-not-find',
      captures: { cmake_package: 'ZLIB' },
    });
  });

  it('keeps a network error as the root cause when nothing else stopped the build', () => {
    const log = [
      "fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com",
      'buildbench: warning: could not fetch the git submodules',
    ].join('\n');
    expect(analyzeLog(log).rootCause?.category).toBe('network');
  });

  it('leaves network errors alone when no submodule fetch follows them', () => {
    const log = [
      "fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com",
      '  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)',
    ].join('\n');
    expect(analyzeLog(log).rootCause?.category).toBe('network');
  });
});

describe('class 6: parallel-make races', () => {
  const log = [
    '### buildbench: tools',
    '### buildbench: build',
    'cc -o app app.c util.o',
    '/usr/bin/ld: cannot find util.o: No such file or directory',
    'collect2: error: ld returned 1 exit status',
    'make: *** [Makefile:9: app] Error 1',
    'make: *** Waiting for unfinished jobs....',
  ].join('\n');

  it('runs the failed step again with -j1, and only that step', async () => {
    const [repair] = await knowledge.propose(input(log, 'make'), services());
    expect(repair).toMatchObject({ rule: 'serial-make', key: 'serial:build' });
    expect(repair?.reason).toMatch(/Waiting for unfinished jobs.*-j1/);
    const build = repair?.recipe?.steps.find((s) => s.purpose === 'build');
    expect(build?.command).toContain('-j1');
    expect(build?.command).not.toContain(JOBS_FLAG);
  });

  it('keeps -jN in the other steps', () => {
    const recipe = recipeFor(system('cmake', ''))!;
    const serial = serialStep(recipe, 'build')!;
    const before = recipe.steps.filter((s) => s.command.includes(JOBS_FLAG)).length;
    expect(serial.steps.filter((s) => s.command.includes(JOBS_FLAG)).length).toBe(before - 1);
    expect(serialStep(recipe, 'configure')).toBeUndefined();
  });

  it('finds the step whose output holds the error', () => {
    const analysis = analyzeLog(log);
    expect(failedStepPurpose(log, analysis.rootCause!)).toBe('build');
  });

  it('does nothing for a missing file without parallel jobs', async () => {
    const serial = log.replace('make: *** Waiting for unfinished jobs....', '');
    expect(await knowledge.propose(input(serial, 'make'), services())).toEqual([]);
  });

  it('reads cp/install of a file another target makes', async () => {
    const cp = [
      '### buildbench: build',
      "cp: cannot stat 'release/racer': No such file or directory",
      'make: *** [Makefile:10: dist] Error 1',
      'make: *** Waiting for unfinished jobs....',
    ].join('\n');
    expect((await knowledge.propose(input(cp, 'make'), services()))[0]?.rule).toBe('serial-make');
  });
});
