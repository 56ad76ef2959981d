import { afterEach, describe, expect, it } from '@jest/globals';
import path from 'node:path';

import { documentedCompileTargets, mainSourceTargets } from '../../../src/repo/direct-targets.js';
import { docBlocks } from '../../../src/repo/documented.js';
import { inspectRepo } from '../../../src/repo/inspect.js';
import type { ExpectedTarget } from '../../../src/repo/types.js';
import { candidateRecipes } from '../../../src/recipe/catalog.js';
import { expectedFrom } from '../../../src/verify/scoring.js';
import { removeTree, tempTree } from './fixtures.js';

const repoFixture = (name: string): string => path.resolve('test/fixtures/repos', name);

async function expectedNames(root: string): Promise<string[]> {
  return expectedFrom({ expect: [] }, await inspectRepo(root)).names.sort();
}

function byName(targets: readonly ExpectedTarget[], name: string): ExpectedTarget {
  const t = targets.find((x) => x.name === name);
  if (!t) throw new Error(`no target ${name} in ${targets.map((x) => x.name).join(', ')}`);
  return t;
}

describe('expectations come from the build system that runs, with its naming', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it("autotools beside CMake, autotools documented: libtool's -release name, not CMake's", async () => {
    const repo = await inspectRepo(repoFixture('autotools-cmake-release'));
    expect(repo.buildSystems[0]!.kind).toBe('autotools');
    expect(expectedFrom({ expect: [] }, repo).names).toEqual(['libtally-0.so']);
    expect(byName(repo.expectedTargets, 'libtally-0.so').note).toContain('-release 0');
    // What CMake would name is kept, below the confidence that makes it expected.
    expect(byName(repo.expectedTargets, 'libtally.so').confidence).toBeLessThan(0.7);
  });

  it('libtool: -version-info alone keeps libfoo.so; an unexpandable -release says so', async () => {
    root = tempTree({
      'configure.ac': 'AC_INIT([foo], [1])\nAM_INIT_AUTOMAKE\nLT_INIT\nAC_OUTPUT\n',
      'Makefile.am': [
        'lib_LTLIBRARIES = libfoo.la libbar.la libbaz.la',
        'libfoo_la_LDFLAGS = -version-info 3:0:1',
        'REL = 2.4',
        'libbar_la_LDFLAGS = -release $(REL)',
        'libbaz_la_LDFLAGS = -release @PACKAGE_VERSION@',
        '',
      ].join('\n'),
    });
    const repo = await inspectRepo(root);
    expect(expectedFrom({ expect: [] }, repo).names.sort()).toEqual(['libbar-2.4.so', 'libfoo.so']);
    const baz = byName(repo.expectedTargets, 'libbaz-@PACKAGE_VERSION@.so');
    expect(baz.confidence).toBeLessThan(0.7);
    expect(baz.note).toContain('could not be expanded');
  });

  it('meson both_libraries: the shared object and the archive, with soversion matched by base name', async () => {
    root = tempTree({
      'meson.build': [
        "project('duo', 'c')",
        "both_libraries('duo', 'duo.c', soversion: '3')",
        "executable('duocli', 'cli.c')",
        '',
      ].join('\n'),
    });
    expect(await expectedNames(root)).toEqual(['duocli', 'libduo.a', 'libduo.so']);
  });

  it('qmake: TARGET names the program', async () => {
    root = tempTree({ 'viewer.pro': 'TEMPLATE = app\nTARGET = picview\nSOURCES = main.cpp\n' });
    expect(await expectedNames(root)).toEqual(['picview']);
  });
});

describe('no build system: documented compile lines, else every main()', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it('the README compiles two programs: both are expected (fixture readme-two-programs)', async () => {
    expect(await expectedNames(repoFixture('readme-two-programs'))).toEqual(['linecount', 'wordcount']);
  });

  it('without a documented compile line, every file defining main() is a program', async () => {
    root = tempTree({
      'a.c': 'int main(void) { return 0; }\n',
      'tools/b.c': '#include <stdio.h>\nint main(int argc, char **argv) { return argc > 1; }\n',
      'util.c': 'int util(void) { return 2; }\n',
    });
    expect(await expectedNames(root)).toEqual(['a', 'b']);
  });

  it('a generator the documented steps build and run before the real compile is a helper', () => {
    const blocks = docBlocks(
      [
        '## Build',
        '',
        '```sh',
        'gcc -o mkdata tools/mkdata.c && ./mkdata > data.h',
        'sudo gcc -O2 -o app app.c -lm',
        'gcc -shared -fPIC -o libplug.so plug.c',
        'gcc -c x.c',
        './app --selftest',
        '```',
        '',
      ].join('\n'),
      'README.md',
    );
    const targets = documentedCompileTargets(blocks);
    expect(targets.map((t) => [t.name, t.kind, t.role])).toEqual([
      ['mkdata', 'executable', 'excluded'],
      ['app', 'executable', 'main'],
      ['libplug.so', 'shared_library', 'main'],
    ]);
    expect(byName(targets, 'mkdata').note).toContain('build helper');
  });

  it('names programs as direct compilation does (a repeated stem gets its extension)', () => {
    expect(mainSourceTargets(['x/main.c', 'x/main.cpp', 'y/main.c']).map((t) => t.name)).toEqual([
      'main',
      'main_cpp',
      'main',
    ]);
  });

  it('a repository with a build system gets nothing from its README compile lines', async () => {
    root = tempTree({
      'README.md': '## Build\n\n    gcc -o other other.c\n',
      Makefile: 'all: prog\nprog: prog.c\n\t$(CC) -o $@ prog.c\n',
    });
    expect(await expectedNames(root)).toEqual(['prog']);
  });
});

