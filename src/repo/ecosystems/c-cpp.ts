/**
 * The C/C++ ecosystem, for deployment: C, C++ or CUDA sources together with a build system that drives them
 * (CMake, Make, Autotools, Meson, SCons, qmake). Its "manifests" are the build files, the repository's root
 * first; C and C++ declare no dependencies in a manifest (the build's own failures name what is missing,
 * and the repair knowledge maps them to packages), so `dependencies` is empty.
 */
import path from 'node:path';

import { isCompilable } from '../languages.js';
import type { EcosystemInfo } from '../types.js';

/** Build files that drive a C/C++ build, by exact name. */
const BUILD_FILES = new Set([
  'CMakeLists.txt',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'configure',
  'configure.ac',
  'configure.in',
  'meson.build',
  'SConstruct',
]);

function isBuildFile(file: string): boolean {
  const base = path.posix.basename(file);
  return BUILD_FILES.has(base) || base.endsWith('.pro');
}

const depth = (file: string): number => file.split('/').length;

/** An `EcosystemDetector` (index.ts; typed there, where DETECTORS lists it, so no file imports the other both ways). */
export const cCppDetector = {
  kind: 'c-cpp' as const,
  detect(_root: string, files: readonly string[]): Promise<EcosystemInfo | undefined> {
    const sources = files.filter(isCompilable);
    const manifests = files
      .filter(isBuildFile)
      .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    if (sources.length === 0 || manifests.length === 0) return Promise.resolve(undefined);
    return Promise.resolve({
      kind: 'c-cpp',
      manifests: manifests.slice(0, 20),
      dependencies: [],
      notes: [
        `${sources.length} C/C++ source ${sources.length === 1 ? 'file' : 'files'}; built with ${manifests.length === 1 ? manifests[0] : `${manifests[0]} and ${manifests.length - 1} more build files`}`,
      ],
    });
  },
} satisfies {
  kind: 'c-cpp';
  detect: (root: string, files: readonly string[]) => Promise<EcosystemInfo | undefined>;
};
