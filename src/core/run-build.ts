import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BuildSettings } from './settings.js';
import { repoNameOf } from './settings.js';
import { EventBus, type RunEvent } from '../agent/events.js';
import { ConfigError, SandboxError, errorMessage } from '../base/errors.js';
import type { RunStatus } from '../base/status.js';
import { RESULT_SCHEMA, type BuildResult, type TurnSummary } from '../report/result.js';
import { resolveSource, type ResolvedSource } from './source.js';
import { VERSION } from './version.js';
import { copyFileNoFollow, relComponents } from '../base/safe-fs.js';
import { createSandbox } from '../sandbox/index.js';
import type { Sandbox, SandboxSettings } from '../sandbox/types.js';
import { DEFAULT_MAX_LOG_BYTES } from '../sandbox/log-file.js';
import { inspectRepo } from '../repo/inspect.js';
import type { RepoInfo } from '../repo/types.js';
import { analyzeLog, analyzeLogFile } from '../knowledge/diagnose/log-parser.js';
import { createKnowledge, createServices } from '../knowledge/index.js';
import { snapshotTree } from '../verify/artifacts.js';
import { expectedFrom } from '../verify/scoring.js';
import { excludeBuildScratch } from '../verify/exclude.js';
import { saveSnapshot, SNAPSHOT_FILE } from '../verify/baseline.js';
import { scoringPolicyFor } from '../verify/policy.js';
import { prepareSpec } from '../verify/spec.js';
import { BuildVerifier } from '../verify/verifier.js';
import { settleStatus, type Claim, type ClaimRecord } from '../verify/verification.js';
import type { Artifact } from '../verify/types.js';
import { runAgentLoop, type LoopOutcome } from '../agent/loop.js';
import type { Strategy } from '../agent/types.js';
import { createStrategy } from '../agent/strategies/factory.js';
import { createModelSession, type ModelStrategy } from '../agent/strategies/model.js';
import { retrieveInstructions, type RetrievalResult } from '../retrieval/index.js';
import type { LlmProvider } from '../llm/types.js';
import { TrajectoryRecorder } from '../trajectory/recorder.js';
import {
  collectSecretValues,
  createRedactor,
  createStreamRedactor,
  redactDeep,
} from '../trajectory/redact.js';
import { BUILD_SH, DOCKERFILE, finalizeRun, type FinalizeOutput } from '../finalize/finalize.js';
import { writeRunbook } from '../report/runbook.js';
import { makeDirectory, MakeDirError, refusal } from '../base/make-dir.js';

export interface RunBuildOptions {
  signal?: AbortSignal;
  /** Observers of the run (progress display). The trajectory recorder is always attached. */
  listeners?: ((event: RunEvent) => void)[];
  /** Replaces the strategy named in the settings (tests: a scripted strategy). */
  strategy?: Strategy;
}

/**
 * Makes `--out` (never hanging: see make-dir.ts) and checks that a file can be written in it, so a bad
 * `--out` is one ConfigError before any work starts.
 */
async function prepareOutDir(outDir: string): Promise<void> {
  const fail = (why: string): ConfigError =>
    new ConfigError(`--out: cannot write to '${outDir}': ${why}`, 'expected a writable directory');
  const whyOf = (error: unknown): string => (error instanceof MakeDirError ? error.why : errorMessage(error));
  try {
    await makeDirectory(outDir);
  } catch (error) {
    throw fail(whyOf(error));
  }
  try {
    // access(W_OK) is always true for root; only writing tells (read-only mounts, /proc/1, full disks).
    const probe = path.join(outDir, `.buildbench-write-test-${process.pid}`);
    await writeFile(probe, '').catch((error: unknown) => {
      throw new MakeDirError(outDir, refusal(probe, error, 'files'));
    });
    await rm(probe, { force: true });
    await rm(path.join(outDir, 'logs'), { recursive: true, force: true });
    await rm(path.join(outDir, 'artifacts'), { recursive: true, force: true });
    await makeDirectory(path.join(outDir, 'logs'));
  } catch (error) {
    throw fail(whyOf(error));
  }
}

