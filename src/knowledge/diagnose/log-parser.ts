/**
 * `knowledge/diagnose/` owns diagnosis: what a build log says went wrong. The failure signatures are data
 * (`verifiers/signatures.yaml`, compiled by `signatures.ts`), this parser applies them to a log and picks the
 * root cause, and `types.ts` holds the `Finding` and `LogAnalysis` shapes that the loop, the repair rules and
 * the reports read. Nothing here proposes a fix (that is `knowledge/repair/`).
 *
 * Layer-1 log parser: applies the signature catalog to a build log line by line, in bounded memory,
 * and picks the root cause. Works on a whole string, a stream or a file.
 *
 * Root cause: every finding has a causal tier (1 causes: missing dependencies, configure errors, the
 * environment; 2 effects: compile and link errors, crashes; 3 weak evidence). The root cause is the first
 * finding of the lowest tier that is not a follow-up. A generic finding (`error:`, `CMake Error at`) is a
 * follow-up when a specific finding of the same or a more causal tier follows within a few lines, so the
 * specific message under a generic header wins. Follow-ups (`make: *** Error 2`) are the root cause only
 * when nothing else matched.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { defaultSignatureCatalog, renderMessage, type SignatureCatalog } from './signatures.js';
import { logLinePrefixLength, stripAnsi, trimTrailingCr } from './terminal-text.js';
import type { Finding, LogAnalysis } from './types.js';

export interface AnalyzeOptions {
  /** The signature catalog (default: `verifiers/signatures.yaml`). */
  catalog?: SignatureCatalog;
  /** Findings kept in `findings` (the first N); the rest are only counted. Default 200. */
  maxFindings?: number;
  /** Lines are cut to this many characters before matching. Default 4096. */
  maxLineLength?: number;
  /** Lines of context before and after the matched line in each excerpt. Default 3. */
  contextLines?: number;
  /** Each excerpt line is cut to this many characters. Default 500. */
  maxExcerptLineLength?: number;
  /** How many lines after a generic finding a specific one still supersedes it. Default 8. */
  genericWindow?: number;
}

/** What `analyzeLog*` returns: a `LogAnalysis` plus totals that survive the cap on stored findings. */
export interface LogAnalysisDetail extends LogAnalysis {
  /** Signature id → how many lines matched it (all of them, also those beyond `maxFindings`). */
  counts: Record<string, number>;
  /** Findings not stored because `maxFindings` was reached. */
  droppedFindings: number;
}

const DEFAULTS = {
  maxFindings: 200,
  maxLineLength: 4096,
  contextLines: 3,
  maxExcerptLineLength: 500,
  genericWindow: 8,
};

// A log line is a stranger's text: it is cleaned by the one-pass scanners of terminal-text.ts and matched by the
// catalog's linear-time patterns; test/unit/knowledge/diagnose/linear.test.ts checks no native RegExp is here.

/**
 * What a terminal would show for one raw line: colours removed, the last carriage-return segment
 * (progress bars overwrite themselves), CI timestamp prefixes dropped, cut to `maxLength` characters.
 */
export function normalizeLogLine(raw: string, maxLength = DEFAULTS.maxLineLength): string {
  let line = raw;
  if (line.length > maxLength * 4) line = line.slice(0, maxLength * 4);
  line = stripAnsi(line);
  if (line.includes('\r')) {
    line = trimTrailingCr(line);
    const cr = line.lastIndexOf('\r');
    if (cr >= 0) line = line.slice(cr + 1);
  }
  const prefix = logLinePrefixLength(line);
  if (prefix > 0) line = line.slice(prefix);
  return line.length > maxLength ? line.slice(0, maxLength) : line;
}

interface Pending {
  finding: Finding;
  lines: string[];
  remaining: number;
}

interface Recent {
  finding: Finding;
  tier: number;
  generic: boolean;
}

/**
 * The incremental parser behind `analyzeLog*`: feed it bytes with `write`, then call `end`.
 * Memory is bounded by the options, not by the log: a ring of recent lines, at most `maxFindings` findings,
 * and per-id counts.
 */
