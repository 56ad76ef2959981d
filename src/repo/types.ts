/** What inspection learns about a repository before anything is run. */

export type BuildSystemKind =
  | 'cmake'
  | 'autotools' // configure.ac / configure.in (configure may or may not be committed)
  | 'configure' // a committed ./configure without configure.ac (hand-written or generated elsewhere)
  | 'make'
  | 'meson'
  | 'qmake'
  | 'scons'
  | 'bazel'
  | 'cargo'
  | 'setup.py'
  | 'script' // a custom build.sh / build / compile.sh
  | 'msbuild' // non-Linux
  | 'xcode'; // non-Linux

export interface BuildSystem {
  kind: BuildSystemKind;
  /** Directory holding the build file, relative to the repository root, '' for the root itself. */
  dir: string;
  /** The file that is the evidence, relative to the repository root. */
  file: string;
  /** False for MSBuild/Xcode projects and other systems that do not build on Linux. */
  linux: boolean;
  /** Extra facts recipes use: e.g. { hasConfigure: true, hasAutogen: 'autogen.sh' } for autotools. */
  details: Record<string, string | boolean>;
}

/** One shell block the documentation or the CI gives. */
export interface DocumentedBlock {
  /** Where it was read: `README.md:14`, `.github/workflows/ci.yml: build`. */
  source: string;
  /** The heading (docs) or the step's name (CI) it was under. */
  section: string;
  /**
   * Docs (Markdown): it stands in a section about installing the finished program, one that builds nothing
   * (`programInstallLines`): what it installs is the project itself, not what building it needs.
   */
  installsProgram?: true;
  /** The shell text as written (prompts like `$ ` already removed). */
  text: string;
  from: 'docs' | 'ci';
}

/** What the documentation says about building. */
export interface DocumentedBuild {
  blocks: DocumentedBlock[];
  /** Package-like names the prose gives as build dependencies (`requires libfoo-dev`), with where. */
  prosePackages: { name: string; source: string }[];
}

/** Which of the detected build systems the documentation uses, and why. */
export interface BuildSystemChoice {
  kind: BuildSystemKind;
  file: string;
  why: string;
}

export interface DocFile {
  path: string;
  /** Higher is more likely to hold build instructions. */
  score: number;
  why: string;
}

export interface Submodule {
  path: string;
  url: string;
  /** The directory exists and has files in it. */
  populated: boolean;
}

export type TargetKind = 'executable' | 'static_library' | 'shared_library' | 'module' | 'library';

export interface ExpectedTarget {
  /** The file name a build produces, e.g. `foo`, `libfoo.a`, `libfoo.so`. */
  name: string;
  kind: TargetKind;
  /** The build file and line it was read from, e.g. `src/CMakeLists.txt:12`. */
  source: string;
  /** 0..1: how sure inspection is that a default build produces this file. */
  confidence: number;
  /** Tests, examples, benchmarks and targets excluded from `all` are not main products. */
  role: 'main' | 'test' | 'example' | 'excluded';
  /** Why the name or kind is uncertain, e.g. that libtool builds `libfoo.a` next to `libfoo.so`. */
  note?: string;
  /**
   * Set when the produced name cannot be known before the build runs (a part make computes with `$(shell …)`, a
   * libtool release from a configure substitution): why. Such a product of the default build makes the
   * expectation uncertain (verify/scoring.ts `expectedFrom`), and a run judged by an uncertain expectation is
   * never SUCCESS (core/status.ts).
   */
  uncertain?: string;
}

export interface RepoInfo {
  /** Absolute path of the checkout that was inspected. */
  root: string;
  name: string;
  fileCount: number;
  /** The walk stopped at its entry cap: fileCount and the lists below cover a shallow-first part of the tree. */
  truncated?: boolean;
  /** Ordered by evidence: the first one is the most likely way to build. */
  buildSystems: BuildSystem[];
  docs: DocFile[];
  /** The repository's own CI workflows (they often hold the real recipe). */
  ciFiles: string[];
  dockerfiles: string[];
  submodules: Submodule[];
  /** Source file counts by language: c, cpp, rust, python, go, java, … */
  languages: Record<string, number>;
  /** C/C++ source files that define `main`, for direct compilation when there is no build system. */
  mainSources: string[];
  /** Inferred build products. */
  expectedTargets: ExpectedTarget[];
  /** Language ecosystems with their manifests and declared dependencies (src/repo/ecosystems/). */
  ecosystems?: EcosystemInfo[];
  /** The build commands the README/INSTALL/BUILDING files and the CI give (src/repo/documented.ts). */
  documented?: DocumentedBuild;
  /** Set when the documentation names one of the detected build systems: it is first in `buildSystems`. */
  buildSystemChoice?: BuildSystemChoice;
  /** What the build files and build docs declare they need from the system (src/repo/declared-deps.ts). */
  declaredDeps?: BuildDeclaration[];
}

/** A dependency a manifest declares (`numpy>=1.20` in requirements.txt, `serde = "1"` in Cargo.toml, …). */
export interface DeclaredDependency {
  name: string;
  /** The version constraint as written (`>=1.20,<2`, `^1.0`), when there is one. */
  constraint?: string;
  /** The manifest it was read from, relative to the repository root, with the line when known (`requirements.txt:3`). */
  manifest: string;
  optional?: boolean;
  /** Only for development or tests (`[dev-dependencies]`, `devDependencies`, `extras_require['test']`). */
  dev?: boolean;
}

/** The language ecosystems deployment knows (detection in src/repo/ecosystems/, setup in src/deploy/recipes/). */
export type EcosystemKind =
  | 'python'
  | 'rust'
  | 'go'
  | 'java'
  | 'julia'
  | 'r'
  | 'haskell'
  | 'lua'
  | 'racket'
  | 'javascript'
  | 'fortran'
  | 'c-cpp';

/** One language ecosystem found in the repository. */
export interface EcosystemInfo {
  kind: EcosystemKind;
  /** Its manifests, relative to the repository root, most authoritative first. */
  manifests: string[];
  dependencies: DeclaredDependency[];
  /** The runtime version the manifests pin or the code implies (`python 2`: print statements), with why. */
  runtime?: { name: string; version?: string; why: string };
  /** What a person should know (an unusual layout, a lock file that disagrees with the manifest). */
  notes: string[];
}

/** What a declaration names: a pkg-config module, a CMake package, a header, a library (-l), or a package. */
/**
 * `m4-macro`: a macro configure.ac calls that the tree does not define, when configure is generated from it
 * (no committed `configure`): autoreconf fails on it unless a package ships it (AX_* in autoconf-archive).
 */
export type DeclarationKind =
  'pkgconfig' | 'cmake' | 'header' | 'library' | 'package' | 'm4-macro' | 'command';

export interface BuildDeclaration {
  kind: DeclarationKind;
  name: string;
  /** The default configuration fails without it (REQUIRED, no `required: false`, AC_MSG_ERROR when missing). */
  required: boolean;
  /** The file and line it was read from, relative to the repository root (`meson.build:12`). */
  source: string;
  /** The declaration as written, on one line, at most 160 characters. */
  text: string;
  /**
   * Alternatives of one need (autoconf checks that set the same variable, say `found_ncurses=no`, which
   * configure then fails on): the first of the group that resolves to a package is installed.
   */
  group?: string;
}
