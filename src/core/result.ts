/**
 * result.json from a run's state (`toBuildResult`): what the stages gathered, in the schema of
 * report/result.ts. Parts that did not happen (no sandbox, no loop) are reported empty, never guessed.
 */
import path from 'node:path';

import { lastScriptTurn, ranThrough, type LoopOutcome } from '../agent/loop.js';
import type { TurnRecord } from '../agent/types.js';
import { DEPLOY_ENV_FILE } from '../deploy/types.js';
import {
  RESULT_SCHEMA,
  type BuildResult,
  type DeployInstall,
  type DeployResult,
  type TurnSummary,
} from '../report/result.js';
import { analyzeTrajectory, type TrajectoryAnalysis } from '../trajectory/analysis.js';
import { SNAPSHOT_FILE } from '../verify/baseline.js';
import type { RunState } from './stages/state.js';
import { VERSION } from './version.js';

/** One summary per turn that ran a script, with its log relative to the output folder. */
export function turnSummaries(history: readonly TurnRecord[], outDir: string): TurnSummary[] {
  return history.flatMap((record) => {
    if (record.action.kind !== 'run' || !record.observation) return [];
    const o = record.observation;
    // Exit 0 without the expected binaries failed too (a script that ignores its compiler's status).
    const rc = o.rootCause && (o.exec.exitCode !== 0 || !o.verdict.passed) ? o.rootCause : undefined;
    return [
      {
        turn: record.turn,
        purpose: record.action.purpose,
        reason: record.action.reason,
        exitCode: o.exec.exitCode,
        timedOut: o.exec.timedOut,
        durationMs: o.exec.durationMs,
        rootCause: rc ? { id: rc.id, category: rc.category, message: rc.message, line: rc.line } : undefined,
        newArtifacts: o.artifacts.length,
        log: o.logPath ? path.relative(outDir, o.logPath) : undefined,
        ...(o.logPath ? { logBytes: o.exec.totalBytes, logTruncated: o.exec.logTruncated ?? false } : {}),
        ...(record.freshSandbox ? { freshSandbox: true } : {}),
      },
    ];
  });
}

function sandboxPart(state: RunState): BuildResult['sandbox'] {
  const { sandbox, keptAt } = state;
  const derivedImage = state.derivedImage ?? sandbox?.derivedImage;
  return {
    kind: sandbox?.kind ?? state.settings.sandbox.choice,
    image: sandbox?.image ?? '',
    keptAt,
    keptWorkdir: keptAt ? sandbox?.hostWorkdir : undefined,
    buildCache: sandbox?.buildCache,
    ...(derivedImage ? { derivedImage: { ...derivedImage } } : {}),
    isolation: sandbox?.isolation,
    ...(sandbox?.credentialsRemoved?.length ? { credentialsRemoved: [...sandbox.credentialsRemoved] } : {}),
    ...(sandbox?.egress ? { egress: sandbox.egress() } : {}),
  };
}

function optionalParts(state: RunState): Pick<BuildResult, 'llm' | 'retrieval'> {
  const { session, retrieval, settings } = state;
  return {
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
  };
}

/** The root cause of the last failing turn that had one, as result.json records it. */
function rootCausePart(rc: LoopOutcome['rootCause']): BuildResult['rootCause'] {
  if (!rc) return undefined;
  const { id, category, message, line, excerpt, captures, turn } = rc;
  return { id, category, message, line, excerpt, captures, turn };
}

/**
 * What a deploy's setup installed and ran, and why, from the turns' recipes up to the turn that passed (every
 * turn when none did): repair packages and the variables repairs export (NODE_OPTIONS, npm's settings) with the
 * repair's reason, the packages that provide the commands the setup runs, and the setup's own dependency steps
 * (a virtual environment, `pip install`, `cargo fetch`) with the recipe they belong to. Free-form scripts (a
 * model's) have no recipe and are listed by the turn table.
 */
