/**
 * On a terminal, the heartbeat is one status line redrawn in place (cli-progress, the library the bench's bar
 * uses) instead of a new line every interval; an event line first clears it, so the log of events reads as it
 * does off a terminal. Imported only when a run starts on a terminal.
 */
import cliProgress from 'cli-progress';

/** A terminal stream: process.stderr, or a test's. */
export interface TerminalStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface StatusLine {
  /** Shows `text` as the status line (drawn, or redrawn in place). */
  show(text: string): void;
  /** Removes the status line, if one is shown. */
  clear(): void;
}

export function createStatusLine(stream: TerminalStream): StatusLine {
  let bar: cliProgress.SingleBar | undefined;
  return {
    show(text) {
      if (!bar) {
        bar = new cliProgress.SingleBar({
          format: '{status}',
          stream: stream as NodeJS.WritableStream,
          clearOnComplete: true,
          hideCursor: false,
          linewrap: false,
          // redrawn when the heartbeat says so, not on a timer of its own
          fps: 1,
          noTTYOutput: false,
        });
        bar.start(1, 0, { status: text });
      } else {
        bar.update(0, { status: text });
      }
    },
    clear() {
      bar?.stop();
      bar = undefined;
    },
  };
}
