/**
 * Rules for the language package managers of a deploy run (cargo, go, Maven, R) and for javac's supported
 * releases. The registry unreachable during a deploy whose registries are `auto` → the setup's offline way
 * (the distribution's packages); something missing from the distribution's repository → the package that
 * ships it, looked up in the package index by the path Debian's layout gives it (a crate's
 * `/usr/share/doc/librust-<crate>-dev/copyright`, a Maven artifact's
 * `/usr/share/maven-repo/<group path>/<artifact>/<version>/<artifact>-<version>.pom` for the exact version Maven
 * asks for: none when Debian packages only another one; an R package's `/usr/lib/R/site-library/<name>/DESCRIPTION`,
 * which finds Bioconductor's r-bioc-* packages that the R setup's r-cran-<name> guess misses); a Cargo.lock
 * pinning versions the offline source lacks → a lock regenerated against it (the original kept); a
 * `rust-version` of the repository's own newer than the rustc there → the declaration set aside (cargo's
 * --ignore-rust-version, a patch; the verifier decides whether the code needs more); a -sys crate's build script
 * needing a system library → its pkg-config module's package; a Java release the JDK dropped → source/target
 * raised (a patch with its reason); a release newer than the JDK → that JDK when the distribution has one; the
 * JDK's container support failing on the host's cgroups (Gradle cannot create its MemoryManager) → the JVMs
 * without it; a hash or cipher Node >= 17's OpenSSL 3 keeps in its legacy provider → Node's
 * --openssl-legacy-provider (a build's too: webpack 4 hashes with MD4). (Measured in the sandbox: bookworm's
 * packaged Maven builds a `maven.compiler.source` 1.6 project on JDK 17, printing "Use of source 1.6 is no longer
 * supported, switching to 7", while javac and Gradle refuse it; so the release repair answers javac, Gradle and
 * an upstream Maven.)
 */
import { escapeRegex } from '../../../base/escape-regex.js';
import { readFileUnder } from '../../../base/safe-fs.js';
import { shq } from '../../../base/shell.js';
import { DEBIAN_CARGO_REGISTRY } from '../../../deploy/recipes/rust.js';
import { DEPLOY_RECORD_DIR } from '../../../deploy/recipes/setup-shell.js';
import { DEPLOY_ENV_FILE } from '../../../deploy/types.js';
import type { Finding } from '../../diagnose/types.js';
import type { Repair, RepairInput, StrategyServices } from '../repair.js';
import { cap, installFor, type Rule } from './rule.js';

/** npm's default registry: what a lockfile's URLs are fetched from when no mirror is configured. */
const NPM_REGISTRY = 'https://registry.npmjs.org/';

/** Node's switch (Node >= 17, built with OpenSSL 3) that loads OpenSSL's legacy provider (MD4, DES, RC4, …). */
export const OPENSSL_LEGACY_PROVIDER = '--openssl-legacy-provider';

/**
 * Node wrote the OpenSSL error: the error's code, one of its internal stack frames or the version line it prints
 * after an uncaught exception (the openssl command and other runtimes print the same OpenSSL error, and
 * NODE_OPTIONS cannot help them).
 */
