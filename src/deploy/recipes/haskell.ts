/**
 * Haskell setup: ghc and cabal-install from the distribution (bookworm: GHC 9.0.2, cabal 3.4), cabal's state
 * in `.buildbench/cabal` (CABAL_DIR, never the user's ~/.cabal). Online: `cabal update` and a build against
 * Hackage. Offline: Debian's `libghc-<package>-dev` packages register each library in GHC's global package
 * database, and `cabal build --offline` takes them from there (which versions they are is recorded).
 * A stack.yaml's snapshot is not honoured (stack is not in bookworm): said in the evidence.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup } from './setup.js';
import {
  DEPLOY_RECORD_DIR,
  SOURCE_DEPLOY_ENV,
  exportLines,
  script,
  DEPLOY_INSTALL_FN,
} from './setup-shell.js';

/** Libraries that come with GHC itself (no package to install). */
const GHC_BOOT = new Set(['base', 'ghc-prim', 'template-haskell', 'rts', 'ghc', 'integer-gmp', 'ghc-bignum']);

export function debianHaskellPackage(name: string): string {
  return `libghc-${name.toLowerCase()}-dev`;
}

function recipe(eco: EcosystemInfo, offline: boolean): Recipe {
  const names = [...new Set(eco.dependencies.filter((d) => !d.dev).map((d) => d.name))].filter(
    (n) => !GHC_BOOT.has(n),
  );
  const stack = eco.notes.some((n) => n.includes('Stackage'));
  const deps = [
    ...exportLines('CABAL_DIR', '"$PWD/.buildbench/cabal"'),
    `mkdir -p "$CABAL_DIR" ${DEPLOY_RECORD_DIR}`,
  ];
  if (offline) {
    deps.push(
      DEPLOY_INSTALL_FN,
      'bb_pkgs=""',
      `for bb_p in ${names.map((n) => shq(debianHaskellPackage(n))).join(' ')}; do`,
      '  if apt-cache show "$bb_p" >/dev/null 2>&1; then bb_pkgs="$bb_pkgs $bb_p"; else echo "buildbench: $bb_p is not a Debian package: that library cannot be had offline"; fi',
      'done',
      '# shellcheck disable=SC2086 # a list of package names',
      'if [ -n "$bb_pkgs" ]; then bb_deploy_install $bb_pkgs; fi',
    );
  } else deps.push('cabal update');
  return {
    id: offline ? 'haskell:debian' : 'haskell:hackage',
    system: 'deploy',
    label: offline ? 'cabal with Debian libghc-*-dev (offline)' : 'cabal with Hackage',
    evidence: `${eco.manifests[0] ?? '*.cabal'} depends on ${names.length} librar(ies)${stack ? "; stack.yaml's snapshot is not honoured (no stack in the distribution)" : ''}`,
    dir: '',
    tools: [
      { command: 'ghc', pkg: 'ghc' },
      { command: 'cabal', pkg: 'cabal-install' },
    ],
    steps: [
      { purpose: 'dependencies', command: script(deps) },
      {
        purpose: 'build',
        command: script([
          SOURCE_DEPLOY_ENV,
          `cabal build${offline ? ' --offline' : ''}`,
          `ghc-pkg list --global --simple-output > ${DEPLOY_RECORD_DIR}/ghc-packages.txt || true`,
        ]),
      },
    ],
  };
}

export const haskellSetup: EcosystemSetup = {
  kind: 'haskell',
  recipes(eco, { goal }) {
    if (goal.registries.mode === 'offline') return [recipe(eco, true)];
    if (goal.registries.mode === 'online') return [recipe(eco, false)];
    return [recipe(eco, true), recipe(eco, false)];
  },
};
