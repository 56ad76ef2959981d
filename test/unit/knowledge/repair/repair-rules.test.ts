import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RuleKnowledge, knownSignatureIds } from '../../../../src/knowledge/repair/rules/index.js';
import {
  missingComponents,
  missingLibraries,
  newerCmakeCommand,
} from '../../../../src/knowledge/repair/rules/cmake.js';
import { namesInProse } from '../../../../src/knowledge/repair/rules/prose.js';
import { RULE_LIMITS, regenerate } from '../../../../src/knowledge/repair/rules/rule.js';
import type { Finding } from '../../../../src/knowledge/diagnose/types.js';
import { defaultSignatureCatalog } from '../../../../src/knowledge/diagnose/signatures.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import type { Need } from '../../../../src/knowledge/repair/needs.js';
import {
  applyRepair,
  type RepairInput,
  type StrategyServices,
} from '../../../../src/knowledge/repair/repair.js';
import { recipeFor } from '../../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../../src/recipe/model.js';
import { repoInfo, system } from '../../../fakes/repo-info.js';

/** A package index that knows a few files, like apt-file would. */
const INDEX: Record<string, string> = {
  'header:zlib.h': 'zlib1g-dev',
  'library:png': 'libpng-dev',
  'pkgconfig:jansson': 'libjansson-dev',
  'pkgconfig:libzstd': 'libzstd-dev',
  'header:Eigen/Core': 'libeigen3-dev',
  'cmake:fmt': 'libfmt-dev',
  'command:bison': 'bison',
  'python-module:yaml': 'python3-yaml',
};

function services(
  asked: Need[][] = [],
  installed: Record<string, string[]> = {},
  index: Record<string, string> = INDEX,
): StrategyServices {
  return {
    resolvePackages: (needs) => {
      asked.push(needs);
      return Promise.resolve(
        needs.map((need) => {
          const pkg = index[`${need.kind}:${need.name}`];
          return {
            need,
            package: pkg,
            candidates: pkg ? [pkg] : [],
            via: pkg ? ('apt-file' as const) : ('none' as const),
            installed: pkg !== undefined && installed[need.name] !== undefined,
          };
        }),
      );
    },
    findHeaders: (header) => Promise.resolve(installed[header] ?? []),
  };
}

function input(
  log: string,
  kind: 'cmake' | 'make' | 'autotools' = 'make',
  root = '/nonexistent',
): RepairInput {
  const analysis = analyzeLog(log);
  if (!analysis.rootCause) throw new Error(`no root cause in: ${log}`);
  return {
    rootCause: analysis.rootCause,
    findings: analysis.findings,
    recipe: recipeFor(system(kind, '', undefined, { hasConfigure: true }))!,
    fixes: emptyFixes(),
    repo: repoInfo({ root }),
    output: log,
  };
}

const knowledge = new RuleKnowledge();

