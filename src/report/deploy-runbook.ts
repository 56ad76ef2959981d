/**
 * The RUNBOOK of a deploy, DeployBench's shape (runbook.ts composes it with the sections builds and deploys
 * share — environment, patches, history, limits, files): the status with the verifier's evidence, the
 * ecosystems and registries, what was installed and why, how to run the target experiment by hand (the
 * recipe, the environment file, the target command in its folder), and what a newcomer should try next.
 * Pure: result.json (and the turns read back from the trajectory) in, Markdown lines out.
 */
import type { DeployTarget } from '../deploy/types.js';
import { DEPLOY_ENV_FILE } from '../deploy/types.js';
import { targetCommandLines } from '../deploy/target.js';
import type { ReportTurn } from '../finalize/turns.js';
import { block, cell, code, plural, seconds } from './markdown.js';
import type { BuildResult, DeployCheckEvidence, DeployResult } from './result.js';

export type DeployLabel = 'SUCCESS' | 'PARTIAL' | 'FAILED';

/**
 * The label a deploy is shown with: SUCCESS only when result.json says success AND the target's and the
 * verifier's passing checks are there beside it; PARTIAL when it says partial; FAILED otherwise.
 */
export function deployStatus(
  result: BuildResult,
  deploy: DeployResult,
): { label: DeployLabel; evidence: boolean; note?: string } {
  const evidence =
    deploy.target?.passed === true && deploy.verifier.passed && deploy.verifier.checks.length > 0;
  if (result.status === 'success') {
    if (evidence) return { label: 'SUCCESS', evidence };
    return {
      label: deploy.setupRan ? 'PARTIAL' : 'FAILED',
      evidence,
      note: 'result.json says success, but the passing target and verifier checks are not there beside it, so this is not reported as SUCCESS',
    };
  }
  return { label: result.status === 'partial' ? 'PARTIAL' : 'FAILED', evidence };
}

function checkRow(check: DeployCheckEvidence): string {
  return `| ${cell(check.name.replace(/^spec: /, ''))} | ${check.passed ? 'passed' : '**failed**'} | ${cell(check.detail)} |`;
}

/** Each failing check's last output lines, under its name. */
function tails(checks: readonly DeployCheckEvidence[]): string[] {
  const out: string[] = [];
  for (const check of checks) {
    if (check.passed || !check.outputTail) continue;
    out.push(
      `What ${code(check.name.replace(/^spec: /, ''))} printed last:`,
      '',
      ...block(check.outputTail),
      '',
    );
  }
  return out;
}

/** The verifier's evidence: the target's check, every verifier check, and the failing ones' output. */
export function deployEvidenceSection(deploy: DeployResult): string[] {
  const { target, verifier } = deploy;
  const out = [
    '## Evidence',
    '',
    'Only the checks decide the status: the target experiment must run and leave its evidence, and the task’s',
    `verifier${verifier.hidden ? ' (hidden from the strategy, run once after it finished)' : ''} must pass. A weaker`,
    'check passing (a package imports, `--help` answers) never counts as SUCCESS.',
    '',
    '| check | result | evidence |',
    '| --- | --- | --- |',
    target ? checkRow(target) : '| target experiment | **not run** | the run ended before the target ran |',
  ];
  if (verifier.checks.length === 0) {
    out.push(
      `| verifier${verifier.spec ? ` (${cell(code(verifier.spec))})` : ''} | **not run** | the run ended before the verifier ran |`,
    );
  }
  for (const check of verifier.checks)
    out.push(checkRow({ ...check, name: `verifier: ${check.name.replace(/^spec: /, '')}` }));
  out.push(
    '',
    `The setup ${deploy.setupRan ? 'ran through (a script got through every setup step)' : 'never ran through (no script got through every setup step)'}.`,
    '',
  );
  out.push(...tails([...(target ? [target] : []), ...verifier.checks]));
  return out;
}

