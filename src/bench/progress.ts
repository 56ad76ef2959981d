/**
 * The suite's progress on stderr, from the runner's events: runs done of all, running, failed, and an ETA
 * from the mean wall time of the runs this invocation finished (divided among the concurrent slots). On a
 * terminal it is a progress bar (cli-progress) redrawn in place; otherwise one plain line per event, which
 * logs and CI keep readable.
 */
import cliProgress from 'cli-progress';

import type { BenchEvent } from './runner.js';

/** Where the progress goes: process.stderr, or a test's sink. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface BenchProgress {
  onEvent(event: BenchEvent): void;
  /** Stops the bar (idempotent); the runner's `end` event does it too. */
  stop(): void;
}

/** `95` → `1m35s`, `3700` → `1h1m`. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The counts the display shows, kept from the events. */
class Tally {
  total = 0;
  done = 0;
  running = 0;
  failed = 0;
  cut = 0;
  concurrency = 1;
  private readonly durations: number[] = [];

  apply(event: BenchEvent): void {
    if (event.type === 'plan') {
      this.total = event.total;
      this.done = event.done;
      this.failed = event.failed;
      this.concurrency = event.concurrency;
    } else if (event.type === 'run-start') {
      this.running++;
    } else if (event.type === 'run-end') {
      this.running--;
      this.done++;
      if (event.record.status !== 'success') this.failed++;
      this.durations.push(event.durationMs);
    } else if (event.type === 'run-cut') {
      this.running--;
      this.cut++;
    }
  }

  /** Seconds left, or undefined before any run of this invocation ended. */
  eta(): number | undefined {
    if (this.durations.length === 0) return undefined;
    const mean = this.durations.reduce((a, b) => a + b, 0) / this.durations.length;
    const left = Math.max(0, this.total - this.done - this.cut);
    const slots = Math.max(1, Math.min(this.concurrency, left));
    return (mean * left) / slots / 1000;
  }

  etaText(): string {
    const eta = this.eta();
    return eta === undefined ? '?' : formatSeconds(eta);
  }
}

/** Progress lines or a bar on `stream` (a bar only when it is a terminal). */
export function createBenchProgress(stream: ProgressStream = process.stderr): BenchProgress {
  const tally = new Tally();
  if (stream.isTTY) return barProgress(stream, tally);
  return lineProgress(stream, tally);
}

function lineProgress(stream: ProgressStream, tally: Tally): BenchProgress {
  const say = (text: string): void => void stream.write(`bench: ${text}\n`);
  const counts = (): string =>
    `${tally.done}/${tally.total} done, ${tally.running} running, ${tally.failed} failed, ETA ${tally.etaText()}`;
  return {
    onEvent(event) {
      tally.apply(event);
      if (event.type === 'plan') {
        const failed = event.failed > 0 ? `, ${event.failed} of them failed` : '';
        const already = event.done > 0 ? ` (${event.done} already done${failed})` : '';
        say(`${event.total} runs${already}, ${event.concurrency} at a time`);
      } else if (event.type === 'run-start') {
        say(`start ${event.task.id} #${event.run}`);
      } else if (event.type === 'run-end') {
        const error = event.record.error ? `: ${event.record.error}` : '';
        const took = formatSeconds(event.durationMs / 1000);
        say(`${event.task.id} #${event.run} ${event.record.status}${error} (${took}) — ${counts()}`);
      } else if (event.type === 'run-cut') {
        say(`${event.task.id} #${event.run} cut off (resume redoes it)`);
      } else {
        say(
          `${event.cancelled ? 'cancelled' : 'finished'}: ${tally.done}/${tally.total} done, ${tally.failed} failed`,
        );
      }
    },
    stop() {},
  };
}

function barProgress(stream: ProgressStream, tally: Tally): BenchProgress {
  const bar = new cliProgress.SingleBar(
    {
      format: 'bench [{bar}] {value}/{total} runs | {running} running | {failed} failed | ETA {etaText}',
      stream: stream as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      // The terminal it draws on is the stream given (stderr), not stdout.
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const payload = (): Record<string, unknown> => ({
    running: tally.running,
    failed: tally.failed,
    etaText: tally.etaText(),
  });
  const stop = (): void => {
    if (!started) return;
    started = false;
    bar.stop();
  };
  return {
    onEvent(event) {
      tally.apply(event);
      if (event.type === 'plan') {
        bar.start(event.total, event.done, payload());
        started = true;
      } else if (event.type === 'end') {
        bar.update(tally.done, payload());
        stop();
        if (event.cancelled) void stream.write(`bench: cancelled; resume with --resume\n`);
      } else if (started) {
        bar.update(tally.done, payload());
      }
    },
    stop,
  };
}