const NODE_EVIDENCE = /ERR_OSSL_EVP_UNSUPPORTED|\(node:internal\/|^Node\.js v\d+/m;

/**
 * A hash or cipher OpenSSL 3 moved to its legacy provider, used from Node >= 17: NODE_OPTIONS gets
 * --openssl-legacy-provider for the turn's script (a build's `npm run build`, a deploy's setup and target), and
 * a deploy's environment file gets the same line, so the target run by hand and the verifier's checks see it.
 * The algorithm stays (the digests a paper published stay the same).
 */
function openSslLegacyProvider(f: Finding, input: RepairInput): Repair[] {
  if (!NODE_EVIDENCE.test(input.output)) return [];
  const before = input.fixes.env.NODE_OPTIONS;
  if (before?.split(/\s+/).includes(OPENSSL_LEGACY_PROVIDER)) return [];
  const exportLine = `export NODE_OPTIONS="${OPENSSL_LEGACY_PROVIDER}\${NODE_OPTIONS:+ $NODE_OPTIONS}"`;
  return [
    {
      rule: 'openssl-legacy-provider',
      key: `env:NODE_OPTIONS${OPENSSL_LEGACY_PROVIDER}`,
      reason: `${f.message}: Node >= 17 links OpenSSL 3, whose default provider no longer offers MD4 and the other old algorithms; Node's ${OPENSSL_LEGACY_PROVIDER} (NODE_OPTIONS) loads the legacy provider that has them, so the code runs unchanged with the same algorithm${input.goal ? ` (the export also goes to ${DEPLOY_ENV_FILE}, for the target and its checks)` : ''}`,
      env: { NODE_OPTIONS: before ? `${before} ${OPENSSL_LEGACY_PROVIDER}` : OPENSSL_LEGACY_PROVIDER },
      ...(input.goal
        ? {
            prelude: [
              `mkdir -p "$(dirname ${DEPLOY_ENV_FILE})" && { grep -qs -e ${shq(OPENSSL_LEGACY_PROVIDER)} ${DEPLOY_ENV_FILE} || echo ${shq(exportLine)} >> ${DEPLOY_ENV_FILE}; }`,
            ],
          }
        : {}),
    },
  ];
}

/**
 * The Java release raised to when the JDK dropped the asked one: 8 is the oldest release every JDK from 9 to
 * 21 still compiles for (JDK 9 dropped 1.5 — JEP 182; JDK 12 dropped 6 — JDK-8028563; JDK 20 dropped 7 —
 * JDK-8173605).
 */
export const RAISED_JAVA_RELEASE = '8';

/**
 * A deploy run whose registries may fall back: the setup's offline recipe, when it is not the one running. The
 * setups are imported here, on a deploy run's failure, not with the rules: a diagnosis never loads them (issue 32).
 */
async function offlineSetup(finding: Finding, input: RepairInput): Promise<Repair[]> {
  const goal = input.goal;
  if (!goal || goal.registries.mode !== 'auto') return [];
  const { deployRecipes } = await import('../../../deploy/recipes/index.js');
  const offline = deployRecipes(input.repo, {
    ...goal,
    registries: { ...goal.registries, mode: 'offline' },
  })[0];
  if (!offline || offline.id === input.recipe.id) return [];
  return [
    {
      rule: 'deploy-offline-setup',
      key: `recipe:${offline.id}`,
      reason: `${finding.message}: the registry is unreachable, so the dependencies come from the distribution's packages (${offline.label})`,
      recipe: offline,
    },
  ];
}

/** Installs the package that ships an exact file, when the package index knows one. */
function installShipping(
  rule: string,
  file: string,
  what: string,
  services: StrategyServices,
): Promise<Repair[]> {
  return installFor(rule, [{ kind: 'file', name: file }], what, services);
}

/**
 * Where Debian installs an R package's DESCRIPTION (Debian R Policy: CRAN's r-cran-* and Bioconductor's
 * r-bioc-* packages alike, under the package's own, case-sensitive name); undefined for a name R would not
 * accept.
 */
export function rDescriptionPath(name: string): string | undefined {
  return /^[A-Za-z][A-Za-z0-9.]*$/.test(name) ? `/usr/lib/R/site-library/${name}/DESCRIPTION` : undefined;
}

function crateDocPath(crate: string): string {
  return `/usr/share/doc/librust-${crate.toLowerCase().replaceAll('_', '-')}-dev/copyright`;
}

/** Where maven-repo-helper puts the POM of an artifact's version in Debian's Maven repository. */
function mavenDebianPom(coordinate: string, version: string): string | undefined {
  const [group, artifact] = coordinate.split(':');
  if (!group || !artifact || !/^[\w.-]+$/.test(group) || !/^[\w.-]+$/.test(artifact)) return undefined;
  if (!/^[\w.+-]+$/.test(version)) return undefined;
  return `/usr/share/maven-repo/${group.replaceAll('.', '/')}/${artifact}/${version}/${artifact}-${version}.pom`;
}

/**
 * The Debian package of a Maven artifact, for a deploy run that is offline or already fell back. Maven resolves
 * the exact version it names (a plugin the POM pins, a dependency, a parent), so the package looked up is the one
 * shipping that version's POM; a package of another version (Debian packages one: maven-compiler-plugin 3.10.1
 * on bookworm) cannot satisfy it, so nothing is proposed and the run goes on to the next alternative (building
 * without the build tool).
 */
async function installArtifact(f: Finding, input: RepairInput, s: StrategyServices): Promise<Repair[]> {
  const artifact = cap(f, 'artifact');
  const version = cap(f, 'version');
  const pom = artifact && version ? mavenDebianPom(artifact, version) : undefined;
  const fromDebian = input.recipe.id.includes('debian');
  if (!pom || !fromDebian) return offlineSetup(f, input);
  return installShipping(
    'install-maven-artifact-package',
    pom,
    `${f.message}; Debian's package of ${artifact} ${version} ships it in /usr/share/maven-repo`,
    s,
  );
}

/** The repository's own Cargo.toml files, as the detector listed them (vendored trees and build outputs left out). */
function cargoManifests(input: RepairInput): string[] {
  return (
    (input.repo.ecosystems ?? [])
      .find((e) => e.kind === 'rust')
      ?.manifests.filter((m) => m === 'Cargo.toml' || m.endsWith('/Cargo.toml')) ?? []
  );
}

/** Whether one of those manifests names the package `name` (a `name = "…"` line): a package of the workspace. */
async function ownCargoPackage(
  input: RepairInput,
  manifests: readonly string[],
  name: string,
): Promise<boolean> {
  const line = new RegExp(`^\\s*name\\s*=\\s*"${escapeRegex(name)}"\\s*(?:#.*)?$`, 'm');
  for (const manifest of manifests) {
    try {
      const text = await readFileUnder(input.repo.root, manifest, {
        follow: 'inside',
        maxBytes: 1024 * 1024,
      });
      if (line.test(text.toString('utf8'))) return true;
    } catch {
      // unreadable: not evidence either way
    }
  }
  return false;
}

/**
 * Shell lines that comment out the `rust-version` declarations (`rust-version = "…"`, `rust-version.workspace =
 * true`) of the given Cargo.toml files, each with a note: cargo's `--ignore-rust-version`, kept in the
 * manifests so that every later cargo command (the target, the verifier) builds with the compiler there is.
 */
export function setAsideRustVersionLines(manifests: readonly string[], note: string): string[] {
  const key = '^([[:space:]]*)(rust-version[[:space:]]*(\\.[[:space:]]*workspace[[:space:]]*)?=.*)$';
  return [
    `for bb_f in ${manifests.map(shq).join(' ')}; do`,
    `  if [ -f "$bb_f" ] && grep -Eq ${shq(key)} "$bb_f"; then sed -i -E ${shq(`s/${key}/\\1# \\2  # buildbench: ${note}/`)} "$bb_f"; echo "buildbench: rust-version set aside in $bb_f (${note})"; fi`,
    'done',
  ];
}

/** The sed programs that raise a dropped Java release (`1.5`/`5`, `6`, `1.7`) to RAISED_JAVA_RELEASE. */
export function raiseReleaseSed(release: string): { pom: string; gradle: string } {
  const d = release.replace(/^1\./, '');
  const r = RAISED_JAVA_RELEASE;
  return {
    pom: `s#<((maven\\.compiler\\.)?(source|target|release))>(1\\.)?${d}</#<\\1>${r}</#g`,
    gradle: `s#((source|target)Compatibility[[:space:]]*=?[[:space:]]*)(JavaVersion\\.VERSION_1_${d}|["']?(1\\.)?${d}["']?)([^0-9.'"]|$)#\\1JavaVersion.VERSION_1_${r}\\5#g`,
  };
}

/** Source/target releases the JDK dropped, raised in every pom.xml and Gradle build script. */
function raiseJavaRelease(release: string): Repair {
  const sed = raiseReleaseSed(release);
  const reason = `this JDK no longer compiles for Java ${release} (JDK 9 dropped 1.5, JDK 12 dropped 6, JDK 20 dropped 7); source/target raised to ${RAISED_JAVA_RELEASE}, the oldest release JDK 9-21 all accept`;
  const skip = '-name .buildbench -prune -o -name .git -prune -o';
  return {
    rule: 'raise-java-release',
    key: `java-release:${release}`,
    reason,
    prelude: [
      `find . ${skip} -name pom.xml -print0 | xargs -0 -r sed -i -E ${shq(sed.pom)}`,
      `find . ${skip} \\( -name build.gradle -o -name build.gradle.kts \\) -print0 | xargs -0 -r sed -i -E ${shq(sed.gradle)}`,
    ],
    patches: [{ file: 'pom.xml / build.gradle', reason }],
  };
}

/** HotSpot's switch for its container (cgroup) detection, on by default since JDK 10 and 8u191. */
export const NO_CONTAINER_SUPPORT = '-XX:-UseContainerSupport';

/** The flag GCC 10 added to accept Fortran-77-style argument mismatches again (gfortran's manual). */
export const ALLOW_ARGUMENT_MISMATCH = '-fallow-argument-mismatch';

/**
 * Shell lines that add ALLOW_ARGUMENT_MISMATCH to the Fortran flags of every build file in the tree (a recorded
 * patch): in a Makefile, each FFLAGS/FCFLAGS/F90FLAGS/F77FLAGS assignment and the FC/F77/F90 assignment (rules
 * that call `$(FC)` without the flags see it too), or `FFLAGS +=`/`FCFLAGS +=` lines at its top when it has
 * none (make's implicit rules read them); in a CMakeLists.txt that builds Fortran, an
 * `add_compile_options` for Fortran sources on its first line. Files that have the flag are left alone.
 */
export function allowArgumentMismatchLines(): string[] {
  const f = ALLOW_ARGUMENT_MISMATCH;
  const flags = '(FFLAGS|FCFLAGS|F90FLAGS|F77FLAGS)[[:space:]]*[:+?]?=';
  const compiler = '(FC|F77|F90)[[:space:]]*[:?]?=';
  // an assignment's line, unless it continues on the next one (a trailing backslash)
  const append = (lhs: string): string => `s/^([[:space:]]*${lhs}(.*[^\\\\])?)$/\\1 ${f}/`;
  const skip = '\\( -name .git -o -name .buildbench \\) -prune -o';
  return [
    `find . ${skip} -type f \\( -name Makefile -o -name makefile -o -name GNUmakefile -o -name '*.mk' \\) -print | while IFS= read -r bb_f; do`,
    `  if grep -q -e ${shq(f)} "$bb_f"; then continue; fi`,
    `  if grep -Eq ${shq(`^[[:space:]]*(${flags}|${compiler})`)} "$bb_f"; then sed -i -E -e ${shq(append(flags))} -e ${shq(append(compiler))} "$bb_f"`,
    `  else sed -i ${shq(`1i FFLAGS += ${f}\\nFCFLAGS += ${f}`)} "$bb_f"; fi`,
    `  echo "buildbench: ${f} added to the Fortran flags of $bb_f"`,
    'done',
    `find . ${skip} -type f -name CMakeLists.txt -print | while IFS= read -r bb_f; do`,
    `  if grep -qi fortran "$bb_f" && ! grep -q -e ${shq(f)} "$bb_f"; then sed -i ${shq(`1i add_compile_options("$<$<COMPILE_LANGUAGE:Fortran>:${f}>")`)} "$bb_f"; echo "buildbench: ${f} added to the Fortran flags of $bb_f"; fi`,
    'done',
  ];
}

export const DEPLOY_LANG_RULES: Rule[] = [
  {
    ids: ['cargo-fetch-failed', 'go-module-fetch-failed', 'go-proxy-lookup-failed', 'maven-transfer-failed'],
    needsTree: "a deployment's repair: the deploy recipe switches to the distribution's offline sources",
    propose: (f, input) => offlineSetup(f, input),
  },
  {
    ids: ['cargo-no-matching-package'],
    async propose(f, input, { services: s }) {
      const crate = cap(f, 'crate');
      if (!crate) return [];
      const fallback = await offlineSetup(f, input);
      if (fallback.length > 0 && !input.recipe.id.includes('debian')) return fallback;
      return installShipping(
        'install-crate-package',
        crateDocPath(crate),
        `${f.message}; Debian's librust-${crate.toLowerCase().replaceAll('_', '-')}-dev puts it in /usr/share/cargo/registry`,
        s,
      );
    },
  },
  {
    ids: ['npm-lockfile-host-unreachable'],
    needsTree:
      'the lockfile and the configured npm registry are read from the repository and the deploy settings',
    propose(f, input) {
      const host = cap(f, 'host') ?? cap(f, 'gethost');
      const lock = (input.repo.ecosystems ?? [])
        .find((e) => e.kind === 'javascript')
        ?.manifests.find((m) => /(?:^|\/)(?:package-lock|npm-shrinkwrap)\.json$/.test(m));
      if (!host || !lock || !input.goal) return [];
      const mirrors = input.goal.registries.mirrors;
      const registry = mirrors.npm_config_registry ?? mirrors.NPM_CONFIG_REGISTRY ?? NPM_REGISTRY;
      let registryHost: string;
      try {
        registryHost = new URL(registry).hostname;
      } catch {
        return [];
      }
      // The configured registry itself unreachable is the network's problem (the setups' offline way answers it).
      if (host.toLowerCase() === registryHost.toLowerCase()) return [];
      const reason = `${f.message}: ${lock}'s resolved URLs point at ${host}, not at the configured registry ${registryHost} (a private or retired registry); the locked versions and integrity hashes are kept and fetched from ${registryHost} (npm's replace-registry-host=always)`;
      return [
        {
          rule: 'npm-lockfile-registry-host',
          key: `npm-registry-host:${lock}`,
          reason,
          env: { npm_config_replace_registry_host: 'always' },
        },
      ];
    },
  },
  {
    ids: ['openssl3-legacy-algorithm'],
    propose: (f, input) => openSslLegacyProvider(f, input),
  },
  {
    ids: ['cargo-version-not-selected'],
    needsTree: "the Cargo.lock to regenerate is found in the repository, for a recipe using Debian's crates",
    propose(f, input) {
      const lock = (input.repo.ecosystems ?? [])
        .find((e) => e.kind === 'rust')
        ?.manifests.find((m) => m.endsWith('Cargo.lock'));
      // The lock's pin: `=x.y.z` as the requirement, or Cargo.toml's requirement `(locked to x.y.z)`.
      const pinned = (cap(f, 'requirement') ?? '').startsWith('=') || cap(f, 'locked') !== undefined;
      // Debian's crates: the offline recipe, or an auto recipe that fell back to them (cargo names the source).
      const fromDebian =
        input.recipe.id.includes('debian') ||
        input.output.includes(`directory source \`${DEBIAN_CARGO_REGISTRY}\``);
      if (!lock || !fromDebian || !pinned) return [];
      const reason = `${f.message}: ${lock} pins versions the distribution's crates do not have; the lock is re-resolved against them (the original kept in ${DEPLOY_RECORD_DIR}/Cargo.lock.orig) — the build uses Debian's versions, not the pinned ones`;
      return [
        {
          rule: 'regenerate-cargo-lock',
          key: `cargo-lock:${lock}`,
          reason,
          prelude: [
            `mkdir -p ${DEPLOY_RECORD_DIR} && if [ -f '${lock}' ]; then mv '${lock}' ${DEPLOY_RECORD_DIR}/Cargo.lock.orig; fi`,
          ],
          patches: [{ file: lock, reason }],
        },
      ];
    },
  },
  {
    ids: ['r-package-missing'],
    propose(f, _i, { services: s }) {
      const name = cap(f, 'r_package');
      const description = name ? rDescriptionPath(name) : undefined;
      return name && description
        ? installShipping(
            'install-r-package',
            description,
            `${f.message}; Debian's package of ${name} installs it in /usr/lib/R/site-library (r-cran-* for CRAN, r-bioc-* for Bioconductor)`,
            s,
          )
        : [];
    },
  },
  {
    ids: ['cargo-rust-version-too-new', 'cargo-rust-version-unsupported'],
    needsTree: "whether the package is the repository's own is read from its Cargo.toml files",
    async propose(f, input) {
      const pkg = cap(f, 'package');
      const required = cap(f, 'required');
      const manifests = cargoManifests(input);
      if (!pkg || !required || manifests.length === 0) return [];
      // A registry crate (no path in cargo's older message, no `name` line here) needs an older release of it.
      if (f.id === 'cargo-rust-version-too-new' && !cap(f, 'path')) return [];
      if (!(await ownCargoPackage(input, manifests, pkg))) return [];
      const current = cap(f, 'current');
      const compiler = current ? `rustc ${current}` : 'the rustc here';
      const reason = `${f.message}: the build goes on with ${compiler}, older than the rust-version ${required} the authors declared (cargo's --ignore-rust-version, kept as the manifests' rust-version commented out so that every later cargo command builds too); the declaration is often the toolchain the authors had rather than what the code needs — the target and the verifier decide`;
      return [
        {
          rule: 'ignore-rust-version',
          key: 'ignore-rust-version',
          reason,
          prelude: setAsideRustVersionLines(manifests, `${compiler} is older; cargo --ignore-rust-version`),
          patches: [{ file: manifests.join(', '), reason }],
        },
      ];
    },
  },
  {
    ids: ['rust-sys-crate-library', 'rust-system-deps-library'],
    propose(f, _i, { services: s }) {
      const mod = cap(f, 'pkgconfig');
      return mod
        ? installFor(
            'install-pkgconfig-package',
            [{ kind: 'pkgconfig', name: mod }],
            `${f.message} (pkg-config module ${mod})`,
            s,
            ['pkg-config'],
          )
        : [];
    },
  },
  {
    ids: ['openssl-sys-not-found'],
    propose: (f, _i, { services: s }) =>
      installFor(
        'install-pkgconfig-package',
        [{ kind: 'pkgconfig', name: 'openssl' }],
        `${f.message} (pkg-config module openssl)`,
        s,
        ['pkg-config'],
      ),
  },
  {
    ids: [
      'maven-artifact-missing',
      'maven-offline-not-downloaded',
      'maven-parent-unresolvable',
      'maven-plugin-unresolved',
    ],
    needsTree:
      "which Debian package ships a Maven artifact is looked up in the sandbox's /usr/share/maven-repo",
    propose: (f, input, { services: s }) => installArtifact(f, input, s),
  },
  {
    ids: ['gfortran-argument-mismatch'],
    propose(f) {
      const reason = `${f.message}: GCC 10 made these errors; ${ALLOW_ARGUMENT_MISMATCH} in the build file's Fortran flags accepts the code as older gfortran did (warnings stay), the Fortran twin of -fcommon`;
      return [
        {
          rule: 'fortran-allow-argument-mismatch',
          key: 'fortran-allow-argument-mismatch',
          reason,
          prelude: allowArgumentMismatchLines(),
          patches: [{ file: 'Makefile / CMakeLists.txt (Fortran flags)', reason }],
        },
      ];
    },
  },
  {
    ids: ['java-release-dropped'],
    propose(f) {
      const release = cap(f, 'release');
      return release ? [raiseJavaRelease(release)] : [];
    },
  },
  {
    ids: ['jdk-container-metrics-failed'],
    propose(f) {
      const reason = `${f.message}: the JDK's cgroup v1 code throws a NullPointerException when the cgroup mounts are seen from outside their root (a container or sandbox); ${NO_CONTAINER_SUPPORT} in JAVA_TOOL_OPTIONS makes every JVM read the memory and CPUs from /proc as on a plain host`;
      return [
        {
          rule: 'jvm-without-container-support',
          key: 'jvm-without-container-support',
          reason,
          env: { JAVA_TOOL_OPTIONS: NO_CONTAINER_SUPPORT },
        },
      ];
    },
  },
  {
    ids: ['java-release-too-new'],
    async propose(f, _i, { services: s }) {
      const release = cap(f, 'release');
      if (!release) return [];
      const repairs = await installShipping(
        'newer-jdk',
        `/usr/lib/jvm/java-${release}-openjdk-amd64/bin/javac`,
        `${f.message}; the distribution has a JDK ${release}`,
        s,
      );
      return repairs.map((r) => ({ ...r, env: { JAVA_HOME: `/usr/lib/jvm/java-${release}-openjdk-amd64` } }));
    },
  },
];
