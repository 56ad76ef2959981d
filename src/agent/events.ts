import type { Action, Observation } from './types.js';
import type { RunStatus } from '../base/status.js';
import type { Claim } from '../verify/types.js';

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
  | { type: 'run_end'; status: RunStatus; reason: string };

export type RunEventListener = (event: RunEvent) => void;

export class EventBus {
  private readonly listeners: RunEventListener[] = [];

  on(listener: RunEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  emit(event: RunEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer's failure never stops the run.
      }
    }
  }
}