/**
 * The composition root for one build: source → inspect → sandbox → agent loop → collect → result.json.
 * Whatever happens, result.json and trajectory.jsonl are written; configuration errors before any work
 * starts are thrown as ConfigError.
 */
export async function runBuild(settings: BuildSettings, options: RunBuildOptions = {}): Promise<BuildResult> {
  const startedAt = new Date();
  const outDir = path.resolve(settings.outDir);
  // A bad model spec or a missing key is a ConfigError before anything is written.
  const session = settings.model ? createModelSession(settings.model, process.env) : undefined;
  await prepareOutDir(outDir);
  const events = new EventBus();
  const redact = createRedactor([
    ...collectSecretValues(process.env, settings.secretEnv ?? []),
    ...(session?.secrets ?? []),
  ]);
  // Every command's output, in every sandbox of the run (the replays too), is redacted before it is kept or
  // written, and each log file is bounded; credentials removed from the repository copy join the redactor.
  const sandboxSettings: SandboxSettings = {
    ...settings.sandbox,
    output: {
      openRedactor: () => createStreamRedactor(redact),
      redact,
      addSecrets: (values) => redact.add(values),
      maxLogBytes: settings.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES,
    },
  };
  const recorder = new TrajectoryRecorder(path.join(outDir, 'trajectory.jsonl'), { redact });
  events.on((event) => recorder.record(event.type, event));
  for (const listener of options.listeners ?? []) events.on(listener);
  // The stop-gate's decisions, for the self-stop audit in result.json.
  const claims: ClaimRecord[] = [];
  events.on((e) => {
    if (e.type === 'claim')
      claims.push({ turn: e.turn, claim: e.claim as Claim, reason: e.reason, accepted: e.accepted });
  });

  const name = repoNameOf(settings.source);
  events.emit({
    type: 'run_start',
    repo: name,
    source: settings.source,
    strategy: settings.strategy,
    maxTurns: settings.maxTurns,
    outDir,
  });

  let source: ResolvedSource | undefined;
  let sandbox: Sandbox | undefined;
  let repo: RepoInfo | undefined;
  let expected: ReturnType<typeof expectedFrom> = { names: [], source: 'none', ignored: [] };
  let outcome: LoopOutcome | undefined;
  let status: RunStatus = 'failed';
  let reason = '';
  let prepareMs = 0;
  let keptAt: string | undefined;
  let copied: (Artifact & { copiedTo?: string; copyError?: string })[] = [];
  let finalized: FinalizeOutput | undefined;
  let retrieval: RetrievalResult | undefined;
  let verifier: BuildVerifier | undefined;

  try {
    events.emit({ type: 'phase', phase: 'fetch', message: `resolving ${settings.source}` });
    source = await resolveSource(settings.source, options.signal);
    events.emit({ type: 'phase', phase: 'inspect', message: 'reading the file tree and build files' });
    const info = await inspectRepo(source.dir);
    repo = info;
    expected = expectedFrom(settings, info);
    const spec = await prepareSpec(settings.spec); // a hidden spec: validated here, loaded after the loop
    events.emit({
      type: 'phase',
      phase: 'inspect',
      message:
        `build systems: ${info.buildSystems.map((b) => `${b.kind}${b.dir ? ` (${b.dir}/)` : ''}`).join(', ') || 'none'}; ` +
        `expected: ${expected.names.join(', ') || 'any new binary'} (${expected.source})`,
      data: { buildSystems: info.buildSystems, expected, docs: info.docs.slice(0, 5) },
    });

    // Retrieval: offline ranking now (free, recorded); with a model, the model reads the docs when it is
    // first needed, so a hybrid run that the rules finish spends no tokens.
    const retrieve = async (provider: LlmProvider | undefined): Promise<string> => {
      events.emit({
        type: 'phase',
        phase: 'retrieve',
        message: provider
          ? 'reading the build instructions with the model'
          : 'ranking the documentation for build instructions',
      });
      try {
        retrieval = await retrieveInstructions(info, { provider, signal: options.signal });
      } catch (error) {
        events.emit({
          type: 'phase',
          phase: 'retrieve',
          message: `warning: retrieval failed: ${errorMessage(error)}`,
        });
      }
      return retrieval?.instructions ?? '';
    };
    if (!session) await retrieve(undefined);

    const prepStart = Date.now();
    const box: Sandbox = await createSandbox(sandboxSettings, {
      repoDir: source.dir,
      name,
      cacheKey: source.identity,
      signal: options.signal,
      onProgress: (message: string) => events.emit({ type: 'phase', phase: 'sandbox', message }),
    });
    sandbox = box;
    prepareMs = Date.now() - prepStart;
    events.emit({ type: 'phase', phase: 'sandbox', message: `${box.kind} sandbox ready (${box.image})` });

    const before = await snapshotTree(box.hostWorkdir, { exclude: excludeBuildScratch });
    if (settings.keep) await saveSnapshot(path.join(outDir, SNAPSHOT_FILE), before);
    const policy = scoringPolicyFor(info, expected);
    const checker = new BuildVerifier({
      root: box.hostWorkdir,
      before,
      expected,
      policy,
      sandbox: box,
      spec: spec.visible,
      signal: options.signal,
    });
    verifier = checker;
    const strategy =
      options.strategy ??
      createStrategy(settings.strategy, {
        knowledge: createKnowledge(),
        services: createServices(box),
        session,
        loadInstructions: session ? () => retrieve(session.provider) : undefined,
        signal: options.signal,
      });
    events.emit({ type: 'phase', phase: 'build', message: `strategy ${strategy.name}` });
    outcome = await runAgentLoop(
      { maxTurns: settings.maxTurns, repo: info, expected, workdir: box.workdir },
      {
        strategy,
        sandbox: box,
        analyze: (output, logPath) =>
          logPath ? analyzeLogFile(logPath) : Promise.resolve(analyzeLog(output)),
        verify: () => checker.verify(),
        events,
      },
      {
        maxTurns: settings.maxTurns,
        deadline: startedAt.getTime() + settings.timeoutMs,
        turnTimeoutMs: settings.turnTimeoutMs,
        logDir: path.join(outDir, 'logs'),
        signal: options.signal,
      },
    );
    status = outcome.status;
    reason = outcome.reason;
    // A model strategy that stopped because of its budget or its provider says so in the status.
    const stop =
      'stopCause' in strategy && typeof strategy.stopCause === 'function'
        ? (strategy as ModelStrategy).stopCause()
        : undefined;
    if (stop && status !== 'success' && status !== 'cancelled') {
      if (stop.cause === 'budget') status = 'limits_exceeded';
      if (stop.cause === 'provider_error') status = 'provider_error';
      reason = stop.reason;
    }
    // The copy is taken before the probes run the binaries: a probed binary could rearrange the tree.
    events.emit({
      type: 'phase',
      phase: 'collect',
      message: `copying ${outcome.artifacts.length} binaries to ${path.join(outDir, 'artifacts')}`,
    });
    copied = await copyArtifacts(box.hostWorkdir, outcome.artifacts, path.join(outDir, 'artifacts'));
    if (status !== 'cancelled' && status !== 'sandbox_error') {
      // Hidden spec and advisory probes; a hidden spec's failure turns success into partial.
      await checker.finish({ hiddenSpecFile: spec.hiddenFile, probes: true });
      const facts = {
        passed: checker.report().passed,
        completion: checker.metrics?.completion ?? false,
        claims,
        failures: checker.failures(),
      };
      const settled = settleStatus(status, facts);
      status = settled.status;
      reason = settled.reason ?? reason;
    }

    // --- finalize (src/report/finalize.ts): patches, minimal recipe, replay in a fresh sandbox. It adds
    // evidence next to the status and never changes it; its own failures are warnings.
    const say = (message: string): void => events.emit({ type: 'phase', phase: 'finalize', message });
    try {
      finalized = await finalizeRun({
        outDir,
        repo: name,
        originalDir: source.dir,
        cacheKey: source.identity,
        workDir: box.hostWorkdir,
        sandboxKind: box.kind,
        baseImage: box.image,
        sandboxSettings,
        history: outcome.history,
        status,
        expected,
        // the replay is judged by the same verifier as the run (policy and visible spec)
        judge: (replayBox, replayBefore) =>
          new BuildVerifier({
            root: replayBox.hostWorkdir,
            before: replayBefore,
            expected,
            policy,
            sandbox: replayBox,
            spec: spec.visible,
            signal: options.signal,
          }).verify(),
        version: VERSION,
        replayTimeoutMs: settings.turnTimeoutMs,
        deadline: startedAt.getTime() + settings.timeoutMs,
        signal: options.signal,
        onProgress: say,
      });
      for (const warning of finalized.warnings) say(`warning: ${warning}`);
      // A build that copied a secret into a tracked file (a developer's untracked .env, say) must not carry
      // it into a patch the Action may publish: known secret values are replaced in what finalize wrote.
      for (const file of await redactFinalizeFiles(outDir, finalized, redact.exact)) {
        say(`warning: ${file} held a secret value, now [REDACTED] (it may no longer apply as it is)`);
      }
    } catch (error) {
      say(`warning: finalize failed: ${errorMessage(error)}`);
    }
  } catch (error) {
    if (error instanceof ConfigError && !sandbox) {
      reason = error.message;
      status = 'failed';
      await finish();
      throw error;
    }
    status = options.signal?.aborted
      ? 'cancelled'
      : error instanceof SandboxError
        ? 'sandbox_error'
        : 'failed';
    reason = options.signal?.aborted ? 'cancelled' : errorMessage(error);
  }

  return finish();

  async function finish(): Promise<BuildResult> {
    if (sandbox) {
      try {
        keptAt = settings.keep ? sandbox.describeLocation() : undefined;
        await sandbox.dispose({ keep: settings.keep });
      } catch (error) {
        events.emit({
          type: 'phase',
          phase: 'report',
          message: `warning: sandbox cleanup failed: ${errorMessage(error)}`,
        });
      }
    }
    await source?.cleanup().catch(() => undefined);
    const result = redactDeep(buildResult(), redact);
    await writeFile(path.join(outDir, 'result.json'), JSON.stringify(result, null, 2) + '\n');
    events.emit({ type: 'run_end', status: result.status, reason: result.reason });
    recorder.close();
    // --- report (src/report/runbook.ts): RUNBOOK.md from result.json + trajectory.jsonl, as `buildbench report` does.
    await writeRunbook(outDir).catch((error: unknown) => {
      events.emit({
        type: 'phase',
        phase: 'report',
        message: `warning: RUNBOOK.md was not written: ${errorMessage(error)}`,
      });
    });
    return result;
  }

  function buildResult(): BuildResult {
    const finishedAt = new Date();
    const verdict = outcome?.verdict;
    const turns: TurnSummary[] = (outcome?.history ?? []).flatMap((record) => {
      if (record.action.kind !== 'run' || !record.observation) return [];
      const o = record.observation;
      return [
        {
          turn: record.turn,
          purpose: record.action.purpose,
          reason: record.action.reason,
          exitCode: o.exec.exitCode,
          timedOut: o.exec.timedOut,
          durationMs: o.exec.durationMs,
          rootCause:
            o.rootCause && o.exec.exitCode !== 0
              ? {
                  id: o.rootCause.id,
                  category: o.rootCause.category,
                  message: o.rootCause.message,
                  line: o.rootCause.line,
                }
              : undefined,
          newArtifacts: o.artifacts.length,
          log: o.logPath ? path.relative(outDir, o.logPath) : undefined,
          ...(o.logPath ? { logBytes: o.exec.totalBytes, logTruncated: o.exec.logTruncated ?? false } : {}),
        },
      ];
    });
    const rc = outcome?.rootCause;
    return {
      schema: RESULT_SCHEMA,
      tool: { name: 'buildbench', version: VERSION },
      repo: { name, source: settings.source, commit: source?.commit },
      status,
      reason: reason || status,
      metrics: {
        completion: verdict?.metrics.completion ?? false,
        strict: verdict?.metrics.strict ?? false,
        flexible: verdict?.metrics.flexible ?? false,
      },
      expected: {
        names: expected.names,
        source: expected.source,
        matched: verdict?.metrics.matched ?? [],
        missing: verdict?.metrics.missing ?? expected.names,
        ignored: expected.ignored,
      },
      artifacts: copied.length > 0 ? copied : (outcome?.artifacts ?? []),
      claim: outcome?.claim,
      strategy: settings.strategy,
      ...(session ? { llm: { model: settings.model?.model ?? '', ...session.budget.usage() } } : {}),
      ...(retrieval
        ? {
            retrieval: {
              mode: retrieval.mode,
              sufficient: retrieval.sufficient,
              rounds: retrieval.rounds,
              sources: retrieval.sources,
              notes: retrieval.notes,
            },
          }
        : {}),
      sandbox: {
        kind: sandbox?.kind ?? settings.sandbox.choice,
        image: sandbox?.image ?? '',
        keptAt,
        keptWorkdir: keptAt ? sandbox?.hostWorkdir : undefined,
        buildCache: sandbox?.buildCache,
        isolation: sandbox?.isolation,
        ...(sandbox?.credentialsRemoved?.length
          ? { credentialsRemoved: [...sandbox.credentialsRemoved] }
          : {}),
      },
      buildSystems: (repo?.buildSystems ?? []).map((b) => ({ kind: b.kind, dir: b.dir, file: b.file })),
      rootCause:
        rc && status !== 'success'
          ? {
              id: rc.id,
              category: rc.category,
              message: rc.message,
              line: rc.line,
              excerpt: rc.excerpt,
              captures: rc.captures,
              turn: rc.turn,
            }
          : undefined,
      turns,
      timings: {
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        totalMs: finishedAt.getTime() - startedAt.getTime(),
        prepareMs,
      },
      files: {
        trajectory: 'trajectory.jsonl',
        logs: 'logs/',
        artifacts: 'artifacts/',
        snapshot: keptAt && verifier ? SNAPSHOT_FILE : undefined,
      },
      excludedArtifacts: verifier?.excluded,
      verification: verifier?.report(claims),
      recipe: finalized?.recipe,
      patches: finalized?.patches,
    };
  }
}

