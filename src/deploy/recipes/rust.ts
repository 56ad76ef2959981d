/**
 * Rust setup: cargo and rustc from the distribution (bookworm: cargo 0.66 / rustc 1.63), a CARGO_HOME under
 * the repository's `.buildbench/` (never the user's), and the crates either from the registry (or the mirror
 * the user passed) or, offline, from Debian's `librust-<crate>-dev` packages through a cargo source
 * replacement: `[source.crates-io] replace-with` a directory source at /usr/share/cargo/registry, where those
 * packages put each crate's source (Debian Rust packaging policy: crate `foo_bar` is `librust-foo-bar-dev`,
 * an older semver line of it `librust-foo-bar-<major>-dev`). `auto` tries the registry first and falls back.
 * The build writes Cargo.lock; its copy in `.buildbench/deploy/` records the exact versions, and the Debian
 * path also lists which crate versions the packages gave.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { DeployGoal } from '../types.js';
import type { EcosystemSetup } from './setup.js';
import {
  DEPLOY_RECORD_DIR,
  SOURCE_DEPLOY_ENV,
  exportLines,
  mirrorLines,
  script,
  DEPLOY_INSTALL_FN,
} from './setup-shell.js';

/** Where Debian's crate packages put their sources (a cargo directory source). */
export const DEBIAN_CARGO_REGISTRY = '/usr/share/cargo/registry';

/** The Debian packages that may hold a crate, most likely first (the unversioned name, then the major's). */
export function debianCratePackages(crate: string, constraint?: string): string[] {
  const base = crate.toLowerCase().replaceAll('_', '-');
  const major = /^[\^~=>\s]*(\d+)(?:\.(\d+))?/.exec(constraint ?? '');
  const names = [`librust-${base}-dev`];
  if (major?.[1] && major[1] !== '0') names.push(`librust-${base}-${major[1]}-dev`);
  else if (major?.[1] === '0' && major[2]) names.push(`librust-${base}-0.${major[2]}-dev`);
  return names;
}

/** The cargo configuration of the offline path: crates-io replaced by Debian's directory source. */
const CARGO_CONFIG = [
  "# buildbench: crates from Debian's librust-*-dev packages (offline)",
  '[source.crates-io]',
  'replace-with = "debian"',
  '[source.debian]',
  `directory = "${DEBIAN_CARGO_REGISTRY}"`,
  '[net]',
  'offline = true',
];

const CARGO_TOOLS: Recipe['tools'] = [
  { command: 'cargo', pkg: 'cargo' },
  { command: 'rustc', pkg: 'rustc' },
];

/** Bash that installs the Debian packages of the crates and points crates-io at their directory source. */
function debianCratesLines(eco: EcosystemInfo): string[] {
  const specs = uniqueCrates(eco).map(
    ({ name, constraint }) => `${name}=${debianCratePackages(name, constraint).join(',')}`,
  );
  return [
    DEPLOY_INSTALL_FN,
    `mkdir -p "$CARGO_HOME" ${DEPLOY_RECORD_DIR}`,
    'bb_pkgs=""',
    `for bb_spec in ${specs.map(shq).join(' ')}; do`,
    '  bb_found=""',
    '  for bb_p in $(printf %s "${bb_spec#*=}" | tr , " "); do',
    '    if apt-cache show "$bb_p" >/dev/null 2>&1; then bb_found="$bb_p"; bb_pkgs="$bb_pkgs $bb_p"; break; fi',
    '  done',
    '  if [ -n "$bb_found" ]; then echo "buildbench: crate ${bb_spec%%=*} -> Debian package $bb_found"',
    '  else echo "buildbench: crate ${bb_spec%%=*} has no Debian package (tried ${bb_spec#*=}): it cannot be had offline"; fi',
    'done',
    '# shellcheck disable=SC2086 # a list of package names',
    'if [ -n "$bb_pkgs" ]; then bb_deploy_install $bb_pkgs; fi',
    `printf '%s\\n' ${CARGO_CONFIG.map(shq).join(' ')} > "$CARGO_HOME/config.toml"`,
    `ls ${DEBIAN_CARGO_REGISTRY} > ${DEPLOY_RECORD_DIR}/rust-debian-crates.txt 2>/dev/null || true`,
    `echo "buildbench: crate versions Debian gives: $(tr '\\n' ' ' < ${DEPLOY_RECORD_DIR}/rust-debian-crates.txt)"`,
  ];
}

