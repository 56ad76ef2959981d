/**
 * The one renderer of text buildbench did not write into GitHub Markdown: comments, pull request bodies and
 * titles, commit messages, check runs and job summaries. Repository and file names, log lines, step names and
 * anything read from a `result.json` or a model go through it, never into Markdown raw, so they cannot
 *
 * - notify anyone: `@user`, `@org/team`, `@@x`, `` `@x `` outside code, a mention after punctuation or after a
 *   full-width `＠` get a zero-width space after the `@` (the text reads the same; e-mail addresses are kept);
 * - leave a back-reference in an issue, pull request or commit: `#N`, `GH-N`, `owner/repo#N`, `owner/repo@sha`
 *   and github.com URLs are broken the same way;
 * - render HTML (`<img>`, `<details>`, a closing tag of buildbench's own markup, a forged
 *   `<!-- buildbench:… -->` marker): `<`, `>` and `&` are escaped;
 * - leave the place they were put: backticks, brackets, pipes, tildes and backslashes are escaped in prose,
 *   newlines are spaces in inline text, and code spans and fenced blocks take fences longer than any backtick
 *   run inside;
 * - hide text: C0/C1 control characters and the bidirectional overrides ("Trojan Source") are removed.
 *
 * Two ways in: the functions (`inline`, `prose`, `codeSpan`, `codeBlock`, `link`, `htmlText`, `plainText`) return
 * Markdown strings; the tag `md` escapes every interpolation as `inline` does unless it is already `Markdown` (made by
 * `md` itself, `md.code`, `md.block`, `md.link` or `md.trusted` for buildbench's own markup), so the safe way
 * is the short one: md`**Root cause** (turn ${rc.turn}): ${rc.message}`.text.
 */

/** C0/C1 control characters except tab and newline, DEL, and the bidi marks, overrides and isolates. */
const UNSAFE_CHARACTERS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const ZWSP = '\u200b';
const AT = '[@\uff20\ufe6b]';

