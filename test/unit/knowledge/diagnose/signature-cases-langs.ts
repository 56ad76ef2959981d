/**
 * Log lines of the language package managers a deploy run meets (cargo 0.66-1.80, Go 1.19-1.22, Maven
 * 3.8-3.9, javac 11-21), one or more per signature of that section of verifiers/signatures.yaml. Joined into
 * SIGNATURE_CASES by signature-cases.ts.
 */
import type { SignatureCase } from './signature-cases.js';

export const LANGUAGE_SIGNATURE_CASES: SignatureCase[] = [
  {
    id: 'cargo-no-matching-package',
    line: 'error: no matching package named `serde_json` found',
    captures: { crate: 'serde_json' },
  },
  {
    id: 'npm-lockfile-host-unreachable',
    line: 'npm ERR! 403 403 Forbidden - GET https://npm.corp.example/simple-statistics/-/simple-statistics-7.8.3.tgz',
    captures: {
      status: '403',
      geturl: 'https://npm.corp.example/simple-statistics/-/simple-statistics-7.8.3.tgz',
      gethost: 'npm.corp.example',
    },
  },
  {
    id: 'npm-lockfile-host-unreachable',
    line: 'npm error network request to https://npm.corp.example/ms/-/ms-2.1.3.tgz failed, reason: getaddrinfo ENOTFOUND npm.corp.example',
    captures: {
      url: 'https://npm.corp.example/ms/-/ms-2.1.3.tgz',
      host: 'npm.corp.example',
      reason: 'ENOTFOUND',
    },
  },
  // R 4.2 (bookworm) in a UTF-8 locale, as the sandbox printed it; and in the C locale
  {
    id: 'r-package-missing',
    line: 'Error in library(limma) : there is no package called ‘limma’',
    captures: { r_package: 'limma' },
  },
  {
    id: 'r-package-missing',
    line: "Error: package or namespace load failed for 'Biobase' in loadNamespace(i, c(lib.loc, .libPaths()), versionCheck = vI[[i]]): there is no package called 'BiocGenerics'",
    captures: { r_package: 'BiocGenerics' },
  },
  {
    id: 'cargo-version-not-selected',
    line: 'error: failed to select a version for the requirement `itoa = "^1.0.9"`',
    captures: { crate: 'itoa', requirement: '^1.0.9' },
  },
  {
    id: 'cargo-version-not-selected',
    line: 'error: failed to select a version for the requirement `itoa = "=1.0.11"`',
    captures: { crate: 'itoa', requirement: '=1.0.11' },
  },
  // bookworm's cargo 0.66 without --locked: Cargo.toml's requirement, then the lock's pin.
  {
    id: 'cargo-version-not-selected',
    line: 'error: failed to select a version for the requirement `itoa = "^1"` (locked to 1.0.11)',
    captures: { crate: 'itoa', requirement: '^1', locked: '1.0.11' },
  },
  // bookworm's cargo 0.66, a package of the workspace (its path after the version), then a registry crate:
  {
    id: 'cargo-rust-version-too-new',
    line: 'error: package `circle-lattice v0.2.0 (/workspace)` cannot be built because it requires rustc 1.74 or newer, while the currently active rustc version is 1.63.0',
    captures: {
      package: 'circle-lattice',
      version: '0.2.0',
      path: '/workspace',
      required: '1.74',
      current: '1.63.0',
    },
  },
  {
    id: 'cargo-rust-version-too-new',
    line: 'error: package `clap v4.5.4` cannot be built because it requires rustc 1.74 or newer, while the currently active rustc version is 1.63.0',
    captures: { package: 'clap', version: '4.5.4', required: '1.74', current: '1.63.0' },
  },
  // cargo >= 1.7x lists the packages under `rustc X is not supported by the following package(s):`
  {
    id: 'cargo-rust-version-unsupported',
    line: '  circle-lattice@0.2.0 requires rustc 1.99',
    captures: { package: 'circle-lattice', version: '0.2.0', required: '1.99' },
  },
  {
    id: 'deploy-registry-fallback',
    line: "buildbench: the crate registry is unreachable: falling back to Debian's librust-*-dev crates",
    captures: { source: 'crate registry', fallback: "Debian's librust-*-dev crates" },
  },
  {
    id: 'deploy-registry-fallback',
    line: "buildbench: the module proxy is unreachable: falling back to Debian's golang-*-dev packages",
    captures: { source: 'module proxy', fallback: "Debian's golang-*-dev packages" },
  },
  {
    id: 'cargo-fetch-failed',
    line: 'error: failed to get `itoa` as a dependency of package `prime-sieve v0.1.0 (/workspace)`',
    captures: { crate: 'itoa' },
  },
  {
    id: 'cargo-fetch-failed',
    line: 'error: attempting to make an HTTP request, but --offline was specified',
  },
  // cargo 0.66 (bookworm) with no network, as the sandbox printed it:
  {
    id: 'cargo-fetch-failed',
    line: '  failed to load source for dependency `itoa`',
    captures: { crate: 'itoa' },
  },
  {
    id: 'cargo-fetch-failed',
    line: '  Unable to update registry `crates-io`',
    captures: { registry: 'crates-io' },
  },
  {
    id: 'rust-sys-crate-library',
    line: '  The system library `openssl` required by crate `openssl-sys` was not found.',
    captures: { pkgconfig: 'openssl', crate: 'openssl-sys' },
  },
  {
    id: 'rust-system-deps-library',
    line: "  could not find system library 'gtk4' required by the 'gtk4-sys' crate",
    captures: { pkgconfig: 'gtk4', crate: 'gtk4-sys' },
  },
  {
    id: 'openssl-sys-not-found',
    line: '  Could not find directory of OpenSSL installation, and this `-sys` crate cannot',
  },
  {
    id: 'go-module-fetch-failed',
    line: 'go: github.com/google/go-cmp@v0.5.9: Get "https://proxy.golang.org/github.com/google/go-cmp/@v/v0.5.9.mod": dial tcp: lookup proxy.golang.org on 10.0.2.3:53: server misbehaving',
    captures: { module: 'github.com/google/go-cmp', version: 'v0.5.9', host: 'proxy.golang.org' },
  },
  // Go 1.19 (bookworm) with no network, as the sandbox printed it:
  {
    id: 'go-module-fetch-failed',
    line: 'go: github.com/google/go-cmp@v0.5.9: Get "https://proxy.golang.org/github.com/google/go-cmp/@v/v0.5.9.mod": dial tcp: lookup proxy.golang.org on 10.0.2.3:53: no such host',
    captures: { module: 'github.com/google/go-cmp', host: 'proxy.golang.org' },
  },
  {
    id: 'go-module-fetch-failed',
    line: 'go: github.com/google/go-cmp@v0.5.9: module lookup disabled by GOPROXY=off',
    captures: { module: 'github.com/google/go-cmp', version: 'v0.5.9' },
  },
  {
    id: 'go-proxy-lookup-failed',
    line: 'main.go:12:2: module lookup disabled by GOPROXY=off',
  },
  {
    id: 'go-proxy-lookup-failed',
    line: 'dial tcp: lookup proxy.golang.org on [::1]:53: read udp [::1]:40237->[::1]:53: read: connection refused',
    captures: { host: 'proxy.golang.org' },
  },
  {
    id: 'go-missing-sum-entry',
    line: 'main.go:2:8: missing go.sum entry for module providing package github.com/google/go-cmp/cmp (imported by x); to add:',
    captures: { package: 'github.com/google/go-cmp/cmp' },
  },
  {
    id: 'go-no-module-provides',
    line: 'main.go:7:2: no required module provides package github.com/gonum/stat; to add it:',
    captures: { package: 'github.com/gonum/stat' },
  },
  {
    id: 'go-no-module-provides',
    line: 'cmd/run/main.go:5:2: cannot find module providing package golang.org/x/exp/slices: import lookup disabled by -mod=vendor',
    captures: { package: 'golang.org/x/exp/slices' },
  },
  {
    id: 'maven-artifact-missing',
    line: '[ERROR] Failed to execute goal on project word-stats: Could not resolve dependencies for project org.example:word-stats:jar:1.0: The following artifacts could not be resolved: org.apache.commons:commons-math3:jar:3.6.1: Could not find artifact org.apache.commons:commons-math3:jar:3.6.1 in central (https://repo.maven.apache.org/maven2) -> [Help 1]',
    captures: { artifact: 'org.apache.commons:commons-math3', type: 'jar', version: '3.6.1' },
  },
  {
    id: 'maven-offline-not-downloaded',
    line: '[ERROR] Failed to execute goal on project word-stats: Could not resolve dependencies for project org.example:word-stats:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.apache.commons:commons-lang3:jar:3.12.0 has not been downloaded from it before. -> [Help 1]',
    captures: { repository: 'central', artifact: 'org.apache.commons:commons-lang3', version: '3.12.0' },
  },
  {
    id: 'maven-dependencies-unresolved',
    line: '[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project org.example:app:jar:2.1',
    captures: { project: 'org.example:app:jar:2.1' },
  },
  {
    id: 'maven-parent-unresolvable',
    line: "[FATAL] Non-resolvable parent POM for org.example:child:1.0: Could not find artifact org.example:parent:pom:2 in central (https://repo.maven.apache.org/maven2) and 'parent.relativePath' points at wrong local POM @ line 5, column 11",
    captures: { project: 'org.example:child:1.0', artifact: 'org.example:parent', version: '2' },
  },
  {
    id: 'maven-plugin-unresolved',
    line: '[ERROR] Plugin org.apache.maven.plugins:maven-compiler-plugin:3.11.0 or one of its dependencies could not be resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode',
    captures: { artifact: 'org.apache.maven.plugins:maven-compiler-plugin', version: '3.11.0' },
  },
  // Maven 3.8.7 (bookworm) with no network, as the sandbox printed it: the plugin line is the one that says what.
  {
    id: 'maven-plugin-unresolved',
    line: '[ERROR] Plugin org.apache.maven.plugins:maven-resources-plugin:2.6 or one of its dependencies could not be resolved: Failed to read artifact descriptor for org.apache.maven.plugins:maven-resources-plugin:jar:2.6: Could not transfer artifact org.apache.maven.plugins:maven-resources-plugin:pom:2.6 from/to central (https://repo.maven.apache.org/maven2): transfer failed for https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-resources-plugin/2.6/maven-resources-plugin-2.6.pom: Unknown host repo.maven.apache.org: Name or service not known -> [Help 1]',
    captures: { artifact: 'org.apache.maven.plugins:maven-resources-plugin', version: '2.6' },
  },
  // bookworm's Maven 3.8.7 offline over /usr/share/maven-repo, a POM pinning a plugin version Debian does not
  // package (maven-compiler-plugin 3.13.0; Debian has 3.10.1): the artifact named last is the one missing, and
  // the repair looks up that one (the plugin itself here, or a dependency of a plugin Debian does have).
  {
    id: 'maven-offline-not-downloaded',
    line: '[ERROR] Plugin org.apache.maven.plugins:maven-compiler-plugin:3.13.0 or one of its dependencies could not be resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.apache.maven.plugins:maven-compiler-plugin:jar:3.13.0 has not been downloaded from it before. -> [Help 1]',
    captures: { artifact: 'org.apache.maven.plugins:maven-compiler-plugin', type: 'jar', version: '3.13.0' },
  },
  {
    id: 'maven-offline-not-downloaded',
    line: '[ERROR] Failed to execute goal on project probe: Could not resolve dependencies for project p:probe:jar:1: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.example.none:nothing:jar:9.9 has not been downloaded from it before. -> [Help 1]',
    captures: { artifact: 'org.example.none:nothing', version: '9.9' },
  },
  {
    id: 'maven-transfer-failed',
    line: '[ERROR] Could not transfer artifact org.apache.commons:commons-lang3:pom:3.12.0 from/to central (https://repo.maven.apache.org/maven2): transfer failed for https://repo.maven.apache.org/maven2/org/apache/commons/commons-lang3/3.12.0/commons-lang3-3.12.0.pom',
    captures: { artifact: 'org.apache.commons:commons-lang3', version: '3.12.0', repository: 'central' },
  },
  {
    id: 'java-release-dropped',
    line: '[ERROR] Source option 6 is no longer supported. Use 7 or later.',
    captures: { release: '6' },
  },
  {
    id: 'java-release-dropped',
    line: '[ERROR] Target option 1.5 is no longer supported. Use 1.6 or later.',
    captures: { release: '1.5' },
  },
  {
    id: 'java-release-dropped',
    line: 'javac: invalid target release: 1.5',
    captures: { release: '1.5' },
  },
  // javac of bookworm's JDK 17, as the sandbox printed it:
  {
    id: 'java-release-dropped',
    line: 'error: Source option 6 is no longer supported. Use 7 or later.',
    captures: { release: '6' },
  },
  // Gradle 4.4.1 (bookworm) on JDK 17 in the rootfs sandbox, whose cgroup v1 memory mount has the root /../..
  {
    id: 'jdk-container-metrics-failed',
    line: '      > Could not create service of type MemoryManager using GlobalScopeServices.createMemoryManager().',
    captures: { service: 'MemoryManager' },
  },
  {
    id: 'jdk-container-metrics-failed',
    line: '\tat java.base/jdk.internal.platform.CgroupUtil.lambda$readStringValue$1(CgroupUtil.java:67)',
    captures: { frame: 'CgroupUtil' },
  },
  {
    id: 'jdk-container-metrics-failed',
    line: '\tat java.base/jdk.internal.platform.cgroupv1.CgroupV1Subsystem.getLongValue(CgroupV1Subsystem.java:190)',
    captures: { frame: 'cgroupv1.CgroupV1Subsystem' },
  },
  {
    id: 'jdk-container-metrics-failed',
    line: 'java.lang.NullPointerException: Cannot invoke "jdk.internal.platform.CgroupInfo.getMountPoint()" because "anyController" is null',
  },
  // the same bookworm Gradle after -XX:-UseContainerSupport, compiling for sourceCompatibility = 1.6
  {
    id: 'java-release-dropped',
    line: ':compileJavaerror: Source option 6 is no longer supported. Use 7 or later.',
    captures: { release: '6' },
  },
  {
    id: 'java-release-too-new',
    line: 'error: release version 21 not supported',
    captures: { release: '21' },
  },
  { id: 'java-release-too-new', line: 'error: invalid source release: 21', captures: { release: '21' } },
  {
    id: 'java-release-too-new',
    line: '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.10.1:compile (default-compile) on project x: Fatal error compiling: error: release version 21 not supported -> [Help 1]',
    captures: { release: '21' },
  },
  {
    id: 'java-release-too-new',
    line: '[ERROR] Fatal error compiling: error: invalid target release: 21',
    captures: { release: '21' },
  },
];
