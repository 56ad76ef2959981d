/**
 * BUILD-BENCH's LLM-assisted retrieval: start from the README, distill build instructions, judge whether they
 * are sufficient, and if not follow at most `maxLinks` promising links (repository files or web pages) per
 * round, at most `maxRounds` rounds, refining each time. Without a model: the build sections of the ranked doc
 * files. Every source visited is recorded; a page that cannot be fetched is recorded and retrieval goes on.
 */
import { CancelledError, errorMessage } from '../base/errors.js';
import { renderPrompt, quoteUntrusted, type RenderOptions } from '../llm/prompts.js';
import { askForTool } from '../llm/tool-call.js';
import type { LlmProvider, ToolSpec } from '../llm/types.js';
import type { RepoInfo } from '../repo/types.js';
import { extractLinks, githubRepoPath, rankLinks, resolveLink, type DocLink } from './links.js';
import { buildSections, condense, mentionsBuildCommands } from './sections.js';
import { fetchPage, readRepoDoc, type DocText } from './sources.js';
import type { RetrievalResult, RetrievalSource } from './types.js';

export interface RetrieveOptions {
  /** The model; without one, retrieval is offline. */
  provider?: LlmProvider;
  /** Link-following rounds after the README (default 3). */
  maxRounds?: number;
  /** Links followed per round (default 3). */
  maxLinks?: number;
  /** For pages (default: global fetch). */
  fetch?: typeof fetch;
  /** Per page (default 15 s). */
  pageTimeoutMs?: number;
  signal?: AbortSignal;
  /** Cap on the instructions returned (default 8000 characters). */
  maxInstructionChars?: number;
  /** Reply cap of each model call (default 2000 tokens). */
  maxTokens?: number;
  prompts?: RenderOptions;
}

const README_CHARS = 16_000;
const DOC_CHARS = 8_000;
const LINKS_LISTED = 25;

export const REPORT_TOOL: ToolSpec = {
  name: 'report_instructions',
  description:
    'Report the build-from-source instructions distilled so far, whether they suffice, and the links to read next.',
  parameters: {
    type: 'object',
    properties: {
      instructions: {
        type: 'string',
        description:
          'Step-by-step build-from-source instructions for Linux: dependencies (Debian/Ubuntu packages), configuration, build commands.',
      },
      sufficient: {
        type: 'boolean',
        description: 'True when these instructions are enough to build the project.',
      },
      links: {
        type: 'array',
        items: { type: 'string' },
        description:
          'At most 3 repository paths or http(s) URLs from the text that most likely hold missing instructions; empty when sufficient.',
      },
    },
    required: ['instructions', 'sufficient', 'links'],
  },
};

interface Report {
  instructions: string;
  sufficient: boolean;
  links: string[];
}

function parseReport(
  _name: string,
  args: Record<string, unknown>,
): { ok: true; value: Report } | { ok: false; problem: string } {
  const { instructions, sufficient, links } = args;
  if (typeof instructions !== 'string') return { ok: false, problem: '`instructions` must be a string' };
  const suff =
    typeof sufficient === 'boolean'
      ? sufficient
      : sufficient === 'true'
        ? true
        : sufficient === 'false'
          ? false
          : undefined;
  if (suff === undefined) return { ok: false, problem: '`sufficient` must be true or false' };
  const list = links === undefined || links === null ? [] : links;
  if (!Array.isArray(list) || !list.every((l) => typeof l === 'string'))
    return { ok: false, problem: '`links` must be an array of strings' };
  return { ok: true, value: { instructions: instructions.trim(), sufficient: suff, links: list } };
}

