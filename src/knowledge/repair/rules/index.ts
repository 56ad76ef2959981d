import path from 'node:path';
import { readFileUnder } from '../../../base/safe-fs.js';
import type { Finding } from '../../diagnose/types.js';
import type { PackageNeed, Repair, RepairInput, RepairKnowledge, StrategyServices } from '../repair.js';
import { shq } from '../../../base/shell.js';
import type { Recipe } from '../../../recipe/model.js';

/**
 * The repair knowledge base: general knowledge that maps a layer-1 finding (an error signature) to a fix.
 * No rule mentions a particular repository; every package name comes from the package index, checked.
 */

type Rule = (
  finding: Finding,
  input: RepairInput,
  services: StrategyServices,
) => Promise<Repair[]> | Repair[];

/** Installs the package that provides what is missing, when the package index knows one. */
async function installFor(
  rule: string,
  needs: PackageNeed[],
  what: string,
  services: StrategyServices,
  extra: string[] = [],
): Promise<Repair[]> {
  if (!services.resolvePackages || needs.length === 0) return [];
  const resolutions = await services.resolvePackages(needs);
  const found = resolutions.find((r) => r.package);
  // Already installed: the need is about search paths (see addIncludeDir), installing again cannot help.
  if (!found?.package || found.installed) return [];
  const packages = [...new Set([found.package, ...extra])];
  return [
    {
      rule,
      key: `pkg:${packages.join(',')}`,
      reason: `${what}; ${found.package} provides it (found via ${found.via})`,
      packages,
    },
  ];
}

function cap(finding: Finding, name: string): string | undefined {
  const value = finding.captures[name]?.trim();
  return value ? value : undefined;
}

/** `FooBar` / `foo-bar` → the spellings a CMake package or pkg-config module commonly has. */
function cmakeNeeds(name: string): PackageNeed[] {
  return [
    { kind: 'cmake', name },
    { kind: 'pkgconfig', name: name.toLowerCase() },
  ];
}

/** Flags that reach every compiler call through the recipe's wrappers (see renderScript). */
function flags(rule: string, reason: string, c: string, cxx: string): Repair {
  const env: Record<string, string> = {};
  if (c) env.BB_EXTRA_CFLAGS = c;
  if (cxx) env.BB_EXTRA_CXXFLAGS = cxx;
  return { rule, key: `flags:${c}|${cxx}`, reason, env, prelude: [] };
}

/**
 * A flag repair must start from a fresh build: CMake/meson get a new build directory, so they pick up the
 * wrapped compilers (they cache the compiler's path). In-tree builds (make, autotools, scripts) lose the
 * object files earlier turns compiled without the new flags, which make would otherwise only relink; files
 * that came with the checkout are older than the script's start stamp and stay (without the stamp, e.g. in
 * a replayed recipe, nothing is deleted). Link-only flags need no recompilation.
 */
function freshBuildDir(recipe: Recipe, objects = true): string[] {
  if (recipe.id.startsWith('cmake:')) return [`rm -rf ${recipe.dir ? `'${recipe.dir}/build'` : 'build'}`];
  if (recipe.id.startsWith('meson:'))
    return [`rm -rf ${recipe.dir ? `'${recipe.dir}/builddir'` : 'builddir'}`];
  if (!objects) return [];
  return [
    `if [ -e "\${BB_STAMP:-}" ]; then find ${shq(recipe.dir || '.')} -name .git -prune -o -type f \\( -name '*.o' -o -name '*.lo' -o -name '*.obj' \\) -newer "$BB_STAMP" -print0 | xargs -0 -r rm -f; fi`,
  ];
}

function withFreshDir(repair: Repair, recipe: Recipe, objects = true): Repair {
  return { ...repair, prelude: [...freshBuildDir(recipe, objects), ...(repair.prelude ?? [])] };
}

/** The autotools recipe with `autoreconf -fi` before configure (regenerates configure and the aux files). */
function regenerate(recipe: Recipe): Recipe | undefined {
  if (!recipe.id.startsWith('autotools:')) return undefined;
  const cd = recipe.dir ? `cd '${recipe.dir}' && ` : '';
  const steps = recipe.steps.filter((s) => s.purpose !== 'generate');
  return { ...recipe, steps: [{ purpose: 'generate', command: `${cd}autoreconf -fi` }, ...steps] };
}

/** Autoconf macro prefixes → the package that ships their .m4 files. */
const MACRO_PACKAGES: [RegExp, string[]][] = [
  [/^AX_/, ['autoconf-archive']],
  [/^PKG_/, ['pkg-config']],
  [/^(AM_GNU_GETTEXT|AM_ICONV|AM_LANGINFO)/, ['gettext', 'autopoint']],
  [/^(AC_PROG_LIBTOOL|AM_PROG_LIBTOOL|LT_|AC_LIBTOOL)/, ['libtool']],
  [/^AM_PATH_GLIB/, ['libglib2.0-dev']],
  [/^AM_PATH_GTK_3/, ['libgtk-3-dev']],
  [/^AM_PATH_GTK/, ['libgtk2.0-dev']],
  [/^AM_PATH_SDL2/, ['libsdl2-dev']],
  [/^AM_PATH_SDL/, ['libsdl1.2-dev']],
  [/^AM_PATH_PYTHON/, ['python3']],
  [/^(GTK_DOC_CHECK)/, ['gtk-doc-tools']],
  [/^(IT_PROG_INTLTOOL)/, ['intltool']],
  [/^(AM_PATH_LIBGCRYPT)/, ['libgcrypt20-dev']],
  [/^(AM_PATH_GPG_ERROR)/, ['libgpg-error-dev']],
  [/^(AM_PATH_XML2)/, ['libxml2-dev']],
];