describe('a build helper is not the product; a computed default goal is expanded', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it('make-generator-helper: crcsum-1.4 expected, mktable (run to generate a header) is not', async () => {
    const repo = await inspectRepo(repoFixture('make-generator-helper'));
    expect(expectedFrom({ expect: [] }, repo).names).toEqual(['crcsum-1.4']);
    const helper = byName(repo.expectedTargets, 'mktable');
    expect(helper).toMatchObject({ role: 'excluded' });
    expect(helper.note).toContain('build helper');
  });

  it('a name make computes at run time is kept uncertain, with the reason, and not expected', async () => {
    root = tempTree({
      Makefile: [
        'PROG = crcsum',
        'VERSION = 1.4',
        'ARCH := $(shell uname -m)',
        'all: $(PROG)-$(VERSION)-$(ARCH)',
        '$(PROG)-$(VERSION)-$(ARCH): crcsum.c',
        '\t$(CC) -o $@ crcsum.c',
        'prog$(EXEEXT): p.c',
        '\t$(CC) -o $@ p.c',
        '',
      ].join('\n'),
    });
    const repo = await inspectRepo(root);
    const computed = byName(repo.expectedTargets, 'crcsum-1.4-$(?)');
    expect(computed.confidence).toBeLessThan(0.7);
    expect(computed.note).toContain('could not be expanded');
    // A trailing suffix variable (empty on Linux) is still a plain name.
    expect(repo.expectedTargets.map((t) => t.name)).toContain('prog');
    expect(expectedFrom({ expect: [] }, repo).names).not.toContain('crcsum-1.4-$(?)');
  });
});

describe('the documented build wins: an indented block under a heading with trailing words', () => {
  it('readme-indented-make: make runs, and its shared library is expected, not CMake’s archive', async () => {
    const repo = await inspectRepo(repoFixture('readme-indented-make'));
    expect(repo.buildSystemChoice).toMatchObject({ kind: 'make', file: 'Makefile' });
    expect(repo.buildSystems[0]!.kind).toBe('make');
    expect(candidateRecipes(repo)[0]!.system).toBe('make');
    expect(expectedFrom({ expect: [] }, repo).names).toEqual(['libringbuf.so']);
  });

  it('reads an indented block right under a heading, but not a paragraph’s indented continuation', () => {
    const text = [
      '## Compile: (Download or clone the repository)',
      '    git clone https://example.org/x.git',
      '    make',
      '',
      '## Notes',
      'Some prose here',
      '    that continues indented',
      '',
    ].join('\n');
    const blocks = docBlocks(text, 'README.md');
    expect(blocks.map((b) => [b.source, b.section, b.text])).toEqual([
      [
        'README.md:2',
        'Compile: (Download or clone the repository)',
        'git clone https://example.org/x.git\nmake',
      ],
    ]);
  });

  it('a setext heading followed by an indented block', () => {
    const blocks = docBlocks('Building\n========\n    ./configure\n    make\n', 'INSTALL');
    expect(blocks.map((b) => b.text)).toEqual(['./configure\nmake']);
  });
});

describe('an expectation that cannot know a product says it is uncertain (issue 31)', () => {
  let root = '';
  afterEach(() => removeTree(root));

  it("a default goal's name computed with $(shell …): uncertain, with the Makefile line", async () => {
    const expected = expectedFrom({ expect: [] }, await inspectRepo(repoFixture('computed-program-name')));
    expect(expected.uncertain).toEqual([
      expect.stringMatching(/^tally-1\.3-\$\(\?\): part of the name is computed .* \(Makefile:\d+\)$/),
    ]);
    const generator = expectedFrom(
      { expect: [] },
      await inspectRepo(repoFixture('generator-then-missing-header')),
    );
    expect(generator.uncertain).toEqual([expect.stringContaining('sieve-2.1-$(?)')]);
  });

  it('a computed name outside the default goal, or a plain one, leaves the expectation certain', async () => {
    root = tempTree({
      Makefile: [
        'ARCH := $(shell uname -m)',
        'all: tool',
        'tool: tool.c',
        '\t$(CC) -o $@ tool.c',
        'dist: tool-$(ARCH)',
        'tool-$(ARCH): tool.c',
        '\t$(CC) -o $@ tool.c',
        '',
      ].join('\n'),
      'tool.c': 'int main(void) { return 0; }\n',
    });
    const expected = expectedFrom({ expect: [] }, await inspectRepo(root));
    expect(expected.names).toEqual(['tool']);
    expect(expected.uncertain).toBeUndefined();
  });
});
