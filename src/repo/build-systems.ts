/** Which build systems a checkout has, where their roots are, and which one to try first. */

import { looksLikeQmake } from './parsers/qmake.js';
import { ancestorsOf, baseOf, depthOf, dirOf, isVendoredPath, roleOfDir } from './paths.js';
import type { BuildSystem, BuildSystemKind } from './types.js';
import { mapLimit } from '../base/concurrency.js';
import { isExecutableFile, readSmallText, type RepoTree } from './walk.js';

/** Same directory: the first kind here is tried first. */
export const KIND_PRIORITY: readonly BuildSystemKind[] = [
  'cmake',
  'meson',
  'autotools',
  'configure',
  'make',
  'qmake',
  'scons',
  'bazel',
  'cargo',
  'setup.py',
  'script',
  'msbuild',
  'xcode',
];

/** Kinds whose root makes build files of other kinds below it part of the same build, not new roots. */
const DOMINANT: ReadonlySet<BuildSystemKind> = new Set([
  'cmake',
  'meson',
  'autotools',
  'configure',
  'make',
  'qmake',
  'scons',
  'bazel',
  'cargo',
  'setup.py',
]);

export const AUTOGEN_SCRIPTS = ['autogen.sh', 'bootstrap', 'bootstrap.sh', 'buildconf', 'autogen'] as const;
export const BUILD_SCRIPTS = ['build.sh', 'build', 'compile.sh', 'make.sh'] as const;
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'] as const;

export interface DetectOptions {
  /** Directories (relative) holding git submodules: treated like vendored code. */
  submodules?: readonly string[];
  /** At most this many systems are returned (default 20). */
  limit?: number;
}

interface Candidate extends BuildSystem {
  vendored: boolean;
}

/** A build file one detector found in a directory. */
interface Found {
  kind: BuildSystemKind;
  /** The file's base name in the directory. */
  name: string;
  details?: BuildSystem['details'];
}

/** One directory as the detectors see it. */
interface DirView {
  root: string;
  dir: string;
  names: readonly string[];
  nameSet: ReadonlySet<string>;
  /** Directories with a CMakeLists.txt. */
  cmakeDirs: ReadonlySet<string>;
}

const rel = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);

