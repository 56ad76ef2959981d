import { describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../../src/cli/main.js';
import { ConfigError } from '../../../src/base/errors.js';
import type { BuildResult } from '../../../src/report/result.js';
import { turnsFromTrajectory } from '../../../src/report/turns.js';
import type { TrajectoryEvent } from '../../../src/trajectory/recorder.js';
import {
  loadReportInput,
  renderRunbook,
  renderSummary,
  reportStatus,
  type ReportInput,
} from '../../../src/report/runbook.js';

const GOLDEN = path.resolve('test/fixtures/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Compares with the golden file, or rewrites it under UPDATE_GOLDEN=1. */
function golden(file: string, actual: string): void {
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
    writeFileSync(file, actual);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

function result(dir: string): BuildResult {
  return JSON.parse(readFileSync(path.join(GOLDEN, dir, 'result.json'), 'utf8')) as BuildResult;
}

describe('RUNBOOK.md golden files', () => {
  it.each([
    ['success', 'SUCCESS'],
    ['partial', 'PARTIAL'],
    ['failed', 'FAILED'],
  ])('%s', async (dir, label) => {
    const input = await loadReportInput(path.join(GOLDEN, dir));
    expect(input.trajectoryProblem).toBeUndefined();
    const text = renderRunbook(input);
    expect(text).toContain(`**Status: ${label}**`);
    golden(path.join(GOLDEN, dir, 'RUNBOOK.md'), text);
    golden(
      path.join(GOLDEN, dir, 'summary.txt'),
      renderSummary(input, `buildbench-out/${input.result.repo.name}`),
    );
  });

  it('success: evidence, environment, dependencies with reasons, steps, patches and the turn history', async () => {
    const text = renderRunbook(await loadReportInput(path.join(GOLDEN, 'success')));
    expect(text).toContain('The recipe is **verified**');
    expect(text).toMatch(/\| replay of `build.sh` in a fresh sandbox \| passed in [\d.]+ s: /);
    expect(text).toContain('| `zinfo` | executable | 15,960 bytes |');
    expect(text).toContain('- Compiler: `cc (Debian 12.2.0-14+deb12u1) 12.2.0`');
    expect(text).toMatch(
      /\| `zlib1g-dev` \| turn 1 fixed turn 0's error: header zlib.h is missing; zlib1g-dev provides it/,
    );
    expect(text).toContain('2. **patch** — apply 1 patch from `patches/` in order');
    expect(text).toMatch(
      /\| `patches\/0001-zinfo.c-glibc-2.32-removed-sys-sysctl.h.patch` \| `zinfo.c` \| glibc 2.32 removed <sys\/sysctl.h>/,
    );
    expect(text).toContain('| 2 | make + guard-removed-glibc-header | 0 |');
    expect(text).not.toContain('## Root cause and what to try next');
  });

  it('names the build cache when the sandboxes had one, and says nothing of it otherwise', async () => {
    const input = await loadReportInput(path.join(GOLDEN, 'success'));
    expect(renderRunbook(input)).not.toContain('Build cache');
    const cached: ReportInput = {
      ...input,
      result: {
        ...input.result,
        sandbox: { ...input.result.sandbox, buildCache: '/root/.cache/buildbench/build-cache' },
      },
    };
    expect(renderRunbook(cached)).toContain(
      "- Build cache: `/root/.cache/buildbench/build-cache` — package downloads (each sandbox uses only those its package index gives the hash of) and this repository's own ccache store",
    );
  });

  it('failed: the root cause, its excerpt and the hint from the finding', async () => {
    const text = renderRunbook(await loadReportInput(path.join(GOLDEN, 'failed')));
    expect(text).toContain(
      '**Root cause** (turn 0, `missing-header`, missing-dependency): missing header acmesdk/device.h',
    );
    expect(text).toContain('**Try next:** Install the development package');
    expect(text).not.toContain('SUCCESS');
    expect(text).not.toContain('## How to build it yourself');
  });
});

describe('status honesty', () => {
  it('never writes SUCCESS without the verifier evidence beside it', () => {
    const ok = result('success');
    expect(reportStatus(ok)).toEqual({ label: 'SUCCESS', evidence: true });
    const noArtifacts: BuildResult = { ...ok, artifacts: [] };
    expect(reportStatus(noArtifacts).label).toBe('FAILED');
    const notStrict: BuildResult = { ...ok, metrics: { ...ok.metrics, strict: false } };
    expect(reportStatus(notStrict).label).toBe('PARTIAL');
    const input: ReportInput = { result: notStrict, turns: [], claims: [] };
    const text = renderRunbook(input);
    expect(text).toContain('**Status: PARTIAL** (run status: success)');
    expect(text).toContain('is not reported as SUCCESS');
    expect(text).not.toContain('**Status: SUCCESS**');
    expect(renderSummary(input, 'out')).toMatch(/^PARTIAL \(success\): /);
    expect(
      reportStatus({
        ...ok,
        status: 'stuck',
        metrics: { completion: false, strict: false, flexible: false },
        artifacts: [],
      }).label,
    ).toBe('FAILED');
  });

  it('says when the recipe is not verified', () => {
    const ok = result('success');
    const unverified: BuildResult = {
      ...ok,
      recipe: {
        ...ok.recipe!,
        verified: false,
        replay: { ...ok.recipe!.replay, status: 'failed', reason: 'build.sh exited 2' },
      },
    };
    const text = renderRunbook({ result: unverified, turns: [], claims: [] });
    expect(text).toContain('The recipe is **not verified**');
    expect(text).toContain('build.sh exited 2');
    expect(renderSummary({ result: unverified, turns: [], claims: [] }, 'out')).toContain(
      'recipe: NOT verified',
    );
  });
});

describe('the terminal summary', () => {
  it('says n/a for strict and flexible when no binary was named, and where a kept tree is', () => {
    const ok = result('success');
    const input: ReportInput = {
      result: {
        ...ok,
        expected: { ...ok.expected, names: [], matched: [], missing: [] },
        sandbox: { ...ok.sandbox, keptAt: '/tmp/bb-kept/pkg' },
      },
      turns: [],
      claims: [],
    };
    const text = renderSummary(input, 'out');
    expect(text).toContain('  completion yes  strict n/a  flexible n/a  (expected any new binary; inferred)');
    expect(text).toContain('\n  build tree kept at /tmp/bb-kept/pkg\n  runbook: out/RUNBOOK.md\n');
  });
});

describe('a recipe that fell back to the full sequence', () => {
  it('lists every script in order and both replays', async () => {
    const input = await loadReportInput(path.join(GOLDEN, 'success'));
    const recipe = input.result.recipe!;
    const fallback: ReportInput = {
      ...input,
      result: {
        ...input.result,
        recipe: {
          ...recipe,
          mode: 'full',
          fallback: true,
          minimalReplay: {
            ...recipe.replay,
            status: 'failed',
            reason: 'build.sh exited 2 and the verifiers failed',
          },
          files: { ...recipe.files, patches: [] },
        },
      },
    };
    const text = renderRunbook(fallback);
    expect(text).toContain('(the full sequence of scripts; the minimal recipe failed its replay)');
    expect(text).toContain('| replay of the minimal recipe (replaced) | failed in 5.7 s: build.sh exited 2');
    expect(text).toContain('2. **turn 0** — the script of `make`, allowed to fail as it did');
    expect(text).toContain(
      '4. **turn 2** — the script of `make + guard-removed-glibc-header` (the verifiers passed after it)',
    );
    expect(renderSummary(fallback, 'out')).toContain(
      'recipe: verified (replay passed in 5.7 s; full sequence, the minimal recipe failed)',
    );
  });
});

describe('turnsFromTrajectory', () => {
  it('reads recipes, edits and root causes field by field, skipping the malformed parts', () => {
    const ev = (seq: number, type: string, data: unknown): TrajectoryEvent => ({
      seq,
      type,
      time: '',
      elapsedMs: 0,
      data,
    });
    const recipe = {
      tools: [{ command: 'cc', pkg: 'gcc' }, { command: 'make' }, 'x'],
      packages: ['zlib1g-dev', 3],
      prelude: ['git config --global safe.directory "*"'],
      edits: 'not a list',
      env: { CFLAGS: '-O2', N: 1 },
      steps: [
        { purpose: 'build', command: 'make' },
        { purpose: 'dance', command: 'x' },
      ],
    };
    const rootCause = {
      id: 'missing-header',
      category: 'missing-dependency',
      message: 'header zlib.h is missing',
      captures: { header: 'zlib.h', n: 2 },
      line: 4,
      excerpt: 'zinfo.c:2: fatal error',
      hint: 'install zlib1g-dev',
    };
    const { turns } = turnsFromTrajectory([
      ev(0, 'turn_start', {
        turn: 0,
        action: {
          kind: 'run',
          script: 's',
          purpose: 'p',
          reason: 'r',
          recipe,
          patches: [{ file: 'zinfo.c', reason: 'why' }, { file: 1 }],
        },
      }),
      ev(1, 'turn_end', { turn: 0, observation: { exec: { exitCode: 2 }, rootCause } }),
      ev(2, 'turn_start', { turn: 1, action: { kind: 'run', script: 's', recipe: 'no', patches: 'no' } }),
      ev(3, 'turn_end', {
        turn: 1,
        observation: { exec: { exitCode: 2 }, rootCause: { ...rootCause, category: 'weather' } },
      }),
    ]);
    expect(turns[0]!.recipe).toEqual({
      tools: [{ command: 'cc', pkg: 'gcc' }],
      packages: ['zlib1g-dev'],
      prelude: ['git config --global safe.directory "*"'],
      edits: [],
      env: { CFLAGS: '-O2' },
      steps: [{ purpose: 'build', command: 'make' }],
    });
    expect(turns[0]!.patches).toEqual([{ file: 'zinfo.c', reason: 'why' }]);
    expect(turns[0]!.rootCause).toEqual({ ...rootCause, captures: { header: 'zlib.h' } });
    expect(turns[1]!.recipe).toBeUndefined();
    expect(turns[1]!.patches).toBeUndefined();
    expect(turns[1]!.rootCause).toBeUndefined();
  });

  it('reads the last run of a file, skips malformed events and keeps a turn that never finished', () => {
    const ev = (seq: number, type: string, data?: unknown): TrajectoryEvent => ({
      seq,
      type,
      time: '',
      elapsedMs: 0,
      data,
    });
    const run = { kind: 'run', script: 's', purpose: 'p', reason: 'r' };
    const { turns, claims } = turnsFromTrajectory([
      ev(0, 'header'),
      ev(1, 'turn_start', { turn: 0, action: { ...run, purpose: 'old run' } }),
      ev(0, 'header'),
      ev(1, 'turn_start', { turn: 0, action: run }),
      ev(2, 'turn_end', {
        turn: 0,
        observation: { exec: { exitCode: 1, durationMs: 5 }, verdict: { passed: false, failures: ['x'] } },
        notes: ['n'],
      }),
      ev(3, 'turn_end', 'garbage'),
      ev(4, 'turn_start', { turn: 1, action: { kind: 'finish' } }),
      ev(5, 'claim', { turn: 1, claim: 'impossible', reason: 'nothing', accepted: true }),
      ev(6, 'turn_start', { turn: 2, action: run }),
    ]);
    expect(turns.map((t) => [t.turn, t.purpose, t.exitCode, t.failures, t.notes])).toEqual([
      [0, 'p', 1, ['x'], ['n']],
      [2, 'p', undefined, [], []],
    ]);
    expect(claims).toEqual([{ turn: 1, claim: 'impossible', reason: 'nothing', accepted: true }]);
  });
});

describe('loading an output folder', () => {
  it('is a ConfigError without result.json', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-report-'));
    await expect(loadReportInput(dir)).rejects.toThrow(ConfigError);
    await expect(loadReportInput(dir)).rejects.toThrow(/has no result.json/);
    writeFileSync(path.join(dir, 'result.json'), '{');
    await expect(loadReportInput(dir)).rejects.toThrow(/not valid JSON/);
  });

  it('is a ConfigError naming the file and the field for a result.json of the wrong shape', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-report-'));
    const file = path.join(dir, 'result.json');
    const ok = result('success');
    writeFileSync(file, JSON.stringify({ ...ok, status: undefined }));
    await expect(loadReportInput(dir)).rejects.toThrow(ConfigError);
    await expect(loadReportInput(dir)).rejects.toThrow(`report: ${file}: status is missing; expected one of`);
    writeFileSync(file, JSON.stringify({ ...ok, metrics: { ...ok.metrics, strict: 'yes' } }));
    await expect(loadReportInput(dir)).rejects.toThrow(
      `report: ${file}: metrics.strict is the string "yes"; expected true or false`,
    );
    writeFileSync(file, JSON.stringify({ ...ok, schema: 'other/v1' }));
    await expect(loadReportInput(dir)).rejects.toThrow(
      `report: ${file} is not a buildbench result (schema the string "other/v1")`,
    );
  });

  it('renders from result.json alone when the trajectory is missing, and says so', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-report-'));
    cpSync(path.join(GOLDEN, 'success', 'result.json'), path.join(dir, 'result.json'));
    const input = await loadReportInput(dir);
    expect(input.trajectoryProblem).toBe('trajectory.jsonl is missing');
    const text = renderRunbook(input);
    expect(text).toContain('**Status: SUCCESS**');
    expect(text).toContain(
      'The trajectory could not be read (trajectory.jsonl is missing); from result.json:',
    );
    expect(text).toContain('The steps are in `build.sh`');
  });
});

describe('buildbench report <out-dir>', () => {
  it('re-renders RUNBOOK.md and prints the summary; exit 2 without result.json', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-report-'));
    cpSync(path.join(GOLDEN, 'partial'), dir, { recursive: true });
    rmSync(path.join(dir, 'RUNBOOK.md'), { force: true });
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: {}, cwd: '/' };
    expect(await run(['report', dir], io)).toBe(0);
    expect(readFileSync(path.join(dir, 'RUNBOOK.md'), 'utf8')).toBe(
      readFileSync(path.join(GOLDEN, 'partial', 'RUNBOOK.md'), 'utf8'),
    );
    expect(out.join('')).toMatch(/^PARTIAL: /);
    expect(out.join('')).toContain(`runbook: ${path.join(dir, 'RUNBOOK.md')}`);
    expect(await run(['report', path.join(dir, 'nope')], io)).toBe(2);
    expect(err.join('')).toMatch(/^buildbench: report: '.*nope' has no result.json/);
    expect(await run(['report'], io)).toBe(2);
    expect(await run(['report', dir, '--json'], io)).toBe(2);
  });
});
