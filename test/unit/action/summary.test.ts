import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  annotationsFor,
  locateInCheckout,
  MAX_WARNING_ANNOTATIONS,
} from '../../../src/action/annotations.js';
import { fitSummary, renderSummary, SUMMARY_LIMIT_BYTES } from '../../../src/action/summary.js';
import type { BuildResult } from '../../../src/report/result.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('job summary', () => {
  it('keeps a huge summary within 1 MiB, cut on purpose with a note', () => {
    const result = fakeResult({
      artifacts: Array.from({ length: 30_000 }, (_, i) => ({
        path: `build/very/long/path/to/binary-number-${i}-ü`,
        kind: 'executable' as const,
        size: i,
      })),
    });
    const text = renderSummary(result, { resultPath: '/tmp/out/result.json' });
    expect(bytes(text)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES);
    expect(bytes(text)).toBeGreaterThan(SUMMARY_LIMIT_BYTES - 4096);
    expect(text).toContain('## ✅ buildbench: SUCCESS — hello');
    expect(text).toMatch(
      /This summary was trimmed to stay within GitHub's 1024 KiB limit; the complete record is in `\/tmp\/out\/result.json`\.\n$/,
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
    const text = renderSummary(result, { resultPath: 'r.json' });
    expect(text).toContain('````\nerror: ```oops``` <script>\n````');
  });

  it('shows the verification record when present and tolerates its absence when present and tolerates their absence', () => {
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
        spec: { file: 'verify.yml', hidden: true, checks: 0 },
        selfStop: { claimed: 'success', verdict: 'passed', wrong: false, refused: 0, claims: [] },
      },
    };
    const text = renderSummary(withVerification, { resultPath: 'r.json' });
    expect(text).toContain('- verification: **passed** (spec `verify.yml`, hidden)');
    expect(text).toContain('  - ✅ artifact hello: built build/hello');
    expect(text).toContain('  - ❌ probe run build/hello (advisory): exit 1');
    expect(text).toContain('- self-stop: the strategy claimed SUCCESS, the verifiers said passed');
    const bare = renderSummary(fakeResult({ recipe: undefined, patches: undefined }), {
      resultPath: 'r.json',
    });
    expect(bare).toContain('| ✅ yes | ✅ yes | ✅ yes | ❌ no |');
    expect(bare).not.toContain('### Recipe and verification');
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
