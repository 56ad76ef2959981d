import { describe, expect, it } from '@jest/globals';

import {
  classifyCommand,
  cleanBlock,
  documentedPackages,
  documentedRecipes,
} from '../../../src/recipe/documented.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import { docBlocks } from '../../../src/repo/documented.js';
import type { DocumentedBlock } from '../../../src/repo/types.js';

const block = (text: string, section = 'Building', from: 'docs' | 'ci' = 'docs'): DocumentedBlock => ({
  source: `README.md:${text.length}`,
  section,
  text,
  from,
});

describe('documented commands as a recipe (recipe/documented)', () => {
  it('classifies commands: sudo dropped, apt lines become packages, other systems and installs dropped', () => {
    expect(classifyCommand('sudo make -j4')).toEqual({ keep: 'make -j4' });
    expect(classifyCommand('sudo -E apt-get install -y --no-install-recommends libz-dev g++')).toEqual({
      packages: ['libz-dev', 'g++'],
    });
    expect(classifyCommand('apt-get update')).toHaveProperty('drop');
    for (const other of [
      'brew install zlib',
      'sudo yum install zlib-devel',
      'dnf install x',
      'pacman -S x',
      'choco install x',
      'sudo port install x',
    ])
      expect(classifyCommand(other)).toHaveProperty(
        'drop',
        expect.stringContaining("another system's package manager"),
      );
    for (const install of [
      'sudo make install',
      'make DESTDIR=/tmp install',
      'cmake --install build',
      'ninja -C build install',
      'meson install -C b',
      'sudo ldconfig',
      'sudo cp zinfo /usr/local/bin/',
    ])
      expect(classifyCommand(install)).toHaveProperty(
        'drop',
        expect.stringContaining('installs into the system'),
      );
    expect(classifyCommand('make check')).toHaveProperty('drop', expect.stringContaining('tests'));
    expect(classifyCommand('CC=clang ./configure --prefix=/usr')).toEqual({
      keep: 'CC=clang ./configure --prefix=/usr',
    });
    expect(classifyCommand('cd ~')).toHaveProperty('drop');
  });

  it('cuts a block with the shell parser and drops the clone of the project with the cd into it', async () => {
    const cleaned = await cleanBlock(
      'git clone https://github.com/x/hello.git && cd hello\nsudo apt-get install -y zlib1g-dev\nmkdir build && cd build && cmake .. && make -j"$(nproc)" && sudo make install',
    );
    expect(cleaned.commands).toEqual(['mkdir build', 'cd build', 'cmake ..', 'make -j"$(nproc)"']);
    expect(cleaned.packages).toEqual(['zlib1g-dev']);
    expect(cleaned.notes.join('\n')).toMatch(
      /already checked out[\s\S]*cd into the clone[\s\S]*installs into the system/,
    );
  });

  it('makes one step per section, skips other systems, keeps a recipe only when something builds', async () => {
    const [docs, ...rest] = await documentedRecipes({
      documented: {
        blocks: [
          block('sudo apt-get install -y libpng-dev', 'Dependencies'),
          block('mkdir build\ncd build'),
          block('cmake ..\nmake'),
          block('brew install libpng\nxcodebuild', 'Building on macOS'),
          block('make test', 'Testing'),
        ],
        prosePackages: [{ name: 'zlib1g-dev', source: 'README.md:3' }],
      },
    });
    expect(rest).toEqual([]);
    expect(docs!.recipe).toMatchObject({
      id: 'documented:docs',
      system: 'documented',
      label: 'documented commands',
    });
    expect(docs!.recipe.steps).toEqual([
      { purpose: 'build', command: 'mkdir build && cd build && cmake .. && make' },
    ]);
    expect(docs!.recipe.tools.map((t) => t.command)).toEqual(expect.arrayContaining(['cc', 'make', 'cmake']));
    expect(docs!.packages.sort()).toEqual(['libpng-dev', 'zlib1g-dev']);
    // The rendered turn runs the step in its own subshell, so the cd stays inside it.
    expect(renderScript(docs!.recipe, emptyFixes())).toContain(
      '(mkdir build && cd build && cmake .. && make)',
    );
    expect(
      await documentedRecipes({
        documented: { blocks: [block('./hello --help', 'Usage')], prosePackages: [] },
      }),
    ).toEqual([]);
  });

  it('adds the CI steps as a second recipe when they differ; packages up front come from the docs alone', async () => {
    const repo = {
      documented: {
        blocks: [
          block('make'),
          block('sudo apt-get install -y libssl-dev', 'deps', 'ci'),
          block('cmake -B build && cmake --build build', 'build', 'ci'),
        ],
        prosePackages: [],
      },
    };
    const recipes = await documentedRecipes(repo);
    expect(recipes.map((r) => r.recipe.id)).toEqual(['documented:docs', 'documented:ci']);
    expect(recipes[1]!.recipe.steps.map((s) => s.command)).toEqual(['cmake -B build && cmake --build build']);
    // The CI file's packages are its recipe's, not installed up front in every recipe.
    expect(await documentedPackages(repo)).toEqual([]);
    expect(recipes[1]!.packages).toEqual(['libssl-dev']);
    repo.documented.blocks.push(block('sudo apt-get install -y libz-dev'));
    expect(await documentedPackages(repo)).toEqual(['libz-dev']);
  });

  it('the program itself, installed under an "Installing" heading, is not a package the build needs', async () => {
    const doc = (...lines: string[]): DocumentedBlock[] => docBlocks(lines.join('\n'), 'README.md');
    const program = doc('# The Tool', '## Installing', '### Linux', '', '    apt-get install the-tool', '');
    expect(program).toEqual([expect.objectContaining({ section: 'Linux', installsProgram: true })]);
    // Dependencies under "Installing", and an "Installation" section that builds, are the build's.
    const dependencies = doc(
      '## Installing',
      '### Dependencies',
      '',
      '    apt-get install -y libpcre3-dev',
      '',
    );
    const building = doc(
      '## Installation',
      '',
      '    sudo apt-get install -y libssl-dev',
      '',
      'then:',
      '',
      '    make',
      '',
    );
    expect([...dependencies, ...building].some((b) => b.installsProgram)).toBe(false);
    const repo = { documented: { blocks: [...program, ...dependencies, ...building], prosePackages: [] } };
    expect((await documentedPackages(repo)).sort()).toEqual(['libpcre3-dev', 'libssl-dev']);
  });
});
