/**
 * A hostile `result.json` for the tests that GitHub-bound text renders nothing live (test/helpers/github-live.ts):
 * the real result of a run (test/fixtures/golden) with every string a build, a log or a model could set
 * replaced by HOSTILE — mentions of every form, references, an issue URL, raw HTML, a closing `</details>`,
 * the sticky comment's marker, fences — and a number field (a root cause's turn) set to a mention.
 */
import { readFileSync } from 'node:fs';

import type { BuildResult } from '../../src/report/result.js';

/** Every attack in one string (and a bidi override). */
export const HOSTILE = [
  'ping @victim @@x `@y (@z) @org/team owner/repo#1 GH-2 #3 o/r@a5c3785ed8d6',
  'https://github.com/victim/repo/issues/1 <img src=x> </details> </summary> <!-- buildbench:status -->',
  '``` ~~~ | [x](https://github.com/victim/repo/pull/2) ![i](https://e.example/i.png) \\ \u202e end',
].join(' ');

/** HOSTILE over several lines, with a fence and a closing tag of its own, for log excerpts and scripts. */
export const HOSTILE_LOG = `${HOSTILE}\n\`\`\`\n</details>\n@victim\n\`\`\`\`\n${HOSTILE}\n`;

const golden = (folder: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/golden/${folder}/result.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

/** The golden result of `folder` (success, partial, failed) with its words made hostile. */
export function hostileResult(folder: 'success' | 'partial' | 'failed'): BuildResult {
  const r = golden(folder) as unknown as BuildResult & Record<string, unknown>;
  const hostileNumber = '@victim' as unknown as number;
  r.repo = { ...r.repo, name: HOSTILE };
  r.reason = HOSTILE;
  r.tool = { ...r.tool, version: HOSTILE };
  r.strategy = HOSTILE;
  r.expected = {
    ...r.expected,
    names: [HOSTILE, 'ok'],
    missing: [HOSTILE],
    source: HOSTILE as BuildResult['expected']['source'],
  };
  r.artifacts = [{ path: HOSTILE, kind: HOSTILE, size: hostileNumber } as BuildResult['artifacts'][number]];
  r.rootCause = {
    ...(r.rootCause ?? { id: 'x', captures: {} }),
    category: HOSTILE,
    message: HOSTILE,
    excerpt: HOSTILE_LOG,
    turn: hostileNumber,
  } as BuildResult['rootCause'];
  r.turns = r.turns.map((t) => ({
    ...t,
    turn: hostileNumber,
    purpose: HOSTILE,
    ...(t.rootCause
      ? { rootCause: { ...t.rootCause, message: HOSTILE, category: HOSTILE as typeof t.rootCause.category } }
      : {}),
  }));
  if (r.recipe)
    r.recipe = {
      ...r.recipe,
      baseImage: HOSTILE,
      turn: hostileNumber,
      mode: HOSTILE as 'minimal',
      replay: { ...r.recipe.replay, status: HOSTILE as 'passed', reason: HOSTILE },
    };
  r.patches = (r.patches ?? [{ file: 'patches/0001-x.patch', paths: [], turn: 1 }]).map((p) => ({
    ...p,
    subject: HOSTILE,
    reason: HOSTILE,
  }));
  return r;
}
