/**
 * JavaScript (Node) setup: nodejs and npm from Debian, then `npm ci` when npm's lock file is there (exact
 * versions) or `npm install`, from the npm registry or the mirror the user passed (`npm_config_registry`).
 * With `auto`, an unreachable registry falls back to Debian's `node-<name>` packages (on NODE_PATH via the
 * deploy environment), said in the log; `offline` uses those only. What was installed is recorded in
 * `.buildbench/deploy/javascript-freeze.txt`.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup, SetupContext } from './setup.js';
import {
  APT_LISTS_READY,
  DEPLOY_RECORD_DIR,
  aptInstall,
  aptInstallWords,
  appendEnvLine,
  publicMirrors,
  say,
  stepExportLines,
} from './setup-shell.js';

export const JS_FREEZE_FILE = `${DEPLOY_RECORD_DIR}/javascript-freeze.txt`;

/** Debian's name for an npm package (`lodash` → node-lodash, `@scope/name` → node-scope-name). */
export function nodeDebianPackage(name: string): string {
  return `node-${name.replace(/^@/, '').replace('/', '-').toLowerCase()}`;
}

type Source = 'auto' | 'registry' | 'debian';

function npmInstall(eco: EcosystemInfo): string {
  const lock = eco.manifests.some((m) => m === 'package-lock.json' || m === 'npm-shrinkwrap.json');
  const install = lock ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund';
  return `if ! command -v npm >/dev/null 2>&1; then ${aptInstall(['npm'])}; fi\n${install}`;
}

/**
 * Whether the registry (the mirror when one was passed) answers, asked with node itself: npm is only
 * installed when it is needed (Debian's npm brings some 350 packages), and a dead registry costs seconds.
 */
const REGISTRY_PROBE = `node -e ${shq(
  "const u = process.env.npm_config_registry || process.env.NPM_CONFIG_REGISTRY || 'https://registry.npmjs.org/';" +
    "require('https').get(u, (r) => process.exit(r.statusCode < 500 ? 0 : 1))" +
    ".on('error', (e) => { console.log('buildbench: the npm registry ' + u + ' is not reachable (' + (e.code || e.name) + ')'); process.exit(1); })" +
    '.setTimeout(15000, function () { this.destroy(new Error("no answer in 15 s")); });',
)}`;

function debianInstall(eco: EcosystemInfo): string {
  const deps = eco.dependencies.filter((d) => !d.dev);
  const pairs = deps.map((d) => shq(`${d.name}|${nodeDebianPackage(d.name)}`)).join(' ');
  if (!pairs) return say('no npm dependencies are declared');
  return [
    APT_LISTS_READY,
    'pkgs=""; none=""',
    `for pair in ${pairs}; do name="\${pair%%|*}"; deb="\${pair#*|}"`,
    '  if apt-cache show "$deb" >/dev/null 2>&1; then pkgs="$pkgs $deb"; echo "buildbench: $name → Debian package $deb"; else none="$none $name"; fi',
    'done',
    `if [ -n "$pkgs" ]; then ${aptInstallWords('$pkgs')}; fi`,
    'if [ -n "$none" ]; then echo "buildbench: no Debian package for the npm packages:$none" >&2; fi',
    appendEnvLine('export NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs\\${NODE_PATH:+:\\$NODE_PATH}'),
  ].join('\n');
}

/**
 * Whether `npm install` would do nothing a target needs: no dependency of any kind declared, no lock file, no
 * install-time script (`preinstall`, `install`, `postinstall`, `prepare`), no native addon, no workspaces. Then
 * neither npm (Debian's brings some 350 packages: minutes per sandbox) nor the registry is needed.
 */
export function nothingToInstall(eco: EcosystemInfo): boolean {
  return (
    eco.dependencies.length === 0 &&
    eco.manifests.length === 1 &&
    !eco.notes.some((n) => /on install:|binding\.gyp|workspaces|not valid JSON/.test(n))
  );
}

function dependencyStep(eco: EcosystemInfo, source: Source, context: SetupContext): string {
  if (nothingToInstall(eco))
    return say('package.json declares no dependencies and no install script: nothing for npm to install');
  const { env } = publicMirrors(context.goal.registries.mirrors, [
    'npm_config_registry',
    'NPM_CONFIG_REGISTRY',
  ]);
  const lines = stepExportLines(env);
  if (source === 'debian') lines.push(say('npm packages from Debian (offline)'), debianInstall(eco));
  else if (source === 'registry') lines.push(npmInstall(eco));
  else {
    lines.push(
      `if ${REGISTRY_PROBE}; then`,
      npmInstall(eco),
      'else',
      say('installing Debian node-* packages instead of the npm registry'),
      debianInstall(eco),
      'fi',
    );
  }
  return lines.join('\n');
}

const RECORD = `mkdir -p ${DEPLOY_RECORD_DIR} && { node --version | sed 's/^/node /'; if [ -d node_modules ]; then npm ls --all --parseable --long 2>/dev/null | sed -n 's|^[^:]*:\\([^:]*\\).*|\\1|p' | sort -u; fi; dpkg-query -W -f='\${Package}==\${Version}\\n' 'node-*' 2>/dev/null || true; } > ${JS_FREEZE_FILE} && echo "buildbench: installed JavaScript packages recorded in ${JS_FREEZE_FILE}"`;

function recipe(eco: EcosystemInfo, source: Source, context: SetupContext): Recipe {
  const label = {
    auto: 'node + npm (Debian node-* when the registry is unreachable)',
    registry: 'node + npm',
    debian: 'node + Debian node-* packages',
  }[source];
  return {
    id: `javascript:${source}`,
    system: 'deploy',
    label,
    evidence: `${eco.manifests.join(', ')}: ${eco.dependencies.filter((d) => !d.dev).length} dependencies; ${eco.runtime?.why ?? ''}`,
    dir: '',
    tools: [{ command: 'node', pkg: 'nodejs' }],
    steps: [
      { purpose: 'dependencies', command: dependencyStep(eco, source, context) },
      { purpose: 'dependencies', command: RECORD },
    ],
  };
}

export const javascriptSetup: EcosystemSetup = {
  kind: 'javascript',
  recipes(eco, context) {
    switch (context.goal.registries.mode) {
      case 'offline':
        return [recipe(eco, 'debian', context)];
      case 'online':
        return [recipe(eco, 'registry', context)];
      default:
        return [recipe(eco, 'auto', context), recipe(eco, 'debian', context)];
    }
  },
};
