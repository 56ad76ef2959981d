/**
 * The per-turn prompt of the LLM strategy: goal, a compact repository summary, the retrieved instructions and
 * the history with a DISTILLED outcome per script (layer-1 root cause with its excerpt, what the verifiers
 * still miss, the end of the log) — never raw logs. A prompt budget is met by deterministic compaction levels,
 * each smaller than the last; every level keeps the latest root cause.
 */
import { readdir } from 'node:fs/promises';
import type { RepoInfo } from '../../repo/types.js';
import type { TurnContext, TurnRecord } from '../types.js';
import type { Expected } from '../../verify/types.js';
import { normalizeLogLine } from '../../knowledge/diagnose/log-parser.js';
import { quoteUntrusted, renderPrompt, type RenderOptions } from '../../llm/prompts.js';
import { describeDeployGoal, describeEcosystems } from './deploy-prompt.js';
import { alternativesPrompt } from '../../deploy/alternatives.js';

/** How much of each part a compaction level keeps. */
interface Level {
  instructions: number;
  repo: 'full' | 'compact' | 'minimal';
  /** Older turns shown in `brief` form (the most recent ones), the rest as one line each. */
  briefOlder: number;
  /** Older turns shown at all (the most recent ones); the rest are counted. */
  keepOlder: number;
  script: number;
  tailLines: number;
  tailChars: number;
  excerpt: number;
  otherFindings: number;
}

/** Compaction levels, largest first. The last one is small whatever the run did. */
export const LEVELS: readonly Level[] = [
  {
    instructions: 6000,
    repo: 'full',
    briefOlder: 99,
    keepOlder: 99,
    script: 4000,
    tailLines: 60,
    tailChars: 4000,
    excerpt: 2000,
    otherFindings: 3,
  },
  {
    instructions: 4000,
    repo: 'full',
    briefOlder: 3,
    keepOlder: 99,
    script: 3000,
    tailLines: 40,
    tailChars: 2500,
    excerpt: 1500,
    otherFindings: 3,
  },
  {
    instructions: 2500,
    repo: 'compact',
    briefOlder: 1,
    keepOlder: 20,
    script: 2000,
    tailLines: 25,
    tailChars: 1500,
    excerpt: 1200,
    otherFindings: 2,
  },
  {
    instructions: 1500,
    repo: 'compact',
    briefOlder: 0,
    keepOlder: 8,
    script: 1200,
    tailLines: 12,
    tailChars: 800,
    excerpt: 800,
    otherFindings: 1,
  },
  {
    instructions: 600,
    repo: 'minimal',
    briefOlder: 0,
    keepOlder: 3,
    script: 600,
    tailLines: 0,
    tailChars: 0,
    excerpt: 500,
    otherFindings: 0,
  },
  {
    instructions: 0,
    repo: 'minimal',
    briefOlder: 0,
    keepOlder: 0,
    script: 300,
    tailLines: 0,
    tailChars: 0,
    excerpt: 300,
    otherFindings: 0,
  },
];

export interface TurnPromptInput {
  context: TurnContext;
  /** Retrieved build instructions ('' when none). */
  instructions: string;
  /** Top-level entries of the checkout, one line. */
  tree?: string;
  /** Harness notes for the model (e.g. that the rules strategy gave up, and why). */
  notes: readonly string[];
  prompts?: RenderOptions;
}

export interface TurnPrompt {
  text: string;
  /** The compaction level used (0: nothing compacted). */
  level: number;
}

/** Head and tail of a long text, with a marker for what was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 40) return text.slice(0, Math.max(0, max));
  const head = Math.floor((max - 30) * 0.6);
  const tail = max - 30 - head;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters cut …]\n${text.slice(text.length - tail)}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * The last `lines` lines of a log, normalised (colours and progress overwrites removed, long lines cut), at
 * most `chars` characters. Reads only the end of the text: a 20 MB log costs as much as a 20 kB one.
 */
export function logTail(output: string, lines: number, chars: number): string {
  if (lines <= 0 || chars <= 0 || output === '') return '';
  const window = output.slice(-Math.max(chars * 4, 4096));
  const all = window.split('\n');
  if (window.length < output.length) all.shift(); // a partial first line
  while (all.length > 0 && all[all.length - 1]!.trim() === '') all.pop();
  const kept = collapseRuns(all.map((l) => normalizeLogLine(l, 300))).slice(-lines);
  let text = kept.join('\n');
  if (text.length > chars) text = text.slice(text.length - chars).replace(/^[^\n]*\n/, '');
  return text;
}

