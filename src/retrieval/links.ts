/** Links in documentation text: Markdown, reStructuredText, HTML and bare URLs; ranked docs-first. */

import path from 'node:path';

/** A link as found in a document, resolved to a repository path or an absolute URL. */
export interface DocLink {
  /** As written in the document (fragment included). */
  written: string;
  kind: 'file' | 'url';
  /** Repository-relative path ('/'-separated, no fragment) or absolute http(s) URL (no fragment). */
  target: string;
  /** Link text, when the syntax has one. */
  text?: string;
}

const IMAGE = /\.(?:png|jpe?g|gif|svg|ico|webp|bmp)(?:[?#].*)?$/i;
const ARCHIVE = /\.(?:zip|tar|gz|tgz|bz2|xz|7z|rar|deb|rpm|exe|msi|dmg|pkg|whl|jar)(?:[?#].*)?$/i;
const BADGE_HOSTS =
  /(?:^|\.)(?:shields\.io|badge\.fury\.io|badgen\.net|codecov\.io|coveralls\.io|travis-ci\.(?:org|com)|circleci\.com|ci\.appveyor\.com|app\.codacy\.com|sonarcloud\.io|bestpractices\.coreinfrastructure\.org|scan\.coverity\.com|gitter\.im|discord\.gg|discord\.com|twitter\.com|x\.com|linkedin\.com|youtube\.com|facebook\.com|zenodo\.org|doi\.org|opencollective\.com|paypal\.com|patreon\.com|liberapay\.com)$/i;

/** True for links that never hold build instructions: images, badges, archives, social sites, mail. */
export function isNoiseLink(target: string): boolean {
  if (IMAGE.test(target) || ARCHIVE.test(target)) return true;
  if (/^(?:mailto|javascript|data|tel|ftp):/i.test(target)) return true;
  if (/^https?:/i.test(target)) {
    try {
      const url = new URL(target);
      if (BADGE_HOSTS.test(url.hostname)) return true;
      if (/\/badge(?:\.svg)?$|\/actions\/workflows\/.*\/badge/i.test(url.pathname)) return true;
      if (
        /^(?:github\.com)$/i.test(url.hostname) &&
        /\/(?:issues|pulls|releases|stargazers|network|graphs|discussions|sponsors|actions|workflows)(?:\/|$)/.test(
          url.pathname,
        )
      )
        return true;
    } catch {
      return true;
    }
  }
  return false;
}

const TRAILING = /[.,;:!?'")\]}>*_]+$/;

function rawLinks(text: string): { written: string; text?: string }[] {
  const out: { written: string; text?: string }[] = [];
  // Markdown inline links and images: [text](target "title"); images are dropped below by extension or `!`.
  for (const m of text.matchAll(/(!?)\[([^\]\n]{0,200})\]\(\s*<?([^)\s>]+)>?(?:\s+["'][^)]*["'])?\s*\)/g)) {
    if (m[1] === '!') continue;
    out.push({ written: m[3]!, text: m[2]!.trim() || undefined });
  }
  // Markdown reference definitions: [id]: target
  for (const m of text.matchAll(/^[ \t]{0,3}\[([^\]\n]+)\]:[ \t]*<?(\S+?)>?(?:[ \t]+["'(].*)?$/gm)) {
    out.push({ written: m[2]!, text: m[1]!.trim() });
  }
  // reStructuredText: `text <target>`_ and .. _name: target
  for (const m of text.matchAll(/`([^`<\n]*)<([^>\s]+)>`__?/g))
    out.push({ written: m[2]!, text: m[1]!.trim() || undefined });
  for (const m of text.matchAll(/^\.\.[ \t]+_([^:\n]+):[ \t]*(\S+)[ \t]*$/gm))
    out.push({ written: m[2]!, text: m[1]!.trim() });
  // HTML anchors.
  for (const m of text.matchAll(/<a\s[^>]*?href\s*=\s*["']([^"']+)["'][^>]*>([\s\S]{0,200}?)<\/a>/gi)) {
    out.push({ written: m[1]!, text: m[2]!.replace(/<[^>]+>/g, '').trim() || undefined });
  }
  // Bare URLs.
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s<>"'`()[\]{}|\\^]+/g))
    out.push({ written: m[0].replace(TRAILING, '') });
  return out;
}

/**
 * Links in a document. `from` is where the document lives: a repository path (relative links resolve against
 * its directory; absolute paths against the root) or a page URL.
 */
export function extractLinks(text: string, from: { path: string } | { url: string }): DocLink[] {
  const seen = new Set<string>();
  const links: DocLink[] = [];
  for (const raw of rawLinks(text)) {
    const written = raw.written.trim();
    if (written === '' || written.startsWith('#') || isNoiseLink(written)) continue;
    const link = resolveLink(written, from);
    if (!link || isNoiseLink(link.target) || seen.has(`${link.kind}:${link.target}`)) continue;
    seen.add(`${link.kind}:${link.target}`);
    links.push({ ...link, text: raw.text });
  }
  return links;
}

/** Resolves one link target against the document it was found in; undefined when it leads nowhere useful. */
export function resolveLink(written: string, from: { path: string } | { url: string }): DocLink | undefined {
  if (/^https?:\/\//i.test(written)) {
    try {
      const url = new URL(written);
      url.hash = '';
      return { written, kind: 'url', target: url.href };
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(written)) return undefined;
  if ('url' in from) {
    try {
      const url = new URL(written, from.url);
      url.hash = '';
      return url.protocol === 'http:' || url.protocol === 'https:'
        ? { written, kind: 'url', target: url.href }
        : undefined;
    } catch {
      return undefined;
    }
  }
  const bare = written.replace(/[?#].*$/, '');
  if (bare === '') return undefined;
  let decoded = bare;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    // keep as written
  }
  const joined = decoded.startsWith('/')
    ? decoded.slice(1)
    : path.posix.join(path.posix.dirname(from.path), decoded);
  const normal = path.posix.normalize(joined).replace(/\/+$/, '');
  if (normal === '' || normal === '.' || normal.startsWith('..')) return undefined;
  return { written, kind: 'file', target: normal };
}

/**
 * A repository file addressed by a GitHub URL of the same repository (`github.com/<owner>/<name>/blob/<ref>/<path>`,
 * `raw.githubusercontent.com/<owner>/<name>/<ref>/<path>`): its path, so it can be read from the checkout.
 */
export function githubRepoPath(url: string, repoName: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const parts = u.pathname.split('/').filter((p) => p !== '');
  const name = repoName.toLowerCase();
  if (
    u.hostname === 'github.com' &&
    parts.length >= 5 &&
    (parts[2] === 'blob' || parts[2] === 'tree' || parts[2] === 'raw')
  ) {
    return parts[1]!.toLowerCase().replace(/\.git$/, '') === name
      ? decodeURIComponent(parts.slice(4).join('/'))
      : undefined;
  }
  if (u.hostname === 'raw.githubusercontent.com' && parts.length >= 4) {
    return parts[1]!.toLowerCase() === name ? decodeURIComponent(parts.slice(3).join('/')) : undefined;
  }
  return undefined;
}

const DOC_WORDS =
  /build|install|compil|getting[-_ ]?started|quick[-_ ]?start|from[-_ ]?source|setup|prereq|depend|requirement|how[-_ ]?to|guide|manual|docs?\b|documentation|wiki/i;
const SCRIPT_FILE =
  /(?:^|\/)(?:CMakeLists\.txt|Makefile(?:\.\w+)?|GNUmakefile|configure(?:\.ac|\.in)?|meson\.build|SConstruct|BUILD(?:\.bazel)?|WORKSPACE|[^/]+\.(?:sh|bash|cmake|mk|py|pl|yml|yaml|json|toml|bat|ps1|c|cc|cpp|h|hpp))$/i;
const DOC_FILE = /\.(?:md|markdown|rst|txt|adoc|asciidoc|org|html?)$|(?:^|\/)[A-Z][A-Z0-9_-]*$/;

/**
 * How promising a link is for build instructions: documentation over build scripts, build-related names and
 * texts first. Higher is better; negative means "only if nothing else".
 */
export function linkScore(link: DocLink): number {
  const subject = `${link.target} ${link.text ?? ''}`;
  let score = 0;
  if (DOC_WORDS.test(subject)) score += 3;
  if (link.kind === 'file') {
    if (SCRIPT_FILE.test(link.target)) score -= 3;
    else if (DOC_FILE.test(link.target)) score += 2;
  } else {
    if (/readthedocs|\/docs?\/|\/wiki|\/manual|\/guide/i.test(link.target)) score += 2;
    if (/github\.com\/[^/]+\/[^/]+\/?$/.test(link.target)) score -= 2;
  }
  if (/licen[cs]e|contribut|code[-_ ]of[-_ ]conduct|changelog|news|authors|citation|security/i.test(subject))
    score -= 4;
  return score;
}

/** Links sorted most promising first (stable for equal scores). */
export function rankLinks(links: readonly DocLink[]): DocLink[] {
  return links
    .map((link, i) => ({ link, i, score: linkScore(link) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.link);
}
