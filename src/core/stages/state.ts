/**
 * The one state a build's stages pass along (`RunState`), the collaborators they get from outside
 * (`RunBuildDeps`), and `startRun`, which makes both before any stage runs: the model session (a bad model
 * spec or a missing key is a ConfigError before anything is written), the output folder, the redactor every
 * sandbox output goes through, the event bus with the trajectory recorder and the stop-gate's claim audit.
 */
import type { GpuEnvironment } from '../../verify/gpu.js';
import path from 'node:path';

import { EventBus, modelCallEvent, type RunEvent } from '../../agent/events.js';
import type { LoopOutcome } from '../../agent/loop.js';
import type { Strategy } from '../../agent/types.js';
import { createStrategy, type StrategyDeps } from '../../agent/strategies/factory.js';
import { createModelSession, type ModelSession } from '../../llm/session.js';
import type { FinalizeOutput } from '../../finalize/finalize.js';
import type { RepoInfo } from '../../repo/types.js';
import type { RetrievalResult } from '../../retrieval/index.js';
import { createSandbox } from '../../sandbox/index.js';
import { DEFAULT_MAX_LOG_BYTES } from '../../sandbox/log-file.js';
import type { SwitchableSandbox } from '../../sandbox/switchable.js';
import type { CreateSandboxRequest, Sandbox, SandboxSettings } from '../../sandbox/types.js';
import { TrajectoryRecorder } from '../../trajectory/recorder.js';
import {
  collectSecretValues,
  createRedactor,
  createStreamRedactor,
  type Redactor,
} from '../../trajectory/redact.js';
import type { ExcludedArtifact } from '../../verify/policy.js';
import type { IgnoredName } from '../../verify/scoring.js';
import type { Layer2Spec } from '../../verify/spec.js';
import type { Artifact, Expected, TreeSnapshot } from '../../verify/types.js';
import type { ClaimRecord } from '../../verify/verification.js';
import type { BuildVerifier } from '../../verify/verifier.js';
import type { StrategyChoice, BuildSettings } from '../settings.js';
import { repoNameOf } from '../settings.js';
import type { ResolvedSource } from '../source.js';
import type { StatusDecision, StatusFacts } from '../status.js';
import { prepareOutDir } from './out-dir.js';

/** What runBuild gets from outside; the defaults are the real factories and the system clock. */
export interface RunBuildDeps {
  createSandbox: (settings: SandboxSettings, request: CreateSandboxRequest) => Promise<Sandbox>;
  createStrategy: (choice: StrategyChoice, deps: StrategyDeps) => Strategy;
  /** Milliseconds since the epoch. */
  now: () => number;
}

export const DEFAULT_DEPS: RunBuildDeps = { createSandbox, createStrategy, now: Date.now };

export interface RunBuildOptions {
  signal?: AbortSignal;
  /** Observers of the run (progress display). The trajectory recorder is always attached. */
  listeners?: ((event: RunEvent) => void)[];
  /** Replaces the strategy named in the settings (tests: a scripted strategy). */
  strategy?: Strategy;
}

/**
 * The run's sandbox while it is being made: `prepare` starts it as soon as the repository's tree is on disk and
 * its identity known, so its making (the copy, the mounts, the first command) runs while the tree is inspected;
 * `openSandbox` takes it. Its progress lines are held until the sandbox phase begins, so the trajectory says
 * them in the order a run without the overlap did. `discard` stops an unfinished one and disposes a made one:
 * a run that fails before `openSandbox` has the sandbox in `RunState.sandbox` leaves nothing behind (the last
 * stage, write-result.ts, discards it).
 */
export interface StartedSandbox {
  /** The request it was made with (its progress lines said as they come), for another fresh one. */
  readonly request: CreateSandboxRequest;
  readonly created: Promise<Sandbox>;
  /** When its making began (ms since the epoch). */
  readonly startedAt: number;
  /** Says the held progress lines and every later one as it comes. */
  release(): void;
  discard(): Promise<void>;
}

/** What `prepare` found (also in the state, for result.json). */
export interface Prepared {
  source: ResolvedSource;
  repo: RepoInfo;
}

/**
 * What `openSandbox` opened (also in the state). `box` is one handle for the run: when a repair turn gets a
 * fresh sandbox (fresh-turn.ts), `handle` puts it behind `box`, and `verifier` and `before` are replaced.
 */
export interface Opened {
  box: Sandbox;
  /** The run's verifier, judging the tree after every turn (the current sandbox's). */
  verifier: BuildVerifier;
  /** The same verifier for another sandbox's tree (the replay is judged alike). */
  verifierFor: (sandbox: Sandbox, before: TreeSnapshot) => BuildVerifier;
  /** The current sandbox's tree before anything of the build ran in it. */
  before: TreeSnapshot;
  handle: SwitchableSandbox;
  /** The request the run's sandbox was made with, for another fresh one. */
  request: CreateSandboxRequest;
}

export type CopiedArtifact = Artifact & { copiedTo?: string; copyError?: string };

