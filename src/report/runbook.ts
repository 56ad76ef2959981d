/**
 * `src/report/` owns rendering a finished run from its files alone — result.json and trajectory.jsonl in,
 * RUNBOOK.md and the terminal summary out — and never touches live state, so `buildbench report <out-dir>`
 * renders exactly what the run rendered. `result.ts` is the result.json schema and its one reader
 * (`readBuildResult`), `turns.ts` reads the turns back from the trajectory, and this file renders RUNBOOK.md
 * (DESIGN step 5) and the one summary both `buildbench build` and `buildbench report` print. It sits on
 * floor 3 and imports finalize's types (the recipe, the replay outcome, the patches), never the reverse.
 *
 * The runbook is written for a newcomer: what the status is and the evidence for it, where it ran, what to
 * install and why, the steps, the patches and their reasons, what failed along the way and how it was fixed,
 * and for PARTIAL/FAILED runs the root cause and what a person should try next. SUCCESS is written only when
 * result.json says success AND the verifier evidence is there beside it.
 */
import { alternativesSection } from '../deploy/alternatives.js';
import type { IsolationReport } from '../sandbox/isolation.js';
import { describeGpuEnvironment, type GpuEnvironment } from '../verify/gpu.js';
import path from 'node:path';

import { ConfigError, errorMessage } from '../base/errors.js';
import { readIfExists, readNamedFileUnder, replaceFileUnder, UnsafePathError } from '../base/safe-fs.js';
import type { ReplayOutcome } from '../finalize/replay.js';
import { readBuildResultUnder, type BuildResult } from './result.js';
import { parseTrajectory } from '../trajectory/recorder.js';
import { fullSequenceRecipe, minimiseRecipe, packagesInScript } from '../finalize/minimise.js';
import type { FinalRecipe } from '../recipe/model.js';
import { RECIPE_DIR_NAME } from '../recipe/render-dockerfile.js';
import { answeredFinding, type ReportTurn } from '../finalize/turns.js';
import { turnsFromTrajectory, type ReportClaim } from './turns.js';
import { harnessTimeWords, trajectorySection } from './trajectory.js';
import { egressSection, hostNetworkLines } from './egress.js';
import { codeSpan, inline } from './github-text.js';
import { block, bytes, cell, code, plural, seconds, yes } from './markdown.js';
import {
  deployEnvironmentLines,
  deployEvidenceSection,
  deployInstalledSection,
  deployNextSteps,
  deployRunSection,
  deployStatus,
} from './deploy-runbook.js';
import type { DeployResult } from './result.js';

export const RUNBOOK = 'RUNBOOK.md';

export interface ReportInput {
  result: BuildResult;
  turns: ReportTurn[];
  claims: ReportClaim[];
  /** Set when trajectory.jsonl could not be read: the runbook says so and works from result.json. */
  trajectoryProblem?: string;
  /** Set when result.json named a trajectory outside the folder or through a link: not read, and why. */
  trajectoryRefused?: string;
}

export type StatusLabel = 'SUCCESS' | 'PARTIAL' | 'FAILED';

export interface ReportStatus {
  label: StatusLabel;
  /** The verifier evidence for a success is present: new binaries, and every expected name when there are some. */
  evidence: boolean;
  /** Why the label differs from what result.json says, when it does. */
  note?: string;
}

/**
 * SUCCESS only when result.json says success and the verifier evidence is there beside it (for a deploy, the
 * passing target and verifier checks: deploy-runbook.ts).
 */
export function reportStatus(result: BuildResult): ReportStatus {
  if (result.deploy) return deployStatus(result, result.deploy);
  const evidence =
    result.metrics.completion &&
    result.artifacts.length > 0 &&
    (result.expected.names.length === 0 || (result.metrics.strict && result.expected.missing.length === 0));
  const built = result.metrics.completion && result.artifacts.length > 0;
  if (result.status === 'success') {
    if (evidence) return { label: 'SUCCESS', evidence };
    return {
      label: built ? 'PARTIAL' : 'FAILED',
      evidence,
      note: 'result.json says success, but the verifier evidence (new binaries, every expected name) is not there beside it, so this is not reported as SUCCESS',
    };
  }
  return { label: result.status === 'partial' || built ? 'PARTIAL' : 'FAILED', evidence };
}

// ---------------------------------------------------------------------------------------------------------
// Loading

/**
 * result.json and trajectory.jsonl of an output directory. A missing or malformed result.json is a ConfigError
 * naming the file and the field (`readBuildResult`); an unreadable trajectory is noted, not fatal. The folder
 * may come from elsewhere: both are opened with no symbolic link on their path (a link is refused, never
 * followed out of the folder).
 */
export async function loadReportInput(outDir: string): Promise<ReportInput> {
  const result = await readBuildResultUnder(outDir, { command: 'report', require: REPORT_NEEDS });
  if (!result) {
    throw new ConfigError(
      `report: '${outDir}' has no result.json`,
      'expected the output folder of a buildbench build (its --out), e.g. buildbench-out/<repo>',
    );
  }
  return reportInputFor(result, outDir);
}