/** Standard-library names that newer compilers no longer pull in transitively → the header to force-include. */
const STD_HEADERS: [RegExp, string][] = [
  [/^(std::)?(u?int(8|16|32|64)_t|u?intptr_t|SIZE_MAX|UINT\d+_MAX|INT\d+_MAX)$/, 'cstdint'],
  [/^(std::)?numeric_limits$/, 'limits'],
  [
    /^(std::)?(runtime_error|logic_error|invalid_argument|out_of_range|length_error|domain_error|overflow_error)$/,
    'stdexcept',
  ],
  [/^(std::)?(function|bind|reference_wrapper|hash)$/, 'functional'],
  [/^(std::)?(unique_ptr|shared_ptr|weak_ptr|make_shared|make_unique|allocator)$/, 'memory'],
  [/^(std::)?thread$/, 'thread'],
  [/^(std::)?(mutex|lock_guard|unique_lock|recursive_mutex)$/, 'mutex'],
  [/^(std::)?condition_variable$/, 'condition_variable'],
  [/^(std::)?(atomic|atomic_int|atomic_bool)$/, 'atomic'],
  [/^(std::)?(setw|setprecision|setfill|put_time)$/, 'iomanip'],
  [/^(std::)?(stringstream|ostringstream|istringstream)$/, 'sstream'],
  [/^(std::)?(ifstream|ofstream|fstream)$/, 'fstream'],
  [
    /^(std::)?(sort|find|find_if|min_element|max_element|transform|remove_if|reverse|count|fill|copy|unique|lower_bound|upper_bound|for_each|all_of|any_of|none_of|max|min|clamp)$/,
    'algorithm',
  ],
  [/^(std::)?(accumulate|iota)$/, 'numeric'],
  [/^(std::)?(array)$/, 'array'],
  [/^(std::)?(optional|nullopt)$/, 'optional'],
  [/^(std::)?(chrono)$/, 'chrono'],
  [/^(std::)?(memcpy|memset|memmove|strlen|strcmp|strncpy|strcpy|strchr|strstr|strerror)$/, 'cstring'],
  [/^(std::)?(malloc|free|exit|abort|atoi|getenv|size_t)$/, 'cstdlib'],
  [/^(INT_MAX|INT_MIN|UINT_MAX|LONG_MAX|CHAR_BIT|PATH_MAX)$/, 'climits'],
  [/^(std::)?(pair|move|swap|forward)$/, 'utility'],
  [/^(std::)?(cout|cerr|endl)$/, 'iostream'],
];

function headerFor(symbol: string): string | undefined {
  const clean = symbol.replace(/^['‘’`"]|['‘’`"]$/g, '');
  return STD_HEADERS.find(([re]) => re.test(clean))?.[1];
}

/** `option(NAME ...)` names in the repository's CMake files that could switch off a feature needing `pkg`. */
async function cmakeOptionsFor(root: string, recipe: Recipe, pkg: string): Promise<string[]> {
  const files = [path.posix.join(recipe.dir || '.', 'CMakeLists.txt').replace(/^\.\//, '')];
  const options = new Set<string>();
  for (const file of files) {
    let text = '';
    try {
      // a link that leads outside the checkout is not read (links inside are)
      text = (await readFileUnder(root, file, { follow: 'inside', maxBytes: 1024 * 1024 })).toString('utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/\boption\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)/g)) options.add(m[1]!);
  }
  const key = pkg.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  const testish = /^(GTEST|GMOCK|CATCH2?|DOCTEST|BENCHMARK|GOOGLETEST|CPPUNIT|CHECK|CMOCKA|BOOSTTEST)$/.test(
    key,
  );
  return [...options].filter((o) => {
    const upper = o.toUpperCase();
    if (
      key.length >= 3 &&
      upper.includes(key) &&
      /^(WITH|USE|ENABLE|BUILD|HAVE)_|_(SUPPORT|ENABLED?)$/.test(upper)
    )
      return true;
    return testish && /(^|_)(BUILD_)?(TESTS?|TESTING|BENCHMARKS?|EXAMPLES?)$/.test(upper);
  });
}

const RULES: Record<string, Rule> = {};
const on = (ids: string[], rule: Rule): void => {
  for (const id of ids) RULES[id] = rule;
};

/** Include directories the compiler searches without being told (a header there is not missing for want of -I). */
const DEFAULT_INCLUDE_DIR = /^\/usr(?:\/local)?\/include(?:\/[a-z0-9_]+-linux-[a-z0-9_]+)?$/;
/** A package's own include root: one directory below a default one (/usr/include/eigen3, /usr/include/python3.11). */
const PACKAGE_INCLUDE_DIR = /^\/usr(?:\/local)?\/include(?:\/[a-z0-9_]+-linux-[a-z0-9_]+)?\/[^/]+$/;

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
  const found = await services.findHeaders(header);
  const dirs = [...new Set(found.map((p) => p.slice(0, p.length - header.length - 1)))];
  if (dirs.some((d) => DEFAULT_INCLUDE_DIR.test(d))) return [];
  const roots = dirs.filter((d) => PACKAGE_INCLUDE_DIR.test(d));
  if (roots.length !== 1) return [];
  const dir = roots[0]!;
  return [
    {
      rule: 'add-include-dir',
      key: `cpath:${dir}`,
      reason: `header ${header} (${resolution.package}) is installed in ${dir}, which is not on the compiler's default search path; it is added to CPATH`,
      env: { CPATH: dir },
    },
  ];
}