/** The ecosystems found and how registries were reached, for the Environment section. */
export function deployEnvironmentLines(deploy: DeployResult): string[] {
  const ecosystems =
    deploy.ecosystems
      .map(
        (e) =>
          `${e.kind} (${e.manifests.map(code).join(', ') || 'no manifest'}; ${plural(e.dependencies, 'declared dependency', 'declared dependencies')}` +
          `${e.runtime ? `; ${e.runtime.name}${e.runtime.version ? ` ${e.runtime.version}` : ''}: ${e.runtime.why}` : ''})`,
      )
      .join(', ') || 'none detected';
  const mirrors = Object.keys(deploy.goal.registries.mirrors);
  const out = [
    `- Ecosystems: ${ecosystems}.`,
    `- Registries: ${deploy.goal.registries.mode}${mirrors.length > 0 ? `, with the mirrors ${mirrors.map(code).join(', ')} from the environment` : ''}.`,
  ];
  if (deploy.goal.requires.length > 0) out.push(`- Requires: ${deploy.goal.requires.join(', ')}.`);
  for (const e of deploy.ecosystems) for (const note of e.notes) out.push(`  - ${e.kind}: ${note}`);
  return out;
}

/** What the setup installed and why (from the turns' recipes). */
export function deployInstalledSection(deploy: DeployResult): string[] {
  const out = ['## What was installed and why', ''];
  if (deploy.installed.length === 0) {
    out.push(
      'Nothing recorded: no setup recipe installed anything (the target ran in the sandbox as it was, or free-form scripts did the work — see the turns below).',
      '',
    );
    return out;
  }
  out.push('| what | kind | why | turn |', '| --- | --- | --- | --- |');
  for (const item of deploy.installed) {
    const what = item.kind === 'step' ? stepSummary(item.what) : item.what;
    out.push(`| ${code(what)} | ${item.kind} | ${cell(item.why)} | ${item.turn} |`);
  }
  out.push('');
  if (deploy.installed.some((i) => i.kind === 'step'))
    out.push('A step is shown by its first line; `build.sh` holds each whole.', '');
  if (deploy.records && deploy.records.length > 0)
    out.push(
      `The exact versions installed, as the setups recorded them: ${deploy.records.map(code).join(', ')} (in this folder).`,
      '',
    );
  return out;
}

