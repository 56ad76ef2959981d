/**
 * Go setup: golang-go from the distribution (bookworm: Go 1.19), GOPATH, GOCACHE and the module cache under
 * the repository's `.buildbench/`. A vendor/ tree builds with `-mod=vendor` and needs nothing else. Otherwise
 * the modules come from the module proxy (or the GOPROXY the user passed) or, offline, from Debian's
 * golang-*-dev packages, which put each module's source under /usr/share/gocode/src/<module path>: the
 * package that ships a module is looked up in the package index (apt-file, one search for all modules), and
 * the build runs in GOPATH mode over that tree (GO111MODULE=off, GOPATH=<own>:/usr/share/gocode — how
 * Debian builds Go packages, dh-golang), with the repository linked at its module path. A module no package
 * ships is named: it cannot be had offline. `go list -m all` (or vendor/modules.txt, or the Debian packages'
 * versions) is recorded in `.buildbench/deploy/`.
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

/** Where Debian's golang-*-dev packages put module sources (a GOPATH tree). */
export const DEBIAN_GOCODE = '/usr/share/gocode';

const GO_TOOLS: Recipe['tools'] = [{ command: 'go', pkg: 'golang-go' }];

/** An extended regular expression matching any of the module paths literally. */
export function moduleAlternation(paths: readonly string[]): string {
  return paths.map((p) => p.replace(/[.[\]()*+?^$|\\{}]/g, '\\$&')).join('|');
}

function commonLines(goal: DeployGoal): string[] {
  return [
    ...exportLines('GOPATH', '"$PWD/.buildbench/go"'),
    ...exportLines('GOCACHE', '"$PWD/.buildbench/go-cache"'),
    ...exportLines('PATH', '"$GOPATH/bin:$PATH"'),
    ...mirrorLines(goal, /^(GOPROXY|GONOSUMDB|GONOSUMCHECK|GOPRIVATE|GOSUMDB|GOINSECURE|GONOPROXY)$/),
    `mkdir -p "$GOPATH" "$GOCACHE" ${DEPLOY_RECORD_DIR}`,
  ];
}

/** Module mode: download (unless vendored), build every package, record the module list. */
function moduleRecipe(goal: DeployGoal, vendored: boolean, auto: boolean, eco: EcosystemInfo): Recipe {
  const modDir = moduleDir(eco);
  const deps = [...commonLines(goal)];
  if (vendored) deps.push(...exportLines('GOFLAGS', '-mod=vendor'));
  else if (auto) {
    deps.push(
      `if (cd ${shq(modDir || '.')} && timeout 180 go mod download); then echo "buildbench: modules from the module proxy"`,
      'else',
      '  echo "buildbench: the module proxy is unreachable: falling back to Debian\'s golang-*-dev packages"',
      ...debianLines(eco).map((l) => `  ${l}`),
      'fi',
    );
  } else deps.push(`(cd ${shq(modDir || '.')} && go mod download)`);
  return {
    id: vendored ? 'go:vendor' : auto ? 'go:auto' : 'go:modules',
    system: 'deploy',
    label: vendored ? 'go modules (vendor/)' : auto ? 'go modules (proxy, else Debian)' : 'go modules',
    evidence: vendored
      ? 'vendor/modules.txt: the dependencies are in the repository (-mod=vendor)'
      : `go.mod requires ${eco.dependencies.length} module(s)${auto ? "; the proxy first, Debian's golang-*-dev packages when it is unreachable" : ''}`,
    dir: '',
    tools: GO_TOOLS,
    steps: [
      { purpose: 'dependencies', command: script(deps) },
      { purpose: 'build', command: script(buildLines(modDir, vendored)) },
    ],
  };
}

/** The build: in GOPATH mode when the Debian fallback chose it (its env file says so), else module mode. */
function buildLines(modDir: string, vendored: boolean): string[] {
  return [
    SOURCE_DEPLOY_ENV,
    'if [ -f .buildbench/go-gopath-mode ]; then cd "$(cat .buildbench/go-gopath-mode)" && go build ./...',
    `else cd ${shq(modDir || '.')} && go build ./... && { ${vendored ? `cp vendor/modules.txt "$OLDPWD/${DEPLOY_RECORD_DIR}/go-modules.txt"` : `go list -m all > "$OLDPWD/${DEPLOY_RECORD_DIR}/go-modules.txt"`} || true; }; fi`,
  ];
}

