/** Documentation files likely to hold build instructions, ranked. */

import { baseOf, depthOf, dirOf, isVendoredPath } from './paths.js';
import type { DocFile } from './types.js';
import { mapLimit } from '../base/concurrency.js';
import { readSmallText } from './walk.js';

const DOC_EXTENSIONS = new Set([
  '',
  '.md',
  '.markdown',
  '.mdown',
  '.txt',
  '.rst',
  '.adoc',
  '.asciidoc',
  '.org',
  '.text',
]);
/** Names like README.sh or install.py are code, not documents. */
const NON_DOC_EXTENSIONS = new Set(
  '.c .cc .cpp .cxx .h .hh .hpp .py .pl .rb .js .ts .sh .bash .bat .cmd .ps1 .cmake .json .yml .yaml .xml .toml .ini .cfg .conf .in .am .ac .m4 .mk .mak .ninja .bazel .bzl .gn .gni .pro .pri .lock .png .jpg .jpeg .gif .svg .ico .pdf .zip .gz .o .a .so'.split(
    ' ',
  ),
);
const DOC_DIRS = new Set(['doc', 'docs', 'documentation', 'Documentation', 'manual', 'wiki']);

interface NameRule {
  re: RegExp;
  score: number;
  why: string;
}

/** Matched against the file name without its extension. */
const NAME_RULES: readonly NameRule[] = [
  {
    re: /^(?:build(?:ing)?|build[-_.]?instructions|compiling|compile|compilation)\b/i,
    score: 6,
    why: 'build doc',
  },
  { re: /^install(?:ing|ation)?\b/i, score: 6, why: 'install doc' },
  { re: /^readme\b/i, score: 4, why: 'README' },
  { re: /^(?:hacking|contributing|developing|development)\b/i, score: 2, why: 'developer doc' },
];

/** In a documentation directory, names that mention building or installing. */
const DOCS_DIR_NAME = /build|install|compil|getting[-_ ]?started|quick[-_ ]?start|setup/i;

interface Keyword {
  re: RegExp;
  label: string;
  weight: number;
}

const KEYWORDS: readonly Keyword[] = [
  { re: /\bcmake\b/i, label: 'cmake', weight: 1 },
  {
    re: /(?:^\s*(?:\$\s*)?|`|&&\s*)make\b|\bmake\s+(?:-j|-C\s|install\b|all\b|check\b|clean\b)/m,
    label: 'make',
    weight: 1,
  },
  { re: /\.\/configure\b|\bautoreconf\b|\bautogen\.sh\b/, label: 'configure', weight: 1 },
  { re: /\bmeson\b|\bninja\b/i, label: 'meson/ninja', weight: 1 },
  {
    re: /\b(?:apt-get|apt|yum|dnf|zypper|pacman|apk|brew)\s+(?:-\S+\s+)*(?:install|add|-S)\b/,
    label: 'package install',
    weight: 2,
  },
  { re: /\bbuild(?:ing)?\b/i, label: 'build', weight: 1 },
  { re: /\bcompil(?:e|ing|ation|er)\b/i, label: 'compile', weight: 1 },
  { re: /\b(?:dependencies|prerequisites|requirements)\b/i, label: 'dependencies', weight: 1 },
  {
    // A Markdown heading, or a setext/reStructuredText title underlined with = - ~ ^.
    re: /^#{1,6}\s*(?:\d+\.?\s*)?(?:build|compil|install|how to build|from source|getting started|quick ?start)|^(?:\d+\.?\s*)?(?:build|compil|install|how to build|from source|getting started)[^\n]*\n[=\-~^]{3,}[ \t]*$/im,
    label: 'build section',
    weight: 2,
  },
];

const GENERIC_GNU_INSTALL =
  /These are generic installation instructions|Basic Installation\s*\n\s*=+\s*\n\s*Briefly, the shell command/;

export interface FindDocsOptions {
  /** At most this many docs are returned (default 20). */
  limit?: number;
}

/**
 * Ranks README*, INSTALL*, BUILDING*, COMPILING*, HACKING/CONTRIBUTING and build/install pages under
 * doc(s)/ by name, place and build keywords in their first 64 KiB. A README below the root is kept
 * only when it mentions building.
 */
export async function findDocs(
  root: string,
  files: readonly string[],
  options: FindDocsOptions = {},
): Promise<DocFile[]> {
  interface Pending {
    path: string;
    score: number;
    why: string[];
    nested: boolean;
  }
  const pending: Pending[] = [];
  for (const file of files) {
    const base = baseOf(file);
    const ext = extensionOf(base);
    if (NON_DOC_EXTENSIONS.has(ext.toLowerCase())) continue;
    // `INSTALL.unix` or `README.linux` are documents; `build-tools.tcl` is not.
    const docLike =
      DOC_EXTENSIONS.has(ext.toLowerCase()) || /^[A-Z]+$/.test(base.slice(0, base.indexOf('.')));
    if (isVendoredPath(file)) continue;
    const stem = ext === '' ? base : base.slice(0, -ext.length);
    const dir = dirOf(file);
    const depth = depthOf(file);
    const rule = NAME_RULES.find((r) => r.re.test(stem));
    const inDocsDir = dir.split('/').some((part) => DOC_DIRS.has(part));
    // A bare `BUILD` file is a Bazel build file, not a document.
    if (rule && docLike && !(stem === base && /^build$/i.test(base))) {
      if (depth > 3) continue;
      const where = depth === 0 ? 'at the root' : `in ${dir}/`;
      pending.push({
        path: file,
        score: rule.score + (depth === 0 ? 2 : depth === 1 ? 1 : 0) + (inDocsDir ? 1 : 0),
        why: [`${rule.why} ${where}`],
        nested: depth > 0 && rule.why === 'README' && !inDocsDir,
      });
    } else if (inDocsDir && DOC_EXTENSIONS.has(ext.toLowerCase()) && DOCS_DIR_NAME.test(stem) && depth <= 4) {
      pending.push({
        path: file,
        score: 5 - Math.max(0, depth - 1),
        why: [`doc page named "${base}" in ${dir}/`],
        nested: false,
      });
    }
  }

  const scored = await mapLimit(pending, 16, async (doc): Promise<DocFile | undefined> => {
    const text = await readSmallText(root, doc.path, { maxBytes: 64 * 1024 });
    if (text === undefined)
      return { path: doc.path, score: doc.score - 2, why: `${doc.why.join('; ')}; unreadable or binary` };
    const hits = KEYWORDS.filter((k) => k.re.test(text));
    if (doc.nested && hits.length === 0) return undefined;
    let score = doc.score + hits.reduce((sum, k) => sum + k.weight, 0);
    const why = [...doc.why];
    if (hits.length > 0) why.push(`mentions ${hits.map((k) => k.label).join(', ')}`);
    else why.push('no build keywords');
    if (GENERIC_GNU_INSTALL.test(text)) {
      score -= 4;
      why.push('generic GNU INSTALL text');
    }
    if (text.trim() === '') {
      score -= 3;
      why.push('empty');
    }
    return { path: doc.path, score, why: why.join('; ') };
  });

  return scored
    .filter((d): d is DocFile => d !== undefined)
    .sort((a, b) => b.score - a.score || depthOf(a.path) - depthOf(b.path) || (a.path < b.path ? -1 : 1))
    .slice(0, options.limit ?? 20);
}

function extensionOf(base: string): string {
  const i = base.lastIndexOf('.');
  return i <= 0 ? '' : base.slice(i);
}
