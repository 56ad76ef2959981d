/**
 * Rules for toolchain drift answered with compiler and linker flags: code that older compilers accepted
 * (`-fcommon`, `-Wno-error`, an older C++ standard, relaxed C diagnostics, `-Wno-narrowing`), standard headers
 * no longer included transitively (force-included), toolchain libraries no longer linked implicitly, and
 * position-independent objects. The flags reach every compiler call through the recipe's wrappers.
 */
import { firstMatch, type RepairTables } from '../tables.js';
import { isKernelTree, kernelWerrorRepair } from './kernel.js';
import type { Finding } from '../../diagnose/types.js';
import type { Repair } from '../repair.js';
import { cap, flags, withFreshDir, type Rule } from './rule.js';

function headerFor(symbol: string, tables: RepairTables): string | undefined {
  const clean = symbol.replace(/^['‘’`"]|['‘’`"]$/g, '');
  return firstMatch(tables.stdHeaders, clean);
}

/** A link flag for an undefined symbol: the library the linker named (DSO missing from command line) or the table. */
function linkFlagFor(symbol: string, output: string, tables: RepairTables): string | undefined {
  const dso = /\/lib([\w+-]+?)\.so[.\d]*: error adding symbols: DSO missing from command line/.exec(output);
  if (dso) return dso[1] === 'pthread' ? '-pthread' : `-l${dso[1]}`;
  const bare = symbol.replace(/@.*$/, '').trim();
  return firstMatch(tables.toolchainLibraries, bare);
}

/**
 * Keeps -Werror from making a newer compiler's warning fatal: `-Wno-error=<warning>` when the log names the
 * warning (`[-Werror=stringop-overflow=]`, clang's `[-Werror,-Wunused-variable]`), the other warnings staying
 * errors as the authors wanted; plain `-Wno-error` when it does not.
 */
function werrorFlags(f: Finding): Repair {
  const warning = cap(f, 'warning')?.replace(/=$/, '');
  const flag = warning && /^[a-z0-9][a-z0-9+=-]*$/.test(warning) ? `-Wno-error=${warning}` : '-Wno-error';
  return flags(
    'drop-werror',
    `${f.message}: a newer compiler warns where the authors' did not, and -Werror makes that fatal; ${flag} keeps ${warning ? 'that warning' : 'the warnings'} a warning`,
    flag,
    flag,
  );
}

export const FLAG_RULES: Rule[] = [
  {
    ids: ['multiple-definition-fcommon', 'multiple-definition'],
    propose: (f, input) => [
      withFreshDir(
        flags(
          'gcc10-fcommon',
          `${f.message}: GCC ≥ 10 defaults to -fno-common, so tentative definitions in headers collide; -fcommon restores the old behaviour`,
          '-fcommon',
          '',
        ),
        input.recipe,
      ),
    ],
  },
  {
    ids: ['werror', 'werror-all'],
    propose: async (f, input) => [
      // A kernel tree has its own switches (its flags do not come from CFLAGS), tried first.
      ...((await isKernelTree(input)) ? [kernelWerrorRepair(f)] : []),
      withFreshDir(werrorFlags(f), input.recipe),
    ],
  },
  {
    ids: ['removed-cxx-api', 'cxx17-register', 'cxx17-dynamic-exception-spec'],
    propose: (f, input) => [
      withFreshDir(
        flags(
          'cxx-older-standard',
          `${f.message}: the code uses C++ features removed in C++17, the newer compilers' default; it is compiled as gnu++14`,
          '',
          '-std=gnu++14',
        ),
        input.recipe,
      ),
    ],
  },
  {
    ids: ['missing-cstdint', 'missing-stdint-c'],
    propose: (f, input) => [
      withFreshDir(
        f.id === 'missing-stdint-c'
          ? flags(
              'include-stdint',
              `${f.message}: <stdint.h> is no longer included transitively`,
              '-include stdint.h',
              '',
            )
          : flags(
              'include-cstdint',
              `${f.message}: <cstdint> is no longer included transitively by other standard headers`,
              '',
              '-include cstdint',
            ),
        input.recipe,
      ),
    ],
  },
  {
    ids: ['missing-std-include', 'missing-std-include-clang', 'forgot-include-note'],
    propose(f, input, { tables }) {
      const header = cap(f, 'header')?.replace(/[<>'‘’]/g, '') ?? headerFor(cap(f, 'symbol') ?? '', tables);
      if (!header) return [];
      const cxx = !header.endsWith('.h');
      return [
        withFreshDir(
          flags(
            'force-include-std-header',
            `${f.message}: <${header}> is no longer included transitively by newer standard libraries`,
            cxx ? '' : `-include ${header}`,
            `-include ${header}`,
          ),
          input.recipe,
        ),
      ];
    },
  },
  {
    ids: ['implicit-function-declaration', 'gcc14-permerror'],
    propose: (f, input) => [
      withFreshDir(
        flags(
          'relax-c-diagnostics',
          `${f.message}: newer compilers reject old C that older ones accepted with a warning`,
          '-Wno-error=implicit-function-declaration -Wno-error=implicit-int -Wno-error=int-conversion -Wno-error=incompatible-pointer-types',
          '',
        ),
        input.recipe,
      ),
    ],
  },
  {
    ids: ['cxx11-narrowing'],
    propose: (f, input) => [
      withFreshDir(
        flags(
          'allow-narrowing',
          `${f.message}: C++11 forbids narrowing in braces; -Wno-narrowing accepts the old code`,
          '',
          '-Wno-narrowing',
        ),
        input.recipe,
      ),
    ],
  },
  {
    ids: [
      'undefined-reference',
      'undefined-reference-dso',
      'undefined-symbol-lld',
      'implicit-declaration-warning',
    ],
    propose(f, input, { tables }) {
      const flag = linkFlagFor(cap(f, 'symbol') ?? '', input.output, tables);
      if (!flag) return [];
      // Through the compiler wrappers, after the objects; -Wl keeps it off compile-only calls, --as-needed off binaries that do not use it.
      const link = flag === '-pthread' ? '-pthread' : `-Wl,--push-state,--as-needed,${flag},--pop-state`;
      return [
        withFreshDir(
          {
            ...flags(
              'link-toolchain-library',
              `${f.message}: the symbol is in ${flag}, which the link line omits (older toolchains or libc pulled it in); it is added to every link`,
              link,
              link,
            ),
            key: `link:${flag}`,
          },
          input.recipe,
          false,
        ),
      ];
    },
  },
  {
    ids: ['relocation-fpic'],
    propose: (f, input) => [
      withFreshDir(
        flags(
          'fpic',
          `${f.message}: objects linked into a shared library must be position independent`,
          '-fPIC',
          '-fPIC',
        ),
        input.recipe,
      ),
    ],
  },
];