describe('repair knowledge', () => {
  it('only has rules for signatures that exist in the catalog', () => {
    const ids = new Set(defaultSignatureCatalog().signatures.map((s) => s.id));
    expect(knownSignatureIds().filter((id) => !ids.has(id))).toEqual([]);
  });

  it.each([
    ['main.c:1:10: fatal error: zlib.h: No such file or directory', 'zlib1g-dev'],
    ['/usr/bin/ld: cannot find -lpng: No such file or directory', 'libpng-dev'],
    ["Package 'jansson', required by 'virtual:world', not found", 'libjansson-dev'],
    [
      '  Could not find a package configuration file provided by "fmt" with any of\n  the following names:\n\n    fmtConfig.cmake\n    fmt-config.cmake',
      'libfmt-dev',
    ],
    ['/bin/sh: 1: bison: not found', 'bison'],
    ["ModuleNotFoundError: No module named 'yaml'", 'python3-yaml'],
  ])('installs the package the index names for: %s', async (log, pkg) => {
    const repairs = await knowledge.propose(input(log), services());
    expect(repairs[0]?.packages).toContain(pkg);
    expect(repairs[0]?.key).toMatch(/^pkg:/);
    expect(repairs[0]?.reason).toMatch(new RegExp(pkg.replace(/[.+]/g, '\\$&')));
  });

  it('proposes nothing when the index does not know the missing file (never guesses a package)', async () => {
    const repairs = await knowledge.propose(
      input('x.c:1:10: fatal error: nosuchthing.h: No such file or directory'),
      services(),
    );
    expect(repairs).toEqual([]);
    expect(
      await knowledge.propose(input('x.c:1:10: fatal error: zlib.h: No such file or directory'), {}),
    ).toEqual([]);
  });

  it('maps GCC ≥ 10 multiple definitions to -fcommon and -Werror to -Wno-error, through the compiler wrappers', async () => {
    const common = await knowledge.propose(
      input(
        "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `counter'; a.o:(.bss+0x0): first defined here",
        'cmake',
      ),
      {},
    );
    expect(common[0]).toMatchObject({ rule: 'gcc10-fcommon', env: { BB_EXTRA_CFLAGS: '-fcommon' } });
    expect(common[0]!.prelude).toEqual(['rm -rf build']);
    const werror = await knowledge.propose(
      input("a.c:3:7: error: unused variable 'x' [-Werror=unused-variable]"),
      {},
    );
    expect(werror[0]).toMatchObject({
      rule: 'drop-werror',
      env: { BB_EXTRA_CFLAGS: '-Wno-error=unused-variable', BB_EXTRA_CXXFLAGS: '-Wno-error=unused-variable' },
    });
  });

  it('guards removed glibc headers with a recorded source patch', async () => {
    const repairs = await knowledge.propose(
      input('os.c:4:10: fatal error: sys/sysctl.h: No such file or directory'),
      services(),
    );
    expect(repairs[0]?.rule).toBe('guard-removed-glibc-header');
    expect(repairs[0]?.patches?.[0]?.reason).toMatch(/glibc 2.32/);
    expect(repairs[0]?.prelude?.[0]).toContain('sys\\/sysctl\\.h');
  });

  it('regenerates configure for undefined autoconf macros after installing their package', async () => {
    const repairs = await knowledge.propose(
      input('configure.ac:12: error: possibly undefined macro: AX_CHECK_COMPILE_FLAG', 'autotools'),
      {},
    );
    expect(repairs[0]?.packages).toEqual([
      'autoconf',
      'automake',
      'libtool',
      'pkg-config',
      'autoconf-archive',
    ]);
    expect(repairs[0]?.recipe?.steps[0]).toEqual({ purpose: 'generate', command: 'autoreconf -fi' });
  });

  it('regenerates in the folder of the recipe, quoted for bash whatever its name', () => {
    const quoted = recipeFor(system('autotools', "it's here", undefined, { hasConfigure: true }))!;
    expect(regenerate(quoted)?.steps[0]).toEqual({
      purpose: 'generate',
      command: `cd 'it'\\''s here' && autoreconf -fi`,
    });
    const plain = recipeFor(system('autotools', 'sub', undefined, { hasConfigure: true }))!;
    expect(regenerate(plain)?.steps[0]?.command).toBe('cd sub && autoreconf -fi');
    const script = regenerate(quoted)!.steps[0]!.command;
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
  });

  it('turns off an optional CMake feature whose package cannot be found', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-opt-'));
    writeFileSync(
      path.join(root, 'CMakeLists.txt'),
      'option(WITH_LIBFOO "use foo" ON)\noption(BUILD_TESTS "tests" ON)\n',
    );
    const repairs = await knowledge.propose(
      input(
        'CMake Error at CMakeLists.txt:3 (find_package):\n  By not providing "FindLibFoo.cmake" in CMAKE_MODULE_PATH this project has\n  asked CMake to find a package configuration file provided by "LibFoo", but\n  CMake did not find one.',
        'cmake',
        root,
      ),
      services(),
    );
    expect(repairs.map((r) => r.configureArgs)).toEqual([['-DWITH_LIBFOO=OFF']]);
  });

  it('installs the module pkg_check_modules(REQUIRED) could not find, not only the pkg-config tool', async () => {
    const log = [
      "-- Checking for module 'libzstd'",
      "--   No package 'libzstd' found",
      'CMake Error at /usr/share/cmake-3.25/Modules/FindPkgConfig.cmake:607 (message):',
      '  A required package was not found',
    ].join('\n');
    const repairs = await knowledge.propose(input(log, 'cmake'), services());
    expect(repairs[0]).toMatchObject({
      rule: 'install-pkgconfig-package',
      packages: ['libzstd-dev', 'pkg-config'],
    });
    expect(repairs.map((r) => r.rule)).toContain('install-pkg-config');
  });

  it('adds the include directory of a header that is installed outside the default search path', async () => {
    const log = 'norm.cpp:1:10: fatal error: Eigen/Core: No such file or directory';
    const before = await knowledge.propose(input(log), services());
    expect(before.map((r) => r.rule)).toEqual(['install-header-package']);
    const after = await knowledge.propose(
      input(log),
      services([], {
        'Eigen/Core': ['/usr/include/eigen3/unsupported/Eigen/Core', '/usr/include/eigen3/Eigen/Core'],
      }),
    );
    // The package is installed now: only the search path can help.
    expect(after).toEqual([
      expect.objectContaining({
        rule: 'add-include-dir',
        key: 'cpath:/usr/include/eigen3',
        env: { CPATH: '/usr/include/eigen3' },
      }),
    ]);
    // A header the index does not attribute to a package (a generated config.h) is not looked for elsewhere.
    const generated = await knowledge.propose(
      input('main.c:1:10: fatal error: config.h: No such file or directory'),
      services([], { 'config.h': ['/usr/include/someproject/config.h'] }),
    );
    expect(generated).toEqual([]);
    // A header found in a default directory is not a search-path problem.
    expect(
      await knowledge.propose(input(log), services([], { 'Eigen/Core': ['/usr/include/Eigen/Core'] })),
    ).toEqual([]);
  });

  it('accumulates search paths and flags when repairs combine', () => {
    let fixes = applyRepair(emptyFixes(), {
      rule: 'a',
      key: 'a',
      reason: '',
      env: { CPATH: '/usr/include/eigen3', BB_EXTRA_CFLAGS: '-fcommon' },
    });
    fixes = applyRepair(fixes, {
      rule: 'b',
      key: 'b',
      reason: '',
      env: { CPATH: '/usr/include/jsoncpp', BB_EXTRA_CFLAGS: '-Wno-error', BB_JOBS: '1' },
    });
    expect(fixes.env).toEqual({
      CPATH: '/usr/include/eigen3:/usr/include/jsoncpp',
      BB_EXTRA_CFLAGS: '-fcommon -Wno-error',
      BB_JOBS: '1',
    });
  });

  it.each([
    ["roots.c:(.text+0x2d): undefined reference to `sqrt'", '-lm'],
    [
      "/usr/bin/ld: auth.o: in function `check':\nauth.c:(.text+0x11): undefined reference to `crypt'",
      '-lcrypt',
    ],
    ["/usr/bin/ld: q.o: undefined reference to symbol 'pow@@GLIBC_2.29'", '-lm'],
    [
      "/usr/bin/ld: x.o: undefined reference to symbol 'inflate'\n/usr/bin/ld: /lib/x86_64-linux-gnu/libz.so.1: error adding symbols: DSO missing from command line",
      '-lz',
    ],
  ])('links the library an undefined symbol lives in: %s', async (log, flag) => {
    const repairs = await knowledge.propose(input(log), {});
    expect(repairs[0]).toMatchObject({ rule: 'link-toolchain-library', key: `link:${flag}` });
    expect(repairs[0]!.env!.BB_EXTRA_CFLAGS).toBe(`-Wl,--push-state,--as-needed,${flag},--pop-state`);
    // Link flags need no recompilation in-tree.
    expect(repairs[0]!.prelude).toEqual([]);
  });

  it('proposes no link flag for symbols of unknown libraries', async () => {
    expect(
      await knowledge.propose(input("main.c:(.text+0x5): undefined reference to `frob_init'"), {}),
    ).toEqual([]);
  });

  it('a flag repair for an in-tree build deletes only the objects compiled since the build started', async () => {
    const [repair] = await knowledge.propose(
      input(
        "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `counter'; a.o:(.bss+0x0): first defined here",
      ),
      {},
    );
    const line = repair!.prelude![0]!;
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-stale-'));
    mkdirSync(path.join(dir, 'src'));
    mkdirSync(path.join(dir, '.git'));
    const files = ['vendor.o', 'src/a.o', 'src/b.lo', '.git/x.o', 'src/a.c'];
    for (const f of files) writeFileSync(path.join(dir, f), '');
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(path.join(dir, 'vendor.o'), hourAgo, hourAgo);
    const stamp = path.join(dir, 'stamp');
    writeFileSync(stamp, '');
    const halfHourAgo = new Date(Date.now() - 1800_000);
    utimesSync(stamp, halfHourAgo, halfHourAgo);
    const bash = (env: Record<string, string>): number | null =>
      spawnSync('bash', ['-c', `set -eo pipefail; ${line}`], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      }).status;
    expect(bash({ BB_STAMP: stamp })).toBe(0);
    expect(files.filter((f) => existsSync(path.join(dir, f)))).toEqual(['vendor.o', '.git/x.o', 'src/a.c']);
    // Without the stamp (a recipe replayed in a fresh checkout) nothing is deleted.
    writeFileSync(path.join(dir, 'src/a.o'), '');
    expect(bash({})).toBe(0);
    expect(existsSync(path.join(dir, 'src/a.o'))).toBe(true);
  });

  it('reduces parallelism when the compiler is killed for memory', async () => {
    const repairs = await knowledge.propose(
      input('g++: fatal error: Killed signal terminated program cc1plus'),
      {},
    );
    expect(repairs[0]).toMatchObject({ rule: 'fewer-parallel-jobs', env: { BB_JOBS: '1' } });
  });
});

