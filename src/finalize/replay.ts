/**
 * Replay: the recipe's build.sh runs in a FRESH sandbox of the same kind, created from the untouched
 * repository, and the artifacts are scanned and judged again against the same expected names. Only a
 * recipe that passes its replay is verified.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { writeFileUnder } from '../base/safe-fs.js';
import { errorMessage } from '../base/errors.js';
import { createSandbox as defaultCreateSandbox } from '../sandbox/factory.js';
import type { CreateSandboxRequest, ExecResult, Sandbox, SandboxSettings } from '../sandbox/types.js';
import { scanNewArtifacts, snapshotTree } from '../verify/artifacts.js';
import { excludeBuildScratch } from '../verify/exclude.js';
import type { Artifact, Expected, Metrics, TreeSnapshot, Verdict } from '../verify/types.js';
import { judgeArtifacts } from '../verify/verdict.js';

/** How a recipe replay in a fresh sandbox ended. Only `passed` makes a recipe verified. */
export type ReplayStatus = 'passed' | 'failed' | 'skipped' | 'error';

export interface ReplayOutcome {
  status: ReplayStatus;
  /** One sentence: why the replay ended the way it did. */
  reason: string;
  metrics: Pick<Metrics, 'completion' | 'strict' | 'flexible'>;
  durationMs: number;
  /** How long build.sh itself ran in the replay sandbox (the rest of durationMs is the sandbox's set-up). */
  scriptMs?: number;
  exitCode?: number | null;
  timedOut?: boolean;
  /** Expected names the replay did not produce. */
  missing?: string[];
  /** New binaries the replay produced. */
  artifacts?: number;
  /** `cc --version`'s first line in the replay sandbox, when it printed one. */
  compiler?: string;
  /** The replay's complete output, relative to the output directory. */
  log?: string;
  /** True when the task's hidden verifier ran in the replay sandbox too (and so is part of `status`). */
  hiddenVerifier?: boolean;
  /**
   * Set when no second run was needed: build.sh is this turn's script byte for byte, and the turn ran it as
   * the first script of a fresh sandbox from the untouched repository; that run, judged by the same verifiers,
   * is the replay.
   */
  reusedTurn?: number;
  /** Bytes build.sh printed in all, and whether the log kept only its head and tail. */
  logBytes?: number;
  logTruncated?: boolean;
}

/**
 * Where the recipe files are placed in the replay's working copy: buildbench's scratch folder, which the
 * artifact scan never looks into.
 */
export const REPLAY_DIR = '.buildbench/replay';

/**
 * Scans the replay's tree and judges it; the run passes its own verifier so both judge alike. `hidden` is set
 * when the judgement included the task's hidden verifier (loaded after the loop, run in the replay too).
 */
export type ReplayJudge = (
  sandbox: Sandbox,
  before: TreeSnapshot,
) => Promise<{ artifacts: Artifact[]; verdict: Verdict; hidden?: boolean }>;

/** The artifact verifier alone: new binaries outside build scratch, judged against the expected names. */
export function artifactJudge(expected: Expected): ReplayJudge {
  return async (sandbox, before) => {
    const artifacts = await scanNewArtifacts(sandbox.hostWorkdir, before, { exclude: excludeBuildScratch });
    return { artifacts, verdict: judgeArtifacts(artifacts, expected) };
  };
}

export interface ReplayRequest {
  /** The run's sandbox settings; `choice` should be the kind the run used. */
  settings: SandboxSettings;
  /** The untouched repository. */
  repoDir: string;
  /** The repository's identity (`CreateSandboxRequest.cacheKey`): the replay uses the run's ccache store. */
  cacheKey?: string;
  /** Short name for the sandbox id. */
  name: string;
  /** Devices the run's sandbox was given (a GPU task's GPU): the replay's gets them too. */
  devices?: CreateSandboxRequest['devices'];
  /** build.sh's text and the patch files it applies (relative paths as build.sh names them). */
  buildSh: string;
  files: { path: string; content: string }[];
  expected: Expected;
  /** How the replay is judged. Default: `artifactJudge(expected)`. */
  judge?: ReplayJudge;
  timeoutMs: number;
  /** Where the complete output goes (host path). */
  logPath?: string;
  /** Relative form of logPath for the outcome. */
  logName?: string;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** Injectable for tests. */
  createSandbox?: (settings: SandboxSettings, request: CreateSandboxRequest) => Promise<Sandbox>;
}

export interface ReplayResult extends ReplayOutcome {
  artifactList: Artifact[];
  image?: string;
  sandboxKind?: string;
}

const NO_METRICS = { completion: false, strict: false, flexible: false };

/** The compiler line build.sh prints (`### buildbench: compiler: gcc (Debian 12.2.0-14) 12.2.0`). */
export function compilerFromOutput(output: string): string | undefined {
  const match = /^### buildbench: compiler: (.+)$/m.exec(output);
  const value = match?.[1]?.trim();
  return value ? value : undefined;
}

/**
 * Replays a recipe: a fresh sandbox from the untouched repository, build.sh and its patch files placed in
 * REPLAY_DIR, one run of build.sh, the tree judged; the sandbox is always disposed. Never throws: a replay
 * that cannot run is an `error` outcome.
 */
