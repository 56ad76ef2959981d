/**
 * The job summary: what was built, how it was verified, why it failed. GitHub refuses a step summary over
 * 1 MiB, so sections are added in order of importance and the rest is cut on purpose, with a note. It is
 * written for a person on the run's page: no paths of the runner's disk (the output folder is named by the
 * files in it and linked through the run's artifacts), build.sh and the RUNBOOK's evidence collapsed
 * inline, and the CLI's flags in the messages spelled as the action's inputs (`sandbox: rootfs`).
 */
import path from 'node:path';

import { codeBlock, codeSpan, htmlText, inline, md as markdown } from '../report/github-text.js';
import type { BuildResult } from '../report/result.js';
import { INPUT_NAMES } from './settings.js';

/** GitHub's limit for one step's summary. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** build.sh and the RUNBOOK's evidence are shown up to this size each; the artifact has them whole. */
export const INLINE_FILE_BYTES = 64 * 1024;

/** Where the summary says the complete record is. */
export const RECORD_WHERE = "in `result.json`, in the output folder (the step's `out-dir` output)";

export interface SummaryExtras {
  /** The workflow run's page; its artifacts are linked for the output folder. */
  runUrl?: string;
  /** The workspace, to show a verifier spec's path relative to it. */
  workspace?: string;
  /** The output folder's entries (names relative to it, folders with a trailing `/`). */
  files?: string[];
  /** build.sh's text, shown collapsed. */
  buildSh?: string;
  /** RUNBOOK.md's text; its evidence is shown collapsed. */
  runbook?: string;
  pullRequest?: { url?: string; operation: string; note?: string };
  /** A line for a step-level problem (PR not opened, comment not updated). */
  problems?: string[];
  /** Markdown list items saying what was restored from and saved to the Actions cache. */
  caches?: string[];
}

/** The inputs the CLI's flags stand for, where the names differ. */
const INPUT_FOR_FLAG: Record<string, string> = { spec: 'verifier' };
const NOT_A_VALUE = /^(?:or|and|to|in|with|for|on|the|a|an)\b/;

/**
 * A message of the engine in the action's terms: `--sandbox rootfs` becomes `sandbox: rootfs`, `pass
 * --sandbox host` becomes `set sandbox: host`, a flag without a value (`--expect`) becomes `input expect`.
 * Flags that are no input of the action (`--keep`) stay as they are.
 */
export function inActionTerms(text: string): string {
  const inputs = new Set<string>(INPUT_NAMES);
  return text.replace(
    /(\bpass )?(`?)--([a-z][a-z0-9-]*)(?:([ =])([A-Za-z0-9][\w.:/+-]*))?(`?)/g,
    (
      whole,
      pass: string | undefined,
      open: string,
      flag: string,
      sep?: string,
      value?: string,
      shut?: string,
    ) => {
      const input = INPUT_FOR_FLAG[flag] ?? flag;
      if (!inputs.has(input)) return whole;
      const verb = pass ? 'set ' : '';
      if (value !== undefined && !NOT_A_VALUE.test(value)) return `${verb}${open}${input}: ${value}${shut}`;
      const rest = value !== undefined ? `${sep}${value}` : '';
      return open && shut && !rest
        ? `${verb}input ${open}${input}${shut}`
        : `${verb}${open}input ${input}${rest}${shut}`;
    },
  );
}

const yes = (b: boolean | undefined): string => (b ? '✅ yes' : '❌ no');

/**
 * Untrusted text for a Markdown table cell or inline text: the renderer of untrusted text
 * (src/report/github-text.ts), which every comment, pull request body and summary shares.
 */
export function md(text: string): string {
  return inline(text);
}

/** Inline code (pipes escaped in a table cell), or '' for an empty text (never an empty pair of backticks). */
function code(text: string | undefined, inTable = false): string {
  const t = (text ?? '').replace(/\r?\n/g, ' ').trim();
  return t ? codeSpan(t, { inTable }) : '';
}

/** A fenced block that no backtick run inside `text` can close. */
const fence = codeBlock;

