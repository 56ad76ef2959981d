/**
 * `src/finalize/` owns what happens after the agent loop and before the run's sandbox is disposed (DESIGN
 * step 4), the only part after the loop that touches live state: `patches.ts` collects the source changes as
 * a `git format-patch` series, `minimise.ts` reduces the successful history to a recipe (rendered by
 * `src/recipe/` as build.sh and a Dockerfile), `replay.ts` runs it in a FRESH sandbox and judges it again, and
 * `turns.ts` is the one view of a run's turns that finalize and reports share. It sits on floor 3 beside
 * `report/`, which renders its results; finalize never imports report.
 *
 * This file runs those steps: only a replayed recipe is verified, and when the minimal recipe fails its
 * replay, the full sequence of scripts replaces it and is replayed in turn. Finalize never changes the run's
 * status: it adds evidence (or the lack of it) next to it.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { TurnRecord } from '../agent/types.js';
import { errorMessage } from '../base/errors.js';
import type { RunStatus } from '../base/status.js';
import type { CreateSandboxRequest, Sandbox, SandboxKind, SandboxSettings } from '../sandbox/types.js';
import type { Expected } from '../verify/types.js';
import { collectPatches, type ResultPatch, type SkippedFile } from './patches.js';
import type { FinalRecipe } from '../recipe/model.js';
import { renderBuildSh, renderTurnBuildSh } from '../recipe/render-buildsh.js';
import { renderDockerfile } from '../recipe/render-dockerfile.js';
import { fullSequenceRecipe, minimiseRecipe } from './minimise.js';
import {
  compilerFromOutput,
  replayOutcome,
  replayRecipe,
  type ReplayJudge,
  type ReplayOutcome,
} from './replay.js';
import { turnsFromHistory, type ReportTurn } from './turns.js';

export interface ResultRecipe {
  /** True only when the recipe passed its replay in a fresh sandbox. */
  verified: boolean;
  /** `minimal`: the successful turn's script plus state earlier turns left; `full`: every script up to it. */
  mode: 'minimal' | 'full';
  /** True when the minimal recipe failed its replay and the full sequence replaced it. */
  fallback: boolean;
  /** The turn whose verifiers passed. */
  turn: number;
  replay: ReplayOutcome;
  /** The minimal recipe's replay, when it failed and the full sequence was tried. */
  minimalReplay?: ReplayOutcome;
  /** The image the Dockerfile starts FROM (the sandbox's base). */
  baseImage: string;
  /** Paths relative to the output directory. */
  files: { buildSh: string; dockerfile: string; patches: string[] };
}

export const BUILD_SH = 'build.sh';
export const DOCKERFILE = 'Dockerfile';

/** Below this much time left, a replay is not started. */
const MIN_REPLAY_MS = 5_000;

export interface FinalizeInput {
  outDir: string;
  /** Repository name (comments, sandbox ids). */
  repo: string;
  /** The untouched repository (the resolved source). */
  originalDir: string;
  /** The repository's identity, so the replay gets the run's ccache store (`CreateSandboxRequest.cacheKey`). */
  cacheKey?: string;
  /** Devices the run's sandbox was given (`CreateSandboxRequest.devices`); the replays get them too. */
  devices?: CreateSandboxRequest['devices'];
  /** The run sandbox's working copy after the loop; undefined when no sandbox was created. */
  workDir?: string;
  /** The kind and image of the run's sandbox: the replay uses the same kind; the Dockerfile starts FROM the image. */
  sandboxKind: SandboxKind;
  baseImage: string;
  sandboxSettings: SandboxSettings;
  /** The loop's history, or turns already read from a trajectory. */
  history: readonly TurnRecord[] | readonly ReportTurn[];
  status: RunStatus;
  expected: Expected;
  /** How a replay is judged; pass the run's own verifier so both judge alike. Default: the artifact verifier. */
  judge?: ReplayJudge;
  version: string;
  /** Cap for one replay. */
  replayTimeoutMs: number;
  /** Absolute wall-clock deadline of the run (ms since epoch); replays never run past it. */
  deadline?: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** Date in the patch headers (tests). */
  date?: Date;
  /** Injectable for tests. */
  createSandbox?: (settings: SandboxSettings, request: CreateSandboxRequest) => Promise<Sandbox>;
  /**
   * The run's sandbox was fresh, from the untouched repository, when its first turn started (nothing but
   * buildbench's read-only package queries ran in it before), and a turn marked `freshSandbox` ran first in
   * another such sandbox: a turn that passed there is a replay of its own script (`freshTurnReplay`).
   * Default false: every recipe is replayed in a new sandbox.
   */
  firstTurnFresh?: boolean;
  /** The task's hidden verifier judged the run's sandbox after that turn and passed (`firstTurnFresh` runs). */
  hiddenVerified?: boolean;
}

