import { afterEach, describe, expect, it } from '@jest/globals';

import {
  docBlocks,
  documentedChoice,
  preferDocumented,
  prosePackages,
  stripPrompts,
  travisBlocks,
  workflowBlocks,
} from '../../../src/repo/documented.js';
import { inspectRepo } from '../../../src/repo/inspect.js';
import { system } from '../../fakes/repo-info.js';
import { removeTree, tempTree } from './fixtures.js';

const README = `# hello

A tool.

## Usage

\`\`\`sh
./hello --name world
\`\`\`

## Building

Requires the zlib headers (zlib1g-dev) and libpng-dev.

\`\`\`console
$ sudo apt-get install -y zlib1g-dev
Reading package lists...
$ ./configure && make
\`\`\`

## Building on macOS

\`\`\`
brew install zlib
./configure && make
\`\`\`

\`\`\`c
int main(void) { return 0; }
\`\`\`
`;

describe('documented build commands (repo/documented)', () => {
  it('takes shell blocks under build headings, without prompts, output or other languages', () => {
    const blocks = docBlocks(README, 'README.md');
    expect(blocks.map((b) => [b.section, b.text])).toEqual([
      ['Building', 'sudo apt-get install -y zlib1g-dev\n./configure && make'],
      ['Building on macOS', 'brew install zlib\n./configure && make'],
    ]);
    expect(blocks[0]!.source).toBe('README.md:15');
  });

  it('reads indented and reStructuredText blocks under setext headings', () => {
    const text = 'Install\n=======\n\nRun::\n\n    mkdir build && cd build\n    cmake ..\n\nDone.\n';
    expect(docBlocks(text, 'INSTALL.rst').map((b) => b.text)).toEqual(['mkdir build && cd build\ncmake ..']);
  });

  it('takes a building block outside the build headings only when the headings have none', () => {
    const text = '# x\n\n## Run\n\n```\nmake\n```\n\n## Usage\n\n```\n./x\n```\n';
    expect(docBlocks(text, 'README.md').map((b) => b.text)).toEqual(['make']);
  });

  it('strips prompts only when the block has them', () => {
    expect(stripPrompts('$ make\noutput\n$ make test')).toBe('make\nmake test');
    expect(stripPrompts('make\nmake test')).toBe('make\nmake test');
  });

  it('finds -dev package names in dependency prose, not in code', () => {
    expect(prosePackages(README, 'README.md').map((p) => p.name)).toEqual(['zlib1g-dev', 'libpng-dev']);
  });

  it("reads the first Linux job's run steps of a workflow and the phases of .travis.yml", () => {
    const workflow = [
      'jobs:',
      '  win:',
      '    runs-on: windows-latest',
      '    steps:',
      '      - run: msbuild x.sln',
      '  linux:',
      '    runs-on: ubuntu-22.04',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - name: deps',
      '        run: sudo apt-get install -y libz-dev',
      '      - name: build',
      '        run: |',
      '          cmake -B build',
      '          cmake --build build',
    ].join('\n');
    expect(workflowBlocks(workflow, '.github/workflows/ci.yml').map((b) => [b.source, b.text])).toEqual([
      ['.github/workflows/ci.yml: deps', 'sudo apt-get install -y libz-dev'],
      ['.github/workflows/ci.yml: build', 'cmake -B build\ncmake --build build'],
    ]);
    expect(workflowBlocks('jobs: [', 'bad.yml')).toEqual([]);
    const travis = 'install:\n  - sudo apt-get install -y libfoo-dev\nscript:\n  - make\n';
    expect(travisBlocks(travis, '.travis.yml').map((b) => b.section)).toEqual(['install', 'script']);
  });

  it('prefers the build system the documentation uses, even after CMake', () => {
    const systems = [system('cmake'), system('autotools'), system('make')];
    const documented = { blocks: docBlocks(README, 'README.md'), prosePackages: [] };
    const choice = documentedChoice(documented, systems);
    expect(choice).toEqual({
      kind: 'autotools',
      file: 'configure.ac',
      why: 'README.md:15 says `./configure && make`',
    });
    expect(preferDocumented(systems, choice).map((s) => s.kind)).toEqual(['autotools', 'cmake', 'make']);
    // `cd build && cmake ..` names cmake, not make.
    const cmake = {
      blocks: docBlocks('## Build\n\n```\ncd build && cmake .. && make\n```\n', 'R'),
      prosePackages: [],
    };
    expect(documentedChoice(cmake, systems)?.kind).toBe('cmake');
    // A system the checkout does not have is not chosen.
    const meson = { blocks: docBlocks('## Build\n\n```\nmeson setup b\n```\n', 'R'), prosePackages: [] };
    expect(documentedChoice(meson, systems)).toBeUndefined();
  });

  describe('in inspection', () => {
    let root = '';
    afterEach(() => removeTree(root));

    it('puts the documented system first and records why', async () => {
      root = tempTree({
        'README.md': README,
        'CMakeLists.txt':
          'cmake_minimum_required(VERSION 3.10)\nproject(hello C)\nadd_executable(hello hello.c)\n',
        'configure.ac':
          'AC_INIT([hello], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n',
        'Makefile.am': 'bin_PROGRAMS = hello\nhello_SOURCES = hello.c\n',
        'hello.c': 'int main(void) { return 0; }\n',
      });
      const info = await inspectRepo(root);
      expect(info.buildSystems[0]!.kind).toBe('autotools');
      expect(info.buildSystemChoice?.why).toContain('README.md:15');
      expect(info.documented?.blocks.length).toBe(2);
    });
  });
});