/** A collapsed block: `<details>` with its Markdown body (blank lines around it, so GitHub renders it). */
function details(title: string, body: string): string {
  return `<details><summary>${htmlText(title)}</summary>\n\n${body}\n\n</details>`;
}

/** Cuts `text` to `limit` bytes at a line boundary; says how much was left out. */
function capped(text: string, limit = INLINE_FILE_BYTES): { text: string; cut: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= limit) return { text, cut: false };
  const lines: string[] = [];
  let used = 0;
  for (const line of text.split('\n')) {
    used += Buffer.byteLength(line, 'utf8') + 1;
    if (used > limit) break;
    lines.push(line);
  }
  return { text: lines.join('\n'), cut: true };
}

/** Where the expected names came from, in the action's terms (`cli` is the `expect` input here). */
const EXPECTED_SOURCE: Record<string, string> = { cli: 'input expect' };

const STATUS_ICON: Record<string, string> = { success: '✅', partial: '🟡', cancelled: '⏹️' };

/** A path as a person can find it: relative to the workspace when inside it, else its file name. */
function shownPath(file: string, workspace: string | undefined): string {
  if (!path.isAbsolute(file)) return file;
  if (workspace) {
    const rel = path.relative(workspace, file);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return path.basename(file);
}

/** The verifiers' checks and the self-stop audit, when the engine recorded them. */
function verificationLines(result: BuildResult, workspace: string | undefined): string[] {
  const v = result.verification;
  if (!v) return [];
  const spec = v.spec ? code(shownPath(v.spec.file, workspace)) : '';
  const specNote = v.spec ? ` (spec${spec ? ` ${spec}` : ''}${v.spec.hidden ? ', hidden' : ''})` : '';
  const lines = [`- verification: **${v.passed ? 'passed' : 'failed'}**${specNote}`];
  const checks = v.checks ?? [];
  for (const c of checks.slice(0, 100)) {
    lines.push(
      `  - ${c.passed ? '✅' : '❌'} ${md(c.name)}${c.required ? '' : ' (advisory)'}: ${md(c.detail)}`,
    );
  }
  if (checks.length > 100) lines.push(`  - … and ${checks.length - 100} more checks in result.json`);
  const stop = v.selfStop;
  if (stop?.claimed) {
    lines.push(
      markdown`- self-stop: the strategy claimed ${String(stop.claimed).toUpperCase()}, the verifiers said ${stop.verdict}${markdown.trusted(stop.wrong ? ' — **wrong self-stop**' : '')}`
        .text,
    );
  }
  return lines;
}

/** One line of facts: `strategy: rules · sandbox: rootfs (image debian:bookworm) · 2 turns · 11 s`. */
function factsLine(result: BuildResult): string {
  const image = result.sandbox.image.trim();
  const facts = [
    `strategy: ${md(result.strategy)}`,
    `sandbox: ${md(result.sandbox.kind)}${image ? ` (image ${code(image)})` : ''}`,
    `${result.turns.length} turn${result.turns.length === 1 ? '' : 's'}`,
    `${Math.round(result.timings.totalMs / 1000)} s`,
  ];
  return facts.join(' · ');
}

const names = (list: string[]): string =>
  list
    .map((n) => code(n))
    .filter((n) => n !== '')
    .join(', ');

/** The part of RUNBOOK.md after its status line, up to the end of its Evidence section; undefined without one. */
export function runbookEvidence(runbook: string): string | undefined {
  const lines = runbook.replace(/\r\n?/g, '\n').split('\n');
  const evidence = lines.findIndex((l) => /^## Evidence\b/.test(l));
  if (evidence < 0) return undefined;
  const status = lines.findIndex((l) => l.startsWith('**Status:'));
  let end = lines.findIndex((l, i) => i > evidence && /^#{1,2} /.test(l));
  if (end < 0) end = lines.length;
  const from = status >= 0 && status < evidence ? status + 1 : evidence;
  const text = lines
    .slice(from, end)
    .map((l) => (l === lines[evidence] ? `#### ${l.slice(3)}` : l))
    .join('\n')
    .trim();
  return text || undefined;
}

/** The summary's sections, most important first (the binaries table, which can be long, last). */
export function summarySections(result: BuildResult, extras: SummaryExtras): string[] {
  const sections: string[] = [];
  const icon = STATUS_ICON[result.status] ?? '❌';
  const expected = names(result.expected.names);
  const missing = names(result.expected.missing);
  sections.push(
    [
      `## ${icon} buildbench: ${md(result.status.toUpperCase())} — ${md(result.repo.name)}`,
      '',
      md(inActionTerms(result.reason)),
      '',
      '| completion | strict | flexible | verified recipe |',
      '| --- | --- | --- | --- |',
      `| ${yes(result.metrics.completion)} | ${yes(result.metrics.strict)} | ${yes(result.metrics.flexible)} | ${yes(result.recipe?.verified)} |`,
      '',
      `Expected binaries: ${expected || 'any new binary'} (${md(EXPECTED_SOURCE[result.expected.source] ?? result.expected.source)})` +
        (missing ? ` — missing: ${missing}` : ''),
      '',
      factsLine(result),
    ].join('\n'),
  );

  // Each note once: a pull request that could not be opened is a problem, not also the PR's note.
  const problems = [...new Set((extras.problems ?? []).map(inActionTerms))];
  const pr = extras.pullRequest;
  const prLines: string[] = [];
  if (pr?.url) prLines.push(`Pull request (${md(pr.operation)}): ${pr.url}`);
  else if (pr?.note && !problems.includes(inActionTerms(pr.note)))
    prLines.push(`Pull request: ${md(inActionTerms(pr.note))}`);
  for (const p of problems) prLines.push(`> [!WARNING]\n> ${md(p)}`);
  if (prLines.length > 0) sections.push(prLines.join('\n\n'));

  if (result.rootCause && result.status !== 'success') {
    const rc = result.rootCause;
    const excerpt = rc.excerpt.trim() ? ['', fence(rc.excerpt.slice(0, 8000))] : [];
    sections.push(
      [markdown`### Root cause (turn ${rc.turn}, ${rc.category})`.text, '', md(rc.message), ...excerpt].join(
        '\n',
      ),
    );
  }

  const recipeLines: string[] = [];
  if (result.recipe) {
    const r = result.recipe;
    recipeLines.push(
      `- recipe: ${r.verified ? '**verified**' : '**not verified**'} — ${md(r.mode)} recipe from turn ${md(String(r.turn))}` +
        `${r.fallback ? ' (the full sequence replaced the minimal one)' : ''}; replay ${md(r.replay.status)}: ${md(inActionTerms(r.replay.reason))}`,
    );
    const files = names([r.files.buildSh, r.files.dockerfile]);
    const base = code(r.baseImage);
    if (files) recipeLines.push(`- files: ${files}${base ? ` (FROM ${base})` : ''}`);
  }
  recipeLines.push(...verificationLines(result, extras.workspace));
  for (const p of (result.patches ?? []).slice(0, 100)) {
    recipeLines.push(`- patch ${code(p.file)}: ${md(p.subject)} — ${md(p.reason)}`);
  }
  if (recipeLines.length > 0) sections.push(['### Recipe and verification', '', ...recipeLines].join('\n'));

  const inline: string[] = [];
  if (extras.buildSh?.trim()) {
    const sh = capped(extras.buildSh);
    const lines = extras.buildSh.replace(/\n+$/, '').split('\n').length;
    inline.push(
      details(
        `build.sh — the recipe as a script (${lines} line${lines === 1 ? '' : 's'})`,
        fence(sh.text, 'sh') +
          (sh.cut ? '\n\n… cut here; the whole file is build.sh in the output folder.' : ''),
      ),
    );
  }
  const found = extras.runbook ? runbookEvidence(extras.runbook) : undefined;
  const evidence = found && inActionTerms(found);
  if (evidence) {
    const ev = capped(evidence);
    inline.push(
      details(
        `RUNBOOK.md — the evidence for ${result.status.toUpperCase()}`,
        ev.text + (ev.cut ? '\n\n… cut here; the whole file is RUNBOOK.md in the output folder.' : ''),
      ),
    );
  }
  if (inline.length > 0) sections.push(inline.join('\n\n'));

  if (result.turns.length > 0) {
    const rows = result.turns.map((t) => {
      const exit = t.timedOut ? 'timed out' : String(t.exitCode);
      return markdown`| ${t.turn} | ${t.purpose} | ${exit} | ${Math.round(t.durationMs / 1000)} s | ${t.newArtifacts} | ${t.rootCause?.message ?? ''} |`
        .text;
    });
    sections.push(
      [
        '### Turns',
        '',
        '| turn | purpose | exit | time | new binaries | root cause |',
        '| --- | --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
  }

  sections.push(outputFolderSection(extras));
  if (extras.caches && extras.caches.length > 0)
    sections.push(['### Caches', '', ...extras.caches].join('\n'));
  if (result.artifacts.length > 0) {
    const rows = result.artifacts.map(
      (a) => markdown`| ${markdown.trusted(code(a.path, true))} | ${a.kind} | ${a.size} |`.text,
    );
    sections.push(['### Binaries', '', '| path | kind | bytes |', '| --- | --- | --- |', ...rows].join('\n'));
  }

  return sections;
}

/** What the output folder holds and where a person finds it: the run's artifacts, once uploaded. */
function outputFolderSection(extras: SummaryExtras): string {
  const files = (extras.files ?? []).slice(0, 30);
  const listed = files.length > 0 ? names(files) : '`result.json`, `RUNBOOK.md`, `logs/`';
  const more = (extras.files?.length ?? 0) > files.length ? ', …' : '';
  const where = extras.runUrl ? `[this run's artifacts](${extras.runUrl}#artifacts)` : "this run's artifacts";
  return [
    '### Output folder',
    '',
    `${listed}${more} — in the step's \`out-dir\` output. Upload it with \`actions/upload-artifact\` ` +
      `(with \`if: always()\`) to find it among ${where}.`,
  ].join('\n');
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Joins sections until `limit` bytes. A section that does not fit is cut at a line boundary and the
 * remaining sections are dropped; a note says so. Never returns more than `limit` bytes.
 */
export function fitSummary(sections: string[], limit = SUMMARY_LIMIT_BYTES, where = RECORD_WHERE): string {
  const whole = sections.join('\n\n') + '\n';
  if (bytes(whole) <= limit) return whole;
  const note =
    `\n\n> [!NOTE]\n> This summary was trimmed to stay within GitHub's ${Math.round(limit / 1024)} KiB limit; ` +
    `the complete record is ${where}.\n`;
  const budget = limit - bytes(note);
  const parts: string[] = [];
  let used = 0;
  for (const [i, section] of sections.entries()) {
    const piece = (i > 0 ? '\n\n' : '') + section;
    const size = bytes(piece);
    if (used + size <= budget) {
      parts.push(piece);
      used += size;
      continue;
    }
    // Cut this section line by line, then stop.
    for (const line of piece.split('\n')) {
      const next = `${line}\n`;
      const n = bytes(next);
      if (used + n > budget) break;
      parts.push(next);
      used += n;
    }
    break;
  }
  let out = parts.join('');
  if (bytes(out) > budget)
    out = Buffer.from(out, 'utf8')
      .subarray(0, budget)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
  return out.replace(/\n+$/, '') + note;
}

export function renderSummary(
  result: BuildResult,
  extras: SummaryExtras,
  limit = SUMMARY_LIMIT_BYTES,
): string {
  return fitSummary(summarySections(result, extras), limit);
}

/**
 * The summary of a step that ended before the build gave a result: a bad input, a runner that is not
 * Linux, a crash. Says why and what the output folder holds.
 */
export function renderEarlySummary(
  status: string,
  message: string,
  extras: Pick<SummaryExtras, 'runUrl' | 'files'>,
): string {
  return (
    [
      `## ❌ buildbench: ${status.toUpperCase()}`,
      '',
      md(inActionTerms(message)),
      '',
      'The step ended before the build started; nothing was built.',
      '',
      outputFolderSection(extras),
    ].join('\n') + '\n'
  );
}
