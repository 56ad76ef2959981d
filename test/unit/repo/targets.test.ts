import { describe, expect, it } from '@jest/globals';

import { automakeTargets } from '../../../src/repo/parsers/automake.js';
import { cargoTargets } from '../../../src/repo/parsers/cargo.js';
import { cmakeTargets } from '../../../src/repo/parsers/cmake/targets.js';
import { makeSubdirs, makefileTargets } from '../../../src/repo/parsers/makefile.js';
import { mesonTargets } from '../../../src/repo/parsers/meson.js';
import { qmakeTargets } from '../../../src/repo/parsers/qmake.js';
import { dedupeTargets, inferTargets } from '../../../src/repo/targets.js';
import type { ExpectedTarget } from '../../../src/repo/types.js';
import { walkTree } from '../../../src/repo/walk.js';
import { fixture, removeTree, tempTree } from './fixtures.js';

type Row = [name: string, kind: ExpectedTarget['kind'], role: ExpectedTarget['role']];

function rows(targets: readonly ExpectedTarget[]): Row[] {
  return targets.map((t) => [t.name, t.kind, t.role]);
}

async function infer(name: string): Promise<ExpectedTarget[]> {
  const root = fixture(name);
  const tree = await walkTree(root);
  return inferTargets(root, tree.files);
}

function byName(targets: readonly ExpectedTarget[], name: string): ExpectedTarget {
  const t = targets.find((x) => x.name === name);
  if (!t) throw new Error(`no target ${name} in ${targets.map((x) => x.name).join(', ')}`);
  return t;
}

