/**
 * What the model strategies see of a deploy run (`TurnContext.goal`): the target experiment (command, working
 * directory, time limit) and the evidence it must leave, the ecosystems inspection found with their
 * manifests, and the `DEPLOY_ENV_FILE` convention. Only the goal is described: the task's verifier may be
 * hidden, and nothing of it is in `DeployGoal` — this file cannot leak what it is never given. Dependency
 * names and manifest paths are repository data, so they go to the model as quoted data.
 */
import { DEPLOY_ENV_FILE, type DeployGoal, type TargetEvidence } from '../../deploy/types.js';
import type { EcosystemInfo, RepoInfo } from '../../repo/types.js';
import { quoteUntrusted } from '../../llm/prompts.js';

/** How much of the ecosystems a compaction level shows. */
export type EcosystemDetail = 'full' | 'compact' | 'minimal';

const DEPENDENCIES_SHOWN: Record<EcosystemDetail, number> = { full: 25, compact: 8, minimal: 0 };

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 120 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

/** The evidence the target must leave, one line per kind; empty when the task names none. */
export function describeEvidence(evidence: TargetEvidence): string[] {
  const lines: string[] = [];
  if (evidence.files?.length)
    lines.push(
      `- files that must exist and be non-empty (relative to the target's directory): ${evidence.files.map((f) => oneLine(f, 200)).join(', ')}`,
    );
  if (evidence.output?.length)
    lines.push(`- its output must match: ${evidence.output.map((p) => `/${oneLine(p, 200)}/`).join(', ')}`);
  for (const m of evidence.metrics ?? []) {
    const bounds =
      m.min !== undefined && m.max !== undefined
        ? ` between ${m.min} and ${m.max}`
        : m.min !== undefined
          ? ` of at least ${m.min}`
          : m.max !== undefined
            ? ` of at most ${m.max}`
            : '';
    lines.push(`- a number at \`${oneLine(m.key, 120)}\` in the JSON file ${oneLine(m.file, 200)}${bounds}`);
  }
  return lines;
}

/** The goal section of a deploy turn: the target experiment, its evidence and how the environment is handed over. */
export function describeDeployGoal(goal: DeployGoal, workdir: string): string {
  const t = goal.target;
  const cwd = t.cwd === '' || t.cwd === '.' ? workdir : `${workdir.replace(/\/+$/, '')}/${t.cwd}`;
  const lines = [
    'Deploy the repository: set up the environment in which its target experiment runs here, and leave it so. The harness, not you, decides success: it runs the target in the environment your scripts made and checks what it leaves (a verifier you do not see may check more). A weaker check passing — the package imports, `--help` works — is not the goal.',
    '',
    `Target experiment: \`${oneLine(t.command, 1500)}\``,
    `- runs in ${cwd}, with a time limit of ${seconds(t.timeoutMs)}`,
  ];
  const evidence = describeEvidence(t.evidence);
  lines.push(...(evidence.length > 0 ? evidence : ['- it must exit with status 0']));
  if (goal.paper)
    lines.push(`Paper: ${oneLine(goal.paper.title, 200)}${goal.paper.url ? ` (${goal.paper.url})` : ''}`);
  if (goal.requires.length > 0) lines.push(`The task needs: ${goal.requires.join(', ')}.`);
  if (goal.guest)
    lines.push(
      `Guest: a ${goal.guest.kind} image at ${oneLine(goal.guest.image, 200)}${goal.guest.build ? `, built by \`${oneLine(goal.guest.build, 300)}\`` : ''}, booted under QEMU; its serial console must match /${oneLine(goal.guest.pattern, 200)}/ within ${seconds(goal.guest.withinMs)}.`,
    );
  lines.push(registriesLine(goal));
  lines.push(
    `Environment file: ${workdir.replace(/\/+$/, '')}/${DEPLOY_ENV_FILE}. Scripts do not share variables, so append \`export\` lines to it for everything the target needs (a virtual environment's bin/ on PATH, PYTHONPATH, GOPATH, R_LIBS_USER, NODE_PATH, LD_LIBRARY_PATH, …); the harness sources it before the target and before every check. Create its folder first (mkdir -p) and source it yourself when a script needs what an earlier one set up.`,
  );
  return lines.join('\n');
}

/** How language registries are reached: the mode and the names (never the values) of the mirrors the user set. */
function registriesLine(goal: DeployGoal): string {
  const mirrors = Object.keys(goal.registries.mirrors);
  const mode = {
    auto: 'try the language registries; when one is unreachable, use the distribution’s packages (python3-*, librust-*-dev, /usr/share/maven-repo, r-cran-*, golang-*-dev, …) and say so',
    online: 'use the language registries',
    offline:
      'the language registries are not reachable: use the distribution’s packages (python3-*, librust-*-dev, /usr/share/maven-repo, r-cran-*, golang-*-dev, …)',
  }[goal.registries.mode];
  return `Registries (${goal.registries.mode}): ${mode}.${mirrors.length > 0 ? ` Mirrors the user set, already in the environment: ${mirrors.join(', ')}.` : ''}`;
}

function describeEcosystem(eco: EcosystemInfo, detail: EcosystemDetail): string {
  const parts = [`${eco.kind}: ${eco.manifests.slice(0, 6).join(', ') || '(no manifest)'}`];
  if (eco.runtime)
    parts.push(
      `runtime ${eco.runtime.name}${eco.runtime.version ? ` ${eco.runtime.version}` : ''} (${oneLine(eco.runtime.why, 160)})`,
    );
  const shown = DEPENDENCIES_SHOWN[detail];
  const deps = eco.dependencies.filter((d) => !d.dev);
  if (shown > 0 && deps.length > 0) {
    const list = deps
      .slice(0, shown)
      .map((d) => `${oneLine(d.name, 80)}${d.constraint ? ` ${oneLine(d.constraint, 40)}` : ''}`);
    parts.push(
      `${deps.length} dependenc${deps.length === 1 ? 'y' : 'ies'}: ${list.join(', ')}${deps.length > shown ? ', …' : ''}`,
    );
  } else if (deps.length > 0) parts.push(`${deps.length} dependencies`);
  if (detail === 'full' && eco.notes.length > 0) parts.push(eco.notes.map((n) => oneLine(n, 200)).join('; '));
  return `- ${parts.join('; ')}`;
}

/**
 * The ecosystems inspection found, with their manifests, runtimes and declared dependencies, as quoted
 * repository data; a line saying none were found otherwise.
 */
export function describeEcosystems(repo: RepoInfo, detail: EcosystemDetail): string {
  const ecosystems = repo.ecosystems ?? [];
  if (ecosystems.length === 0)
    return '- ecosystems: none recognised from manifests (read the README and the target command)';
  return quoteUntrusted(
    'ecosystems and manifests found in the repository',
    ecosystems.map((eco) => describeEcosystem(eco, detail)).join('\n'),
  );
}