/** A setup step in a table cell: its first line (its `# buildbench:` title when it has one), clipped. */
export function stepSummary(command: string): string {
  const first = command.split('\n').find((line) => line.trim() !== '') ?? command;
  const text = first.trim().replace(/^#\s*(?:buildbench:\s*)?/, '');
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

/** What the target must leave, in words. */
function evidenceWords(target: DeployTarget): string[] {
  const { files = [], output = [], metrics = [] } = target.evidence;
  return [
    ...files.map((f) => `the file ${code(f)}, non-empty and written by this run`),
    ...output.map((p) => `output matching ${code(`/${p}/`)}`),
    ...metrics.map((m) => {
      const bounds = [
        ...(m.min !== undefined ? [`≥ ${m.min}`] : []),
        ...(m.max !== undefined ? [`≤ ${m.max}`] : []),
      ];
      return `${code(`${m.file}: ${m.key}`)} a number${bounds.length > 0 ? ` ${bounds.join(' and ')}` : ''}`;
    }),
  ];
}

/** The last turn whose setup script ran to its end, for a deploy without a verified recipe. */
function lastSetupTurn(result: BuildResult): BuildResult['turns'][number] | undefined {
  return [...result.turns].reverse().find((t) => t.exitCode === 0 && !t.timedOut);
}

/** How to run the target experiment by hand: the recipe, the environment file, the target in its folder. */
export function deployRunSection(result: BuildResult, deploy: DeployResult): string[] {
  const { target } = deploy.goal;
  const recipe = result.recipe;
  const lines: string[] = [];
  const out = ['## How to run the target experiment', ''];
  out.push(
    `From the repository's root (a clean checkout${result.repo.commit ? ` of ${code(result.repo.commit.slice(0, 12))}` : ''}):`,
    '',
  );
  if (recipe) {
    lines.push(
      `bash /path/to/this/folder/${recipe.files.buildSh}   # the setup (it ends with one run of the target)`,
    );
  } else {
    const last = lastSetupTurn(result);
    lines.push(
      last
        ? `# the setup: no verified recipe; turn ${last.turn}'s script (${last.purpose}) ran through — see ${last.log ?? 'trajectory.jsonl'}`
        : '# the setup: no setup script ran through; see "What to try next"',
    );
  }
  lines.push(
    `if [ -f ${DEPLOY_ENV_FILE} ]; then . ${DEPLOY_ENV_FILE}; fi   # the environment the setup made`,
    ...targetCommandLines(target),
  );
  out.push(...block(lines.join('\n'), 'sh'), '');
  if (recipe) {
    out.push(
      `${code(recipe.files.buildSh)} is the setup that ${recipe.verified && recipe.replay.reusedTurn !== undefined ? `turn ${recipe.replay.reusedTurn} ran byte for byte as the first script of a fresh sandbox from the untouched repository, where the target${recipe.replay.hiddenVerifier ? ' and the hidden verifier' : ''} passed (that run is its replay)` : recipe.verified ? `was replayed in a fresh sandbox, where the target${recipe.replay.hiddenVerifier ? ' and the hidden verifier' : ''} passed again` : `was **not verified** by its replay (${recipe.replay.reason})`}.`,
      '',
    );
  }
  const evidence = evidenceWords(target);
  out.push(
    `It must exit 0 within ${seconds(target.timeoutMs)}${evidence.length > 0 ? ` and leave ${evidence.join('; ')}` : ''}.`,
    '',
  );
  return out;
}

/** What a newcomer should try next, from the failing check (the root cause of a failed setup is shared). */
export function deployNextSteps(
  result: BuildResult,
  deploy: DeployResult,
  turns: readonly ReportTurn[],
): string[] {
  const items: string[] = [];
  const { target, verifier } = deploy;
  if (!deploy.setupRan && !target?.passed) {
    items.push(
      'The setup never ran through: fix its first error (the root cause above, the last turn’s log), then run the target by hand as shown above.',
    );
  }
  if (target && !target.passed) {
    items.push(
      `The target experiment failed (${target.detail}). Run it by hand in the environment (the commands above) and read its own error first; a missing module or library is a dependency the setup did not install.`,
    );
  } else if (!target) {
    items.push(
      'The target never ran: give the run more time or turns, or check the task’s target command and folder.',
    );
  }
  const failing = verifier.checks.filter((c) => !c.passed);
  if (target?.passed && failing.length > 0) {
    items.push(
      `The target ran, but the verifier disagrees (${failing.map((c) => c.name).join(', ')}): the experiment ran without producing what the paper expects — check its inputs, its parameters and its results file against the task.`,
    );
  }
  if (result.status === 'limits_exceeded' || /turn limit|wall-clock/.test(result.reason))
    items.push(
      `Give the run more room (${code('--max-turns')}, ${code('--timeout')}, ${code('--turn-timeout')}).`,
    );
  const registryDependencies = deploy.ecosystems.some((e) => e.kind !== 'c-cpp' && e.dependencies > 0);
  if (deploy.goal.registries.mode !== 'online' && registryDependencies)
    items.push(
      `With registries reachable, ${code('--registries online')} installs the versions the manifests pin instead of the distribution’s.`,
    );
  if (turns.some((t) => t.patches && t.patches.length > 0))
    items.push(
      'The patches in `patches/` are what the run changed while trying; review them before reusing any.',
    );
  if (items.length === 0) return [];
  return ['**What a newcomer should try next:**', '', ...items.map((i) => `- ${i}`), ''];
}
