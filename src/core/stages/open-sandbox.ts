import path from 'node:path';

import { DEPLOY_ENV_FILE } from '../../deploy/types.js';
import { loadKnowledge } from '../../knowledge/index.js';
import { ensurePackageState } from '../../knowledge/repair/package-state.js';
import { switchableSandbox } from '../../sandbox/switchable.js';
import type { CreateSandboxRequest, Sandbox } from '../../sandbox/types.js';
import type { BuildSettings } from '../settings.js';
import { snapshotTree } from '../../verify/artifacts.js';
import { saveSnapshot, SNAPSHOT_FILE } from '../../verify/baseline.js';
import { excludeBuildScratch } from '../../verify/exclude.js';
import { scoringPolicyFor } from '../../verify/policy.js';
import type { TreeSnapshot } from '../../verify/types.js';
import { BuildVerifier } from '../../verify/verifier.js';
import { say, type Opened, type Prepared, type RunState, type StartedSandbox } from './state.js';

/** The devices a deploy run's `requires` asks every sandbox of the run for (the replays' too). */
export function requestedDevices(
  settings: Pick<BuildSettings, 'deploy'>,
): Pick<CreateSandboxRequest, 'devices'> {
  const requires = settings.deploy?.requires ?? [];
  if (requires.length === 0) return {};
  return { devices: { gpu: requires.includes('gpu'), kvm: requires.includes('kvm') } };
}

/**
 * How long after the copy the tables are loaded: once the first command's process has started (loaded at once,
 * they delayed its start by as long as they took, 25-30 ms).
 */
const WARM_UP_AFTER_COPY_MS = 20;

/** Loads the first turn's tables; a failure is left to the turn that reads them. */
function warmUp(): void {
  try {
    loadKnowledge();
  } catch {
    // said by the first turn, which reads them again
  }
}

/** Starts making the run's sandbox for the tree in `dir` (see `StartedSandbox`); `identity` is awaited first. */
export function startSandbox(state: RunState, dir: string, identity: Promise<string>): StartedSandbox {
  const { settings, options } = state;
  const startedAt = state.deps.now();
  const held: string[] = [];
  let released = false;
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const request: CreateSandboxRequest = {
    repoDir: dir,
    name: state.name,
    signal: options.signal,
    ...requestedDevices(settings),
    onProgress: (message: string) => say(state, 'sandbox', message),
  };
  const created = identity.then((cacheKey) => {
    request.cacheKey = cacheKey;
    return state.deps.createSandbox(state.sandboxSettings, {
      ...request,
      signal,
      onProgress: (message: string) => (released ? say(state, 'sandbox', message) : held.push(message)),
      // The copy is in and the sandbox's first command comes next (rootfs: a few file writes, then its
      // process, ~100 ms): the tables the first turn reads are loaded while this process waits for it.
      onCopied: () => setTimeout(warmUp, WARM_UP_AFTER_COPY_MS).unref(),
    });
  });
  // Awaited by openSandbox or discard; a failure is theirs to report, never an unhandled rejection.
  created.catch(() => undefined);
  return {
    request,
    created,
    startedAt,
    release: () => {
      released = true;
      for (const message of held.splice(0)) say(state, 'sandbox', message);
    },
    discard: async () => {
      stop.abort();
      const box = await created.catch(() => undefined);
      await box?.dispose().catch(() => undefined);
    },
  };
}

/**
 * Stage 2: the run's sandbox (started by `prepare`) with its copy of the repository, the snapshot of that copy
 * before the build (kept beside result.json with `--keep`, for `buildbench verify`), and the verifier that
 * judges the tree after every turn, with `verifierFor`, which makes the same verifier for another sandbox (the
 * replay's).
 */
export async function openSandbox(state: RunState, { source, repo }: Prepared): Promise<Opened> {
  const { settings, options } = state;
  // The sandbox phase begins here, whatever its first progress line says later ("ready" for rootfs).
  state.early.phases.sandbox ??= state.deps.now() - state.startedAt;
  const started = (state.startedSandbox ??= startSandbox(
    state,
    source.dir,
    Promise.resolve(source.identity),
  ));
  started.release();
  const { request } = started;
  const created = await started.created;
  if (created.derivedImage) state.derivedImage = { ...created.derivedImage };
  // Its creation's own commands (rootfs: the `true` that proves the stack runs) are sandbox time too.
  state.early.sandboxMs += created.setupCommandsMs ?? 0;
  const first = timedBeforeFirstScript(state, created);
  // Before any command of the repository runs in it: the image's package state, for package look-ups answered
  // on this machine (dumped once per stack of layers; a sandbox without package lists here has none).
  await ensurePackageState(first, options.signal);
  // One handle for the whole run: a repair turn may get a fresh sandbox behind it (fresh-turn.ts).
  const handle = switchableSandbox(first);
  const box = handle.sandbox;
  state.sandbox = box;
  state.prepareMs = state.deps.now() - started.startedAt;
  say(state, 'sandbox', `${box.kind} sandbox ready (${box.image})`);

  const before = await snapshotTree(box.hostWorkdir, { exclude: excludeBuildScratch });
  if (settings.keep) await saveSnapshot(path.join(state.outDir, SNAPSHOT_FILE), before);
  const policy = scoringPolicyFor(repo, state.expected);
  const { spec } = state;
  const verifierFor = (sandbox: Sandbox, tree: TreeSnapshot): BuildVerifier =>
    new BuildVerifier({
      root: sandbox.hostWorkdir,
      before: tree,
      // read when the verifier is made: a fresh sandbox's gets the expectation as the run now has it
      expected: state.expected,
      policy,
      sandbox,
      spec: spec.visible,
      signal: options.signal,
      // A deploy run's checks (the target, the verifier, in the replay too) run in the environment its setup made.
      ...(settings.deploy ? { envFile: DEPLOY_ENV_FILE } : {}),
    });
  const verifier = verifierFor(box, before);
  state.verifier = verifier;
  return { box, verifier, verifierFor, before, handle, request };
}

/**
 * `box`, with the time its commands take before the run's first script added to `state.early.sandboxMs` (the
 * harness's time before the first script is the rest). Every other member is the box's own.
 */
function timedBeforeFirstScript(state: RunState, box: Sandbox): Sandbox {
  const exec: Sandbox['exec'] = async (script, execOptions) => {
    const counted = state.early.firstScriptMs === undefined;
    const started = state.deps.now();
    try {
      return await box.exec(script, execOptions);
    } finally {
      if (counted) state.early.sandboxMs += state.deps.now() - started;
    }
  };
  return new Proxy(box, {
    get(target, property) {
      if (property === 'exec') return exec;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