/** The README to start from: a README at the root, else the best-ranked doc file. */
export function pickReadme(repo: RepoInfo): string | undefined {
  return (
    repo.docs.find((d) => !d.path.includes('/') && /^readme\b/i.test(d.path))?.path ?? repo.docs[0]?.path
  );
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 30).trimEnd()}\n[… cut at ${max} characters]`;
}

/** Offline retrieval: the build sections of the (at most 3) best-ranked doc files. */
export async function offlineInstructions(
  repo: RepoInfo,
  options: { maxChars?: number } = {},
): Promise<RetrievalResult> {
  const maxChars = options.maxChars ?? 8_000;
  const docs = repo.docs.filter((d) => d.score > 0).slice(0, 3);
  const sources: RetrievalSource[] = [];
  const parts: string[] = [];
  let room = maxChars;
  for (const doc of docs) {
    const read = await readRepoDoc(repo.root, doc.path);
    sources.push(
      read.ok
        ? { kind: 'file', path: doc.path, round: 0, ok: true, chars: read.text.length }
        : { kind: 'file', path: doc.path, round: 0, ok: false, error: read.error },
    );
    if (!read.ok || room < 200) continue;
    const picked =
      read.text.length <= 1500 && mentionsBuildCommands(read.text)
        ? read.text.trim()
        : buildSections(read.text, room - 40).text;
    if (picked === '') continue;
    const part = `From ${doc.path}:\n${picked}`;
    parts.push(cap(part, room));
    room -= part.length + 2;
  }
  const instructions = parts.join('\n\n');
  return {
    mode: 'offline',
    instructions,
    sufficient: instructions !== '' && mentionsBuildCommands(instructions),
    rounds: 0,
    sources,
    skipped: [],
    notes: [],
  };
}

/** Finds build instructions: with a model, BUILD-BENCH's README → links → refine loop; without, offline. */
export async function retrieveInstructions(
  repo: RepoInfo,
  options: RetrieveOptions = {},
): Promise<RetrievalResult> {
  const provider = options.provider;
  if (!provider) return offlineInstructions(repo, { maxChars: options.maxInstructionChars });
  return new LlmRetrieval(repo, provider, options).run();
}

class LlmRetrieval {
  private readonly sources: RetrievalSource[] = [];
  private readonly skipped: { link: string; reason: string }[] = [];
  private readonly notes: string[] = [];
  /** Every link seen in a document read so far, by what it was written as and by its target. */
  private readonly known = new Map<string, DocLink>();
  private readonly visited = new Set<string>();
  private readonly maxRounds: number;
  private readonly maxLinks: number;
  private readonly maxChars: number;

  constructor(
    private readonly repo: RepoInfo,
    private readonly provider: LlmProvider,
    private readonly options: RetrieveOptions,
  ) {
    this.maxRounds = options.maxRounds ?? 3;
    this.maxLinks = options.maxLinks ?? 3;
    this.maxChars = options.maxInstructionChars ?? 8_000;
  }

  async run(): Promise<RetrievalResult> {
    const readmePath = pickReadme(this.repo);
    let readme: DocText = { ok: false, error: 'the repository has no README or doc file' };
    if (readmePath) {
      readme = await readRepoDoc(this.repo.root, readmePath);
      this.record({ kind: 'file', path: readmePath, round: 0 }, readme);
      this.visited.add(`file:${readmePath}`);
    }
    for (const doc of this.repo.docs) this.learn([{ written: doc.path, kind: 'file', target: doc.path }]);
    const readmeLinks = readme.ok && readmePath ? extractLinks(readme.text, { path: readmePath }) : [];
    this.learn(readmeLinks);

    const system = renderPrompt('retrieval-system', { maxLinks: this.maxLinks }, this.options.prompts);
    const first = renderPrompt(
      'retrieval-start',
      {
        repoName: this.repo.name,
        readmePath: readmePath ?? '(none)',
        readme: readme.ok
          ? quoteUntrusted(readmePath ?? 'README', condense(readme.text, README_CHARS))
          : `(not available: ${readme.error})`,
        docFiles:
          this.repo.docs
            .filter((d) => d.path !== readmePath)
            .slice(0, 10)
            .map((d) => `- ${d.path} (${d.why})`)
            .join('\n') || '(none)',
        links: this.listLinks(readmeLinks),
      },
      this.options.prompts,
    );
    let report: Report;
    try {
      const answer = await this.ask(system, first);
      if (!answer) return this.fallback('the model gave no usable report for the README');
      report = answer;
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      return this.fallback(`the model call failed: ${errorMessage(error)}`);
    }

    let rounds = 0;
    for (let round = 1; round <= this.maxRounds && !report.sufficient; round++) {
      const picks = this.choose(report.links);
      if (picks.length === 0) break;
      rounds = round;
      const fetched: string[] = [];
      const newLinks: DocLink[] = [];
      for (const link of picks) {
        const got = await this.visit(link, round);
        if (got.ok) {
          fetched.push(quoteUntrusted(got.label, condense(got.text, DOC_CHARS)));
          newLinks.push(...got.links);
        } else {
          fetched.push(`(${link.written}: could not be read: ${got.error})`);
        }
      }
      this.learn(newLinks);
      const prompt = renderPrompt(
        'retrieval-refine',
        {
          repoName: this.repo.name,
          round,
          maxRounds: this.maxRounds,
          previous: report.instructions
            ? quoteUntrusted('instructions so far', report.instructions)
            : '(none yet)',
          fetched: fetched.join('\n\n'),
          links: this.listLinks(newLinks),
        },
        this.options.prompts,
      );
      try {
        const answer = await this.ask(system, prompt);
        if (!answer) {
          this.notes.push(`round ${round}: the model gave no usable report; keeping the instructions so far`);
          break;
        }
        report = { ...answer, instructions: answer.instructions || report.instructions };
      } catch (error) {
        if (error instanceof CancelledError) throw error;
        this.notes.push(
          `round ${round}: the model call failed: ${errorMessage(error)}; keeping the instructions so far`,
        );
        break;
      }
    }
    return {
      mode: 'llm',
      instructions: cap(report.instructions, this.maxChars),
      sufficient: report.sufficient,
      rounds,
      sources: this.sources,
      skipped: this.skipped,
      notes: this.notes,
    };
  }

  private async ask(system: string, prompt: string): Promise<Report | undefined> {
    const answer = await askForTool(this.provider, {
      system,
      prompt,
      tools: [REPORT_TOOL],
      maxTokens: this.options.maxTokens ?? 2000,
      maxReasks: 1,
      parse: parseReport,
      reask: (problem) =>
        `Your previous reply could not be used: ${problem}. Call report_instructions with instructions, sufficient and links.`,
      signal: this.options.signal,
    });
    return answer.ok ? answer.value : undefined;
  }

  private async fallback(note: string): Promise<RetrievalResult> {
    const offline = await offlineInstructions(this.repo, { maxChars: this.maxChars });
    const seen = new Set(this.sources.map((s) => s.path));
    return {
      ...offline,
      sources: [...this.sources, ...offline.sources.filter((s) => !seen.has(s.path))],
      notes: [...this.notes, `${note}; used the offline instructions`],
    };
  }

  private learn(links: readonly DocLink[]): void {
    for (const link of links) {
      if (!this.known.has(link.written)) this.known.set(link.written, link);
      if (!this.known.has(link.target)) this.known.set(link.target, link);
    }
  }

  private listLinks(links: readonly DocLink[]): string {
    const ranked = rankLinks(links).slice(0, LINKS_LISTED);
    if (ranked.length === 0) return '(none)';
    const lines = ranked.map(
      (l) => `- ${l.kind === 'file' ? l.target : l.target}${l.text ? ` — ${l.text.slice(0, 80)}` : ''}`,
    );
    return quoteUntrusted('links', lines.join('\n'));
  }

  /** The model's picks that can be followed: known links (URLs must have appeared in a document), docs first. */
  private choose(picks: readonly string[]): DocLink[] {
    const chosen: DocLink[] = [];
    for (const raw of picks) {
      const pick = raw.trim();
      if (pick === '') continue;
      const link = this.lookup(pick);
      if ('reason' in link) {
        this.skipped.push({ link: pick, reason: link.reason });
        continue;
      }
      const key = `${link.kind}:${link.target}`;
      if (this.visited.has(key) || chosen.some((c) => `${c.kind}:${c.target}` === key)) {
        this.skipped.push({ link: pick, reason: 'already read' });
        continue;
      }
      chosen.push(link);
    }
    const ranked = rankLinks(chosen);
    for (const extra of ranked.slice(this.maxLinks))
      this.skipped.push({ link: extra.written, reason: `more than ${this.maxLinks} links in one round` });
    return ranked.slice(0, this.maxLinks);
  }

  private lookup(pick: string): DocLink | { reason: string } {
    const bare = pick.replace(/#.*$/, '');
    const hit = this.known.get(pick) ?? this.known.get(bare);
    if (hit) return hit;
    if (/^https?:\/\//i.test(pick)) {
      const resolved = resolveLink(pick, { url: pick });
      const byTarget = resolved ? this.known.get(resolved.target) : undefined;
      if (byTarget) return byTarget;
      const local = githubRepoPath(pick, this.repo.name);
      if (local) return { written: pick, kind: 'file', target: local.replace(/\/+$/, '') };
      return { reason: 'not a link found in the documents read' };
    }
    // A repository path the model named: reading the checkout is safe (confined to it).
    const resolved = resolveLink(bare.replace(/^\.\//, ''), { path: '' });
    if (!resolved) return { reason: 'not a repository path or http(s) URL' };
    return this.known.get(resolved.target) ?? { ...resolved, written: pick };
  }

  private record(base: Omit<RetrievalSource, 'ok' | 'chars' | 'error'>, text: DocText): void {
    this.sources.push(
      text.ok ? { ...base, ok: true, chars: text.text.length } : { ...base, ok: false, error: text.error },
    );
  }

  private async visit(
    link: DocLink,
    round: number,
  ): Promise<{ ok: true; text: string; label: string; links: DocLink[] } | { ok: false; error: string }> {
    this.visited.add(`${link.kind}:${link.target}`);
    const via = link.written !== link.target ? link.written : undefined;
    if (link.kind === 'url') {
      const local = githubRepoPath(link.target, this.repo.name);
      if (local) {
        const read = await readRepoDoc(this.repo.root, local);
        if (read.ok) {
          this.record({ kind: 'file', path: local, round, via: link.target }, read);
          this.visited.add(`file:${local}`);
          return { ok: true, text: read.text, label: local, links: extractLinks(read.text, { path: local }) };
        }
      }
      const page = await fetchPage(link.target, {
        fetch: this.options.fetch,
        timeoutMs: this.options.pageTimeoutMs,
        signal: this.options.signal,
      });
      this.record({ kind: 'page', url: link.target, round, ...(via ? { via } : {}) }, page);
      if (!page.ok) return page;
      return {
        ok: true,
        text: page.text,
        label: link.target,
        links: extractLinks(page.text, { url: page.finalUrl ?? link.target }),
      };
    }
    const read = await readRepoDoc(this.repo.root, link.target);
    this.record({ kind: 'file', path: link.target, round, ...(via ? { via } : {}) }, read);
    if (!read.ok) return read;
    return {
      ok: true,
      text: read.text,
      label: link.target,
      links: extractLinks(read.text, { path: link.target }),
    };
  }
}