/** What the runbook and the summary cannot be written without. */
const REPORT_NEEDS = ['status', 'metrics', 'expected', 'artifacts'] as const;

/**
 * The report input of a result already in hand (`buildbench build` prints its summary from it): the turns
 * and claims come from the trajectory beside it, so `build` and `report` print the same summary. The
 * trajectory result.json names (`files.trajectory`) must be a file inside `outDir`, reached with no symbolic
 * link: any other is not read, and `trajectoryRefused` says why.
 */
export async function reportInputFor(result: BuildResult, outDir: string): Promise<ReportInput> {
  const named = result.files?.trajectory ?? TRAJECTORY_FILE;
  let bytes: Buffer | undefined;
  try {
    bytes = await readIfExists(() => readNamedFileUnder(outDir, 'files.trajectory', named));
  } catch (error) {
    const problem = errorMessage(error);
    return {
      result,
      turns: [],
      claims: [],
      trajectoryProblem: problem,
      ...(error instanceof UnsafePathError ? { trajectoryRefused: problem } : {}),
    };
  }
  if (bytes === undefined)
    return { result, turns: [], claims: [], trajectoryProblem: `${path.basename(named)} is missing` };
  try {
    const events = parseTrajectory(bytes.toString('utf8'), path.join(outDir, named));
    const { turns, claims } = turnsFromTrajectory(events);
    return { result, turns, claims };
  } catch (error) {
    return { result, turns: [], claims: [], trajectoryProblem: errorMessage(error) };
  }
}

const TRAJECTORY_FILE = 'trajectory.jsonl';

const KIND_LABEL: Record<string, string> = {
  executable: 'executable',
  shared_library: 'shared library',
  static_library: 'static library',
  elf_other: 'other ELF file',
};

const SANDBOX_LABEL: Record<string, string> = {
  rootfs:
    'rootfs — a Debian root file system entered with bubblewrap (`pivot_root`, the host detached), a fresh overlay per build',
  docker: 'docker — a fresh container per build',
  host: 'host — this machine itself, in a copy of the repository',
};

const EXPECTED_SOURCE: Record<string, string> = {
  cli: 'given with --expect',
  task: 'from the task specification',
  inferred: 'inferred from the build files',
  none: 'none named: any new binary counts',
};

// ---------------------------------------------------------------------------------------------------------
// Sections

function recipeOf(input: ReportInput): FinalRecipe | undefined {
  const recipe = input.result.recipe;
  if (!recipe || input.turns.length === 0) return undefined;
  return recipe.mode === 'full'
    ? fullSequenceRecipe(input.turns)
    : minimiseRecipe(input.turns, { patches: recipe.files.patches });
}

/** A replay's outcome for a table cell of the Evidence section, its words rendered as untrusted text. */
function replayLine(replay: ReplayOutcome): string {
  const time = replay.durationMs > 0 ? ` in ${seconds(replay.durationMs)}` : '';
  const log = replay.log ? ` (log: ${codeSpan(replay.log, { inTable: true })})` : '';
  return `${inline(replay.status)}${time}: ${inline(replay.reason)}${log}`;
}

function statusSection(input: ReportInput, status: ReportStatus): string[] {
  const { result } = input;
  const raw = result.status === status.label.toLowerCase() ? '' : ` (run status: ${result.status})`;
  const out = [`**Status: ${status.label}**${raw} — ${result.reason}`, ''];
  if (status.note) out.push(`> **Note:** ${status.note}.`, '');
  const recipe = result.recipe;
  if (recipe) {
    if (recipe.verified && recipe.replay.reusedTurn !== undefined) {
      out.push(
        `The recipe is **verified**: ${code('build.sh')} is the script of turn ${recipe.replay.reusedTurn} byte for byte, ` +
          `which built the binaries as the first script of a fresh ${result.sandbox.kind} sandbox from the untouched repository, ` +
          'and the verifiers passed there: that run is its replay, so it was not run a second time.',
        '',
      );
    } else if (recipe.verified) {
      out.push(
        `The recipe is **verified**: ${code('build.sh')} ${recipe.fallback ? '(the full sequence of scripts; the minimal recipe failed its replay) ' : ''}` +
          `rebuilt the binaries in a fresh ${result.sandbox.kind} sandbox from the untouched repository and the verifiers passed again.`,
        '',
      );
    } else {
      out.push(
        `The recipe is **not verified**: its replay in a fresh sandbox ${recipe.replay.status === 'skipped' ? 'was skipped' : 'did not pass'} (${recipe.replay.reason}). ` +
          'The build succeeded in the run, but running build.sh again may not reproduce it.',
        '',
      );
    }
  } else if (status.label === 'SUCCESS') {
    out.push(
      'No recipe was recorded for this run (finalize did not run), so nothing here has been replayed.',
      '',
    );
  }
  return out;
}

/**
 * The Evidence section, which the Action's job summary shows inline (src/action/summary.ts): what it takes from
 * the result goes through the renderer of untrusted text (src/report/github-text.ts).
 */
