/**
 * result.json from a run's state (`toBuildResult`): what the stages gathered, in the schema of
 * report/result.ts. Parts that did not happen (no sandbox, no loop) are reported empty, never guessed.
 */
import path from 'node:path';

import type { LoopOutcome } from '../agent/loop.js';
import type { TurnRecord } from '../agent/types.js';
import { RESULT_SCHEMA, type BuildResult, type TurnSummary } from '../report/result.js';
import { SNAPSHOT_FILE } from '../verify/baseline.js';
import type { RunState } from './stages/state.js';
import { VERSION } from './version.js';

/** One summary per turn that ran a script, with its log relative to the output folder. */
export function turnSummaries(history: readonly TurnRecord[], outDir: string): TurnSummary[] {
  return history.flatMap((record) => {
    if (record.action.kind !== 'run' || !record.observation) return [];
    const o = record.observation;
    const rc = o.rootCause && o.exec.exitCode !== 0 ? o.rootCause : undefined;
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
      },
    ];
  });
}

function sandboxPart(state: RunState): BuildResult['sandbox'] {
  const { sandbox, keptAt } = state;
  return {
    kind: sandbox?.kind ?? state.settings.sandbox.choice,
    image: sandbox?.image ?? '',
    keptAt,
    keptWorkdir: keptAt ? sandbox?.hostWorkdir : undefined,
    buildCache: sandbox?.buildCache,
    isolation: sandbox?.isolation,
    ...(sandbox?.credentialsRemoved?.length ? { credentialsRemoved: [...sandbox.credentialsRemoved] } : {}),
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

/** The run's result.json, as of `finishedAt` (ms since epoch). */
export function toBuildResult(state: RunState, finishedAt: number): BuildResult {
  const { settings, outcome, expected, verifier, decision, keptAt } = state;
  const verdict = outcome?.verdict;
  const { status } = decision;
  const failure = state.events.failure();
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
    },
    artifacts: state.copied.length > 0 ? state.copied : (outcome?.artifacts ?? []),
    claim: outcome?.claim,
    strategy: settings.strategy,
    ...optionalParts(state),
    sandbox: sandboxPart(state),
    buildSystems: (state.repo?.buildSystems ?? []).map((b) => ({ kind: b.kind, dir: b.dir, file: b.file })),
    rootCause: status !== 'success' ? rootCausePart(outcome?.rootCause) : undefined,
    turns: turnSummaries(outcome?.history ?? [], state.outDir),
    timings: {
      startedAt: new Date(state.startedAt).toISOString(),
      finishedAt: new Date(finishedAt).toISOString(),
      totalMs: finishedAt - state.startedAt,
      prepareMs: state.prepareMs,
    },
    files: {
      trajectory: 'trajectory.jsonl',
      logs: 'logs/',
      artifacts: 'artifacts/',
      snapshot: keptAt && verifier ? SNAPSHOT_FILE : undefined,
    },
    excludedArtifacts: verifier?.excluded,
    verification: verifier?.report(state.claims),
    recipe: state.finalized?.recipe,
    patches: state.finalized?.patches,
    ...(failure ? { observerFailure: failure } : {}),
  };
}
