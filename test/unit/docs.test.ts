/**
 * The README and docs/ (issue 33): the README is a start, short, with the Action's `uses:` block on its first
 * screen and the test command CI runs; the reference it used to hold lives in docs/ and nothing was lost (every
 * heading of the old README is a heading of the README or of a docs page); every relative link in them leads to
 * a file, and every anchor to a heading of that file as GitHub names it.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

/** The README and every page under docs/, as repository-relative paths. */
const DOCS = readdirSync(path.join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);
const PAGES = ['README.md', ...DOCS];

/**
 * The `##` (and deeper) headings of the README before it was split (issue 33), one per line as they were: each
 * must still be a heading, at any level, in the README or a docs page.
 */
const OLD_README_HEADINGS = [
  'Quick start',
  'CLI reference',
  'How the rules strategy keeps trying',
  'With a model',
  'What counts as success',
  'Verifying an existing build',
  'Sandboxes',
  'Proxies, TLS interception and the egress allowlist',
  'Deploying a research artifact',
  'GPU tasks',
  'Benchmarks',
  'GitHub Action',
  'First workflow',
  'Inputs',
  'Outputs',
  'Permissions',
  'Pull requests',
  'Cache',
  'Runners',
  'KVM runners (QEMU guests)',
  'Benchmarks on GitHub Actions',
  'Releases',
  'GitHub App',
  'Set it up',
  'Configuration: `.github/buildbench.yml`',
  'Running it',
  'Local development',
  'Security',
  'Development',
  'Architecture',
];

/** The README's limits (issue 33): its length, and where the Action's `uses:` block must be. */
const README_MAX_LINES = 250;
const FIRST_SCREEN_LINES = 80;

// ---------------------------------------------------------------------------------------------------------
// Markdown, as far as these checks need it

interface Line {
  text: string;
  /** 1-based. */
  number: number;
}

/** The lines outside fenced code blocks (``` or ~~~, indented or not). */
function proseLines(markdown: string): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      fence = marker;
      return;
    }
    out.push({ text, number: i + 1 });
  });
  return out;
}

/** The ATX headings' texts (`## Inputs` → `Inputs`), outside code blocks. */
function headings(markdown: string): string[] {
  return proseLines(markdown).flatMap(({ text }) => {
    const m = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text);
    return m?.[1] === undefined ? [] : [m[1]];
  });
}

/**
 * The anchor GitHub gives a heading: the rendered text (code spans' backticks, links' targets and emphasis
 * markers gone; `_` is kept, as GitHub keeps it), lower-cased, every character that is not a letter, a number, a mark, a connector (`_`), a
 * space or a hyphen dropped, each space a hyphen; a repeated anchor gets `-1`, `-2`, … in order.
 */
function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*?)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/<[^>]*>/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings give, duplicates numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const heading of headings(markdown)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  target: string;
  line: number;
}

/**
 * The link targets of a page, outside code blocks and code spans: inline links and images (`[text](target)`,
 * with an optional title) and reference definitions (`[name]: target`).
 */
function links(markdown: string): Link[] {
  const out: Link[] = [];
  for (const { text, number } of proseLines(markdown)) {
    const definition = /^ {0,3}\[[^\]]+\]:[ \t]+<?([^\s>]+)>?/.exec(text);
    if (definition?.[1] !== undefined) out.push({ target: definition[1], line: number });
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const m of outsideCode.matchAll(/\]\(<?([^\s)>]+)>?(?:[ \t]+"[^"]*")?\)/g))
      if (m[1] !== undefined) out.push({ target: m[1], line: number });
  }
  return out;
}