export class LogAnalyzer {
  private readonly catalog: SignatureCatalog;
  private readonly options: typeof DEFAULTS;
  private readonly rawByteCap: number;
  private readonly ringSize: number;
  private readonly ring: string[] = [];
  private ringStart = 0;
  private lineNo = 0;
  private bytes = 0;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private sawPartial = false;
  private readonly stored: Finding[] = [];
  private dropped = 0;
  private readonly counts: Record<string, number> = {};
  private readonly pending: Pending[] = [];
  private readonly recent: Recent[] = [];
  private readonly seen = new Set<string>();
  private readonly firstByTier = new Map<number, Finding>();
  private firstFollowUp: Finding | undefined;
  /** Settled candidates in log order (bounded), for re-ranking when findings were demoted. */
  private readonly settled: { finding: Finding; tier: number }[] = [];
  /** Findings a later one demoted to weak evidence (a submodule fetch's network errors). */
  private readonly demoted = new Set<Finding>();
  /** Latent findings (warnings that explain a later error), by `id\0capture=value`, until a symptom names one. */
  private readonly latent = new Map<string, { finding: Finding; tier: number }>();
  private ended = false;

  constructor(options: AnalyzeOptions = {}) {
    this.catalog = options.catalog ?? defaultSignatureCatalog();
    this.options = {
      maxFindings: options.maxFindings ?? DEFAULTS.maxFindings,
      maxLineLength: options.maxLineLength ?? DEFAULTS.maxLineLength,
      contextLines: options.contextLines ?? DEFAULTS.contextLines,
      maxExcerptLineLength: options.maxExcerptLineLength ?? DEFAULTS.maxExcerptLineLength,
      genericWindow: options.genericWindow ?? DEFAULTS.genericWindow,
    };
    // Raw bytes kept of one line: room for colour codes around a full-length line.
    this.rawByteCap = this.options.maxLineLength * 4;
    this.ringSize = Math.max(this.options.contextLines, this.catalog.maxLookbehind, 1);
  }

  /** Feeds a chunk of the log. Lines are split on \n at the byte level, so multi-byte characters survive chunking. */
  write(chunk: Buffer | string): void {
    if (this.ended) throw new Error('LogAnalyzer.write after end');
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.bytes += buffer.length;
    let start = 0;
    for (;;) {
      const nl = buffer.indexOf(10, start);
      if (nl === -1) {
        if (start < buffer.length) this.keepPartial(buffer, start, buffer.length);
        return;
      }
      if (!this.sawPartial) {
        this.processLine(buffer.toString('utf8', start, Math.min(nl, start + this.rawByteCap)));
      } else {
        this.keepPartial(buffer, start, nl);
        const joined = Buffer.concat(this.partial, this.partialBytes);
        this.partial = [];
        this.partialBytes = 0;
        this.sawPartial = false;
        this.processLine(joined.toString('utf8'));
      }
      start = nl + 1;
    }
  }

  /** Finishes the log (a last line without \n counts) and returns the analysis. */
  end(): LogAnalysisDetail {
    if (!this.ended) {
      if (this.sawPartial) {
        const joined = Buffer.concat(this.partial, this.partialBytes);
        this.partial = [];
        this.partialBytes = 0;
        this.sawPartial = false;
        this.processLine(joined.toString('utf8'));
      }
      for (const p of this.pending.splice(0)) this.closeExcerpt(p);
      for (const r of this.recent.splice(0)) this.settle(r);
      this.ended = true;
    }
    let rootCause: Finding | undefined;
    for (const tier of [...this.firstByTier.keys()].sort((a, b) => a - b)) {
      rootCause = this.firstByTier.get(tier);
      if (rootCause) break;
    }
    if (rootCause && this.demoted.size > 0) rootCause = this.rerank() ?? rootCause;
    rootCause ??= this.firstFollowUp;
    return {
      findings: this.stored,
      rootCause,
      lines: this.lineNo,
      bytes: this.bytes,
      counts: this.counts,
      droppedFindings: this.dropped,
    };
  }