/**
 * Copies the new binaries out of the sandbox, keeping their paths relative to the repository root. The tree
 * was written by the build: nothing is copied through a symbolic link (a folder on the way or the file
 * itself), setuid/setgid bits are dropped, and what cannot be copied safely says why in `copyError`.
 */
async function copyArtifacts(
  root: string,
  artifacts: Artifact[],
  dest: string,
): Promise<(Artifact & { copiedTo?: string; copyError?: string })[]> {
  const out: (Artifact & { copiedTo?: string; copyError?: string })[] = [];
  for (const artifact of artifacts) {
    const rel =
      artifact.pathBase64 !== undefined ? Buffer.from(artifact.pathBase64, 'base64') : artifact.path;
    const target = Buffer.concat([Buffer.from(`${dest}/`), Buffer.from(rel)]);
    try {
      relComponents(rel);
      await mkdir(target.subarray(0, target.lastIndexOf(0x2f)), { recursive: true });
      await rm(target, { force: true });
      await copyFileNoFollow(root, rel, target);
      out.push({ ...artifact, copiedTo: path.posix.join(path.basename(dest), artifact.path) });
    } catch (error) {
      out.push({ ...artifact, copyError: `not copied: ${errorMessage(error)}` });
    }
  }
  return out;
}

/** Replaces known secret values in the text files finalize wrote (patches, build.sh, Dockerfile); returns those changed. */
async function redactFinalizeFiles(
  outDir: string,
  finalized: FinalizeOutput,
  exact: (text: string) => string,
): Promise<string[]> {
  const changed: string[] = [];
  for (const file of [BUILD_SH, DOCKERFILE, ...finalized.patches.map((p) => p.file)]) {
    const full = path.join(outDir, file);
    const text = await readFile(full, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const clean = exact(text);
    if (clean === text) continue;
    await writeFile(full, clean);
    changed.push(file);
  }
  return changed;
}