function evidenceSection(input: ReportInput): string[] {
  const { result } = input;
  const strictRow =
    result.expected.names.length > 0
      ? `| artifacts: strict — every expected name was built | ${yes(result.metrics.strict)} |`
      : '| artifacts: strict — every expected name was built | not applicable (no names expected) |';
  const flexibleRow =
    result.expected.names.length > 0
      ? `| artifacts: flexible — at least one expected name was built | ${yes(result.metrics.flexible)} |`
      : '| artifacts: flexible — at least one expected name was built | not applicable (no names expected) |';
  const out = [
    '## Evidence',
    '',
    'The verifiers, not the strategy, decide the status: after every script the working copy is scanned for',
    '*new* ELF executables, shared libraries and static archives (files that existed before the build never count).',
    '',
    '| verifier | result |',
    '| --- | --- |',
    `| artifacts: completion — at least one new binary | ${yes(result.metrics.completion)} |`,
    strictRow,
    flexibleRow,
  ];
  // The other checks as they ran: a spec's (required) and the start probes (advisory unless a spec asked).
  for (const check of result.verification?.checks ?? []) {
    if (check.source === 'artifacts') continue;
    const name = check.required ? check.name : `${check.name} (advisory)`;
    out.push(`| ${inline(name)} | ${inline(`${check.passed ? 'passed' : 'failed'}: ${check.detail}`)} |`);
  }
  if (result.recipe) {
    out.push(`| replay of ${code('build.sh')} in a fresh sandbox | ${replayLine(result.recipe.replay)} |`);
    if (result.recipe.minimalReplay) {
      out.push(`| replay of the minimal recipe (replaced) | ${replayLine(result.recipe.minimalReplay)} |`);
    }
  }
  out.push('');
  const names = result.expected.names;
  out.push(
    names.length > 0
      ? `Expected binaries (${inline(EXPECTED_SOURCE[result.expected.source] ?? result.expected.source)}): ${names.map((n) => codeSpan(n)).join(', ')}.`
      : `Expected binaries: ${EXPECTED_SOURCE.none}.`,
  );
  if (result.expected.matched.length > 0)
    out.push(`Built: ${result.expected.matched.map((n) => codeSpan(n)).join(', ')}.`);
  if (result.expected.missing.length > 0 && names.length > 0) {
    out.push(`**Not built:** ${result.expected.missing.map((n) => codeSpan(n)).join(', ')}.`);
  }
  for (const doubt of result.expected.uncertain ?? []) {
    out.push(`**Uncertain:** ${inline(doubt)} — a SUCCESS needs the name, given with \`--expect\`.`);
  }
  for (const ignored of result.expected.ignored ?? []) {
    out.push(`Not counted: ${codeSpan(ignored.name)} — ${inline(ignored.why)}.`);
  }
  out.push('');
  if (result.artifacts.length > 0) {
    out.push(
      'Binaries built (copied to `artifacts/` at the same paths):',
      '',
      '| path | type | size |',
      '| --- | --- | --- |',
    );
    for (const a of result.artifacts)
      out.push(
        `| ${codeSpan(a.path, { inTable: true })} | ${inline(KIND_LABEL[a.kind] ?? a.kind)} | ${inline(bytes(a.size))} |`,
      );
    const refused = result.artifacts.filter((a) => a.copyError);
    if (refused.length > 0) out.push('');
    // A copy is refused when the path no longer resolves inside the tree (a folder swapped for a link).
    for (const a of refused)
      out.push(`Not copied to \`artifacts/\`: ${codeSpan(a.path)} — ${codeSpan(a.copyError ?? '')}.`);
  } else {
    out.push('No new binary was built.');
  }
  out.push('');
  return out;
}

/** What the sandbox isolated, as result.json recorded it (nothing when an older result has no record). */
function isolationLines(isolation: IsolationReport | undefined): string[] {
  if (!isolation) return [];
  const size = (bytes: number): string => `${Math.round((bytes / 1024 ** 3) * 10) / 10} GiB`;
  const limits = [
    ...(isolation.limits.memoryBytes !== undefined ? [`memory ${size(isolation.limits.memoryBytes)}`] : []),
    ...(isolation.limits.pids !== undefined ? [`${isolation.limits.pids} processes`] : []),
  ];
  const parts =
    isolation.level === 'none'
      ? ['none: the commands ran on this machine']
      : [
          `${isolation.level === 'container+userns' ? 'container with a user namespace' : 'container'} (${isolation.tool})`,
          isolation.capabilities
            ? `capabilities ${isolation.capabilities.join(' ')}`
            : 'the engine’s capabilities',
          ...(isolation.noNewPrivs ? ['no_new_privs'] : []),
          isolation.seccomp ? `seccomp: ${isolation.seccomp}` : 'no seccomp filter',
          `network ${isolation.network.mode}${isolation.network.via ? ` via ${isolation.network.via}` : ''}`,
          limits.length > 0
            ? `limits ${limits.join(', ')}${isolation.limits.enforced ? ` (${isolation.limits.how ?? 'enforced'})` : ' (not enforced)'}`
            : 'no resource limits',
        ];
  return [
    `- Isolation: ${parts.join('; ')}.`,
    ...isolation.notes.map((note) => `  - ${note}`),
    ...(isolation.devices ?? []).map(
      (d) => `- Device ${d.device.toUpperCase()}: ${d.passed ? 'passed' : 'NOT passed'} — ${d.how}.`,
    ),
  ];
}