  /** The first finding of the lowest tier once demoted findings count as weak evidence (tier 3). */
  private rerank(): Finding | undefined {
    let best: { finding: Finding; tier: number } | undefined;
    for (const c of this.settled) {
      const tier = this.demoted.has(c.finding) ? Math.max(c.tier, WEAK_TIER) : c.tier;
      if (!best || tier < best.tier) best = { finding: c.finding, tier };
    }
    return best?.finding;
  }

  private keepPartial(buffer: Buffer, start: number, end: number): void {
    this.sawPartial = true;
    const room = this.rawByteCap - this.partialBytes;
    if (room <= 0) return;
    const stop = Math.min(end, start + room);
    if (stop <= start) return;
    // Copy: a slice would keep the whole chunk alive.
    this.partial.push(Buffer.from(buffer.subarray(start, stop)));
    this.partialBytes += stop - start;
  }

  private previous(k: number): string | undefined {
    if (k > this.ring.length) return undefined;
    const index = (this.ringStart + this.ring.length - k) % this.ring.length;
    return this.ring[index];
  }

  private remember(line: string): void {
    const kept =
      line.length > this.options.maxExcerptLineLength
        ? line.slice(0, this.options.maxExcerptLineLength)
        : line;
    if (this.ring.length < this.ringSize) {
      this.ring.push(kept);
    } else {
      this.ring[this.ringStart] = kept;
      this.ringStart = (this.ringStart + 1) % this.ringSize;
    }
  }

  private processLine(raw: string): void {
    this.lineNo++;
    const line = normalizeLogLine(raw, this.options.maxLineLength);
    const excerptLine =
      line.length > this.options.maxExcerptLineLength
        ? line.slice(0, this.options.maxExcerptLineLength)
        : line;

    // Lines after a finding complete its excerpt.
    for (let i = 0; i < this.pending.length;) {
      const p = this.pending[i] as Pending;
      p.lines.push(excerptLine);
      if (--p.remaining <= 0) {
        this.closeExcerpt(p);
        this.pending.splice(i, 1);
      } else {
        i++;
      }
    }
    // Generic findings old enough can no longer be superseded: settle them.
    while (
      this.recent.length > 0 &&
      this.lineNo - (this.recent[0] as Recent).finding.line > this.options.genericWindow
    ) {
      this.settle(this.recent.shift() as Recent);
    }

    const match = line.length > 0 ? this.catalog.match(line, (k) => this.previous(k)) : undefined;
    if (match) this.record(match.signature.id, match.captures, excerptLine);
    this.remember(line);
  }

  private record(id: string, captures: Record<string, string>, excerptLine: string): void {
    const signature = this.catalog.byId.get(id);
    if (!signature) return;
    this.counts[id] = (this.counts[id] ?? 0) + 1;
    const cause = signature.symptomOf ? this.confirmLatent(signature.symptomOf, captures) : undefined;
    const followUp =
      signature.latent ||
      cause !== undefined ||
      signature.followUp ||
      signature.followUpAfter.some((ref) => this.seen.has(ref));
    const finding: Finding = {
      id,
      category: signature.category,
      message: renderMessage(signature.message, captures),
      captures,
      line: this.lineNo,
      excerpt: '',
    };
    if (signature.hint) finding.hint = signature.hint;
    if (followUp) finding.followUp = true;

    if (!followUp) {
      this.seen.add(signature.category);
      this.seen.add(id);
      if (!signature.generic) {
        // A specific finding supersedes recent generic ones of the same or a less causal tier.
        for (const r of this.recent) {
          if (r.generic && r.tier >= signature.tier && !r.finding.followUp) r.finding.followUp = true;
        }
      }
    }

    const before: string[] = [];
    for (let k = Math.min(this.options.contextLines, this.ring.length); k >= 1; k--) {
      before.push(this.previous(k) ?? '');
    }
    before.push(excerptLine);
    const pending: Pending = { finding, lines: before, remaining: this.options.contextLines };
    if (this.options.contextLines > 0) this.pending.push(pending);
    else this.closeExcerpt(pending);

