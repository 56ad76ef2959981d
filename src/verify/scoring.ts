/**
 * BUILD-BENCH metrics from the artifacts a build produced and the names it was expected to produce.
 *
 * - completion: at least one new binary.
 * - strict: there are expected names and every one was produced.
 * - flexible: there are expected names and at least one was produced.
 *
 * Names are compared by file name (the basename of the artifact's path against the basename of the
 * expected name, so `build/bin/foo` matches `out/foo`), after `artifactBaseName` on both sides: a versioned
 * shared object matches its base name in either direction (`libfoo.so` ↔ `libfoo.so.1.2.3`, and
 * `libgdal.so.37.3.12.0` ↔ `libgdal.so.38.0.0`: labels pinned to one release still match a newer build), a
 * Python extension matches whatever interpreter it was built for, and a `.exe` suffix is ignored. A
 * `lib`-prefixed name without an extension (`libfoo`) matches `libfoo.a` and `libfoo.so*`. Nothing else
 * is fuzzy: an expected `foo` does not match `libfoo.a` or `foo-2`, and case matters.
 *
 * Expected lists are normalised first (`normalizeExpected`): names that can never be a binary the scanner
 * reports (object files, sources, text, notes) are set aside with the reason, so they neither fail strict nor
 * count for flexible. `scoreArtifacts` normalises on its own; the caller records `ignored`.
 */
import type { Artifact, Expected, Metrics } from './types.js';
import { inferredMainTargets } from '../repo/targets.js';
import type { RepoInfo } from '../repo/types.js';

export interface IgnoredName {
  name: string;
  why: string;
}

/** The last '/'-separated component. */
function fileNameOf(nameOrPath: string): string {
  const trimmed = nameOrPath.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
}

/**
 * The name a file is matched by:
 * - a version after `.so` is dropped: `libfoo.so.1.2.3` → `libfoo.so`, `libmx-2.0.so.0.9905.0` → `libmx-2.0.so`.
 *   A version before `.so` is part of the name and kept: `libfoo-1.2.so` stays `libfoo-1.2.so` (it is what
 *   the build system named the library, e.g. libtool's `-release`, and differs between releases on purpose).
 * - a Python extension tag is dropped: `_foo.cpython-310-x86_64-linux-gnu.so`, `_foo.abi3.so` → `_foo.so`.
 * - a `.exe` suffix (any case) is dropped: it means nothing on Linux (`PIMSim.exe` → `PIMSim`).
 * A path is reduced to its last component first.
 */
export function artifactBaseName(fileName: string): string {
  let name = fileNameOf(fileName);
  if (/\.exe$/i.test(name) && name.length > 4) name = name.slice(0, -4);
  // Version parts after `.so` start with a digit and may carry a tag: `.so.1.11.0-PRE-GIT`, `.so.2+git5`.
  name = name.replace(/^(.+\.so)(?:\.\d[0-9A-Za-z_+~-]*)+$/, '$1');
  name = name.replace(/^(.+)\.(?:cpython-[^./]+|pypy[^./]*|abi3)\.so$/, '$1.so');
  return name;
}

const DIRECTORY_NAMES = new Set(['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libexec']);
const DOC_OR_BUILD_FILES = new Set([
  'readme',
  'license',
  'licence',
  'copying',
  'changelog',
  'changes',
  'news',
  'authors',
  'install',
  'todo',
  'makefile',
  'gnumakefile',
  'dockerfile',
  'configure',
]);

/** Lower-case extension → why a name with it is not counted. */
const IGNORED_EXTENSIONS: Record<string, string> = {};
function ignoreExtensions(extensions: string, why: string): void {
  for (const ext of extensions.split(' ')) IGNORED_EXTENSIONS[ext] = why;
}
ignoreExtensions('o obj lo', 'an object file; objects are not counted as build products');
ignoreExtensions('la', 'a libtool archive (text); the library itself is the .so or .a');
ignoreExtensions(
  'c cc cpp cxx c++ h hh hpp hxx inl ipp tcc s asm rs go py java m mm',
  'a source file, not a build product',
);
ignoreExtensions(
  'cmake txt md rst json xml yml yaml toml ini cfg conf pc in am ac mk html htm log sh bat ps1',
  'a text or build file, not a binary',
);
ignoreExtensions('hex ihex srec map uf2 iso', 'not an ELF or ar file (firmware image or linker map)');
ignoreExtensions('dll pdb exp dylib', 'a Windows or macOS binary; the scanner finds ELF and ar files only');
ignoreExtensions(
  'apk aar jar war class whl egg deb rpm zip tar gz tgz bz2 xz zst 7z',
  'a package or archive of another kind, not an ELF or ar file',
);

