/**
 * Finalize (DESIGN step 4), after the agent loop and before the sandbox is disposed: collect the source
 * changes as a patch series, minimise the successful trajectory into a recipe (build.sh + Dockerfile), replay
 * it in a fresh sandbox and judge it again. Only a replayed recipe is verified; when the minimal recipe fails
 * its replay, the full sequence of scripts replaces it and is replayed in turn.
 *
 * Finalize never changes the run's status: it adds evidence (or the lack of it) next to it.
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
import { renderBuildSh } from '../recipe/render-buildsh.js';
import { renderDockerfile } from '../recipe/render-dockerfile.js';
import { fullSequenceRecipe, minimiseRecipe } from './minimise.js';
import { replayOutcome, replayRecipe, type ReplayJudge, type ReplayOutcome } from './replay.js';
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

export async function finalizeRun(input: FinalizeInput): Promise<FinalizeOutput> {
  const warnings: string[] = [];
  const turns = isReportTurns(input.history) ? [...input.history] : turnsFromHistory(input.history);
  await clearFinalizeOutputs(input.outDir);

  let patches: ResultPatch[] = [];
  let skipped: SkippedFile[] = [];
  let patchesFailed = input.workDir === undefined;
  if (input.workDir !== undefined) {
    try {
      input.onProgress?.('collecting source changes as patches');
      ({ patches, skipped } = await collectPatches({
        originalDir: input.originalDir,
        workDir: input.workDir,
        turns,
        outDir: input.outDir,
        version: input.version,
        date: input.date,
      }));
    } catch (error) {
      patchesFailed = true;
      warnings.push(`the patch series could not be collected: ${errorMessage(error)}`);
    }
  }
  if (input.status !== 'success') return { patches, skipped, warnings };

  const minimal = minimiseRecipe(turns, { patches: patches.map((p) => p.file), keepEdits: patchesFailed });
  if (!minimal) {
    warnings.push('the run succeeded but no turn passed the verifiers in the history; no recipe was written');
    return { patches, skipped, warnings };
  }
  const finalTurn = turns.find((t) => t.turn === minimal.turn);
  const allowNonZeroExit = finalTurn?.exitCode !== 0;
  const patchFiles = await Promise.all(
    patches.map(async (p) => ({
      path: p.file,
      content: await readFile(path.join(input.outDir, p.file), 'utf8'),
    })),
  );

  const write = async (recipe: FinalRecipe): Promise<void> => {
    const meta = { repo: input.repo, version: input.version, baseImage: input.baseImage };
    await writeFile(path.join(input.outDir, BUILD_SH), renderBuildSh(recipe, meta), { mode: 0o755 });
    await writeFile(path.join(input.outDir, DOCKERFILE), renderDockerfile(recipe, meta));
  };

  const replay = async (recipe: FinalRecipe, logName: string): Promise<ReplayOutcome> => {
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
      buildSh,
      files: recipe.mode === 'minimal' ? patchFiles : [],
      expected: input.expected,
      judge: input.judge,
      timeoutMs: Math.max(1000, Math.min(input.replayTimeoutMs, left)),
      logPath: path.join(input.outDir, logName),
      logName,
      allowNonZeroExit,
      signal: input.signal,
      onProgress: input.onProgress,
      createSandbox: input.createSandbox,
    });
    return replayOutcome(result);
  };

  const files = (recipe: FinalRecipe): ResultRecipe['files'] => ({
    buildSh: BUILD_SH,
    dockerfile: DOCKERFILE,
    patches: recipe.patches,
  });

  await write(minimal);
  const first = await replay(minimal, 'replay/minimal.log');
  input.onProgress?.(`replay of the minimal recipe: ${first.status} — ${first.reason}`);
  const minimalResult: ResultRecipe = {
    verified: first.status === 'passed',
    mode: 'minimal',
    fallback: false,
    turn: minimal.turn,
    replay: first,
    baseImage: input.baseImage,
    files: files(minimal),
  };
  // Only a recipe that ran and failed is worth a second try; a sandbox that could not start would fail again.
  if (first.status !== 'failed') return { recipe: minimalResult, patches, skipped, warnings };

  const full = fullSequenceRecipe(turns);
  if (!full) return { recipe: minimalResult, patches, skipped, warnings };
  await write(full);
  const second = await replay(full, 'replay/full.log');
  input.onProgress?.(`replay of the full sequence: ${second.status} — ${second.reason}`);
  return {
    recipe: {
      verified: second.status === 'passed',
      mode: 'full',
      fallback: true,
      turn: full.turn,
      replay: second,
      minimalReplay: first,
      baseImage: input.baseImage,
      files: files(full),
    },
    patches,
    skipped,
    warnings,
  };
}