/** What GitHub links or notifies; each gets a zero-width space after the character that starts it. */
const LIVE: readonly RegExp[] = [
  // A mention: `@name` unless a letter or digit comes before (an e-mail address). Markdown can end a text node
  // just before the `@` (`*a*@x`, `_a_@x`), so only a letter or digit counts.
  new RegExp(`(?<![A-Za-z0-9])${AT}(?=[A-Za-z0-9])`, 'g'),
  // `user@sha`, `owner/repo@sha`: a commit reference whatever comes before the `@`.
  new RegExp(`${AT}(?=[0-9A-Fa-f]{7,40}(?![0-9A-Za-z]))`, 'g'),
  // `#12`, `owner/repo#12` (and the full-width `＃`).
  /[#\uff03](?=\d)/g,
  // `GH-12`.
  /(?<![A-Za-z0-9])gh-(?=\d)/gi,
  // github.com URLs (of issues, pull requests, commits), with the dots a browser reads as one.
  /github(?=[.\u3002\uff0e\uff61]com)/gi,
];

/** Removes control and bidi-override characters (CR LF → LF). */
export function stripControl(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(UNSAFE_CHARACTERS, '');
}

/**
 * Mentions and references defused (no Markdown escaping): for text GitHub shows as it is but still links — a
 * pull request's title, a commit message — and the last step of `prose`. A text ending in `@`, `#` or `GH-`
 * gets a zero-width space too, so what follows it cannot complete a mention or a reference.
 */
function defuse(text: string): string {
  let out = text;
  for (const pattern of LIVE) out = out.replace(pattern, `$&${ZWSP}`);
  return /(?:[@\uff20\ufe6b#\uff03]|(?<![A-Za-z0-9])gh-)$/i.test(out) ? out + ZWSP : out;
}

/**
 * Untrusted text for a place GitHub shows as plain text but links (a title, a commit message); a character
 * reference (`&#64;`) is broken too, in case the place decodes it.
 */
export function plainText(text: string): string {
  return defuse(stripControl(text).replace(/&(?=#?[A-Za-z0-9]+;)/g, `&${ZWSP}`));
}

/** Untrusted text for a one-line title (a pull request's): plain text, newlines as spaces. */
export function plainTitle(text: string): string {
  return plainText(text).replace(/\s*\n\s*/g, ' ');
}

/**
 * Untrusted text as Markdown prose, lines kept: control characters removed, `&`, `<`, `>` as entities, the
 * Markdown characters that could open a code span or a fence, a link or an image, end a table cell or escape
 * buildbench's next character backslash-escaped, mentions and references defused. It reads the same.
 */
export function prose(text: string): string {
  return defuse(
    stripControl(text)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/[\\`[\]|~]/g, '\\$&'),
  );
}

/** Untrusted text as one line of Markdown prose (a heading, a sentence, a table cell, a link's text). */
export function inline(text: string): string {
  return prose(text.replace(/\s*[\r\n]+\s*/g, ' '));
}

/**
 * Untrusted text inside buildbench's own HTML (a `<summary>`, a `<code>` in one), where Markdown is not read:
 * one line, `&`, `<`, `>` and quotes as entities, mentions and references defused.
 */
export function htmlText(text: string): string {
  return defuse(
    stripControl(text)
      .replace(/\s*\n\s*/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;'),
  );
}

export interface CodeSpanOptions {
  /** In a table cell, where GFM splits the row at every pipe before it finds code spans. */
  inTable?: boolean;
}

/** Untrusted text as inline code on one line: a backtick run longer than any inside. */
export function codeSpan(text: string, options: CodeSpanOptions = {}): string {
  let flat = stripControl(text).replace(/\s*\n\s*/g, ' ');
  if (options.inTable) flat = flat.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Untrusted text as a fenced code block: a fence longer than any backtick run inside, so the text cannot end
 * the block early. Inside a code block mentions do not notify and HTML is shown, not rendered.
 */
export function codeBlock(text: string, language = ''): string {
  const body = stripControl(text).replace(/\n+$/, '');
  const longest = Math.max(2, ...[...body.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language.replace(/[^\w+-]/g, '')}\n${body}\n${fence}`;
}

/** A URL an untrusted source gave: kept when it is an https URL that references no issue, pull request or commit. */
export function safeUrl(url: string | undefined | null): string | undefined {
  if (!url || !/^https:\/\/[^\s<>()[\]"'`\\]+$/.test(url)) return undefined;
  if (/github[.\u3002\uff0e\uff61]com\/[^/]+\/[^/]+\/(?:issues|pulls?|commits?|discussions)\b/i.test(url))
    return undefined;
  return url;
}

/** A link whose text is untrusted; without a safe URL (`safeUrl`), the text alone. */
export function link(text: string, url: string | undefined | null): string {
  const target = safeUrl(url);
  return target ? `[${inline(text)}](${target})` : inline(text);
}

/** Markdown that is safe to put into a body as it is: buildbench's own markup, or untrusted text rendered. */
export class Markdown {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** A value for `md`: Markdown as it is, anything else as untrusted inline text. */
export type MarkdownValue = Markdown | string | number | boolean | null | undefined;

function piece(value: MarkdownValue): string {
  return value instanceof Markdown ? value.text : inline(String(value ?? ''));
}

/**
 * Markdown from a template: the literal parts are buildbench's own markup, every interpolation is rendered as
 * untrusted inline text (`inline`) unless it is Markdown already.
 */
export function md(strings: TemplateStringsArray, ...values: MarkdownValue[]): Markdown {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? '');
  });
  return new Markdown(out);
}

/** buildbench's own markup, written by its code and never built from untrusted text. */
md.trusted = (markup: string): Markdown => new Markdown(markup);
/** Untrusted text as Markdown prose, lines kept (`prose`). */
md.prose = (text: string): Markdown => new Markdown(prose(text));
/** Untrusted text as inline code (`codeSpan`). */
md.code = (text: string, options?: CodeSpanOptions): Markdown => new Markdown(codeSpan(text, options));
/** Untrusted text as a fenced code block (`codeBlock`). */
md.block = (text: string, language?: string): Markdown => new Markdown(codeBlock(text, language));
/** A link with untrusted text and URL (`link`). */
md.link = (text: string, url: string | undefined | null): Markdown => new Markdown(link(text, url));
/** Values joined by a separator, each rendered as in `md`. */
md.join = (values: readonly MarkdownValue[], separator: string): Markdown =>
  new Markdown(values.map(piece).join(separator));