describe('names an error states in words', () => {
  it.each([
    ['cannot find required curses/ncurses library', { libraries: ['curses', 'ncurses'] }],
    ['the zlib library is required', { libraries: ['zlib'] }],
    ['library gmp not found', { libraries: ['gmp'] }],
    ['X11 development headers not found', { libraries: ['X11'] }],
    ['Neither flex, win_flex nor lex was found.', { programs: ['flex', 'win_flex', 'lex'] }],
    ['Neither flex nor win_flex nor lex was found.', { programs: ['flex', 'win_flex', 'lex'] }],
    ['"yacc not found"', { either: ['yacc'] }],
    ['libevent not found', { either: ['libevent'] }],
    ['C compiler cannot create executables', {}],
    ['you must configure in a separate build directory', {}],
  ])('%s', (text, expected) => {
    expect(namesInProse(text)).toEqual({ libraries: [], programs: [], either: [], ...expected });
  });

  /** An index for the prose tests: what apt-file would answer on Debian. */
  const prose: Record<string, string> = {
    'library:curses': 'libncurses-dev',
    'pkgconfig:ncurses': 'libncurses-dev',
    'command:flex': 'flex',
    'command:yacc': 'bison',
    'pkgconfig:libevent': 'libevent-dev',
  };
  const proseServices = (asked: Need[][]): StrategyServices => services(asked, {}, prose);

  it.each([
    ['configure: error: cannot find required curses/ncurses library', 'autotools', 'libncurses-dev'],
    ['configure: error: "yacc not found"', 'autotools', 'bison'],
    ['configure: error: "libevent not found"', 'autotools', 'libevent-dev'],
    [
      'CMake Error at CMakeLists.txt:2500 (message):\n  Neither flex nor win_flex nor lex was found.\n\n\n-- Configuring incomplete, errors occurred!',
      'cmake',
      'flex',
    ],
  ] as const)('installs what %s names', async (log, kind, pkg) => {
    const asked: Need[][] = [];
    const repairs = await knowledge.propose(input(log, kind), proseServices(asked));
    expect(repairs[0]).toMatchObject({ rule: 'install-named-dependency' });
    expect(repairs[0]?.packages?.[0]).toBe(pkg);
    expect(repairs[0]?.reason).toMatch(/names .* as missing; .* provides it \(found via apt-file\)$/);
  });

  it('looks nothing up for a CMake error that is not a message(), nor for prose that names nothing', async () => {
    const asked: Need[][] = [];
    const notMessage =
      'CMake Error at CMakeLists.txt:3 (add_subdirectory):\n  The source directory\n    /w/ext does not exist.';
    expect(await knowledge.propose(input(notMessage, 'cmake'), proseServices(asked))).toEqual([]);
    const nothing = 'configure: error: you must configure in a separate build directory';
    expect(await knowledge.propose(input(nothing, 'autotools'), proseServices(asked))).toEqual([]);
    expect(asked.flat().map((n) => n.name)).not.toContain('required');
  });
});

