import { afterEach, describe, expect, it } from '@jest/globals';

import { readDeclaredDependencies, type BuildDeclaration } from '../../../src/repo/declared-deps.js';
import { inspectRepo } from '../../../src/repo/inspect.js';
import type { BuildSystem } from '../../../src/repo/types.js';
import { removeTree, tempTree } from './fixtures.js';

let roots: string[] = [];
afterEach(() => {
  roots.forEach(removeTree);
  roots = [];
});

function tree(files: Record<string, string>): string {
  const root = tempTree(files);
  roots.push(root);
  return root;
}

const system = (kind: BuildSystem['kind'], file: string): BuildSystem => ({
  kind,
  dir: '',
  file,
  linux: true,
  details: {},
});

/** kind:name → required, for compact comparisons. */
function summary(decls: BuildDeclaration[]): Record<string, boolean> {
  return Object.fromEntries(decls.map((d) => [`${d.kind}:${d.name}`, d.required]));
}

async function read(files: Record<string, string>, primary: BuildSystem, docs: string[] = []) {
  const root = tree(files);
  return readDeclaredDependencies(root, {
    files: Object.keys(files),
    buildSystems: [primary],
    docs: docs.map((p) => ({ path: p, score: 1, why: 'test' })),
  });
}

describe('readDeclaredDependencies', () => {
  it('reads meson dependency() calls, required unless required: false or a feature option', async () => {
    const decls = await read(
      {
        'meson.build': [
          "project('x', 'c')",
          "zlib = dependency('zlib', version: '>=1.2')",
          "# dependency('commented')",
          'png = dependency(',
          "  'libpng',",
          ')',
          "lz = dependency('liblzma', required: false)",
          "gl = dependency('gl', required: get_option('opengl'))",
          "th = dependency('threads')",
        ].join('\n'),
      },
      system('meson', 'meson.build'),
    );
    expect(summary(decls)).toEqual({
      'pkgconfig:zlib': true,
      'pkgconfig:libpng': true,
      'pkgconfig:liblzma': false,
      'pkgconfig:gl': false,
    });
    expect(decls[1]).toMatchObject({ source: 'meson.build:4', text: "dependency( 'libpng', )" });
  });

  it('reads CMake find_package, pkg_check_modules and pkg_search_module', async () => {
    const decls = await read(
      {
        'CMakeLists.txt': [
          'cmake_minimum_required(VERSION 3.10)',
          'find_package(PNG REQUIRED)',
          'find_package(Threads REQUIRED)',
          'FIND_PACKAGE(Boost 1.70 REQUIRED COMPONENTS filesystem)',
          'find_package(CURL)',
          'find_package(PkgConfig REQUIRED)',
          'pkg_check_modules(DEPS REQUIRED IMPORTED_TARGET jansson>=2.10 yaml-0.1)',
          'pkg_search_module(SSL openssl libressl)',
        ].join('\n'),
      },
      system('cmake', 'CMakeLists.txt'),
    );
    expect(summary(decls)).toEqual({
      'cmake:PNG': true,
      'cmake:Boost': true,
      'cmake:CURL': false,
      'pkgconfig:jansson': true,
      'pkgconfig:yaml-0.1': true,
      'pkgconfig:openssl': false,
    });
  });

  it('a find_package the file downloads when it is not found (if(NOT X_FOUND) … FetchContent) is needed', async () => {
    const lines = [
      'find_package(GTest)',
      'find_package(ZLIB)',
      'if(NOT GTest_FOUND)',
      '  include(FetchContent)',
      '  FetchContent_Declare(googletest URL https://example.com/googletest.tar.gz)',
      '  FetchContent_MakeAvailable(googletest)',
      'endif()',
    ];
    const decls = await read({ 'CMakeLists.txt': lines.join('\n') }, system('cmake', 'CMakeLists.txt'));
    expect(summary(decls)).toEqual({ 'cmake:GTest': true, 'cmake:ZLIB': false });
    // Without a download, `if(NOT X_FOUND)` is the project's own fallback: still optional.
    const own = lines.map((l) => l.replace(/FetchContent_\w+\(.*\)/, 'add_subdirectory(third_party/gtest)'));
    const without = await read({ 'CMakeLists.txt': own.join('\n') }, system('cmake', 'CMakeLists.txt'));
    expect(summary(without)).toEqual({ 'cmake:GTest': false, 'cmake:ZLIB': false });
  });

  it('a check in a `case $host in` branch for other systems only is not made on Linux', async () => {
    const decls = await read(
      {
        'configure.ac': [
          'AC_INIT([x], [1])',
          'case $host in',
          '*mingw*|*cygwin*)',
          '    AC_CHECK_LIB(shlwapi, main,, AC_MSG_ERROR(libshlwapi missing))',
          '    ;;',
          '*linux*)',
          '    AC_CHECK_LIB(rt, clock_gettime,, AC_MSG_ERROR(librt missing))',
          '    ;;',
          'esac',
        ].join('\n'),
      },
      system('autotools', 'configure.ac'),
    );
    expect(summary(decls)).toEqual({ 'library:shlwapi': false, 'library:rt': true });
  });

  it('reads autoconf checks: required when missing stops configure', async () => {
    const decls = await read(
      {
        'configure.ac': [
          'AC_INIT([x], [1])',
          'PKG_CHECK_MODULES([GLIB], [glib-2.0 >= 2.56 gio-2.0])',
          'PKG_CHECK_MODULES([XML], [libxml-2.0], [have_xml=yes], [have_xml=no])',
          'AC_CHECK_LIB([z], [inflate], [],',
          '  [AC_MSG_ERROR([zlib is required])])',
          'AC_CHECK_LIB([m], [cos])',
          'dnl AC_CHECK_LIB([gone], [f])',
          'AC_CHECK_HEADERS([expat.h zstd.h], [], [AC_MSG_ERROR([headers missing])])',
          'AC_CHECK_HEADERS([sys/foo.h])',
        ].join('\n'),
      },
      system('autotools', 'configure.ac'),
    );
    expect(summary(decls)).toEqual({
      'm4-macro:PKG_CHECK_MODULES': true,
      'pkgconfig:glib-2.0': true,
      'pkgconfig:gio-2.0': true,
      'pkgconfig:libxml-2.0': false,
      'library:z': true,
      'library:m': false,
      'header:expat.h': true,
      'header:zstd.h': true,
      'header:sys/foo.h': false,
    });
  });

  it('reads pkg-config in Makefiles and the system includes of a plain Makefile project', async () => {
    const decls = await read(
      {
        Makefile:
          'CFLAGS += $(shell pkg-config --cflags --libs expat)\nLIBS = `pkg-config --libs $(PKGS)`\nall: x\n',
        'src/main.c':
          '#include <stdio.h>\n#include <zlib.h>\n#include <own/util.h>\n#include "local.h"\n#include <vector>\n#include <Eigen/Core>\n',
        'include/own/util.h': 'int f(void);\n',
      },
      system('make', 'Makefile'),
    );
    expect(summary(decls)).toEqual({
      'pkgconfig:expat': true,
      'header:stdio.h': true,
      'header:zlib.h': true,
      // A library's extensionless header under its folder; the standard <vector> has none.
      'header:Eigen/Core': true,
    });
  });

  it('names the macros a configure.ac that autoreconf expands calls without defining them', async () => {
    const configure = [
      'AC_INIT([x], [1])',
      'AM_INIT_AUTOMAKE([foreign])',
      'AX_CHECK_COMPILE_FLAG([-Wall])',
      'LT_INIT',
      'MY_OWN_CHECK([a])',
      'if test "$enable_gpg" = yes; then',
      '  AM_PATH_GPG_ERROR([1.0])',
      'fi',
      'dnl AX_COMMENTED_OUT([x])',
      'echo "$FOO_BAR ${BAZ_QUX}"',
      'AC_OUTPUT',
    ].join('\n');
    const files = { 'configure.ac': configure, 'm4/mine.m4': 'AC_DEFUN([MY_OWN_CHECK], [true])\n' };
    const decls = await read(files, system('autotools', 'configure.ac'));
    // Every one is required: m4 expands a macro whatever shell test it sits under.
    expect(summary(decls)).toEqual({
      'm4-macro:AM_INIT_AUTOMAKE': true,
      'm4-macro:AX_CHECK_COMPILE_FLAG': true,
      'm4-macro:LT_INIT': true,
      'm4-macro:AM_PATH_GPG_ERROR': true,
    });
    expect(decls.find((d) => d.name === 'AM_PATH_GPG_ERROR')).toMatchObject({
      source: 'configure.ac:7',
      text: 'AM_PATH_GPG_ERROR([1.0])',
    });
    // A committed configure is run as it is: its macros were expanded when it was made.
    const shipped = await read({ ...files, configure: '#!/bin/sh\n' }, system('autotools', 'configure.ac'));
    expect(shipped.filter((d) => d.kind === 'm4-macro')).toEqual([]);
  });

  it('reads checks whose not-found action sets a variable configure fails on as alternatives of one need', async () => {
    const configure = [
      'AC_PROG_YACC',
      'PKG_CHECK_MODULES(LIBEVENT_CORE, [libevent_core >= 2], [found_libevent=yes], found_libevent=no)',
      'if test x$found_libevent = xno; then',
      '  PKG_CHECK_MODULES(LIBEVENT, [libevent >= 2], [found_libevent=yes], [found_libevent=no])',
      'fi',
      'if test "x$found_libevent" = xno; then',
      '  AC_MSG_ERROR("libevent not found")',
      'fi',
      'PKG_CHECK_MODULES(TINFO, tinfo, [found_ncurses=yes], found_ncurses=no)',
      'if test "x$found_ncurses" = xyes; then',
      '  AC_DEFINE(HAVE_NCURSES_H)',
      'else',
      '  AC_CHECK_LIB(curses, setupterm, found_curses=yes, found_curses=no)',
      '  if test "x$found_curses" = xyes; then',
      '    LIBS="$LIBS -lcurses"',
      '  else',
      '    AC_MSG_ERROR("curses not found")',
      '  fi',
      'fi',
      'PKG_CHECK_MODULES(SYSTEMD, libsystemd, [found_systemd=yes], found_systemd=no)',
      'if test "x$found_systemd" = xyes; then AC_DEFINE(HAVE_SYSTEMD); fi',
      'if test x"$enable_jemalloc" = xyes; then',
      '  PKG_CHECK_MODULES(JEMALLOC, jemalloc, [found_jemalloc=yes], found_jemalloc=no)',
      '  if test "x$found_jemalloc" = xyes; then',
      '    AC_DEFINE(HAVE_JEMALLOC)',
      '  else',
      '    AC_MSG_ERROR("jemalloc not found")',
      '  fi',
      'fi',
      'case "$enable_capabilities" in',
      '   check)',
      '      AC_CHECK_LIB([cap], [cap_init], [], [enable_capabilities=no])',
      '      ;;',
      '   yes)',
      '      AC_CHECK_LIB([hwloc], [hwloc_init], [], [AC_MSG_ERROR([cannot find libhwloc])])',
      '      ;;',
      'esac',
      'AC_CHECK_LIB([z], [inflate], [], [AC_MSG_ERROR([zlib is required])])',
      'AC_CHECK_HEADERS([netlink/attr.h], [], [',
      '  if test "$enable_delayacct" = yes; then',
      '    AC_MSG_ERROR([cannot find netlink/attr.h])',
      '  fi',
      '  enable_delayacct=no',
      '])',
      'if test "x$enable_utempter" = xyes; then',
      '  AC_CHECK_HEADER(utempter.h, enable_utempter=yes, enable_utempter=no)',
      '  if test "x$enable_utempter" = xyes; then AC_DEFINE(HAVE_UTEMPTER); else AC_MSG_ERROR("no utempter"); fi',
      'fi',
    ].join('\n');
    const decls = await read(
      { 'configure.ac': configure, 'cmd-parse.y': '%%\n', 'main.c': 'int main(void){return 0;}\n' },
      system('autotools', 'configure.ac'),
    );
    const byName = Object.fromEntries(decls.map((d) => [d.name, { required: d.required, group: d.group }]));
    expect(byName).toEqual({
      libevent_core: { required: true, group: 'found_libevent' },
      libevent: { required: true, group: 'found_libevent' },
      tinfo: { required: true, group: 'found_ncurses' },
      curses: { required: true, group: 'found_curses' },
      libsystemd: { required: false, group: undefined },
      // Checked only under --enable-jemalloc, where its absence is an error.
      jemalloc: { required: false, group: 'found_jemalloc' },
      'utempter.h': { required: false, group: 'enable_utempter' },
      cap: { required: false, group: undefined },
      hwloc: { required: false, group: undefined }, // only under --enable-capabilities=yes
      z: { required: true, group: undefined },
      'netlink/attr.h': { required: false, group: undefined }, // an error only under --enable-delayacct
      bison: { required: true, group: undefined },
      // The macro itself, shipped by pkg-config's pkg.m4 (there is no configure: autoreconf expands it).
      PKG_CHECK_MODULES: { required: true, group: undefined },
    });
  });

  it("leaves out the includes under a condition: another platform's, an optional feature's", async () => {
    const decls = await read(
      {
        Makefile: 'all: x\n',
        'src/platform.h': [
          '#ifndef PLATFORM_H',
          '#define PLATFORM_H',
          '#include <zlib.h>',
          '#ifdef __cplusplus',
          '#include <expat.h>',
          '#endif',
          '#if defined(_WIN32) || defined(MSDOS)',
          '#  include <io.h>',
          '#elif defined(__APPLE__)',
          '#  include <mach/mach_time.h>',
          '#else',
          '#  include <unistd.h>',
          '#endif',
          '#ifdef HAVE_SSL',
          '#include <openssl/ssl.h>',
          '#endif',
          '#ifndef NO_PNG /* optional */',
          '#include <png.h>',
          '#endif',
          '#include <yaml.h>',
          '#endif /* PLATFORM_H */',
        ].join('\n'),
      },
      system('make', 'Makefile'),
    );
    expect(summary(decls)).toEqual({ 'header:zlib.h': true, 'header:expat.h': true, 'header:yaml.h': true });
  });

  it('reads includes only for a plain Makefile project', async () => {
    const decls = await read(
      { 'CMakeLists.txt': 'project(x C)\n', 'main.c': '#include <zlib.h>\n' },
      system('cmake', 'CMakeLists.txt'),
    );
    expect(decls).toEqual([]);
  });

  it("reads the packages a build doc's apt-get install line names", async () => {
    const decls = await read(
      {
        'README.md': [
          '# x',
          '```',
          'sudo apt-get update && sudo apt-get install -y libfoo-dev libbar1.0-dev \\',
          '```',
          'apt install --no-install-recommends $PKGS cmake; echo done',
        ].join('\n'),
        'NEWS.md': 'apt-get install libnews-dev\n',
      },
      system('cmake', 'CMakeLists.txt'),
      ['README.md', 'NEWS.md'],
    );
    expect(summary(decls)).toEqual({
      'package:libfoo-dev': true,
      'package:libbar1.0-dev': true,
      'package:cmake': true,
    });
    expect(decls[0]!.source).toBe('README.md:3');
  });

  it('leaves out the program itself, installed in an "Installing" section that builds nothing', async () => {
    const decls = await read(
      {
        'README.md': [
          '# Tool',
          '## Installing',
          '### Linux',
          '    apt-get install the-tool',
          '## Installation from source',
          '    apt-get install libfoo-dev',
          '## Installation',
          '    apt-get install libbar-dev',
          '    cmake -B build && cmake --build build',
        ].join('\n'),
      },
      system('cmake', 'CMakeLists.txt'),
      ['README.md'],
    );
    expect(summary(decls)).toEqual({ 'package:libfoo-dev': true, 'package:libbar-dev': true });
  });

  it('reads the sources’ includes where the build system declares nothing a reader understands', async () => {
    const files = { 'main.c': '#include <curses.h>\n', 'build.sh': 'cc main.c -lcurses\n' };
    for (const primary of [system('script', 'build.sh'), system('configure', 'configure')])
      expect(summary(await read(files, primary))).toEqual({ 'header:curses.h': true });
    const none = tree(files);
    const bare = await readDeclaredDependencies(none, {
      files: Object.keys(files),
      buildSystems: [],
      docs: [],
    });
    expect(summary(bare)).toEqual({ 'header:curses.h': true });
    // CMake says what it needs itself: a source's include is not read.
    expect(summary(await read(files, system('cmake', 'CMakeLists.txt')))).toEqual({});
  });

  it('is part of inspectRepo, over the own files only', async () => {
    const root = tree({
      'meson.build': "project('x', 'c')\ndependency('jansson')\n",
      'third_party/lib/meson.build': "dependency('vendored-only')\n",
    });
    const info = await inspectRepo(root);
    expect(info.declaredDeps?.map((d) => d.name)).toEqual(['jansson']);
  });
});
