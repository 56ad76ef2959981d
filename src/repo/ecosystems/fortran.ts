/**
 * Fortran: fpm.toml (the Fortran Package Manager: `[dependencies]`, `[dev-dependencies]`), or Fortran
 * sources (.f90, .f, .F90, …) built by a Makefile or CMakeLists.txt. The modules the sources `use` that no
 * source of the repository defines and the compiler does not ship (iso_fortran_env, omp_lib, …) are
 * external libraries (mpi, netcdf, …) and listed as dependencies.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { manifestsNamed, manifestsWhere, readManifest } from './manifest-files.js';
import { readTomlManifest, tomlString, tomlTable } from './toml.js';

const SOURCE = /\.(?:f|for|f77|f90|f95|f03|f08|F|FOR|F77|F90|F95|F03|F08)$/;
/** Modules every Fortran compiler (or gfortran with -fopenmp) provides. */
const INTRINSIC = new Set([
  'iso_fortran_env',
  'iso_c_binding',
  'ieee_arithmetic',
  'ieee_exceptions',
  'ieee_features',
  'omp_lib',
  'omp_lib_kinds',
  'openacc',
]);
/** Source files scanned for `module`/`use` lines, and bytes of each. */
const SCAN = { files: 200, bytes: 256 * 1024 } as const;

export const fortranDetector: EcosystemDetector = {
  kind: 'fortran',
  async detect(root, files) {
    const fpm = manifestsNamed(files, 'fpm.toml')[0];
    const sources = manifestsWhere(files, (base) => SOURCE.test(base), SCAN.files + 1);
    if (!fpm && sources.length === 0) return undefined;
    const builds = manifestsNamed(
      files,
      'CMakeLists.txt',
      'Makefile',
      'makefile',
      'GNUmakefile',
      'meson.build',
    );
    const info: EcosystemInfo = {
      kind: 'fortran',
      manifests: [...(fpm ? [fpm] : []), ...builds.slice(0, 5)],
      dependencies: [],
      notes: [],
      runtime: { name: 'gfortran', why: fpm ? `${fpm}` : `${sources.length} Fortran source file(s)` },
    };
    if (fpm) {
      const table = (await readTomlManifest(root, fpm, info.notes)) ?? {};
      for (const [section, dev] of [
        ['dependencies', false],
        ['dev-dependencies', true],
      ] as const) {
        for (const [name, spec] of Object.entries(tomlTable(table[section]) ?? {})) {
          const t = tomlTable(spec);
          if (t?.path !== undefined) continue;
          const dep: DeclaredDependency = { name, manifest: fpm };
          const where = tomlString(t?.git) ?? tomlString(t?.tag) ?? tomlString(spec);
          if (where) dep.constraint = where;
          if (dev) dep.dev = true;
          info.dependencies.push(dep);
        }
      }
    } else if (builds.length === 0)
      info.notes.push(
        'Fortran sources but no build file (fpm.toml, Makefile, CMakeLists.txt): compile them directly',
      );
    await addUsedModules(root, sources, info);
    return info;
  },
};

/** External modules: `use x` with no `module x` in the repository's sources and not intrinsic. */
async function addUsedModules(root: string, sources: readonly string[], info: EcosystemInfo): Promise<void> {
  const defined = new Set<string>();
  const used = new Map<string, string>();
  const scanned = sources.slice(0, SCAN.files);
  for (const file of scanned) {
    const text = (await readManifest(root, file, SCAN.bytes)) ?? '';
    for (const m of text.matchAll(/^\s*module\s+(?!procedure\b)(\w+)/gim))
      defined.add((m[1] as string).toLowerCase());
    for (const m of text.matchAll(/^\s*use\s*(?:,\s*(?:non_)?intrinsic\s*::)?\s*(\w+)/gim)) {
      const name = (m[1] as string).toLowerCase();
      if (!used.has(name)) used.set(name, file);
    }
  }
  for (const [name, file] of used) {
    if (defined.has(name) || INTRINSIC.has(name) || name.startsWith('ieee_')) continue;
    info.dependencies.push({ name, manifest: file });
  }
  if (sources.length > scanned.length)
    info.notes.push(`only the first ${SCAN.files} Fortran sources were scanned for modules`);
}
