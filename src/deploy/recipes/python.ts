/**
 * Python setup: a virtual environment that sees the system's packages (`--system-site-packages`, so Debian's
 * python3-* packages count), then the declared dependencies — from the package index with pip (uv when it
 * is there), honouring a mirror the user passed (`PIP_INDEX_URL`, `PIP_EXTRA_INDEX_URL`), or from Debian's
 * packages when the index is unreachable (`auto`, said in the log) or the run is `offline`. The PyPI → Debian
 * mapping is data (`verifiers/python-packages.yaml`: python3-<name> and its exceptions) and every name is
 * checked with apt-cache in the sandbox. The setup then says which version each dependency got against what
 * the manifest asks for, and records every installed distribution with its exact version in
 * `.buildbench/deploy/python-freeze.txt`. The venv's bin/ goes into DEPLOY_ENV_FILE.
 *
 * A repair can switch the dependencies to Debian's packages for a run whose index answers but cannot satisfy
 * them (no wheel for this Python, a conflict): `BB_PYTHON_DEPS_FROM=debian` (src/knowledge/repair/rules/python.ts).
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { DeclaredDependency, EcosystemInfo } from '../../repo/types.js';
import {
  debianPackageFor,
  defaultPythonTable,
  normalizePyName,
  type PythonTable,
} from '../../repo/ecosystems/python-table.js';
import { PYTHON_DEPS_FROM } from '../types.js';
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

export const PYTHON_VENV = '.buildbench/venv';
export const PYTHON_FREEZE_FILE = `${DEPLOY_RECORD_DIR}/python-freeze.txt`;
const MIRROR_VARIABLES = ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_TRUSTED_HOST', 'UV_INDEX_URL'];
const DEFAULT_INDEX = 'https://pypi.org/simple';

/** The dependencies that are installed: not dev-only, not optional. */
export function runtimeDependencies(eco: EcosystemInfo): DeclaredDependency[] {
  return eco.dependencies.filter((d) => !d.dev && !d.optional);
}

/** Each dependency's Debian package (null: not packaged), by the table's rule. */
export function debianPlan(
  deps: readonly DeclaredDependency[],
  table: PythonTable,
): { dep: DeclaredDependency; pkg: string | null }[] {
  const seen = new Set<string>();
  return deps
    .filter((d) => !seen.has(normalizePyName(d.name)) && seen.add(normalizePyName(d.name)))
    .map((dep) => ({ dep, pkg: debianPackageFor(dep.name, table) }));
}

/** A requirement pip understands (Poetry's `^1.2`/`~1.2` are not PEP 440: the name alone is asked for then). */
function pipSpec(dep: DeclaredDependency): string {
  const c = dep.constraint;
  if (!c || /^[\^~](?!=)/.test(c) || c.includes('||')) return dep.name;
  return /^[<>=!~]/.test(c) ? `${dep.name}${c}` : `${dep.name}==${c}`;
}

/** Requirement files (not dev ones) the manifests list, read by pip itself (it knows includes and markers best). */
function requirementFiles(eco: EcosystemInfo): string[] {
  const runtime = new Set(runtimeDependencies(eco).map((d) => d.manifest.split(':')[0]));
  return eco.manifests.filter((m) => /requirements[^/]*\.txt$/i.test(m) && runtime.has(m));
}

/** The venv (python3-venv when the interpreter lacks it) and its bin/ in the deploy environment. */
function venvStep(): string {
  return [
    `if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then ${aptInstall(['python3-venv'])}; fi`,
    `[ -x ${PYTHON_VENV}/bin/python ] || python3 -m venv --system-site-packages ${PYTHON_VENV}`,
    appendEnvLine(`export VIRTUAL_ENV=$PWD/${PYTHON_VENV} PATH=$PWD/${PYTHON_VENV}/bin:\\$PATH`),
  ].join('\n');
}