/** The folder of the main go.mod ('' for the root). */
function moduleDir(eco: EcosystemInfo): string {
  const mod = eco.manifests.find((m) => m.endsWith('go.mod')) ?? 'go.mod';
  return mod.includes('/') ? mod.slice(0, mod.lastIndexOf('/')) : '';
}

/**
 * Offline: find the packages that ship each required module under /usr/share/gocode/src, install them, and
 * switch the build to GOPATH mode with the repository linked at its module path.
 */
function debianLines(eco: EcosystemInfo): string[] {
  const modules = [...new Set(eco.dependencies.map((d) => d.name))];
  const modDir = moduleDir(eco);
  // The standard library only: module mode with downloads off is enough.
  if (modules.length === 0) return [...exportLines('GOPROXY', 'off'), ...exportLines('GOFLAGS', '-mod=mod')];
  const lines = [
    'bb_own="$PWD/.buildbench/go"',
    `bb_module=$(sed -n 's/^module[[:space:]]*"\\{0,1\\}\\([^"[:space:]]*\\).*/\\1/p' ${shq(modDir ? `${modDir}/go.mod` : 'go.mod')} | head -n 1)`,
    'mkdir -p "$bb_own/src/$(dirname "$bb_module")"',
    `ln -sfn "$PWD${modDir ? `/${modDir}` : ''}" "$bb_own/src/$bb_module"`,
    'echo "$bb_own/src/$bb_module" > .buildbench/go-gopath-mode',
    ...exportLines('GO111MODULE', 'off'),
    ...exportLines('GOPATH', `"$PWD/.buildbench/go:${DEBIAN_GOCODE}"`),
  ];
  return [
    DEPLOY_INSTALL_FN,
    ...lines,
    'command -v apt-file >/dev/null 2>&1 || bb_deploy_install apt-file',
    '[ -n "$(ls /var/lib/apt/lists/*Contents* 2>/dev/null)" ] || apt-file update',
    `bb_hits=$(apt-file search -x ${shq(`^${DEBIAN_GOCODE}/src/(${moduleAlternation(modules)})/[^/]+$`)} 2>/dev/null || true)`,
    'bb_pkgs=""',
    `for bb_m in ${modules.map(shq).join(' ')}; do`,
    `  bb_p=$(printf '%s\\n' "$bb_hits" | grep -F ": ${DEBIAN_GOCODE}/src/$bb_m/" | head -n 1 | cut -d: -f1)`,
    '  if [ -n "$bb_p" ]; then echo "buildbench: Go module $bb_m -> Debian package $bb_p"; bb_pkgs="$bb_pkgs $bb_p"',
    `  else echo "buildbench: Go module $bb_m cannot be had offline: no Debian package ships ${DEBIAN_GOCODE}/src/$bb_m"; fi`,
    'done',
    '# shellcheck disable=SC2086 # a list of package names',
    'if [ -n "$bb_pkgs" ]; then bb_deploy_install $bb_pkgs',
    `  dpkg-query -W -f '\${Package} \${Version}\\n' $bb_pkgs > ${DEPLOY_RECORD_DIR}/go-debian-packages.txt`,
    `  echo "buildbench: module versions Debian gives: $(tr '\\n' ';' < ${DEPLOY_RECORD_DIR}/go-debian-packages.txt)"`,
    'fi',
  ];
}

function debianRecipe(goal: DeployGoal, eco: EcosystemInfo): Recipe {
  return {
    id: 'go:debian',
    system: 'deploy',
    label: 'go with Debian module packages (offline)',
    evidence: `go.mod requires ${eco.dependencies.length} module(s); from Debian's golang-*-dev packages (GOPATH mode over ${DEBIAN_GOCODE})`,
    dir: '',
    tools: GO_TOOLS,
    steps: [
      { purpose: 'dependencies', command: script([...commonLines(goal), ...debianLines(eco)]) },
      { purpose: 'build', command: script(buildLines(moduleDir(eco), false)) },
    ],
  };
}

export const goSetup: EcosystemSetup = {
  kind: 'go',
  recipes(eco, { goal }) {
    const vendored = eco.manifests.includes('vendor/modules.txt');
    if (vendored) return [moduleRecipe(goal, true, false, eco)];
    if (goal.registries.mode === 'offline') return [debianRecipe(goal, eco)];
    if (goal.registries.mode === 'online') return [moduleRecipe(goal, false, false, eco)];
    return [moduleRecipe(goal, false, true, eco), debianRecipe(goal, eco)];
  },
};