/** The GPU the final environment offered (result.json `environment.gpu`), with what stops a GPU run. */
function gpuLines(gpu: GpuEnvironment | undefined): string[] {
  if (!gpu) return [];
  return [
    `- GPU: ${describeGpuEnvironment(gpu)}.`,
    ...(gpu.kernelModule ? [`  - Kernel module: ${code(gpu.kernelModule)}.`] : []),
    ...gpu.problems.map((p) => `  - Problem: ${p}.`),
    ...gpu.notes.map((n) => `  - Note: ${n}.`),
  ];
}

function environmentSection(input: ReportInput, extra: readonly string[] = []): string[] {
  const { result } = input;
  const compiler = result.recipe?.replay.compiler ?? result.recipe?.minimalReplay?.compiler;
  const systems =
    result.buildSystems.map((b) => `${b.kind} (${code(b.file)})`).join(', ') || 'none recognised';
  const out = [
    '## Environment',
    '',
    `- Sandbox: ${SANDBOX_LABEL[result.sandbox.kind] ?? result.sandbox.kind}.`,
    `- Base image: ${result.sandbox.image ? code(result.sandbox.image) : 'unknown'}${result.recipe ? ' (the Dockerfile starts FROM it)' : ''}.`,
    ...isolationLines(result.sandbox.isolation),
    ...hostNetworkLines(result.sandbox.isolation),
    ...gpuLines(result.environment?.gpu),
    ...(result.sandbox.buildCache
      ? [
          `- Build cache: ${code(result.sandbox.buildCache)} — package downloads (each sandbox uses only those its package index gives the hash of) and this repository's own ccache store, shared between its sandboxes (the replay's speed may come from it; the recipe does not need it).`,
        ]
      : []),
    ...(result.sandbox.credentialsRemoved?.length
      ? [
          `- Repository copy: credentials removed from its git configuration before anything ran (names only): ${result.sandbox.credentialsRemoved.map(code).join(', ')}. The checkout itself was not touched; the build saw none of them.`,
        ]
      : []),
    `- Compiler: ${compiler ? code(compiler) : 'not captured'}${compiler ? ' (as build.sh reported it during the replay)' : ''}.`,
    `- Build systems found: ${systems}.`,
    ...(result.buildSystemChoice
      ? [
          `- Built with ${result.buildSystemChoice.kind} (${code(result.buildSystemChoice.file)}) first because the documentation uses it: ${result.buildSystemChoice.why}.`,
        ]
      : []),
    `- Repository: ${code(result.repo.source)}${result.repo.commit ? ` at commit ${code(result.repo.commit)}` : ''}.`,
    `- Strategy: ${result.strategy}; ${plural(result.turns.length, 'script')} run; total time ${seconds(result.timings.totalMs)}${harnessTimeWords(result.timings)}.`,
    `- buildbench ${result.tool.version}, finished ${result.timings.finishedAt}.`,
    ...extra,
    '',
  ];
  return out;
}

interface Dependency {
  name: string;
  why: string;
}

/**
 * Why each package is there: the declarations it was pre-installed for (`preinstalled`), else the first turn
 * that installed it (a repair's reason), or the tool it provides.
 */
export function dependencyReasons(
  turns: readonly ReportTurn[],
  recipe: FinalRecipe,
  preinstalled?: BuildResult['preinstalled'],
): Dependency[] {
  const declared = new Map((preinstalled?.packages ?? []).map((p) => [p.package, p.declarations]));
  const out: Dependency[] = [];
  const seen = new Set<string>();
  for (const turn of turns) {
    if (turn.turn > recipe.turn) break;
    const packages = turn.recipe ? turn.recipe.packages : packagesInScript(turn.script);
    for (const name of packages) {
      if (seen.has(name)) continue;
      seen.add(name);
      const answered = answeredFinding(turns, turn.turn);
      const declarations = declared.get(name);
      // A package put in before any failure (a repair the tree predicted) says its own reason.
      const early = turn.upFront?.find((u) => u.kind === 'package' && u.what === name)?.why;
      out.push({
        name,
        why: declarations
          ? `declared by the build files (${declarations.join('; ')}); installed before the first script`
          : answered
            ? `turn ${turn.turn} fixed turn ${answered.turn}'s error: ${turn.reason}`
            : (early ?? `installed by turn ${turn.turn} (${turn.purpose})`),
      });
    }
  }
  for (const tool of recipe.tools) {
    for (const name of tool.pkg.split(/\s+/).filter(Boolean)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const commands = recipe.tools
        .filter((t) => t.pkg.split(/\s+/).includes(name))
        .map((t) => code(t.command));
      out.push({
        name,
        why: `provides ${commands.join(', ')}, which the recipe runs (installed only when missing)`,
      });
    }
  }
  return out;
}

