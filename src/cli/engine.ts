/**
 * What `build` and `deploy` share after their flags are read: one engine run under SIGINT/SIGTERM handling
 * (the first signal cancels the run and lets it clean up, a second exits at once), the progress on stderr,
 * the summary (or result.json with --json) on stdout, and the exit status of a result.
 */
import { createHeartbeat, createProgressPrinter, DEFAULT_PROGRESS_INTERVAL_MS } from '../core/progress.js';
import type { RunBuildOptions } from '../core/run-build.js';
import type { BuildResult } from '../report/result.js';
import { renderSummary, reportInputFor } from '../report/runbook.js';

export interface EngineIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stderrIsTTY?: boolean;
}

/** What `build` prints: the summary `buildbench report` prints for the same output folder. */
export async function summaryFor(result: BuildResult, outDir: string): Promise<string> {
  return renderSummary(await reportInputFor(result, outDir), outDir);
}

export function exitCodeFor(result: BuildResult): number {
  if (result.status === 'success') return 0;
  if (result.status === 'cancelled') return 130;
  // The sandbox could not be started (no Docker engine, no rootfs) or failed: the build itself did not fail.
  if (result.status === 'sandbox_error') return 3;
  return 1;
}

/** Runs `start` with a signal the first SIGINT/SIGTERM aborts; prints the summary or the JSON; the exit status. */
export async function runWithSignals(
  io: EngineIo,
  output: { json: boolean; outDir: string; what: string; progressIntervalMs?: number },
  start: (options: RunBuildOptions) => Promise<BuildResult>,
): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr(
        `\nbuildbench: ${signal} received — stopping the ${output.what} and cleaning up (press Ctrl-C again to force)\n`,
      );
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // On a terminal the heartbeat redraws one status line, which each event line clears first.
    const status = io.stderrIsTTY
      ? (await import('./status-line.js')).createStatusLine(process.stderr)
      : undefined;
    const printer = createProgressPrinter((line) => {
      status?.clear();
      io.stderr(line + '\n');
    });
    const heartbeat = createHeartbeat(
      (line) => (status ? status.show(line) : io.stderr(line + '\n')),
      output.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    );
    let result: BuildResult;
    try {
      result = await start({ signal: controller.signal, listeners: [printer, heartbeat.listener] });
    } finally {
      heartbeat.stop();
      status?.clear();
    }
    io.stdout(output.json ? JSON.stringify(result, null, 2) + '\n' : await summaryFor(result, output.outDir));
    return exitCodeFor(result);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
