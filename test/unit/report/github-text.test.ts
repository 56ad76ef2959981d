/**
 * The renderer of untrusted text into GitHub Markdown (src/report/github-text.ts), judged by the checker of
 * GitHub's live patterns (test/helpers/github-live.ts): first that the checker flags every raw attack and
 * leaves code alone, then — with random and adversarial strings built from attack fragments — that nothing
 * the renderer makes of them is live in any place it is put (prose, inline code, a code block, a table cell,
 * a link's text, a `<details>` block, the `md` tag, and two renderings side by side).
 */
import { describe, expect, it } from '@jest/globals';

import {
  codeBlock,
  codeSpan,
  inline,
  link,
  md,
  plainTitle,
  prose,
  safeUrl,
  stripControl,
} from '../../../src/report/github-text.js';
import { STATUS_MARKER } from '../../../src/bot/sticky.js';
import { findLive, liveBeyond } from '../../helpers/github-live.js';

/** Raw attack strings, each live on GitHub. */
const ATTACKS: readonly string[] = [
  '@victim',
  '@@x',
  '`@x',
  'text `@x',
  '@org/team',
  'cc:@victim',
  '(@victim)',
  '*a*@victim',
  '_a_@victim',
  '\\@victim',
  '&#64;victim',
  '&commat;victim',
  '＠victim',
  '#1',
  'see #12',
  'GH-7',
  'gh-7',
  'owner/repo#1',
  'owner/repo@a5c3785ed8d6a35868bc169f07e40e889087fd2e',
  'jlord@a5c3785',
  'https://github.com/victim/repo/issues/1',
  'https://github.com/victim/repo/pull/2',
  'https://github.com/victim/repo/commit/a5c3785',
  'www.github.com/victim/repo/discussions/3',
  '<img src=x>',
  '<details>',
  '</details>',
  '</summary>',
  '<!-- hidden -->',
  STATUS_MARKER,
  '<!-- buildbench:comment -->',
  '| a | `b|@x` |\n| --- | --- |\n| c | d |',
];

describe('the live-pattern checker', () => {
  it.each(ATTACKS)('flags the raw attack %j', (attack) => {
    expect(findLive(attack)).not.toEqual([]);
  });

  it('flags the sticky marker as a marker and a stray closing tag as HTML', () => {
    expect(findLive(`x ${STATUS_MARKER}`).map((f) => f.kind)).toEqual(['marker']);
    expect(findLive('</details>')).toEqual([{ kind: 'html', text: '</details>', line: 1 }]);
  });

  it('leaves code spans, fenced blocks, e-mail addresses and defused text alone', () => {
    for (const inert of [
      '`@victim` and ``a ` @x #1 <img>``',
      '```\n@victim #1 </details>\n```',
      '~~~~\n```\n@victim\n~~~~',
      'mail me@example.com',
      '@\u200bvictim #\u200b1 github\u200b.com/o/r/issues/1',
      '&lt;img src=x&gt; &amp;#\u200b64;x',
      '`a|@x` outside a table',
    ])
      expect(findLive(inert)).toEqual([]);
  });

  it('counts buildbench’s own markup out only as often as it wrote it', () => {
    const body = `${STATUS_MARKER}\n<details><summary>s</summary>\n\nx\n\n</details></details>`;
    const own = [STATUS_MARKER, '<details>', '<summary>', '</summary>', '</details>'];
    expect(liveBeyond(body, own)).toEqual([{ kind: 'html', text: '</details>', line: 6 }]);
  });
});

