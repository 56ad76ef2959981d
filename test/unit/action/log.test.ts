import { describe, expect, it, jest } from '@jest/globals';

import type { RunEvent } from '../../../src/agent/events.js';
import type { Observation } from '../../../src/agent/types.js';
import { createGroupedLog, outputTail, TAIL_LINES, type StepLog } from '../../../src/action/log.js';
import { inActionTerms } from '../../../src/action/summary.js';

/** The log as the runner would receive it: workflow commands spelled out, one line each. */
function recorder(): { log: StepLog; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (l) => lines.push(...l.split('\n')),
      debug: (l) => lines.push(`::debug::${l}`),
      startGroup: (t) => lines.push(`::group::${t}`),
      endGroup: () => lines.push('::endgroup::'),
    },
  };
}

function observation(output: string, exitCode: number): Observation {
  return {
    exec: {
      exitCode,
      timedOut: false,
      cancelled: false,
      durationMs: 1200,
      truncated: false,
      totalBytes: output.length,
    },
    output,
    logPath: '/runner/_temp/buildbench-out/hello/logs/turn-00.log',
    findings: [],
    artifacts: [],
    verdict: {
      passed: exitCode === 0,
      metrics: { completion: false, strict: false, flexible: false, matched: [], missing: [] },
      failures: [],
    },
  };
}

const OUT = '/runner/_temp/buildbench-out/hello';
const run = (turn: number, purpose: string): RunEvent => ({
  type: 'turn_start',
  turn,
  action: { kind: 'run', script: 'make', purpose, reason: 'Makefile found' },
});

/** Replaces the `[mm:ss] ` stamps and the stop-commands tokens, which change from run to run. */
const stable = (lines: string[]): string[] => {
  const tokens = new Map<string, string>();
  return lines.map((l) => {
    let out = l.replace(/\[\d\d:\d\d\] /g, '');
    const stop = /^::stop-commands::(.+)$/.exec(out);
    if (stop) {
      tokens.set(stop[1]!, `T${tokens.size}`);
      return `::stop-commands::T${tokens.size - 1}`;
    }
    for (const [token, name] of tokens) out = out.split(token).join(name);
    return out;
  });
};

