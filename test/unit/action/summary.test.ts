import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  annotationsFor,
  locateInCheckout,
  MAX_WARNING_ANNOTATIONS,
} from '../../../src/action/annotations.js';
import {
  fitSummary,
  inActionTerms,
  renderEarlySummary,
  renderSummary,
  runbookEvidence,
  SUMMARY_LIMIT_BYTES,
} from '../../../src/action/summary.js';
import type { BuildResult } from '../../../src/report/result.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

const GOLDEN = path.resolve('test/fixtures/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const RUN = 'https://github.com/octo/hello/actions/runs/77';

/** Compares with the golden file, or rewrites it under UPDATE_GOLDEN=1. */
function golden(file: string, actual: string): void {
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
    writeFileSync(file, actual);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/** What a person reading the summary on the run's page cannot use: paths of the runner's disk, empty code. */
function expectReadable(text: string): void {
  expect(text).not.toMatch(/(^|[\s(`'])\/(tmp|home|root|work|runner|var)\//m);
  expect(text).not.toMatch(/(^|[^`])``($|[^`])/m);
  expect(text).not.toContain('--sandbox');
}

describe('job summary', () => {
  it('keeps a huge summary within 1 MiB, cut on purpose with a note', () => {
    const result = fakeResult({
      artifacts: Array.from({ length: 30_000 }, (_, i) => ({
        path: `build/very/long/path/to/binary-number-${i}-ü`,
        kind: 'executable' as const,
        size: i,
      })),
    });
    const text = renderSummary(result, {});
    expect(bytes(text)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES);
    expect(bytes(text)).toBeGreaterThan(SUMMARY_LIMIT_BYTES - 4096);
    expect(text).toContain('## ✅ buildbench: SUCCESS — hello');
    expect(text).toMatch(
      /This summary was trimmed to stay within GitHub's 1024 KiB limit; the complete record is in `result.json`, in the output folder \(the step's `out-dir` output\)\.\n$/,
    );
    // Whole lines only: the last table row before the note is complete.
    const beforeNote = text.slice(0, text.indexOf('\n\n> [!NOTE]'));
    expect(beforeNote.split('\n').pop()).toMatch(/^\| `build\/.*` \| executable \| \d+ \|$/);
  });

  it('drops whole sections after the one that did not fit and leaves small summaries alone', () => {
    expect(fitSummary(['a', 'b'], 100)).toBe('a\n\nb\n');
    const cut = fitSummary(['x'.repeat(10), 'line1\nline2\n' + 'y'.repeat(500), 'never'], 400);
    expect(bytes(cut)).toBeLessThanOrEqual(400);
    expect(cut).toContain('line2');
    expect(cut).not.toContain('never');
    expect(cut).toContain('trimmed');
  });

  it('fences log excerpts so backticks inside cannot break out', () => {
    const result = failedResult();
    result.rootCause!.excerpt = 'error: ```oops``` <script>';
    const text = renderSummary(result, {});
    expect(text).toContain('````\nerror: ```oops``` <script>\n````');
  });

  it('shows the verification record when present and tolerates its absence', () => {
    const withVerification: BuildResult = {
      ...fakeResult(),
      verification: {
        passed: true,
        checks: [
          {
            name: 'artifact hello',
            passed: true,
            detail: 'built build/hello',
            source: 'artifacts',
            required: true,
          },
          {
            name: 'probe run build/hello',
            passed: false,
            detail: 'exit 1',
            source: 'probe',
            required: false,
          },
        ],
        spec: { file: '/work/ws/ci/verify.yml', hidden: true, checks: 0 },
        selfStop: { claimed: 'success', verdict: 'passed', wrong: false, refused: 0, claims: [] },
      },
    };
    const text = renderSummary(withVerification, { workspace: '/work/ws' });
    // The spec's path in the workspace, not on the runner's disk.
    expect(text).toContain('- verification: **passed** (spec `ci/verify.yml`, hidden)');
    expect(text).toContain('  - ✅ artifact hello: built build/hello');
    expect(text).toContain('  - ❌ probe run build/hello (advisory): exit 1');
    expect(text).toContain('- self-stop: the strategy claimed SUCCESS, the verifiers said passed');
    const bare = renderSummary(fakeResult({ recipe: undefined, patches: undefined }), {});
    expect(bare).toContain('| ✅ yes | ✅ yes | ✅ yes | ❌ no |');
    expect(bare).not.toContain('### Recipe and verification');
  });
});

describe('job summary golden files (the real runs in test/fixtures/golden)', () => {
  // Regenerate after an intended change: UPDATE_GOLDEN=1 … npx jest test/unit/action/summary.test.ts
  it.each(['success', 'partial', 'failed'])('%s', (dir) => {
    const result = JSON.parse(readFileSync(path.join(GOLDEN, dir, 'result.json'), 'utf8')) as BuildResult;
    const text = renderSummary(result, {
      runUrl: RUN,
      workspace: '/home/runner/work/hello/hello',
      files: ['RUNBOOK.md', 'logs/', 'result.json', 'trajectory.jsonl'],
      runbook: readFileSync(path.join(GOLDEN, dir, 'RUNBOOK.md'), 'utf8'),
      ...(dir === 'success'
        ? { buildSh: readFileSync(path.join(GOLDEN, 'action', 'build.sh'), 'utf8') }
        : {}),
    });
    golden(path.join(GOLDEN, 'action', `summary-${dir}.md`), text);
    expectReadable(text);
    expect(text).toContain(`[this run's artifacts](${RUN}#artifacts)`);
    expect(text).toContain(
      `<details><summary>RUNBOOK.md — the evidence for ${result.status.toUpperCase()}</summary>`,
    );
    // The status line is the summary's own heading; the RUNBOOK's copy of it is not repeated.
    expect(text).not.toContain('**Status:');
    if (dir === 'success') {
      expect(text).toContain(
        '<details><summary>build.sh — the recipe as a script (48 lines)</summary>\n\n```sh\n#!/usr/bin/env bash',
      );
    }
  });
});

describe('job summary for a person', () => {
  it('says sandbox: <kind> and leaves out an empty image instead of empty backticks', () => {
    const text = renderSummary(fakeResult({ sandbox: { kind: 'docker', image: '' } }), {});
    expect(text).toContain('strategy: rules · sandbox: docker · 2 turns · 5 s');
    expectReadable(text);
    expect(renderSummary(fakeResult(), {})).toContain('sandbox: rootfs (image `debian:bookworm`)');
  });

  it('says a pull request that could not be opened once, as a warning', () => {
    const problem = 'could not open the pull request: Resource not accessible by integration';
    const text = renderSummary(fakeResult(), {
      pullRequest: { operation: 'none', note: problem },
      problems: [problem, problem],
    });
    expect(text.split(problem)).toHaveLength(2);
    expect(text).toContain(`> [!WARNING]\n> ${problem}`);
    const opened = renderSummary(fakeResult(), {
      pullRequest: { operation: 'created', url: 'https://github.com/octo/hello/pull/5' },
    });
    expect(opened).toContain('Pull request (created): https://github.com/octo/hello/pull/5');
  });

  it('links the output folder through the run when the run is known, and lists its files', () => {
    const text = renderSummary(fakeResult(), { runUrl: RUN, files: ['build.sh', 'logs/', 'result.json'] });
    expect(text).toContain(
      "### Output folder\n\n`build.sh`, `logs/`, `result.json` — in the step's `out-dir` output.",
    );
    expect(text).toContain(`[this run's artifacts](${RUN}#artifacts)`);
  });

  it('cuts a huge build.sh inside its collapsed block and says where the whole file is', () => {
    const text = renderSummary(fakeResult(), { buildSh: 'echo x\n'.repeat(20_000) });
    expect(text).toContain('(20000 lines)');
    expect(text).toContain('… cut here; the whole file is build.sh in the output folder.\n\n</details>');
    expect(bytes(text)).toBeLessThan(80 * 1024);
  });

  it('renders the early end of a step: why, and the output folder with the note', () => {
    const text = renderEarlySummary('config_error', "input max-turns: 'lots' is not valid", {
      runUrl: RUN,
      files: ['buildbench-error.txt'],
    });
    expect(text).toBe(
      [
        '## ❌ buildbench: CONFIG_ERROR',
        '',
        "input max-turns: 'lots' is not valid",
        '',
        'The step ended before the build started; nothing was built.',
        '',
        '### Output folder',
        '',
        "`buildbench-error.txt` — in the step's `out-dir` output. Upload it with `actions/upload-artifact` " +
          `(with \`if: always()\`) to find it among [this run's artifacts](${RUN}#artifacts).`,
        '',
      ].join('\n'),
    );
  });

  it('takes the RUNBOOK from after its status line to the end of its evidence', () => {
    const runbook = [
      '# x: build runbook',
      '',
      '**Status: SUCCESS** — done',
      '',
      'The recipe is **verified**.',
      '',
      '## Evidence',
      '',
      '| verifier | result |',
      '',
      '## Environment',
      '',
      '- Repository: `/work/x`',
    ].join('\n');
    expect(runbookEvidence(runbook)).toBe(
      'The recipe is **verified**.\n\n#### Evidence\n\n| verifier | result |',
    );
    expect(runbookEvidence('# no evidence here\n')).toBeUndefined();
  });
});

describe("the engine's messages in the action's terms", () => {
  it.each([
    [
      'no Docker engine (start one, or use --sandbox rootfs)',
      'no Docker engine (start one, or use sandbox: rootfs)',
    ],
    ['pass --sandbox host explicitly', 'set sandbox: host explicitly'],
    ['use --sandbox rootfs or docker', 'use sandbox: rootfs or docker'],
    ['another sandbox (--sandbox docker)', 'another sandbox (sandbox: docker)'],
    ['pass the right ones with `--expect`', 'pass the right ones with input `expect`'],
    ['--max-turns=5 was too few', 'max-turns: 5 was too few'],
    ['--spec check.yml failed', 'verifier: check.yml failed'],
    ['--model or --api-key', 'input model or input api-key'],
    // Flags the action has no input for stay as they are, and so do other programs' options.
    ['kept with --keep', 'kept with --keep'],
    ['cmake --build build', 'cmake --build build'],
  ])('%s', (cli, action) => {
    expect(inActionTerms(cli)).toBe(action);
  });
});

describe('annotations', () => {
  const checkout = (): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-annot-'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'main.c'), '');
    return dir;
  };

  it('maps sandbox and build-directory paths to workspace paths that exist', () => {
    const dir = checkout();
    expect(locateInCheckout('/workspace/src/main.c', dir, '')).toBe('src/main.c');
    expect(locateInCheckout('../src/main.c', dir, 'repo')).toBe('repo/src/main.c');
    expect(locateInCheckout('./src/main.c', dir, '')).toBe('src/main.c');
    expect(locateInCheckout('src/missing.c', dir, '')).toBeUndefined();
    expect(locateInCheckout('/usr/include/stdio.h', dir, '')).toBeUndefined();
    // A git URL source is not in the workspace: no file.
    expect(locateInCheckout('src/main.c', dir, undefined)).toBeUndefined();
  });

  it('makes the root cause an error and earlier turns warnings, within the per-step limits', () => {
    const dir = checkout();
    const result = failedResult({
      turns: Array.from({ length: 15 }, (_, i) => ({
        turn: i,
        purpose: 'make',
        reason: 'r',
        exitCode: 2,
        timedOut: false,
        durationMs: 1,
        newArtifacts: 0,
        rootCause: { id: 'x', category: 'compile-error' as const, message: `error ${i}`, line: 1 },
      })),
    });
    const annotations = annotationsFor(result, { sourceDir: dir, sourceInWorkspace: '' });
    expect(annotations[0]).toEqual({
      level: 'error',
      title: 'buildbench: missing-dependency (turn 1)',
      message: 'missing header foo.h',
      file: 'src/main.c',
      startLine: 7,
      startColumn: 10,
    });
    expect(annotations.filter((a) => a.level === 'error')).toHaveLength(1);
    expect(annotations.filter((a) => a.level === 'warning')).toHaveLength(MAX_WARNING_ANNOTATIONS);
  });

  it('has no error annotation for a success, only notes about repaired turns', () => {
    const annotations = annotationsFor(fakeResult(), { sourceDir: '/nonexistent' });
    expect(annotations).toEqual([
      {
        level: 'warning',
        title: 'buildbench: turn 0 failed (missing-dependency)',
        message: 'missing header zlib.h — repaired in a later turn',
      },
    ]);
  });
});
