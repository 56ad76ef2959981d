import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../../src/base/errors.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import {
  resolvePackages,
  sandboxRunner,
  shellRunner,
  type PackageIndexRunner,
} from '../../../../src/knowledge/repair/packages.js';
import {
  buildAptFilePattern,
  buildLookupScript,
  parseAptCachePolicy,
  parseAptFileOutput,
  parseLookupOutput,
  queryFor,
  rankCandidates,
  unversionedAlias,
  type NeedQuery,
} from '../../../../src/knowledge/repair/package-index.js';
import {
  defaultFallbackTable,
  parseFallbackTable,
} from '../../../../src/knowledge/repair/package-fallback.js';
import { needFromFinding, needsFromFindings, type Need } from '../../../../src/knowledge/repair/needs.js';
import type { Finding } from '../../../../src/knowledge/diagnose/types.js';
import { FakeSandbox } from '../../../fakes/fake-sandbox.js';

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../../../fixtures/logs/${name}`, import.meta.url)), 'utf8');
const recorded = fixture('apt/common.txt');

/** Answers every script with a recorded output and keeps the scripts it was given. */
function replay(output: string): PackageIndexRunner & { scripts: string[] } {
  const scripts: string[] = [];
  return {
    scripts,
    run(script) {
      scripts.push(script);
      return Promise.resolve({ exitCode: 0, output });
    },
  };
}

const q = (need: Need): NeedQuery => {
  const query = queryFor(need);
  if (!query) throw new Error(`no query for ${need.kind}:${need.name}`);
  return query;
};

describe('index queries', () => {
  it('builds one apt-file regex of literal tails for all needs', () => {
    const pattern = buildAptFilePattern([
      q({ kind: 'header', name: 'zlib.h' }),
      q({ kind: 'library', name: 'z' }),
      q({ kind: 'pkgconfig', name: 'gtk+-3.0' }),
      q({ kind: 'cmake', name: 'Qt5' }),
      q({ kind: 'command', name: 'g++' }),
    ]);
    expect(pattern).toBe(
      '^/(?:\\S*/)?(?:zlib\\.h|libz\\.so|libz\\.a|gtk\\+-3\\.0\\.pc|Qt5Config\\.cmake|qt5-config\\.cmake|FindQt5\\.cmake|g\\+\\+)$',
    );
    const js = new RegExp(pattern);
    expect(js.test('/usr/include/zlib.h')).toBe(true);
    expect(js.test('/usr/lib/x86_64-linux-gnu/cmake/Qt5/Qt5Config.cmake')).toBe(true);
    expect(js.test('/usr/include/zlib.hh')).toBe(false);
  });

  it('classifies locations: standard, a library directory, elsewhere', () => {
    const zlib = q({ kind: 'header', name: 'zlib.h' });
    expect(zlib.place('/usr/include/zlib.h')).toEqual({ tier: 0, depth: 0 });
    expect(zlib.place('/usr/include/x86_64-linux-gnu/zlib.h')).toEqual({ tier: 0, depth: 0 });
    expect(zlib.place('/usr/include/Poco/zlib.h')?.tier).toBe(2); // a bare name in an unrelated directory
    expect(zlib.place('/usr/include/zlib.hpp')).toBeUndefined();
    const glib = q({ kind: 'header', name: 'glib.h' });
    expect(glib.place('/usr/include/glib-2.0/glib.h')).toEqual({ tier: 1, depth: 1 }); // named after the header
    const parser = q({ kind: 'header', name: 'libxml/parser.h' });
    expect(parser.place('/usr/include/libxml2/libxml/parser.h')).toEqual({ tier: 1, depth: 1 });
    expect(
      q({ kind: 'command', name: 'bison' }).place('/usr/share/bash-completion/completions/bison'),
    ).toBeUndefined();
    expect(q({ kind: 'command', name: 'bison' }).place('/bin/bison')).toEqual({ tier: 0, depth: 0 });
    expect(
      q({ kind: 'cmake', name: 'BISON' }).place('/usr/share/cmake-3.25/Modules/FindBISON.cmake')?.cmakeModule,
    ).toBe(true);
    expect(
      q({ kind: 'cmake', name: 'fmt' }).place('/usr/lib/x86_64-linux-gnu/cmake/fmt/fmt-config.cmake')?.tier,
    ).toBe(0);
    expect(
      q({ kind: 'cmake', name: 'Eigen3' }).place('/usr/share/eigen3/cmake/Eigen3Config.cmake')?.tier,
    ).toBe(0);
    expect(
      q({ kind: 'python-module', name: 'google.protobuf' }).place(
        '/usr/lib/python3/dist-packages/google/protobuf/__init__.py',
      )?.tier,
    ).toBe(0);
    expect(q({ kind: 'm4-macro', name: 'AX_PTHREAD' }).place('/usr/share/aclocal/ax_pthread.m4')?.tier).toBe(
      0,
    );
  });

  it.each([
    ['header', 'zlib.h; rm -rf /'],
    ['header', "x'.h"],
    ['command', 'a b'],
    ['command', 'bin/sh'],
    ['library', ''],
    ['python-module', 'a-b'],
  ] as const)('refuses unsafe %s name %j', (kind, name) => {
    expect(queryFor({ kind, name })).toBeUndefined();
  });

  it('writes one script: a single apt-file call, then apt-cache policy on what it found and the curated names', () => {
    const script = buildLookupScript(
      [q({ kind: 'header', name: 'zlib.h' }), q({ kind: 'command', name: 'yacc' })],
      ['bison', "evil'; rm -rf /"],
    );
    expect(script.match(/apt-file search -x/g)).toHaveLength(1);
    expect(script).toContain("apt-file search -x '^/(?:\\S*/)?(?:zlib\\.h|yacc)$'");
    expect(script).toContain('apt-cache policy "$@"');
    expect(script).toContain("'bison'");
    expect(script).not.toContain('evil');
  });

  it('runs in bash as written (without apt-file it still asks apt-cache about curated names)', async () => {
    const fakeBin = `export PATH=/nonexistent; apt-cache() { printf 'bison:\\n  Installed: (none)\\n  Candidate: 2:3.8.2\\n'; }; `;
    const script =
      fakeBin +
      buildLookupScript([q({ kind: 'command', name: 'yacc' })], ['bison']).replace(
        'export LC_ALL=C',
        'export LC_ALL=C; hash -r',
      );
    const result = await shellRunner(10_000).run(
      script.replace(/\bsed\b|\bsort\b|\bawk\b|\bmktemp\b|\brm\b/g, (c) => `/usr/bin/${c}`),
    );
    const out = parseLookupOutput(result.output);
    expect(out.aptFile).toBe('missing');
    expect(out.policy.get('bison')).toEqual({ candidate: '2:3.8.2' });
  });
});

describe('parsing tool output', () => {
  it('parses apt-file search lines', () => {
    expect(
      parseAptFileOutput(
        'zlib1g-dev: /usr/include/zlib.h\nE: oops\nlibc6-dev: /usr/lib/x86_64-linux-gnu/libm.so\n',
      ),
    ).toEqual([
      { pkg: 'zlib1g-dev', path: '/usr/include/zlib.h' },
      { pkg: 'libc6-dev', path: '/usr/lib/x86_64-linux-gnu/libm.so' },
    ]);
  });

  it('parses apt-cache policy, raw and condensed', () => {
    const raw = `zlib1g-dev:\n  Installed: 1:1.2.13.dfsg-1\n  Candidate: 1:1.2.13.dfsg-1\n  Version table:\n *** 1:1.2.13.dfsg-1 500\nlibcurl-dev:\n  Installed: (none)\n  Candidate: (none)\n  Version table:\n`;
    expect(parseAptCachePolicy(raw)).toEqual(
      new Map([
        ['zlib1g-dev', { installed: '1:1.2.13.dfsg-1', candidate: '1:1.2.13.dfsg-1' }],
        ['libcurl-dev', {}],
      ]),
    );
    expect(parseAptCachePolicy('bison (none) 2:3.8.2+dfsg-1+b1\nqtchooser:amd64 66-2 66-2\n')).toEqual(
      new Map([
        ['bison', { candidate: '2:3.8.2+dfsg-1+b1' }],
        ['qtchooser', { installed: '66-2', candidate: '66-2' }],
      ]),
    );
  });

  it('reads the recorded lookup output', () => {
    const out = parseLookupOutput(recorded);
    expect(out.aptFile).toBe('ok');
    expect(out.policyRan).toBe(true);
    expect(out.hits).toContainEqual({ pkg: 'zlib1g-dev', path: '/usr/include/zlib.h' });
    expect(out.policy.get('libboost-system-dev')?.candidate).toBeDefined();
  });

  it('reports an apt-file that failed or is missing', () => {
    expect(
      parseLookupOutput(
        '@@buildbench apt-file\nE: The cache is empty. You need to run "apt-file update"\n@@buildbench apt-file-status 3\n',
      ).aptFile,
    ).toBe('error');
    expect(parseLookupOutput('@@buildbench apt-file\n@@buildbench apt-file-status missing\n').aptFile).toBe(
      'missing',
    );
    expect(parseLookupOutput('@@buildbench apt-file\n@@buildbench apt-file-status 1\n').aptFile).toBe(
      'no-match',
    );
  });
});

describe('ranking', () => {
  const hits = (lines: string) => parseAptFileOutput(lines);

  it('prefers the standard location, then -dev, unversioned, shorter names; drops cross packages', () => {
    const r = rankCandidates(
      q({ kind: 'header', name: 'zlib.h' }),
      hits(`lib32z1-dev: /usr/include/zlib.h