export async function replayRecipe(request: ReplayRequest): Promise<ReplayResult> {
  const started = Date.now();
  const base = (): Pick<ReplayResult, 'durationMs' | 'log'> => ({
    durationMs: Date.now() - started,
    ...(request.logName ? { log: request.logName } : {}),
  });
  let box: Sandbox | undefined;
  try {
    request.onProgress?.(`replaying the recipe in a fresh ${request.settings.choice} sandbox`);
    const sandbox = (box = await openReplaySandbox(request));
    const before = await snapshotTree(sandbox.hostWorkdir, { exclude: excludeBuildScratch });
    await placeRecipe(sandbox, request);
    if (request.logPath) await mkdir(path.dirname(request.logPath), { recursive: true });
    const exec = await sandbox.exec(`bash ${REPLAY_DIR}/build.sh .`, {
      timeoutMs: request.timeoutMs,
      logPath: request.logPath,
      signal: request.signal,
    });
    const judged = await (request.judge ?? artifactJudge(request.expected))(sandbox, before);
    return replayVerdict(request, sandbox, exec, judged, base());
  } catch (error) {
    return {
      status: 'error',
      reason: `the replay could not run: ${errorMessage(error)}`,
      metrics: NO_METRICS,
      ...base(),
      artifactList: [],
    };
  } finally {
    if (box) {
      await box.dispose().catch((error: unknown) => {
        request.onProgress?.(`warning: replay sandbox cleanup failed: ${errorMessage(error)}`);
      });
    }
  }
}

/** A fresh sandbox of the run's kind, from the untouched repository, with the run's ccache store. */
function openReplaySandbox(request: ReplayRequest): Promise<Sandbox> {
  const create = request.createSandbox ?? ((s, r) => defaultCreateSandbox(s, r));
  return create(request.settings, {
    repoDir: request.repoDir,
    ...(request.cacheKey !== undefined ? { cacheKey: request.cacheKey } : {}),
    name: `${request.name}-replay`,
    ...(request.devices ? { devices: request.devices } : {}),
    signal: request.signal,
    onProgress: request.onProgress,
  });
}

/** build.sh and the patch files into REPLAY_DIR of the sandbox's copy. */
async function placeRecipe(sandbox: Sandbox, request: ReplayRequest): Promise<void> {
  // The fresh copy holds what the repository committed, links included: written without following any.
  await writeFileUnder(sandbox.hostWorkdir, `${REPLAY_DIR}/build.sh`, request.buildSh, 0o755);
  for (const file of request.files) {
    await writeFileUnder(sandbox.hostWorkdir, path.posix.join(REPLAY_DIR, file.path), file.content);
  }
}

/**
 * How the replay ended: cancelled is an error; a timeout, failed verifiers or (unless the original turn did
 * too) a non-zero exit is a failure; otherwise it passed.
 */
function replayVerdict(
  request: ReplayRequest,
  sandbox: Sandbox,
  exec: ExecResult,
  { artifacts, verdict, hidden }: { artifacts: Artifact[]; verdict: Verdict; hidden?: boolean },
  base: Pick<ReplayResult, 'durationMs' | 'log'>,
): ReplayResult {
  const compiler = compilerFromOutput(exec.output);
  const outcome = (status: ReplayResult['status'], reason: string): ReplayResult => ({
    status,
    reason,
    metrics: {
      completion: verdict.metrics.completion,
      strict: verdict.metrics.strict,
      flexible: verdict.metrics.flexible,
    },
    ...base,
    scriptMs: exec.durationMs,
    exitCode: exec.exitCode,
    timedOut: exec.timedOut,
    ...(exec.logPath ? { logBytes: exec.totalBytes, logTruncated: exec.logTruncated ?? false } : {}),
    missing: verdict.metrics.missing,
    artifacts: artifacts.length,
    ...(compiler ? { compiler } : {}),
    ...(hidden ? { hiddenVerifier: true } : {}),
    artifactList: artifacts,
    image: sandbox.image,
    sandboxKind: sandbox.kind,
  });
  if (exec.cancelled) return outcome('error', 'the replay was cancelled');
  if (exec.timedOut)
    return outcome('failed', `build.sh was stopped after ${Math.round(exec.durationMs / 1000)} s`);
  if (!verdict.passed) {
    return outcome(
      'failed',
      `build.sh exited ${exec.exitCode} and the verifiers failed: ${verdict.failures.join('; ')}`,
    );
  }
  // A replay that did not run through confirms nothing, whatever the verifiers found (issue 31).
  if (exec.exitCode !== 0) {
    return outcome('failed', `the verifiers passed but build.sh exited ${exec.exitCode}`);
  }
  return outcome(
    'passed',
    `build.sh built ${artifacts.length} binar${artifacts.length === 1 ? 'y' : 'ies'} in a fresh ${sandbox.kind} sandbox and the verifiers passed` +
      (hidden ? ', the task’s hidden verifier included' : ''),
  );
}

/** The outcome as result.json records it (without the artifact list). */
export function replayOutcome(result: ReplayResult): ReplayOutcome {
  const { artifactList: _artifacts, image: _image, sandboxKind: _kind, ...outcome } = result;
  return outcome;
}
