/**
 * Real-world-shaped log lines, one or more per signature: [signature id, line, expected captures, lines before].
 * Shapes follow what GCC 12-14, Clang 14-18, binutils 2.35-2.41, GNU make 4.3, CMake 3.25-4.0, meson 1.x,
 * autoconf 2.71, dash/bash, pip 23, apt 2.6 and GitHub Actions print.
 */
import { LANGUAGE_SIGNATURE_CASES } from './signature-cases-langs.js';

export interface SignatureCase {
  id: string;
  line: string;
  captures?: Record<string, string>;
  before?: string[];
}

export const SIGNATURE_CASES: SignatureCase[] = [
  // issue 12, round 2
  {
    id: 'linker-input-missing',
    line: '/usr/bin/ld: cannot find util.o: No such file or directory',
    captures: { file: 'util.o' },
  },
  { id: 'submodule-fetch-failed', line: 'buildbench: warning: could not fetch the git submodules' },
  {
    id: 'submodule-fetch-failed',
    line: "fatal: clone of 'https://github.com/google/googletest.git' into submodule path '/workspace/third_party/googletest' failed",
    captures: { path: '/workspace/third_party/googletest' },
  },
  {
    id: 'submodule-fetch-failed',
    line: "Failed to clone 'third_party/googletest'. Retry scheduled",
    captures: { submodule: 'third_party/googletest' },
  },
  {
    id: 'autotools-helper-cant-exec',
    line: 'Can\'t exec "autopoint": No such file or directory at /usr/share/autoconf/Autom4te/FileUtils.pm line 293.',
    captures: { command: 'autopoint' },
  },
  {
    id: 'autotools-helper-cant-exec',
    line: 'Can\'t exec "gtkdocize": No such file or directory at /usr/bin/autoreconf line 345.',
    captures: { command: 'gtkdocize' },
  },
  {
    id: 'autotools-missing',
    line: './autogen.sh: 12: intltoolize: not found',
    captures: { command: 'intltoolize' },
  },
  {
    id: 'cmake-find-names-not-found',
    line: '  Could not find JSON_LIBRARIES using the following names: jansson',
    before: ['CMake Error at CMakeLists.txt:3 (find_library):'],
    captures: { variable: 'JSON_LIBRARIES', names: 'jansson', command: 'find_library' },
  },
  {
    id: 'cmake-find-names-not-found',
    line: '  Could not find BISON_EXECUTABLE using the following names: bison, yacc',
    before: ['CMake Error at cmake/tools.cmake:7 (find_program):'],
    captures: { variable: 'BISON_EXECUTABLE', names: 'bison, yacc', command: 'find_program' },
  },
  {
    id: 'cmake-variables-notfound',
    line: '   used as include directory in directory /workspace',
    before: ['/workspace/SODIUM_INCLUDE_DIR'],
    captures: { variable: 'SODIUM_INCLUDE_DIR' },
  },
  {
    id: 'cmake-variables-notfound',
    line: '    linked by target "sodiumver" in directory /workspace',
    before: ['SODIUM_LIBRARY'],
    captures: { variable: 'SODIUM_LIBRARY' },
  },
  {
    id: 'cmake-notfound-path',
    line: '    "/src/Opus_INCLUDE_DIR-NOTFOUND"',
    captures: { variable: 'Opus_INCLUDE_DIR' },
  },
  {
    id: 'cmake-notfound-path',
    line: 'Foo_LIBRARY=Foo_LIBRARY-NOTFOUND',
    captures: { variable: 'Foo_LIBRARY' },
  },
  {
    id: 'libfind-required-not-found',
    line: 'CMake Error at cmake/LibFindMacros.cmake:263 (message): Required library Portaudio NOT FOUND.',
    captures: { prefix: 'Portaudio' },
  },
  {
    id: 'build-output-missing',
    line: "cp: cannot stat 'release/racer': No such file or directory",
    captures: { tool: 'cp', file: 'release/racer' },
  },
  // missing dependencies
  {
    id: 'missing-header',
    line: 'src/compress.c:12:10: fatal error: zlib.h: No such file or directory',
    captures: { path: 'src/compress.c', line: '12', column: '10', header: 'zlib.h' },
  },
  {
    id: 'missing-header',
    line: '/build/repo/include/net.h:3:10: fatal error: openssl/ssl.h: No such file or directory',
    captures: { header: 'openssl/ssl.h', path: '/build/repo/include/net.h' },
  },
  {
    id: 'missing-header',
    line: 'In file included from main.cpp:1: util.hpp:5:10: fatal error: boost/asio.hpp: No such file or directory',
    captures: { header: 'boost/asio.hpp', path: 'util.hpp' },
  },
  {
    id: 'missing-header',
    line: 'cc1plus: fatal error: QtWidgets: No such file or directory',
    captures: { header: 'QtWidgets' },
  },
  {
    id: 'missing-header-clang',
    line: "src/main.c:3:10: fatal error: 'png.h' file not found",
    captures: { path: 'src/main.c', line: '3', header: 'png.h' },
  },
  {
    id: 'missing-header-localized',
    line: 'src/util.c:36:10: fatal error: zlib.h: Aucun fichier ou dossier de ce type',
    captures: { path: 'src/util.c', line: '36', header: 'zlib.h' },
  },
  {
    id: 'meson-dependency-not-found',
    line: "data/meson.build:78:0: ERROR: Native dependency 'glib-2.0' not found",
    captures: { pkgconfig: 'glib-2.0' },
  },
  {
    id: 'missing-library',
    line: '/usr/bin/ld: cannot find -ljansson: No such file or directory',
    captures: { library: 'jansson' },
  },
  {
    id: 'missing-library',
    line: '/usr/bin/ld: cannot find -lboost_system',
    captures: { library: 'boost_system' },
  },
  {
    id: 'missing-library',
    line: '/usr/bin/x86_64-linux-gnu-ld.bfd: cannot find -lGL: No such file or directory',
    captures: { library: 'GL' },
  },
  {
    id: 'missing-library-lld',
    line: 'ld.lld: error: unable to find library -lssl',
    captures: { library: 'ssl' },
  },
  {
    id: 'missing-pkgconfig-required',
    line: "Package 'libcurl', required by 'virtual:world', not found",
    captures: { pkgconfig: 'libcurl', required_by: 'virtual:world' },
  },
  { id: 'missing-pkgconfig', line: "No package 'glib-2.0' found", captures: { pkgconfig: 'glib-2.0' } },
  {
    id: 'pkgconfig-not-in-search-path',
    line: 'Package gtk+-3.0 was not found in the pkg-config search path.',
    captures: { pkgconfig: 'gtk+-3.0' },
  },
  {
    id: 'meson-dependency-not-found',
    line: 'meson.build:23:0: ERROR: Dependency "libdrm" not found, tried pkgconfig and cmake',
    captures: { pkgconfig: 'libdrm' },
  },
  {
    id: 'meson-program-not-found',
    line: "meson.build:40:8: ERROR: Program 'glib-compile-resources' not found or not executable",
    captures: { command: 'glib-compile-resources' },
  },
  {
    id: 'meson-program-not-found',
    line: "meson.build:12:0: ERROR: Program(s) ['bison', 'yacc'] not found or not executable",
    captures: { command: 'bison' },
  },
  {
    id: 'cmake-missing-config',
    line: '  Could not find a package configuration file provided by "Qt5" with any of',
    captures: { cmake_package: 'Qt5' },
  },
  {
    id: 'cmake-missing-config-wrapped',
    line: '  "GeographicLibExtended" with any of the following names:',
    captures: { cmake_package: 'GeographicLibExtended' },
  },
  {
    id: 'cmake-missing-find-module',
    line: '  By not providing "Findfmt.cmake" in CMAKE_MODULE_PATH this project has',
    captures: { cmake_package: 'fmt' },
  },
  {
    id: 'cmake-could-not-find',
    line: '  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)',
    captures: { cmake_package: 'ZLIB', missing: 'ZLIB_LIBRARY ZLIB_INCLUDE_DIR' },
  },
  {
    id: 'cmake-could-not-find',
    line: '  Could NOT find OpenSSL, try to set the path to OpenSSL root folder in the',
    captures: { cmake_package: 'OpenSSL' },
  },
  {
    id: 'cmake-missing-program',
    line: '  Could NOT find BISON (missing: BISON_EXECUTABLE)',
    captures: { cmake_package: 'BISON' },
  },
  {
    id: 'cmake-missing-program',
    line: '  Could NOT find PkgConfig (missing: PKG_CONFIG_EXECUTABLE)',
    captures: { cmake_package: 'PkgConfig' },
  },
  {
    id: 'cmake-pkgconfig-required',
    line: '  A required package was not found',
    captures: { pkgconfig: 'libusb-1.0' },
    before: [
      "-- Checking for module 'libusb-1.0'",
      "--   No package 'libusb-1.0' found",
      'CMake Error at /usr/share/cmake-3.25/Modules/FindPkgConfig.cmake:607 (message):',
    ],
  },
  {
    id: 'cmake-pkgconfig-required',
    line: '  A required package was not found',
    captures: { pkgconfig: 'sdl2' },
    before: [
      "--   Package 'sdl2', required by 'virtual:world', not found",
      'CMake Error at /usr/share/cmake-3.28/Modules/FindPkgConfig.cmake:619 (message):',
    ],
  },
  { id: 'cmake-no-compiler', line: '  No CMAKE_CXX_COMPILER could be found.', captures: { language: 'CXX' } },
  {
    id: 'cmake-no-build-program',
    line: 'CMake Error: CMake was unable to find a build program corresponding to "Unix Makefiles".  CMAKE_MAKE_PROGRAM is not set.',
    captures: { generator: 'Unix Makefiles' },
  },
  { id: 'command-not-found', line: 'bash: line 1: cmake: command not found', captures: { command: 'cmake' } },
  {
    id: 'command-not-found',
    line: './build.sh: line 12: premake5: command not found',
    captures: { command: 'premake5' },
  },
  { id: 'command-not-found', line: 'bison: command not found', captures: { command: 'bison' } },
  { id: 'command-not-found-sh', line: 'sh: 1: gperf: not found', captures: { command: 'gperf' } },
  { id: 'command-not-found-sh', line: '/bin/sh: 1: bison: not found', captures: { command: 'bison' } },
  {
    id: 'command-not-found-make',
    line: 'make: flex: No such file or directory',
    captures: { command: 'flex' },
  },
  { id: 'command-not-found-make', line: 'make[2]: xxd: Command not found', captures: { command: 'xxd' } },
  {
    id: 'command-not-found-env',
    line: "/usr/bin/env: 'node': No such file or directory",
    captures: { command: 'node' },
  },
  {
    id: 'bad-interpreter',
    line: 'bash: ./gen_tables.pl: /usr/local/bin/perl: bad interpreter: No such file or directory',
    captures: { file: './gen_tables.pl', interpreter: '/usr/local/bin/perl' },
  },
  {
    id: 'autotools-missing',
    line: './autogen.sh: line 5: aclocal: command not found',
    captures: { command: 'aclocal' },
  },
  { id: 'autotools-missing', line: 'sh: 1: autoreconf: not found', captures: { command: 'autoreconf' } },
  {
    id: 'autotools-missing-warning',
    line: "WARNING: 'aclocal-1.16' is missing on your system.",
    captures: { command: 'aclocal-1.16' },
  },
  {
    id: 'autoconf-undefined-macro',
    line: 'configure.ac:42: error: possibly undefined macro: AC_PROG_LIBTOOL',
    captures: { macro: 'AC_PROG_LIBTOOL' },
  },
  {
    id: 'configure-unexpanded-macro',
    line: "./configure: line 13047: `PKG_CHECK_MODULES(GLIB, glib-2.0 >= 2.40)'",
    captures: { macro: 'PKG_CHECK_MODULES' },
  },
  {
    id: 'configure-no-compiler',
    line: 'configure: error: no acceptable C compiler found in $PATH',
    captures: { compiler: 'C' },
  },
  {
    id: 'configure-no-compiler',
    line: 'configure: error: C++ compiler cannot create executables',
    captures: { compiler: 'C++' },
  },
  {
    id: 'python-module-not-found',
    line: "ModuleNotFoundError: No module named 'mako'",
    captures: { python_module: 'mako' },
  },
  {
    id: 'python-module-not-found',
    line: 'ImportError: No module named google.protobuf',
    captures: { python_module: 'google.protobuf' },
  },
  {
    id: 'qmake-unknown-qt-module',
    line: 'Project ERROR: Unknown module(s) in QT: webenginewidgets charts',
    captures: { qt_module: 'webenginewidgets charts' },
  },
  {
    id: 'qmake-pkgconfig-not-found',
    line: 'Project ERROR: libavcodec development package not found',
    captures: { pkgconfig: 'libavcodec' },
  },
  {
    id: 'qtchooser-no-qt',
    line: "qmake: could not find a Qt installation of ''",
    captures: { command: 'qmake' },
  },
  {
    id: 'shared-library-not-found',
    line: './build/bin/tool: error while loading shared libraries: libprotobuf.so.32: cannot open shared object file: No such file or directory',
    captures: { file: 'libprotobuf.so.32' },
  },
  {
    id: 'apt-unable-to-locate',
    line: 'E: Unable to locate package libwxgtk3.0-dev',
    captures: { package: 'libwxgtk3.0-dev' },
  },
  {
    id: 'apt-no-candidate',
    line: "E: Package 'python-dev' has no installation candidate",
    captures: { package: 'python-dev' },
  },
  // configure errors
  {
    id: 'configure-error',
    line: 'configure: error: libpng is required',
    captures: { reason: 'libpng is required', check: 'png_create_read_struct in -lpng' },
    before: ['checking for png_create_read_struct in -lpng... no'],
  },
  {
    id: 'configure-error',
    line: 'configure: error: Package requirements (glib-2.0 >= 2.40) were not met:',
    captures: { reason: 'Package requirements (glib-2.0 >= 2.40) were not met:' },
  },
  {
    id: 'cmake-error',
    line: 'CMake Error at CMakeLists.txt:31 (find_package):',
    captures: { path: 'CMakeLists.txt', line: '31', command: 'find_package' },
  },
  { id: 'cmake-error', line: 'CMake Error in src/CMakeLists.txt:', captures: { path: 'src/CMakeLists.txt' } },
  {
    id: 'meson-error',
    line: 'meson.build:1:0: ERROR: Meson version is 0.61.2 but project requires >= 1.1',
    captures: {
      path: 'meson.build',
      line: '1',
      error: 'Meson version is 0.61.2 but project requires >= 1.1',
    },
  },
  {
    id: 'meson-no-build-file',
    line: "ERROR: Neither source directory '/build/repo' nor build directory None contain a build file meson.build.",
  },
  {
    id: 'automake-missing-aux-file',
    line: "configure.ac:14: error: required file './ltmain.sh' not found",
    captures: { file: './ltmain.sh' },
  },
  {
    id: 'autoreconf-failed',
    line: 'autoreconf: error: /usr/bin/autoconf failed with exit status: 1',
    captures: { tool: '/usr/bin/autoconf', code: '1' },
  },
  {
    id: 'makefile-error',
    line: 'Makefile:27: *** missing separator.  Stop.',
    captures: { path: 'Makefile', line: '27', error: 'missing separator' },
  },
  {
    id: 'makefile-error',
    line: 'src/Makefile:9: *** KERNELDIR is not set.  Stop.',
    captures: { path: 'src/Makefile', error: 'KERNELDIR is not set' },
  },
  // compile errors
  {
    id: 'compile-error',
    line: "src/parser.c:214:5: error: too few arguments to function 'emit'",
    captures: {
      path: 'src/parser.c',
      line: '214',
      column: '5',
      error: "too few arguments to function 'emit'",
    },
  },
  {
    id: 'compile-error',
    line: '/build/repo/lib/x.cpp:9: error: invalid conversion from ‘const char*’ to ‘char*’',
    captures: { path: '/build/repo/lib/x.cpp', line: '9' },
  },
  {
    id: 'nvcc-compile-error',
    line: 'kernels/reduce.cu(57): error: identifier "__shfl_down" is undefined',
    captures: { path: 'kernels/reduce.cu', line: '57', error: 'identifier "__shfl_down" is undefined' },
  },
  {
    id: 'compiler-driver-error',
    line: 'g++: fatal error: no input files',
    captures: { compiler: 'g++', error: 'no input files' },
  },
  {
    id: 'source-file-missing',
    line: 'gcc: error: third_party/lz4/lz4.c: No such file or directory',
    captures: { file: 'third_party/lz4/lz4.c' },
  },
  {
    id: 'source-file-missing-clang',
    line: "clang: error: no such file or directory: 'src/gen/parser.c'",
    captures: { file: 'src/gen/parser.c' },
  },
  {
    id: 'not-declared-in-scope',
    line: "src/net.cpp:88:9: error: 'close' was not declared in this scope; did you mean 'pclose'?",
    captures: { path: 'src/net.cpp', line: '88', symbol: 'close' },
  },
  {
    id: 'not-declared-in-scope',
    line: 'main.cc:12:3: error: ‘memcpy’ was not declared in this scope',
    captures: { symbol: 'memcpy' },
  },
  {
    id: 'undeclared-identifier',
    line: "lib/io.c:40:12: error: use of undeclared identifier 'O_BINARY'",
    captures: { path: 'lib/io.c', symbol: 'O_BINARY' },
  },
  {
    id: 'has-no-member',
    line: "src/ff.c:131:21: error: 'AVCodecContext' {aka 'struct AVCodecContext'} has no member named 'channels'",
    captures: { type: 'AVCodecContext', member: 'channels' },
  },
  {
    id: 'no-member-named',
    line: "src/ff.c:131:21: error: no member named 'channels' in 'struct AVCodecContext'",
    captures: { member: 'channels', type: 'struct AVCodecContext' },
  },
  {
    id: 'expected-before',
    line: "src/types.h:14:3: error: expected specifier-qualifier-list before 'u_int32_t'",
    captures: { path: 'src/types.h', expected: 'specifier-qualifier-list', before: "'u_int32_t'" },
  },
  {
    id: 'unknown-type-name',
    line: "src/frame.h:22:5: error: unknown type name 'png_structp'",
    captures: { type: 'png_structp' },
  },
  {
    id: 'internal-compiler-error',
    line: 'src/big.cpp:1:1: internal compiler error: Segmentation fault',
    captures: { error: 'Segmentation fault' },
  },
  // link errors
  {
    id: 'undefined-reference',
    line: "main.c:(.text+0x1e): undefined reference to `inflateInit_'",
    captures: { symbol: 'inflateInit_' },
  },
  {
    id: 'undefined-reference',
    line: "/usr/bin/ld: util.o: in function `hash': util.c:(.text+0x44): undefined reference to 'SHA256_Init'",
    captures: { symbol: 'SHA256_Init' },
  },
  {
    id: 'undefined-reference-dso',
    line: "/usr/bin/ld: worker.o: undefined reference to symbol 'pthread_create@@GLIBC_2.2.5'",
    captures: { symbol: 'pthread_create@@GLIBC_2.2.5' },
  },
  {
    id: 'undefined-symbol-lld',
    line: 'ld.lld: error: undefined symbol: png_read_info',
    captures: { symbol: 'png_read_info' },
  },
  {
    id: 'multiple-definition-fcommon',
    line: "/usr/bin/ld: input.o:(.bss+0x0): multiple definition of `score'; main.o:(.bss+0x0): first defined here",
    captures: { symbol: 'score', first: 'main.o:(.bss+0x0)' },
  },
  {
    id: 'multiple-definition-fcommon',
    line: "/usr/bin/ld: screen.o:/build/repo/game.h:14: multiple definition of `board'; main.o:/build/repo/game.h:14: first defined here",
    captures: { symbol: 'board' },
  },
  {
    id: 'multiple-definition',
    line: "/usr/bin/ld: b.o: in function `helper': b.c:(.text+0x0): multiple definition of `helper'; a.o:a.c:(.text+0x0): first defined here",
    captures: { symbol: 'helper' },
  },
  {
    id: 'multiple-definition',
    line: "b.o:(.data+0x0): multiple definition of `table'",
    captures: { symbol: 'table' },
  },
  {
    id: 'relocation-fpic',
    line: "/usr/bin/ld: libutil.a(str.o): relocation R_X86_64_32 against `.rodata' can not be used when making a shared object; recompile with -fPIC",
    captures: { relocation: 'R_X86_64_32', output: 'shared object' },
  },
  {
    id: 'relocation-fpic',
    line: "/usr/bin/ld: tables.o: relocation R_X86_64_32S against symbol `crc_table' can not be used when making a PIE object; recompile with -fPIE",
    captures: { relocation: 'R_X86_64_32S', output: 'PIE object' },
  },
  {
    id: 'skipping-incompatible',
    line: '/usr/bin/ld: skipping incompatible /usr/lib/libfoo.so when searching for -lfoo',
    captures: { file: '/usr/lib/libfoo.so', library: 'foo' },
  },
  {
    id: 'ld-dso-missing',
    line: '/usr/bin/ld: /lib/x86_64-linux-gnu/libpthread.so.0: error adding symbols: DSO missing from command line',
  },
  // toolchain drift
  {
    id: 'glibc-sysctl-removed',
    line: 'src/sysinfo.c:9:10: fatal error: sys/sysctl.h: No such file or directory',
    captures: { header: 'sys/sysctl.h' },
  },
  {
    id: 'glibc-sysctl-removed',
    line: "src/sysinfo.c:9:10: fatal error: 'sys/sysctl.h' file not found",
    captures: { header: 'sys/sysctl.h' },
  },
  {
    id: 'glibc-xlocale-removed',
    line: 'src/locale.cpp:4:10: fatal error: xlocale.h: No such file or directory',
    captures: { header: 'xlocale.h' },
  },
  {
    id: 'glibc-stropts-removed',
    line: 'pty.c:20:10: fatal error: stropts.h: No such file or directory',
    captures: { header: 'stropts.h' },
  },
  {
    id: 'glibc-rpc-removed',
    line: 'nfs.c:5:10: fatal error: rpc/rpc.h: No such file or directory',
    captures: { header: 'rpc/rpc.h' },
  },
  {
    id: 'multilib-missing',
    line: '/usr/include/features.h:510:12: fatal error: gnu/stubs-32.h: No such file or directory',
    captures: { header: 'gnu/stubs-32.h' },
  },
  {
    id: 'multilib-missing',
    line: '/usr/include/stdio.h:27:10: fatal error: bits/libc-header-start.h: No such file or directory',
    captures: { header: 'bits/libc-header-start.h' },
  },
  {
    id: 'werror',
    line: "src/buf.c:57:17: error: 'strncpy' output truncated before terminating nul [-Werror=stringop-truncation]",
    captures: { path: 'src/buf.c', line: '57', warning: 'stringop-truncation' },
  },
  {
    id: 'werror',
    line: "src/a.c:3:9: error: unused variable 'x' [-Werror,-Wunused-variable]",
    captures: { warning: 'unused-variable' },
  },
  {
    id: 'werror',
    line: 'src/old.c:10: error: comparison between signed and unsigned integer expressions [-Werror]',
    captures: { path: 'src/old.c', error: 'comparison between signed and unsigned integer expressions' },
  },
  // Linux kernel builds (lines as Kbuild 5.x-6.x prints them)
  {
    id: 'kernel-needs-package',
    line: 'Makefile:1238: *** "Cannot generate ORC metadata for CONFIG_UNWINDER_ORC=y, please install libelf-dev, libelf-devel or elfutils-libelf-devel".  Stop.',
    captures: { package: 'libelf-dev' },
  },
  {
    id: 'kernel-needs-package',
    line: 'Makefile:1032: "Cannot use CONFIG_STACK_VALIDATION=y, please install libelf-dev, libelf-devel or elfutils-libelf-devel"',
    captures: { package: 'libelf-dev' },
  },
  {
    id: 'kernel-tool-missing-libelf',
    line: 'tools/objtool/include/objtool/elf.h:10:10: fatal error: gelf.h: No such file or directory',
    captures: { path: 'tools/objtool/include/objtool/elf.h', header: 'gelf.h' },
  },
  {
    id: 'kernel-tool-missing-libelf',
    line: 'tools/bpf/resolve_btfids/main.c:60:10: fatal error: libelf.h: No such file or directory',
    captures: { header: 'libelf.h' },
  },
  { id: 'kernel-command-not-found', line: "*** 'cpio' could not be found.", captures: { command: 'cpio' } },
  {
    id: 'objtool-error',
    line: 'vmlinux.o: error: objtool: ibt_selftest+0x14: sibling call from callable instruction with modified stack frame',
    captures: { file: 'vmlinux.o' },
  },
  {
    id: 'missing-header',
    line: 'scripts/sign-file.c:25:10: fatal error: openssl/opensslv.h: No such file or directory',
    captures: { path: 'scripts/sign-file.c', header: 'openssl/opensslv.h' },
  },
  { id: 'command-not-found-sh', line: '/bin/sh: 1: flex: not found', captures: { command: 'flex' } },
  { id: 'command-not-found-sh', line: '/bin/sh: 1: bison: not found', captures: { command: 'bison' } },
  { id: 'command-not-found-sh', line: '/bin/sh: 1: bc: not found', captures: { command: 'bc' } },
  { id: 'werror-all', line: 'cc1: all warnings being treated as errors' },
  { id: 'werror-all', line: 'cc1plus: warnings being treated as errors' },
  {
    id: 'removed-cxx-api',
    line: "src/cache.h:40:10: error: 'auto_ptr' in namespace 'std' does not name a template type",
    captures: { api: 'auto_ptr' },
  },
  {
    id: 'removed-cxx-api',
    line: "src/sort.cpp:12:10: error: 'random_shuffle' is not a member of 'std'",
    captures: { api: 'random_shuffle' },
  },
  {
    id: 'removed-cxx-api',
    line: "include/fn.h:8:30: error: no template named 'binary_function' in namespace 'std'; did you mean '__binary_function'?",
    captures: { api: 'binary_function' },
  },
  {
    id: 'cxx17-register',
    line: "src/hash.cpp:33:18: error: ISO C++17 does not allow 'register' storage class specifier [-Wregister]",
  },
  {
    id: 'cxx17-dynamic-exception-spec',
    line: 'include/err.h:20:31: error: ISO C++17 does not allow dynamic exception specifications',
  },
  {
    id: 'missing-cstdint',
    line: "include/bits.h:14:5: error: 'uint8_t' does not name a type",
    captures: { type: 'uint8_t' },
  },
  {
    id: 'missing-cstdint',
    line: 'src/crc.cpp:30:7: error: ‘uint32_t’ was not declared in this scope',
    captures: { type: 'uint32_t' },
  },
  {
    id: 'missing-cstdint',
    line: "src/crc.cpp:31:7: error: 'int32_t' has not been declared",
    captures: { type: 'int32_t' },
  },
  {
    id: 'missing-stdint-c',
    line: "src/bits.h:8:1: error: unknown type name 'uint16_t'",
    captures: { type: 'uint16_t' },
  },
  {
    id: 'missing-std-include',
    line: "src/err.cpp:12:16: error: 'runtime_error' is not a member of 'std'",
    captures: { symbol: 'runtime_error' },
  },
  {
    id: 'missing-std-include-clang',
    line: "src/err.cpp:12:16: error: no member named 'numeric_limits' in namespace 'std'",
    captures: { symbol: 'numeric_limits' },
  },
  {
    id: 'forgot-include-note',
    line: "src/err.cpp:2:1: note: 'std::runtime_error' is defined in header '<stdexcept>'; did you forget to '#include <stdexcept>'?",
    captures: { symbol: 'std::runtime_error', header: 'stdexcept' },
  },
  {
    id: 'forgot-include-note',
    line: "include/bits.h:3:1: note: 'uint8_t' is defined in header '<cstdint>'; this is probably fixable by adding '#include <cstdint>'",
    captures: { symbol: 'uint8_t', header: 'cstdint' },
  },
  {
    id: 'implicit-function-declaration',
    line: "src/term.c:51:9: error: implicit declaration of function 'tgetent' [-Wimplicit-function-declaration]",
    captures: { symbol: 'tgetent' },
  },
  {
    id: 'implicit-function-declaration',
    line: "src/term.c:51:9: error: call to undeclared function 'strlcpy'; ISO C99 and later do not support implicit function declarations [-Wimplicit-function-declaration]",
    captures: { symbol: 'strlcpy' },
  },
  {
    id: 'gcc14-permerror',
    line: "src/io.c:77:14: error: assignment to 'char *' from 'int' makes pointer from integer without a cast [-Wint-conversion]",
    captures: { warning: 'int-conversion' },
  },
  {
    id: 'gcc14-permerror',
    line: "src/cb.c:19:22: error: passing argument 2 of 'signal' from incompatible pointer type [-Wincompatible-pointer-types]",
    captures: { warning: 'incompatible-pointer-types' },
  },
  {
    id: 'cxx11-narrowing',
    line: "src/tab.cpp:9:41: error: narrowing conversion of '-1' from 'int' to 'char' [-Wnarrowing]",
  },
  {
    id: 'unknown-compiler-flag',
    line: "gcc: error: unrecognized command-line option '-mno-fp-ret-in-387x'",
    captures: { flag: '-mno-fp-ret-in-387x' },
  },
  {
    id: 'unknown-compiler-flag',
    line: "clang: error: unknown argument: '-fno-tree-pre'",
    captures: { flag: '-fno-tree-pre' },
  },
  {
    id: 'openssl-opaque-struct',
    line: "src/hmac.c:20:14: error: invalid use of incomplete type 'HMAC_CTX' {aka 'struct hmac_ctx_st'}",
    captures: { type: 'HMAC_CTX' },
  },
  {
    id: 'openssl-opaque-struct',
    line: "src/rsa.c:31:10: error: dereferencing pointer to incomplete type 'struct rsa_st'",
    captures: { type: 'rsa_st' },
  },
  {
    id: 'autoconf-version-required',
    line: 'configure.ac:5: error: Autoconf version 2.71 or higher is required',
    captures: { version: '2.71' },
  },
  {
    id: 'libtool-version-mismatch',
    line: 'libtool: Version mismatch error.  This is libtool 2.4.7, but the',
  },
  { id: 'config-guess-outdated', line: 'configure: error: cannot guess build type; you must specify one' },
  {
    id: 'config-guess-outdated',
    line: "Invalid configuration `aarch64-unknown-linux-gnu': machine `aarch64-unknown' not recognized",
    captures: { triplet: 'aarch64-unknown-linux-gnu' },
  },
  {
    id: 'cmake-compat-removed',
    line: '  Compatibility with CMake < 3.5 has been removed from CMake.',
    captures: { version: '3.5' },
  },
  {
    id: 'cmake-version-required',
    line: '  CMake 3.24 or higher is required.  You are running version 3.22.1',
    captures: { version: '3.24', have: '3.22.1' },
  },
  {
    id: 'cmake-config-version-mismatch',
    line: '  Could not find a configuration file for package "OpenCV" that is compatible with requested version "2.4".',
    captures: { cmake_package: 'OpenCV', version: '2.4' },
  },
  { id: 'python-not-found', line: '/bin/sh: 1: python: not found', captures: { command: 'python' } },
  { id: 'python-not-found', line: 'bash: python: command not found', captures: { command: 'python' } },
  {
    id: 'python-not-found',
    line: "/usr/bin/env: 'python': No such file or directory",
    captures: { command: 'python' },
  },
  {
    id: 'python-not-found',
    line: 'make[1]: python2: No such file or directory',
    captures: { command: 'python2' },
  },
  {
    id: 'python2-syntax',
    line: "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?",
    captures: { statement: 'print' },
  },
  {
    id: 'python-removed-attribute',
    line: "AttributeError: module 'numpy' has no attribute 'float'.",
    captures: { module: 'numpy', attribute: 'float' },
  },
  {
    id: 'python-cannot-import-name',
    line: "ImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/python3.11/collections/__init__.py)",
    captures: { attribute: 'Mapping', module: 'collections' },
  },
  {
    id: 'openssl3-legacy-algorithm',
    line: 'Error: error:0308010C:digital envelope routines::unsupported',
    captures: { error: 'error:0308010C:digital envelope routines::unsupported' },
  },
  {
    id: 'openssl3-legacy-algorithm',
    line: '[webpack-cli] Error: error:0308010C:digital envelope routines::unsupported',
    captures: { error: 'error:0308010C:digital envelope routines::unsupported' },
  },
  {
    id: 'openssl3-legacy-algorithm',
    line: '40F7A6E3F07F0000:error:0308010C:digital envelope routines:inner_evp_generic_fetch:unsupported:../crypto/evp/evp_fetch.c:349:Global default library context, Algorithm (MD4 : 0), Properties ()',
    captures: { error: 'error:0308010C:digital envelope routines:inner_evp_generic_fetch:unsupported' },
  },
  {
    id: 'pip-resolution-impossible',
    line: 'ERROR: Cannot install numpy==1.19.5 and scipy==1.11.0 because these package versions have conflicting dependencies.',
    captures: { requirement: 'numpy==1.19.5 and scipy==1.11.0' },
  },
  {
    id: 'runtime-not-packaged',
    line: 'buildbench: julia is not installed and the distribution does not package it (apt-cache has no candidate for julia); install Julia',
    captures: { runtime: 'julia' },
  },
  // layout
  {
    id: 'cmake-no-cmakelists',
    line: 'CMake Error: The source directory "/build/repo" does not appear to contain CMakeLists.txt.',
    captures: { path: '/build/repo' },
  },
  {
    id: 'cmake-subdirectory-missing',
    line: '  does not contain a CMakeLists.txt file.',
    captures: { path: '/build/repo/third_party/googletest' },
    before: ['  The source directory', '', '    /build/repo/third_party/googletest', ''],
  },
  {
    id: 'cmake-subdirectory-not-existing',
    line: '  add_subdirectory given source "external/glfw" which is not an existing directory.',
    captures: { path: 'external/glfw' },
  },
  { id: 'make-no-makefile', line: 'make: *** No targets specified and no makefile found.  Stop.' },
  {
    id: 'make-no-rule',
    line: "make: *** No rule to make target 'install'.  Stop.",
    captures: { target: 'install' },
  },
  {
    id: 'make-no-rule',
    line: "make[2]: *** No rule to make target '/usr/lib/x86_64-linux-gnu/libfoo.so', needed by 'bin/app'.  Stop.",
    captures: { target: '/usr/lib/x86_64-linux-gnu/libfoo.so', needed_by: 'bin/app' },
  },
  {
    id: 'ninja-missing-input',
    line: "ninja: error: '/usr/lib/libvulkan.so', needed by 'bin/viewer', missing and no known rule to make it",
    captures: { target: '/usr/lib/libvulkan.so', needed_by: 'bin/viewer' },
  },
  { id: 'ninja-no-build-file', line: "ninja: error: loading 'build.ninja': No such file or directory" },
  {
    id: 'git-dubious-ownership',
    line: "fatal: detected dubious ownership in repository at '/build/repo'",
    captures: { path: '/build/repo' },
  },
  {
    id: 'configure-missing',
    line: 'bash: ./configure: No such file or directory',
    captures: { file: 'configure' },
  },
  {
    id: 'configure-missing',
    line: 'sh: 0: cannot open autogen.sh: No such file',
    captures: { file: 'autogen.sh' },
  },
  {
    id: 'configure-missing',
    line: 'bash: line 1: ./autogen.sh: No such file or directory',
    captures: { file: 'autogen.sh' },
  },
  {
    id: 'script-permission-denied',
    line: 'bash: line 1: ./configure: Permission denied',
    captures: { file: './configure' },
  },
  {
    id: 'script-permission-denied',
    line: '/bin/sh: 1: ./build.sh: Permission denied',
    captures: { file: './build.sh' },
  },
  // crashes
  {
    id: 'segfault',
    line: 'bash: line 1: 41234 Segmentation fault      (core dumped) ./bin/gen_tables > tables.c',
  },
  { id: 'segfault', line: 'make: *** [Makefile:40: check] Segmentation fault' },
  { id: 'aborted', line: './run_tests.sh: line 3: 5120 Aborted                 ./test_suite' },
  { id: 'core-dumped', line: 'Trace/breakpoint trap (core dumped)' },
  {
    id: 'terminate-called',
    line: "terminate called after throwing an instance of 'std::runtime_error'",
    captures: { exception: 'std::runtime_error' },
  },
  {
    id: 'fatal-signal',
    line: 'bash: line 1: 777 Illegal instruction     (core dumped) ./bench',
    captures: { signal: 'Illegal instruction' },
  },
  {
    id: 'assertion-failed',
    line: "test_list: tests/list.c:55: main: Assertion `list_len(l) == 3' failed.",
    captures: { assertion: 'list_len(l) == 3' },
  },
  {
    id: 'sanitizer-error',
    line: '==1234==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014',
    captures: { sanitizer: 'AddressSanitizer', error: 'heap-buffer-overflow' },
  },
  { id: 'glibc-heap-abort', line: 'free(): invalid pointer', captures: { error: 'free(): invalid pointer' } },
  {
    id: 'glibc-heap-abort',
    line: '*** stack smashing detected ***: terminated',
    captures: { error: 'stack smashing detected' },
  },
  // out of memory
  {
    id: 'oom-killed-compiler',
    line: 'c++: fatal error: Killed signal terminated program cc1plus',
    captures: { program: 'cc1plus' },
  },
  {
    id: 'oom-killed-compiler',
    line: 'src/huge.cpp:1:1: internal compiler error: Killed (program cc1plus)',
    captures: { program: 'cc1plus' },
  },
  { id: 'virtual-memory-exhausted', line: 'virtual memory exhausted: Cannot allocate memory' },
  {
    id: 'virtual-memory-exhausted',
    line: 'cc1plus: out of memory allocating 65536 bytes after a total of 1860173824 bytes',
  },
  { id: 'cannot-allocate-memory', line: 'bash: fork: Cannot allocate memory' },
  { id: 'bad-alloc', line: "terminate called after throwing an instance of 'std::bad_alloc'" },
  { id: 'bad-alloc', line: '  what():  std::bad_alloc' },
  {
    id: 'oom-killer',
    line: '[12345.678] Out of memory: Killed process 4242 (cc1plus) total-vm:9000000kB',
    captures: { pid: '4242', program: 'cc1plus' },
  },
  { id: 'process-killed', line: 'make: *** [Makefile:88: all] Killed' },
  { id: 'process-killed', line: 'Killed' },
  { id: 'process-killed', line: './build.sh: line 9: 31337 Killed                  make -j32' },
  // timeouts
  { id: 'process-terminated', line: 'bash: line 1: 2020 Terminated              ./long_running_test' },
  {
    id: 'gha-job-timeout',
    line: '##[error]The job running on runner GitHub Actions 2 has exceeded the maximum execution time of 360 minutes.',
    captures: { minutes: '360' },
  },
  {
    id: 'ctest-timeout',
    line: ' 7/12 Test  #7: net_stress .......................***Timeout 1500.02 sec',
    captures: { seconds: '1500.02' },
  },
  { id: 'command-timed-out', line: 'Error: Command timed out after 600 seconds' },
  // GPU
  {
    id: 'cuda-driver-insufficient',
    line: 'CUDA error: CUDA driver version is insufficient for CUDA runtime version',
  },
  { id: 'no-cuda-device', line: 'cudaGetDeviceCount returned 100 -> no CUDA-capable device is detected' },
  { id: 'nvcc-not-found', line: 'bash: nvcc: command not found', captures: { command: 'nvcc' } },
  { id: 'nvcc-not-found', line: '/bin/sh: 1: nvcc: not found', captures: { command: 'nvcc' } },
  { id: 'cmake-no-cuda-compiler', line: '  No CMAKE_CUDA_COMPILER could be found.' },
  {
    id: 'nvidia-smi-failed',
    line: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
  },
  {
    id: 'cuda-out-of-memory',
    line: 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
  },
  {
    id: 'cuda-unsupported-arch',
    line: "nvcc fatal   : Unsupported gpu architecture 'compute_35'",
    captures: { arch: 'compute_35' },
  },
  {
    id: 'cuda-no-kernel-image',
    line: 'RuntimeError: CUDA error: no kernel image is available for execution on the device',
  },
  { id: 'cuda-out-of-memory', line: 'RuntimeError: CUDA driver error: CUDA_ERROR_OUT_OF_MEMORY' },
  {
    id: 'cuda-out-of-memory',
    line: 'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.',
  },
  {
    id: 'cuda-out-of-memory',
    line: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 6.69 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in use. Of the allocated memory 78.46 GiB is allocated by PyTorch, and 124.70 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.',
  },
  {
    id: 'gpu-required-none-visible',
    line: "[buildbench gpu] error: the task requires a GPU and no GPU is visible in the sandbox (nvidia-smi failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.; kernel module: none loaded)",
  },
  {
    id: 'gpu-cpu-only-framework',
    line: '[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
    captures: { framework: 'torch', version: '2.3.1+cpu' },
  },
  { id: 'torch-not-compiled-with-cuda', line: 'AssertionError: Torch not compiled with CUDA enabled' },
  {
    id: 'gpu-driver-too-old',
    line: '[buildbench gpu] error: the NVIDIA driver 470.82.01 supports CUDA up to 11.4, older than CUDA 12.1 that torch 2.3.1+cu121 was built for',
    captures: {
      driver: '470.82.01',
      driver_cuda: '11.4',
      runtime_cuda: '12.1',
      framework: 'torch',
      version: '2.3.1+cu121',
    },
  },
  {
    id: 'torch-driver-too-old',
    line: 'RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.',
    captures: { found: '11040' },
  },
  {
    id: 'cuda-library-missing',
    line: 'ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory',
    captures: { library: 'libcudnn.so.8' },
  },
  {
    id: 'cuda-library-missing',
    line: "2024-03-01 10:00:00.000000: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    captures: { library: 'libcudart.so.11.0' },
  },
  {
    id: 'cuda-library-missing',
    line: 'Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory',
    captures: { library: 'libcudnn_cnn_infer.so.8' },
  },
  {
    id: 'cuda-library-missing',
    line: '[buildbench gpu] error: the CUDA driver library does not load: libcuda.so.1: cannot open shared object file: No such file or directory',
    captures: { library: 'libcuda.so.1' },
  },
  {
    id: 'cuda-library-missing',
    line: './train: error while loading shared libraries: libcublas.so.12: cannot open shared object file: No such file or directory',
    captures: { library: 'libcublas.so.12' },
  },
  {
    id: 'gpu-no-kernels-for-capability',
    line: '[buildbench gpu] error: torch 1.7.1+cu110 has no kernels for NVIDIA H200 (compute capability 9.0, sm_90): it was built for sm_37 sm_50 sm_60 sm_70 sm_80',
    captures: { framework: 'torch', version: '1.7.1+cu110', capability: '9.0', arch: 'sm_90' },
  },
  {
    id: 'torch-capability-not-compatible',
    line: 'NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation.',
    captures: { arch: 'sm_90' },
  },
  // network
  {
    id: 'could-not-resolve-host',
    line: "fatal: unable to access 'https://github.com/google/googletest.git/': Could not resolve host: github.com",
    captures: { host: 'github.com' },
  },
  {
    id: 'could-not-resolve-host',
    line: 'curl: (6) Could not resolve host: downloads.sourceforge.net',
    captures: { host: 'downloads.sourceforge.net' },
  },
  {
    id: 'name-resolution-failed',
    line: "  Temporary failure resolving 'deb.debian.org'",
    captures: { host: 'deb.debian.org' },
  },
  { id: 'name-resolution-failed', line: 'ssh: connect to host: Temporary failure in name resolution' },
  {
    id: 'failed-to-connect',
    line: 'curl: (7) Failed to connect to github.com port 443 after 130 ms: Connection refused',
    captures: { host: 'github.com', port: '443' },
  },
  { id: 'connection-failed', line: 'wget: unable to connect: Connection timed out' },
  {
    id: 'download-transient-status',
    line: '2020-10-13 18:53:12 ERROR 429: too many requests.',
    captures: { status: '429' },
  },
  {
    id: 'download-transient-status',
    line: 'warning: spurious network error (2 tries remaining): failed to get successful HTTP response from `https://crates.io/api/v1/crates/ahash/0.7.6/download`, got 503',
    captures: { retried: '503' },
  },
  {
    id: 'download-transient-status',
    line: 'curl: (22) The requested URL returned error: 502',
    captures: { curl: '502' },
  },
  {
    id: 'download-transient-status',
    line: 'urllib.error.HTTPError: HTTP Error 503: Service Unavailable',
    captures: { python: '503' },
  },
  {
    id: 'network-timeout',
    line: 'npm ERR! network request to https://registry.npmjs.org/glob-parent failed, reason: connect ETIMEDOUT 104.16.18.35:443',
    captures: { code: 'ETIMEDOUT' },
  },
  { id: 'network-timeout', line: 'npm ERR! code ECONNRESET', captures: { code: 'ECONNRESET' } },
  {
    id: 'network-timeout',
    line: "pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.",
    captures: { urllib: 'ReadTimeoutError' },
  },
  { id: 'download-not-found', line: '2024-03-02 10:11:12 ERROR 404: Not Found.' },
  { id: 'download-not-found', line: 'curl: (22) The requested URL returned error: 404' },
  {
    id: 'archive-cannot-open',
    line: 'tar (child): samtools-1.9.tar.bz2: Cannot open: No such file or directory',
    captures: { file: 'samtools-1.9.tar.bz2' },
  },
  {
    id: 'archive-cannot-open',
    line: 'unzip:  cannot find or open protoc-3.20.0-linux-x86_64.zip, protoc-3.20.0-linux-x86_64.zip.zip or protoc-3.20.0-linux-x86_64.zip.ZIP.',
    captures: { zip: 'protoc-3.20.0-linux-x86_64.zip' },
  },
  {
    id: 'apt-stale-index',
    line: 'E: Failed to fetch http://deb.debian.org/debian/pool/main/z/zlib/zlib1g-dev_1.2.13.dfsg-1_amd64.deb  404  Not Found [IP: 151.101.2.132 80]',
    captures: { url: 'http://deb.debian.org/debian/pool/main/z/zlib/zlib1g-dev_1.2.13.dfsg-1_amd64.deb' },
  },
  {
    id: 'apt-stale-index',
    line: 'E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?',
  },
  {
    id: 'apt-fetch-failed',
    line: 'E: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease  Could not connect to archive.ubuntu.com:80 (185.125.190.36), connection timed out',
    captures: { url: 'http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease' },
  },
  {
    id: 'no-space-left',
    line: 'cc1plus: fatal error: error writing to /tmp/ccq2k1ab.s: No space left on device',
  },
  { id: 'no-space-left', line: "OSError: [Errno 28] No space left on device: '/home/runner/.cache/pip'" },
  {
    id: 'no-space-left',
    line: 'You are running out of disk space. The runner will stop working when the machine runs out of disk space. Free space left: 0 MB',
  },
  { id: 'job-cancelled', line: '##[error]The operation was canceled.' },
  { id: 'job-cancelled', line: 'The operation was canceled.' },
  {
    id: 'runner-lost',
    line: 'The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  },
  {
    id: 'autoconf-unexpanded-macro',
    line: './configure: line 2345: AM_INIT_AUTOMAKE: command not found',
    captures: { macro: 'AM_INIT_AUTOMAKE' },
  },
  {
    id: 'autoconf-unexpanded-macro',
    line: './configure: line 4122: PKG_CHECK_MODULES: command not found',
    captures: { macro: 'PKG_CHECK_MODULES' },
  },
  {
    id: 'autoconf-unexpanded-macro',
    // dash, which runs `sh ./configure` on Debian: the line number without `line`
    line: './configure: 2089: AM_INIT_AUTOMAKE: not found',
    captures: { macro: 'AM_INIT_AUTOMAKE' },
  },
  {
    id: 'multilib-toolchain-skipped',
    line: '/usr/bin/ld: skipping incompatible /usr/lib/gcc/x86_64-linux-gnu/11/libstdc++.so when searching for -lstdc++',
    captures: { file: '/usr/lib/gcc/x86_64-linux-gnu/11/libstdc++.so', library: 'stdc++' },
  },
  {
    id: 'gfortran-argument-mismatch',
    line: 'Error: Rank mismatch between actual argument at (1) and actual argument at (2) (scalar and rank-1)',
    captures: { kind: 'Rank', detail: 'scalar and rank-1' },
  },
  {
    id: 'gfortran-argument-mismatch',
    line: 'Error: Type mismatch between actual argument at (1) and actual argument at (2) (REAL(8)/INTEGER(4)).',
    captures: { kind: 'Type', detail: 'REAL(8)/INTEGER(4)' },
  },
  {
    // latent: a root cause only when a later undefined reference names the function (log-story.test.ts)
    id: 'implicit-declaration-warning',
    line: 'u.c:1:24: warning: implicit declaration of function ‘g’ [-Wimplicit-function-declaration]',
    captures: { symbol: 'g' },
  },
  {
    id: 'implicit-declaration-warning',
    line: "roots.c:5:20: warning: incompatible implicit declaration of built-in function 'cbrt' [-Wbuiltin-declaration-mismatch]",
    captures: { symbol: 'cbrt' },
  },
  {
    id: 'multilib-toolchain-skipped',
    line: '/usr/bin/ld: skipping incompatible /usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a when searching for -lgcc',
    captures: { file: '/usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a', library: 'gcc' },
  },
  {
    id: 'pip-no-version',
    line: 'ERROR: Could not find a version that satisfies the requirement torch==1.4.0 (from versions: none)',
    captures: { requirement: 'torch==1.4.0' },
  },
  {
    id: 'pip-no-version',
    line: 'ERROR: No matching distribution found for ninja>=1.10',
    captures: { requirement: 'ninja>=1.10' },
  },
  {
    id: 'git-unable-to-access',
    line: "fatal: unable to access 'https://gitlab.example.org/lib.git/': The requested URL returned error: 403",
    captures: { url: 'https://gitlab.example.org/lib.git/' },
  },
  {
    id: 'ssl-certificate-problem',
    line: "fatal: unable to access 'https://github.com/x/y.git/': server certificate verification failed. CAfile: none CRLfile: none",
  },
  {
    id: 'cmake-download-failed',
    line: "  Failed to clone repository: 'https://github.com/nlohmann/json.git'",
    captures: { repository: 'https://github.com/nlohmann/json.git' },
  },
  {
    id: 'cmake-download-failed',
    line: "  error: downloading 'https://zlib.net/zlib-1.2.11.tar.gz' failed",
    captures: { url: 'https://zlib.net/zlib-1.2.11.tar.gz' },
  },
  // permissions
  {
    id: 'permission-denied',
    line: "mkdir: cannot create directory '/opt/tool': Permission denied",
    captures: { path: '/opt/tool' },
  },
  {
    id: 'permission-denied',
    line: 'cp: cannot create regular file /usr/local/bin/tool: Permission denied',
    captures: { path: '/usr/local/bin/tool' },
  },
  {
    id: 'operation-not-permitted',
    line: "chown: changing ownership of '/build/repo/out': Operation not permitted",
    captures: { path: '/build/repo/out' },
  },
  {
    id: 'read-only-fs',
    line: "install: cannot create regular file '/usr/lib/libx.so': Read-only file system",
  },
  {
    id: 'apt-not-root',
    line: 'E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?',
  },
  { id: 'sudo-not-found', line: 'bash: line 1: sudo: command not found' },
  { id: 'sudo-not-found', line: '/bin/sh: 1: sudo: not found' },
  // follow-ups
  {
    id: 'make-error',
    line: 'make[1]: *** [Makefile:45: compress.o] Error 1',
    captures: { target: 'Makefile:45: compress.o', code: '1' },
  },
  { id: 'make-error', line: 'gmake: *** [Makefile:136: all] Error 2', captures: { code: '2' } },
  { id: 'make-error', line: 'make: *** [all] Error 2', captures: { target: 'all', code: '2' } },
  {
    id: 'make-recipe-failed',
    line: "Makefile:12: recipe for target 'all' failed",
    captures: { target: 'all' },
  },
  { id: 'make-waiting', line: 'make: *** Waiting for unfinished jobs....' },
  {
    id: 'ninja-build-stopped',
    line: 'ninja: build stopped: subcommand failed.',
    captures: { reason: 'subcommand failed.' },
  },
  {
    id: 'ninja-failed',
    line: 'FAILED: CMakeFiles/app.dir/src/main.cpp.o ',
    captures: { target: 'CMakeFiles/app.dir/src/main.cpp.o' },
  },
  { id: 'cmake-configuring-incomplete', line: '-- Configuring incomplete, errors occurred!' },
  {
    id: 'cmake-generate-failed',
    line: 'CMake Generate step failed.  Build files cannot be regenerated correctly.',
  },
  { id: 'linker-failed', line: 'collect2: error: ld returned 1 exit status', captures: { code: '1' } },
  {
    id: 'linker-failed',
    line: 'clang: error: linker command failed with exit code 1 (use -v to see invocation)',
    captures: { code: '1' },
  },
  { id: 'compilation-terminated', line: 'compilation terminated.' },
  {
    id: 'setuptools-command-failed',
    line: "error: command '/usr/bin/gcc' failed with exit code 1",
    captures: { command: '/usr/bin/gcc', code: '1' },
  },
  {
    id: 'pip-wheel-failed',
    line: '  ERROR: Failed building wheel for pycairo',
    captures: { package: 'pycairo' },
  },
  {
    id: 'docker-step-failed',
    line: 'ERROR: process "/bin/sh -c make -j8" did not complete successfully: exit code: 2',
    captures: { code: '2' },
  },
  {
    id: 'docker-step-failed',
    line: "The command '/bin/sh -c ./build.sh' returned a non-zero code: 1",
    captures: { code: '1' },
  },
  { id: 'gha-exit-code', line: '##[error]Process completed with exit code 2.', captures: { code: '2' } },
  ...LANGUAGE_SIGNATURE_CASES,
  // removed APIs (verifiers/legacy-apis.yaml), as GCC 12 prints them in a UTF-8 locale
  {
    id: 'legacy-glibc-sys-errlist',
    line: 'err.c:5:33: error: ‘sys_errlist’ undeclared (first use in this function)',
  },
  { id: 'legacy-glibc-sys-errlist', line: "util.cc:9:12: error: 'sys_nerr' was not declared in this scope" },
  {
    id: 'legacy-glibc-sys-siglist',
    line: 'sig.c:9:22: error: ‘sys_siglist’ undeclared (first use in this function); did you mean ‘sigset_t’?',
  },
  {
    id: 'legacy-glibc-sigunused',
    line: "trap.cpp:12:13: error: 'SIGUNUSED' was not declared in this scope; did you mean 'SIGSYS'?",
  },
  {
    id: 'legacy-glibc-stime',
    line: 'clock.c:20:5: error: implicit declaration of function ‘stime’; did you mean ‘ctime’? [-Wimplicit-function-declaration]',
  },
  {
    id: 'legacy-boost-asio-get-io-service',
    line: "src/server.cpp:40:17: error: 'class boost::asio::basic_socket_acceptor<boost::asio::ip::tcp>' has no member named 'get_io_service'",
  },
];

/** Lines that must match nothing (noise in successful builds). */
export const NOISE_LINES: string[] = [
  '-- Could NOT find Doxygen (missing: DOXYGEN_EXECUTABLE)',
  "--   No package 'libsystemd' found",
  "--   Package 'libsystemd', required by 'virtual:world', not found",
  'checking for strlcpy... no',
  "src/a.c:9:9: warning: unused variable 'x' [-Wunused-variable]",
  'Run-time dependency gtk+-3.0 found: NO (tried pkgconfig and cmake)',
  '[ 50%] Building CXX object CMakeFiles/app.dir/src/error.cpp.o',
  'gcc -O2 -Wall -DNO_ERROR_CHECKS -c error.c -o error.o',
  '  CMake Warning (dev) at CMakeLists.txt:3 (project):',
  '  Compatibility with CMake < 3.10 will be removed from a future version of',
  'Processing triggers for man-db (2.11.2-2) ...',
  'test_errors ......................   Passed    0.01 sec',
  'Killed 3 stale worker processes',
  'Aborted by user request, cleaning up',
  'Terminated connections: 0',
  '<stdin>:2:14: warning: ISO C++17 does not allow ‘register’ storage class specifier [-Wregister]',
  '',
];