describe('a Find module that lacks components', () => {
  it('tells components from the variables most modules report', () => {
    expect(missingComponents('Xrandr Xcursor Xi')).toEqual(['Xrandr', 'Xcursor', 'Xi']);
    expect(missingComponents('PNG_LIBRARY PNG_PNG_INCLUDE_DIR')).toEqual([]);
    expect(missingComponents(undefined)).toEqual([]);
  });

  it("reads the libraries a project's own Find module searched for", async () => {
    expect(missingLibraries('MBEDTLS_INCLUDE_DIR MBEDTLS_LIBRARY MBEDX509_LIBRARY')).toEqual([
      'MBEDTLS',
      'MBEDX509',
    ]);
    expect(missingLibraries('Foo_LIBRARIES Foo_INCLUDE_DIRS')).toEqual(['Foo']);
    const asked: Need[][] = [];
    const svc = services(asked, {}, { 'library:mbedtls': 'libmbedtls-dev' });
    const log =
      'CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n  Could NOT find MbedTLS (missing: MBEDTLS_INCLUDE_DIR MBEDTLS_LIBRARY\n  MBEDX509_LIBRARY MBEDCRYPTO_LIBRARY)';
    const repairs = await knowledge.propose(input(log, 'cmake'), svc);
    expect(repairs[0]).toMatchObject({ rule: 'install-cmake-package', packages: ['libmbedtls-dev'] });
    // The config file and the .pc are asked for first.
    expect(asked[0]?.slice(0, 2)).toEqual([
      { kind: 'cmake', name: 'MbedTLS' },
      { kind: 'pkgconfig', name: 'mbedtls' },
    ]);
  });

  it('installs every component in one repair, before the package alone', async () => {
    const index: Record<string, string> = {
      'cmake:X11': 'libx11-dev',
      'pkgconfig:xrandr': 'libxrandr-dev',
      'pkgconfig:xcursor': 'libxcursor-dev',
      'library:Xi': 'libxi-dev',
    };
    // libx11-dev is installed already: the components are what is missing.
    const svc = services([], { X11: [] }, index);
    const log =
      'CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n  Could NOT find X11 (missing: Xrandr Xcursor Xi)';
    const repairs = await knowledge.propose(input(log, 'cmake'), svc);
    expect(repairs[0]).toMatchObject({
      rule: 'install-cmake-components',
      packages: ['libxrandr-dev', 'libxcursor-dev', 'libxi-dev'],
      reason:
        'CMake package X11 lacks its components Xrandr, Xcursor, Xi; libxrandr-dev, libxcursor-dev, libxi-dev provide them (found via apt-file)',
    });
  });
});

