/**
 * The job summary: what was built, how it was verified, why it failed. GitHub refuses a step summary over
 * 1 MiB, so sections are added in order of importance and the rest is cut on purpose, with a note.
 */
import type { BuildResult } from '../report/result.js';

/** GitHub's limit for one step's summary. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

export interface SummaryExtras {
  resultPath: string;
  runbookPath?: string;
  pullRequest?: { url?: string; operation: string; note?: string };
  /** A line for a step-level problem (PR not opened, comment not updated). */
  problems?: string[];
  /** Markdown list items saying what was restored from and saved to the Actions cache. */
  caches?: string[];
}

const yes = (b: boolean | undefined): string => (b ? '✅ yes' : '❌ no');

/** Escapes text for a Markdown table cell or inline text. */
export function md(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');
}

/** A fenced block that no backtick run inside `text` can close. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n+$/, '')}\n${ticks}`;
}

const STATUS_ICON: Record<string, string> = { success: '✅', partial: '🟡', cancelled: '⏹️' };

/** The verifiers' checks and the self-stop audit, when the engine recorded them. */
function verificationLines(result: BuildResult): string[] {
  const v = result.verification;
  if (!v) return [];
  const lines = [
    `- verification: **${v.passed ? 'passed' : 'failed'}**${v.spec ? ` (spec \`${md(v.spec.file)}\`${v.spec.hidden ? ', hidden' : ''})` : ''}`,
  ];
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
      `- self-stop: the strategy claimed ${stop.claimed.toUpperCase()}, the verifiers said ${stop.verdict}${stop.wrong ? ' — **wrong self-stop**' : ''}`,
    );
  }
  return lines;
}

/** The summary's sections, most important first (the binaries table, which can be long, last). */
export function summarySections(result: BuildResult, extras: SummaryExtras): string[] {
  const sections: string[] = [];
  const icon = STATUS_ICON[result.status] ?? '❌';
  sections.push(
    [
      `## ${icon} buildbench: ${result.status.toUpperCase()} — ${md(result.repo.name)}`,
      '',
      md(result.reason),
      '',
      '| completion | strict | flexible | verified recipe |',
      '| --- | --- | --- | --- |',
      `| ${yes(result.metrics.completion)} | ${yes(result.metrics.strict)} | ${yes(result.metrics.flexible)} | ${yes(result.recipe?.verified)} |`,
      '',
      `Expected binaries: ${result.expected.names.length > 0 ? result.expected.names.map((n) => `\`${md(n)}\``).join(', ') : 'any new binary'} (${result.expected.source})` +
        (result.expected.missing.length > 0
          ? ` — missing: ${result.expected.missing.map((n) => `\`${md(n)}\``).join(', ')}`
          : ''),
      '',
      `Strategy \`${md(result.strategy)}\`, ${md(result.sandbox.kind)} sandbox (\`${md(result.sandbox.image)}\`), ` +
        `${result.turns.length} turn${result.turns.length === 1 ? '' : 's'}, ${Math.round(result.timings.totalMs / 1000)} s.`,
    ].join('\n'),
  );

  const problems = extras.problems ?? [];
  const pr = extras.pullRequest;
  if (pr || problems.length > 0) {
    const lines: string[] = [];
    if (pr?.url) lines.push(`Pull request (${pr.operation}): ${pr.url}`);
    else if (pr?.note) lines.push(`Pull request: ${md(pr.note)}`);
    for (const p of problems) lines.push(`> [!WARNING]\n> ${md(p)}`);
    sections.push(lines.join('\n\n'));
  }

  if (result.rootCause && result.status !== 'success') {
    const rc = result.rootCause;
    sections.push(
      [
        `### Root cause (turn ${rc.turn}, ${md(rc.category)})`,
        '',
        md(rc.message),
        '',
        fence(rc.excerpt.slice(0, 8000)),
      ].join('\n'),
    );
  }

  const recipeLines: string[] = [];
  if (result.recipe) {
    const r = result.recipe;
    recipeLines.push(
      `- recipe: ${r.verified ? '**verified**' : '**not verified**'} — ${r.mode} recipe from turn ${r.turn}` +
        `${r.fallback ? ' (the full sequence replaced the minimal one)' : ''}; replay ${md(r.replay.status)}: ${md(r.replay.reason)}`,
    );
    recipeLines.push(
      `- files: \`${md(r.files.buildSh)}\`, \`${md(r.files.dockerfile)}\` (FROM \`${md(r.baseImage)}\`)`,
    );
  }
  recipeLines.push(...verificationLines(result));
  for (const p of (result.patches ?? []).slice(0, 100)) {
    recipeLines.push(`- patch \`${md(p.file)}\`: ${md(p.subject)} — ${md(p.reason)}`);
  }
  if (recipeLines.length > 0) sections.push(['### Recipe and verification', '', ...recipeLines].join('\n'));

  if (result.turns.length > 0) {
    const rows = result.turns.map((t) => {
      const exit = t.timedOut ? 'timed out' : String(t.exitCode);
      return `| ${t.turn} | ${md(t.purpose)} | ${md(exit)} | ${Math.round(t.durationMs / 1000)} s | ${t.newArtifacts} | ${t.rootCause ? md(t.rootCause.message) : ''} |`;
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

  const files = [`- result: \`${md(extras.resultPath)}\``];
  if (extras.runbookPath) files.push(`- runbook: \`${md(extras.runbookPath)}\``);
  sections.push(['### Files', '', ...files].join('\n'));
  if (extras.caches && extras.caches.length > 0)
    sections.push(['### Caches', '', ...extras.caches].join('\n'));
  if (result.artifacts.length > 0) {
    const rows = result.artifacts.map((a) => `| \`${md(a.path)}\` | ${md(a.kind)} | ${a.size} |`);
    sections.push(['### Binaries', '', '| path | kind | bytes |', '| --- | --- | --- |', ...rows].join('\n'));
  }

  return sections;
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Joins sections until `limit` bytes. A section that does not fit is cut at a line boundary and the
 * remaining sections are dropped; a note says so. Never returns more than `limit` bytes.
 */
export function fitSummary(
  sections: string[],
  limit = SUMMARY_LIMIT_BYTES,
  resultPath = 'result.json',
): string {
  const whole = sections.join('\n\n') + '\n';
  if (bytes(whole) <= limit) return whole;
  const note =
    `\n\n> [!NOTE]\n> This summary was trimmed to stay within GitHub's ${Math.round(limit / 1024)} KiB limit; ` +
    `the complete record is in \`${md(resultPath)}\`.\n`;
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
  return fitSummary(summarySections(result, extras), limit, extras.resultPath);
}
