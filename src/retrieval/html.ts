/**
 * A small HTML → text converter for documentation pages: drops scripts, styles and page chrome, keeps
 * headings (`#`), list items (`-`), preformatted blocks (fenced) and links as `[text](absolute-url)` so that
 * retrieval can follow them. Not a full HTML parser: good enough for docs sites, never throws.
 */

const DROP = /<(script|style|noscript|svg|template|iframe|head|nav|footer)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const COMMENT = /<!--[\s\S]*?-->/g;

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  laquo: '«',
  raquo: '»',
  copy: '©',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED[body.toLowerCase()] ?? match;
  });
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

function absolute(href: string, base: string | undefined): string | undefined {
  try {
    return base ? new URL(href, base).href : new URL(href).href;
  } catch {
    return undefined;
  }
}

/** Converts an HTML page to plain text with Markdown-ish structure; `baseUrl` resolves relative links. */
export function htmlToText(html: string, baseUrl?: string): string {
  let s = html.replace(COMMENT, '').replace(DROP, ' ');
  // Prefer the main content when the page marks it.
  const main = /<(main|article)\b[^>]*>([\s\S]*?)<\/\1\s*>/i.exec(s);
  if (main && main[2]!.replace(/<[^>]+>/g, '').trim().length > 200) s = main[2]!;

  // Preformatted blocks keep their whitespace: cut them out first, put them back at the end.
  const blocks: string[] = [];
  s = s.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_m, body: string) => {
    const code = decodeEntities(body.replace(/<br\s*\/?>/gi, '\n').replace(/<[^>]+>/g, ''));
    blocks.push('\n```\n' + code.replace(/^\n+|\s+$/g, '') + '\n```\n');
    return `\u0000${blocks.length - 1}\u0000`;
  });

  s = s.replace(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi, (_m, attrs: string, body: string) => {
    const text = body
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    const href = attr(attrs, 'href');
    if (!href || href.startsWith('#') || /^(?:javascript|mailto|data):/i.test(href)) return text;
    const url = absolute(decodeEntities(href), baseUrl);
    if (!url) return text;
    return text ? `[${text}](${url})` : url;
  });
  s = s.replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_m, level: string, body: string) => {
    return `\n\n${'#'.repeat(Number(level))} ${body
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim()}\n\n`;
  });
  s = s.replace(
    /<code\b[^>]*>([\s\S]*?)<\/code\s*>/gi,
    (_m, body: string) => '`' + body.replace(/<[^>]+>/g, '') + '`',
  );
  s = s
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(
      /<\/?(?:p|div|section|ul|ol|table|tr|blockquote|dl|dt|dd|header|aside|figure|form|hr)\b[^>]*>/gi,
      '\n',
    )
    .replace(/<\/?(?:td|th)\b[^>]*>/gi, ' | ')
    .replace(/<[^>]+>/g, '');
  s = decodeEntities(s);
  s = s
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
  // eslint-disable-next-line no-control-regex
  s = s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => blocks[Number(i)] ?? '');
  return s.trim() + '\n';
}
