/**
 * What a build lacks, as something the package index can be asked about (`Need`), the resolver's answer
 * (`Resolution`), and the mapping from a layer-1 finding to a need.
 */
import type { Finding } from '../diagnose/types.js';

/** What a need can be; the curated table's sections are these too. */
export const NEED_KINDS = [
  'header',
  'library',
  'pkgconfig',
  'cmake',
  'command',
  'python-module',
  'file',
  'm4-macro',
] as const;

export type NeedKind = (typeof NEED_KINDS)[number];

/** Something the build lacks: a header `zlib.h`, a library `z` (for -lz), a pkg-config module, a CMake package name, ... */
export interface Need {
  kind: NeedKind;
  name: string;
}

export interface Resolution {
  need: Need;
  /** The package to install; only set when apt-cache confirmed that it exists. */
  package?: string;
  /** The packages considered, best first (the index's best 20, then curated names). */
  candidates: string[];
  via: 'apt-file' | 'fallback' | 'none';
  note?: string;
  /** The chosen package is already installed (the need is then about paths or flags, not packages). */
  installed?: boolean;
  /** Nothing needs installing (e.g. CMake's Threads, part of the C library). */
  noPackageNeeded?: boolean;
  /** Where the chosen package ships what the need names, per the package index (a header's full paths). */
  paths?: string[];
}

/** A Debian package name. */
export const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** A need's identity (`kind:name`), for caches and de-duplication. */
export function needKey(need: Need): string {
  return `${need.kind}:${need.name}`;
}

/** Findings whose header capture is a removed glibc API, not something a package provides. */
const NO_PACKAGE_IDS: ReadonlySet<string> = new Set([
  'glibc-sysctl-removed',
  'glibc-xlocale-removed',
  'glibc-stropts-removed',
  'forgot-include-note',
  // a CUDA library: the driver's comes from the host, the toolkit's from NVIDIA (rules/gpu.ts), not apt
  'cuda-library-missing',
]);

const COMPILERS: Readonly<Record<string, string>> = {
  C: 'gcc',
  'C++': 'g++',
  CXX: 'g++',
  Fortran: 'gfortran',
};
const GENERATORS: Readonly<Record<string, string>> = {
  'Unix Makefiles': 'make',
  Ninja: 'ninja',
  'Ninja Multi-Config': 'ninja',
};

/**
 * What to look up for a layer-1 finding, or undefined when the finding is not about a missing package.
 * Uses the conventional capture names (header, library, pkgconfig, cmake_package, command, python_module, file, macro).
 */
export function needFromFinding(finding: Pick<Finding, 'id' | 'category' | 'captures'>): Need | undefined {
  const c = finding.captures;
  if (NO_PACKAGE_IDS.has(finding.id)) return undefined;
  if (finding.id === 'make-no-rule' || finding.id === 'ninja-missing-input') {
    // CMake records absolute library paths; a missing /usr/... file is a missing package.
    return c.target?.startsWith('/usr/') ? { kind: 'file', name: c.target } : undefined;
  }
  if (finding.category === 'configure-error') return needFromConfigureCheck(c.check);
  if (
    finding.category !== 'missing-dependency' &&
    finding.category !== 'toolchain-drift' &&
    finding.category !== 'gpu'
  ) {
    return undefined;
  }
  if (c.header) return { kind: 'header', name: c.header };
  if (c.library) return { kind: 'library', name: c.library };
  if (c.pkgconfig) return { kind: 'pkgconfig', name: c.pkgconfig };
  if (c.cmake_package && finding.category === 'missing-dependency')
    return { kind: 'cmake', name: c.cmake_package };
  if (c.python_module) return { kind: 'python-module', name: c.python_module };
  if (c.command) return { kind: 'command', name: c.command };
  if (c.interpreter) return { kind: 'command', name: c.interpreter.split('/').pop() ?? c.interpreter };
  if (c.file && finding.category === 'missing-dependency') return { kind: 'file', name: c.file };
  if (c.macro) return { kind: 'm4-macro', name: c.macro };
  if (c.qt_module) {
    const first = c.qt_module.split(/\s+/)[0];
    return first ? { kind: 'file', name: `mkspecs/modules/qt_lib_${first}.pri` } : undefined;
  }
  if (c.compiler)
    return COMPILERS[c.compiler] ? { kind: 'command', name: COMPILERS[c.compiler] as string } : undefined;
  if (c.language)
    return COMPILERS[c.language] ? { kind: 'command', name: COMPILERS[c.language] as string } : undefined;
  if (c.generator)
    return GENERATORS[c.generator] ? { kind: 'command', name: GENERATORS[c.generator] as string } : undefined;
  return undefined;
}

/** configure's failed "checking for X... no" just above `configure: error:`. */
function needFromConfigureCheck(check: string | undefined): Need | undefined {
  if (!check) return undefined;
  if (/^[\w./+-]+\.h(?:pp|xx)?$/.test(check)) return { kind: 'header', name: check };
  const lib = / in -l([\w.+-]+)$/.exec(check);
  return lib?.[1] ? { kind: 'library', name: lib[1] } : undefined;
}

/** The distinct needs of many findings, in order. */
export function needsFromFindings(
  findings: readonly Pick<Finding, 'id' | 'category' | 'captures'>[],
): Need[] {
  const seen = new Set<string>();
  const needs: Need[] = [];
  for (const f of findings) {
    const need = needFromFinding(f);
    if (need && !seen.has(needKey(need))) {
      seen.add(needKey(need));
      needs.push(need);
    }
  }
  return needs;
}
