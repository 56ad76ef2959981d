/**
 * What GitHub would make live in a Markdown body it renders (a comment, a pull request body, a job summary),
 * for the tests of the renderer of untrusted text (src/report/github-text.ts). It implements GitHub's public
 * patterns, on the side of caution where they are not published:
 *
 * - mentions — html-pipeline's MentionFilter: `@user` and `@org/team` after the start of a text node or any
 *   non-word character. A word character before the `@` (an e-mail address) is no mention, but Markdown can
 *   end a text node between them (`*a*@x`, `_a_@x`), so only a letter or digit before it counts as safe here;
 *   the full-width `＠` and `﹫` are counted as well;
 * - references — the issue reference filter: `#N` (anywhere), `GH-N`, `owner/repo#N`, `user@sha` and
 *   `owner/repo@sha`, and URLs of issues, pull requests, commits and discussions on github.com;
 * - raw HTML — a tag, a closing tag, a comment, a declaration (`<img>`, `</details>`, `<!-- -->`), and
 *   buildbench's own markers (`<!-- buildbench:… -->`) as their own kind.
 *
 * Text in a code span or a fenced code block is inert (GitHub neither links nor renders there). The pipes of a
 * table row split it into cells before code spans are found, as GFM does, so a code span cannot hide a pipe.
 * Backslash escapes and character references are decoded before mentions and references are looked for
 * (`\@x` and `&#64;x` render as `@x`), not before HTML is (`&lt;img&gt;` is text).
 */

export type LiveKind = 'mention' | 'reference' | 'html' | 'marker';

export interface LiveFinding {
  kind: LiveKind;
  /** The live text as it stands in the body (a tag up to its `>`, a mention, a reference). */
  text: string;
  /** 1-based line of the body. */
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const PUNCTUATION = /[!-/:-@[-`{-~]/;

/** The body's lines with fenced code blocks blanked, and which lines are rows of a table. */
function proseLines(body: string): { text: string; tableRow: boolean }[] {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const out: { text: string; tableRow: boolean }[] = [];
  let fence: { char: string; length: number } | undefined;
  let inTable = false;
  for (const [i, line] of lines.entries()) {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close?.[1] && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
      out.push({ text: '', tableRow: false });
      continue;
    }
    const open = FENCE.exec(line);
    if (open?.[1] && !(open[1][0] === '`' && (open[2] ?? '').includes('`'))) {
      fence = { char: open[1][0]!, length: open[1].length };
      inTable = false;
      out.push({ text: '', tableRow: false });
      continue;
    }
    if (line.trim() === '') inTable = false;
    else if (!inTable && line.includes('|') && TABLE_DELIMITER.test(lines[i + 1] ?? '')) inTable = true;
    out.push({ text: line, tableRow: inTable });
  }
  return out;
}

/** A table row's cells: split at every pipe not escaped by a backslash (GFM does this before code spans). */
function cells(row: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < row.length; i += 1) {
    const c = row[i]!;
    if (c === '\\' && row[i + 1] === '|') {
      current += '|';
      i += 1;
    } else if (c === '|') {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/** Text with its code spans blanked (CommonMark: a run of n backticks up to the next run of exactly n). */
function withoutCodeSpans(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && PUNCTUATION.test(text[i + 1]!)) {
      out += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c !== '`') {
      out += c;
      i += 1;
      continue;
    }
    let n = 0;
    while (text[i + n] === '`') n += 1;
    let close = -1;
    for (let j = i + n; j < text.length;) {
      if (text[j] !== '`') {
        j += 1;
        continue;
      }
      let m = 0;
      while (text[j + m] === '`') m += 1;
      if (m === n) {
        close = j;
        break;
      }
      j += m;
    }
    if (close < 0) {
      out += '`'.repeat(n);
      i += n;
    } else {
      out += ' '.repeat(close + n - i);
      i = close + n;
    }
  }
  return out;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  commat: '@',
  num: '#',
  sol: '/',
};

/** Backslash escapes and character references decoded, in one pass, as CommonMark reads them. */
function decoded(text: string): string {
  return text.replace(
    /\\([!-/:-@[-`{-~])|&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g,
    (whole, escaped: string | undefined, entity: string | undefined) => {
      if (escaped !== undefined) return escaped;
      if (!entity) return whole;
      if (entity.startsWith('#')) {
        const code =
          entity[1] === 'x' || entity[1] === 'X'
            ? parseInt(entity.slice(2), 16)
            : parseInt(entity.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
      }
      return NAMED[entity] ?? whole;
    },
  );
}

const HTML = /<(?:!--[\s\S]*?(?:-->|$)|[A-Za-z/!?][^<>]{0,80}>?)/g;
const MARKER = /^<!--\s*buildbench/i;
const MENTION = /(?<![A-Za-z0-9])[@＠﹫][A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][\w-]*)?/g;
const REFERENCES: readonly RegExp[] = [
  /[#＃]\d+/g,
  /(?<![A-Za-z0-9])GH-\d+/gi,
  /(?<=[\w.-])[@＠﹫][0-9a-f]{7,40}(?![0-9a-z])/gi,
  /github[.。．｡]com\/[^\s/]+\/[^\s/]+\/(?:issues|pulls?|commits?|discussions)\b/gi,
];

function scan(prose: string, line: number, into: LiveFinding[]): void {
  for (const m of prose.matchAll(HTML))
    into.push({ kind: MARKER.test(m[0]) ? 'marker' : 'html', text: m[0], line });
  const text = decoded(prose);
  for (const m of text.matchAll(MENTION)) into.push({ kind: 'mention', text: m[0], line });
  for (const pattern of REFERENCES)
    for (const m of text.matchAll(pattern)) into.push({ kind: 'reference', text: m[0], line });
}

/** Everything GitHub would make live in `body`, in order of lines. */
export function findLive(body: string): LiveFinding[] {
  const found: LiveFinding[] = [];
  for (const [i, { text, tableRow }] of proseLines(body).entries()) {
    if (!text) continue;
    const parts = tableRow ? cells(text) : [text];
    for (const part of parts) scan(withoutCodeSpans(part), i + 1, found);
  }
  return found;
}

/**
 * What is live in `body` beyond what buildbench wrote itself: `own` lists the texts of the findings its own
 * markup makes (its marker, each `<details>` and `</details>` it opens and closes, a pull request's URL), once
 * per occurrence; every other finding — one more `</details>`, a second marker — is returned.
 */
export function liveBeyond(body: string, own: readonly string[] = []): LiveFinding[] {
  const left = [...own];
  return findLive(body).filter((f) => {
    const at = left.indexOf(f.text);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}