/** The shape of a log line for "similar lines": numbers blurred, first two words only. */
function shape(line: string): string {
  return line.trim().replace(/\d+/g, '#').split(/\s+/).slice(0, 2).join(' ');
}

/**
 * Runs of more than three similar lines (progress lines, compile commands, the same message with other
 * numbers) become the first line, a count, and the last line.
 */
export function collapseRuns(lines: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const key = shape(lines[i]!);
    let j = i + 1;
    while (j < lines.length && key !== '' && shape(lines[j]!) === key) j++;
    const run = j - i;
    if (run > 3) out.push(lines[i]!, `[… ${run - 2} similar lines …]`, lines[j - 1]!);
    else out.push(...lines.slice(i, j));
    i = j;
  }
  return out;
}

export function describeGoal(expected: Expected, repo: RepoInfo): string {
  const base =
    'Build the repository so that the verifiers pass: they look for NEW ELF executables, shared libraries and static archives anywhere in the work tree (outside .git).';
  if (expected.names.length === 0)
    return `${base}\nNo particular names are expected: any new executable or library counts.`;
  const from =
    expected.source === 'cli'
      ? 'named by the user'
      : expected.source === 'task'
        ? 'named by the task'
        : 'inferred from the build files';
  const targets = new Map(repo.expectedTargets.map((t) => [t.name, t]));
  const names = expected.names.slice(0, 20).map((n) => {
    const t = targets.get(n);
    return t ? `${n} (${t.kind}, ${t.source})` : n;
  });
  const more = expected.names.length > 20 ? ` and ${expected.names.length - 20} more` : '';
  return `${base}\nExpected binaries (${from}): ${names.join(', ')}${more}. All of them must be built.`;
}

export function describeRepo(repo: RepoInfo, tree: string | undefined, detail: Level['repo']): string {
  const lines: string[] = [];
  const langs = Object.entries(repo.languages)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
  lines.push(
    `- ${repo.name}: ${repo.fileCount}${repo.truncated ? '+' : ''} files${langs ? ` (${langs})` : ''}`,
  );
  const systems = repo.buildSystems.slice(0, detail === 'minimal' ? 3 : 8);
  lines.push(
    `- build systems, most likely first: ${systems.map((b) => `${b.kind} (${b.file})${b.linux ? '' : ' [not for Linux]'}`).join(', ') || 'none recognised'}`,
  );
  if (tree && detail !== 'minimal')
    lines.push(`- top level: ${oneLine(tree, detail === 'full' ? 600 : 300)}`);
  if (detail !== 'minimal') {
    if (repo.docs.length > 0)
      lines.push(
        `- docs: ${repo.docs
          .slice(0, 5)
          .map((d) => d.path)
          .join(', ')}`,
      );
    if (repo.ciFiles.length > 0) lines.push(`- CI files: ${repo.ciFiles.slice(0, 5).join(', ')}`);
    if (repo.dockerfiles.length > 0) lines.push(`- Dockerfiles: ${repo.dockerfiles.slice(0, 3).join(', ')}`);
    if (repo.submodules.length > 0) {
      lines.push(
        `- submodules: ${repo.submodules
          .slice(0, 6)
          .map((s) => `${s.path}${s.populated ? '' : ' (empty)'}`)
          .join(', ')}`,
      );
    }
  }
  if (detail === 'full' && repo.mainSources.length > 0)
    lines.push(`- files defining main(): ${repo.mainSources.slice(0, 5).join(', ')}`);
  return lines.join('\n');
}

function exitText(record: TurnRecord): string {
  const o = record.observation;
  if (!o) return 'not run';
  const secs = Math.round(o.exec.durationMs / 1000);
  const parts = [
    o.exec.timedOut
      ? `stopped by the time limit after ${secs} s`
      : o.exec.cancelled
        ? 'cancelled'
        : `exit ${o.exec.exitCode} after ${secs} s`,
  ];
  if (o.exec.truncated)
    parts.push(`log ${(o.exec.totalBytes / 1e6).toFixed(1)} MB, only its head and tail kept`);
  return parts.join(', ');
}