describe('inferTargets on fixtures', () => {
  it('reads CMake targets with output names, kinds, exclusions and roles', async () => {
    const targets = await infer('cmake-full');
    expect(rows(targets)).toEqual([
      ['hello', 'executable', 'main'],
      ['libutil.a', 'static_library', 'main'],
      ['libfancycore.so', 'shared_library', 'main'],
      ['plugin.plug', 'module', 'main'],
      ['tool_alpha', 'executable', 'main'],
      ['tool_beta', 'executable', 'main'],
      ['viafunc', 'executable', 'main'],
      ['unixonly', 'executable', 'main'],
      ['libplainer.a', 'static_library', 'main'],
      ['maybe', 'executable', 'main'],
      ['${NOT_DEFINED_ANYWHERE}_x', 'executable', 'main'],
      ['runner', 'executable', 'test'],
      ['extra', 'executable', 'excluded'],
      ['later', 'executable', 'excluded'],
      ['winonly', 'executable', 'excluded'],
      ['speed', 'executable', 'excluded'],
      ['demo', 'executable', 'excluded'],
    ]);
    expect(byName(targets, 'hello')).toEqual({
      name: 'hello',
      kind: 'executable',
      source: 'CMakeLists.txt:8',
      confidence: 0.9,
      role: 'main',
    });
    expect(byName(targets, 'libplainer.a').note).toMatch(/static unless BUILD_SHARED_LIBS/);
    expect(byName(targets, 'maybe').confidence).toBeLessThan(0.7);
    expect(byName(targets, '${NOT_DEFINED_ANYWHERE}_x').confidence).toBeLessThanOrEqual(0.3);
    expect(byName(targets, 'extra').confidence).toBeLessThanOrEqual(0.2);
    expect(byName(targets, 'tool_alpha').source).toBe('CMakeLists.txt:30');
    const names = targets.map((t) => t.name);
    for (const skipped of [
      'libheaders.a',
      'libobjs.a',
      'libzlib_imported.so',
      'imported_tool',
      'commented_out',
      'also_commented',
    ])
      expect(names).not.toContain(skipped);
  });

  it('makes a plain add_library shared when BUILD_SHARED_LIBS is ON', async () => {
    expect(rows(await infer('cmake-shared'))).toEqual([['libshapes.so', 'shared_library', 'main']]);
  });

  it('follows add_subdirectory from a CMake root in a subdirectory', async () => {
    const targets = await infer('cmake-subdir');
    expect(rows(targets)).toEqual([
      ['deep', 'executable', 'main'],
      ['libdeeplib.a', 'static_library', 'main'],
    ]);
    expect(byName(targets, 'libdeeplib.a').source).toBe('src/deeplib/CMakeLists.txt:1');
  });

  it('reads every Makefile.am primary', async () => {
    const targets = await infer('autotools-full');
    expect(rows(targets)).toEqual([
      ['widget', 'executable', 'main'],
      ['widgetctl', 'executable', 'main'],
      ['widgetd', 'executable', 'main'],
      ['libwidget.so', 'shared_library', 'main'],
      ['widgetplugin.so', 'module', 'main'],
      ['libwidgetstatic.a', 'static_library', 'main'],
      ['widget-extra', 'executable', 'main'],
      ['gen-table', 'executable', 'test'],
      ['test_widget', 'executable', 'test'],
      ['optional-tool', 'executable', 'excluded'],
    ]);
    expect(byName(targets, 'libwidget.so').note).toMatch(/libwidget\.a/);
    expect(byName(targets, 'widget-extra').confidence).toBeLessThan(0.7);
    expect(byName(targets, 'gen-table').confidence).toBeLessThan(0.5);
    expect(targets.map((t) => t.name)).not.toContain('libconvenience.so');
  });

  it('reads a hand-written Makefile.in next to a hand-written configure', async () => {
    expect(await infer('configure-only')).toEqual([
      { name: 'handmade', kind: 'executable', source: 'Makefile.in:4', confidence: 0.8, role: 'main' },
    ]);
  });

  it('reads meson targets and default_library', async () => {
    const targets = await infer('meson-full');
    expect(rows(targets)).toEqual([
      ['mtool', 'executable', 'main'],
      ['libmlib.a', 'static_library', 'main'],
      ['libmshared.so', 'shared_library', 'main'],
      ['libmstatic.a', 'static_library', 'main'],
      ['libmmod.so', 'module', 'main'],
      ['libmboth.so', 'shared_library', 'main'],
      ['libmboth.a', 'static_library', 'main'],
      ['fromvar', 'executable', 'main'],
      ['mproj', 'executable', 'main'],
      ['pything', 'executable', 'main'],
      ['conditional', 'executable', 'main'],
      ['unit_tests', 'executable', 'test'],
      ['notdefault', 'executable', 'excluded'],
    ]);
    expect(byName(targets, 'conditional').confidence).toBeLessThan(0.7);
    expect(targets.map((t) => t.name)).not.toContain('commented');
  });

  it('reads qmake TARGET and TEMPLATE, ignoring other platforms’ scopes', async () => {
    expect(rows(await infer('qmake-app'))).toEqual([['myapp', 'executable', 'main']]);
    const lib = await infer('qmake-lib');
    expect(rows(lib)).toEqual([
      ['libqplug.so', 'module', 'main'],
      ['libqlib.a', 'static_library', 'main'],
    ]);
    expect(byName(lib, 'libqlib.a').note).toMatch(/TARGET not set/);
  });

  it('reads TARGET/BIN variables and link rules from a Makefile', async () => {
    const targets = await infer('make-vars');
    expect(rows(targets)).toEqual([
      ['calc', 'executable', 'main'],
      ['calcd', 'executable', 'main'],
    ]);
    expect(targets.map((t) => t.name)).not.toContain('Calculator');
  });

  it('reads literal -o link lines, archives and test-only programs', async () => {
    const targets = await infer('make-link');
    expect(rows(targets)).toEqual([
      ['server', 'executable', 'main'],
      ['client', 'executable', 'main'],
      ['libnet.a', 'static_library', 'main'],
      ['test_net', 'executable', 'test'],
    ]);
    expect(byName(targets, 'server').source).toBe('makefile:10');
  });

  it('names a versioned shared library by its base name', async () => {
    expect(rows(await infer('make-shared'))).toEqual([['libshape.so', 'shared_library', 'main']]);
  });

  it('reads Cargo binaries and C-compatible libraries', async () => {
    expect(rows(await infer('cargo'))).toEqual([
      ['rtool-extra', 'executable', 'main'],
      ['rtool', 'executable', 'main'],
      ['librtool_core.so', 'shared_library', 'main'],
      ['helper', 'executable', 'main'],
    ]);
  });

  it('leaves submodules and vendored code out', async () => {
    const root = fixture('submodules');
    const tree = await walkTree(root);
    expect(rows(await inferTargets(root, tree.files, { exclude: ['vendor/libfoo'] }))).toEqual([
      ['app', 'executable', 'main'],
    ]);
  });

  it('lowers targets from a build system other than the primary one', async () => {
    const root = fixture('make-vars');
    const tree = await walkTree(root);
    const [calc] = await inferTargets(root, tree.files, { primary: 'cmake' });
    expect(calc?.confidence).toBe(0.48);
    expect(calc?.note).toMatch(/build system to run is cmake/);
  });
});

