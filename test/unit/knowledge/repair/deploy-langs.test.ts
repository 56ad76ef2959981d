/**
 * The repair rules for cargo, go, Maven, R and javac failures (rules/deploy-langs.ts), on log lines through the
 * real signature catalog, with a fake package index: a registry unreachable in an `auto` deploy switches to
 * the offline setup; what Debian's repository lacks is looked up by the path its layout gives; a lock pinning
 * versions the offline source lacks is regenerated; a dropped Java release is raised in the build files.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deployRecipes } from '../../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../../src/deploy/types.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import type { Need } from '../../../../src/knowledge/repair/needs.js';
import type { RepairInput, StrategyServices } from '../../../../src/knowledge/repair/repair.js';
import { raiseReleaseSed } from '../../../../src/knowledge/repair/rules/deploy-langs.js';
import { RuleKnowledge } from '../../../../src/knowledge/repair/rules/index.js';
import { emptyFixes, type Recipe } from '../../../../src/recipe/model.js';
import type { EcosystemInfo } from '../../../../src/repo/types.js';
import { repoInfo } from '../../../fakes/repo-info.js';

const INDEX: Record<string, string> = {
  'file:/usr/share/doc/librust-serde-json-dev/copyright': 'librust-serde-json-dev',
  'file:/usr/share/maven-repo/org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.pom':
    'libcommons-math3-java',
  // bookworm packages maven-compiler-plugin 3.10.1 only
  'file:/usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin/3.10.1/maven-compiler-plugin-3.10.1.pom':
    'libmaven-compiler-plugin-java',
  'pkgconfig:openssl': 'libssl-dev',
  'file:/usr/lib/R/site-library/limma/DESCRIPTION': 'r-bioc-limma',
  'file:/usr/lib/R/site-library/Biobase/DESCRIPTION': 'r-bioc-biobase',
};

function services(asked: Need[][] = []): StrategyServices {
  return {
    resolvePackages: (needs) => {
      asked.push(needs);
      return Promise.resolve(
        needs.map((need) => {
          const pkg = INDEX[`${need.kind}:${need.name}`];
          return {
            need,
            package: pkg,
            candidates: pkg ? [pkg] : [],
            via: pkg ? ('apt-file' as const) : ('none' as const),
          };
        }),
      );
    },
  };
}

const RUST: EcosystemInfo = {
  kind: 'rust',
  manifests: ['Cargo.toml', 'Cargo.lock'],
  dependencies: [{ name: 'itoa', constraint: '1', manifest: 'Cargo.toml' }],
  notes: [],
};
const R: EcosystemInfo = {
  kind: 'r',
  manifests: [],
  dependencies: [{ name: 'limma', manifest: 'de.R' }],
  notes: [],
};
const JAVA: EcosystemInfo = {
  kind: 'java',
  manifests: ['pom.xml'],
  dependencies: [{ name: 'org.apache.commons:commons-math3', constraint: '3.6.1', manifest: 'pom.xml' }],
  notes: [],
};

function goal(mode: DeployGoal['registries']['mode']): DeployGoal {
  return {
    target: { command: './x', cwd: '', timeoutMs: 1000, evidence: {} },
    requires: [],
    registries: { mode, mirrors: {} },
  };
}

function input(
  log: string,
  eco: EcosystemInfo,
  mode: DeployGoal['registries']['mode'],
  which = 0,
): RepairInput {
  const analysis = analyzeLog(log);
  if (!analysis.rootCause) throw new Error(`no root cause in: ${log}`);
  const repo = repoInfo({ root: '/nonexistent', ecosystems: [eco] });
  const recipe: Recipe = deployRecipes(repo, goal(mode))[which]!;
  return {
    rootCause: analysis.rootCause,
    findings: analysis.findings,
    recipe,
    fixes: emptyFixes(),
    repo,
    output: log,
    goal: goal(mode),
  };
}

const knowledge = new RuleKnowledge();

describe('deploy repair rules for cargo, go, Maven and javac', () => {
  it('a Maven registry unreachable in an auto deploy: the offline (Debian) setup', async () => {
    const log =
      '[ERROR] Could not transfer artifact org.apache.commons:commons-math3:pom:3.6.1 from/to central (https://repo.maven.apache.org/maven2): transfer failed';
    const [repair] = await knowledge.propose(input(log, JAVA, 'auto'), services());
    expect(repair?.rule).toBe('deploy-offline-setup');
    expect(repair?.recipe?.id).toBe('deploy:java:maven-debian');
    expect(repair?.reason).toMatch(/registry is unreachable/);
    // The plugin line Maven prints first when central is unreachable leads to the same switch.
    const plugin =
      '[ERROR] Plugin org.apache.maven.plugins:maven-resources-plugin:2.6 or one of its dependencies could not be resolved: Failed to read artifact descriptor';
    const [viaPlugin] = await knowledge.propose(input(plugin, JAVA, 'auto'), services());
    expect(viaPlugin?.recipe?.id).toBe('deploy:java:maven-debian');
    // Offline already (or online only): nothing to switch to.
    expect(await knowledge.propose(input(log, JAVA, 'online'), services())).toEqual([]);
  });

  it('an artifact Debian has, missing offline: the package shipping the version Maven asks for', async () => {
    const asked: Need[][] = [];
    const log =
      '[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project org.example:x:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.apache.commons:commons-math3:jar:3.6.1 has not been downloaded from it before.';
    const [repair] = await knowledge.propose(input(log, JAVA, 'offline'), services(asked));
    expect(repair).toMatchObject({
      rule: 'install-maven-artifact-package',
      packages: ['libcommons-math3-java'],
    });
    expect(asked[0]).toEqual([
      {
        kind: 'file',
        name: '/usr/share/maven-repo/org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.pom',
      },
    ]);
  });

  it('a version Debian does not package (a pinned plugin, a dependency): no package is installed in vain', async () => {
    // bookworm's Maven, offline over /usr/share/maven-repo, with a POM pinning maven-compiler-plugin 3.13.0
    const plugin =
      '[ERROR] Plugin org.apache.maven.plugins:maven-compiler-plugin:3.13.0 or one of its dependencies could not be resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.apache.maven.plugins:maven-compiler-plugin:jar:3.13.0 has not been downloaded from it before. -> [Help 1]';
    const asked: Need[][] = [];
    expect(await knowledge.propose(input(plugin, JAVA, 'offline'), services(asked))).toEqual([]);
    expect(asked.flat().map((n) => n.name)).toEqual([
      '/usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin/3.13.0/maven-compiler-plugin-3.13.0.pom',
    ]);
    // the version Debian has is installed when missing
    const packaged = plugin.replaceAll('3.13.0', '3.10.1');
    const [repair] = await knowledge.propose(input(packaged, JAVA, 'offline'), services());
    expect(repair).toMatchObject({ packages: ['libmaven-compiler-plugin-java'] });
    // a dependency pinned at another version than Debian's 3.6.1
    const dependency =
      '[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project org.example:x:jar:1.0: Could not find artifact org.apache.commons:commons-math3:jar:3.5 in central (https://repo.maven.apache.org/maven2)';
    expect(await knowledge.propose(input(dependency, JAVA, 'offline'), services())).toEqual([]);
  });

  it('a crate missing from the Debian source: its librust-*-dev package; none is made up', async () => {
    const asked: Need[][] = [];
    const log = 'error: no matching package named `serde_json` found';
    const [repair] = await knowledge.propose(input(log, RUST, 'offline'), services(asked));
    expect(repair).toMatchObject({ rule: 'install-crate-package', packages: ['librust-serde-json-dev'] });
    expect(asked[0]).toEqual([{ kind: 'file', name: '/usr/share/doc/librust-serde-json-dev/copyright' }]);
    const none = await knowledge.propose(
      input('error: no matching package named `acme_sdk` found', RUST, 'offline'),
      services(),
    );
    expect(none).toEqual([]);
  });

  it("an R package the setup's r-cran-<name> guess missed: the package that ships its DESCRIPTION (Bioconductor's r-bioc-*)", async () => {
    const asked: Need[][] = [];
    const log = 'Error in library(limma) : there is no package called ‘limma’\nExecution halted';
    const [repair] = await knowledge.propose(input(log, R, 'offline'), services(asked));
    expect(repair).toMatchObject({ rule: 'install-r-package', packages: ['r-bioc-limma'] });
    expect(repair?.reason).toMatch(/^R package limma is not installed; .*r-bioc-\* for Bioconductor/);
    expect(asked[0]).toEqual([{ kind: 'file', name: '/usr/lib/R/site-library/limma/DESCRIPTION' }]);
    // the name as R spells it (a package's directory is case-sensitive), whichever package loads it
    const dependency =
      "Error: package or namespace load failed for 'affy' in loadNamespace(i, c(lib.loc, .libPaths()), versionCheck = vI[[i]]): there is no package called 'Biobase'";
    const [viaDependency] = await knowledge.propose(input(dependency, R, 'auto'), services());
    expect(viaDependency).toMatchObject({ rule: 'install-r-package', packages: ['r-bioc-biobase'] });
    // a package Debian does not ship: nothing is made up
    const none = "Error in library(acmeR) : there is no package called 'acmeR'";
    expect(await knowledge.propose(input(none, R, 'offline'), services())).toEqual([]);
  });

  it('Cargo.lock pinning a version the Debian source lacks: the lock regenerated, the original kept, as a patch', async () => {
    const log = 'error: failed to select a version for the requirement `itoa = "=1.0.11"`';
    const [repair] = await knowledge.propose(input(log, RUST, 'offline'), services());
    expect(repair?.rule).toBe('regenerate-cargo-lock');
    expect(repair?.prelude?.[0]).toContain("mv 'Cargo.lock' .buildbench/deploy/Cargo.lock.orig");
    expect(repair?.patches?.[0]?.reason).toMatch(/Debian's versions, not the pinned ones/);
    // A requirement of Cargo.toml itself is not relaxed behind the user's back.
    expect(
      await knowledge.propose(
        input('error: failed to select a version for the requirement `itoa = "^1.0.11"`', RUST, 'offline'),
        services(),
      ),
    ).toEqual([]);
  });

  it('the same pin as bookworm\'s cargo 0.66 prints it, "^1" (locked to 1.0.11), also after an auto setup fell back', async () => {
    // The lines the rootfs sandbox printed for tasks/deploy-fixtures/rust-locked-offline (registries auto).
    const log = [
      '    Updating crates.io index',
      'error: Unable to update registry `crates-io`',
      'Caused by:',
      '  failed to fetch `https://github.com/rust-lang/crates.io-index`',
      "buildbench: the crate registry is unreachable: falling back to Debian's librust-*-dev crates",
      'buildbench: crate itoa -> Debian package librust-itoa-dev',
      '### buildbench: build',
      'error: failed to select a version for the requirement `itoa = "^1"` (locked to 1.0.11)',
      "candidate versions found which didn't match: 1.0.1",
      'location searched: directory source `/usr/share/cargo/registry` (which is replacing registry `crates-io`)',
      'required by package `collatz-record v0.1.0 (/workspace)`',
    ].join('\n');
    const auto = input(log, RUST, 'auto');
    // The registry's failure was answered by the fallback: the lock is what stopped the build.
    expect(auto.rootCause).toMatchObject({
      id: 'cargo-version-not-selected',
      captures: { crate: 'itoa', requirement: '^1', locked: '1.0.11' },
    });
    expect(auto.recipe.id).toBe('deploy:rust:auto');
    const [repair] = await knowledge.propose(auto, services());
    expect(repair?.rule).toBe('regenerate-cargo-lock');
    expect(repair?.reason).toMatch(/no version of crate itoa matches \^1, locked to 1\.0\.11/);
    // The same lines from the registry itself (no directory source of Debian's): nothing to regenerate against.
    const registryOnly = log.replace(/location searched: .*/, 'location searched: crates.io index');
    expect(await knowledge.propose(input(registryOnly, RUST, 'online'), services())).toEqual([]);
    // Offline from the start: the same repair.
    const offline = log.split('\n').slice(7).join('\n');
    expect((await knowledge.propose(input(offline, RUST, 'offline'), services()))[0]?.rule).toBe(
      'regenerate-cargo-lock',
    );
  });

  it("a -sys crate's build script needing a system library: the package of its pkg-config module", async () => {
    const log = '  The system library `openssl` required by crate `openssl-sys` was not found.';
    const [repair] = await knowledge.propose(input(log, RUST, 'offline'), services());
    expect(repair).toMatchObject({
      rule: 'install-pkgconfig-package',
      packages: ['libssl-dev', 'pkg-config'],
    });
  });

  it('a Java release the JDK dropped: source/target raised to 8 in the build files, as a patch with its reason', async () => {
    const [repair] = await knowledge.propose(
      input('[ERROR] Source option 6 is no longer supported. Use 7 or later.', JAVA, 'offline'),
      services(),
    );
    expect(repair?.rule).toBe('raise-java-release');
    expect(repair?.reason).toMatch(/JDK 12 dropped 6/);
    expect(repair?.patches).toHaveLength(1);
  });

  it('the raising sed programs change only dropped releases', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-raise-'));
    const pom = path.join(dir, 'pom.xml');
    writeFileSync(
      pom,
      '<maven.compiler.source>1.6</maven.compiler.source>\n<maven.compiler.target>6</maven.compiler.target>\n<source>1.60</source>\n<release>17</release>\n',
    );
    const gradle = path.join(dir, 'build.gradle');
    writeFileSync(
      gradle,
      "sourceCompatibility = 1.6\ntargetCompatibility = '1.6'\nsourceCompatibility = JavaVersion.VERSION_1_6\nx = 1.6\n",
    );
    const sed = raiseReleaseSed('1.6');
    expect(spawnSync('sed', ['-i', '-E', sed.pom, pom]).status).toBe(0);
    expect(spawnSync('sed', ['-i', '-E', sed.gradle, gradle]).status).toBe(0);
    expect(readFileSync(pom, 'utf8')).toBe(
      '<maven.compiler.source>8</maven.compiler.source>\n<maven.compiler.target>8</maven.compiler.target>\n<source>1.60</source>\n<release>17</release>\n',
    );
    expect(readFileSync(gradle, 'utf8')).toBe(
      'sourceCompatibility = JavaVersion.VERSION_1_8\ntargetCompatibility = JavaVersion.VERSION_1_8\nsourceCompatibility = JavaVersion.VERSION_1_8\nx = 1.6\n',
    );
  });

  it("the JDK's container support failing on the host's cgroups: the JVMs run without it", async () => {
    const log = [
      '* What went wrong:',
      "A problem occurred evaluating root project 'workspace'.",
      "> Failed to apply plugin [class 'org.gradle.api.plugins.JavaBasePlugin']",
      "   > Could not create plugin of type 'JavaBasePlugin'.",
      '      > Could not create service of type MemoryManager using GlobalScopeServices.createMemoryManager().',
    ].join('\n');
    const analysis = analyzeLog(log);
    expect(analysis.rootCause?.id).toBe('jdk-container-metrics-failed');
    expect(analysis.rootCause?.message).toBe(
      "the JDK's container support cannot read this machine's cgroups: Gradle cannot create its MemoryManager",
    );
    const [repair] = await knowledge.propose(input(log, JAVA, 'offline'), services());
    expect(repair).toMatchObject({
      rule: 'jvm-without-container-support',
      env: { JAVA_TOOL_OPTIONS: '-XX:-UseContainerSupport' },
    });
    expect(repair?.packages).toBeUndefined();
  });

  it('a release newer than the JDK: a JDK of that release only when the distribution has one', async () => {
    const log = '[ERROR] Fatal error compiling: error: release version 21 not supported';
    expect(await knowledge.propose(input(log, JAVA, 'offline'), services())).toEqual([]);
  });
});