export function deployInstalls(history: readonly TurnRecord[], upTo?: number): DeployInstall[] {
  const out: DeployInstall[] = [];
  const seen = new Set<string>();
  const add = (item: DeployInstall): void => {
    const key = `${item.kind}:${item.what}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(item);
  };
  for (const record of history) {
    if (upTo !== undefined && record.turn > upTo) break;
    const { action } = record;
    if (action.kind !== 'run' || !action.recipe || !record.observation) continue;
    const { recipe } = action;
    // A package installed up front answers declarations (a build file's line, the target's program): those say why.
    const declared = new Map((action.preinstall?.packages ?? []).map((p) => [p.package, p.declarations]));
    // Whatever else the strategy put in before any failure says its own reason, not the whole turn's.
    const upFront = new Map((action.upFront ?? []).map((u) => [`${u.kind}:${u.what}`, u.why]));
    for (const pkg of recipe.packages) {
      const because = declared.get(pkg);
      const why = because?.length
        ? `installed up front: ${because.join('; ')}`
        : (upFront.get(`package:${pkg}`) ?? action.reason);
      add({ kind: 'package', what: pkg, why, turn: record.turn });
    }
    for (const [name, value] of Object.entries(recipe.env)) {
      const what = `${name}=${value}`;
      add({ kind: 'env', what, why: upFront.get(`env:${what}`) ?? action.reason, turn: record.turn });
    }
    for (const tool of recipe.tools) {
      add({
        kind: 'tool',
        what: tool.pkg,
        why: `provides ${tool.command}, which the setup runs`,
        turn: record.turn,
      });
    }
    for (const step of recipe.steps.filter((st) => st.purpose === 'dependencies')) {
      add({
        kind: 'step',
        what: step.command,
        why: `${action.purpose}: ${action.reason}`,
        turn: record.turn,
      });
    }
  }
  return out;
}

/** result.json's `deploy` section, from the goal, the inspection, the turns and the final checks. */
function deployPart(state: RunState): DeployResult | undefined {
  const goal = state.settings.deploy;
  if (!goal) return undefined;
  const facts = state.deployFacts;
  const end = state.outcome?.end;
  const verifierChecks = facts?.verifier ?? [];
  return {
    goal: {
      target: goal.target,
      requires: goal.requires,
      registries: goal.registries,
      ...(goal.paper ? { paper: goal.paper } : {}),
      ...(goal.taskFile ? { taskFile: goal.taskFile } : {}),
    },
    ecosystems: (state.repo?.ecosystems ?? []).map((e) => ({
      kind: e.kind,
      manifests: e.manifests,
      dependencies: e.dependencies.length,
      ...(e.runtime ? { runtime: e.runtime } : {}),
      notes: e.notes,
    })),
    installed: deployInstalls(state.outcome?.history ?? [], end?.kind === 'verified' ? end.turn : undefined),
    ...(state.deployRecords && state.deployRecords.length > 0 ? { records: state.deployRecords } : {}),
    setupRan: facts?.setupRan ?? false,
    ...(facts?.target ? { target: facts.target } : {}),
    verifier: {
      ...(state.settings.spec ? { spec: state.settings.spec } : {}),
      hidden: state.spec.hiddenFile !== undefined,
      passed: verifierChecks.length > 0 && verifierChecks.every((c) => c.passed),
      checks: verifierChecks,
    },
    envFile: DEPLOY_ENV_FILE,
  };
}

/**
 * The trajectory analysis of the run: every script it ran, the strategy's own finish claims (not the stops
 * the harness made for a spent budget or a failed provider) and the verifiers' final word.
 */
export async function trajectoryAnalysisOf(state: RunState): Promise<TrajectoryAnalysis> {
  const history = state.outcome?.history ?? [];
  const turns = history.flatMap((r) =>
    r.action.kind === 'run' && r.observation
      ? [
          {
            turn: r.turn,
            script: r.action.script,
            exitCode: r.observation.exec.exitCode,
            timedOut: r.observation.exec.timedOut,
          },
        ]
      : [],
  );
  const harnessStops = new Set(
    history.filter((r) => r.action.kind === 'finish' && r.action.stop).map((r) => r.turn),
  );
  const claims = state.claims.filter((c) => !harnessStops.has(c.turn));
  return analyzeTrajectory({ turns, claims, passed: state.verifier?.report().passed ?? false });
}

/** What the strategy installed up front from the declared dependencies (the first script that says so). */
function preinstalledPart(history: readonly TurnRecord[]): Pick<BuildResult, 'preinstalled'> {
  for (const record of history) {
    if (record.action.kind === 'run' && record.action.preinstall)
      return { preinstalled: record.action.preinstall };
  }
  return {};
}

/** Time inside the sandbox's scripts (the turns', build.sh's in each replay) and the harness's share of the rest. */
function timingsPart(state: RunState, finishedAt: number): BuildResult['timings'] {
  const totalMs = finishedAt - state.startedAt;
  const recipe = state.finalized?.recipe;
  const turnsMs = (state.outcome?.history ?? []).reduce(
    (ms, r) => ms + (r.observation?.exec.durationMs ?? 0),
    0,
  );
  const replayMs = (recipe?.replay.scriptMs ?? 0) + (recipe?.minimalReplay?.scriptMs ?? 0);
  const scriptsMs = Math.min(totalMs, turnsMs + replayMs);
  const harnessMs = totalMs - scriptsMs;
  const early = beforeFirstScript(state.early);
  return {
    startedAt: new Date(state.startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    totalMs,
    prepareMs: state.prepareMs,
    scriptsMs,
    harnessMs,
    harnessShare: totalMs > 0 ? Math.round((harnessMs / totalMs) * 1000) / 1000 : 0,
    ...(early ? { beforeFirstScript: early } : {}),
  };
}

/** The time up to the first script, phase by phase; undefined when no script ran. */
export function beforeFirstScript(
  early: RunState['early'],
): NonNullable<BuildResult['timings']['beforeFirstScript']> | undefined {
  const end = early.firstScriptMs;
  if (end === undefined) return undefined;
  const starts = Object.entries(early.phases).sort((a, b) => a[1] - b[1]);
  const phases: Record<string, number> = {};
  starts.forEach(([phase, at], i) => {
    phases[phase] = Math.max(0, (starts[i + 1]?.[1] ?? end) - at);
  });
  const sandboxMs = Math.min(end, early.sandboxMs);
  return { totalMs: end, sandboxMs, harnessMs: end - sandboxMs, phases };
}

/** The run's result.json, as of `finishedAt` (ms since epoch), with its trajectory analysis when there is one. */
export function toBuildResult(
  state: RunState,
  finishedAt: number,
  analysis?: TrajectoryAnalysis,
): BuildResult {
  const { settings, outcome, expected, verifier, decision, keptAt } = state;
  const verdict = outcome?.verdict;
  const { status } = decision;
  const failure = state.events.failure();
  const deploy = deployPart(state);
  return {
    schema: RESULT_SCHEMA,
    tool: { name: 'buildbench', version: VERSION },
    repo: { name: state.name, source: settings.source, commit: state.source?.commit },
    status,
    reason: decision.reason || status,
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
      ...(expected.uncertain?.length ? { uncertain: expected.uncertain } : {}),
    },
    artifacts: state.copied.length > 0 ? state.copied : (outcome?.artifacts ?? []),
    claim: outcome?.claim,
    strategy: settings.strategy,
    ...optionalParts(state),
    ...(state.gpu ? { environment: { gpu: state.gpu } } : {}),
    sandbox: sandboxPart(state),
    buildSystems: (state.repo?.buildSystems ?? []).map((b) => ({ kind: b.kind, dir: b.dir, file: b.file })),
    ...(state.repo?.buildSystemChoice ? { buildSystemChoice: state.repo.buildSystemChoice } : {}),
    rootCause: status !== 'success' ? rootCausePart(outcome?.rootCause) : undefined,
    turns: turnSummaries(outcome?.history ?? [], state.outDir),
    ...preinstalledPart(outcome?.history ?? []),
    timings: timingsPart(state, finishedAt),
    files: {
      trajectory: 'trajectory.jsonl',
      logs: 'logs/',
      artifacts: 'artifacts/',
      snapshot: keptAt && verifier ? SNAPSHOT_FILE : undefined,
    },
    excludedArtifacts: state.copiedExcluded.length > 0 ? state.copiedExcluded : verifier?.excluded,
    verification: verifier?.report(state.claims, lastScriptRanThrough(outcome?.history ?? [])),
    recipe: state.finalized?.recipe,
    patches: state.finalized?.patches,
    ...(deploy ? { deploy } : {}),
    ...(analysis ? { analysis } : {}),
    ...(failure ? { observerFailure: failure } : {}),
  };
}

/** The run's last script ran to its end (exit 0, in time); true when no script ran. */
function lastScriptRanThrough(history: readonly TurnRecord[]): boolean {
  const exec = lastScriptTurn(history)?.observation?.exec;
  return exec === undefined || ranThrough(exec);
}
