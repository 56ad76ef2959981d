import type { Action, Observation } from './types.js';
import type { RunStatus } from '../base/status.js';
import type { Claim } from '../verify/types.js';
import { errorMessage } from '../base/errors.js';
import type { SessionCall } from '../llm/session.js';
import type { ChatMessage, CompletionResult } from '../llm/types.js';

/** Events of one run. Observers (recorder, progress display) subscribe; the loop only emits. */
export type RunEvent =
  | { type: 'run_start'; repo: string; source: string; strategy: string; maxTurns: number; outDir: string }
  | {
      type: 'phase';
      phase: 'fetch' | 'inspect' | 'retrieve' | 'sandbox' | 'build' | 'collect' | 'finalize' | 'report';
      message: string;
      data?: unknown;
    }
  | { type: 'turn_start'; turn: number; action: Action }
  | { type: 'turn_end'; turn: number; observation: Observation; notes: string[] }
  | { type: 'claim'; turn: number; claim: Claim; reason: string; accepted: boolean; failures: string[] }
  /** A turn that ran no script (a SUCCESS claim the stop-gate refused): its action and the harness's notes. */
  | { type: 'step'; turn: number; action: Action; notes: string[] }
  /** One model call (retrieval's or the strategy's): the prompt as sent and the reply, or why there was none. */
  | ({ type: 'model_call' } & ModelCallRecord)
  | { type: 'run_end'; status: RunStatus; reason: string };

/** A model call as the trajectory keeps it: the tools by name (their schemas are the same every call). */
export interface ModelCallRecord {
  provider: string;
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: string[];
  maxTokens: number;
  reply?: CompletionResult;
  error?: string;
  /** The budget refused the call before it was made. */
  refused?: boolean;
  durationMs: number;
}

/** The `model_call` event for a call the model session saw (`session.onModelCall`). */
export function modelCallEvent(call: SessionCall): RunEvent {
  const { system, messages, tools, maxTokens } = call.request;
  return {
    type: 'model_call',
    provider: call.provider,
    model: call.model,
    system,
    messages,
    tools: tools.map((t) => t.name),
    maxTokens,
    ...(call.reply ? { reply: call.reply } : {}),
    ...(call.error !== undefined ? { error: call.error } : {}),
    ...(call.refused ? { refused: true } : {}),
    durationMs: call.durationMs,
  };
}

export type RunEventListener = (event: RunEvent) => void;

/** The first failure of a listener (a trajectory write that hit a full disk, say), for result.json. */
export interface ListenerFailure {
  /** The type of the event the listener failed on. */
  event: RunEvent['type'];
  /** The listener's error message. */
  error: string;
  /** How many listener calls failed in all (the first one is described). */
  count: number;
}

/**
 * The run's event bus. A listener's failure never stops the run, but it is not silent either: the first
 * one is reported (`warn`, by default a line on stderr) and kept in `failure()`, so the composition root
 * can mark result.json; later ones are only counted.
 */
export class EventBus {
  private readonly listeners: RunEventListener[] = [];
  private failed: ListenerFailure | undefined;

  constructor(
    private readonly warn: (message: string) => void = (m) => void process.stderr.write(`${m}\n`),
  ) {}

  on(listener: RunEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  emit(event: RunEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.fail(event, error);
      }
    }
  }

  /** The first listener failure of the run, with the count of all, or undefined when none failed. */
  failure(): ListenerFailure | undefined {
    return this.failed ? { ...this.failed } : undefined;
  }

  private fail(event: RunEvent, error: unknown): void {
    if (this.failed) {
      this.failed.count++;
      return;
    }
    this.failed = { event: event.type, error: errorMessage(error), count: 1 };
    try {
      this.warn(
        `buildbench: warning: a run observer failed on a '${event.type}' event (${this.failed.error}); ` +
          'the run goes on, but its record (trajectory.jsonl) may be incomplete',
      );
    } catch {
      // Nowhere left to report to (stderr closed): the failure stays in failure() for result.json.
    }
  }
}