describe('the grouped step log', () => {
  it('groups the phases before and after the turns, and each turn with its output tail', () => {
    const { log, lines } = recorder();
    const grouped = createGroupedLog(log, {
      rename: [[OUT, '<out-dir>']],
      reword: inActionTerms,
    });
    const events: RunEvent[] = [
      { type: 'run_start', repo: 'hello', source: '/w/hello', strategy: 'rules', maxTurns: 3, outDir: OUT },
      { type: 'phase', phase: 'fetch', message: 'resolving /w/hello' },
      { type: 'phase', phase: 'inspect', message: 'build systems: make', data: { n: 1 } },
      run(0, 'make'),
      {
        type: 'turn_end',
        turn: 0,
        observation: observation('cc -o hello hello.c\nError 1\n', 2),
        notes: ['n1'],
      },
      { type: 'phase', phase: 'collect', message: `copying 0 binaries to ${OUT}/artifacts` },
      { type: 'phase', phase: 'finalize', message: 'collecting source changes as patches' },
      { type: 'run_end', status: 'sandbox_error', reason: 'no rootfs (use --sandbox docker)' },
    ];
    for (const e of events) grouped.listener(e);
    grouped.close();
    expect(stable(lines)).toEqual([
      'building hello with the rules strategy (at most 3 turns) → <out-dir>',
      '::group::prepare: fetch and inspect the repository, find the build instructions, start the sandbox',
      'fetch: resolving /w/hello',
      'inspect: build systems: make',
      '::debug::inspect data: {"n":1}',
      '::endgroup::',
      '::group::turn 0: make — Makefile found',
      '::stop-commands::T0',
      '── the last 2 lines of the output (all of it: logs/turn-00.log in the output folder) ──',
      'cc -o hello hello.c',
      'Error 1',
      '::T0::',
      '::debug::turn 0 note: n1',
      '::endgroup::',
      'turn 0: exit 2 in 1.2 s',
      '::group::finish: copy the binaries, collect the patches, replay the recipe in a fresh sandbox',
      'collect: copying 0 binaries to <out-dir>/artifacts',
      'finalize: collecting source changes as patches',
      '::endgroup::',
      'SANDBOX_ERROR: no rootfs (use sandbox: docker)',
    ]);
  });

  it("shows the repository's workflow commands instead of letting the runner obey them", () => {
    const { log, lines } = recorder();
    const grouped = createGroupedLog(log);
    grouped.listener(run(0, 'make'));
    grouped.listener({
      type: 'turn_end',
      turn: 0,
      observation: observation('::add-mask::everything\n::error file=x::fake\n::endgroup::\n', 1),
      notes: [],
    });
    const stop = lines.findIndex((l) => l.startsWith('::stop-commands::'));
    const token = lines[stop]!.slice('::stop-commands::'.length);
    const resume = lines.indexOf(`::${token}::`);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(stop).toBeGreaterThan(-1);
    for (const bad of ['::add-mask::everything', '::error file=x::fake', '::endgroup::']) {
      const at = lines.indexOf(bad);
      expect(at).toBeGreaterThan(stop);
      expect(at).toBeLessThan(resume);
    }
    // The group's own end comes after the resume.
    expect(lines.lastIndexOf('::endgroup::')).toBeGreaterThan(resume);
  });

  it('closes a group the run left open (the engine threw during a turn) once', () => {
    const { log, lines } = recorder();
    const grouped = createGroupedLog(log);
    grouped.listener(run(0, 'make'));
    grouped.close();
    grouped.close();
    expect(lines.filter((l) => l === '::endgroup::')).toHaveLength(1);
  });

  it('says (no output) for a silent turn', () => {
    const { log, lines } = recorder();
    const grouped = createGroupedLog(log);
    grouped.listener(run(0, 'make'));
    grouped.listener({ type: 'turn_end', turn: 0, observation: observation('', 0), notes: [] });
    expect(lines).toContain('(no output)');
    expect(lines.some((l) => l.startsWith('::stop-commands::'))).toBe(false);
  });
});

describe('outputTail', () => {
  it('keeps the last lines, a redrawn progress line as its last state, within the byte cap', () => {
    const many = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const tail = outputTail(many).split('\n');
    expect(tail).toHaveLength(TAIL_LINES);
    expect(tail[tail.length - 1]).toBe('line 99');
    expect(outputTail('a\n(Reading database ... 5%\r(Reading database ... 100%\r\nb\n')).toBe(
      'a\n(Reading database ... 100%\nb',
    );
    expect(outputTail('x'.repeat(100) + '\n' + 'y'.repeat(100), 40, 150)).toBe('y'.repeat(100));
    expect(outputTail('\n\n')).toBe('');
  });
});

describe('the heartbeat in the Action', () => {
  it("prints inside the turn's group while its script runs, with the output folder renamed", () => {
    jest.useFakeTimers();
    try {
      const { log, lines } = recorder();
      const grouped = createGroupedLog(log, { rename: [[OUT, '<out-dir>']], progressIntervalMs: 15_000 });
      grouped.listener({
        type: 'run_start',
        repo: 'hello',
        source: '/w/hello',
        strategy: 'rules',
        maxTurns: 3,
        outDir: OUT,
      });
      grouped.listener(run(0, 'make'));
      jest.advanceTimersByTime(31_000);
      grouped.listener({ type: 'turn_end', turn: 0, observation: observation('ok\n', 0), notes: [] });
      jest.advanceTimersByTime(60_000);
      grouped.close();
      const s = stable(lines);
      const open = s.indexOf('::group::turn 0: make — Makefile found');
      const beats = s
        .map((l, i) => [l, i] as const)
        .filter(([l]) => l.startsWith('turn 0: still running after'));
      expect(beats.map(([l]) => l)).toEqual([
        'turn 0: still running after 15 s — no output yet (follow logs/turn-00.log)',
        'turn 0: still running after 30 s — no output yet (follow logs/turn-00.log)',
      ]);
      const end = s.indexOf('::endgroup::', open);
      for (const [, i] of beats) expect(i > open && i < end).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
