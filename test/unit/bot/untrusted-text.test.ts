/**
 * What the bot writes on GitHub from a hostile artifact or a hostile CI log: the sticky status comment
 * (run-completed.ts) and the diagnosis comment and line suggestion (ci-failure.ts) hold nothing live — no
 * mention, no reference, no HTML, no marker — beyond buildbench's own markup (test/helpers/github-live.ts).
 */
import { describe, expect, it } from '@jest/globals';

import { diagnosisBody, notBuildBody, suggestionBody } from '../../../src/bot/ci-failure.js';
import { renderRunComment } from '../../../src/bot/run-completed.js';
import { withMarker, STATUS_MARKER } from '../../../src/bot/sticky.js';
import { liveBeyond } from '../../helpers/github-live.js';
import { HOSTILE, HOSTILE_LOG, hostileResult } from '../../helpers/hostile-result.js';

type Report = Parameters<typeof renderRunComment>[0];
const RUN_URL = 'https://github.com/octo-org/octo-repo/actions/runs/1';
const DETAILS = ['<details>', '<summary>', '</summary>', '</details>'];

describe('the sticky status comment from a hostile result.json', () => {
  const run: Report['run'] = {
    id: 1,
    htmlUrl: RUN_URL,
    conclusion: HOSTILE,
    headSha: 'a'.repeat(40),
    fromFork: false,
  };

  it('a failed build: the root cause, its turn and its log excerpt are inert', () => {
    const body = withMarker(
      renderRunComment({
        run,
        result: hostileResult('failed'),
        artifactUrl: `${RUN_URL}/artifacts/2`,
        noPullRequest: HOSTILE,
      }),
    );
    expect(liveBeyond(body, [STATUS_MARKER, ...DETAILS])).toEqual([]);
  });

  it('a success: the recipe script and a pull request error are inert', () => {
    const body = renderRunComment({
      run,
      result: hostileResult('success'),
      buildSh: HOSTILE_LOG,
      pullRequestError: HOSTILE,
    });
    expect(liveBeyond(body, DETAILS)).toEqual([]);
  });

  it('no usable result: the run’s conclusion and the problem are inert', () => {
    expect(liveBeyond(renderRunComment({ run, problem: HOSTILE }))).toEqual([]);
  });
});

describe('the diagnosis comment from a hostile CI log', () => {
  const SHA = '9f3b2c1d4e5f60718293a4b5c6d7e8f901234567';
  const OWN = ['<!-- buildbench:diagnosis -->', `<!-- buildbench:sha ${SHA} -->`, '<sub>', '</sub>'];
  const run = { sha: SHA, title: `${HOSTILE} run #42`, url: 'https://github.com/victim/repo/issues/1' };
  const suggestion = {
    path: HOSTILE,
    line: 3,
    original: HOSTILE_LOG,
    replacement: HOSTILE_LOG,
    why: HOSTILE,
  };
  const item = (name: string): Parameters<typeof diagnosisBody>[1][number] => ({
    name,
    url: 'https://github.com/victim/repo/pull/2',
    step: HOSTILE,
    lineOffset: 0,
    truncated: true,
    diagnosis: {
      found: true,
      confidence: 'high',
      rootCause: {
        id: HOSTILE,
        category: HOSTILE,
        message: HOSTILE,
        lines: HOSTILE_LOG.split('\n').map((text, i) => ({ line: i + 1, text })),
      },
      fix: {
        kind: 'patch',
        rule: 'test-rule',
        summary: HOSTILE,
        packages: [HOSTILE, '`@victim'],
        commands: [HOSTILE_LOG],
        patch: HOSTILE_LOG,
        suggestion,
      },
    },
  });

  it('the job and step names, the root cause, the fix and the quoted log are inert', () => {
    const body = diagnosisBody(run, [item(HOSTILE), item('`@victim')], new Set());
    expect(liveBeyond(body, OWN)).toEqual([]);
  });

  it('with the suggestion placed in a review comment, and the review comment itself', () => {
    const placed = new Set([`${suggestion.path}:${suggestion.line}`]);
    expect(liveBeyond(diagnosisBody(run, [item(HOSTILE)], placed), OWN)).toEqual([]);
    expect(liveBeyond(suggestionBody(suggestion), ['<!-- buildbench:suggestion -->'])).toEqual([]);
  });

  it('the later “not a build problem” edit: the reason is inert', () => {
    expect(liveBeyond(notBuildBody(run, HOSTILE), OWN.slice(0, 2))).toEqual([]);
  });
});
