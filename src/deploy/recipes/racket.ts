/**
 * Racket setup: the distribution's racket (bookworm: 8.7, the full distribution, so most catalog packages
 * such as math-lib are already installed). A dependency that is not installed is installed from the package
 * catalog into a user scope under `.buildbench/racket` (PLTADDONDIR) when the catalog is reachable; offline
 * it is named as missing. `raco make` then compiles the repository's modules.
 */
import { shq } from '../../base/shell.js';
import type { EcosystemSetup } from './setup.js';
import { DEPLOY_RECORD_DIR, SOURCE_DEPLOY_ENV, exportLines, script } from './setup-shell.js';

export const racketSetup: EcosystemSetup = {
  kind: 'racket',
  recipes(eco, { goal }) {
    const deps = [...new Set(eco.dependencies.filter((d) => !d.dev).map((d) => d.name))];
    const offline = goal.registries.mode === 'offline';
    const install = offline
      ? 'echo "buildbench: Racket package $bb_d is not installed and the catalog is off (offline)"'
      : 'raco pkg install --batch --auto --scope user "$bb_d"';
    return [
      {
        id: offline ? 'racket:installed' : 'racket:catalog',
        system: 'deploy',
        label: offline ? 'racket (installed packages only)' : 'racket with the package catalog',
        evidence: `info.rkt needs ${deps.length} package(s); the distribution's racket is the full distribution`,
        dir: '',
        tools: [{ command: 'racket', pkg: 'racket' }],
        steps: [
          {
            purpose: 'dependencies',
            command: script([
              ...exportLines('PLTADDONDIR', '"$PWD/.buildbench/racket"'),
              `mkdir -p "$PLTADDONDIR" ${DEPLOY_RECORD_DIR}`,
              `for bb_d in ${deps.map(shq).join(' ')}; do`,
              `  raco pkg show -a "$bb_d" 2>/dev/null | grep -q "^ *\\[*$bb_d\\b" || ${install}`,
              'done',
              `raco pkg show -a > ${DEPLOY_RECORD_DIR}/racket-packages.txt 2>&1 || true`,
            ]),
          },
          {
            purpose: 'build',
            command: script([
              SOURCE_DEPLOY_ENV,
              'find . -name .buildbench -prune -o -name "*.rkt" -print0 | xargs -0 -r raco make -v',
            ]),
          },
        ],
      },
    ];
  },
};
