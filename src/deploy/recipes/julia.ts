/**
 * Julia setup: Julia's own package manager (`Pkg.instantiate()` with the project's Project.toml/Manifest.toml)
 * — when a `julia` runtime exists. Debian bookworm does not package Julia (apt-cache has no candidate), and
 * this tool does not download one: the recipe then fails with a message that says so (and a layer-1
 * signature reads it), never pretending the environment is ready.
 */
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup } from './setup.js';
import { APT_LISTS_READY, DEPLOY_RECORD_DIR, aptInstall } from './setup-shell.js';

export const JULIA_FREEZE_FILE = `${DEPLOY_RECORD_DIR}/julia-status.txt`;

/** The message the setup prints when no Julia can be had (verifiers/signatures.yaml `runtime-not-packaged` reads it). */
export const NO_JULIA_MESSAGE =
  'buildbench: julia is not installed and the distribution does not package it (apt-cache has no candidate for julia); install Julia (https://julialang.org/downloads/) in the image, then run again';

function runtimeStep(): string {
  return [
    'if ! command -v julia >/dev/null 2>&1; then',
    `  ${APT_LISTS_READY}`,
    `  if apt-cache policy julia 2>/dev/null | grep -q 'Candidate: [0-9]'; then ${aptInstall(['julia'])}; else echo '${NO_JULIA_MESSAGE}' >&2; exit 1; fi`,
    'fi',
    'julia --version',
  ].join('\n');
}

function recipe(eco: EcosystemInfo, offline: boolean): Recipe {
  const instantiate = offline
    ? 'JULIA_PKG_OFFLINE=true julia --project=. -e "using Pkg; Pkg.instantiate()"'
    : 'julia --project=. -e "using Pkg; Pkg.instantiate()"';
  return {
    id: offline ? 'julia:offline' : 'julia:pkg',
    system: 'deploy',
    label: offline ? 'julia Pkg.instantiate (offline: only what the depot has)' : 'julia Pkg.instantiate',
    evidence: `${eco.manifests.join(', ') || 'Julia sources'}: ${eco.dependencies.length} package(s); ${eco.runtime?.why ?? ''}`,
    dir: '',
    tools: [],
    steps: [
      { purpose: 'dependencies', command: runtimeStep() },
      ...(eco.manifests.length > 0 ? [{ purpose: 'dependencies' as const, command: instantiate }] : []),
      {
        purpose: 'dependencies',
        command: `mkdir -p ${DEPLOY_RECORD_DIR} && julia --project=. -e "using Pkg; Pkg.status(mode=PKGMODE_MANIFEST)" > ${JULIA_FREEZE_FILE} 2>&1 || true`,
      },
    ],
  };
}

export const juliaSetup: EcosystemSetup = {
  kind: 'julia',
  recipes(eco, { goal }) {
    return [recipe(eco, goal.registries.mode === 'offline')];
  },
};