export interface FinalizeOutput {
  recipe?: ResultRecipe;
  patches: ResultPatch[];
  /** Changed files that did not become patches, with the reason. */
  skipped: SkippedFile[];
  /** Problems finalize ran into (a failed diff, …), for the progress display. */
  warnings: string[];
}

function isReportTurns(history: FinalizeInput['history']): history is readonly ReportTurn[] {
  const first = history[0];
  return first !== undefined && 'purpose' in first && !('action' in first);
}

/** Removes what an earlier finalize in the same output directory wrote (a stale recipe must not survive). */
export async function clearFinalizeOutputs(outDir: string): Promise<void> {
  await Promise.all([
    rm(path.join(outDir, BUILD_SH), { force: true }),
    rm(path.join(outDir, DOCKERFILE), { force: true }),
    rm(path.join(outDir, 'patches'), { recursive: true, force: true }),
    rm(path.join(outDir, 'replay'), { recursive: true, force: true }),
  ]);
}

/**
 * Finalize in named steps: collect the patch series, and after a successful run minimise the history into a
 * recipe, write it, replay it in a fresh sandbox, and fall back to the full sequence when that replay fails.
 */
export async function finalizeRun(input: FinalizeInput): Promise<FinalizeOutput> {
  const warnings: string[] = [];
  const turns = isReportTurns(input.history) ? [...input.history] : turnsFromHistory(input.history);
  await clearFinalizeOutputs(input.outDir);
  const collected = await collectSourcePatches(input, turns, warnings);
  const { skipped, failed } = collected;
  let { patches } = collected;
  if (input.status !== 'success') return { patches, skipped, warnings };
  const fresh = freshPassingTurn(input);
  if (fresh && patches.length > 0 && patches.every((p) => p.turn === undefined)) {
    // The passing turn ran as the first script of a fresh sandbox from the untouched repository and made no
    // source edit of its own, and no repair claims these changes: its own steps made them (a `configure` that
    // rewrites a committed Makefile), and build.sh, that same script, makes them again. They are not patches.
    await rm(path.join(input.outDir, 'patches'), { recursive: true, force: true });
    for (const p of patches)
      for (const file of p.paths)
        skipped.push({
          path: file,
          why:
            `rewritten by the build's own steps: turn ${fresh.turn} changed it running build.sh's script in a fresh ` +
            'sandbox from the untouched repository, so build.sh makes the change again; not a patch',
        });
    patches = [];
  }

  const minimal = minimiseRecipe(turns, { patches: patches.map((p) => p.file), keepEdits: failed });
  if (!minimal) {
    warnings.push('the run succeeded but no turn passed the verifiers in the history; no recipe was written');
    return { patches, skipped, warnings };
  }
  const reused = fresh && patches.length === 0 && fresh.turn === minimal.turn ? fresh : undefined;
  const recipe = reused
    ? await reusedFreshTurn(input, minimal, reused)
    : await replayedRecipe(input, turns, minimal, patches);
  return { recipe, patches, skipped, warnings };
}

/**
 * The successful turn, when it can stand as the recipe's replay: it ran as the first script of a fresh
 * sandbox from the untouched repository — turn 0 as the only turn of a run whose sandbox was fresh
 * (`firstTurnFresh`), or a repair turn given a fresh sandbox (`TurnRecord.freshSandbox`) — it was the last
 * turn that ran, it made no source edit of its own (none of the run's turns did), and the verifiers passed
 * after it; its script is the live one, not a redacted copy from a trajectory. When it is also the turn the
 * recipe is minimised from and no patch remains (its script is the whole recipe), build.sh is that script byte
 * for byte, and running it again in another fresh sandbox would repeat exactly what was judged, so it is not
 * run a second time.
 */
