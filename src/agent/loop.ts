import path from 'node:path';
import type { Action, Observation, Strategy, TurnContext, TurnRecord, Verdict } from './types.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Finding, LogAnalysis } from '../knowledge/diagnose/types.js';
import type { Artifact } from '../verify/types.js';
import type { EventBus } from './events.js';
import type { RunStatus } from '../base/status.js';
import { SandboxError } from '../base/errors.js';

export interface LoopDeps {
  strategy: Strategy;
  sandbox: Sandbox;
  /** Layer-1 reading of a turn's output (the full log file when there is one). */
  analyze: (output: string, logPath: string | undefined) => Promise<LogAnalysis>;
  /** Scans the tree for new binaries and judges them. Only this decides SUCCESS. */
  verify: () => Promise<{ artifacts: Artifact[]; verdict: Verdict }>;
  events: EventBus;
}

export interface LoopLimits {
  maxTurns: number;
  /** Absolute wall-clock deadline (ms since epoch). */
  deadline: number;
  turnTimeoutMs: number;
  logDir: string;
  signal?: AbortSignal;
  /** Extra variables for every script. */
  env?: Record<string, string>;
}

export interface LoopOutcome {
  status: RunStatus;
  reason: string;
  history: TurnRecord[];
  verdict?: Verdict;
  artifacts: Artifact[];
  claim?: { claim: string; reason: string; turn: number };
  rootCause?: Finding & { turn: number };
}

/** How many times the same script may fail with the same root cause before the run is stuck. */
const STUCK_REPEATS = 2;

/**
 * The agent loop: each turn the strategy proposes a whole script, the sandbox runs it, layer 1 reads the
 * log, verifiers judge the tree. The strategy may ask to finish; SUCCESS is recorded only when the
 * verifiers pass. Failed commands are observations, never exceptions.
 */
export async function runAgentLoop(
  base: Omit<TurnContext, 'turn' | 'history'>,
  deps: LoopDeps,
  limits: LoopLimits,
): Promise<LoopOutcome> {
  const history: TurnRecord[] = [];
  let verdict: Verdict | undefined;
  let artifacts: Artifact[] = [];
  let claim: LoopOutcome['claim'];
  let rootCause: LoopOutcome['rootCause'];
  const seen = new Map<string, number>();

  const end = (status: RunStatus, reason: string): LoopOutcome => ({
    status,
    reason,
    history,
    verdict,
    artifacts,
    claim,
    rootCause,
  });

  for (let turn = 0; turn < limits.maxTurns; turn++) {
    if (limits.signal?.aborted) return end('cancelled', 'cancelled before turn ' + turn);
    const remaining = limits.deadline - Date.now();
    if (remaining <= 0) return end('limits_exceeded', 'the wall-clock budget ran out');

    const context: TurnContext = { ...base, turn, history };
    const action: Action = await deps.strategy.next(context);
    const record: TurnRecord = { turn, action, notes: [] };
    history.push(record);

    if (action.kind === 'finish') {
      const current = verdict ?? (await deps.verify()).verdict;
      verdict = current;
      claim = { claim: action.claim, reason: action.reason, turn };
      const accepted = action.claim !== 'success' || current.passed;
      deps.events.emit({
        type: 'claim',
        turn,
        claim: action.claim,
        reason: action.reason,
        accepted,
        failures: current.failures,
      });
      if (action.claim === 'success') {
        if (current.passed) return end('success', action.reason);
        record.notes.push(`finish(success) refused by the verifiers: ${current.failures.join('; ')}`);
        continue;
      }
      const status: RunStatus = current.passed
        ? 'success'
        : current.metrics.completion
          ? 'partial'
          : 'failed';
      return end(status, action.reason);
    }

    deps.events.emit({ type: 'turn_start', turn, action });
    const logPath = path.join(limits.logDir, `turn-${String(turn).padStart(2, '0')}.log`);
    let exec;
    try {
      exec = await deps.sandbox.exec(action.script, {
        timeoutMs: Math.max(1000, Math.min(limits.turnTimeoutMs, remaining)),
        logPath,
        signal: limits.signal,
        env: limits.env,
      });
    } catch (error) {
      if (error instanceof SandboxError) return end('sandbox_error', error.message);
      throw error;
    }
    const analysis = await deps.analyze(exec.output, exec.logPath);
    const judged = await deps.verify();
    verdict = judged.verdict;
    artifacts = judged.artifacts;
    const observation: Observation = {
      exec: {
        exitCode: exec.exitCode,
        timedOut: exec.timedOut,
        cancelled: exec.cancelled,
        durationMs: exec.durationMs,
        truncated: exec.truncated,
        totalBytes: exec.totalBytes,
        ...(exec.logTruncated !== undefined ? { logTruncated: exec.logTruncated } : {}),
      },
      output: exec.output,
      logPath: exec.logPath,
      findings: analysis.findings,
      rootCause: analysis.rootCause,
      artifacts,
      verdict,
    };
    record.observation = observation;
    if (exec.timedOut)
      record.notes.push(`the script was stopped after ${Math.round(exec.durationMs / 1000)} s`);
    if (analysis.rootCause && exec.exitCode !== 0) rootCause = { ...analysis.rootCause, turn };
    deps.events.emit({ type: 'turn_end', turn, observation, notes: record.notes });

    if (exec.cancelled) return end('cancelled', `cancelled during turn ${turn}`);
    if (verdict.passed) {
      return end('success', `the verifiers passed after turn ${turn} (${action.purpose})`);
    }
    if (limits.deadline - Date.now() <= 0) {
      return end('limits_exceeded', 'the wall-clock budget ran out');
    }
    const key = `${action.script}\u0000${analysis.rootCause?.id ?? ''}:${analysis.rootCause?.message ?? exec.exitCode}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count >= STUCK_REPEATS) {
      return end('stuck', `the same script failed the same way ${count} times (${action.purpose})`);
    }
  }
  const status: RunStatus = 'limits_exceeded';
  return end(status, `the turn limit (${limits.maxTurns}) was reached before the verifiers passed`);
}