describe('the renderer', () => {
  it('defuses mentions, references and URLs, keeps e-mail addresses, escapes HTML', () => {
    expect(inline('ping @octocat and @org/team, @@x, `@y')).toBe(
      'ping @\u200boctocat and @\u200borg/team, @@\u200bx, \\`@\u200by',
    );
    expect(inline('mail me@example.com')).toBe('mail me@example.com');
    expect(inline('see torvalds/linux#1, GH-2, o/r@a5c3785')).toBe(
      'see torvalds/linux#\u200b1, GH-\u200b2, o/r@\u200ba5c3785',
    );
    expect(inline('https://github.com/o/r/issues/1')).toBe('https://github\u200b.com/o/r/issues/1');
    expect(inline('<!-- buildbench:status --></details><img src=x> a & b')).toBe(
      '&lt;!-- buildbench:status --&gt;&lt;/details&gt;&lt;img src=x&gt; a &amp; b',
    );
  });

  it('escapes what would open code, a link or an image, or end a table cell; inline text is one line', () => {
    expect(inline('a|b [x](y) ![i](j) ~~~ \\ `c`\nd')).toBe(
      'a\\|b \\[x\\](y) !\\[i\\](j) \\~\\~\\~ \\\\ \\`c\\` d',
    );
    expect(prose('one\ntwo')).toBe('one\ntwo');
  });

  it('leaves nothing at the end that the next text could complete', () => {
    expect(inline('x @')).toBe('x @\u200b');
    expect(inline('repo#')).toBe('repo#\u200b');
    expect(inline('see GH-')).toBe('see GH-\u200b');
  });

  it('removes control and bidi-override characters', () => {
    expect(stripControl('a\u0000b\u001b[31mc\r\nd\te\u202Ef\u2066g')).toBe('ab[31mc\nd\tefg');
  });

  it('fences code longer than any backtick run inside; escapes pipes of code in a table', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('a|b', { inTable: true })).toBe('`a\\|b`');
    expect(codeBlock('x\n````\ny', 'sh; rm')).toBe('`````shrm\nx\n````\ny\n`````');
  });

  it('links only https URLs that reference no issue, pull request or commit', () => {
    expect(link('job [1]', 'https://ci.example/job/1')).toBe('[job \\[1\\]](https://ci.example/job/1)');
    expect(link('job', 'https://github.com/victim/repo/issues/1')).toBe('job');
    expect(link('job', 'javascript:alert(1)')).toBe('job');
    expect(safeUrl('https://github.com/o/r/actions/runs/1')).toBe('https://github.com/o/r/actions/runs/1');
  });

  it('md escapes every interpolation unless it is Markdown already', () => {
    const turn: unknown = '@victim';
    const out = md`**Root cause** (turn ${turn as string}): ${'<img src=x>'} in ${md.code('a`b')}`;
    expect(out.text).toBe('**Root cause** (turn @\u200bvictim): &lt;img src=x&gt; in ``a`b``');
    expect(md`${md.trusted('<sub>')}${7}${md.trusted('</sub>')}`.text).toBe('<sub>7</sub>');
  });

  it('makes titles plain text without links or pings', () => {
    expect(plainTitle('build for @victim\nowner/repo#1 <b>')).toBe(
      'build for @\u200bvictim owner/repo#\u200b1 <b>',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Property: random and adversarial strings through the renderer, in every place it is used.

const FRAGMENTS: readonly string[] = [
  ...ATTACKS,
  '@',
  '@@',
  '#',
  'GH-',
  '1',
  '42',
  'a5c3785ed8d6',
  'repo',
  'owner/',
  '/',
  '.',
  '-',
  '`',
  '``',
  '```',
  '````',
  '~~~',
  '\\',
  '\\`',
  '|',
  '[',
  ']',
  '(',
  ')',
  '![x](https://e.example/i.png)',
  '[l](https://github.com/v/r/issues/9)',
  '<',
  '>',
  '<!--',
  '-->',
  '&',
  '&#35;1',
  '&#x40;',
  '*',
  '_',
  '\n',
  '\n\n',
  '\r\n',
  ' ',
  '    ',
  '\t',
  '> ',
  '- ',
  '---',
  '\u200b',
  '\u202e',
  '\u0000',
  '\u001b[31m',
  '＠',
  '＃',
  'github。com/v/r/pull/1',
  'é',
  '😀',
  'me@example.com',
  'x',
];

/** mulberry32: a small seeded generator, so a failure names a string that can be reproduced. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostileString(next: () => number): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(next() * 12);
  for (let i = 0; i < count; i += 1) {
    if (next() < 0.1) parts.push(String.fromCodePoint(0x20 + Math.floor(next() * 0x2fe0)));
    else parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!);
  }
  return parts.join('');
}

/** Each place the renderer's output is put, with the findings buildbench's own markup there makes. */
const PLACES: readonly { name: string; render: (a: string, b: string) => string; own?: string[] }[] = [
  { name: 'prose', render: (a) => `The build failed: ${prose(a)}.` },
  { name: 'a line of its own', render: (a) => `intro\n${inline(a)}\nafter` },
  { name: 'two renderings side by side', render: (a, b) => `${inline(a)}${inline(b)}` },
  { name: 'inline code', render: (a, b) => `see ${codeSpan(a)} and ${codeSpan(b)} here` },
  { name: 'a code block', render: (a) => `intro\n\n${codeBlock(a, 'sh')}\n\nafter` },
  { name: 'two code blocks', render: (a, b) => `${codeBlock(a)}\n${codeBlock(b, 'text')}` },
  {
    name: 'a table cell',
    render: (a, b) =>
      `| name | code |\n| --- | --- |\n| ${inline(a)} | ${codeSpan(b, { inTable: true })} |\n| x | ${inline(b)} |`,
  },
  { name: 'a link’s text', render: (a, b) => `[${inline(a)}](https://example.com/x) ${link(b, a)}` },
  {
    name: 'a details block',
    render: (a, b) =>
      `<details><summary>${inline(a)}</summary>\n\n${codeBlock(b)}\n\n</details>\n\n${prose(b)}`,
    own: ['<details>', '<summary>', '</summary>', '</details>'],
  },
  {
    name: 'the md tag',
    render: (a, b) =>
      md`### ${a} — ${md.code(b)}\n\n${md.prose(b)}\n\n${md.block(a)} ${md.join([a, b], ', ')}`.text,
  },
];

describe('the renderer, on random and adversarial strings', () => {
  const next = random(0x5eed);
  const samples = Array.from({ length: 1500 }, () => [hostileString(next), hostileString(next)] as const);

  it('is fed strings that are live when raw', () => {
    const live = samples.filter(([a]) => findLive(a).length > 0).length;
    expect(live / samples.length).toBeGreaterThan(0.8);
  });

  it.each(PLACES.map((p) => [p.name, p] as const))('leaves nothing live in %s', (_name, place) => {
    const failures: { input: [string, string]; output: string; live: unknown }[] = [];
    for (const [a, b] of samples) {
      const output = place.render(a, b);
      const live = liveBeyond(output, place.own ?? []);
      if (live.length > 0 && failures.length < 3) failures.push({ input: [a, b], output, live });
    }
    expect(failures).toEqual([]);
  });

  it('leaves no mention or reference in a title', () => {
    const failures = samples
      .map(([a]) => ({
        a,
        live: findLive(plainTitle(a)).filter((f) => f.kind === 'mention' || f.kind === 'reference'),
      }))
      .filter((x) => x.live.length > 0);
    expect(failures.slice(0, 3)).toEqual([]);
  });
});