function whyIgnored(name: string): string | undefined {
  if (name === '') return 'empty';
  if (/\s/.test(name)) return 'free text, not a file name';
  if (name.endsWith(':')) return 'a note or label, not a file name';
  if (name.endsWith('/')) return 'a directory, not a file';
  const file = fileNameOf(name);
  if (file === '' || file === '.' || file === '..') return 'a directory, not a file';
  if (DIRECTORY_NAMES.has(file)) return 'a directory name, not a file';
  const lower = file.toLowerCase();
  if (DOC_OR_BUILD_FILES.has(lower)) return 'documentation or a build file, not a binary';
  const dot = lower.lastIndexOf('.');
  if (dot > 0) {
    const why = IGNORED_EXTENSIONS[lower.slice(dot + 1)];
    if (why) return why;
  }
  return undefined;
}

/**
 * Splits an expected list into names that can be matched against binaries and names set aside with the
 * reason: empty entries, free text (anything with whitespace, a trailing `:`), directories (`bin`,
 * `out/`), documentation and build files (`README`, `CMakeLists.txt`, `foo-config.cmake`), object files
 * (`foo.o`, `foo.cpp.o`: objects are never counted as artifacts), sources, firmware images and maps,
 * Windows/macOS binaries, packages; a name listed twice is kept once. Names are trimmed and a leading `./`
 * dropped; otherwise they are returned as given (a path stays a path). Idempotent.
 */
export function normalizeExpected(names: string[]): { names: string[]; ignored: IgnoredName[] } {
  const kept: string[] = [];
  const ignored: IgnoredName[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = raw.trim().replace(/^(?:\.\/)+/, '');
    const why = whyIgnored(name);
    if (why) {
      ignored.push({ name: raw, why });
    } else if (seen.has(name)) {
      ignored.push({ name: raw, why: 'listed twice' });
    } else {
      seen.add(name);
      kept.push(name);
    }
  }
  return { names: kept, ignored };
}

/** The artifact base names an expected name accepts. */
function acceptedBaseNames(expectedName: string): string[] {
  const base = artifactBaseName(expectedName);
  if (/^lib[^.]+$/.test(base)) return [base, `${base}.a`, `${base}.so`];
  return [base];
}

/** Completion, strict and flexible, with which expected names were produced (and by which files) and which not. */
export function scoreArtifacts(artifacts: Artifact[], expected: Expected): Metrics {
  const { names } = normalizeExpected(expected.names);
  const byBase = new Map<string, string[]>();
  for (const artifact of artifacts) {
    // A link that points at the artifact answers to its own name too (the path shown is the link's).
    for (const named of [artifact.path, ...(artifact.links ?? [])]) {
      const base = artifactBaseName(named);
      const paths = byBase.get(base);
      if (paths) paths.push(named);
      else byBase.set(base, [named]);
    }
  }
  const matched: string[] = [];
  const missing: string[] = [];
  const matches: Record<string, string[]> = {};
  for (const name of names) {
    const paths = acceptedBaseNames(name).flatMap((base) => byBase.get(base) ?? []);
    if (paths.length > 0) {
      matched.push(name);
      matches[name] = [...new Set(paths)].sort();
    } else {
      missing.push(name);
    }
  }
  return {
    completion: artifacts.length > 0,
    strict: names.length > 0 && missing.length === 0,
    flexible: matched.length > 0,
    matched,
    missing,
    matches,
  };
}

/**
 * What a build is expected to produce: the names given (`--expect`), else the main targets inferred from the
 * build files with enough confidence (repo/targets.ts), else nothing (any new binary). An inferred expectation
 * says why it is uncertain when a main product's name is computed when the build runs.
 */
export function expectedFrom(
  given: { expect: readonly string[] },
  repo: Pick<RepoInfo, 'expectedTargets'>,
): Expected & { ignored: IgnoredName[] } {
  if (given.expect.length > 0) {
    const { names, ignored } = normalizeExpected([...given.expect]);
    return { names, source: 'cli', ignored };
  }
  const uncertain = [
    ...new Set(
      repo.expectedTargets
        .filter((t) => t.role === 'main' && t.uncertain !== undefined)
        .map((t) => `${t.uncertain} (${t.source})`),
    ),
  ];
  const doubt = uncertain.length > 0 ? { uncertain } : {};
  const inferred = inferredMainTargets(repo.expectedTargets);
  if (inferred.length > 0) {
    const { names, ignored } = normalizeExpected(inferred);
    return { names, source: 'inferred', ignored, ...doubt };
  }
  return { names: [], source: 'none', ignored: [], ...doubt };
}
