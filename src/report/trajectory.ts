/**
 * The RUNBOOK's words for result.json's trajectory analysis and harness time (`trajectorySection`,
 * `harnessTimeWords`): what kinds of commands the run spent its turns on, what followed each failure, whether
 * the strategy's own stops were right. Pure: result.json in, lines out.
 */
import { PHASES, RECOVERIES, type Phase, type Recovery } from '../trajectory/analysis.js';
import type { BuildResult } from './result.js';

const PHASE_WORDS: Record<Phase, string> = {
  inspect: 'inspecting',
  install: 'installing',
  configure: 'configuring',
  build: 'building',
  patch: 'patching',
  test: 'testing',
  other: 'other (cd, echo, set, …)',
};

const RECOVERY_WORDS: Record<Recovery, string> = {
  inspect: 'looked around',
  adapt: 'changed the commands',
  loop: 'ran the same again',
  abort: 'stopped there',
  other: 'did something else',
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** `; scripts 12.0 s, harness 3.1 s (21%)` for the timings line, or '' for a result.json without them. */
export function harnessTimeWords(timings: BuildResult['timings']): string {
  const { scriptsMs, harnessMs, harnessShare } = timings;
  if (scriptsMs === undefined || harnessMs === undefined || harnessShare === undefined) return '';
  return ` (inside the scripts ${seconds(scriptsMs)}; the harness around them ${seconds(harnessMs)}, ${Math.round(harnessShare * 100)}%)`;
}

/** The RUNBOOK's "Trajectory" section; none for a result.json without an analysis. */
export function trajectorySection(result: BuildResult): string[] {
  const a = result.analysis;
  if (!a) return [];
  const out = ['## Trajectory', ''];
  if (a.commands === 0) {
    out.push('- No command ran.');
  } else {
    const parts = PHASES.filter((p) => a.phases[p] > 0).map((p) => `${PHASE_WORDS[p]} ${a.phases[p]}`);
    out.push(
      `- ${plural(a.commands, 'command')} in ${plural(result.turns.length, 'script')} (split at \`&&\`, \`||\`, \`;\`, \`|\`): ${parts.join(', ')}.`,
    );
    if (a.unparsed)
      out.push(`- ${plural(a.unparsed, 'script')} the shell parser could not read were split by lines.`);
  }
  if (a.failures > 0) {
    const kinds = RECOVERIES.filter((r) => a.recoveries[r] > 0).map(
      (r) => `${RECOVERY_WORDS[r]} ${a.recoveries[r] === 1 ? 'once' : `${a.recoveries[r]} times`}`,
    );
    const which = a.failed?.length
      ? ` (${a.failed.map((f) => `turn ${f.turn}: ${f.recovery}`).join(', ')})`
      : '';
    out.push(
      `- ${plural(a.failures, 'script')} failed; after ${a.failures === 1 ? 'it' : 'them'} the run ${kinds.join(', ')}${which}.`,
    );
  } else if (a.commands > 0) {
    out.push('- No script failed.');
  }
  const s = a.selfStops;
  out.push(
    s.count === 0
      ? '- The strategy never stopped on its own (the verifiers or a limit ended the run).'
      : `- The strategy stopped on its own ${s.count === 1 ? 'once' : `${s.count} times`}: ${s.correct} right, ${s.wrong} wrong (against the verifiers' final word).`,
  );
  out.push('');
  return out;
}