/** Installs the Debian packages of the plan that apt-cache knows; says which dependencies have none. */
function debianInstall(plan: { dep: DeclaredDependency; pkg: string | null }[]): string {
  const pairs = plan.map(({ dep, pkg }) => shq(`${dep.name}|${pkg ?? ''}`)).join(' ');
  return [
    APT_LISTS_READY,
    'pkgs=""; none=""',
    `for pair in ${pairs}; do name="\${pair%%|*}"; deb="\${pair#*|}"`,
    '  if [ -n "$deb" ] && apt-cache show "$deb" >/dev/null 2>&1; then pkgs="$pkgs $deb"; echo "buildbench: $name → Debian package $deb"; else none="$none $name"; fi',
    'done',
    `if [ -n "$pkgs" ]; then ${aptInstallWords('$pkgs')}; fi`,
    'if [ -n "$none" ]; then echo "buildbench: no Debian package for:$none (the target fails if it imports them)" >&2; fi',
  ].join('\n');
}

/** pip (uv when present) installing the manifests' requirements into the venv. */
function pipInstall(eco: EcosystemInfo): string {
  const files = requirementFiles(eco);
  const fromFiles = new Set(files);
  const loose = runtimeDependencies(eco).filter((d) => !fromFiles.has(d.manifest.split(':')[0] ?? ''));
  const args = [...files.flatMap((f) => ['-r', f]), ...loose.map(pipSpec)].map(shq).join(' ');
  if (!args) return say('no Python dependencies are declared');
  return [
    `if command -v uv >/dev/null 2>&1; then uv pip install --python ${PYTHON_VENV}/bin/python ${args}`,
    `else ${PYTHON_VENV}/bin/python -m pip install --disable-pip-version-check ${args}; fi`,
  ].join('\n');
}

/**
 * Whether the index answers (a short probe, so an offline run falls back in seconds, not after pip's retries).
 * It names the error by its type and code only: the resolver's or TLS's own words would read as a network
 * failure to layer 1, while the fallback is the expected path.
 */
const INDEX_PROBE = `${PYTHON_VENV}/bin/python -c 'import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=10)
except Exception as error:
    reason = getattr(error, "reason", error)
    code = getattr(reason, "errno", None) or getattr(reason, "verify_code", None) or getattr(error, "code", None)
    print("buildbench: the Python package index " + sys.argv[1] + " is not reachable (" + type(reason).__name__ + ("" if code is None else " " + str(code)) + ")")
    sys.exit(1)' "\${PIP_INDEX_URL:-${DEFAULT_INDEX}}/"`;

/** How each dependency came out against its constraint, and the freeze file of every installed distribution. */
function reportStep(deps: readonly DeclaredDependency[]): string {
  const pairs = deps.map((d) => `${d.name}|${d.constraint ?? ''}`);
  const code = `import sys, re, importlib.metadata as md
def v(s): return [int(x) for x in re.findall(r"\\d+", s.split("+")[0])[:4]]
def cmp(a, b):
    a, b = v(a), v(b); n = max(len(a), len(b)); a += [0]*(n-len(a)); b += [0]*(n-len(b))
    return (a > b) - (a < b)
def ok(have, c):
    for part in filter(None, c.split(",")):
        m = re.match(r"(===|==|!=|<=|>=|~=|<|>)\\s*(.+)", part)
        if not m: return None
        op, want = m.groups()
        if want.endswith(".*"):
            pre = want[:-2]; hit = have == pre or have.startswith(pre + ".")
            if (op == "==") != hit: return False
            continue
        c2 = cmp(have, want)
        if not {"==": c2 == 0, "===": have == want, "!=": c2 != 0, "<=": c2 <= 0, ">=": c2 >= 0, "<": c2 < 0, ">": c2 > 0, "~=": c2 >= 0}[op]: return False
    return True
for pair in sys.argv[2:]:
    name, c = pair.split("|", 1)
    try: have = md.version(name)
    except md.PackageNotFoundError:
        print("buildbench: " + name + " is not installed"); continue
    verdict = "" if not c else {True: " (satisfies " + c + ")", False: " (the manifest asks " + c + ": NOT satisfied)", None: " (" + c + " not checked)"}[ok(have, c)]
    print("buildbench: " + name + " " + have + verdict)
rows = sorted({(d.metadata["Name"] or "?") + "==" + d.version for d in md.distributions()}, key=str.lower)
open(sys.argv[1], "w").write("\\n".join(rows) + "\\n")
print("buildbench: " + str(len(rows)) + " installed Python distributions recorded in " + sys.argv[1])`;
  return `mkdir -p ${DEPLOY_RECORD_DIR} && ${PYTHON_VENV}/bin/python -c ${shq(code)} ${shq(PYTHON_FREEZE_FILE)} ${pairs.map(shq).join(' ')}`;
}