function verifierText(record: TurnRecord): string {
  const o = record.observation;
  if (!o) return '';
  const built =
    o.artifacts.length > 0
      ? `${o.artifacts.length} new binar${o.artifacts.length === 1 ? 'y' : 'ies'} (${o.artifacts
          .slice(0, 6)
          .map((a) => a.path)
          .join(', ')}${o.artifacts.length > 6 ? ', …' : ''})`
      : 'no new binaries';
  return o.verdict.passed
    ? `passed; ${built}`
    : `not passed: ${o.verdict.failures.slice(0, 6).join('; ')}${o.verdict.failures.length > 6 ? '; …' : ''}; ${built}`;
}

function causeLine(record: TurnRecord): string | undefined {
  const o = record.observation;
  if (!o?.rootCause || o.exec.exitCode === 0) return undefined;
  return `${oneLine(o.rootCause.message, 300)} [${o.rootCause.id}, log line ${o.rootCause.line}]`;
}

function finishText(record: TurnRecord): string {
  const a = record.action;
  if (a.kind !== 'finish') return '';
  return `finish(${a.claim.toUpperCase()}): ${oneLine(a.reason, 300)}`;
}

function notesText(record: TurnRecord, max: number): string {
  return record.notes.map((n) => oneLine(n, max)).join(' | ');
}

function renderLine(record: TurnRecord): string {
  if (record.action.kind === 'finish')
    return `- Turn ${record.turn + 1}: ${finishText(record)}${record.notes.length ? ` — ${notesText(record, 200)}` : ''}`;
  const cause = causeLine(record);
  return `- Turn ${record.turn + 1}: ${oneLine(record.action.purpose, 80)} → ${exitText(record)}${cause ? `; root cause: ${cause}` : ''}`;
}

function renderBrief(record: TurnRecord): string {
  if (record.action.kind === 'finish') return renderLine(record);
  const lines = [`### Turn ${record.turn + 1}: ${oneLine(record.action.purpose, 80)}`];
  lines.push(`Script (start): ${oneLine(record.action.script, 300)}`);
  lines.push(`Result: ${exitText(record)}`);
  const cause = causeLine(record);
  if (cause) lines.push(`Root cause: ${cause}`);
  const v = verifierText(record);
  if (v) lines.push(`Verifiers: ${oneLine(v, 300)}`);
  if (record.notes.length > 0) lines.push(`Harness: ${notesText(record, 300)}`);
  return lines.join('\n');
}

function renderFull(record: TurnRecord, level: Level): string {
  if (record.action.kind === 'finish') {
    return `### Turn ${record.turn + 1}: ${finishText(record)}${record.notes.length ? `\nHarness: ${notesText(record, 600)}` : ''}`;
  }
  const a = record.action;
  const o = record.observation;
  const lines = [`### Turn ${record.turn + 1} (latest script): ${oneLine(a.purpose, 80)}`];
  if (a.reason && a.reason !== a.purpose) lines.push(`Why: ${oneLine(a.reason, 300)}`);
  lines.push('Script:', '```bash', clip(a.script.trimEnd(), level.script), '```');
  lines.push(`Result: ${exitText(record)}`);
  if (o) {
    const cause = causeLine(record);
    if (cause && o.rootCause) {
      lines.push(`Root cause: ${cause}`);
      if (level.excerpt > 0 && o.rootCause.excerpt.trim() !== '')
        lines.push(
          quoteUntrusted('log excerpt around the root cause', clip(o.rootCause.excerpt, level.excerpt)),
        );
      if (o.rootCause.hint) lines.push(`Hint: ${oneLine(o.rootCause.hint, 200)}`);
    } else if (o.exec.exitCode !== 0) {
      lines.push('Root cause: the log parser recognised no error; read the log tail.');
    }
    if (level.otherFindings > 0) {
      const seen = new Set<string>([o.rootCause?.message ?? '']);
      const others = o.findings
        .filter((f) => !f.followUp && !seen.has(f.message) && (seen.add(f.message), true))
        .slice(0, level.otherFindings);
      if (others.length > 0)
        lines.push(
          `Other errors: ${others.map((f) => `${oneLine(f.message, 160)} (line ${f.line})`).join('; ')}`,
        );
    }
    lines.push(`Verifiers: ${verifierText(record)}`);
    const tail = logTail(o.output, level.tailLines, level.tailChars);
    if (tail) lines.push(quoteUntrusted('end of the log', tail));
  }
  if (record.notes.length > 0) lines.push(`Harness: ${notesText(record, 600)}`);
  return lines.join('\n');
}