function freshPassingTurn(input: FinalizeInput): TurnRecord | undefined {
  if (!input.firstTurnFresh || isReportTurns(input.history)) return undefined;
  const runs = input.history.filter((r) => r.action.kind === 'run');
  if (runs.some((r) => r.action.kind === 'run' && (r.action.patches?.length ?? 0) > 0)) return undefined;
  const last = runs[runs.length - 1];
  const o = last?.observation;
  if (!last || !o) return undefined;
  const fresh = last.freshSandbox === true || (runs.length === 1 && last.turn === 0);
  if (!fresh) return undefined;
  // A script ended by a signal (a timeout, the idle limit, a cancel) did not run to its end: replay it.
  const code = o.exec.exitCode;
  if (!o.verdict.passed || o.exec.timedOut || o.exec.cancelled || code === null || code >= 128)
    return undefined;
  return last;
}

/** The recipe whose replay is a turn of the run (`freshTurnReplay`): build.sh is that turn's script. */
async function reusedFreshTurn(
  input: FinalizeInput,
  minimal: FinalRecipe,
  first: TurnRecord,
): Promise<ResultRecipe> {
  const o = first.observation!;
  const script = first.action.kind === 'run' ? first.action.script : '';
  await writeRecipe(input, minimal, { turn: first.turn, script });
  const log = o.logPath ? path.relative(input.outDir, o.logPath) : undefined;
  const compiler = compilerFromOutput(o.output);
  const replay: ReplayOutcome = {
    status: 'passed',
    reason:
      `build.sh is turn ${first.turn}'s script byte for byte; turn ${first.turn} ran it as the first script of a fresh ` +
      `${input.sandboxKind} sandbox from the untouched repository and the verifiers passed there` +
      (input.hiddenVerified ? ', the task’s hidden verifier included' : '') +
      ', so that run is its replay (not run a second time)',
    metrics: {
      completion: o.verdict.metrics.completion,
      strict: o.verdict.metrics.strict,
      flexible: o.verdict.metrics.flexible,
    },
    durationMs: 0,
    exitCode: o.exec.exitCode,
    timedOut: false,
    missing: o.verdict.metrics.missing,
    artifacts: o.artifacts.length,
    ...(log && !log.startsWith('..') && !path.isAbsolute(log)
      ? { log, logBytes: o.exec.totalBytes, logTruncated: o.exec.logTruncated ?? false }
      : {}),
    ...(input.hiddenVerified ? { hiddenVerifier: true } : {}),
    ...(compiler ? { compiler } : {}),
    reusedTurn: first.turn,
  };
  input.onProgress?.(`replay: ${replay.reason}`);
  return {
    verified: true,
    mode: 'minimal',
    fallback: false,
    turn: first.turn,
    replay,
    baseImage: input.baseImage,
    files: { buildSh: BUILD_SH, dockerfile: DOCKERFILE, patches: [] },
  };
}

/**
 * The patch series from the run's working copy. `failed` (no working copy, or the diff failed) tells the
 * minimiser to keep the scripts' own edit commands, since no patch carries them.
 */
async function collectSourcePatches(
  input: FinalizeInput,
  turns: readonly ReportTurn[],
  warnings: string[],
): Promise<{ patches: ResultPatch[]; skipped: SkippedFile[]; failed: boolean }> {
  if (input.workDir === undefined) return { patches: [], skipped: [], failed: true };
  try {
    input.onProgress?.('collecting source changes as patches');
    const collected = await collectPatches({
      originalDir: input.originalDir,
      workDir: input.workDir,
      turns,
      outDir: input.outDir,
      version: input.version,
      date: input.date,
    });
    return { ...collected, failed: false };
  } catch (error) {
    warnings.push(`the patch series could not be collected: ${errorMessage(error)}`);
    return { patches: [], skipped: [], failed: true };
  }
}

/** What every replay of this run shares: the patch files it applies. */
interface ReplayPlan {
  input: FinalizeInput;
  patchFiles: { path: string; content: string }[];
}

