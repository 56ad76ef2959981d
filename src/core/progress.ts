import type { RunEvent } from '../agent/events.js';

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