/** A CMake root: a CMakeLists.txt with no CMakeLists.txt above it that declares a project (or is at the top). */
async function detectCMake({ root, dir, nameSet, cmakeDirs }: DirView): Promise<Found[]> {
  if (!nameSet.has('CMakeLists.txt') || ancestorsOf(dir).some((a) => cmakeDirs.has(a))) return [];
  const text = (await readSmallText(root, rel(dir, 'CMakeLists.txt'))) ?? '';
  const project = /^\s*project\s*\(\s*"?([A-Za-z0-9_.+-]+)/im.exec(stripHashComments(text))?.[1];
  const minimum = /cmake_minimum_required\s*\(\s*VERSION\s+([0-9][0-9.]*)/i.exec(text)?.[1];
  if (dir !== '' && project === undefined && minimum === undefined) return [];
  const details: BuildSystem['details'] = { hasProject: project !== undefined };
  if (project !== undefined) details.project = project;
  if (minimum !== undefined) details.minimumVersion = minimum;
  if (nameSet.has('CMakePresets.json')) details.hasPresets = true;
  return [{ kind: 'cmake', name: 'CMakeLists.txt', details }];
}

/** configure.ac / configure.in (autotools), else a bare `configure` script. */
async function detectConfigure({ root, dir, nameSet }: DirView): Promise<Found[]> {
  const configureAc = nameSet.has('configure.ac')
    ? 'configure.ac'
    : nameSet.has('configure.in')
      ? 'configure.in'
      : '';
  if (configureAc !== '') {
    const autogen = AUTOGEN_SCRIPTS.find((s) => nameSet.has(s));
    const details = {
      hasConfigure: nameSet.has('configure'),
      hasAutogen: autogen ?? false,
      hasMakefileAm: nameSet.has('Makefile.am'),
      hasMakefileIn: nameSet.has('Makefile.in'),
    };
    return [{ kind: 'autotools', name: configureAc, details }];
  }
  if (!nameSet.has('configure')) return [];
  const details = {
    executable: await isExecutableFile(root, rel(dir, 'configure')),
    hasMakefileIn: nameSet.has('Makefile.in'),
  };
  return [{ kind: 'configure', name: 'configure', details }];
}

function detectMake({ nameSet }: DirView): Found[] {
  const makefile = MAKEFILES.find((m) => nameSet.has(m));
  return makefile === undefined
    ? []
    : [{ kind: 'make', name: makefile, details: { generated: nameSet.has('Makefile.in') } }];
}

async function detectMeson({ root, dir, nameSet }: DirView): Promise<Found[]> {
  if (!nameSet.has('meson.build')) return [];
  const text = (await readSmallText(root, rel(dir, 'meson.build'), { maxBytes: 64 * 1024 })) ?? '';
  const project = /^\s*project\s*\(\s*'([^']+)'/m.exec(text)?.[1];
  // Only a meson.build that declares project() is a root; the others are subdir() parts.
  if (project === undefined && dir !== '') return [];
  return [{ kind: 'meson', name: 'meson.build', details: project ? { project } : {} }];
}

/** The directory's qmake projects; the one named like the directory (else the first) is the root file. */
async function detectQmake({ root, dir, names }: DirView): Promise<Found[]> {
  const pros: string[] = [];
  const templates = new Map<string, string>();
  for (const pro of names.filter((n) => n.endsWith('.pro') && !n.startsWith('.')).sort()) {
    const text = (await readSmallText(root, rel(dir, pro), { maxBytes: 64 * 1024 })) ?? '';
    if (!looksLikeQmake(rel(dir, pro), text)) continue;
    pros.push(pro);
    templates.set(pro, /^\s*TEMPLATE\s*=\s*(\w+)/m.exec(text)?.[1] ?? 'app');
  }
  if (pros.length === 0) return [];
  const base = baseOf(dir === '' ? root : dir);
  const pro = pros.find((p) => p === `${base}.pro`) ?? pros[0] ?? '';
  return [
    {
      kind: 'qmake',
      name: pro,
      details: { template: templates.get(pro) ?? 'app', projects: pros.join(',') },
    },
  ];
}

function detectSconsAndBazel({ nameSet }: DirView): Found[] {
  const found: Found[] = [];
  const sconstruct = ['SConstruct', 'Sconstruct', 'sconstruct'].find((n) => nameSet.has(n));
  if (sconstruct !== undefined) found.push({ kind: 'scons', name: sconstruct });
  const bazel = ['MODULE.bazel', 'WORKSPACE.bazel', 'WORKSPACE', 'BUILD.bazel'].find((n) => nameSet.has(n));
  if (bazel !== undefined) found.push({ kind: 'bazel', name: bazel });
  return found;
}

async function detectCargo({ root, dir, nameSet }: DirView): Promise<Found[]> {
  if (!nameSet.has('Cargo.toml')) return [];
  const text = (await readSmallText(root, rel(dir, 'Cargo.toml'), { maxBytes: 64 * 1024 })) ?? '';
  const details: BuildSystem['details'] = { workspace: /^\s*\[workspace\]/m.test(text) };
  const name = /^\s*\[package\][^[]*?^\s*name\s*=\s*"([^"]+)"/ms.exec(text)?.[1];
  if (name !== undefined) details.package = name;
  return [{ kind: 'cargo', name: 'Cargo.toml', details }];
}

/** setup.py or pyproject.toml, only when it builds native extensions. */
async function detectPython({ root, dir, nameSet }: DirView): Promise<Found[]> {
  for (const pyFile of ['setup.py', 'pyproject.toml']) {
    if (!nameSet.has(pyFile)) continue;
    const text = (await readSmallText(root, rel(dir, pyFile), { maxBytes: 128 * 1024 })) ?? '';
    const backend = pythonExtensionEvidence(pyFile, text);
    if (backend !== undefined)
      return [{ kind: 'setup.py', name: pyFile, details: { extModules: true, evidence: backend } }];
  }
  return [];
}