/** A relative link's problem, or undefined when it resolves: a file (or folder) there, and its anchor a heading. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: — not ours to check here
  const hash = target.indexOf('#');
  const file = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
  if (resolved.startsWith('..') || path.posix.isAbsolute(resolved))
    return `${target}: outside the repository`;
  if (!existsSync(path.join(root, resolved))) return `${target}: no file ${resolved}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return `${target}: an anchor into a file that is not markdown`;
  return anchors(read(resolved)).has(anchor) ? undefined : `${target}: ${resolved} has no heading #${anchor}`;
}

// ---------------------------------------------------------------------------------------------------------

describe('the markdown helpers', () => {
  it('name anchors as GitHub does', () => {
    expect(slug('KVM runners (QEMU guests)')).toBe('kvm-runners-qemu-guests');
    expect(slug('Configuration: `.github/buildbench.yml`')).toBe('configuration-githubbuildbenchyml');
    expect(slug('2. Run the bot (development: smee)')).toBe('2-run-the-bot-development-smee');
    expect(slug('Proxies, TLS interception and the egress allowlist')).toBe(
      'proxies-tls-interception-and-the-egress-allowlist',
    );
    expect(slug('**Bold** and [a link](x.md) — with_underscore')).toBe('bold-and-a-link--with_underscore');
    expect([...anchors('# A\n## A\n```\n# A\n```\n### A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('find links outside code only, and say which are broken', () => {
    const page =
      'x [a](docs/cli.md#secrets) `[b](nowhere.md)` ![c](LICENSE "t")\n```\n[d](gone.md)\n```\n[e]: docs/x.md\n';
    expect(links(page).map((l) => l.target)).toEqual(['docs/cli.md#secrets', 'LICENSE', 'docs/x.md']);
    expect(brokenLink('README.md', 'docs/cli.md#secrets')).toBeUndefined();
    expect(brokenLink('README.md', 'docs/cli.md#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink('docs/cli.md', 'cli.md')).toBeUndefined();
    expect(brokenLink('docs/cli.md', '../nowhere.md')).toMatch(/no file nowhere\.md/);
    expect(brokenLink('README.md', '../outside.md')).toMatch(/outside the repository/);
    expect(brokenLink('README.md', 'https://example.com/x#y')).toBeUndefined();
  });
});

describe('the README', () => {
  const readme = read('README.md');
  const lines = readme.split('\n');

  it(`is at most ${README_MAX_LINES} lines`, () => {
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it(`shows the Action's uses: block with its permissions in its first ${FIRST_SCREEN_LINES} lines`, () => {
    const firstScreen = lines.slice(0, FIRST_SCREEN_LINES).join('\n');
    const block = /^```yaml\n([\s\S]*?)^```$/m.exec(firstScreen)?.[1];
    expect(block).toBeDefined();
    const workflow = parse(block ?? '') as {
      permissions?: Record<string, string>;
      jobs?: Record<string, { steps?: { uses?: string }[] }>;
    };
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const uses = Object.values(workflow.jobs ?? {}).flatMap((job) => (job.steps ?? []).map((s) => s.uses));
    expect(uses).toContain('buildbench/agent@v1');
    // The pins are the example's (workflows.test.ts checks those), so the two cannot drift apart.
    const example = read('examples/workflows/build.yml');
    for (const use of uses) if (use !== undefined) expect(example).toContain(`uses: ${use}`);
    // Honest about @v1: one line beside the block says when it resolves and what to use until then.
    expect(firstScreen).toMatch(
      /`@v1` resolves once the maintainers push `v1\.0\.0`; until then .*`buildbench\/agent@main`/,
    );
  });

  it('names the test command .ci/run runs', () => {
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm test\b/m);
    const shellBlocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
    expect(shellBlocks.some((block) => /^npm test\b/m.test(block))).toBe(true);
  });

  it('runs the bundled example in its quick start, and the example is there', () => {
    expect(readme).toMatch(/^npx buildbench build examples\/hello\b/m);
    expect(existsSync(path.join(root, 'examples/hello'))).toBe(true);
  });

  it('links every page of docs/', () => {
    const linked = new Set(links(readme).map((l) => l.target.split('#')[0]));
    for (const page of DOCS) expect([page, linked.has(page)]).toEqual([page, true]);
  });
});

describe('README.md and docs/ together', () => {
  const pageHeadings = new Set(PAGES.flatMap((page) => headings(read(page))));

  it('keep every heading of the old README as a heading somewhere (nothing lost)', () => {
    const missing = OLD_README_HEADINGS.filter((heading) => !pageHeadings.has(heading));
    expect(missing).toEqual([]);
  });

  it('keep their prose wrapped for reading (120 characters; tables, code and bare URLs aside)', () => {
    const long = PAGES.flatMap((page) =>
      proseLines(read(page))
        .filter(({ text }) => text.length > 120 && !text.startsWith('|') && !/^\S*https?:\/\/\S*$/.test(text))
        .map(({ number }) => `${page}:${number}`),
    );
    expect(long).toEqual([]);
  });

  it('have only relative links that resolve, anchors included', () => {
    const broken = PAGES.flatMap((page) =>
      links(read(page)).flatMap(({ target, line }) => {
        const problem = brokenLink(page, target);
        return problem === undefined ? [] : [`${page}:${line}: ${problem}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});