function uniqueCrates(eco: EcosystemInfo): { name: string; constraint?: string }[] {
  const seen = new Map<string, { name: string; constraint?: string }>();
  for (const dep of eco.dependencies) {
    if (dep.constraint?.startsWith('git ')) continue;
    if (!seen.has(dep.name)) seen.set(dep.name, { name: dep.name, constraint: dep.constraint });
  }
  return [...seen.values()];
}

function baseLines(goal: DeployGoal): string[] {
  return [
    ...exportLines('CARGO_HOME', '"$PWD/.buildbench/cargo"'),
    ...exportLines('PATH', '"$CARGO_HOME/bin:$PATH"'),
    ...mirrorLines(goal, /^CARGO_/),
  ];
}

/** The build, and the lock it resolved copied to the record folder. */
function buildStep(offline: boolean): Recipe['steps'][number] {
  return {
    purpose: 'build',
    command: script([
      SOURCE_DEPLOY_ENV,
      `cargo build --release${offline ? ' --offline' : ''}`,
      `mkdir -p ${DEPLOY_RECORD_DIR} && cp Cargo.lock ${DEPLOY_RECORD_DIR}/Cargo.lock`,
    ]),
  };
}

function recipe(id: string, label: string, evidence: string, deps: string[], offline: boolean): Recipe {
  return {
    id,
    system: 'deploy',
    label,
    evidence,
    dir: '',
    tools: CARGO_TOOLS,
    steps: [{ purpose: 'dependencies', command: script(deps) }, buildStep(offline)],
  };
}

export const rustSetup: EcosystemSetup = {
  kind: 'rust',
  recipes(eco, { goal }) {
    const why = `${eco.manifests[0] ?? 'Cargo.toml'} declares ${eco.dependencies.length} crate(s)`;
    const debian = recipe(
      'rust:debian-crates',
      'cargo with Debian crates (offline)',
      `${why}; crates from Debian's librust-*-dev packages through a cargo source replacement`,
      [...baseLines(goal), ...debianCratesLines(eco)],
      true,
    );
    const registry = recipe(
      'rust:registry',
      'cargo with the crate registry',
      `${why}; crates fetched from the registry${Object.keys(goal.registries.mirrors).some((k) => k.startsWith('CARGO_')) ? ' (the mirror given)' : ''}`,
      [...baseLines(goal), 'mkdir -p "$CARGO_HOME"', 'cargo fetch'],
      false,
    );
    if (goal.registries.mode === 'offline') return [debian];
    if (goal.registries.mode === 'online') return [registry];
    const auto = recipe(
      'rust:auto',
      'cargo (registry, else Debian crates)',
      `${why}; the registry first, Debian's librust-*-dev crates when it is unreachable`,
      [
        ...baseLines(goal),
        // An earlier turn's fallback left Debian's source replacement here: without it the registry is tried
        // first again (as in a fresh sandbox), and the line below says truly where the crates came from.
        'rm -f "$CARGO_HOME/config.toml"',
        'mkdir -p "$CARGO_HOME"',
        'if CARGO_NET_RETRY=1 CARGO_HTTP_TIMEOUT=20 timeout 180 cargo fetch; then echo "buildbench: crates from the registry"',
        'else',
        '  echo "buildbench: the crate registry is unreachable: falling back to Debian\'s librust-*-dev crates"',
        ...debianCratesLines(eco).map((l) => `  ${l}`),
        'fi',
      ],
      false,
    );
    return [auto, debian];
  },
};
