/**
 * The step log, for a person reading it on the run's page: one collapsed group for the phases before the
 * first turn (fetch, inspect, retrieve, sandbox), one per turn, titled by its script's purpose and holding
 * the tail of the build's output, and one for the phases after the last (collect, finalize); a turn's
 * outcome and the run's end follow their group, visible without opening it. Model calls, harness notes
 * and event data go to `core.debug` (shown with step debug logging on). The lines are the CLI's progress
 * lines, with the runner's paths of the repository and the output folder said as the action's names.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';

import type { RunEvent } from '../agent/events.js';
import { createHeartbeat, createProgressPrinter, DEFAULT_PROGRESS_INTERVAL_MS } from '../core/progress.js';

/** The few `@actions/core` calls the log makes (tests pass a recorder). */
export interface StepLog {
  info(line: string): void;
  debug(line: string): void;
  startGroup(title: string): void;
  endGroup(): void;
}

/** A turn's group shows at most this many of the output's last lines, and at most this many bytes. */
export const TAIL_LINES = 40;
export const TAIL_BYTES = 8 * 1024;

/**
 * The last lines of a build's output, within `TAIL_LINES` and `TAIL_BYTES`; '' for none. A line that
 * redraws itself with carriage returns (a progress counter) counts as what a terminal would show: its
 * last state.
 */
export function outputTail(output: string, lines = TAIL_LINES, bytes = TAIL_BYTES): string {
  const all = output
    .replace(/\r+\n/g, '\n')
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) =>
      l.includes('\r')
        ? (l
            .split('\r')
            .filter((part) => part !== '')
            .pop() ?? '')
        : l,
    );
  const kept: string[] = [];
  let size = 0;
  for (let i = all.length - 1; i >= 0 && kept.length < lines; i--) {
    const line = all[i]!;
    size += Buffer.byteLength(line, 'utf8') + 1;
    if (size > bytes && kept.length > 0) break;
    kept.unshift(line.length > bytes ? `…${line.slice(-bytes)}` : line);
  }
  return kept.join('\n').trim() === '' ? '' : kept.join('\n');
}

/** One line: a group's title, which the runner reads up to the end of the line. */
const oneLine = (text: string): string => text.replace(/[\r\n]+/g, ' ');

/** The phases before the first turn and after the last: one group each. */
const PREPARE = {
  key: 'prepare',
  title: 'prepare: fetch and inspect the repository, find the build instructions, start the sandbox',
};
const FINISH = {
  key: 'finish',
  title: 'finish: copy the binaries, collect the patches, replay the recipe in a fresh sandbox',
};
const STAGE_OF: Record<string, { key: string; title: string }> = {
  fetch: PREPARE,
  inspect: PREPARE,
  retrieve: PREPARE,
  sandbox: PREPARE,
  build: PREPARE,
  collect: FINISH,
  finalize: FINISH,
  report: FINISH,
};

export interface GroupedLogOptions {
  /** When the run started, for the lines' `[mm:ss]` stamps. */
  started?: number;
  /** How often a running script's heartbeat line is printed in its turn's group (0: never; default 15 s). */
  progressIntervalMs?: number;
  /** Texts to say otherwise in the lines: `[<runner path>, '<out-dir>']`. Longest first. */
  rename?: [string, string][];
  /** Rewords a line after the renames (the CLI's flags as the action's inputs). */
  reword?: (line: string) => string;
}

export interface GroupedLog {
  listener: (event: RunEvent) => void;
  /** Closes the group still open (the run ended, or the engine threw). */
  close(): void;
}

/**
 * The run's events as a grouped step log. A build's output is printed between `::stop-commands::` and its
 * resume token, so a line of the repository's output such as `::error::` or `::add-mask::` is shown, not
 * obeyed by the runner.
 */
export function createGroupedLog(log: StepLog, options: GroupedLogOptions = {}): GroupedLog {
  let line = '';
  const format = createProgressPrinter((l) => (line = l), options.started ?? Date.now());
  const renames = (options.rename ?? [])
    .filter(([from]) => from !== '')
    .sort((a, b) => b[0].length - a[0].length);
  const render = (event: RunEvent): string => {
    line = '';
    format(event);
    for (const [from, to] of renames) line = line.split(from).join(to);
    return options.reword ? options.reword(line) : line;
  };
  const stamp = (text: string): string => /^\[\d+:\d\d\] /.exec(text)?.[0] ?? '';
  // Inside the turn's group, while its script runs: one line (it starts with its stamp, so a workflow command
  // quoted from the output is shown, not obeyed) naming the log file to follow.
  const heartbeat = createHeartbeat(
    (l) => {
      let text = l;
      for (const [from, to] of renames) text = text.split(from).join(to);
      log.info(text);
    },
    options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    options.started ?? Date.now(),
  );
  let open: string | undefined;
  const close = (): void => {
    if (open === undefined) return;
    log.endGroup();
    open = undefined;
  };
  const start = (key: string, title: string): void => {
    close();
    log.startGroup(oneLine(title));
    open = key;
  };

  const listener = (event: RunEvent): void => {
    heartbeat.listener(event);
    switch (event.type) {
      case 'phase': {
        const text = render(event);
        const stage = STAGE_OF[event.phase] ?? { key: event.phase, title: event.phase };
        if (open !== `stage:${stage.key}`) start(`stage:${stage.key}`, `${stamp(text)}${stage.title}`);
        log.info(text);
        if (event.data !== undefined) log.debug(`${event.phase} data: ${debugJson(event.data)}`);
        break;
      }
      case 'turn_start': {
        const text = render(event);
        start(`turn:${event.turn}`, text || `turn ${event.turn}: ${event.action.kind}`);
        break;
      }
      case 'turn_end': {
        const o = event.observation;
        if (open !== `turn:${event.turn}`) start(`turn:${event.turn}`, `turn ${event.turn}`);
        const tail = outputTail(o.output);
        if (tail) {
          const token = randomUUID();
          log.info(`::stop-commands::${token}`);
          const where = o.logPath
            ? ` (all of it: logs/${path.basename(o.logPath)} in the output folder)`
            : '';
          log.info(`── the last ${tail.split('\n').length} lines of the output${where} ──`);
          log.info(tail);
          log.info(`::${token}::`);
        } else {
          log.info('(no output)');
        }
        for (const note of event.notes) log.debug(`turn ${event.turn} note: ${note}`);
        close();
        log.info(render(event));
        break;
      }
      case 'claim':
      case 'run_start':
      case 'run_end':
        close();
        log.info(render(event));
        break;
      case 'step':
        log.debug(
          `turn ${event.turn}: ${event.action.kind}${event.notes.length ? ` — ${event.notes.join('; ')}` : ''}`,
        );
        break;
      case 'model_call': {
        const usage = event.reply?.usage;
        log.debug(
          `model call: ${event.provider}:${event.model}, ${event.messages.length} messages, ` +
            `${usage ? `${usage.inputTokens} in / ${usage.outputTokens} out tokens, ` : ''}` +
            `${(event.durationMs / 1000).toFixed(1)} s${event.error ? ` — ${event.error}` : ''}${event.refused ? ' (refused by the budget)' : ''}`,
        );
        break;
      }
    }
  };
  return {
    listener,
    close: () => {
      heartbeat.stop();
      close();
    },
  };
}

/** Event data for a debug line, bounded. */
function debugJson(data: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(data) ?? String(data);
  } catch {
    text = String(data);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
