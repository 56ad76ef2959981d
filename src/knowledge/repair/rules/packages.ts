/**
 * Rules that install what is missing: a header, a library, a pkg-config module, a command, an interpreter,
 * a Python or Qt module, a shared library at run time, the compilers. Every package name comes from the
 * package index (checked with apt-cache), except the few fixed answers (`sudo`, `python-is-python3`,
 * `build-essential`, multilib) that are the same on every Debian or Ubuntu.
 */
import path from 'node:path';
import type { Repair, StrategyServices } from '../repair.js';
import { cap, installFor, type Rule } from './rule.js';

/** Include directories the compiler searches without being told (a header there is not missing for want of -I). */
const DEFAULT_INCLUDE_DIR = /^\/usr(?:\/local)?\/include(?:\/[a-z0-9_]+-linux-[a-z0-9_]+)?$/;
/** A package's own include root: one directory below a default one (/usr/include/eigen3, /usr/include/python3.11). */
const PACKAGE_INCLUDE_DIR = /^\/usr(?:\/local)?\/include(?:\/[a-z0-9_]+-linux-[a-z0-9_]+)?\/[^/]+$/;

/**
 * The one package include root `header` is found under among `paths` (its full paths: installed copies, or
 * where the package index says a package ships it), or undefined: when a copy is on the default search path
 * (nothing to add), when none is in such a root, or when several roots have it (which one the build means is
 * not known).
 */
export function packageIncludeRoot(header: string, paths: readonly string[]): string | undefined {
  const dirs = [
    ...new Set(
      paths.filter((p) => p.endsWith(`/${header}`)).map((p) => p.slice(0, p.length - header.length - 1)),
    ),
  ];
  if (dirs.some((d) => DEFAULT_INCLUDE_DIR.test(d))) return undefined;
  const roots = dirs.filter((d) => PACKAGE_INCLUDE_DIR.test(d));
  return roots.length === 1 ? roots[0] : undefined;
}

/**
 * A library header that is installed, but in its package's own include root, which the build does not put on
 * the include path (`<Eigen/Core>` in /usr/include/eigen3, `<json/json.h>` in /usr/include/jsoncpp): the
 * directory is added to CPATH, which GCC and Clang search like -I, whatever the build system. Only for headers
 * the package index attributes to a package (a generated `config.h` that happens to exist in some installed
 * package's directory is not this), and only when one such directory has it.
 */
async function addIncludeDir(header: string, services: StrategyServices): Promise<Repair[]> {
  if (!services.findHeaders || !services.resolvePackages) return [];
  const [resolution] = await services.resolvePackages([{ kind: 'header', name: header }]);
  if (!resolution?.package) return [];
  const dir = packageIncludeRoot(header, await services.findHeaders(header));
  if (!dir) return [];
  return [
    {
      rule: 'add-include-dir',
      key: `cpath:${dir}`,
      reason: `header ${header} (${resolution.package}) is installed in ${dir}, which is not on the compiler's default search path; it is added to CPATH`,
      env: { CPATH: dir },
    },
  ];
}

function installSudo(): Repair {
  return {
    rule: 'install-sudo',
    key: 'pkg:sudo',
    reason: 'the build calls sudo (the sandbox already runs as root)',
    packages: ['sudo'],
  };
}

function pythonIsPython3(reason: string): Repair {
  return { rule: 'python-is-python3', key: 'pkg:python-is-python3', reason, packages: ['python-is-python3'] };
}

