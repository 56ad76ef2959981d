/**
 * Rules for CMake's own errors: a package or its components not found (install it, or turn off the option
 * that needs it), a missing program or pkg-config, a CMake that is too old or too new for the project, and a
 * FetchContent download that failed (use the system's package, Debian's shipped sources, or build without
 * the tests).
 */
import type { Need } from '../needs.js';
import type { Repair } from '../repair.js';
import {
  RULE_LIMITS,
  cap,
  cmakeNeeds,
  cmakeOptionsFor,
  installEach,
  installFor,
  withFreshDir,
  type Rule,
  type RuleFn,
} from './rule.js';

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

/** `Could NOT find X (missing: A B)`, a missing config file or Find module: the package, its parts, or an option off. */
const packageNotFound: RuleFn = async (f, input, { services: s, tables }) => {
  const pkg = cap(f, 'cmake_package');
  if (!pkg) return [];
  const components = missingComponents(cap(f, 'missing'));
  const repairs =
    components.length > 0
      ? await installEach(
          'install-cmake-components',
          [
            cmakeNeeds(pkg),
            ...components.map((c): Need[] => [
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
  const libraries = [pkg, ...missingLibraries(cap(f, 'missing'))].map((name): Need => ({
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
  if (tables.cmakePrograms.has(pkg.toLowerCase())) {
    repairs.push(
      ...(await installFor(
        'install-command-package',
        [{ kind: 'command', name: pkg.replace(/Interp$/, '').toLowerCase() }],
        `CMake needs the program ${pkg}`,
        s,
      )),
    );
  }
  for (const option of await cmakeOptionsFor(input.repo.root, input.recipe, pkg, tables)) {
    repairs.push({
      rule: 'disable-optional-feature',
      key: `option:${option}`,
      reason: `CMake package ${pkg} is missing and option ${option} turns off what needs it`,
      configureArgs: [`-D${option}=OFF`],
    });
  }
  return repairs;
};

/**
 * CMake's FetchContent/ExternalProject could not download a dependency (no network, a moved URL): use the
 * system's package where CMake looked for one first, else point FetchContent at the sources Debian ships,
 * else switch off the tests when the download is a test framework.
 */
const downloadFailed: RuleFn = async (f, input, { services: s, tables }) => {
  const repairs: Repair[] = [];
  const notFound = [...input.output.matchAll(/Could NOT find (\w+)/g)].map((m) => m[1]!);
  for (const pkg of [...new Set(notFound)].slice(0, RULE_LIMITS.packagesBeforeDownload)) {
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
    const source = tables.fetchContentSources.get(name.toLowerCase());
    if (source && declared.includes(name)) {
      repairs.push(
        withFreshDir(
          {
            rule: 'fetchcontent-from-package',
            key: `fetchcontent:${name}`,
            reason: `CMake could not download ${name}; Debian's ${source.package} package ships its sources in ${source.dir}`,
            packages: [source.package],
            configureArgs: [
              `-DFETCHCONTENT_SOURCE_DIR_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}=${source.dir}`,
            ],
          },
          input.recipe,
        ),
      );
    }
    if (tables.testFrameworks.has(name.toLowerCase())) {
      const options = await cmakeOptionsFor(input.repo.root, input.recipe, 'GTEST', tables);
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
};

export const CMAKE_RULES: Rule[] = [
  {
    ids: ['cmake-missing-config', 'cmake-missing-find-module', 'cmake-could-not-find'],
    propose: packageNotFound,
  },
  {
    ids: ['cmake-missing-program'],
    propose(f, _i, { services: s }) {
      const prog = cap(f, 'cmake_package');
      return prog
        ? installFor(
            'install-command-package',
            [{ kind: 'command', name: prog.toLowerCase() }],
            `CMake needs the program ${prog}`,
            s,
          )
        : [];
    },
  },
  {
    ids: ['cmake-pkgconfig-required'],
    async propose(f, _i, { services: s }) {
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
    },
  },
  {
    ids: ['cmake-no-build-program'],
    propose(f) {
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
    },
  },
  {
    ids: ['cmake-version-required'],
    propose(f, input) {
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
    },
  },
  { ids: ['cmake-download-failed'], propose: downloadFailed },
  {
    ids: ['cmake-compat-removed'],
    propose: (_f, input) =>
      input.recipe.system === 'cmake'
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
  },
];
