/**
 * What the Action writes on GitHub from a hostile `result.json` and output folder: the recipe pull request's
 * title and body, the recipe comment, the comment it rewrites (`comment-id`) and the job summary hold nothing
 * live — no mention, no reference, no HTML, no marker — beyond buildbench's own markup
 * (test/helpers/github-live.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { renderComment, renderCrashComment } from '../../../src/action/comment.js';
import { planPullRequest, renderRecipeComment } from '../../../src/action/pull-request.js';
import { renderSummary } from '../../../src/action/summary.js';
import type { BuildResult } from '../../../src/report/result.js';
import { renderRunbook } from '../../../src/report/runbook.js';
import { findLive, liveBeyond } from '../../helpers/github-live.js';
import { HOSTILE, HOSTILE_LOG, hostileResult } from '../../helpers/hostile-result.js';

const PATCH = 'patches/0001-@victim-#1-<img src=x>.patch';
const DETAILS = ['<details>', '<summary>', '</summary>', '</details>'];

let outDir: string;

/** The hostile success result, its patch named PATCH, and an output folder with hostile files. */
function result(): BuildResult {
  const r = hostileResult('success');
  r.patches = r.patches?.map((p) => ({ ...p, file: PATCH }));
  r.recipe = { ...r.recipe!, files: { ...r.recipe!.files, patches: [PATCH] } };
  return r;
}

beforeAll(() => {
  outDir = mkdtempSync(path.join(tmpdir(), 'buildbench-hostile-'));
  mkdirSync(path.join(outDir, 'patches'));
  writeFileSync(path.join(outDir, 'RUNBOOK.md'), HOSTILE_LOG);
  writeFileSync(path.join(outDir, 'build.sh'), HOSTILE_LOG);
  writeFileSync(path.join(outDir, 'Dockerfile'), HOSTILE_LOG);
  writeFileSync(path.join(outDir, PATCH), HOSTILE_LOG);
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const plan = (partial: boolean): ReturnType<typeof planPullRequest> =>
  planPullRequest(result(), {
    outDir,
    owner: 'octo',
    repo: 'hello',
    base: 'main',
    partial,
    dirInRepo: '@victim/#1/<img src=x>',
  });

describe('the recipe pull request from a hostile result.json', () => {
  it.each([false, true])('partial %s: its title and body are inert', async (partial) => {
    const p = await plan(partial);
    expect(liveBeyond(p.body, ['<!-- buildbench:pull-request -->', '<sub>', '</sub>'])).toEqual([]);
    expect(findLive(p.title).filter((f) => f.kind === 'mention' || f.kind === 'reference')).toEqual([]);
    for (const c of p.commits)
      expect(findLive(c.message).filter((f) => f.kind === 'mention' || f.kind === 'reference')).toEqual([]);
  });

  it('the recipe comment, with every file inline, is inert', async () => {
    const p = await plan(false);
    const body = renderRecipeComment(result(), p, 'https://github.com/octo/hello/actions/runs/1');
    const perFile = ['<details>', '<summary>', '<code>', '</code>', '</summary>', '</details>'];
    const own = [
      '<!-- buildbench:recipe-comment -->',
      '<sub>',
      '</sub>',
      ...p.commits.flatMap((c) => c.files.flatMap(() => perFile)),
    ];
    expect(liveBeyond(body, own)).toEqual([]);
  });
});

describe('the comment the Action rewrites', () => {
  it('the outcome and its root cause are inert', () => {
    const r = hostileResult('failed');
    const body = renderComment(r, {
      runUrl: 'https://github.com/octo/hello/actions/runs/1',
      pullRequest: { operation: HOSTILE, note: HOSTILE },
    });
    expect(liveBeyond(body, ['<!-- buildbench:comment -->'])).toEqual([]);
    expect(liveBeyond(renderCrashComment(HOSTILE_LOG, undefined), ['<!-- buildbench:comment -->'])).toEqual(
      [],
    );
  });
});

describe('the job summary', () => {
  it.each(['success', 'partial', 'failed'] as const)(
    'of a hostile %s, with its RUNBOOK’s evidence, is inert',
    (folder) => {
      const result = hostileResult(folder);
      const body = renderSummary(result, {
        runbook: renderRunbook({ result, turns: [], claims: [] }),
        runUrl: 'https://github.com/octo/hello/actions/runs/1',
        files: [HOSTILE, 'result.json'],
        buildSh: HOSTILE_LOG,
        pullRequest: { operation: HOSTILE, note: HOSTILE },
        problems: [HOSTILE],
      });
      expect(liveBeyond(body, [...DETAILS, ...DETAILS])).toEqual([]);
    },
  );
});
