/**
 * The Rust, Go, Java, Haskell, Lua, Racket and Fortran setups: which recipes each registry mode gives, what
 * the offline recipes map a dependency to, that every recipe renders to a turn script bash accepts, and the
 * name rules (crate → librust-*-dev, rockspec → Lua release, groupId:artifactId → repository path).
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { deployRecipes, SETUPS } from '../../../src/deploy/recipes/index.js';
import { debianCratePackages } from '../../../src/deploy/recipes/rust.js';
import { moduleAlternation } from '../../../src/deploy/recipes/go.js';
import { mavenPath } from '../../../src/deploy/recipes/java.js';
import { debianLuaPackages, luaVersion } from '../../../src/deploy/recipes/lua.js';
import { debianHaskellPackage } from '../../../src/deploy/recipes/haskell.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import type { EcosystemInfo, EcosystemKind } from '../../../src/repo/types.js';
import { repoInfo } from '../../fakes/repo-info.js';

function goal(mode: DeployGoal['registries']['mode'], mirrors: Record<string, string> = {}): DeployGoal {
  return {
    target: { command: './run', cwd: '', timeoutMs: 60_000, evidence: {} },
    requires: [],
    registries: { mode, mirrors },
  };
}

const ECOS: Record<string, EcosystemInfo> = {
  rust: {
    kind: 'rust',
    manifests: ['Cargo.toml'],
    dependencies: [
      { name: 'itoa', constraint: '1', manifest: 'Cargo.toml' },
      { name: 'serde_json', constraint: '1.0', manifest: 'Cargo.toml' },
    ],
    notes: [],
  },
  go: {
    kind: 'go',
    manifests: ['go.mod', 'go.sum'],
    dependencies: [{ name: 'github.com/google/go-cmp', constraint: 'v0.5.9', manifest: 'go.mod:5' }],
    notes: [],
  },
  java: {
    kind: 'java',
    manifests: ['pom.xml'],
    dependencies: [
      { name: 'org.apache.commons:commons-lang3', constraint: '3.12.0', manifest: 'pom.xml:20' },
    ],
    runtime: { name: 'java', version: '11', why: 'maven.compiler.source = 11 in pom.xml' },
    notes: [],
  },
  gradle: {
    kind: 'java',
    manifests: ['build.gradle'],
    dependencies: [],
    notes: ['Gradle build (no Gradle wrapper); build scripts are programs'],
  },
  haskell: {
    kind: 'haskell',
    manifests: ['demo.cabal'],
    dependencies: [
      { name: 'base', manifest: 'demo.cabal' },
      { name: 'vector', manifest: 'demo.cabal' },
    ],
    notes: [],
  },
  lua: {
    kind: 'lua',
    manifests: ['demo-1.0-1.rockspec'],
    dependencies: [{ name: 'luafilesystem', manifest: 'demo-1.0-1.rockspec' }],
    runtime: { name: 'lua', version: '>= 5.1', why: 'rockspec' },
    notes: [],
  },
  racket: {
    kind: 'racket',
    manifests: ['info.rkt'],
    dependencies: [{ name: 'math-lib', manifest: 'info.rkt' }],
    notes: [],
  },
  fortran: {
    kind: 'fortran',
    manifests: ['Makefile'],
    dependencies: [{ name: 'netcdf', manifest: 'main.f90' }],
    notes: [],
  },
};

function recipesOf(eco: EcosystemInfo, mode: DeployGoal['registries']['mode']) {
  return deployRecipes(repoInfo({ root: '/nonexistent', ecosystems: [eco] }), goal(mode));
}

describe('setups of Rust, Go, Java, Haskell, Lua, Racket, Fortran', () => {
  it('registers one setup for each of these ecosystems', () => {
    const kinds: EcosystemKind[] = ['rust', 'go', 'java', 'haskell', 'lua', 'racket', 'fortran'];
    for (const kind of kinds) expect(SETUPS.filter((s) => s.kind === kind)).toHaveLength(1);
  });

  it('every recipe, in every mode, renders to a turn script bash can parse', () => {
    for (const eco of Object.values(ECOS)) {
      for (const mode of ['auto', 'online', 'offline'] as const) {
        for (const recipe of recipesOf(eco, mode)) {
          const script = renderScript(recipe, emptyFixes());
          const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
          expect({ id: recipe.id, mode, stderr: check.stderr }).toEqual({ id: recipe.id, mode, stderr: '' });
          // A step runs alone in build.sh (bash -c, no shell library): it defines what it installs with.
          for (const step of recipe.steps) {
            if (step.command.includes('bb_deploy_install '))
              expect(step.command).toContain('bb_deploy_install() {');
            expect(step.command).not.toMatch(/\bbb_apt_install\b/);
          }
        }
      }
    }
  });

  it('Rust offline: Debian crate packages through a source replacement in .buildbench/cargo; auto tries the registry first', () => {
    const [offline, ...more] = recipesOf(ECOS.rust!, 'offline');
    expect(more).toEqual([]);
    const deps = offline!.steps.find((s) => s.purpose === 'dependencies')!.command;
    expect(deps).toContain('itoa=librust-itoa-dev,librust-itoa-1-dev');
    expect(deps).toContain('serde_json=librust-serde-json-dev,librust-serde-json-1-dev');
    expect(deps).toContain('\'replace-with = "debian"\'');
    expect(deps).toContain('directory = "/usr/share/cargo/registry"');
    expect(deps).toContain('export CARGO_HOME="$PWD/.buildbench/cargo"');
    expect(deps).toMatch(/>> \.buildbench\/deploy-env\.sh/);
    expect(offline!.steps.at(-2)!.command).toContain('cp Cargo.lock .buildbench/deploy/Cargo.lock'); // the last step runs the target
    const auto = recipesOf(ECOS.rust!, 'auto');
    expect(auto.map((r) => r.id)).toEqual(['deploy:rust:auto', 'deploy:rust:debian-crates']);
    expect(auto[0]!.steps[0]!.command).toMatch(/cargo fetch; then[\s\S]*else[\s\S]*librust-itoa-dev/);
    // an earlier turn's fallback (Debian's source replacement) is removed first: the registry is tried again
    expect(auto[0]!.steps[0]!.command).toMatch(/rm -f "\$CARGO_HOME\/config\.toml"[\s\S]*cargo fetch; then/);
    expect(recipesOf(ECOS.rust!, 'online').map((r) => r.id)).toEqual(['deploy:rust:registry']);
  });

  it("passes the user's cargo mirror variables, never one with credentials", () => {
    const recipes = deployRecipes(
      repoInfo({ root: '/nonexistent', ecosystems: [ECOS.rust!] }),
      goal('online', {
        CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
        CARGO_HTTP_PROXY: 'http://user:secret@proxy:3128',
        PIP_INDEX_URL: 'http://pypi.local/simple',
      }),
    );
    const deps = recipes[0]!.steps[0]!.command;
    expect(deps).toContain('export CARGO_REGISTRIES_CRATES_IO_PROTOCOL=sparse');
    expect(deps).not.toContain('secret');
    expect(deps).not.toContain('PIP_INDEX_URL');
  });

  it('Go offline: looks up the module directories with apt-file and builds in GOPATH mode; vendor/ needs nothing', () => {
    const [offline] = recipesOf(ECOS.go!, 'offline');
    const deps = offline!.steps[0]!.command;
    expect(deps).toContain("apt-file search -x '^/usr/share/gocode/src/(github\\.com/google/go-cmp)/[^/]+$'");
    expect(deps).toContain('cannot be had offline');
    expect(deps).toContain('export GO111MODULE=off');
    expect(deps).toContain('export GOPATH="$PWD/.buildbench/go:/usr/share/gocode"');
    const vendored = recipesOf({ ...ECOS.go!, manifests: ['go.mod', 'vendor/modules.txt'] }, 'auto');
    expect(vendored.map((r) => r.id)).toEqual(['deploy:go:vendor']);
    expect(vendored[0]!.steps[0]!.command).toContain('export GOFLAGS=-mod=vendor');
    const stdlib = recipesOf({ ...ECOS.go!, dependencies: [] }, 'offline');
    expect(stdlib[0]!.steps[0]!.command).toContain('export GOPROXY=off');
    expect(stdlib[0]!.steps[0]!.command).not.toContain('GO111MODULE');
  });

  it('Java offline: mvn -o over /usr/share/maven-repo, artifacts and lifecycle plugins looked up; CLASSPATH exported', () => {
    const [offline] = recipesOf(ECOS.java!, 'offline');
    const [deps, build] = offline!.steps.map((s) => s.command);
    expect(deps).toContain('<localRepository>/usr/share/maven-repo</localRepository><offline>true</offline>');
    expect(deps).toContain('org.apache.commons:commons-lang3=org/apache/commons/commons-lang3');
    expect(deps).toContain('org/apache/maven/plugins/maven-compiler-plugin');
    expect(build).toContain('mvn -B -o -s .buildbench/maven/settings.xml package -DskipTests');
    expect(build).toContain('build-classpath');
    expect(build).toContain("printf 'export %s=%q\\n' CLASSPATH");
    expect(offline!.evidence).toMatch(/Java 11/);
    expect(recipesOf(ECOS.java!, 'auto').map((r) => r.id)).toEqual([
      'deploy:java:maven',
      'deploy:java:maven-debian',
      'deploy:java:javac',
    ]);
    expect(recipesOf(ECOS.java!, 'online').map((r) => r.id)).toEqual(['deploy:java:maven']);
    const javac = recipesOf(ECOS.java!, 'offline')[1]!;
    expect(javac.id).toBe('deploy:java:javac');
    const [javacDeps, javacBuild] = javac.steps.map((s) => s.command);
    expect(javacDeps).toContain('org.apache.commons:commons-lang3=org/apache/commons/commons-lang3');
    expect(javacDeps).not.toContain('maven-compiler-plugin');
    expect(javacBuild).toContain('-d target/classes');
    expect(javacBuild).toContain('/usr/share/java');
    expect(javacBuild).not.toContain('mvn ');
    const gradle = recipesOf(ECOS.gradle!, 'offline')[0]!;
    expect(gradle.steps[0]!.command).toContain(
      'gradle --no-daemon --offline -I .buildbench/gradle/debian-repo.gradle',
    );
    expect(gradle.evidence).toMatch(/4\.4\.1/);
  });

  it('Haskell, Lua, Racket and Fortran map their dependencies to the distribution', () => {
    expect(recipesOf(ECOS.haskell!, 'offline')[0]!.steps[0]!.command).toContain(
      'for bb_p in libghc-vector-dev;',
    );
    expect(recipesOf(ECOS.haskell!, 'offline')[0]!.steps[0]!.command).not.toContain('libghc-base-dev');
    const lua = recipesOf(ECOS.lua!, 'offline')[0]!;
    expect(lua.tools).toEqual([{ command: 'lua5.4', pkg: 'lua5.4' }]);
    expect(lua.steps[0]!.command).toContain('luafilesystem=lua-filesystem,lua-luafilesystem');
    expect(recipesOf(ECOS.racket!, 'offline')[0]!.steps[0]!.command).toContain('catalog is off');
    const fortran = recipesOf(ECOS.fortran!, 'auto')[0]!;
    expect(fortran.steps[0]!.command).toContain("apt-file search -x '/(netcdf)\\.mod$'");
    expect(fortran.steps[1]!.command).toBe('make -C . -j"$(nproc)"');
  });

  it('name rules', () => {
    expect(debianCratePackages('serde_json', '^1.0.100')).toEqual([
      'librust-serde-json-dev',
      'librust-serde-json-1-dev',
    ]);
    expect(debianCratePackages('nom', '0.7')).toEqual(['librust-nom-dev', 'librust-nom-0.7-dev']);
    expect(debianCratePackages('Inflector')).toEqual(['librust-inflector-dev']);
    expect(moduleAlternation(['gopkg.in/yaml.v3', 'a/b+c'])).toBe('gopkg\\.in/yaml\\.v3|a/b\\+c');
    expect(mavenPath('org.apache.commons:commons-lang3')).toBe('org/apache/commons/commons-lang3');
    expect(luaVersion('>= 5.1')).toBe('5.4');
    expect(luaVersion('>= 5.1, < 5.4')).toBe('5.3');
    expect(luaVersion('~> 5.1')).toBe('5.1');
    expect(debianLuaPackages('lpeg')).toEqual(['lua-lpeg']);
    expect(debianHaskellPackage('QuickCheck')).toBe('libghc-quickcheck-dev');
  });
});
