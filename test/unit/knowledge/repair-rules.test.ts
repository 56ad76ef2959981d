import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RuleKnowledge, knownSignatureIds } from '../../../src/knowledge/repair-rules.js';
import { defaultSignatureCatalog } from '../../../src/knowledge/signatures.js';
import { analyzeLog } from '../../../src/knowledge/log-parser.js';
import type { PackageNeed, RepairInput, StrategyServices } from '../../../src/knowledge/repair.js';
import { recipeFor, emptyFixes } from '../../../src/agent/strategies/recipes.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

/** A package index that knows a few files, like apt-file would. */
const INDEX: Record<string, string> = {
  'header:zlib.h': 'zlib1g-dev',
  'library:png': 'libpng-dev',
  'pkgconfig:jansson': 'libjansson-dev',
  'cmake:fmt': 'libfmt-dev',
  'command:bison': 'bison',
  'python-module:yaml': 'python3-yaml',
};

function services(asked: PackageNeed[][] = []): StrategyServices {
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
      env: { BB_EXTRA_CFLAGS: '-Wno-error', BB_EXTRA_CXXFLAGS: '-Wno-error' },
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
    expect(repairs[0]?.packages).toEqual(['autoconf-archive']);
    expect(repairs[0]?.recipe?.steps[0]).toEqual({ purpose: 'generate', command: 'autoreconf -fi' });
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

  it('reduces parallelism when the compiler is killed for memory', async () => {
    const repairs = await knowledge.propose(
      input('g++: fatal error: Killed signal terminated program cc1plus'),
      {},
    );
    expect(repairs[0]).toMatchObject({ rule: 'fewer-parallel-jobs', env: { BB_JOBS: '1' } });
  });
});