/**
 * Writes and replays the minimal recipe; when it ran and failed, writes and replays the full sequence of
 * scripts instead (a sandbox that could not start would fail again, so only a failed replay is retried).
 */
async function replayedRecipe(
  input: FinalizeInput,
  turns: readonly ReportTurn[],
  minimal: FinalRecipe,
  patches: readonly ResultPatch[],
): Promise<ResultRecipe> {
  const plan: ReplayPlan = {
    input,
    patchFiles: await Promise.all(
      patches.map(async (p) => ({
        path: p.file,
        content: await readFile(path.join(input.outDir, p.file), 'utf8'),
      })),
    ),
  };
  await writeRecipe(input, minimal);
  const first = await replayWritten(plan, minimal, 'replay/minimal.log');
  input.onProgress?.(`replay of the minimal recipe: ${first.status} — ${first.reason}`);
  const minimalResult = recipeResult(input, minimal, first);
  if (first.status !== 'failed') return minimalResult;

  const full = fullSequenceRecipe(turns);
  if (!full) return minimalResult;
  await writeRecipe(input, full);
  const second = await replayWritten(plan, full, 'replay/full.log');
  input.onProgress?.(`replay of the full sequence: ${second.status} — ${second.reason}`);
  return recipeResult(input, full, second, first);
}

/** build.sh and the Dockerfile of a recipe, into the output directory. */
async function writeRecipe(
  input: FinalizeInput,
  recipe: FinalRecipe,
  turnScript?: ReusedScript,
): Promise<void> {
  const meta = { repo: input.repo, version: input.version, baseImage: input.baseImage };
  const buildSh = turnScript
    ? renderTurnBuildSh(turnScript.script, meta, turnScript.turn)
    : renderBuildSh(recipe, meta);
  await writeFile(path.join(input.outDir, BUILD_SH), buildSh, { mode: 0o755 });
  await writeFile(path.join(input.outDir, DOCKERFILE), renderDockerfile(recipe, meta));
}

/** A turn's script written as build.sh byte for byte (`freshTurnReplay`). */
interface ReusedScript {
  turn: number;
  script: string;
}

/** Replays the build.sh just written, within what is left of the run's wall clock. */
async function replayWritten(plan: ReplayPlan, recipe: FinalRecipe, logName: string): Promise<ReplayOutcome> {
  const { input } = plan;
  const left = input.deadline !== undefined ? input.deadline - Date.now() : Number.POSITIVE_INFINITY;
  if (left < MIN_REPLAY_MS) {
    return {
      status: 'skipped',
      reason: 'the wall-clock budget was spent before the recipe could be replayed',
      metrics: { completion: false, strict: false, flexible: false },
      durationMs: 0,
    };
  }
  const buildSh = await readFile(path.join(input.outDir, BUILD_SH), 'utf8');
  const result = await replayRecipe({
    settings: { ...input.sandboxSettings, choice: input.sandboxKind },
    repoDir: input.originalDir,
    ...(input.cacheKey !== undefined ? { cacheKey: input.cacheKey } : {}),
    name: input.repo,
    ...(input.devices ? { devices: input.devices } : {}),
    buildSh,
    files: recipe.mode === 'minimal' ? plan.patchFiles : [],
    expected: input.expected,
    judge: input.judge,
    timeoutMs: Math.max(1000, Math.min(input.replayTimeoutMs, left)),
    logPath: path.join(input.outDir, logName),
    logName,
    signal: input.signal,
    onProgress: input.onProgress,
    createSandbox: input.createSandbox,
  });
  return replayOutcome(result);
}

/**
 * The recipe as result.json records it: verified only when its replay passed. `minimalReplay` is the failed
 * replay of the minimal recipe the full sequence replaced.
 */
function recipeResult(
  input: FinalizeInput,
  recipe: FinalRecipe,
  replay: ReplayOutcome,
  minimalReplay?: ReplayOutcome,
): ResultRecipe {
  return {
    verified: replay.status === 'passed',
    mode: recipe.mode,
    fallback: minimalReplay !== undefined,
    turn: recipe.turn,
    replay,
    ...(minimalReplay ? { minimalReplay } : {}),
    baseImage: input.baseImage,
    files: { buildSh: BUILD_SH, dockerfile: DOCKERFILE, patches: recipe.patches },
  };
}
