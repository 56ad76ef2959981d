import path from 'node:path';
import type { ExcludeFn } from './artifacts.js';

/**
 * Directories whose binaries are never products of the build: the build systems' own scratch space
 * (CMake's compiler-identification programs, meson's sanity checks, autoconf's caches), VCS metadata and
 * buildbench's own scratch folder for verifier checks (`.buildbench`).
 */
const SCRATCH_DIRS = new Set([
  '.git',
  'CMakeFiles',
  'meson-private',
  'meson-logs',
  'autom4te.cache',
  '.deps',
  '.libs_tmp',
  '.buildbench',
]);

export const excludeBuildScratch: ExcludeFn = (relPath, isDirectory) => {
  const parts = relPath.split('/');
  const dirs = isDirectory ? parts : parts.slice(0, -1);
  if (dirs.some((d) => SCRATCH_DIRS.has(d))) return true;
  // autoconf's test programs, if a configure run was killed before it removed them
  return !isDirectory && /^conftest(\.[a-z]+)?$/.test(path.posix.basename(relPath));
};
