import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../../src/base/errors.js';
import { loadCatalog, parseCatalog, recipeFor } from '../../../src/recipe/catalog.js';
import type { BuildSystemKind } from '../../../src/repo/types.js';
import { system } from '../../fakes/repo-info.js';

const TOOLS = 'tools:\n  cc: build-essential\n  make: make\n';

function catalog(systems: string): string {
  return `version: 1\n${TOOLS}systems:\n${systems}`;
}

function error(text: string): string {
  try {
    parseCatalog(text, 'test.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the catalog to be refused');
}

describe('the recipe catalog (src/recipe/catalog.yaml)', () => {
  it('has a recipe for every Linux build system and none for MSBuild or Xcode', () => {
    const shipped = loadCatalog();
    const linux: BuildSystemKind[] = [
      'cmake',
      'autotools',
      'configure',
      'make',
      'meson',
      'qmake',
      'scons',
      'bazel',
      'cargo',
      'setup.py',
      'script',
    ];
    expect([...shipped.entries.keys()].sort()).toEqual([...linux].sort());
    expect(loadCatalog()).toBe(shipped);
  });

  it('refuses a malformed entry, naming the file and the entry', () => {
    expect(error('version: 2\n' + TOOLS + 'systems: {}\n')).toMatch(/^test\.yaml: version: expected 1/);
    expect(error(catalog('  ninja-only:\n    label: x\n    steps: [{build: ninja}]\n'))).toMatch(
      /test\.yaml: systems\.ninja-only: not a build-system kind/,
    );
    expect(
      error(catalog('  make:\n    label: x\n    tools: [cc, gmake]\n    steps: [{build: make}]\n')),
    ).toMatch(/systems\.make\.tools: 'gmake' is not in the top-level tools table/);
    expect(error(catalog('  make:\n    label: x\n    steps: [{build: make, configure: x}]\n'))).toMatch(
      /systems\.make\.steps\[0\]: expected exactly one of/,
    );
    expect(error(catalog('  make:\n    label: x\n    steps: [{build: "make {{jobz}}"}]\n'))).toMatch(
      /systems\.make\.steps\[0\]\.build: unknown placeholder \{\{jobz\}\}/,
    );
    expect(error(catalog('  make:\n    label: x\n    steps: [{build: "make -C {{build}}"}]\n'))).toMatch(
      /unknown placeholder \{\{build\}\}/,
    );
    expect(error(catalog('  make:\n    label: x\n    steps: [{build: make, in: sub}]\n'))).toMatch(
      /steps\[0\]: in: expected 'root'/,
    );
    expect(
      error(catalog('  make:\n    label: "{{where}}"\n    color: red\n    steps: [{build: make}]\n')),
    ).toMatch(/systems\.make: unknown key 'color'/);
    expect(error(catalog('  make:\n    steps: [{build: make}]\n'))).toMatch(
      /systems\.make\.label: expected a template/,
    );
    expect(error(catalog('  make:\n    label: x\n    steps: []\n'))).toMatch(
      /systems\.make\.steps: expected a list/,
    );
    expect(error('systems: [')).toMatch(/^test\.yaml: YAML: /);
  });

  it('takes the first step of a purpose whose conditions hold', () => {
    const custom = parseCatalog(
      catalog(
        [
          '  make:',
          '    label: "make{{where}}"',
          '    tools: [make]',
          '    buildDir: out',
          '    steps:',
          '      - generate: "./{{autogen}}"',
          '        if: [hasAutogen]',
          '      - generate: "echo none"',
          '        unless: [ready]',
          '      - build: "make -C {{build}} {{jobs}}"',
          '        in: root',
          '',
        ].join('\n'),
      ),
      'test.yaml',
    );
    const withAutogen = recipeFor(system('make', 'sub', 'sub/Makefile', { hasAutogen: 'gen.sh' }), custom)!;
    expect(withAutogen).toMatchObject({
      id: 'make:sub',
      label: 'make (sub/)',
      system: 'make',
      buildDir: 'sub/out',
    });
    expect(withAutogen.steps).toEqual([
      { purpose: 'generate', command: 'cd sub && ./gen.sh' },
      { purpose: 'build', command: 'make -C sub/out -j"${BB_JOBS:-$(nproc)}"' },
    ]);
    const plain = recipeFor(system('make', '', 'Makefile', { hasAutogen: false }), custom)!;
    expect(plain.steps.map((s) => s.command)).toEqual(['echo none', 'make -C out -j"${BB_JOBS:-$(nproc)}"']);
    const ready = recipeFor(system('make', '', 'Makefile', { ready: true }), custom)!;
    expect(ready.steps.map((s) => s.purpose)).toEqual(['build']);
    expect(recipeFor(system('cmake'), custom)).toBeUndefined();
  });
});