function recipeSection(input: ReportInput, recipe: FinalRecipe | undefined): string[] {
  const { result } = input;
  const files = result.recipe;
  if (!files) return [];
  const out = [
    '## How to build it yourself',
    '',
    `From the repository's root (a clean checkout${result.repo.commit ? ` of ${code(result.repo.commit.slice(0, 12))}` : ''}):`,
    '',
    ...block(`bash /path/to/this/folder/${files.files.buildSh}`, 'sh'),
    '',
    'It installs missing packages with apt-get (as root, on Debian or Ubuntu), applies the patches from `patches/`',
    `and runs the steps below. With Docker, copy this folder into the repository as \`${RECIPE_DIR_NAME}/\` (the pull request`,
    'puts it there) and run:',
    '',
    ...block(
      `docker build -f ${RECIPE_DIR_NAME}/${files.files.dockerfile} -t ${result.repo.name.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}-build .`,
      'sh',
    ),
    '',
  ];
  if (!recipe) {
    out.push(
      `The steps are in ${code(files.files.buildSh)}${input.trajectoryProblem ? ` (the trajectory could not be read: ${input.trajectoryProblem})` : ''}.`,
      '',
    );
    return out;
  }
  out.push('### Steps', '');
  for (const note of recipe.notes) out.push(`- ${note[0]!.toUpperCase()}${note.slice(1)}.`);
  if (recipe.notes.length > 0) out.push('');
  let n = 1;
  const packages = [
    ...new Set([...recipe.tools.flatMap((t) => t.pkg.split(/\s+/).filter(Boolean)), ...recipe.packages]),
  ];
  if (packages.length > 0)
    out.push(
      `${n++}. **dependencies** — make sure ${packages.map(code).join(', ')} are installed (see Dependencies).`,
    );
  if (recipe.mode === 'minimal') {
    if (recipe.patches.length > 0)
      out.push(
        `${n++}. **patch** — apply ${plural(recipe.patches.length, 'patch', 'patches')} from ${code('patches/')} in order (see Patches).`,
      );
    for (const line of recipe.prelude) out.push(`${n++}. **prepare** — ${code(line)}`);
    const env = Object.entries(recipe.env);
    if (env.length > 0)
      out.push(
        `${n++}. **environment** — ${env.map(([k, v]) => code(`${k}=${v}`)).join(', ')}${includeRootsWhy(input.result.preinstalled, recipe.env)}`,
      );
    for (const step of recipe.steps) {
      const one = !step.command.includes('\n');
      out.push(`${n++}. **${step.purpose}** — ${one ? code(step.command) : 'the script below'}`);
      if (!one) out.push('', ...block(step.command, 'sh').map((l) => `   ${l}`), '');
    }
  } else {
    for (const s of recipe.scripts) {
      out.push(
        `${n++}. **turn ${s.turn}** — the script of ${code(s.purpose)}${s.turn === recipe.turn ? ' (the verifiers passed after it)' : ', allowed to fail as it did'}`,
      );
    }
  }
  out.push('');
  return out;
}

/** Why CPATH holds the include roots the declared headers needed from the first script (none: empty). */
export function includeRootsWhy(
  preinstalled: BuildResult['preinstalled'],
  env: Readonly<Record<string, string>>,
): string {
  const on = new Set((env.CPATH ?? '').split(':'));
  const roots = (preinstalled?.includeDirs ?? []).filter((d) => on.has(d.dir));
  if (roots.length === 0) return '';
  const whys = roots.map((d) => `${code(d.dir)} for ${d.declarations.join('; ')}`);
  return ` (the include roots of the declared headers, outside the compiler's default search path: ${whys.join(', ')})`;
}

function dependencySection(input: ReportInput, recipe: FinalRecipe | undefined): string[] {
  if (!recipe) return [];
  const deps = dependencyReasons(input.turns, recipe, input.result.preinstalled);
  if (deps.length === 0) return [];
  const out = ['## Dependencies', '', '| package | why it is needed |', '| --- | --- |'];
  for (const d of deps) out.push(`| ${code(d.name)} | ${cell(d.why)} |`);
  out.push('');
  return out;
}

function patchSection(input: ReportInput): string[] {
  const patches = input.result.patches ?? [];
  if (patches.length === 0) return [];
  const success = input.result.status === 'success';
  const out = [
    '## Patches',
    '',
    success
      ? 'Source changes the build needed, one `git format-patch` file per changed file; `git am patches/*.patch` applies them on a clean checkout.'
      : 'Source changes the run made while trying (the build did not succeed, so they are attempts, not a proven fix); `git am patches/*.patch` applies them on a clean checkout.',
    '',
    '| patch | changes | why |',
    '| --- | --- | --- |',
  ];
  for (const p of patches)
    out.push(`| ${code(p.file)} | ${p.paths.map(code).join(', ')} | ${cell(p.reason)} |`);
  out.push('');
  return out;
}

