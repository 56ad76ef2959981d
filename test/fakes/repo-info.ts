import type { BuildSystem, RepoInfo } from '../../src/repo/types.js';

export function system(
  kind: BuildSystem['kind'],
  dir = '',
  file?: string,
  details: BuildSystem['details'] = {},
): BuildSystem {
  const names: Record<string, string> = {
    cmake: 'CMakeLists.txt',
    make: 'Makefile',
    meson: 'meson.build',
    autotools: 'configure.ac',
  };
  return {
    kind,
    dir,
    file: file ?? (dir ? `${dir}/` : '') + (names[kind] ?? kind),
    linux: kind !== 'msbuild' && kind !== 'xcode',
    details,
  };
}

export function repoInfo(overrides: Partial<RepoInfo> = {}): RepoInfo {
  return {
    root: '/repo',
    name: 'repo',
    fileCount: 3,
    buildSystems: [],
    docs: [],
    ciFiles: [],
    dockerfiles: [],
    submodules: [],
    languages: { c: 1 },
    mainSources: [],
    expectedTargets: [],
    ...overrides,
  };
}