export const PACKAGE_RULES: Rule[] = [
  {
    ids: ['missing-header', 'missing-header-clang', 'missing-header-localized'],
    async propose(f, _i, { services: s }) {
      const header = cap(f, 'header');
      if (!header) return [];
      return [
        ...(await installFor(
          'install-header-package',
          [{ kind: 'header', name: header }],
          `header ${header} is missing`,
          s,
        )),
        ...(await addIncludeDir(header, s)),
      ];
    },
  },
  {
    ids: ['missing-library', 'missing-library-lld'],
    propose(f, _i, { services: s }) {
      const lib = cap(f, 'library');
      return lib
        ? installFor(
            'install-library-package',
            [{ kind: 'library', name: lib }],
            `the linker cannot find -l${lib}`,
            s,
          )
        : [];
    },
  },
  {
    ids: [
      'missing-pkgconfig-required',
      'missing-pkgconfig',
      'pkgconfig-not-in-search-path',
      'meson-dependency-not-found',
      'qmake-pkgconfig-not-found',
    ],
    propose(f, _i, { services: s }) {
      const mod = cap(f, 'pkgconfig');
      return mod
        ? installFor(
            'install-pkgconfig-package',
            [
              { kind: 'pkgconfig', name: mod },
              { kind: 'cmake', name: mod },
            ],
            `pkg-config module ${mod} is missing`,
            s,
            ['pkg-config'],
          )
        : [];
    },
  },
  {
    ids: ['cmake-no-compiler', 'configure-no-compiler'],
    propose(f) {
      const lang = (cap(f, 'language') ?? cap(f, 'compiler') ?? '').toUpperCase();
      if (lang.includes('CUDA')) return [];
      return [
        {
          rule: 'install-compilers',
          key: 'pkg:build-essential',
          reason: 'no working C/C++ compiler was found',
          packages: ['build-essential'],
        },
      ];
    },
  },
  {
    ids: [
      'command-not-found',
      'command-not-found-sh',
      'command-not-found-make',
      'command-not-found-env',
      'meson-program-not-found',
      'autotools-missing',
      'autotools-missing-warning',
      'qtchooser-no-qt',
      'python-not-found',
    ],
    propose(f, _i, { services: s }) {
      const command = cap(f, 'command');
      if (!command) return [];
      const name = path.posix.basename(command);
      if (name === 'python')
        return [pythonIsPython3('`python` is not installed; python-is-python3 makes it python3')];
      if (name === 'sudo') return [installSudo()];
      return installFor(
        'install-command-package',
        [{ kind: 'command', name }],
        `command ${name} is not installed`,
        s,
      );
    },
  },
  { ids: ['sudo-not-found', 'apt-not-root'], propose: () => [installSudo()] },
  {
    ids: ['bad-interpreter'],
    propose(f, _i, { services: s }) {
      const interpreter = cap(f, 'interpreter');
      if (!interpreter) return [];
      const name = path.posix.basename(interpreter);
      if (name === 'python')
        return [pythonIsPython3('a script wants `python`; python-is-python3 provides it')];
      return installFor(
        'install-command-package',
        [{ kind: 'command', name }],
        `interpreter ${interpreter} is missing`,
        s,
      );
    },
  },
  {
    ids: ['python-module-not-found'],
    propose(f, _i, { services: s }) {
      const mod = cap(f, 'python_module');
      return mod
        ? installFor(
            'install-python-module',
            [{ kind: 'python-module', name: mod }],
            `Python module ${mod} is missing`,
            s,
          )
        : [];
    },
  },
  {
    ids: ['qmake-unknown-qt-module'],
    propose(f, _i, { services: s }) {
      const mod = cap(f, 'qt_module');
      if (!mod) return [];
      const cmake = `Qt5${mod.charAt(0).toUpperCase()}${mod.slice(1)}`;
      return installFor(
        'install-qt-module',
        [{ kind: 'cmake', name: cmake }],
        `Qt module ${mod} is missing`,
        s,
      );
    },
  },
  {
    ids: ['shared-library-not-found'],
    propose(f, _i, { services: s }) {
      const file = cap(f, 'file');
      return file
        ? installFor(
            'install-runtime-library',
            [{ kind: 'file', name: file }],
            `shared library ${file} is missing at run time`,
            s,
          )
        : [];
    },
  },
  {
    ids: ['apt-stale-index'],
    propose: () => [
      {
        rule: 'apt-update-first',
        key: 'apt-update',
        reason:
          'the package lists are older than the mirror, which no longer has the versions they name; apt-get update refreshes them before the install',
        prelude: ['apt-get update'],
      },
    ],
  },
  {
    ids: ['multilib-missing', 'multilib-toolchain-skipped'],
    propose: () => [
      {
        rule: 'install-multilib',
        key: 'pkg:gcc-multilib',
        reason: 'a 32-bit build needs the multilib C library headers',
        packages: ['gcc-multilib', 'g++-multilib'],
      },
    ],
  },
];
