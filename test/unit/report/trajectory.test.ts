import { describe, it, expect } from '@jest/globals';

import type { BuildResult } from '../../../src/report/result.js';
import { harnessTimeWords, trajectorySection } from '../../../src/report/trajectory.js';
import type { TrajectoryAnalysis } from '../../../src/trajectory/analysis.js';

const zero = { inspect: 0, install: 0, configure: 0, build: 0, patch: 0, test: 0, other: 0 };
const noRecovery = { inspect: 0, adapt: 0, loop: 0, abort: 0, other: 0 };

function result(analysis?: TrajectoryAnalysis, turns = 0): BuildResult {
  return { analysis, turns: Array.from({ length: turns }, () => ({})) } as unknown as BuildResult;
}

describe('trajectorySection', () => {
  it('is absent for a result.json written before the analysis', () => {
    expect(trajectorySection(result())).toEqual([]);
  });

  it('says so when nothing ran and the strategy never stopped on its own', () => {
    const analysis = {
      commands: 0,
      phases: zero,
      failures: 0,
      recoveries: noRecovery,
      selfStops: { count: 0, correct: 0, wrong: 0 },
    };
    expect(trajectorySection(result(analysis)).join('\n')).toBe(
      '## Trajectory\n\n- No command ran.\n- The strategy never stopped on its own (the verifiers or a limit ended the run).\n',
    );
  });

  it('puts phases, recoveries with their turns, unparsed scripts and self-stops in words', () => {
    const analysis: TrajectoryAnalysis = {
      commands: 9,
      phases: { ...zero, inspect: 3, build: 4, install: 2 },
      failures: 3,
      recoveries: { ...noRecovery, adapt: 2, abort: 1 },
      failed: [
        { turn: 1, recovery: 'adapt' },
        { turn: 2, recovery: 'adapt' },
        { turn: 3, recovery: 'abort' },
      ],
      selfStops: { count: 1, correct: 0, wrong: 1 },
      unparsed: 1,
    };
    const text = trajectorySection(result(analysis, 3)).join('\n');
    expect(text).toContain(
      '- 9 commands in 3 scripts (split at `&&`, `||`, `;`, `|`): inspecting 3, installing 2, building 4.',
    );
    expect(text).toContain('- 1 script the shell parser could not read were split by lines.');
    expect(text).toContain(
      '- 3 scripts failed; after them the run changed the commands 2 times, stopped there once (turn 1: adapt, turn 2: adapt, turn 3: abort).',
    );
    expect(text).toContain(
      "- The strategy stopped on its own once: 0 right, 1 wrong (against the verifiers' final word).",
    );
  });
});

describe('harnessTimeWords', () => {
  it('gives the scripts, the harness and its share; nothing for older results', () => {
    const timings = { startedAt: '', finishedAt: '', totalMs: 40_000, prepareMs: 0 };
    expect(harnessTimeWords(timings)).toBe('');
    expect(harnessTimeWords({ ...timings, scriptsMs: 30_000, harnessMs: 10_000, harnessShare: 0.25 })).toBe(
      ' (inside the scripts 30 s; the harness around them 10 s, 25%)',
    );
  });
});
