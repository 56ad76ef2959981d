/** Expected build products, inferred from the build files a checkout has. */

import { ancestorsOf, baseOf, depthOf, dirOf, isVendoredPath, isWithin, joinRel } from './paths.js';
import { automakeTargets } from './parsers/automake.js';
import { cargoTargets } from './parsers/cargo.js';
import { cmakeTargets } from './parsers/cmake/targets.js';
import { dedupeTargets, round2, type InferredTarget, type TargetFamily } from './parsers/common.js';
import { makefileIncludes, makeSubdirs, makefileTargets } from './parsers/makefile.js';
import { mesonProject, mesonTargets } from './parsers/meson.js';
import { qmakeTargets } from './parsers/qmake.js';
import type { BuildSystemKind, ExpectedTarget } from './types.js';

export { dedupeTargets };
import { mapLimit } from '../base/concurrency.js';
import { readSmallText } from './walk.js';

export interface InferOptions {
  /** Directories to leave out (git submodules); vendored directories (third_party, vendor, …) always are. */
  exclude?: readonly string[];
  /**
   * The build system that will be run. Targets read from another system's files are kept with lower
   * confidence (a legacy Makefile next to CMakeLists.txt may name different files).
   */
  primary?: BuildSystemKind;
  /** Build files read at most (default 3000, shallow first). */
  maxFiles?: number;
  /** Bytes read per build file (default 512 KiB). */
  maxBytes?: number;
  /** Targets returned at most (default 500). */
  limit?: number;
}

interface MakeFileResult {
  file: string;
  targets: InferredTarget[];
  subdirs: string[];
}

/**
 * Targets of hand-written Makefiles, less sure for a Makefile below another one that no Makefile above
 * runs (`$(MAKE) -C dir`, `cd dir && $(MAKE)`): plain `make` at the top does not reach it.
 */
function reachableMakeTargets(results: readonly MakeFileResult[]): InferredTarget[] {
  const byDir = new Map(results.map((r) => [dirOf(r.file), r]));
  const reached = new Set<string>();
  const queue = results.map((r) => dirOf(r.file)).filter((d) => ancestorsOf(d).every((a) => !byDir.has(a)));
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    if (reached.has(dir)) continue;
    reached.add(dir);
    for (const sub of byDir.get(dir)?.subdirs ?? []) queue.push(joinRel(dir, sub));
  }
  return results.flatMap((r) => {
    if (reached.has(dirOf(r.file))) return r.targets;
    return r.targets.map((t) => {
      const note = 'no Makefile above runs make in this directory';
      return { ...t, confidence: round2(t.confidence * 0.7), note: t.note ? `${t.note}; ${note}` : note };
    });
  });
}

/** Whether inspection reads the products of a build driven by `system` from that system's own files. */
export function readsOwnTargets(system: string): system is BuildSystemKind {
  return Object.hasOwn(FAMILY_OF, system);
}

const FAMILY_OF: Partial<Record<BuildSystemKind, TargetFamily>> = {
  cmake: 'cmake',
  autotools: 'automake',
  configure: 'make',
  make: 'make',
  meson: 'meson',
  qmake: 'qmake',
  cargo: 'cargo',
};

const MAKEFILES = new Set(['Makefile', 'makefile', 'GNUmakefile']);
/** A Makefile next to one of these is generated or a wrapper around that system (unless make is what runs). */
const GENERATOR_FILES = [
  'Makefile.am',
  'Makefile.in',
  'CMakeLists.txt',
  'configure.ac',
  'configure.in',
  'meson.build',
];

type BuildFileKind = 'cmake' | 'automake' | 'meson' | 'qmake' | 'make' | 'cargo';

/** Which parser reads a file, or undefined for files that are not build files. */
export function buildFileKind(
  file: string,
  files: ReadonlySet<string>,
  primary?: BuildSystemKind,
): BuildFileKind | undefined {
  const base = baseOf(file);
  const dir = dirOf(file);
  const sibling = (name: string): boolean => files.has(dir === '' ? name : `${dir}/${name}`);
  if (base === 'CMakeLists.txt') return 'cmake';
  if (base === 'Makefile.am') return 'automake';
  if (base === 'meson.build') return 'meson';
  if (base === 'Cargo.toml') return 'cargo';
  if (base.endsWith('.pro') && base.length > 4) return 'qmake';
  if (MAKEFILES.has(base)) {
    // A checkout's Makefile beside CMakeLists.txt or meson.build is hand-written: when plain `make` is the
    // build that runs (the documented one), its products are what is made. Beside automake's files it is
    // generated.
    if (primary === 'make' && !sibling('Makefile.am') && !sibling('Makefile.in')) return 'make';
    return GENERATOR_FILES.some(sibling) ? undefined : 'make';
  }
  // A hand-written Makefile.in filled in by a hand-written configure.
  if (base === 'Makefile.in' && !sibling('Makefile.am') && !sibling('CMakeLists.txt')) return 'make';
  return undefined;
}