    if (signature.demotes.length > 0) this.demoteBefore(signature.demotes);
    if (this.stored.length < this.options.maxFindings) this.stored.push(finding);
    else this.dropped++;
    this.recent.push({ finding, tier: signature.tier, generic: signature.generic });
    if (signature.latent && this.latent.size < MAX_LATENT)
      for (const [name, value] of Object.entries(captures))
        if (value) this.latent.set(`${id}\0${name}=${value}`, { finding, tier: signature.tier });
  }

  /**
   * The latent finding a symptom names (same signature, same capture value), now a root-cause candidate: its
   * follow-up mark is lifted and, when it has already settled as a follow-up, it is settled again as a cause.
   */
  private confirmLatent(
    ref: { id: string; capture: string },
    captures: Record<string, string>,
  ): Finding | undefined {
    const value = captures[ref.capture];
    if (!value) return undefined;
    const entry = this.latent.get(`${ref.id}\0${ref.capture}=${value}`);
    if (!entry) return undefined;
    const { finding, tier } = entry;
    if (finding.followUp) {
      delete finding.followUp;
      this.seen.add(finding.category);
      this.seen.add(finding.id);
      if (!this.recent.some((r) => r.finding === finding)) {
        const first = this.firstByTier.get(tier);
        if (!first || first.line > finding.line) this.firstByTier.set(tier, finding);
        if (this.settled.length < MAX_SETTLED) this.settled.push({ finding, tier });
      }
    }
    return finding;
  }

  /** Marks the findings of `refs` (categories or ids) in the last DEMOTE_WINDOW lines as weak evidence. */
  private demoteBefore(refs: readonly string[]): void {
    for (let i = this.stored.length - 1; i >= 0; i--) {
      const f = this.stored[i]!;
      if (this.lineNo - f.line > DEMOTE_WINDOW) break;
      if (refs.includes(f.category) || refs.includes(f.id)) this.demoted.add(f);
    }
  }

  private closeExcerpt(p: Pending): void {
    p.finding.excerpt = p.lines.join('\n');
  }

  /** A finding that can no longer change: a candidate for the root cause. */
  private settle(r: Recent): void {
    if (r.finding.followUp) {
      this.firstFollowUp ??= r.finding;
      return;
    }
    if (!this.firstByTier.has(r.tier)) this.firstByTier.set(r.tier, r.finding);
    if (this.settled.length < MAX_SETTLED) this.settled.push({ finding: r.finding, tier: r.tier });
  }
}

/** How far back (lines) a demoting finding reaches: a submodule fetch with its retries. */
const DEMOTE_WINDOW = 64;
/** The tier of weak evidence. */
const WEAK_TIER = 3;
/** Candidates kept for re-ranking. */
const MAX_SETTLED = 1000;
/** Latent findings remembered for a later symptom (keys: one per capture). */
const MAX_LATENT = 4096;

/** Analyzes a whole log held in memory. */
export function analyzeLog(text: string, options?: AnalyzeOptions): LogAnalysisDetail {
  const analyzer = new LogAnalyzer(options);
  analyzer.write(text);
  return analyzer.end();
}

/** Analyzes a log as it streams (a file, a process's stdout, chunks from a sandbox). */
export async function analyzeLogStream(
  stream: Readable | AsyncIterable<string | Buffer>,
  options?: AnalyzeOptions,
): Promise<LogAnalysisDetail> {
  const analyzer = new LogAnalyzer(options);
  for await (const chunk of stream as AsyncIterable<unknown>) {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) analyzer.write(chunk);
    else if (chunk instanceof Uint8Array)
      analyzer.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    else throw new TypeError(`analyzeLogStream: expected string or Buffer chunks, got ${typeof chunk}`);
  }
  return analyzer.end();
}

/** Analyzes a log file on disk without reading it into memory. */
export async function analyzeLogFile(path: string, options?: AnalyzeOptions): Promise<LogAnalysisDetail> {
  return analyzeLogStream(createReadStream(path, { highWaterMark: 256 * 1024 }), options);
}