libz-mingw-w64-dev: /usr/x86_64-w64-mingw32/include/zlib.h
libpoco-dev: /usr/include/Poco/zlib.h
zlib1g-dev: /usr/include/zlib.h
cc65: /usr/share/cc65/include/zlib.h`),
    );
    expect(r.ranked[0]).toBe('zlib1g-dev');
    expect(r.unwanted).toEqual(['lib32z1-dev', 'libz-mingw-w64-dev']);
  });

  it('uses the unversioned alias apt-cache knows', () => {
    const r = rankCandidates(
      q({ kind: 'library', name: 'boost_system' }),
      hits(`libboost-system1.81-dev: /usr/lib/x86_64-linux-gnu/libboost_system.so
libboost-system1.74-dev: /usr/lib/x86_64-linux-gnu/libboost_system.so`),
      [],
      new Set(['libboost-system-dev']),
    );
    expect(r.ranked).toEqual(['libboost-system-dev', 'libboost-system1.74-dev', 'libboost-system1.81-dev']);
    expect(unversionedAlias('libboost1.74-dev')).toBe('libboost-dev');
    expect(unversionedAlias('libgtk-3-dev')).toBeUndefined();
    expect(unversionedAlias('libfuse3-dev')).toBeUndefined();
  });

  it('lets a curated name win ties among equal candidates', () => {
    const curl = hits(`libcurl4-gnutls-dev: /usr/lib/x86_64-linux-gnu/pkgconfig/libcurl.pc
