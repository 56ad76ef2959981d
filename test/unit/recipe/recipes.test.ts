import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shq } from '../../../src/base/shell.js';
import { candidateRecipes, recipeFor } from '../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function bashSyntaxOk(script: string): boolean {
  return spawnSync('bash', ['-n'], { input: script }).status === 0;
}

describe('recipes', () => {
  it('quotes for bash only when needed', () => {
    expect(shq('build/dir')).toBe('build/dir');
    expect(shq("it's here")).toBe(`'it'\\''s here'`);
    expect(shq('a b')).toBe(`'a b'`);
  });

  it('builds CMake out of tree in the build root, also in a subdirectory', () => {
    const root = recipeFor(system('cmake'))!;
    expect(root.steps.map((s) => s.command)).toEqual([
      'cmake -S . -B build @CONFIGURE_ARGS@',
      'cmake --build build -j"${BB_JOBS:-$(nproc)}"',
    ]);
    const sub = recipeFor(system('cmake', 'project'))!;
    expect(sub.label).toBe('cmake (project/)');
    expect(sub.steps[0]!.command).toBe('cmake -S project -B project/build @CONFIGURE_ARGS@');
  });

  it('names its build system and, for out-of-tree builds, its build directory', () => {
    expect(recipeFor(system('cmake'))).toMatchObject({ system: 'cmake', buildDir: 'build' });
    expect(recipeFor(system('cmake', 'project'))).toMatchObject({
      system: 'cmake',
      buildDir: 'project/build',
    });
    expect(recipeFor(system('meson'))).toMatchObject({ system: 'meson', buildDir: 'builddir' });
    expect(recipeFor(system('meson', 'sub'))).toMatchObject({ system: 'meson', buildDir: 'sub/builddir' });
    for (const kind of [
      'autotools',
      'configure',
      'make',
      'qmake',
      'scons',
      'cargo',
      'setup.py',
      'bazel',
    ] as const) {
      const recipe = recipeFor(system(kind, 'sub', `sub/${kind}.file`))!;
      expect(recipe.system).toBe(kind);
      expect(recipe.buildDir).toBeUndefined();
    }
    expect(recipeFor(system('script', '', 'build.sh'))!.system).toBe('script');
    expect(candidateRecipes(repoInfo({ mainSources: ['main.c'] }))[0]!.system).toBe('direct');
  });

  it('generates configure with autoreconf or the autogen script when it is missing', () => {
    const bare = recipeFor(system('autotools', '', 'configure.ac', { hasConfigure: false }))!;
    expect(bare.steps.map((s) => s.purpose)).toEqual(['generate', 'configure', 'build']);
    expect(bare.steps[0]!.command).toBe('autoreconf -fi');
    const autogen = recipeFor(
      system('autotools', 'lib', 'lib/configure.ac', { hasConfigure: false, hasAutogen: 'autogen.sh' }),
    )!;
    expect(autogen.steps[0]!.command).toBe('cd lib && NOCONFIGURE=1 sh ./autogen.sh');
    const ready = recipeFor(system('autotools', '', 'configure.ac', { hasConfigure: true }))!;
    expect(ready.steps.map((s) => s.purpose)).toEqual(['configure', 'build']);
  });

  it('has no Linux recipe for MSBuild or Xcode projects', () => {
    expect(recipeFor(system('msbuild', '', 'a.sln'))).toBeUndefined();
    expect(recipeFor(system('xcode', '', 'a.xcodeproj'))).toBeUndefined();
  });

  it('orders recipes by evidence and falls back to direct compilation only without a build system', () => {
    const repo = repoInfo({ buildSystems: [system('cmake'), system('make')], mainSources: ['main.c'] });
    expect(candidateRecipes(repo).map((r) => r.id)).toEqual(['cmake:', 'make:']);
    const none = repoInfo({ mainSources: ['src/main.c', 'tool.cpp'] });
    const recipes = candidateRecipes(none);
    expect(recipes.map((r) => r.id)).toEqual(['direct']);
    expect(recipes[0]!.steps).toHaveLength(2);
    expect(recipes[0]!.steps[0]!.command).toContain('gcc -O2 -Isrc -o src/main src/main.c');
    expect(recipes[0]!.steps[1]!.command).toContain('g++ -O2 -I. -o tool tool.cpp');
    expect(
      candidateRecipes(
        repoInfo({ buildSystems: [system('msbuild', '', 'x.sln')], mainSources: ['a.c'] }),
      ).map((r) => r.id),
    ).toEqual(['direct']);
    expect(candidateRecipes(repoInfo())).toEqual([]);
  });

  it('renders fixes into a valid bash script', () => {
    const recipe = recipeFor(system('meson'))!;
    const fixes = {
      ...emptyFixes(),
      packages: ['libz-dev'],
      env: { CFLAGS: '-fcommon' },
      configureArgs: ['-Dtests=false'],
      prelude: ['echo hi'],
    };
    const script = renderScript(recipe, fixes);
    expect(script).toContain('bb_apt_install libz-dev');
    expect(script).toContain('export CFLAGS=-fcommon');
    expect(script).not.toContain('@CONFIGURE_ARGS@');
    expect(script.match(/-Dtests=false/g)).toHaveLength(2);
    expect(bashSyntaxOk(script)).toBe(true);
    for (const kind of [
      'cmake',
      'autotools',
      'configure',
      'make',
      'qmake',
      'scons',
      'cargo',
      'setup.py',
      'bazel',
    ] as const) {
      expect(
        bashSyntaxOk(renderScript(recipeFor(system(kind, 'sub dir', `sub dir/${kind}.file`))!, emptyFixes())),
      ).toBe(true);
    }
    const direct = candidateRecipes(repoInfo({ mainSources: ["we'ird dir/main.c"] }))[0]!;
    expect(bashSyntaxOk(renderScript(direct, emptyFixes()))).toBe(true);
  });

  const hasMake = spawnSync('make', ['--version']).status === 0;
  (hasMake ? it : it.skip)(
    'makes a failed make recipe delete its half-written target, and stamps the start of the build',
    () => {
      const script = renderScript(recipeFor(system('make'))!, emptyFixes());
      expect(script).toContain('bb_delete_on_error');
      const preamble = script.slice(0, script.indexOf("echo '### buildbench: tools'"));
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-doe-'));
      writeFileSync(
        path.join(dir, 'Makefile'),
        'all: gen.h\n\ttrue\ngen.h:\n\techo partial > gen.h; false\n',
      );
      const run = spawnSync(
        'bash',
        ['-c', `${preamble}\nbb_delete_on_error\nmake || true; echo "stamp=$BB_STAMP"`],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          encoding: 'utf8',
        },
      );
      expect(run.stdout + run.stderr).toMatch(/Deleting file 'gen\.h'/);
      expect(existsSync(path.join(dir, 'gen.h'))).toBe(false);
      const stamp = /stamp=(\S+)/.exec(run.stdout)?.[1];
      expect(stamp && existsSync(stamp)).toBe(true);
      rmSync(stamp!, { force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  );
});