function outcomeOf(turn: ReportTurn): string {
  if (turn.exitCode === undefined) return 'did not finish (the run stopped during it)';
  if (turn.passed) return `verifiers passed (${plural(turn.artifacts, 'new binary', 'new binaries')})`;
  const parts: string[] = [];
  if (turn.timedOut) parts.push('stopped at the turn timeout');
  if (turn.rootCause && turn.exitCode !== 0) parts.push(`${turn.rootCause.message} (${turn.rootCause.id})`);
  else if (turn.exitCode !== 0) parts.push('failed; no known error signature matched the log');
  if (turn.failures.length > 0 && turn.exitCode === 0) parts.push(turn.failures.join('; '));
  if (turn.artifacts > 0) parts.push(plural(turn.artifacts, 'new binary', 'new binaries'));
  return parts.join('; ') || 'no verdict';
}

function historySection(input: ReportInput): string[] {
  const { result } = input;
  const out = ['## What happened, turn by turn', ''];
  if (input.turns.length === 0) {
    if (result.turns.length === 0) {
      out.push('No script ran.', '');
      return out;
    }
    out.push(
      `The trajectory could not be read (${input.trajectoryProblem ?? 'no turns in it'}); from result.json:`,
      '',
      '| turn | what ran | exit | time | outcome |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const t of result.turns) {
      const outcome = t.rootCause
        ? `${t.rootCause.message} (${t.rootCause.id})`
        : `${plural(t.newArtifacts, 'new binary', 'new binaries')}`;
      out.push(
        `| ${t.turn} | ${cell(t.purpose)} | ${t.timedOut ? 'timeout' : String(t.exitCode)} | ${seconds(t.durationMs)} | ${cell(outcome)} |`,
      );
    }
    out.push('');
    return out;
  }
  out.push('| turn | what ran | exit | time | outcome |', '| --- | --- | --- | --- | --- |');
  const fresh = new Set(result.turns.filter((t) => t.freshSandbox).map((t) => t.turn));
  for (const t of input.turns) {
    const exit = t.exitCode === undefined ? '—' : t.timedOut ? 'timeout' : String(t.exitCode);
    const what = `${t.purpose}${fresh.has(t.turn) ? ' (in a fresh sandbox)' : ''}`;
    out.push(`| ${t.turn} | ${cell(what)} | ${exit} | ${seconds(t.durationMs)} | ${cell(outcomeOf(t))} |`);
  }
  out.push('');
  const fixes = input.turns.filter((t) => answeredFinding(input.turns, t.turn));
  if (fixes.length > 0) {
    out.push('How each failure was answered:', '');
    for (const t of fixes) {
      const answered = answeredFinding(input.turns, t.turn)!;
      out.push(
        `- Turn ${answered.turn} failed with ${code(answered.finding.message)}; turn ${t.turn} (${cell(t.purpose)}): ${t.reason}.`,
      );
    }
    out.push('');
  }
  for (const claim of input.claims) {
    const verdict = claim.accepted === false ? ' The verifiers refused it.' : '';
    out.push(
      `The strategy finished at turn ${claim.turn} claiming ${code(claim.claim)}: ${claim.reason}.${verdict}`,
      '',
    );
  }
  const logs = result.turns.filter((t) => t.log).map((t) => code(t.log!));
  if (logs.length > 0) out.push(`Complete logs: ${logs.join(', ')}.`, '');
  const cut = result.turns.filter((t) => t.log && t.logTruncated);
  if (cut.length > 0) {
    const which = cut.map((t) => `${code(t.log!)} (${t.logBytes ?? '?'} bytes printed)`).join(', ');
    out.push(
      `Bounded logs: ${which} keep only their head and tail; a marker line shows where bytes were dropped (${code('--max-log-size')}).`,
      '',
    );
  }
  return out;
}

function limitsSection(input: ReportInput): string[] {
  const { result } = input;
  const items: string[] = [];
  if (result.status === 'limits_exceeded') items.push(result.reason);
  if (result.status === 'stuck') items.push(`stuck: ${result.reason}`);
  if (result.status === 'stalled') items.push(`stalled: ${result.reason}`);
  if (result.status === 'cancelled') items.push('the run was cancelled');
  for (const t of input.turns.length > 0 ? input.turns : []) {
    if (t.timedOut)
      items.push(
        `turn ${t.turn} (${t.purpose}) was stopped at the turn timeout after ${seconds(t.durationMs)}`,
      );
    if (t.truncated)
      items.push(`turn ${t.turn}'s output was longer than the capture; the complete log is on disk`);
  }
  if (input.turns.length === 0) {
    for (const t of result.turns)
      if (t.timedOut) items.push(`turn ${t.turn} (${t.purpose}) was stopped at the turn timeout`);
  }
  if (result.recipe?.replay.timedOut) items.push('the replay was stopped at its timeout');
  if (result.recipe?.replay.status === 'skipped')
    items.push(`replay skipped: ${result.recipe.replay.reason}`);
  if (items.length === 0) return [];
  return ['## Limits reached', '', ...items.map((i) => `- ${i[0]!.toUpperCase()}${i.slice(1)}.`), ''];
}