on(['missing-header', 'missing-header-clang'], async (f, _i, s) => {
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
});

on(['missing-library', 'missing-library-lld'], (f, _i, s) => {
  const lib = cap(f, 'library');
  return lib
    ? installFor(
        'install-library-package',
        [{ kind: 'library', name: lib }],
        `the linker cannot find -l${lib}`,
        s,
      )
    : [];
});

on(
  [
    'missing-pkgconfig-required',
    'missing-pkgconfig',
    'pkgconfig-not-in-search-path',
    'meson-dependency-not-found',
    'qmake-pkgconfig-not-found',
  ],
  (f, _i, s) => {
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
);

/**
 * Installs a package for each item (each a list of look-ups, most specific first), in one repair: what
 * several missing parts need at once. Items the index knows nothing of, or that are installed, are left out.
 */
async function installEach(
  rule: string,
  items: PackageNeed[][],
  what: string,
  services: StrategyServices,
): Promise<Repair[]> {
  if (!services.resolvePackages || items.length === 0) return [];
  const resolutions = await services.resolvePackages(items.flat());
  const packages: string[] = [];
  const vias = new Set<string>();
  let offset = 0;
  for (const item of items) {
    const mine = resolutions.slice(offset, offset + item.length);
    offset += item.length;
    const found = mine.find((r) => r.package);
    if (found?.package && !found.installed && !packages.includes(found.package)) {
      packages.push(found.package);
      vias.add(found.via);
    }
  }
  if (packages.length === 0) return [];
  return [
    {
      rule,
      key: `pkg:${packages.join(',')}`,
      reason: `${what}; ${packages.join(', ')} provide${packages.length === 1 ? 's' : ''} them (found via ${[...vias].join(' and ')})`,
      packages,
    },
  ];
}

/**
 * The components a Find module reports as missing (`Could NOT find X11 (missing: Xrandr Xcursor Xi)`), as
 * opposed to the variables most modules report (`PNG_LIBRARY PNG_PNG_INCLUDE_DIR`).
 */
export function missingComponents(missing: string | undefined): string[] {
  return (missing ?? '')
    .split(/[\s,]+/)
    .filter((m) => /^[A-Za-z][A-Za-z0-9+-]*$/.test(m) && !/^(TRUE|FALSE|ON|OFF)$/i.test(m));
}

/** The libraries a Find module searched for, from the variables it could not set (`FOO_LIBRARY` → `FOO`). */
export function missingLibraries(missing: string | undefined): string[] {
  const names: string[] = [];
  for (const m of (missing ?? '').matchAll(/\b([A-Za-z][A-Za-z0-9]*)_LIBRAR(?:Y|IES)(?:_RELEASE)?\b/g)) {
    if (!names.includes(m[1]!)) names.push(m[1]!);
  }
  return names;
}

on(['cmake-missing-config', 'cmake-missing-find-module', 'cmake-could-not-find'], async (f, input, s) => {
  const pkg = cap(f, 'cmake_package');
  if (!pkg) return [];
  const components = missingComponents(cap(f, 'missing'));
  const repairs =
    components.length > 0
      ? await installEach(
          'install-cmake-components',
          [
            cmakeNeeds(pkg),
            ...components.map((c): PackageNeed[] => [
              { kind: 'pkgconfig', name: c.toLowerCase() },
              { kind: 'library', name: c },
              { kind: 'library', name: c.toLowerCase() },
            ]),
          ],
          `CMake package ${pkg} lacks its components ${components.join(', ')}`,
          s,
        )
      : [];
  // A project's own Find module may have neither a config file nor a .pc to look for: the libraries it
  // searched for (`MBEDTLS_LIBRARY` → libmbedtls.so) come last.
  const libraries = [pkg, ...missingLibraries(cap(f, 'missing'))].map((name): PackageNeed => ({
    kind: 'library',
    name: name.toLowerCase().replace(/^lib(?=[a-z])/, ''),
  }));
  repairs.push(
    ...(await installFor(
      'install-cmake-package',
      [...cmakeNeeds(pkg), ...libraries],
      `CMake package ${pkg} is missing`,
      s,
    )),
  );
  if (/^(BISON|FLEX|Git|Doxygen|Perl|PythonInterp|Python3?)$/i.test(pkg)) {
    repairs.push(
      ...(await installFor(
        'install-command-package',
        [{ kind: 'command', name: pkg.replace(/Interp$/, '').toLowerCase() }],
        `CMake needs the program ${pkg}`,
        s,
      )),
    );
  }
  for (const option of await cmakeOptionsFor(input.repo.root, input.recipe, pkg)) {
    repairs.push({
      rule: 'disable-optional-feature',
      key: `option:${option}`,
      reason: `CMake package ${pkg} is missing and option ${option} turns off what needs it`,
      configureArgs: [`-D${option}=OFF`],
    });
  }
  return repairs;
});

on(['cmake-missing-program'], (f, _i, s) => {
  const prog = cap(f, 'cmake_package');
  return prog
    ? installFor(
        'install-command-package',
        [{ kind: 'command', name: prog.toLowerCase() }],
        `CMake needs the program ${prog}`,
        s,
      )
    : [];
});

on(['cmake-pkgconfig-required'], async (f, _i, s) => {
  // pkg_check_modules(... REQUIRED <module>): the module's package; with no module named, the tool itself.
  const mod = cap(f, 'pkgconfig')?.split(/[\s<>=]/)[0];
  const repairs = mod
    ? await installFor(
        'install-pkgconfig-package',
        [{ kind: 'pkgconfig', name: mod }],
        `pkg-config module ${mod} is missing`,
        s,
        ['pkg-config'],
      )
    : [];
  repairs.push({
    rule: 'install-pkg-config',
    key: 'pkg:pkg-config',
    reason: 'CMake needs the pkg-config tool',
    packages: ['pkg-config'],
  });
  return repairs;
});

on(['cmake-no-compiler', 'configure-no-compiler'], (f) => {
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
});

on(['cmake-no-build-program'], (f) => {
  const generator = cap(f, 'generator') ?? '';
  const pkg = /ninja/i.test(generator) ? 'ninja-build' : 'make';
  return [
    {
      rule: 'install-build-program',
      key: `pkg:${pkg}`,
      reason: `CMake's ${generator || 'build'} program is missing`,
      packages: [pkg],
    },
  ];
});

on(
  [
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
  (f, _i, s) => {
    const command = cap(f, 'command');
    if (!command) return [];
    const name = path.posix.basename(command);
    if (name === 'python') {
      return [
        {
          rule: 'python-is-python3',
          key: 'pkg:python-is-python3',
          reason: '`python` is not installed; python-is-python3 makes it python3',
          packages: ['python-is-python3'],
        },
      ];
    }
    if (name === 'sudo') {
      return [
        {
          rule: 'install-sudo',
          key: 'pkg:sudo',
          reason: 'the build calls sudo (the sandbox already runs as root)',
          packages: ['sudo'],
        },
      ];
    }
    return installFor(
      'install-command-package',
      [{ kind: 'command', name }],
      `command ${name} is not installed`,
      s,
    );
  },
);

on(['sudo-not-found', 'apt-not-root'], () => [
  {
    rule: 'install-sudo',
    key: 'pkg:sudo',
    reason: 'the build calls sudo (the sandbox already runs as root)',
    packages: ['sudo'],
  },
]);

on(['bad-interpreter'], (f, _i, s) => {
  const interpreter = cap(f, 'interpreter');
  if (!interpreter) return [];
  const name = path.posix.basename(interpreter);
  if (name === 'python') {
    return [
      {
        rule: 'python-is-python3',
        key: 'pkg:python-is-python3',
        reason: 'a script wants `python`; python-is-python3 provides it',
        packages: ['python-is-python3'],
      },
    ];
  }
  return installFor(
    'install-command-package',
    [{ kind: 'command', name }],
    `interpreter ${interpreter} is missing`,
    s,
  );
});

on(['python-module-not-found'], (f, _i, s) => {
  const mod = cap(f, 'python_module');
  return mod
    ? installFor(
        'install-python-module',
        [{ kind: 'python-module', name: mod }],
        `Python module ${mod} is missing`,
        s,
      )
    : [];
});

on(['qmake-unknown-qt-module'], (f, _i, s) => {
  const mod = cap(f, 'qt_module');
  if (!mod) return [];
  const cmake = `Qt5${mod.charAt(0).toUpperCase()}${mod.slice(1)}`;
  return installFor('install-qt-module', [{ kind: 'cmake', name: cmake }], `Qt module ${mod} is missing`, s);
});

on(['shared-library-not-found'], (f, _i, s) => {
  const file = cap(f, 'file');
  return file
    ? installFor(
        'install-runtime-library',
        [{ kind: 'file', name: file }],
        `shared library ${file} is missing at run time`,
        s,
      )
    : [];
});

on(['autoconf-undefined-macro', 'configure-unexpanded-macro'], async (f, input, s) => {
  const macro = cap(f, 'macro') ?? '';
  const recipe = regenerate(input.recipe);
  const packages = MACRO_PACKAGES.find(([re]) => re.test(macro))?.[1];
  if (!packages) {
    const found = await installFor(
      'install-autoconf-macros',
      [{ kind: 'm4-macro', name: macro }],
      `autoconf macro ${macro} is undefined`,
      s,
    );
    return found.map((r) => ({ ...r, recipe }));
  }
  return [
    {
      rule: 'install-autoconf-macros',
      key: `pkg:${packages.join(',')}`,
      reason: `autoconf macro ${macro} is undefined; ${packages.join(' ')} ships it, then configure is regenerated`,
      packages,
      recipe,
    },
  ];
});

on(
  ['automake-missing-aux-file', 'autoconf-version-required', 'libtool-version-mismatch', 'configure-missing'],
  (f, input) => {
    const recipe = regenerate(input.recipe);
    if (!recipe) return [];
    return [
      {
        rule: 'autoreconf',
        key: 'autoreconf',
        reason: `${f.message}: the generated autotools files are missing or stale, so they are regenerated with autoreconf -fi`,
        packages: ['autoconf', 'automake', 'libtool'],
        recipe,
      },
    ];
  },
);

/**
 * One shell command (a Dockerfile RUN line too) that makes `cmake --version` at least `want`: the
 * distribution's backports on Debian (same mirror as its sources.list), else — or when backports are still
 * too old — the `cmake` wheel from PyPI, which ships a current binary (/usr/local/bin comes first on PATH).
 */
export function newerCmakeCommand(want: string): string {
  const have = `$(cmake --version 2>/dev/null | sed -n '1s/[^0-9]*\\([0-9.]*\\).*/\\1/p')`;
  const older = `[ "$(printf '%s\\n' "${want}" "${have}" | sort -V | head -n 1)" != "${want}" ]`;
  return [
    `if ${older}; then`,
    '. /etc/os-release;',
    'if [ "$ID" = debian ] && [ -n "${VERSION_CODENAME:-}" ]; then',
    "m=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null);",
    'echo "deb ${m:-http://deb.debian.org/debian} $VERSION_CODENAME-backports main" > /etc/apt/sources.list.d/buildbench-backports.list;',
    'apt-get update -q && apt-get install -y -q --no-install-recommends -t "$VERSION_CODENAME-backports" cmake;',
    'fi;',
    `if ${older}; then`,
    '{ command -v pip3 >/dev/null || apt-get install -y -q --no-install-recommends python3-pip; } &&',
    `PIP_BREAK_SYSTEM_PACKAGES=1 pip3 install --no-cache-dir 'cmake>=${want}';`,
    'fi;',
    'hash -r; cmake --version | head -n 1;',
    'fi',
  ].join(' ');
}

on(['cmake-version-required'], (f, input) => {
  const want = cap(f, 'version');
  if (!want || !/^\d+(\.\d+){0,3}$/.test(want)) return [];
  return [
    withFreshDir(
      {
        rule: 'newer-cmake',
        key: `cmake>=${want}`,
        reason: `${f.message}: a newer CMake comes from the distribution's backports (or the PyPI wheel where there are none)`,
        prelude: [newerCmakeCommand(want)],
      },
      input.recipe,
      false,
    ),
  ];
});

on(['config-guess-outdated'], () => [
  {
    rule: 'update-config-guess',
    key: 'config-guess',
    reason:
      'config.guess/config.sub are too old to know this machine; the current ones from autotools-dev replace them',
    packages: ['autotools-dev'],
    prelude: [
      'find . -name .git -prune -o \\( -name config.guess -o -name config.sub \\) -type f -print | while read -r f; do cp "/usr/share/misc/$(basename "$f")" "$f"; done',
    ],
    patches: [{ file: 'config.guess, config.sub', reason: 'updated to the current autotools-dev versions' }],
  },
]);

on(['multiple-definition-fcommon', 'multiple-definition'], (f, input) => [
  withFreshDir(
    flags(
      'gcc10-fcommon',
      `${f.message}: GCC ≥ 10 defaults to -fno-common, so tentative definitions in headers collide; -fcommon restores the old behaviour`,
      '-fcommon',
      '',
    ),
    input.recipe,
  ),
]);

on(['werror', 'werror-all'], (f, input) => [
  withFreshDir(
    flags(
      'drop-werror',
      `${f.message}: a newer compiler warns where the authors' did not, and -Werror makes that fatal; -Wno-error keeps the warnings as warnings`,
      '-Wno-error',
      '-Wno-error',
    ),
    input.recipe,
  ),
]);

on(['removed-cxx-api', 'cxx17-register', 'cxx17-dynamic-exception-spec'], (f, input) => [
  withFreshDir(
    flags(
      'cxx-older-standard',
      `${f.message}: the code uses C++ features removed in C++17, the newer compilers' default; it is compiled as gnu++14`,
      '',
      '-std=gnu++14',
    ),
    input.recipe,
  ),
]);

on(['missing-cstdint', 'missing-stdint-c'], (f, input) => [
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
]);

on(['missing-std-include', 'missing-std-include-clang', 'forgot-include-note'], (f, input) => {
  const header = cap(f, 'header')?.replace(/[<>'‘’]/g, '') ?? headerFor(cap(f, 'symbol') ?? '');
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
});

on(['implicit-function-declaration', 'gcc14-permerror'], (f, input) => [
  withFreshDir(
    flags(
      'relax-c-diagnostics',
      `${f.message}: newer compilers reject old C that older ones accepted with a warning`,
      '-Wno-error=implicit-function-declaration -Wno-error=implicit-int -Wno-error=int-conversion -Wno-error=incompatible-pointer-types',
      '',
    ),
    input.recipe,
  ),
]);

on(['cxx11-narrowing'], (f, input) => [
  withFreshDir(
    flags(
      'allow-narrowing',
      `${f.message}: C++11 forbids narrowing in braces; -Wno-narrowing accepts the old code`,
      '',
      '-Wno-narrowing',
    ),
    input.recipe,
  ),
]);

/**
 * Libraries that come with the C toolchain whose symbols newer toolchains no longer pull in on their own:
 * libm is linked implicitly only by g++; the rest moved into libc with glibc 2.34, so code written for it
 * omits the flag that older systems need. Symbol (without @VERSION) → linker flag.
 */
const TOOLCHAIN_LIBRARIES: [RegExp, string][] = [
  [
    /^(?:a?(?:sin|cos|tan)h?|atan2|sqrt|cbrt|hypot|pow|exp(?:2|10|m1)?|log(?:2|10|1p|b)?|l?gamma|tgamma|erfc?|floor|ceil|l?l?round|trunc|fmod|fmin|fmax|fdim|fma|l?l?rint|nearbyint|frexp|ldexp|scalbl?n|modf|copysign|remainder|remquo|nan|ilogb|sincos|[jy][01n])[fl]?$/,
    '-lm',
  ],
  [/^crypt(?:_r|_rn|_ra|_gensalt\w*)?$/, '-lcrypt'],
  [/^__atomic_\w+$/, '-latomic'],
  [
    /^(?:pthread_\w+|sem_(?:open|close|unlink|init|destroy|wait|trywait|timedwait|post|getvalue))$/,
    '-pthread',
  ],
  [/^(?:dlopen|dlsym|dlclose|dlerror|dladdr|dlvsym|dlinfo)$/, '-ldl'],
  [
    /^(?:shm_open|shm_unlink|clock_gettime|clock_getres|clock_nanosleep|timer_\w+|mq_\w+|aio_\w+|lio_listio)$/,
    '-lrt',
  ],
  [/^(?:openpty|forkpty|login_tty|logout|logwtmp)$/, '-lutil'],
];

/** A link flag for an undefined symbol: the library the linker named (DSO missing from command line) or the table. */
function linkFlagFor(symbol: string, output: string): string | undefined {
  const dso = /\/lib([\w+-]+?)\.so[.\d]*: error adding symbols: DSO missing from command line/.exec(output);
  if (dso) return dso[1] === 'pthread' ? '-pthread' : `-l${dso[1]}`;
  const bare = symbol.replace(/@.*$/, '').trim();
  return TOOLCHAIN_LIBRARIES.find(([re]) => re.test(bare))?.[1];
}

on(['undefined-reference', 'undefined-reference-dso', 'undefined-symbol-lld'], (f, input) => {
  const flag = linkFlagFor(cap(f, 'symbol') ?? '', input.output);
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
});

on(['relocation-fpic'], (f, input) => [
  withFreshDir(
    flags(
      'fpic',
      `${f.message}: objects linked into a shared library must be position independent`,
      '-fPIC',
      '-fPIC',
    ),
    input.recipe,
  ),
]);

/** glibc ≥ 2.32 removed <sys/sysctl.h>; ≥ 2.26 removed <xlocale.h>; <stropts.h> is gone too. */
function guardHeader(header: string, replacement: string, why: string): Repair {
  const re = header.replace(/[./]/g, (c) => `\\${c}`);
  return {
    rule: 'guard-removed-glibc-header',
    key: `header:${header}`,
    reason: why,
    prelude: [
      `{ grep -rlE --include='*.[ch]' --include='*.cc' --include='*.cpp' --include='*.cxx' --include='*.hpp' --include='*.hh' '^[[:space:]]*#[[:space:]]*include[[:space:]]*<${re}>' . || true; } | while read -r f; do sed -i -E 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*<${re}>|${replacement}|' "$f"; done`,
    ],
    patches: [{ file: `files including <${header}>`, reason: why }],
  };
}

on(['glibc-sysctl-removed'], () => [
  guardHeader(
    'sys/sysctl.h',
    '/* <sys/sysctl.h> removed: glibc 2.32 dropped it */',
    'glibc 2.32 removed <sys/sysctl.h>; Linux code does not need it, so the include is dropped',
  ),
]);
on(['glibc-xlocale-removed'], () => [
  guardHeader(
    'xlocale.h',
    '#include <locale.h>',
    'glibc 2.26 removed <xlocale.h>; its declarations live in <locale.h>',
  ),
]);
on(['glibc-stropts-removed'], () => [
  guardHeader(
    'stropts.h',
    '/* <stropts.h> removed: glibc 2.30 dropped STREAMS */',
    'glibc 2.30 removed <stropts.h> (STREAMS); Linux never implemented it, so the include is dropped',
  ),
]);
on(['glibc-rpc-removed'], (f, input) => [
  {
    ...withFreshDir(
      flags(
        'use-libtirpc',
        `${f.message}: glibc dropped Sun RPC; libtirpc provides it`,
        '-I/usr/include/tirpc',
        '-I/usr/include/tirpc',
      ),
      input.recipe,
    ),
    packages: ['libtirpc-dev'],
    env: {
      BB_EXTRA_CFLAGS: '-I/usr/include/tirpc',
      BB_EXTRA_CXXFLAGS: '-I/usr/include/tirpc',
      LIBS: '-ltirpc',
      LDLIBS: '-ltirpc',
    },
  },
]);
on(['multilib-missing'], () => [
  {
    rule: 'install-multilib',
    key: 'pkg:gcc-multilib',
    reason: 'a 32-bit build needs the multilib C library headers',
    packages: ['gcc-multilib', 'g++-multilib'],
  },
]);

/**
 * Dependencies that Debian ships as sources for CMake's FetchContent (`FETCHCONTENT_SOURCE_DIR_<NAME>`), so a
 * project that downloads them at configure time builds offline.
 */
const FETCHCONTENT_SOURCES: Record<string, { pkg: string; dir: string }> = {
  googletest: { pkg: 'googletest', dir: '/usr/src/googletest' },
  gtest: { pkg: 'googletest', dir: '/usr/src/googletest' },
};

const TEST_FRAMEWORKS =
  /^(googletest|gtest|gmock|catch2?|doctest|benchmark|googlebenchmark|cppunit|unity|cmocka)$/i;

/**
 * CMake's FetchContent/ExternalProject could not download a dependency (no network, a moved URL): use the
 * system's package where CMake looked for one first, else point FetchContent at the sources Debian ships,
 * else switch off the tests when the download is a test framework.
 */
on(['cmake-download-failed'], async (f, input, s) => {
  const repairs: Repair[] = [];
  const notFound = [...input.output.matchAll(/Could NOT find (\w+)/g)].map((m) => m[1]!);
  for (const pkg of [...new Set(notFound)].slice(0, 3)) {
    const found = await installFor(
      'install-cmake-package',
      cmakeNeeds(pkg),
      `CMake looked for ${pkg} before trying to download it`,
      s,
    );
    repairs.push(...found.map((r) => withFreshDir(r, input.recipe)));
  }
  const declared = [...input.output.matchAll(/'([\w.+-]+)-populate'/g)].map((m) => m[1]!);
  const fromUrl = /github\.com\/[^/]+\/([\w.+-]+)/.exec(cap(f, 'url') ?? '')?.[1];
  for (const name of [...new Set([...declared, ...(fromUrl ? [fromUrl] : [])])]) {
    const source = FETCHCONTENT_SOURCES[name.toLowerCase()];
    if (source && declared.includes(name)) {
      repairs.push(
        withFreshDir(
          {
            rule: 'fetchcontent-from-package',
            key: `fetchcontent:${name}`,
            reason: `CMake could not download ${name}; Debian's ${source.pkg} package ships its sources in ${source.dir}`,
            packages: [source.pkg],
            configureArgs: [
              `-DFETCHCONTENT_SOURCE_DIR_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}=${source.dir}`,
            ],
          },
          input.recipe,
        ),
      );
    }
    if (TEST_FRAMEWORKS.test(name)) {
      const options = await cmakeOptionsFor(input.repo.root, input.recipe, 'GTEST');
      repairs.push(
        withFreshDir(
          {
            rule: 'disable-tests',
            key: 'tests-off',
            reason: `CMake could not download the test framework ${name}; the tests are switched off to build the project itself`,
            configureArgs: ['-DBUILD_TESTING=OFF', ...options.map((o) => `-D${o}=OFF`)],
          },
          input.recipe,
        ),
      );
    }
  }
  return repairs;
});

on(['cmake-compat-removed'], (_f, input) =>
  input.recipe.id.startsWith('cmake:')
    ? [
        {
          rule: 'cmake-policy-minimum',
          key: 'cmake-policy-minimum',
          reason:
            'the project asks for a CMake older than 3.5, which CMake 4 no longer supports; CMAKE_POLICY_VERSION_MINIMUM=3.5 accepts it',
          configureArgs: ['-DCMAKE_POLICY_VERSION_MINIMUM=3.5'],
        },
      ]
    : [],
);

on(['git-dubious-ownership'], () => [
  {
    rule: 'git-safe-directory',
    key: 'safe-directory',
    reason: 'git refuses a repository owned by another user; it is marked safe.directory',
    prelude: ["git config --global --add safe.directory '*'"],
  },
]);

on(['script-permission-denied', 'permission-denied'], (f) => {
  const file = cap(f, 'file') ?? cap(f, 'path');
  if (!file || !/^(\.{0,2}\/)?[\w./-]+$/.test(file) || file.startsWith('/')) return [];
  return [
    {
      rule: 'make-executable',
      key: `chmod:${file}`,
      reason: `${file} is not executable (the executable bit was lost, e.g. by an archive or a Windows checkout)`,
      prelude: [`[ -f '${file}' ] && chmod +x '${file}' || true`],
    },
  ];
});

on(
  [
    'cmake-subdirectory-missing',
    'cmake-subdirectory-not-existing',
    'source-file-missing',
    'source-file-missing-clang',
    'meson-no-build-file',
  ],
  (f, input) => {
    const missing = input.repo.submodules.filter((s) => !s.populated);
    if (missing.length === 0) return [];
    return [
      {
        rule: 'fetch-submodules',
        key: 'submodules',
        reason: `${f.message}: git submodules ${missing.map((s) => s.path).join(', ')} are not checked out`,
        packages: ['git', 'ca-certificates'],
        prelude: [
          "git config --global --add safe.directory '*'",
          'git submodule update --init --recursive --depth 1',
        ],
      },
    ];
  },
);

on(
  [
    'oom-killed-compiler',
    'virtual-memory-exhausted',
    'cannot-allocate-memory',
    'oom-killer',
    'process-killed',
  ],
  (f) => [
    {
      rule: 'fewer-parallel-jobs',
      key: 'jobs:1',
      reason: `${f.message}: the compiler ran out of memory; building with one job at a time needs less`,
      env: { BB_JOBS: '1' },
    },
  ],
);

/** Words next to a name in an error's prose that are never the name itself. */
const NOT_NAMES = new Set(
  'a an the any some required suitable working usable needed necessary system development dev shared static valid compatible recent new newer older version versions of for or and no not with without your its this that library libraries program programs header headers package packages files file found was were is are cannot could find missing'.split(
    ' ',
  ),
);

/** Names an error states in words, by what they are said to be. */
export interface ProseNames {
  libraries: string[];
  programs: string[];
  /** Named without saying what they are (`"yacc not found"`): a program or a library. */
  either: string[];
}

/**
 * The library and program names an error message states in words, for messages no signature knows:
 * "cannot find required curses/ncurses library", "the zlib library is required", "library foo not found",
 * "Neither flex, win_flex nor lex was found", a bare '"yacc not found"'.
 */
export function namesInProse(text: string): ProseNames {
  const out: ProseNames = { libraries: [], programs: [], either: [] };
  const add = (list: string[], raw: string): void => {
    for (const part of raw.split(/\/|,|\s+or\s+|\s+nor\s+/)) {
      const name = part.trim().replace(/^["'`]+|["'`.]+$/g, '');
      if (/^[A-Za-z][\w+.-]*$/.test(name) && !NOT_NAMES.has(name.toLowerCase()) && !list.includes(name))
        list.push(name);
    }
  };
  const t = text.trim();
  for (const m of t.matchAll(
    /([A-Za-z][\w+.-]*(?:\s*\/\s*[A-Za-z][\w+.-]*)*)\s+(?:librar(?:y|ies)|development (?:files|headers|package)|headers)\b/gi,
  ))
    add(out.libraries, m[1]!);
  for (const m of t.matchAll(
    /\blibrar(?:y|ies)\s+["'`]?([A-Za-z][\w+.-]*)["'`]?\s+(?:(?:is|was)\s+)?(?:not found|required|missing)/gi,
  ))
    add(out.libraries, m[1]!);
  const neither = /\bNeither\s+(.+?)\s+nor\s+([\w+.-]+)\s+(?:was|were|is|are|could be)?\s*found/i.exec(t);
  if (neither) add(out.programs, `${neither[1]!} nor ${neither[2]!}`);
  const bare =
    /^["'`]?([A-Za-z][\w+.-]*)["'`]?\s+(?:(?:is|was)\s+)?(?:not found|required|missing)["'`.]*$/i.exec(t);
  if (bare) add(out.either, bare[1]!);
  return out;
}

/**
 * Package-index look-ups for named things, most specific first. A library's pkg-config module comes first,
 * as `libX` before `X` (udev.pc is systemd's rules folder, libudev.pc the library), then its linker name
 * (a bare `libX.so` can be another project's: the zlib library is zlib.pc, not some libzlib.so), then a header.
 */
function proseNeeds(names: ProseNames): PackageNeed[] {
  const library = (name: string): PackageNeed[] => {
    const lower = name.toLowerCase();
    const bare = lower.replace(/^lib(?=[a-z])/, '');
    return [
      { kind: 'pkgconfig', name: `lib${bare}` },
      { kind: 'pkgconfig', name: bare },
      { kind: 'library', name: bare },
      { kind: 'header', name: `${bare}.h` },
    ];
  };
  return [
    ...names.programs.map((name): PackageNeed => ({ kind: 'command', name })),
    ...names.either.flatMap((name) => [{ kind: 'command' as const, name }, ...library(name)]),
    ...names.libraries.flatMap(library),
  ];
}

/** Installs what an error names in words (see namesInProse); no repair when it names nothing the index knows. */
function installNamed(text: string, where: string, s: StrategyServices): Promise<Repair[]> | Repair[] {
  const names = namesInProse(text);
  const all = [...names.programs, ...names.either, ...names.libraries];
  if (all.length === 0) return [];
  return installFor(
    'install-named-dependency',
    proseNeeds(names),
    `${where} names ${all.join(' or ')} as missing`,
    s,
    names.libraries.length + names.either.length > 0 ? ['pkg-config'] : [],
  );
}

/** The text of a CMake `message(FATAL_ERROR …)`: the indented lines under `CMake Error at …:N (message):`. */
function cmakeMessageText(finding: Finding): string {
  const lines = finding.excerpt.split('\n');
  const at = lines.findIndex((l) => /^CMake Error\b/.test(l));
  if (at < 0) return '';
  const body: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!/^\s+\S/.test(line)) break;
    body.push(line.trim());
  }
  return body.join(' ');
}

on(['cmake-error'], (f, _i, s) => {
  // Only a project's own message: CMake's own errors (find_package, missing files) have their signatures.
  if (cap(f, 'command') !== 'message') return [];
  const text = cmakeMessageText(f);
  return text ? installNamed(text, 'the CMake message', s) : [];
});

on(['configure-error'], async (f, _i, s) => {
  const reason = cap(f, 'reason') ?? '';
  const pkgReq = /Package requirements \(([^)\s]+)/.exec(reason) ?? /No package '([^']+)' found/.exec(reason);
  if (pkgReq)
    return installFor(
      'install-pkgconfig-package',
      [{ kind: 'pkgconfig', name: pkgReq[1]! }],
      `configure needs pkg-config module ${pkgReq[1]}`,
      s,
      ['pkg-config'],
    );
  const header = /([\w/+-]+\.h)\b/.exec(reason);
  if (header)
    return installFor(
      'install-header-package',
      [{ kind: 'header', name: header[1]! }],
      `configure cannot find ${header[1]}`,
      s,
    );
  const lib =
    /\blib(?:rary)?\s*'?-?l?([A-Za-z][\w+-]*)'?\s+(?:is\s+)?(?:not found|required|missing)/i.exec(reason) ??
    /cannot find (?:the )?(?:library )?-?l?([A-Za-z][\w+-]+)/i.exec(reason);
  if (lib && !NOT_NAMES.has(lib[1]!.toLowerCase())) {
    const name = lib[1]!.replace(/^lib/, '');
    const repairs = await installFor(
      'install-library-package',
      [
        { kind: 'library', name },
        { kind: 'pkgconfig', name },
      ],
      `configure cannot find library ${name}`,
      s,
    );
    if (repairs.length > 0) return repairs;
  }
  const program =
    /(?:program|command|tool)\s+'?([\w+-]+)'?\s+(?:not found|is required|missing)/i.exec(reason) ??
    /(?:no|cannot find) '?([\w+-]+)'? (?:program|command)/i.exec(reason);
  if (program)
    return installFor(
      'install-command-package',
      [{ kind: 'command', name: program[1]! }],
      `configure needs the program ${program[1]}`,
      s,
    );
  return installNamed(reason, 'configure', s);
});

/** The embedded knowledge: one rule per signature id, applied to the root cause and then to other findings. */
export class RuleKnowledge implements RepairKnowledge {
  async propose(input: RepairInput, services: StrategyServices): Promise<Repair[]> {
    const out: Repair[] = [];
    const seen = new Set<string>();
    const ordered = [
      input.rootCause,
      ...input.findings.filter((f) => f !== input.rootCause && !f.followUp),
    ].slice(0, 10);
    for (const finding of ordered) {
      const rule = RULES[finding.id];
      if (!rule) continue;
      for (const repair of await rule(finding, input, services)) {
        if (!seen.has(repair.key)) {
          seen.add(repair.key);
          out.push(repair);
        }
      }
      if (out.length > 0 && finding === input.rootCause) break;
    }
    return out;
  }
}

/** Signature ids the knowledge base has a rule for (tests check every one names a catalog signature). */
export function knownSignatureIds(): string[] {
  return Object.keys(RULES);
}
