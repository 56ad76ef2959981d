/**
 * Fortran setup: gfortran from the distribution; the external modules the sources `use` (netcdf, mpi, …)
 * installed from the package that ships their compiled module file (`<name>.mod`, looked up in the package
 * index with apt-file: looked up, not guessed); then the repository's own build: fpm when the fpm command is
 * present (it is not packaged in bookworm: said so), else its Makefile or CMakeLists.txt.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup } from './setup.js';
import { DEPLOY_RECORD_DIR, script, DEPLOY_INSTALL_FN } from './setup-shell.js';
import { moduleAlternation } from './go.js';

function moduleLines(eco: EcosystemInfo): string[] {
  const modules = [
    ...new Set(eco.dependencies.filter((d) => !d.manifest.endsWith('fpm.toml')).map((d) => d.name)),
  ];
  if (modules.length === 0) return [];
  return [
    DEPLOY_INSTALL_FN,
    'command -v apt-file >/dev/null 2>&1 || bb_deploy_install apt-file',
    '[ -n "$(ls /var/lib/apt/lists/*Contents* 2>/dev/null)" ] || apt-file update',
    `bb_hits=$(apt-file search -x ${shq(`/(${moduleAlternation(modules)})\\.mod$`)} 2>/dev/null || true)`,
    'bb_pkgs=""',
    `for bb_m in ${modules.map(shq).join(' ')}; do`,
    '  bb_p=$(printf "%s\\n" "$bb_hits" | grep "/$bb_m\\.mod$" | grep -v -- "-dbg:" | head -n 1 | cut -d: -f1)',
    '  if [ -n "$bb_p" ]; then echo "buildbench: Fortran module $bb_m -> Debian package $bb_p"; bb_pkgs="$bb_pkgs $bb_p"',
    '  else echo "buildbench: no Debian package ships $bb_m.mod"; fi',
    'done',
    '# shellcheck disable=SC2086 # a list of package names',
    `if [ -n "$bb_pkgs" ]; then bb_deploy_install $bb_pkgs; dpkg-query -W -f '\${Package} \${Version}\\n' $bb_pkgs > ${DEPLOY_RECORD_DIR}/fortran-packages.txt; fi`,
  ];
}

function buildCommand(eco: EcosystemInfo): { command: string; tools: Recipe['tools']; label: string } {
  const first = eco.manifests[0] ?? '';
  if (first.endsWith('fpm.toml')) {
    return {
      command:
        'if command -v fpm >/dev/null 2>&1; then fpm build; else echo "buildbench: fpm is not installed (not packaged in Debian bookworm)"; exit 1; fi',
      tools: [],
      label: 'fpm',
    };
  }
  const cmake = eco.manifests.find((m) => m.endsWith('CMakeLists.txt'));
  if (cmake) {
    const dir = cmake.includes('/') ? cmake.slice(0, cmake.lastIndexOf('/')) : '.';
    return {
      command: `cmake -S ${shq(dir)} -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j"$(nproc)"`,
      tools: [{ command: 'cmake', pkg: 'cmake' }],
      label: 'CMake',
    };
  }
  const make = eco.manifests.find((m) => /(?:^|\/)(?:GNUmakefile|[Mm]akefile)$/.test(m));
  if (make) {
    const dir = make.includes('/') ? make.slice(0, make.lastIndexOf('/')) : '.';
    return {
      command: `make -C ${shq(dir)} -j"$(nproc)"`,
      tools: [{ command: 'make', pkg: 'make' }],
      label: 'make',
    };
  }
  return { command: 'true', tools: [], label: 'no build file' };
}

export const fortranSetup: EcosystemSetup = {
  kind: 'fortran',
  recipes(eco) {
    const build = buildCommand(eco);
    return [
      {
        id: 'fortran:gfortran',
        system: 'deploy',
        label: `gfortran (${build.label})`,
        evidence: `${eco.runtime?.why ?? 'Fortran sources'}; external modules: ${eco.dependencies.map((d) => d.name).join(', ') || 'none'}`,
        dir: '',
        tools: [{ command: 'gfortran', pkg: 'gfortran' }, ...build.tools],
        steps: [
          {
            purpose: 'dependencies',
            command: script([`mkdir -p ${DEPLOY_RECORD_DIR}`, ...moduleLines(eco)]),
          },
          { purpose: 'build', command: build.command },
        ],
      },
    ];
  },
};