describe("cargo: a rust-version newer than the distribution's rustc (issue 29)", () => {
  /** A workspace: the root package, a member inheriting the workspace's rust-version, a vendored crate. */
  function workspace(): { root: string; eco: EcosystemInfo } {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-rust-version-'));
    const files: Record<string, string> = {
      'Cargo.toml':
        '[package]\nname = "circle-lattice"\nversion = "0.2.0"\nrust-version = "1.74" # the authors\' toolchain\n\n[workspace]\nmembers = ["stats"]\n\n[workspace.package]\nrust-version = "1.74"\n\n[dependencies]\nitoa = "1"\n',
      'stats/Cargo.toml': '[package]\nname = "stats"\nversion = "0.1.0"\nrust-version.workspace = true\n',
      'vendor/itoa/Cargo.toml': '[package]\nname = "itoa"\nrust-version = "1.36"\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    // as the detector lists them: vendored trees left out
    const eco: EcosystemInfo = { ...RUST, manifests: ['Cargo.toml', 'stats/Cargo.toml'] };
    return { root, eco };
  }

  function inputIn(root: string, eco: EcosystemInfo, log: string): RepairInput {
    const base = input(log, eco, 'offline');
    return { ...base, repo: { ...base.repo, root } };
  }

  it("bookworm's cargo 0.66 on the workspace's own package: the declarations commented out, as a patch", async () => {
    const { root, eco } = workspace();
    // the line the rootfs sandbox printed for tasks/deploy-fixtures/rust-version-newer
    const log =
      'error: package `circle-lattice v0.2.0 (/workspace)` cannot be built because it requires rustc 1.74 or newer, while the currently active rustc version is 1.63.0';
    const [repair, ...more] = await knowledge.propose(inputIn(root, eco, log), services());
    expect(more).toEqual([]);
    expect(repair?.rule).toBe('ignore-rust-version');
    expect(repair?.reason).toMatch(
      /circle-lattice declares rust-version 1\.74, newer than the rustc 1\.63\.0 that builds it: the build goes on with rustc 1\.63\.0, older than .* the target and the verifier decide/,
    );
    expect(repair?.patches?.[0]?.file).toBe('Cargo.toml, stats/Cargo.toml');
    // The prelude, run: every declaration of the workspace's manifests set aside, the vendored crate untouched.
    const run = spawnSync('bash', ['-c', repair!.prelude!.join('\n')], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('buildbench: rust-version set aside in stats/Cargo.toml');
    const top = readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
    expect(top).toContain(
      '# rust-version = "1.74" # the authors\' toolchain  # buildbench: rustc 1.63.0 is older; cargo --ignore-rust-version\n',
    );
    expect(top.match(/^\s*rust-version/gm)).toBeNull();
    expect(readFileSync(path.join(root, 'stats/Cargo.toml'), 'utf8')).toMatch(
      /^# rust-version\.workspace = true /m,
    );
    expect(readFileSync(path.join(root, 'vendor/itoa/Cargo.toml'), 'utf8')).toContain(
      '\nrust-version = "1.36"',
    );
    // Run again: nothing left to set aside, nothing changes.
    const again = spawnSync('bash', ['-c', repair!.prelude!.join('\n')], { cwd: root, encoding: 'utf8' });
    expect(again.stdout).toBe('');
    expect(readFileSync(path.join(root, 'Cargo.toml'), 'utf8')).toBe(top);
  });

  it("newer cargo's list form, read with the line above it; a registry crate is not the repository's to change", async () => {
    const { root, eco } = workspace();
    const list = [
      'error: rustc 1.70.0 is not supported by the following packages:',
      '  circle-lattice@0.2.0 requires rustc 1.74',
      '  stats@0.1.0 requires rustc 1.74',
    ].join('\n');
    const own = inputIn(root, eco, list);
    expect(own.rootCause).toMatchObject({
      id: 'cargo-rust-version-unsupported',
      captures: { package: 'circle-lattice', required: '1.74', current: '1.70.0' },
    });
    expect((await knowledge.propose(own, services()))[0]?.rule).toBe('ignore-rust-version');
    // A dependency: an older release of it is the fix, not the repository's manifests.
    const dep =
      'error: rustc 1.70.0 is not supported by the following package:\n  clap@4.5.4 requires rustc 1.74';
    expect(await knowledge.propose(inputIn(root, eco, dep), services())).toEqual([]);
    const old =
      'error: package `clap v4.5.4` cannot be built because it requires rustc 1.74 or newer, while the currently active rustc version is 1.63.0';
    expect(await knowledge.propose(inputIn(root, eco, old), services())).toEqual([]);
    // No Cargo.toml of the repository names the package: nothing to set aside.
    const elsewhere = old.replace('`clap v4.5.4`', '`other v1.0.0 (/src/other)`');
    expect(await knowledge.propose(inputIn(root, eco, elsewhere), services())).toEqual([]);
  });
});

describe('npm: a lockfile whose resolved URLs point at another registry (issue 29)', () => {
  const JS: EcosystemInfo = {
    kind: 'javascript',
    manifests: ['package.json', 'package-lock.json'],
    dependencies: [{ name: 'simple-statistics', constraint: '7.8.3', manifest: 'package.json' }],
    notes: [],
  };
  const forbidden =
    'npm ERR! 403 403 Forbidden - GET https://npm.corp.example/simple-statistics/-/simple-statistics-7.8.3.tgz';

  it('keeps the lock and fetches from the configured registry (replace-registry-host=always)', async () => {
    const [repair] = await knowledge.propose(input(forbidden, JS, 'auto'), services());
    expect(repair).toMatchObject({
      rule: 'npm-lockfile-registry-host',
      env: { npm_config_replace_registry_host: 'always' },
    });
    expect(repair?.reason).toContain(
      'point at npm.corp.example, not at the configured registry registry.npmjs.org',
    );
    const refused =
      'npm error network request to https://npm.corp.example/ms/-/ms-2.1.3.tgz failed, reason: getaddrinfo ENOTFOUND npm.corp.example';
    expect((await knowledge.propose(input(refused, JS, 'online'), services()))[0]?.rule).toBe(
      'npm-lockfile-registry-host',
    );
  });

  it('proposes nothing when the failing host is the configured registry, or there is no lockfile', async () => {
    const registryDown =
      'npm ERR! network request to https://registry.npmjs.org/ms failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org';
    const down = await knowledge.propose(input(registryDown, JS, 'online'), services());
    expect(down.map((r) => r.rule)).not.toContain('npm-lockfile-registry-host');
    const noLock = { ...JS, manifests: ['package.json'] };
    const none = await knowledge.propose(input(forbidden, noLock, 'online'), services());
    expect(none.map((r) => r.rule)).not.toContain('npm-lockfile-registry-host');
  });

  it('a mirror the user configured is the registry: its host is the one kept', async () => {
    const withMirror = input(forbidden.replace('npm.corp.example', 'npm.mirror.example'), JS, 'online');
    withMirror.goal = {
      ...withMirror.goal!,
      registries: { mode: 'online', mirrors: { npm_config_registry: 'https://npm.mirror.example/' } },
    };
    const mirrored = await knowledge.propose(withMirror, services());
    expect(mirrored.map((r) => r.rule)).not.toContain('npm-lockfile-registry-host');
  });
});

describe("Node >= 17 and OpenSSL 3's legacy provider (issue 29)", () => {
  const JS: EcosystemInfo = {
    kind: 'javascript',
    manifests: ['package.json'],
    dependencies: [],
    notes: [],
  };
  // What bookworm's Node 18 prints when code written for Node <= 16 hashes with MD4.
  const crash = [
    '### buildbench: the target experiment: node fingerprint.js',
    'node:internal/crypto/hash:69',
    '  this[kHandle] = new _Hash(algorithm, xofLen);',
    '                  ^',
    '',
    'Error: error:0308010C:digital envelope routines::unsupported',
    '    at new Hash (node:internal/crypto/hash:69:19)',
    '    at Object.createHash (node:crypto:133:10)',
    '    at fingerprint (/workspace/fingerprint.js:17:38)',
    '    at node:internal/main/run_main_module:28:49 {',
    "  opensslErrorStack: [ 'error:03000086:digital envelope routines::initialization error' ],",
    "  library: 'digital envelope routines',",
    "  reason: 'unsupported',",
    "  code: 'ERR_OSSL_EVP_UNSUPPORTED'",
    '}',
    '',
    'Node.js v18.20.4',
  ].join('\n');

  it('a deploy: NODE_OPTIONS=--openssl-legacy-provider for the script, and in the deploy environment file', async () => {
    const got = input(crash, JS, 'auto');
    expect(got.rootCause.id).toBe('openssl3-legacy-algorithm');
    const [repair] = await knowledge.propose(got, services());
    expect(repair).toMatchObject({
      rule: 'openssl-legacy-provider',
      env: { NODE_OPTIONS: '--openssl-legacy-provider' },
    });
    expect(repair?.reason).toContain('OpenSSL 3 does not offer this hash or cipher by default');
    expect(repair?.reason).toContain('the export also goes to .buildbench/deploy-env.sh');
    expect(repair?.prelude).toHaveLength(1);

    // The prelude, run twice, writes one line; sourced, it keeps options set before it.
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-openssl-legacy-'));
    for (let i = 0; i < 2; i++)
      expect(spawnSync('bash', ['--norc', '-euc', repair!.prelude![0]!], { cwd: dir }).status).toBe(0);
    const envFile = readFileSync(path.join(dir, '.buildbench', 'deploy-env.sh'), 'utf8');
    expect(envFile.match(/openssl-legacy-provider/g)).toHaveLength(1);
    const sourced = (pre: string): string =>
      spawnSync('bash', ['--norc', '-euc', `${pre}. .buildbench/deploy-env.sh; printf %s "$NODE_OPTIONS"`], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      }).stdout;
    expect(sourced('')).toBe('--openssl-legacy-provider');
    expect(sourced('export NODE_OPTIONS=--max-old-space-size=2048; ')).toBe(
      '--openssl-legacy-provider --max-old-space-size=2048',
    );
  });

  it('the switch makes MD4 work again in this Node (OpenSSL 3), with the digest RFC 1320 gives', () => {
    const md4 = "console.log(require('crypto').createHash('md4').update('abc').digest('hex'))";
    const env = { ...process.env, NODE_OPTIONS: '' };
    const without = spawnSync(process.execPath, ['-e', md4], { encoding: 'utf8', env });
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain('ERR_OSSL_EVP_UNSUPPORTED');
    const withProvider = spawnSync(process.execPath, ['-e', md4], {
      encoding: 'utf8',
      env: { ...env, NODE_OPTIONS: '--openssl-legacy-provider' },
    });
    expect(withProvider.stderr).toBe('');
    // RFC 1320's test vector: MD4("abc")
    expect(withProvider.stdout.trim()).toBe('a448017aaf21d8525fc10ae87aa6729d');
  });

  it('a build (no deploy goal): the variable only; options set by an earlier repair are kept', async () => {
    const build = input(crash, JS, 'auto');
    delete build.goal;
    const [repair] = await knowledge.propose(build, services());
    expect(repair?.env).toEqual({ NODE_OPTIONS: '--openssl-legacy-provider' });
    expect(repair?.prelude).toBeUndefined();
    build.fixes = { ...build.fixes, env: { NODE_OPTIONS: '--max-old-space-size=4096' } };
    const [kept] = await knowledge.propose(build, services());
    expect(kept?.env).toEqual({ NODE_OPTIONS: '--max-old-space-size=4096 --openssl-legacy-provider' });
  });

  it('proposes nothing when Node did not print the error, or the provider is already loaded', async () => {
    const openssl =
      '40F7A6E3F07F0000:error:0308010C:digital envelope routines:inner_evp_generic_fetch:unsupported:../crypto/evp/evp_fetch.c:349:Global default library context, Algorithm (MD4 : 0), Properties ()';
    const cli = input(openssl, JS, 'auto');
    expect(cli.rootCause.id).toBe('openssl3-legacy-algorithm');
    expect((await knowledge.propose(cli, services())).map((r) => r.rule)).not.toContain(
      'openssl-legacy-provider',
    );
    const loaded = input(crash, JS, 'auto');
    loaded.fixes = { ...loaded.fixes, env: { NODE_OPTIONS: '--openssl-legacy-provider' } };
    expect(await knowledge.propose(loaded, services())).toEqual([]);
  });
});
