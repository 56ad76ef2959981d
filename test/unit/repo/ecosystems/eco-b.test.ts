/**
 * The Rust, Go, Java, Haskell, Lua, Racket and Fortran detectors on small fixture trees written to a temp
 * folder: what each manifest declares, the runtime it pins or implies, and the notes a person needs.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectEcosystems } from '../../../../src/repo/ecosystems/index.js';
import { parseGoMod } from '../../../../src/repo/ecosystems/go.js';
import { parsePom } from '../../../../src/repo/ecosystems/java.js';
import type { EcosystemInfo } from '../../../../src/repo/types.js';

async function tree(files: Record<string, string>): Promise<{ root: string; files: string[] }> {
  const root = await mkdtemp(path.join(tmpdir(), 'bb-eco-b-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return { root, files: Object.keys(files) };
}

async function detect(files: Record<string, string>): Promise<EcosystemInfo[]> {
  const t = await tree(files);
  return detectEcosystems(t.root, t.files);
}

function names(eco: EcosystemInfo | undefined): string[] {
  return (eco?.dependencies ?? []).map(
    (d) => `${d.name}${d.constraint ? ` ${d.constraint}` : ''}${d.dev ? ' (dev)' : ''}`,
  );
}

describe('rust detector', () => {
  it('reads a workspace: members, inherited and renamed dependencies, dev and target tables, the lock format', async () => {
    const [eco] = await detect({
      'Cargo.toml': '[workspace]\nmembers = ["app"]\n[workspace.dependencies]\nitoa = "1.0"\n',
      'app/Cargo.toml': [
        '[package]',
        'name = "app"',
        'edition = "2021"',
        '[dependencies]',
        'itoa = { workspace = true }',
        'rnd = { package = "fastrand", version = "1.8", optional = true }',
        'local = { path = "../local" }',
        "[target.'cfg(unix)'.dependencies]",
        'libc = "0.2"',
        '[dev-dependencies]',
        'quickcheck = "1"',
      ].join('\n'),
      'Cargo.lock': '# generated\nversion = 4\n',
      'target/debug/build/x/Cargo.toml': '[dependencies]\nnope = "1"\n',
    });
    expect(eco?.kind).toBe('rust');
    expect(eco?.manifests).toEqual(['Cargo.toml', 'app/Cargo.toml', 'Cargo.lock']);
    expect(names(eco)).toEqual(['itoa 1.0', 'fastrand 1.8', 'quickcheck 1 (dev)', 'libc 0.2']);
    expect(eco?.dependencies.find((d) => d.name === 'fastrand')?.optional).toBe(true);
    expect(eco?.runtime).toEqual({
      name: 'rust',
      version: '>=1.56',
      why: 'edition 2021 needs rustc 1.56 or newer',
    });
    expect(eco?.notes.join('\n')).toMatch(/lockfile format 4, read by cargo ≥ 1\.78/);
    expect(eco?.notes.join('\n')).toMatch(/a Cargo workspace \(members: app\)/);
  });

  it('takes rust-version, and a rust-toolchain file over it', async () => {
    const [a] = await detect({ 'Cargo.toml': '[package]\nname="x"\nrust-version = "1.70"\n' });
    expect(a?.runtime?.version).toBe('1.70');
    expect(a?.notes.join()).toMatch(/no Cargo\.lock/);
    const [b] = await detect({
      'Cargo.toml': '[package]\nname="x"\nrust-version = "1.70"\n',
      'rust-toolchain.toml': '[toolchain]\nchannel = "nightly-2023-01-01"\n',
    });
    expect(b?.runtime?.version).toBe('nightly-2023-01-01');
  });

  it('says which Cargo.toml or rust-toolchain.toml is not TOML, where, and reads the others', async () => {
    const [eco] = await detect({
      'Cargo.toml': '[workspace]\nmembers = ["app", "bad"]\n',
      'app/Cargo.toml': '[package]\nname = "app"\nedition = "2018"\n[dependencies]\nitoa = "1"\n',
      'bad/Cargo.toml': '[dependencies]\nserde = { version = "1.0"\nlibc = "0.2"\n',
      'rust-toolchain.toml': '[toolchain\nchannel = "stable"\n',
    });
    expect(eco?.manifests).toEqual(['Cargo.toml', 'app/Cargo.toml', 'bad/Cargo.toml', 'rust-toolchain.toml']);
    expect(names(eco)).toEqual(['itoa 1']);
    expect(eco?.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\/Cargo\.toml could not be read as TOML \(line 3, column \d+: .+\)$/),
        expect.stringMatching(/^rust-toolchain\.toml could not be read as TOML \(line 1, column \d+: .+\)$/),
      ]),
    );
    expect(eco?.runtime).toMatchObject({ version: '>=1.31' });
  });
});

describe('go detector', () => {
  it('reads module, go and toolchain directives, require lines and blocks, indirect, replace', () => {
    const mod = parseGoMod(
      'go.mod',
      [
        'module example.com/paper',
        '',
        'go 1.21',
        'toolchain go1.22.1',
        'require github.com/google/go-cmp v0.5.9',
        'require (',
        '\tgolang.org/x/text v0.14.0 // indirect',
        '\tgopkg.in/yaml.v3 v3.0.1',
        ')',
        'replace example.com/old => ./old // moved',
      ].join('\n'),
    );
    expect(mod.module).toBe('example.com/paper');
    expect(mod.go).toBe('1.21');
    expect(mod.toolchain).toBe('go1.22.1');
    expect(mod.requires.map((r) => [r.name, r.constraint, r.optional ?? false, r.manifest])).toEqual([
      ['github.com/google/go-cmp', 'v0.5.9', false, 'go.mod:5'],
      ['golang.org/x/text', 'v0.14.0', true, 'go.mod:7'],
      ['gopkg.in/yaml.v3', 'v3.0.1', false, 'go.mod:8'],
    ]);
    expect(mod.notes).toEqual(['go.mod: replace example.com/old => ./old']);
  });

  it('notes vendor/ and takes the go directive as the minimum runtime', async () => {
    const [eco] = await detect({
      'go.mod': 'module x\n\ngo 1.19\n\nrequire github.com/google/go-cmp v0.5.9\n',
      'go.sum': '',
      'vendor/modules.txt': '# github.com/google/go-cmp v0.5.9\n',
    });
    expect(eco?.kind).toBe('go');
    expect(eco?.runtime).toMatchObject({ name: 'go', version: '>=1.19' });
    expect(eco?.manifests).toEqual(['go.mod', 'go.sum', 'vendor/modules.txt']);
    expect(eco?.notes.join()).toMatch(/-mod=vendor/);
  });
});

describe('java detector', () => {
  it('reads a pom: properties in versions, test scope, parent, modules; not dependencyManagement or plugins', () => {
    const pom = parsePom(
      'pom.xml',
      `<project>
  <parent><groupId>org.demo</groupId><artifactId>parent</artifactId><version>2</version></parent>
  <version>1.0</version>
  <properties><lang3.version>3.12.0</lang3.version><maven.compiler.source>1.6</maven.compiler.source></properties>
  <modules><module>core</module></modules>
  <dependencyManagement><dependencies><dependency><groupId>x</groupId><artifactId>managed</artifactId><version>1</version></dependency></dependencies></dependencyManagement>
  <dependencies>
    <!-- <dependency><groupId>x</groupId><artifactId>commented</artifactId></dependency> -->
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId><version>\${lang3.version}</version></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins><plugin><groupId>x</groupId><artifactId>plug</artifactId><dependencies><dependency><groupId>x</groupId><artifactId>plugdep</artifactId></dependency></dependencies></plugin></plugins></build>
</project>`,
    );
    expect(pom.dependencies.map((d) => [d.name, d.constraint, d.dev ?? false])).toEqual([
      ['org.apache.commons:commons-lang3', '3.12.0', false],
      ['junit:junit', '4.13', true],
    ]);
    expect(pom.release).toEqual({
      name: 'java',
      version: '1.6',
      why: 'maven.compiler.source = 1.6 in pom.xml',
    });
    expect(pom.notes.join('\n')).toMatch(/parent POM org\.demo:parent:2/);
    expect(pom.notes.join('\n')).toMatch(/multi-module build \(core\)/);
  });

  it('reads Gradle dependencies and the toolchain release', async () => {
    const [eco] = await detect({
      'build.gradle.kts': [
        'plugins { java }',
        'java { toolchain { languageVersion.set(JavaLanguageVersion.of(17)) } }',
        'dependencies {',
        '  implementation("com.google.guava:guava:32.1.2-jre")',
        "  testImplementation 'junit:junit:4.13.2'",
        '}',
      ].join('\n'),
    });
    expect(names(eco)).toEqual(['com.google.guava:guava 32.1.2-jre', 'junit:junit 4.13.2 (dev)']);
    expect(eco?.runtime?.version).toBe('17');
    expect(eco?.notes.join()).toMatch(/no Gradle wrapper/);
  });
});

describe('haskell, lua, racket and fortran detectors', () => {
  it('reads build-depends across continuation lines, test suites as dev, tested-with and the stack resolver', async () => {
    const [eco] = await detect({
      'demo.cabal': [
        'cabal-version: 2.4',
        'name: demo',
        'tested-with: GHC == 9.0.2',
        'executable demo',
        '  build-depends: base >=4 && <5,',
        '                 containers',
        '                 , vector ^>=0.12',
        'test-suite spec',
        '  build-depends: base, hspec',
      ].join('\n'),
      'stack.yaml': 'resolver: lts-19.33\n',
    });
    expect(names(eco)).toEqual([
      'base >=4 && <5',
      'containers',
      'vector ^>=0.12',
      'base (dev)',
      'hspec (dev)',
    ]);
    expect(eco?.runtime).toMatchObject({ name: 'ghc', version: '9.0.2' });
    expect(eco?.notes.join()).toMatch(/lts-19\.33/);
  });

  it('reads a rockspec: lua is the runtime, the rest rocks', async () => {
    const [eco] = await detect({
      'demo-1.0-1.rockspec':
        'package = "demo"\ndependencies = {\n  "lua >= 5.1",\n  "lpeg ~> 1.0",\n  "luafilesystem"\n}\n',
    });
    expect(eco?.runtime).toMatchObject({ name: 'lua', version: '>= 5.1' });
    expect(names(eco)).toEqual(['lpeg ~> 1.0', 'luafilesystem']);
  });

  it('reads info.rkt deps and build-deps', async () => {
    const [eco] = await detect({
      'info.rkt':
        '#lang info\n(define deps \'("base" ("math-lib" #:version "1.2")))\n(define build-deps \'("rackunit-lib"))\n',
    });
    expect(names(eco)).toEqual(['base', 'math-lib >=1.2', 'rackunit-lib (dev)']);
  });

  it('lists Fortran modules used but not defined (not intrinsic) and the build files', async () => {
    const [eco] = await detect({
      Makefile: 'all:\n\tgfortran -o sim main.f90 grid.f90\n',
      'main.f90':
        'program main\n  use grid\n  use, intrinsic :: iso_fortran_env\n  use netcdf\n  use omp_lib\nend program\n',
      'grid.f90': 'module grid\nend module grid\n',
    });
    expect(eco?.kind).toBe('fortran');
    expect(eco?.manifests).toEqual(['Makefile']);
    expect(names(eco)).toEqual(['netcdf']);
  });

  it('reads fpm.toml dependencies, leaving path ones out', async () => {
    const [eco] = await detect({
      'fpm.toml':
        'name = "x"\n[dependencies]\nstdlib = { git = "https://example.org/stdlib" }\nmine = { path = "mine" }\n',
    });
    expect(names(eco)).toEqual(['stdlib https://example.org/stdlib']);
  });

  it('says when fpm.toml is not TOML, and still reads the sources', async () => {
    const [eco] = await detect({
      'fpm.toml': 'name = "x"\n[dependencies]\nstdlib = { git = "https://example.org/stdlib" \n',
      'src/main.f90': 'program main\n  use netcdf\nend program\n',
    });
    expect(eco?.kind).toBe('fortran');
    expect(eco?.notes.join('\n')).toMatch(
      /^fpm\.toml could not be read as TOML \(line 4, column \d+: .+\)$/m,
    );
    expect(names(eco)).toEqual(['netcdf']);
  });

  it('finds nothing in a tree without these manifests', async () => {
    expect(await detect({ 'README.md': '# x\n', 'main.c': 'int main(){}' })).toEqual([]);
  });
});
