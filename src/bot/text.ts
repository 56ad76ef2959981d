/**
 * What the bot writes back into issues and pull requests. Every string in a comment that came from a user,
 * a CI log or a repository is untrusted: it goes through `neutralise` (prose) or `codeSpan`/`codeBlock`
 * (verbatim text), so it cannot ping people, forge the bot's hidden markers, close a `<details>` block the
 * bot opened, or hide text with control and bidirectional-override characters.
 */

/** C0/C1 control characters except tab and newline, DEL, and the bidi overrides/isolates ("Trojan Source"). */
const UNSAFE_CHARACTERS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const ZWSP = '\u200b';

/** `@user`, `@org/team` — GitHub notifies them; a zero-width space after the `@` keeps the text, not the ping. */
const MENTION = /(^|[^\w`@])@([A-Za-z0-9][A-Za-z0-9-]*)/g;
/** `owner/repo#12` and `owner/repo@sha` would leave a back-reference in another repository's issue. */
const CROSS_REFERENCE = /\b([A-Za-z0-9][\w.-]*\/[\w.-]+)([#@])(\w)/g;

/** Removes control characters (CR LF → LF). */
export function stripControl(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(UNSAFE_CHARACTERS, '');
}

/**
 * Untrusted text as Markdown prose: control characters removed, mentions and cross-repository references
 * defused, and `<`, `>`, `&` escaped so no HTML (a comment such as the bot's own `<!-- buildbench:… -->`
 * marker, a `</details>` closing the bot's block, an `<img>`) survives. What it shows reads the same.
 */
export function neutralise(text: string): string {
  return stripControl(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(MENTION, `$1@${ZWSP}$2`)
    .replace(CROSS_REFERENCE, `$1$2${ZWSP}$3`);
}

/** One line of untrusted text as inline code: a backtick run longer than any inside, on one line. */
export function codeSpan(text: string): string {
  const flat = stripControl(text).replace(/\n/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Untrusted text as a fenced code block: a fence longer than any backtick run inside, so the text cannot
 * end the block early. Inside a code block mentions do not notify and HTML is shown, not rendered.
 */
export function codeBlock(text: string, language = ''): string {
  const body = stripControl(text).replace(/\n+$/, '');
  const longest = Math.max(2, ...[...body.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language.replace(/[^\w+-]/g, '')}\n${body}\n${fence}`;
}
