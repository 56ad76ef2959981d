/**
 * The repair rules for cargo, go, Maven and javac failures (rules/deploy-langs.ts), on log lines through the
 * real signature catalog, with a fake package index: a registry unreachable in an `auto` deploy switches to
 * the offline setup; what Debian's repository lacks is looked up by the path its layout gives; a lock pinning
 * versions the offline source lacks is regenerated; a dropped Java release is raised in the build files.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