/**
 * Reads the build files among `files` (repository-relative paths, e.g. from walkTree) and returns the
 * products they name: main products first, then by confidence. Never throws on unreadable files.
 */
export async function inferTargets(
  root: string,
  files: readonly string[],
  options: InferOptions = {},
): Promise<ExpectedTarget[]> {
  const fileSet = new Set(files);
  const exclude = options.exclude ?? [];
  const selected: Array<{ file: string; kind: BuildFileKind }> = [];
  for (const file of files) {
    if (isVendoredPath(dirOf(file)) || exclude.some((d) => isWithin(file, d))) continue;
    const kind = buildFileKind(file, fileSet, options.primary);
    if (kind) selected.push({ file, kind });
  }
  selected.sort((a, b) => depthOf(a.file) - depthOf(b.file));
  const limited = selected.slice(0, options.maxFiles ?? 3000);
  const texts = await mapLimit(limited, 16, (s) =>
    readSmallText(root, s.file, { maxBytes: options.maxBytes ?? 512 * 1024 }),
  );

  const found: InferredTarget[] = [];
  const cmakeFiles = new Map<string, string>();
  const includeCache = new Map<string, string | undefined>();
  const makeFiles: MakeFileResult[] = [];
  const mesonRoots = new Map<string, { projectName?: string; defaultLibrary?: string }>();
  for (const [i, s] of limited.entries()) {
    const text = texts[i];
    if (text === undefined) continue;
    if (s.kind === 'cmake') cmakeFiles.set(s.file, text);
    else if (s.kind === 'meson') {
      const own = mesonProject(text);
      let context: { projectName?: string; defaultLibrary?: string } = {};
      for (const above of ancestorsOf(dirOf(s.file))) {
        const up = mesonRoots.get(above);
        if (up) {
          context = up;
          break;
        }
      }
      const merged = {
        ...context,
        ...(own.name !== undefined ? { projectName: own.name } : {}),
        ...(own.defaultLibrary !== undefined ? { defaultLibrary: own.defaultLibrary } : {}),
      };
      mesonRoots.set(dirOf(s.file), merged);
      found.push(...mesonTargets(text, s.file, merged));
    } else if (s.kind === 'automake') found.push(...automakeTargets(text, s.file));
    else if (s.kind === 'make') {
      const included: string[] = [];
      for (const inc of makefileIncludes(text).slice(0, 8)) {
        const rel = joinRel(dirOf(s.file), inc);
        if (!fileSet.has(rel)) continue;
        if (!includeCache.has(rel))
          includeCache.set(rel, await readSmallText(root, rel, { maxBytes: 256 * 1024 }));
        const inc2 = includeCache.get(rel);
        if (inc2 !== undefined) included.push(inc2);
      }
      makeFiles.push({
        file: s.file,
        targets: makefileTargets(text, s.file, included),
        subdirs: makeSubdirs(text, included),
      });
    } else if (s.kind === 'qmake') found.push(...qmakeTargets(text, s.file));
    else found.push(...cargoTargets(text, s.file, fileSet));
  }
  found.push(...reachableMakeTargets(makeFiles));
  if (cmakeFiles.size > 0) {
    // Local modules (cmake/*.cmake) often hold the options that decide which targets exist.
    const moduleFiles = files
      .filter(
        (f) => f.endsWith('.cmake') && !isVendoredPath(dirOf(f)) && !exclude.some((d) => isWithin(f, d)),
      )
      .slice(0, 300);
    const moduleTexts = await mapLimit(moduleFiles, 16, (f) =>
      readSmallText(root, f, { maxBytes: 256 * 1024 }),
    );
    const modules = new Map<string, string>();
    for (const [i, f] of moduleFiles.entries()) {
      const text = moduleTexts[i];
      if (text !== undefined) modules.set(f, text);
    }
    found.unshift(...cmakeTargets(cmakeFiles, modules));
  }

  const primary = options.primary !== undefined ? FAMILY_OF[options.primary] : undefined;
  if (primary !== undefined) {
    for (const t of found) {
      if (t.family === primary) continue;
      t.confidence = round2(t.confidence * 0.6);
      delete t.uncertain; // not a product of the build that runs, so it leaves the expectation as it is
      const note = `read from ${t.family} files, but the build system to run is ${options.primary}`;
      t.note = t.note ? `${t.note}; ${note}` : note;
    }
  }
  return dedupeTargets(found)
    .slice(0, options.limit ?? 500)
    .map(({ family: _family, ...target }) => target);
}

/** An inferred main target this confident (or more) is expected of a build when no names were given. */
export const MAIN_TARGET_CONFIDENCE = 0.7;

/** The names of the main targets inferred with at least MAIN_TARGET_CONFIDENCE, each once. */
export function inferredMainTargets(targets: readonly ExpectedTarget[]): string[] {
  const names = targets
    .filter((t) => t.role === 'main' && t.confidence >= MAIN_TARGET_CONFIDENCE)
    .map((t) => t.name);
  return [...new Set(names)];
}