/** The history section at one compaction level. */
export function renderHistory(
  history: readonly TurnRecord[],
  notes: readonly string[],
  level: Level,
): string {
  const parts: string[] = [];
  for (const note of notes) parts.push(`Note from the harness: ${oneLine(note, 600)}`);
  if (history.length === 0) {
    parts.push('Nothing yet: this is the first script.');
    return parts.join('\n\n');
  }
  let lastRun = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.action.kind === 'run') {
      lastRun = i;
      break;
    }
  }
  const older = lastRun >= 0 ? history.slice(0, lastRun) : [];
  const recent = lastRun >= 0 ? history.slice(lastRun) : history;
  const shown = older.slice(Math.max(0, older.length - level.keepOlder));
  const omitted = older.length - shown.length;
  if (omitted > 0) parts.push(`(${omitted} earlier turn${omitted === 1 ? '' : 's'} not shown)`);
  const briefFrom = shown.length - level.briefOlder;
  const lines: string[] = [];
  shown.forEach((record, i) => {
    if (i >= briefFrom) {
      if (lines.length > 0) parts.push(lines.splice(0).join('\n'));
      parts.push(renderBrief(record));
    } else {
      lines.push(renderLine(record));
    }
  });
  if (lines.length > 0) parts.push(lines.join('\n'));
  // The latest root cause stays, whatever was compacted: repeat it when its turn is not the latest script.
  const latestCause = [...history].reverse().find((r) => causeLine(r) !== undefined);
  if (latestCause && latestCause !== history[lastRun] && !shown.includes(latestCause)) {
    parts.push(`Latest root cause (turn ${latestCause.turn + 1}): ${causeLine(latestCause)}`);
  }
  for (const record of recent) parts.push(renderFull(record, level));
  return parts.join('\n\n');
}

function askText(context: TurnContext): string {
  const left = context.maxTurns - context.turn;
  const job = context.goal ? 'the target cannot be made to run' : 'the build cannot be completed';
  const last =
    left <= 1
      ? ` This is the last script the run allows: if ${job} now, call finish with the reason instead.`
      : ` ${left} scripts are left, this one included.`;
  return `Call run_script with one whole bash script for the next step, or finish.${last}`;
}

/** The user prompt of one turn, compacted level by level until it fits `budgetChars` (the last level is used anyway). */
export function buildTurnPrompt(input: TurnPromptInput, budgetChars: number): TurnPrompt {
  const { context } = input;
  let text = '';
  for (let index = 0; index < LEVELS.length; index++) {
    const level = LEVELS[index]!;
    const instructions = input.instructions.trim();
    text = renderPrompt(
      'turn',
      {
        turn: context.turn + 1,
        maxTurns: context.maxTurns,
        goal: context.goal
          ? describeDeployGoal(context.goal, context.workdir)
          : describeGoal(context.expected, context.repo),
        repo: context.goal
          ? `${describeRepo(context.repo, input.tree, level.repo)}\n${describeEcosystems(context.repo, level.repo)}${alternativesPrompt(context.goal, context.repo, context.history)}`
          : describeRepo(context.repo, input.tree, level.repo),
        instructions:
          instructions === ''
            ? '(none found: work from the build files)'
            : level.instructions === 0
              ? '(left out to fit the prompt budget)'
              : quoteUntrusted(
                  'build instructions from the repository docs',
                  clip(instructions, level.instructions),
                ),
        history: renderHistory(context.history, input.notes, level),
        ask: askText(context),
      },
      input.prompts,
    );
    if (text.length <= budgetChars) return { text, level: index };
  }
  return { text, level: LEVELS.length - 1 };
}

/** The checkout's top-level entries on one line (`src/ include/ CMakeLists.txt README.md …`), '' when unreadable. */
export async function topLevelTree(root: string, max = 40): Promise<string> {
  try {
    const entries = (await readdir(root, { withFileTypes: true }))
      .filter((e) => e.name !== '.git')
      .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : 1));
    const names = entries.slice(0, max).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    return names.join(' ') + (entries.length > max ? ` … (${entries.length - max} more)` : '');
  } catch {
    return '';
  }
}
