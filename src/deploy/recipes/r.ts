/**
 * R setup: r-base-core from Debian, each declared package as Debian's `r-cran-<name>` (lower case; checked
 * with apt-cache in the sandbox), then — unless the run is offline — `install.packages` from a CRAN mirror
 * (the user's `CRAN_MIRROR`, else cloud.r-project.org) for what Debian does not ship. Installed versions are
 * recorded in `.buildbench/deploy/r-freeze.txt`; the versions the manifests asked for are printed beside them.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup } from './setup.js';
import { APT_LISTS_READY, DEPLOY_RECORD_DIR, aptInstallWords, publicMirrors, say } from './setup-shell.js';

export const R_FREEZE_FILE = `${DEPLOY_RECORD_DIR}/r-freeze.txt`;
const DEFAULT_CRAN = 'https://cloud.r-project.org';

/** Debian's name for a CRAN package (Debian R Policy: r-cran-<lower-case name>). */
export function rDebianPackage(name: string): string {
  return `r-cran-${name.toLowerCase().replace(/[^a-z0-9.+-]/g, '')}`;
}

function recipe(eco: EcosystemInfo, offline: boolean, mirrors: Readonly<Record<string, string>>): Recipe {
  const deps = eco.dependencies.filter((d) => !d.dev && !d.optional);
  const pairs = deps.map((d) => shq(`${d.name}|${rDebianPackage(d.name)}|${d.constraint ?? ''}`)).join(' ');
  const cran = publicMirrors(mirrors, ['CRAN_MIRROR']).env.CRAN_MIRROR ?? DEFAULT_CRAN;
  const debian = [
    APT_LISTS_READY,
    'pkgs="r-base-core"; rest=""',
    ...(pairs
      ? [
          `for pair in ${pairs}; do name="\${pair%%|*}"; deb="\${pair#*|}"; deb="\${deb%%|*}"`,
          '  if apt-cache show "$deb" >/dev/null 2>&1; then pkgs="$pkgs $deb"; echo "buildbench: R package $name → Debian package $deb"; else rest="$rest $name"; fi',
          'done',
        ]
      : []),
    aptInstallWords('$pkgs'),
    offline
      ? 'if [ -n "$rest" ]; then echo "buildbench: no Debian package for the R packages:$rest (offline: not installed from CRAN)" >&2; fi'
      : `if [ -n "$rest" ]; then echo "buildbench: installing from CRAN (${cran}):$rest"; for p in $rest; do Rscript -e "install.packages('$p', repos = '${cran}')" || true; done; fi`,
  ].join('\n');
  const report = [
    `mkdir -p ${DEPLOY_RECORD_DIR}`,
    `Rscript -e ${shq(`ip <- installed.packages()[, c("Package", "Version")]; writeLines(sort(unique(paste0(ip[, 1], "==", ip[, 2]))), "${R_FREEZE_FILE}")`)}`,
    ...(pairs
      ? [
          `for pair in ${pairs}; do name="\${pair%%|*}"; want="\${pair##*|}"`,
          `  have=$(Rscript -e "cat(as.character(packageVersion('$name')))" 2>/dev/null || echo 'not installed'); echo "buildbench: R package $name $have\${want:+ (the manifest asks $want)}"`,
          'done',
        ]
      : []),
    say(`installed R packages recorded in ${R_FREEZE_FILE}`),
  ].join('\n');
  return {
    id: offline ? 'r:debian' : 'r:debian+cran',
    system: 'deploy',
    label: offline ? 'R + Debian r-cran-* packages' : 'R + Debian r-cran-* packages, CRAN for the rest',
    evidence: `${eco.manifests.join(', ') || 'R scripts'}: ${deps.length} package(s); ${eco.runtime?.why ?? ''}`,
    dir: '',
    tools: [],
    steps: [
      { purpose: 'dependencies', command: debian },
      { purpose: 'dependencies', command: report },
    ],
  };
}

export const rSetup: EcosystemSetup = {
  kind: 'r',
  recipes(eco, { goal }) {
    const offline = goal.registries.mode === 'offline';
    return offline
      ? [recipe(eco, true, goal.registries.mirrors)]
      : [recipe(eco, false, goal.registries.mirrors), recipe(eco, true, goal.registries.mirrors)];
  },
};