describe('cmakeTargets', () => {
  const one = (text: string, modules: Record<string, string> = {}) =>
    cmakeTargets(new Map([['CMakeLists.txt', text]]), new Map(Object.entries(modules)));

  it('resolves variables, else branches and compound conditions', () => {
    const targets = one(`
      project(Proj)
      set(APP_NAME "\${PROJECT_NAME}-cli")
      string(TOLOWER \${APP_NAME} APP_LOWER)
      if(MSVC OR (APPLE AND NOT UNIX))
        add_executable(never a.c)
      elseif(UNIX AND NOT CMAKE_SYSTEM_NAME STREQUAL "Darwin")
        add_executable(\${APP_LOWER} a.c)
      else()
        add_executable(other a.c)
      endif()
    `);
    expect(targets.map((t) => [t.name, t.role])).toEqual([
      ['never', 'excluded'],
      ['proj-cli', 'main'],
      ['other', 'excluded'],
    ]);
  });

  it('reads options from an included local module', () => {
    const targets = one(
      `
      list(APPEND CMAKE_MODULE_PATH "\${CMAKE_CURRENT_SOURCE_DIR}/cmake")
      include(Options)
      if(WITH_TOOLS)
        add_executable(tool t.c)
      endif()
      if(WITH_DOCS_TOOL)
        add_executable(doctool d.c)
      endif()
    `,
      { 'cmake/Options.cmake': 'option(WITH_TOOLS "tools" ON)\noption(WITH_DOCS_TOOL "docs" OFF)\n' },
    );
    expect(targets.map((t) => [t.name, t.role])).toEqual([
      ['tool', 'main'],
      ['doctool', 'excluded'],
    ]);
  });

  it('does not trust values set in a branch it cannot decide', () => {
    const targets = one(`
      set(BUILD_SHARED_LIBS ON)
      if(SOMETHING_FOUND)
        set(BUILD_SHARED_LIBS OFF)
      endif()
      add_library(lib l.c)
      set(NAME stable)
      add_executable(\${NAME} m.c)
    `);
    expect(targets.map((t) => [t.name, t.kind])).toEqual([
      ['liblib.a', 'static_library'],
      ['stable', 'executable'],
    ]);
    expect(targets[0]?.note).toMatch(/depends on the configuration/);
    expect(targets[0]?.confidence).toBeLessThan(0.7);
  });

  it('takes roles from the source directory and OUTPUT_NAME per kind', () => {
    const targets = one(`
      add_executable(walkthrough examples/walk.c)
      add_library(ar STATIC a.c)
      set_target_properties(ar PROPERTIES OUTPUT_NAME wrong ARCHIVE_OUTPUT_NAME right)
    `);
    expect(targets.map((t) => [t.name, t.role])).toEqual([
      ['walkthrough', 'example'],
      ['libright.a', 'main'],
    ]);
  });

  it('survives self-appending lists and recursive functions', () => {
    const targets = one(`
      set(X a)
      foreach(i 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
        set(X "\${X}\${X}")
      endforeach()
      function(f)
        f()
      endfunction()
      f()
      add_executable(ok main.c)
    `);
    expect(targets.map((t) => t.name)).toEqual(['ok']);
  });
});

describe('automakeTargets', () => {
  it('strips $(EXEEXT) and paths, and skips unresolved words', () => {
    const targets = automakeTargets(
      'bin_PROGRAMS = src/tool$(EXEEXT) $(OPTIONAL)\nnobase_dist_bin_PROGRAMS = b\n',
      'Makefile.am',
    );
    expect(rows(targets)).toEqual([
      ['tool', 'executable', 'main'],
      ['b', 'executable', 'main'],
    ]);
  });
});

describe('makefileTargets', () => {
  it('reads variables from included files and tab-indented assignments', () => {
    const text =
      'include config.mk\nifeq ($(OS),Linux)\n\tEXT = so\nendif\nall: libx.$(EXT)\nlibx.$(EXT): x.o\n\t$(CC) -shared -o $@ $^\n';
    expect(rows(makefileTargets(text, 'Makefile', ['CC = gcc\n']))).toEqual([
      ['libx.so', 'shared_library', 'main'],
    ]);
  });

  it('ignores compile-only commands, objects and pattern rules', () => {
    const text =
      'all: prog\n%.o: %.c\n\t$(CC) -c $< -o $@\nprog: a.o\n\t$(CC) a.o -o prog\nfoo.o: foo.c\n\tgcc -o foo.o -c foo.c\n';
    expect(rows(makefileTargets(text, 'Makefile'))).toEqual([['prog', 'executable', 'main']]);
  });
});

