import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../agent/events.js';
import { stripAnsi } from '../knowledge/diagnose/terminal-text.js';

/** Progress on stderr for long work: phase, turn, elapsed. One line per event, no terminal tricks. */
export function createProgressPrinter(
  write: (line: string) => void,
  started = Date.now(),
): (event: RunEvent) => void {
  const stamp = (): string => {
    const s = Math.floor((Date.now() - started) / 1000);
    return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`;
  };
  return (event) => {
    switch (event.type) {
      case 'run_start':
        write(
          `${stamp()} building ${event.repo} with the ${event.strategy} strategy (${event.strategy === 'baseline' ? 'one script' : `at most ${event.maxTurns} turns`}) → ${event.outDir}`,
        );
        break;
      case 'phase':
        write(`${stamp()} ${event.phase}: ${event.message}`);
        break;
      case 'turn_start':
        if (event.action.kind === 'run')
          write(`${stamp()} turn ${event.turn}: ${event.action.purpose} — ${event.action.reason}`);
        break;
      case 'turn_end': {
        const o = event.observation;
        const how = o.exec.timedOut ? 'timed out' : `exit ${o.exec.exitCode}`;
        const failed = o.exec.exitCode !== 0 || !o.verdict.passed;
        const cause = failed && o.rootCause ? ` — ${o.rootCause.message}` : '';
        const bins =
          o.artifacts.length > 0
            ? `, ${o.artifacts.length} new binar${o.artifacts.length === 1 ? 'y' : 'ies'}`
            : '';
        const verdict = o.verdict.passed ? ', verifiers passed' : '';
        write(
          `${stamp()} turn ${event.turn}: ${how} in ${(o.exec.durationMs / 1000).toFixed(1)} s${bins}${verdict}${cause}`,
        );
        break;
      }
      case 'claim':
        write(
          `${stamp()} strategy says ${event.claim}: ${event.reason}${event.accepted ? '' : ' (refused: ' + event.failures.join('; ') + ')'}`,
        );
        break;
      case 'run_end':
        write(`${stamp()} ${event.status.toUpperCase()}: ${event.reason}`);
        break;
    }
  };
}

/** How often a running script's heartbeat is printed by default (`--progress-interval`). */
export const DEFAULT_PROGRESS_INTERVAL_MS = 15_000;
/** C0 and C1 control characters (a terminal's cursor moves, bells), removed from a quoted line. */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/** What a progress bar or a bare counter is drawn with: a line of only these says nothing. */
const BAR_CHARS = new Set(' \t0123456789%.,:/|=#>*<-[]()\\~_+');
const isBar = (text: string): boolean => [...text].every((c) => BAR_CHARS.has(c));
/** Bytes of the log's end read for its last line. */
const TAIL_BYTES = 8192;
/** The longest last line a heartbeat quotes. */
const MAX_QUOTE = 160;

/** KiB/MiB for a person. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The last line of `tail` worth showing: not blank, not a progress bar or spinner (only bar characters and
 * numbers), colours and other terminal control characters removed, a carriage-return redraw reduced to what was
 * drawn last, bounded.
 */
export function lastMeaningfulLine(tail: string): string | undefined {
  const lines = tail.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const drawn =
      (lines[i] ?? '')
        .split('\r')
        .filter((part) => part.trim() !== '')
        .at(-1) ?? '';
    const text = stripAnsi(drawn).replace(CONTROL, '').trim();
    if (text === '' || isBar(text)) continue;
    return text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE - 1)}…` : text;
  }
  return undefined;
}

/** Size and last line of a log file being written; undefined when it cannot be read yet. */
function readLogState(file: string): { bytes: number; last?: string } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const { size: bytes } = fstatSync(fd);
    const length = Math.min(bytes, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, bytes - length);
    const last = lastMeaningfulLine(buffer.toString('utf8'));
    return last === undefined ? { bytes } : { bytes, last };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A heartbeat while a turn's script runs: every `intervalMs` one line with the turn, how long it has run, the
 * log's size, its last meaningful line (the log is redacted as it is written) and the log's path in the output
 * folder — so a long, quiet `make` does not look hung and says which file to follow. The timer never keeps the
 * process alive; `stop()` ends it (run_end does too). `intervalMs` 0: no heartbeat.
 */
export function createHeartbeat(
  write: (line: string) => void,
  intervalMs: number = DEFAULT_PROGRESS_INTERVAL_MS,
  started = Date.now(),
): { listener: (event: RunEvent) => void; stop: () => void } {
  let outDir: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const stamp = (): string => {
    const s = Math.floor((Date.now() - started) / 1000);
    return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`;
  };
  const listener = (event: RunEvent): void => {
    if (event.type === 'run_start') outDir = event.outDir;
    else if (event.type === 'turn_end' || event.type === 'run_end') stop();
    else if (event.type === 'turn_start' && event.action.kind === 'run' && intervalMs > 0 && outDir) {
      stop();
      const relative = path.posix.join('logs', `turn-${String(event.turn).padStart(2, '0')}.log`);
      const file = path.join(outDir, relative);
      const turnStarted = Date.now();
      timer = setInterval(() => {
        const state = readLogState(file);
        const ran = Math.round((Date.now() - turnStarted) / 1000);
        const log = state ? `log ${size(state.bytes)}` : 'no output yet';
        const last = state?.last ? `, last: ${JSON.stringify(state.last)}` : '';
        write(
          `${stamp()} turn ${event.turn}: still running after ${ran} s — ${log}${last} (follow ${relative})`,
        );
      }, intervalMs);
      timer.unref();
    }
  };
  return { listener, stop };
}