export interface RunState {
  readonly settings: BuildSettings;
  readonly options: RunBuildOptions;
  readonly deps: RunBuildDeps;
  readonly startedAt: number;
  /** Absolute wall-clock deadline of the run (ms since epoch): the loop and the replays never run past it. */
  readonly deadline: number;
  readonly outDir: string;
  /** The repository's short name (`owner/name` or the folder's name). */
  readonly name: string;
  readonly session?: ModelSession;
  readonly redact: Redactor;
  /** The run's sandbox settings, with the redactor and the log cap every sandbox (replays too) uses. */
  readonly sandboxSettings: SandboxSettings;
  readonly events: EventBus;
  readonly recorder: TrajectoryRecorder;
  /** The stop-gate's decisions, for the self-stop audit in result.json. */
  readonly claims: ClaimRecord[];
  /** Set by the stages, in order. */
  source?: ResolvedSource;
  repo?: RepoInfo;
  expected: Expected & { ignored: IgnoredName[] };
  /** The spec: a visible one parsed, a hidden one only named (loaded by the final checks). */
  spec: { visible?: Layer2Spec; hiddenFile?: string };
  retrieval?: RetrievalResult;
  /** The run's sandbox while it is being made (prepare starts it, openSandbox takes it). */
  startedSandbox?: StartedSandbox;
  sandbox?: Sandbox;
  prepareMs: number;
  /**
   * Up to the first script: when each phase began (ms after the start; the first event of each), when the first
   * script started, and the time spent inside sandbox commands before it (the image's package state, the
   * look-ups the strategy ran in the sandbox), for result.json's `timings.beforeFirstScript`.
   */
  early: { phases: Partial<Record<RunPhase, number>>; firstScriptMs?: number; sandboxMs: number };
  verifier?: BuildVerifier;
  outcome?: LoopOutcome;
  copied: CopiedArtifact[];
  /**
   * The new binaries the scoring policy set aside (examples, tests, benchmarks, vendored code), copied to
   * `artifacts/` too: a user still wants a library's example programs. Listed in result.json with the reason.
   */
  copiedExcluded: (ExcludedArtifact & { copiedTo?: string; copyError?: string })[];
  /** What the final checks said; undefined when they did not run. */
  final?: StatusFacts['final'];
  /** A deploy run's target and verifier checks and whether its setup ran through (the final checks). */
  deployFacts?: StatusFacts['deploy'];
  /** A deploy's version records copied into the output folder (collect.ts), relative to it. */
  deployRecords?: string[];
  decision: StatusDecision;
  finalized?: FinalizeOutput;
  /** Where the kept sandbox is (`--keep`). */
  keptAt?: string;
  /**
   * The image the run's first sandbox ran when the backend made one (the docker toolchain image), as that
   * sandbox reported it: what its creation made and how long it took stays in result.json after a repair
   * turn moved the run to a fresh sandbox.
   */
  derivedImage?: Sandbox['derivedImage'];
  /** A GPU task's environment as the sandbox showed it after the loop (stages/environment.ts). */
  gpu?: GpuEnvironment;
}

/** The phases a run's progress names (fetch, inspect, retrieve, sandbox, build, …). */
export type RunPhase = Extract<RunEvent, { type: 'phase' }>['phase'];

/**
 * The run's sandbox settings: every command's output, in every sandbox of the run (the replays too), is
 * redacted before it is kept or written, and each log file is bounded; credentials removed from the
 * repository copy join the redactor.
 */
function redactingSandboxSettings(settings: BuildSettings, redact: Redactor): SandboxSettings {
  return {
    ...settings.sandbox,
    output: {
      openRedactor: () => createStreamRedactor(redact),
      redact,
      addSecrets: (values) => redact.add(values),
      maxLogBytes: settings.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES,
    },
  };
}

/** Checks the settings that can fail before any work, makes `--out`, and opens the run's event stream. */
export async function startRun(
  settings: BuildSettings,
  options: RunBuildOptions,
  deps: RunBuildDeps,
): Promise<RunState> {
  const startedAt = deps.now();
  const outDir = path.resolve(settings.outDir);
  const session = settings.model ? createModelSession(settings.model, process.env) : undefined;
  await prepareOutDir(outDir);
  const redact = createRedactor([
    ...collectSecretValues(process.env, settings.secretEnv ?? []),
    ...(session?.secrets ?? []),
  ]);
  const sandboxSettings = redactingSandboxSettings(settings, redact);
  const events = new EventBus();
  const recorder = new TrajectoryRecorder(path.join(outDir, 'trajectory.jsonl'), { redact });
  events.on((event) => recorder.record(event.type, event));
  session?.onModelCall((call) => events.emit(modelCallEvent(call)));
  for (const listener of options.listeners ?? []) events.on(listener);
  const claims: ClaimRecord[] = [];
  events.on((e) => {
    if (e.type === 'claim')
      claims.push({ turn: e.turn, claim: e.claim, reason: e.reason, accepted: e.accepted });
  });
  // The harness's time before the first script, phase by phase (issue 32: the bar is 300 ms outside sandbox
  // commands for a model-less build).
  events.on((e) => {
    const early = state.early;
    if (early.firstScriptMs !== undefined) return;
    if (e.type === 'phase') early.phases[e.phase] ??= deps.now() - startedAt;
    else if (e.type === 'turn_start') early.firstScriptMs = deps.now() - startedAt;
  });
  const state: RunState = {
    settings,
    options,
    deps,
    startedAt,
    deadline: startedAt + settings.timeoutMs,
    outDir,
    name: repoNameOf(settings.source),
    ...(session ? { session } : {}),
    redact,
    sandboxSettings,
    events,
    recorder,
    claims,
    expected: { names: [], source: 'none', ignored: [] },
    spec: {},
    prepareMs: 0,
    early: { phases: {}, sandboxMs: 0 },
    copied: [],
    copiedExcluded: [],
    decision: { status: 'failed', reason: '' },
  };
  const { strategy, maxTurns } = settings;
  events.emit({ type: 'run_start', repo: state.name, source: settings.source, strategy, maxTurns, outDir });
  return state;
}

/** A progress line of a phase. */
export function say(state: RunState, phase: RunPhase, message: string, data?: unknown): void {
  state.events.emit({ type: 'phase', phase, message, ...(data !== undefined ? { data } : {}) });
}