describe('makeSubdirs', () => {
  it('finds -C, cd && make and SUBDIRS loops, but not clean-up calls', () => {
    const text = [
      'SUBDIRS = lib tools',
      'LIBDIR = src/lib',
      'all:',
      '\t$(MAKE) -C $(LIBDIR) all',
      '\tcd app && $(MAKE)',
      '\tfor d in $(SUBDIRS); do $(MAKE) -C $$d; done',
      'clean:',
      '\tcd tests && $(MAKE) clean',
      '',
    ].join('\n');
    expect(makeSubdirs(text).sort()).toEqual(['app', 'lib', 'src/lib', 'tools']);
  });
});

describe('Makefiles across directories', () => {
  it('trusts a sub-Makefile only when a Makefile above runs it', async () => {
    const root = tempTree({
      Makefile: 'all:\n\t$(MAKE) -C lib\nclean:\n\tcd extra && $(MAKE) clean\n',
      'lib/Makefile': 'libq.a: q.o\n\t$(AR) rcs $@ $^\n',
      'extra/Makefile': 'extra: e.c\n\t$(CC) -o extra e.c\n',
    });
    try {
      const targets = await inferTargets(root, (await walkTree(root)).files);
      expect(targets.map((t) => [t.name, t.confidence])).toEqual([
        ['libq.a', 0.8],
        ['extra', 0.56],
      ]);
      expect(byName(targets, 'extra').note).toMatch(/no Makefile above runs make/);
    } finally {
      removeTree(root);
    }
  });

  it('keeps default-goal files made by other recipes, below the strict threshold', () => {
    const text =
      'all: prog prog-alias\nprog: p.c\n\t$(CC) -o prog p.c\nprog-alias: prog\n\tcp prog prog-alias\n';
    expect(makefileTargets(text, 'Makefile').map((t) => [t.name, t.confidence])).toEqual([
      ['prog', 0.8],
      ['prog-alias', 0.6],
    ]);
  });
});

describe('mesonTargets', () => {
  it('uses the root project for subdir files and honours name_prefix/name_suffix', () => {
    const targets = mesonTargets(
      "library('plug', 'p.c', name_prefix: '', name_suffix: 'mod')\nexecutable(meson.project_name() + '-cli', 'm.c')\n",
      'src/meson.build',
      {
        projectName: 'root',
      },
    );
    expect(rows(targets)).toEqual([
      ['plug.mod', 'shared_library', 'main'],
      ['root-cli', 'executable', 'main'],
    ]);
  });
});

describe('qmakeTargets', () => {
  it('returns nothing for a subdirs project or a file that is not qmake', () => {
    expect(qmakeTargets('TEMPLATE = subdirs\nSUBDIRS = a b\n', 'all.pro')).toEqual([]);
    expect(qmakeTargets('-kr -i8\n', 'indent.pro')).toEqual([]);
  });
});

describe('cargoTargets', () => {
  it('skips automatic binaries when autobins is false', () => {
    const files = new Set(['Cargo.toml', 'src/main.rs']);
    expect(cargoTargets('[package]\nname = "x"\nautobins = false\n', 'Cargo.toml', files)).toEqual([]);
  });

  it('points each target at its table: [package], the nth [[bin]], [lib]', () => {
    const text = [
      '[package]',
      'name = "p"',
      '',
      '[[bin]]',
      'name = "one"',
      '[[ bin ]] # the second',
      'name = "two"',
      '[lib]',
      'crate-type = ["staticlib"]',
    ].join('\n');
    const files = new Set(['Cargo.toml', 'src/main.rs']);
    expect(cargoTargets(text, 'Cargo.toml', files).map((t) => [t.name, t.source])).toEqual([
      ['one', 'Cargo.toml:4'],
      ['two', 'Cargo.toml:6'],
      ['p', 'Cargo.toml:1'],
      ['libp.a', 'Cargo.toml:8'],
    ]);
  });

  it('names nothing for a Cargo.toml that is not TOML, and does not throw', () => {
    const files = new Set(['Cargo.toml', 'src/main.rs']);
    expect(cargoTargets('[package]\nname = "x\n[lib\n', 'Cargo.toml', files)).toEqual([]);
  });
});

describe('dedupeTargets', () => {
  it('keeps the most confident reading of a name and puts main products first', () => {
    const t = (name: string, confidence: number, role: ExpectedTarget['role']): ExpectedTarget => ({
      name,
      kind: 'executable',
      source: `${name}:${confidence}`,
      confidence,
      role,
    });
    expect(
      dedupeTargets([t('a', 0.4, 'test'), t('b', 0.5, 'main'), t('a', 0.8, 'main'), t('c', 0.9, 'example')]),
    ).toEqual([t('a', 0.8, 'main'), t('b', 0.5, 'main'), t('c', 0.9, 'example')]);
  });
});