/** Copies to another machine (`scp`/`rsync` to `host:path`), remote commands (`ssh host`), waiting loops. */
const DEPLOY_SIGNS: readonly [RegExp, string][] = [
  [
    /^\s*(?:[\w/.-]*\/)?(?:scp|rsync)\b[^\n#]*\s(?:[\w.$"{}-]+@)?[\w.$"{}-]+:/m,
    'copies files to another host (scp/rsync)',
  ],
  [
    /^\s*(?:[\w/.-]*\/)?ssh\s+(?:-\S+\s+)*(?:[\w.$"{}-]+@)?[\w.$"{}-]+/m,
    'runs commands on another host (ssh)',
  ],
  [
    /\bwhile\s+(?:true|:|\[\s*1\s*\])\s*;?\s*(?:do)?[^\n]*\n?[^\n]*\bsleep\b/m,
    'waits in an endless sleep loop',
  ],
];

/**
 * Why a build script is not a build but a deployment or a wait (it ships files to hosts, runs commands on
 * them, or loops on `sleep`), or undefined. Comment lines are ignored. Such a script is not run as a build
 * recipe when the repository has a real build system (see `candidateRecipes`).
 */
export function deployEvidence(text: string): string | undefined {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n');
  const reasons = DEPLOY_SIGNS.filter(([re]) => re.test(code)).map(([, why]) => why);
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

/** build.sh and friends, at the top only. */
async function detectScripts({ root, dir, nameSet }: DirView): Promise<Found[]> {
  if (dir !== '') return [];
  const found: Found[] = [];
  for (const script of BUILD_SCRIPTS) {
    if (!nameSet.has(script)) continue;
    const executable = await isExecutableFile(root, script);
    const head = await readSmallText(root, script, { maxBytes: 256 });
    if (head === undefined) continue;
    const shebang = head.startsWith('#!');
    // `build` without extension must look runnable; *.sh files run with bash anyway.
    if (!script.endsWith('.sh') && !executable && !shebang) continue;
    const text = (await readSmallText(root, script, { maxBytes: 64 * 1024 })) ?? head;
    const deploys = deployEvidence(text);
    found.push({
      kind: 'script',
      name: script,
      details: { executable, shebang, ...(deploys ? { deploys } : {}) },
    });
  }
  return found;
}

function detectMsbuild({ names }: DirView): Found[] {
  const sln = names.filter((n) => n.endsWith('.sln')).sort()[0];
  const vcxproj = names.filter((n) => n.endsWith('.vcxproj')).sort()[0];
  return sln !== undefined || vcxproj !== undefined ? [{ kind: 'msbuild', name: sln ?? vcxproj ?? '' }] : [];
}

/** Run in this order in each directory, so that a directory's candidates keep a stable order. */
const DETECTORS: ReadonlyArray<(view: DirView) => Found[] | Promise<Found[]>> = [
  detectCMake,
  detectConfigure,
  detectMake,
  detectMeson,
  detectQmake,
  detectSconsAndBazel,
  detectCargo,
  detectPython,
  detectScripts,
  detectMsbuild,
];

/** File base names by directory. */
function namesByDir(files: readonly string[]): Map<string, string[]> {
  const byDir = new Map<string, string[]>();
  for (const file of files) {
    const dir = dirOf(file);
    const list = byDir.get(dir);
    if (list) list.push(baseOf(file));
    else byDir.set(dir, [baseOf(file)]);
  }
  return byDir;
}

/** Every build file any detector recognises, plus .xcodeproj bundles, as candidates. */
async function findCandidates(
  root: string,
  tree: Pick<RepoTree, 'files' | 'dirs'>,
  submodules: readonly string[],
): Promise<Candidate[]> {
  const byDir = namesByDir(tree.files);
  const isVendored = (dir: string): boolean =>
    isVendoredPath(dir) || submodules.some((s) => dir === s || dir.startsWith(`${s}/`));
  const candidates: Candidate[] = [];
  const add = (dir: string, { kind, name, details = {} }: Found): void => {
    candidates.push({
      kind,
      dir,
      file: rel(dir, name),
      linux: kind !== 'msbuild' && kind !== 'xcode',
      details,
      vendored: isVendored(dir),
    });
  };
  const dirsWithFiles = [...byDir.keys()];
  const cmakeDirs = new Set(dirsWithFiles.filter((d) => byDir.get(d)?.includes('CMakeLists.txt')));
  await mapLimit(dirsWithFiles, 16, async (dir) => {
    const names = byDir.get(dir) ?? [];
    const view: DirView = { root, dir, names, nameSet: new Set(names), cmakeDirs };
    for (const detect of DETECTORS) for (const found of await detect(view)) add(dir, found);
  });
  for (const dir of tree.dirs) {
    if (dir.endsWith('.xcodeproj')) add(dirOf(dir), { kind: 'xcode', name: baseOf(dir) });
  }
  return candidates;
}

/** Drops build files that are part of a build rooted above them, and repeats of a kind in one directory. */
function keepRoots(candidates: readonly Candidate[]): Candidate[] {
  const rootsByDir = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const list = rootsByDir.get(c.dir);
    if (list) list.push(c);
    else rootsByDir.set(c.dir, [c]);
  }
  const kept = candidates.filter((c) =>
    ancestorsOf(c.dir).every((a) =>
      (rootsByDir.get(a) ?? []).every((above) => above.kind !== c.kind && !DOMINANT.has(above.kind)),
    ),
  );
  // One entry per kind and directory (e.g. several .xcodeproj bundles).
  const seen = new Set<string>();
  return kept.filter((c) => {
    const key = `${c.kind}\0${c.dir}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Finds build-system roots. A build file below another root (of the same kind, or of any
 * Linux build system other than a script) belongs to that root's build and is not listed; vendored
 * code (third_party, submodules, …) is listed only when nothing else is found.
 * Order: Linux build systems before MSBuild/Xcode; then the root directory first, then non-test/example
 * directories, then shallower ones, then {@link KIND_PRIORITY}, then path.
 */
export async function detectBuildSystems(
  root: string,
  tree: Pick<RepoTree, 'files' | 'dirs'>,
  options: DetectOptions = {},
): Promise<BuildSystem[]> {
  const unique = keepRoots(await findCandidates(root, tree, options.submodules ?? []));
  const ownCode = unique.filter((c) => !c.vendored);
  const chosen = ownCode.length > 0 ? ownCode : unique;
  chosen.sort(compareCandidates);
  return chosen.slice(0, options.limit ?? 20).map(({ vendored: _vendored, ...system }) => system);
}

function compareCandidates(a: Candidate, b: Candidate): number {
  // A Windows or macOS project is never the way to build on Linux, wherever it is.
  if (a.linux !== b.linux) return a.linux ? -1 : 1;
  const rootA = a.dir === '' ? 0 : 1;
  const rootB = b.dir === '' ? 0 : 1;
  if (rootA !== rootB) return rootA - rootB;
  const auxA = roleOfDir(a.dir) ? 1 : 0;
  const auxB = roleOfDir(b.dir) ? 1 : 0;
  if (auxA !== auxB) return auxA - auxB;
  const depthDiff = depthOf(a.dir) - depthOf(b.dir);
  if (depthDiff !== 0) return depthDiff;
  const prio = KIND_PRIORITY.indexOf(a.kind) - KIND_PRIORITY.indexOf(b.kind);
  if (prio !== 0) return prio;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/** Why a setup.py / pyproject.toml builds native extensions, or undefined when it does not. */
export function pythonExtensionEvidence(file: string, text: string): string | undefined {
  if (file === 'setup.py') {
    if (/\bext_modules\s*=/.test(text)) return 'ext_modules';
    if (/\b(?:Extension|Pybind11Extension|CMakeExtension|CUDAExtension|CppExtension)\s*\(/.test(text))
      return 'Extension()';
    if (/\bcythonize\s*\(/.test(text)) return 'cythonize';
    return undefined;
  }
  if (/^\s*ext[-_]modules\s*=/m.test(text)) return 'ext-modules';
  if (/scikit[-_]build/.test(text)) return 'scikit-build';
  if (/\bmesonpy\b|meson-python/.test(text)) return 'meson-python';
  if (/py-build-cmake/.test(text)) return 'py-build-cmake';
  return undefined;
}

/** Drops `#` comments (CMake, meson, shell); good enough for looking up a keyword. */
export function stripHashComments(text: string): string {
  return text.replace(/#.*$/gm, '');
}