libcurl4-nss-dev: /usr/lib/x86_64-linux-gnu/pkgconfig/libcurl.pc
libcurl4-openssl-dev: /usr/lib/x86_64-linux-gnu/pkgconfig/libcurl.pc`);
    expect(rankCandidates(q({ kind: 'pkgconfig', name: 'libcurl' }), curl).ranked[0]).toBe(
      'libcurl4-nss-dev',
    );
    expect(
      rankCandidates(q({ kind: 'pkgconfig', name: 'libcurl' }), curl, ['libcurl4-openssl-dev']).ranked[0],
    ).toBe('libcurl4-openssl-dev');
  });

  it('gives up on generic names and on headers outside the include path', () => {
    // A namespaced header in a library directory is fine...
    expect(
      rankCandidates(q({ kind: 'header', name: 'x/config.h' }), hits('x-dev: /usr/include/y/x/config.h'))
        .ranked,
    ).toEqual(['x-dev']);
    // ...but many packages with the same namespaced name cannot be told apart,
    const many = hits(
      ['a', 'b', 'c', 'd', 'e'].map((p) => `${p}-dev: /usr/include/${p}/gen/config.h`).join('\n'),
    );
    expect(rankCandidates(q({ kind: 'header', name: 'gen/config.h' }), many).ambiguous).toBe(true);
    // and a bare name in unrelated directories or outside /usr/include is not a package need the index can answer.
    expect(
      rankCandidates(q({ kind: 'header', name: 'config.h' }), hits('a-dev: /usr/include/a/config.h')).weak,
    ).toBe(true);
    const omp = rankCandidates(
      q({ kind: 'header', name: 'omp.h' }),
      hits('libgcc-12-dev: /usr/lib/gcc/x86_64-linux-gnu/12/include/omp.h'),
    );
    expect(omp.weak).toBe(true);
  });
});

describe('resolvePackages on a recorded Debian 12 index', () => {
  const expected: [Need['kind'], string, string | undefined, string][] = [
    ['header', 'zlib.h', 'zlib1g-dev', 'apt-file'],
    ['header', 'ncurses.h', 'libncurses-dev', 'apt-file'],
    ['header', 'openssl/ssl.h', 'libssl-dev', 'apt-file'],
    ['header', 'curl/curl.h', 'libcurl4-openssl-dev', 'apt-file'],
    ['header', 'libxml/parser.h', 'libxml2-dev', 'apt-file'],
    ['header', 'Python.h', 'python3-dev', 'fallback'],
    ['header', 'gtk/gtk.h', 'libgtk-3-dev', 'apt-file'],
    ['header', 'rpc/rpc.h', 'libtirpc-dev', 'apt-file'],
    ['header', 'sys/sysctl.h', undefined, 'none'],
    ['header', 'omp.h', 'libomp-dev', 'fallback'],
    ['header', 'config.h', undefined, 'none'],
    ['header', 'jpeglib.h', 'libjpeg-dev', 'fallback'],
    ['header', 'glib.h', 'libglib2.0-dev', 'apt-file'],
    ['header', 'SDL.h', 'libsdl2-dev', 'apt-file'],
    ['header', 'ft2build.h', 'libfreetype-dev', 'apt-file'],
    ['header', 'definitely_not_a_real_header_xyz.h', undefined, 'none'],
    ['library', 'z', 'zlib1g-dev', 'apt-file'],
    ['library', 'boost_system', 'libboost-system-dev', 'apt-file'],
    ['library', 'curl', 'libcurl4-openssl-dev', 'apt-file'],
    ['pkgconfig', 'jansson', 'libjansson-dev', 'apt-file'],
    ['pkgconfig', 'gtk+-3.0', 'libgtk-3-dev', 'apt-file'],
    ['pkgconfig', 'glib-2.0', 'libglib2.0-dev', 'apt-file'],
    ['cmake', 'fmt', 'libfmt-dev', 'apt-file'],
    ['cmake', 'Eigen3', 'libeigen3-dev', 'apt-file'],
    ['cmake', 'Qt5', 'qtbase5-dev', 'apt-file'],
    ['cmake', 'OpenCV', 'libopencv-dev', 'apt-file'],
    ['cmake', 'Boost', 'libboost-all-dev', 'fallback'],
    ['cmake', 'ZLIB', 'zlib1g-dev', 'fallback'],
    ['cmake', 'BISON', 'bison', 'fallback'],
    ['cmake', 'GTest', 'libgtest-dev', 'apt-file'],
    ['command', 'bison', 'bison', 'apt-file'],
    ['command', 'yacc', 'bison', 'fallback'],
    ['command', 'makeinfo', 'texinfo', 'apt-file'],
    ['command', 'python', 'python-is-python3', 'apt-file'],
    ['command', 'qmake', 'qtbase5-dev', 'fallback'],
    ['command', 'aclocal', 'automake', 'fallback'],
    ['command', 'aclocal-1.16', 'automake', 'apt-file'],
    ['command', 'g++', 'g++', 'apt-file'],
    ['python-module', 'yaml', 'python3-yaml', 'apt-file'],
    ['python-module', 'cv2', 'python3-opencv', 'apt-file'],
    ['python-module', 'google.protobuf', 'python3-protobuf', 'apt-file'],
    ['file', 'mkspecs/modules/qt_lib_webenginewidgets.pri', 'qtwebengine5-dev', 'apt-file'],
    ['file', '/usr/lib/x86_64-linux-gnu/libjansson.so', 'libjansson-dev', 'apt-file'],
    ['m4-macro', 'AX_CXX_COMPILE_STDCXX', 'autoconf-archive', 'apt-file'],
    ['m4-macro', 'AC_PROG_LIBTOOL', 'libtool', 'fallback'],
  ];

  it('answers every need with ONE runner call', async () => {
    const runner = replay(recorded);
    const needs = expected.map(([kind, name]) => ({ kind, name }));
    const resolutions = await resolvePackages(needs, runner);
    expect(runner.scripts).toHaveLength(1);
    expect(resolutions.map((r) => [r.need.kind, r.need.name, r.package, r.via])).toEqual(expected);
    for (const r of resolutions) {
      if (r.package) expect(r.candidates).toContain(r.package);
    }
  });

  it("says where the chosen package ships the need's file (the include root of a header outside the default path)", async () => {
    const [zlib, sdl, none] = await resolvePackages(
      [
        { kind: 'header', name: 'zlib.h' },
        { kind: 'header', name: 'SDL.h' },
        { kind: 'header', name: 'definitely_not_a_real_header_xyz.h' },
      ],
      replay(recorded),
    );
    expect(zlib?.paths).toEqual(['/usr/include/zlib.h']);
    expect(sdl?.package).toBe('libsdl2-dev');
    expect(sdl?.paths).toEqual(['/usr/include/SDL2/SDL.h']);
    expect(none?.paths).toBeUndefined();
  });

  it('says why when nothing is returned, and when nothing is needed', async () => {
    const [sysctl, config, threads, nvcc] = await resolvePackages(
      [
        { kind: 'header', name: 'sys/sysctl.h' },
        { kind: 'header', name: 'config.h' },
        { kind: 'cmake', name: 'Threads' },
        { kind: 'command', name: 'nvcc' },
      ],
      replay(recorded),
    );
    expect(sysctl?.note).toMatch(/outside the default search paths/);
    expect(config?.note).toMatch(/outside the default search paths|ambiguous/);
    expect(threads).toMatchObject({ via: 'fallback', noPackageNeeded: true });
    expect(threads?.note).toMatch(/C library/);
    expect(nvcc).toMatchObject({ via: 'fallback', noPackageNeeded: true });
    expect(nvcc?.package).toBeUndefined();
  });

  it('flags packages that are already installed', async () => {
    const [zlib] = await resolvePackages([{ kind: 'header', name: 'zlib.h' }], replay(recorded));
    expect(zlib?.installed).toBe(true);
  });

  it('never returns a package apt-cache did not confirm', async () => {
    const withoutPolicy = recorded.slice(0, recorded.indexOf('@@buildbench apt-cache\n'));
    const resolutions = await resolvePackages(
      [
        { kind: 'header', name: 'zlib.h' },
        { kind: 'command', name: 'yacc' },
      ],
      replay(withoutPolicy),
    );
    expect(resolutions.map((r) => r.package)).toEqual([undefined, undefined]);
    expect(resolutions[0]?.candidates[0]).toBe('zlib1g-dev');
    expect(resolutions[0]?.note).toMatch(/apt-cache does not know/);
    expect(resolutions[1]?.note).toMatch(/curated bison not known to apt-cache/);
  });

  it('falls back to the curated table when apt-file is missing, still checking with apt-cache', async () => {
    const output =
      '@@buildbench apt-file\n@@buildbench apt-file-status missing\n@@buildbench apt-cache\nbison (none) 2:3.8.2\n@@buildbench apt-cache-status 0\n@@buildbench end\n';
    const [yacc, zlib] = await resolvePackages(
      [
        { kind: 'command', name: 'yacc' },
        { kind: 'header', name: 'zlib.h' },
      ],
      replay(output),
    );
    expect(yacc).toMatchObject({ package: 'bison', via: 'fallback' });
    expect(zlib).toMatchObject({ via: 'none', note: 'apt-file is not installed' });
  });

  it('without a runner returns curated candidates but no package', async () => {
    const [yacc, threads] = await resolvePackages([
      { kind: 'command', name: 'yacc' },
      { kind: 'cmake', name: 'Threads' },
    ]);
    expect(yacc?.package).toBeUndefined();
    expect(yacc?.candidates).toEqual(['bison']);
    expect(yacc?.note).toMatch(/unverified/);
    expect(threads?.noPackageNeeded).toBe(true);
  });

  it('reuses the cache across calls and returns one resolution per need, in order', async () => {
    const cache = new Map();
    const runner = replay(recorded);
    await resolvePackages([{ kind: 'header', name: 'zlib.h' }], runner, { cache });
    const again = await resolvePackages(
      [
        { kind: 'header', name: 'zlib.h' },
        { kind: 'header', name: 'zlib.h' },
      ],
      runner,
      { cache },
    );
    expect(runner.scripts).toHaveLength(1);
    expect(again.map((r) => r.package)).toEqual(['zlib1g-dev', 'zlib1g-dev']);
  });

  it('answers an unsafe name without running anything for it', async () => {
    const runner = replay(recorded);
    const [r] = await resolvePackages([{ kind: 'header', name: '$(reboot).h' }], runner);
    expect(r).toMatchObject({ via: 'none', candidates: [] });
    expect(runner.scripts[0]).not.toContain('reboot');
  });

  it('runs through a sandbox', async () => {
    const sandbox = new FakeSandbox(() => ({ output: recorded }));
    const [r] = await resolvePackages(
      [{ kind: 'pkgconfig', name: 'jansson' }],
      sandboxRunner(sandbox, 60_000),
    );
    expect(r?.package).toBe('libjansson-dev');
    expect(sandbox.scripts).toHaveLength(1);
  });
});

describe('findings to needs', () => {
  const f = (id: string, category: Finding['category'], captures: Record<string, string>) => ({
    id,
    category,
    captures,
  });

  it('maps layer-1 findings to what to look up', () => {
    expect(
      needFromFinding(f('missing-header', 'missing-dependency', { header: 'zlib.h', path: 'a.c' })),
    ).toEqual({ kind: 'header', name: 'zlib.h' });
    expect(needFromFinding(f('missing-library', 'missing-dependency', { library: 'z' }))).toEqual({
      kind: 'library',
      name: 'z',
    });
    expect(
      needFromFinding(f('cmake-could-not-find', 'missing-dependency', { cmake_package: 'ZLIB' })),
    ).toEqual({ kind: 'cmake', name: 'ZLIB' });
    expect(needFromFinding(f('python-not-found', 'toolchain-drift', { command: 'python' }))).toEqual({
      kind: 'command',
      name: 'python',
    });
    expect(
      needFromFinding(
        f('bad-interpreter', 'missing-dependency', { file: 'x', interpreter: '/usr/bin/perl' }),
      ),
    ).toEqual({ kind: 'command', name: 'perl' });
    expect(
      needFromFinding(f('autoconf-undefined-macro', 'missing-dependency', { macro: 'AX_PTHREAD' })),
    ).toEqual({ kind: 'm4-macro', name: 'AX_PTHREAD' });
    expect(
      needFromFinding(f('qmake-unknown-qt-module', 'missing-dependency', { qt_module: 'svg charts' })),
    ).toEqual({ kind: 'file', name: 'mkspecs/modules/qt_lib_svg.pri' });
    expect(needFromFinding(f('cmake-no-compiler', 'missing-dependency', { language: 'CXX' }))).toEqual({
      kind: 'command',
      name: 'g++',
    });
    expect(
      needFromFinding(f('make-no-rule', 'layout', { target: '/usr/lib/x86_64-linux-gnu/libfoo.so' })),
    ).toEqual({ kind: 'file', name: '/usr/lib/x86_64-linux-gnu/libfoo.so' });
    expect(needFromFinding(f('make-no-rule', 'layout', { target: 'install' }))).toBeUndefined();
    expect(
      needFromFinding(f('glibc-sysctl-removed', 'toolchain-drift', { header: 'sys/sysctl.h' })),
    ).toBeUndefined();
    expect(
      needFromFinding(f('forgot-include-note', 'toolchain-drift', { header: 'cstdint', symbol: 'uint8_t' })),
    ).toBeUndefined();
    expect(needFromFinding(f('cmake-error', 'configure-error', { command: 'find_package' }))).toBeUndefined();
    expect(needFromFinding(f('compile-error', 'compile-error', { path: 'a.c' }))).toBeUndefined();
  });

  it('reads needs off whole logs', () => {
    const needs = (name: string) => needsFromFindings(analyzeLog(fixture(name)).findings);
    expect(needs('missing-header-make.log')).toEqual([{ kind: 'header', name: 'zlib.h' }]);
    expect(needs('configure-error-install.log')).toEqual([{ kind: 'header', name: 'png.h' }]);
    expect(needs('configure-pkg-requirements.log')).toEqual([
      { kind: 'pkgconfig', name: 'glib-2.0' },
      { kind: 'pkgconfig', name: 'gio-2.0' },
    ]);
    expect(needs('cmake-missing-package.log')).toEqual([{ kind: 'cmake', name: 'fmt' }]);
  });
});

describe('curated fallback table (verifiers/packages-fallback.yaml)', () => {
  it('loads and answers case-insensitively, with prefixes for m4 macros', () => {
    const table = defaultFallbackTable();
    expect(table.lookup({ kind: 'cmake', name: 'zlib' })?.packages).toEqual(['zlib1g-dev']);
    expect(table.lookup({ kind: 'cmake', name: 'Threads' })?.packages).toEqual([]);
    expect(table.lookup({ kind: 'command', name: 'qmake' })?.override).toBe(true);
    expect(table.lookup({ kind: 'm4-macro', name: 'AM_GNU_GETTEXT_VERSION' })?.packages).toEqual([
      'autopoint',
      'gettext',
    ]);
    expect(table.lookup({ kind: 'm4-macro', name: 'AM_INIT_AUTOMAKE' })?.packages).toEqual(['automake']);
    expect(table.lookup({ kind: 'command', name: 'no-such-tool' })).toBeUndefined();
  });

  it.each([
    ['version: 2\n'],
    ['version: 1\nwidgets: {}\n'],
    ['version: 1\ncommand: { yacc: "Bad Name" }\n'],
    ['version: 1\ncommand: { yacc: { package: bison, colour: red } }\n'],
    ['version: 1\ncommand: [bison]\n'],
  ])('rejects %j', (text) => {
    expect(() => parseFallbackTable(text)).toThrow(ConfigError);
  });
});