describe('a project that needs a newer CMake', () => {
  it('gets it from backports, else the PyPI wheel, in one command that also works as a RUN line', async () => {
    const log =
      'CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  CMake 3.28 or higher is required.  You are running version 3.25.1';
    const repairs = await knowledge.propose(input(log, 'cmake'), {});
    expect(repairs[0]).toMatchObject({ rule: 'newer-cmake', key: 'cmake>=3.28' });
    const command = repairs[0]!.prelude!.at(-1)!;
    expect(command).toBe(newerCmakeCommand('3.28'));
    expect(repairs[0]!.prelude![0]).toBe('rm -rf build');
    expect(command).not.toContain('\n');
    expect(spawnSync('bash', ['-n', '-c', command]).status).toBe(0);
    expect(command).toContain('-t "$VERSION_CODENAME-backports" cmake');
    expect(command).toContain("pip3 install --no-cache-dir 'cmake>=3.28'");
  });

  it('does nothing when CMake is already new enough (the version test, run for real)', () => {
    // A fake cmake on PATH that reports 3.30: the command must neither touch apt nor pip.
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-newer-cmake-'));
    writeFileSync(path.join(dir, 'cmake'), '#!/bin/sh\necho "cmake version 3.30.2"\n', { mode: 0o755 });
    writeFileSync(path.join(dir, 'apt-get'), '#!/bin/sh\necho apt-get called; exit 9\n', { mode: 0o755 });
    writeFileSync(path.join(dir, 'pip3'), '#!/bin/sh\necho pip3 called; exit 9\n', { mode: 0o755 });
    const run = spawnSync('bash', ['-c', newerCmakeCommand('3.28')], {
      env: { PATH: `${dir}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
  });
});

describe('how much of a failure the rules look at', () => {
  it('tries the root cause and the findings after it, RULE_LIMITS.findingsTried in all', async () => {
    const finding = (id: string, file: string, line: number): Finding => ({
      id,
      category: 'permission',
      message: `${file}: Permission denied`,
      captures: { file },
      line,
      excerpt: '',
    });
    // A root cause no rule answers, then twelve findings each with a repair of its own.
    const rootCause = finding('no-rule-for-this', 'x', 1);
    const findings = [
      rootCause,
      ...Array.from({ length: 12 }, (_, i) => finding('permission-denied', `./script${i}.sh`, i + 2)),
    ];
    const base = input('x.c: fatal error: zlib.h: No such file or directory\n');
    const repairs = await knowledge.propose({ ...base, rootCause, findings }, services());
    expect(RULE_LIMITS.findingsTried).toBe(10);
    expect(repairs.map((r) => r.key)).toEqual(
      Array.from({ length: RULE_LIMITS.findingsTried - 1 }, (_, i) => `chmod:./script${i}.sh`),
    );
  });
});