/** The root cause of a run that did not succeed (from result.json and its turn), or what is known instead. */
function rootCauseLines(input: ReportInput): string[] {
  const { result } = input;
  const out: string[] = [];
  const rc = result.rootCause;
  if (rc) {
    const hint = input.turns.find((t) => t.turn === rc.turn)?.rootCause?.hint;
    const log = result.turns.find((t) => t.turn === rc.turn)?.log;
    out.push(
      `**Root cause** (turn ${rc.turn}, ${code(rc.id)}, ${rc.category}): ${rc.message}` +
        (log ? ` — ${code(`${log}`)} line ${rc.line}` : ''),
      '',
    );
    if (rc.excerpt) out.push(...block(rc.excerpt), '');
    out.push(
      hint
        ? `**Try next:** ${hint}`
        : '**Try next:** read the log around the line above; no hint is known for this error signature.',
      '',
    );
  } else {
    const last = input.turns[input.turns.length - 1];
    if (last && last.exitCode === 0) {
      out.push(
        `The last script (turn ${last.turn}) exited 0, but the verifiers did not pass${last.failures.length > 0 ? `: ${last.failures.join('; ')}` : ''}.`,
        '',
      );
    } else {
      out.push(`No known error signature matched the logs. The run ended because: ${result.reason}.`, '');
    }
  }
  return out;
}

function nextStepsSection(input: ReportInput, status: ReportStatus): string[] {
  if (status.label === 'SUCCESS') return [];
  const { result } = input;
  const out = ['## Root cause and what to try next', '', ...rootCauseLines(input)];
  const extra: string[] = [];
  if (result.expected.missing.length > 0 && result.expected.names.length > 0) {
    extra.push(
      `Expected binaries not built: ${result.expected.missing.map(code).join(', ')}. The default build may skip them ` +
        `(look for a make target or a build option that enables them), or a name may be wrong (pass the right ones with ${code('--expect')}).`,
    );
  }
  if (result.status === 'limits_exceeded')
    extra.push(
      `Give the run more room (${code('--max-turns')}, ${code('--timeout')}, ${code('--turn-timeout')}).`,
    );
  if (result.status === 'stuck')
    extra.push(
      'The same script failed the same way twice: the automatic repairs have nothing more to offer for this error.',
    );
  if (result.status === 'stalled')
    extra.push(
      `A script printed nothing for the idle limit and was ended: it waits on something (a host, a device, a ${code('sleep')} loop) rather than building. If the build is really that quiet, raise ${code('--idle-timeout')}.`,
    );
  if (result.status === 'sandbox_error')
    extra.push(`The sandbox itself failed; try another with ${code('--sandbox')}.`);
  if ((result.patches ?? []).length > 0)
    extra.push(
      'The patches in `patches/` are what the run changed while trying; review them before reusing any.',
    );
  out.push(...extra.map((e) => `- ${e}`));
  if (extra.length > 0) out.push('');
  return out;
}

function filesSection(input: ReportInput): string[] {
  const { result } = input;
  const out = [
    '## Files',
    '',
    '| file | what it holds |',
    '| --- | --- |',
    '| `result.json` | status, metrics, expected and built binaries, every turn, timings (schema `' +
      result.schema +
      '`) |',
    '| `trajectory.jsonl` | one event per step, secrets redacted |',
    '| `logs/` | the complete output of every script |',
  ];
  if (result.recipe && result.recipe.replay.reusedTurn === undefined)
    out.push('| `replay/` | the complete output of the replay in a fresh sandbox |');
  if (result.artifacts.length > 0)
    out.push('| `artifacts/` | the binaries, at their paths in the repository |');
  if (result.recipe) {
    out.push(`| ${code(result.recipe.files.buildSh)} | the recipe as a script |`);
    out.push(`| ${code(result.recipe.files.dockerfile)} | the recipe as a Dockerfile |`);
  }
  if ((result.patches ?? []).length > 0) out.push('| `patches/` | the source changes, one patch per file |');
  out.push('');
  return out;
}

/** The status line of a deploy, its note, and the paper or task it deploys. */
function deployStatusLines(input: ReportInput, status: ReportStatus, deploy: DeployResult): string[] {
  const { result } = input;
  const raw = result.status === status.label.toLowerCase() ? '' : ` (run status: ${result.status})`;
  const out = [`**Status: ${status.label}**${raw} — ${result.reason}`, ''];
  if (status.note) out.push(`> **Note:** ${status.note}.`, '');
  const { paper, taskFile, target } = deploy.goal;
  if (paper) out.push(`Paper: ${paper.title}${paper.url ? ` (<${paper.url}>)` : ''}.`);
  out.push(
    `Target experiment: ${code(target.command)}${target.cwd && target.cwd !== '.' ? ` in ${code(target.cwd)}` : ''}${taskFile ? `, from the task ${code(taskFile)}` : ''}.`,
    '',
  );
  return out;
}

/** RUNBOOK.md of a deploy (DeployBench's shape; deploy-runbook.ts has its own sections). */
function deployRunbook(input: ReportInput, deploy: DeployResult): string[] {
  const { result } = input;
  const status = reportStatus(result);
  const failed =
    status.label === 'SUCCESS'
      ? []
      : [
          '## What failed and what to try next',
          '',
          ...rootCauseLines(input),
          ...deployNextSteps(result, deploy, input.turns),
        ];
  return [
    `# ${result.repo.name}: deploy runbook`,
    '',
    ...deployStatusLines(input, status, deploy),
    ...deployEvidenceSection(deploy),
    ...environmentSection(input, deployEnvironmentLines(deploy)),
    ...deployInstalledSection(deploy),
    ...alternativesSection(deploy, input.turns),
    ...deployRunSection(result, deploy),
    ...patchSection(input),
    ...historySection(input),
    ...egressSection(result.sandbox.egress),
    ...trajectorySection(result),
    ...limitsSection(input),
    ...failed,
    ...filesSection(input),
  ];
}