type Source = 'auto' | 'index' | 'debian';

/** The dependency step: from the index, from Debian, or the index with Debian as the fallback. */
function dependencyStep(
  eco: EcosystemInfo,
  source: Source,
  context: SetupContext,
  table: PythonTable,
): string {
  const deps = runtimeDependencies(eco);
  const plan = debianPlan(deps, table);
  const { env } = publicMirrors(context.goal.registries.mirrors, MIRROR_VARIABLES);
  const lines = [...stepExportLines(env)];
  const debian = debianInstall(plan);
  if (source === 'debian') {
    lines.push(say('Python dependencies from Debian packages (offline)'), debian);
  } else if (source === 'index') {
    lines.push(
      `if [ "\${${PYTHON_DEPS_FROM}:-}" = debian ]; then`,
      say('Python dependencies from Debian packages (a repair chose them)'),
      debian,
      'else',
      pipInstall(eco),
      'fi',
    );
  } else {
    lines.push(
      `if [ "\${${PYTHON_DEPS_FROM}:-}" != debian ] && ${INDEX_PROBE}; then`,
      pipInstall(eco),
      'else',
      say('installing the Python dependencies from Debian packages instead of the index'),
      debian,
      'fi',
    );
  }
  return lines.join('\n');
}

function recipe(eco: EcosystemInfo, source: Source, context: SetupContext, table: PythonTable): Recipe {
  const deps = runtimeDependencies(eco);
  const label = {
    auto: 'python venv + pip (Debian packages when the index is unreachable)',
    index: 'python venv + pip',
    debian: 'python venv + Debian packages',
  }[source];
  const { withheld } = publicMirrors(context.goal.registries.mirrors, MIRROR_VARIABLES);
  const evidence = [
    `${eco.manifests.join(', ') || 'Python sources'}: ${deps.length} dependenc${deps.length === 1 ? 'y' : 'ies'}`,
    eco.runtime ? `runtime: ${eco.runtime.why}` : '',
    withheld.length > 0
      ? `mirror settings with credentials are not written into the recipe: ${withheld.join(', ')}`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  return {
    id: `python:${source}`,
    system: 'deploy',
    label,
    evidence,
    dir: '',
    tools: [{ command: 'python3', pkg: 'python3' }],
    steps: [
      { purpose: 'dependencies', command: venvStep() },
      { purpose: 'dependencies', command: dependencyStep(eco, source, context, table) },
      { purpose: 'dependencies', command: reportStep(deps) },
    ],
  };
}

export const pythonSetup: EcosystemSetup = {
  kind: 'python',
  recipes(eco, context) {
    // Python files without any manifest: nothing to install up front (a missing import is repaired from its error).
    if (eco.manifests.length === 0 && eco.dependencies.length === 0) return [];
    const table = defaultPythonTable();
    switch (context.goal.registries.mode) {
      case 'offline':
        return [recipe(eco, 'debian', context, table)];
      case 'online':
        return [recipe(eco, 'index', context, table)];
      default:
        return [recipe(eco, 'auto', context, table), recipe(eco, 'debian', context, table)];
    }
  },
};