/** RUNBOOK.md for a run. Pure: the same input gives the same text. */
export function renderRunbook(input: ReportInput): string {
  if (input.result.deploy) {
    return deployRunbook(input, input.result.deploy)
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\n*$/, '\n');
  }
  const status = reportStatus(input.result);
  const recipe = recipeOf(input);
  const out = [
    `# ${input.result.repo.name}: build runbook`,
    '',
    ...statusSection(input, status),
    ...evidenceSection(input),
    ...environmentSection(input),
    ...recipeSection(input, recipe),
    ...dependencySection(input, recipe),
    ...patchSection(input),
    ...historySection(input),
    ...egressSection(input.result.sandbox.egress),
    ...trajectorySection(input.result),
    ...limitsSection(input),
    ...nextStepsSection(input, status),
    ...filesSection(input),
  ];
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
}

/**
 * The few lines a terminal shows after `buildbench build` and `buildbench report` (one summary for both: the
 * build prints it from `reportInputFor(result, outDir)`).
 */
export function renderSummary(input: ReportInput, outDir: string): string {
  const { result } = input;
  const status = reportStatus(result);
  // strict and flexible mean nothing when no binary was named or inferred.
  const named = (b: boolean): string => (result.expected.names.length === 0 ? 'n/a' : yes(b));
  const lines = [
    `${status.label}${status.label.toLowerCase() === result.status ? '' : ` (${result.status})`}: ${result.reason}`,
  ];
  if (status.note) lines.push(`  note: ${status.note}`);
  if (result.deploy) {
    lines.push(...deploySummaryLines(result.deploy));
  } else
    lines.push(
      `  completion ${yes(result.metrics.completion)}  strict ${named(result.metrics.strict)}  flexible ${named(result.metrics.flexible)}` +
        `  (expected ${result.expected.names.length > 0 ? result.expected.names.join(', ') : 'any new binary'}; ${result.expected.source})`,
    );
  if (result.artifacts.length > 0) {
    const shown = result.artifacts.slice(0, 5).map((a) => a.path);
    lines.push(
      `  binaries: ${shown.join(', ')}${result.artifacts.length > 5 ? `, … (${result.artifacts.length} in all)` : ''}`,
    );
  }
  if (result.recipe) {
    const r = result.recipe;
    lines.push(
      `  recipe: ${r.verified ? 'verified' : 'NOT verified'} (replay ${r.replay.status}${r.replay.durationMs > 0 ? ` in ${seconds(r.replay.durationMs)}` : ''}` +
        `${r.fallback ? '; full sequence, the minimal recipe failed' : ''}) — ${r.files.buildSh}, ${r.files.dockerfile}`,
    );
  }
  const patches = result.patches ?? [];
  if (patches.length > 0) lines.push(`  patches: ${plural(patches.length, 'file')} in patches/`);
  if (result.rootCause && status.label !== 'SUCCESS') {
    lines.push(`  root cause (turn ${result.rootCause.turn}): ${result.rootCause.message}`);
    const hint = input.turns.find((t) => t.turn === result.rootCause!.turn)?.rootCause?.hint;
    if (hint) lines.push(`  try next: ${hint}`);
  }
  if (result.sandbox.keptAt) lines.push(`  build tree kept at ${result.sandbox.keptAt}`);
  lines.push(`  runbook: ${path.join(outDir, RUNBOOK)}`);
  return lines.join('\n') + '\n';
}

/** A deploy's lines of the summary: the target's and the verifier's verdicts. */
function deploySummaryLines(deploy: DeployResult): string[] {
  const { target, verifier } = deploy;
  const failing = verifier.checks.find((c) => !c.passed);
  return [
    `  target: ${target ? `${target.passed ? 'passed' : 'FAILED'} — ${target.detail}` : 'never ran'}`,
    `  verifier${verifier.hidden ? ' (hidden)' : ''}: ${
      verifier.checks.length === 0
        ? 'not run'
        : verifier.passed
          ? `passed (${plural(verifier.checks.length, 'check')})`
          : `FAILED — ${failing ? `${failing.name}: ${failing.detail}` : 'no check passed'}`
    }`,
  ];
}

/**
 * Renders RUNBOOK.md into `outDir` from its result.json and trajectory.jsonl; returns what it read. Reads and
 * the write stay inside the folder (`loadReportInput`, `replaceFileUnder`).
 */
export async function writeRunbook(outDir: string): Promise<ReportInput> {
  const input = await loadReportInput(outDir);
  // A new file renamed over RUNBOOK.md: a link of that name is replaced, never written through.
  await replaceFileUnder(outDir, RUNBOOK, renderRunbook(input));
  return input;
}
