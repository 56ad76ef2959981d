/**
 * The diagnosis of a failed CI run on a pull request. On `workflow_run.completed` with conclusion failure: the
 * run's pull requests, its failed jobs (and their first failing step), each failed job's log (the tail, bounded),
 * the workflow file at the run's commit (so the diagnosis can point at a line of it), `diagnoseLog`, then ONE
 * comment per pull request (marker `<!-- buildbench:diagnosis -->`, edited in place on later runs) and, when the
 * fix is a change to a line the pull request's diff shows, a review comment with a `suggestion` block on it.
 *
 * Silence: a run whose failures are not build problems (a flaky network error, a failing test) gets no comment.
 * An earlier diagnosis comment on the same pull request is then edited (an edit notifies nobody) to say that
 * the latest run on a newer commit failed for another reason, so that a stale diagnosis does not send the
 * reader after a problem the author has already fixed; on the same commit it is left alone (another workflow
 * of that commit failing on a test does not make the build diagnosis wrong).
 *
 * `check_run.completed`: a check run created by GitHub Actions belongs to a workflow run, which the
 * `workflow_run` event already diagnoses with the full job log — acting on both would comment twice, so those
 * are ignored. Other CI apps' check runs (whose logs the bot cannot download) are diagnosed from the text the
 * app put in the check run's output (title, summary, text), with a link to the check's details.
 *
 * The log is untrusted data: it is only matched by the diagnosis (which redacts secrets before quoting), and
 * everything the bot writes back that came from it (job and step names, a check's name and details URL, the
 * diagnosis) goes through the renderer of untrusted text (src/report/github-text.ts). No token ever enters a
 * comment.
 * The model is not consulted here (the layer-1 parser and the repair knowledge only).
 */
import type { Context } from 'probot';

import { httpStatus } from '../github/client.js';
import {
  describeStop,
  type DiagnoseFile,
  type DiagnoseOptions,
  type Diagnosis,
  type LineSuggestion,
} from '../knowledge/diagnose/diagnosis.js';
import { diagnoseInWorker } from '../knowledge/diagnose/worker.js';
import type { BotConfig } from './config.js';
import { codeBlock, codeSpan, inline, link, md, neutralise, stripControl } from './text.js';

export const DIAGNOSIS_MARKER = '<!-- buildbench:diagnosis -->';
export const SUGGESTION_MARKER = '<!-- buildbench:suggestion -->';
/**
 * The most of a job's log read (its tail). The failing step is the last one that ran (later steps are skipped;
 * only small post-job cleanups follow) and a compiler or configure script prints its error just before the
 * failure, while a log's head is checkout and toolchain setup; verbose builds write hundreds of megabytes, and
 * 5 MB (some 50,000 lines) keeps the failing step with ample context in bounded memory per delivery.
 */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;
/** Failed jobs whose logs are read per run (a matrix failing everywhere usually fails the same way). */
export const MAX_JOBS = 4;

type Octokit = Context['octokit'];

export interface CiFailureDeps {
  /**
   * Default: `diagnoseLog` (the layer-1 parser and the repair knowledge; no model) in a worker thread with a
   * time budget (knowledge/diagnose/worker.ts), so that a hostile log cannot hold up the App's event loop.
   */
  diagnose: (text: string, options: DiagnoseOptions) => Diagnosis | Promise<Diagnosis>;
  maxLogBytes: number;
  maxJobs: number;
  log: (message: string) => void;
}

/** What a handler did, for the App's log and the tests. */
export type CiFailureOutcome =
  | { action: 'ignored'; reason: string }
  | { action: 'silent'; reason: string; updated: number[]; noted?: number[] }
  | {
      action: 'commented';
      comments: { pr: number; id: number; operation: 'created' | 'updated' }[];
      suggestions: number;
    };

interface PullRef {
  number: number;
  headSha: string;
}

interface RepoRef {
  owner: string;
  repo: string;
}

/** One diagnosed source of a failure: a job of a workflow run, or another app's check run. */
interface Diagnosed {
  name: string;
  url: string;
  step?: string;
  diagnosis: Diagnosis;
  /** Lines of the log before the part read (a log cut to its tail), added to the quoted line numbers. */
  lineOffset: number;
  truncated: boolean;
}

function defaults(deps: Partial<CiFailureDeps> | undefined, context: Pick<Context, 'log'>): CiFailureDeps {
  return {
    diagnose: deps?.diagnose ?? ((text, options) => diagnoseInWorker(text, options)),
    maxLogBytes: deps?.maxLogBytes ?? MAX_LOG_BYTES,
    maxJobs: deps?.maxJobs ?? MAX_JOBS,
    log: deps?.log ?? ((message) => context.log.info(message)),
  };
}

export async function onCiFailure(
  context: Context<'workflow_run.completed'>,
  config: BotConfig,
  deps?: Partial<CiFailureDeps>,
): Promise<CiFailureOutcome> {
  const d = defaults(deps, context);
  return logged(d, `workflow run ${context.payload.workflow_run.id}`, diagnoseRun(context, config, d));
}

export async function onCheckRunFailure(
  context: Context<'check_run.completed'>,
  config: BotConfig,
  deps?: Partial<CiFailureDeps>,
): Promise<CiFailureOutcome> {
  const d = defaults(deps, context);
  return logged(d, `check run ${context.payload.check_run.id}`, diagnoseCheckRun(context, config, d));
}

async function logged(
  d: CiFailureDeps,
  what: string,
  outcome: Promise<CiFailureOutcome>,
): Promise<CiFailureOutcome> {
  const result = await outcome;
  const detail = result.action === 'commented' ? `${result.comments.length} comment(s)` : result.reason;
  d.log(`diagnosis of ${what}: ${result.action} (${detail})`);
  return result;
}

async function diagnoseRun(
  context: Context<'workflow_run.completed'>,
  config: BotConfig,
  d: CiFailureDeps,
): Promise<CiFailureOutcome> {
  const run = context.payload.workflow_run;
  if (!config.diagnose) return { action: 'ignored', reason: 'diagnose is off in the configuration' };
  if (run.conclusion !== 'failure')
    return { action: 'ignored', reason: `conclusion ${String(run.conclusion)}` };
  const repo = context.repo();
  const pulls = await pullsOfRun(context.octokit, repo, context.payload.repository.id, run);
  if (pulls.length === 0) return { action: 'ignored', reason: 'the run belongs to no open pull request' };
  // A run of a commit the pull request has moved past: the newer commit's run will say what matters, and an
  // older run finishing late must not overwrite its diagnosis.
  const current = pulls.filter((pr) => pr.headSha === run.head_sha);
  if (current.length === 0)
    return { action: 'ignored', reason: 'the pull request has moved on to a newer commit' };

  const jobs = await context.octokit.paginate(context.octokit.rest.actions.listJobsForWorkflowRun, {
    ...repo,
    run_id: run.id,
    filter: 'latest',
    per_page: 100,
  });
  const failed = jobs.filter((job) => job.conclusion === 'failure').slice(0, d.maxJobs);
  if (failed.length === 0) return { action: 'ignored', reason: 'no failed job in the run' };

  const files: DiagnoseFile[] = [];
  const workflow = await fileAt(context.octokit, repo, run.path, run.head_sha);
  if (workflow !== undefined) files.push({ path: run.path, content: workflow });

  const diagnosed: Diagnosed[] = [];
  for (const job of failed) {
    const got = await downloadJobLog(context.octokit, repo, job.id, d.maxLogBytes).catch((error: unknown) => {
      // Logs expire (410) or are gone with a deleted run (404): that job has nothing to say.
      const status = httpStatus(error);
      if (status === 404 || status === 410) {
        d.log(`the log of job ${job.id} is not available (HTTP ${status})`);
        return undefined;
      }
      throw error;
    });
    if (!got) continue;
    const { text, droppedLines, truncated } = got;
    const diagnosis = await d.diagnose(text, { files });
    const step = job.steps?.find((s) => s.conclusion === 'failure')?.name;
    diagnosed.push({
      name: job.name,
      url: job.html_url ?? run.html_url,
      ...(step ? { step } : {}),
      diagnosis,
      lineOffset: droppedLines,
      truncated,
    });
  }
  if (diagnosed.length === 0) return { action: 'ignored', reason: 'no log of a failed job could be read' };
  return report(
    context.octokit,
    repo,
    current,
    diagnosed,
    {
      sha: run.head_sha,
      title: `${run.name ?? 'workflow'} run #${run.run_number}`,
      url: run.html_url,
    },
    config.notBuildNote,
  );
}

async function diagnoseCheckRun(
  context: Context<'check_run.completed'>,
  config: BotConfig,
  d: CiFailureDeps,
): Promise<CiFailureOutcome> {
  const check = context.payload.check_run;
  if (!config.diagnose) return { action: 'ignored', reason: 'diagnose is off in the configuration' };
  if (check.conclusion !== 'failure')
    return { action: 'ignored', reason: `conclusion ${String(check.conclusion)}` };
  if (check.app?.slug === 'github-actions') {
    return { action: 'ignored', reason: 'a GitHub Actions check run: its workflow_run is diagnosed instead' };
  }
  const repoId = context.payload.repository.id;
  const pulls: PullRef[] = (check.pull_requests ?? [])
    .filter((pr) => pr.base.repo.id === repoId)
    .map((pr) => ({ number: pr.number, headSha: pr.head.sha }));
  if (pulls.length === 0) return { action: 'ignored', reason: 'the check run belongs to no pull request' };
  const current = pulls.filter((pr) => pr.headSha === check.head_sha);
  if (current.length === 0)
    return { action: 'ignored', reason: 'the pull request has moved on to a newer commit' };
  const output = check.output;
  const text = [output.title, output.summary, output.text].filter((part) => !!part).join('\n');
  if (text.trim() === '')
    return { action: 'ignored', reason: 'the check run has no output text to diagnose' };
  const diagnosis = await d.diagnose(text.slice(-d.maxLogBytes), { files: [] });
  const url = check.details_url || check.html_url || '';
  return report(
    context.octokit,
    context.repo(),
    current,
    [{ name: check.name, url, diagnosis, lineOffset: 0, truncated: false }],
    { sha: check.head_sha, title: `check ${check.name}`, url },
    config.notBuildNote,
  );
}

// ---------------------------------------------------------------------------------------------------------
// GitHub look-ups

interface RunLike {
  head_sha: string;
  head_branch: string | null;
  pull_requests: ({ number: number; head: { sha: string }; base: { repo: { id: number } } } | null)[] | null;
  head_repository?: { owner?: { login?: string } | null } | null;
}

/**
 * The open pull requests a run belongs to: the payload's `pull_requests` (only those into this repository),
 * else — GitHub leaves that list empty for a fork's pull request — the open pull requests whose head is the
 * run's branch in the run's head repository.
 */
async function pullsOfRun(octokit: Octokit, repo: RepoRef, repoId: number, run: RunLike): Promise<PullRef[]> {
  const listed = (run.pull_requests ?? [])
    .filter((pr) => pr !== null && pr.base.repo.id === repoId)
    .map((pr) => pr!)
    .map((pr) => ({ number: pr.number, headSha: pr.head.sha }));
  if (listed.length > 0) return listed;
  const headOwner = run.head_repository?.owner?.login;
  if (!run.head_branch || !headOwner) return [];
  const { data } = await octokit.rest.pulls.list({
    ...repo,
    state: 'open',
    head: `${headOwner}:${run.head_branch}`,
    per_page: 100,
  });
  return data.map((pr) => ({ number: pr.number, headSha: pr.head.sha }));
}

/** A file's text at a commit, or undefined when it is not there (a 404) or is not a file. */
async function fileAt(
  octokit: Octokit,
  repo: RepoRef,
  path: string,
  ref: string,
): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.repos.getContent({
      ...repo,
      path,
      ref,
      mediaType: { format: 'raw' },
    });
    // The raw media type comes back as text or, without a charset, as bytes.
    const body = data as unknown;
    if (typeof body === 'string') return body;
    if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
    return undefined;
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

/**
 * A job's log: `GET …/actions/jobs/{id}/logs` answers with a redirect to the log's text, which fetch follows
 * (dropping the Authorization header on the way to the other origin). The body is streamed and only its last
 * `maxBytes` kept; the newlines of what was dropped are counted so quoted line numbers stay the log's own.
 */
export async function downloadJobLog(
  octokit: Octokit,
  repo: RepoRef,
  jobId: number,
  maxBytes: number,
): Promise<{ text: string; droppedLines: number; truncated: boolean }> {
  const response = await octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
    ...repo,
    job_id: jobId,
    request: { parseSuccessResponseBody: false },
  });
  const body = response.data;
  if (typeof body === 'string') return tailOf([new TextEncoder().encode(body)], maxBytes);
  if (!(body instanceof ReadableStream)) return { text: '', droppedLines: 0, truncated: false };
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let droppedLines = 0;
  let dropped = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    kept += value.byteLength;
    while (chunks.length > 1 && kept - chunks[0]!.byteLength >= maxBytes) {
      const first = chunks.shift()!;
      kept -= first.byteLength;
      droppedLines += countNewlines(first);
      dropped = true;
    }
  }
  const tail = tailOf(chunks, maxBytes);
  return {
    text: tail.text,
    droppedLines: droppedLines + tail.droppedLines,
    truncated: dropped || tail.truncated,
  };
}

function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n += 1;
  return n;
}

/** The last `maxBytes` of the chunks, starting at a whole line when anything was cut. */
function tailOf(
  chunks: Uint8Array[],
  maxBytes: number,
): { text: string; droppedLines: number; truncated: boolean } {
  const total = chunks.reduce((sum, c) => sum + c.byteLength, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  if (total <= maxBytes) return { text: new TextDecoder().decode(all), droppedLines: 0, truncated: false };
  let start = total - maxBytes;
  let droppedLines = countNewlines(all.subarray(0, start));
  const newline = all.indexOf(0x0a, start);
  if (newline >= 0 && newline + 1 < total) {
    start = newline + 1;
    droppedLines += 1;
  }
  return { text: new TextDecoder().decode(all.subarray(start)), droppedLines, truncated: true };
}

// ---------------------------------------------------------------------------------------------------------
// Comments

interface RunInfo {
  sha: string;
  title: string;
  url: string;
}

async function report(
  octokit: Octokit,
  repo: RepoRef,
  pulls: PullRef[],
  diagnosed: Diagnosed[],
  run: RunInfo,
  notBuildNote = false,
): Promise<CiFailureOutcome> {
  const found = diagnosed.filter((x) => x.diagnosis.found);
  if (found.length === 0) {
    const reasons = diagnosed.map((x) => (x.diagnosis.found ? '' : x.diagnosis.reason)).filter((r) => r);
    const reason = [...new Set(reasons)].join('; ') || 'nothing build-related in the logs';
    // Configured (`not-build-note: true`), a failure classified as not a build problem gets one line saying
    // so — never a fix; an error nothing recognises, or a log with none, stays silent.
    const note = notBuildNote ? noteLine(diagnosed) : undefined;
    const updated: number[] = [];
    const noted: number[] = [];
    for (const pr of pulls) {
      const existing = await findComment(octokit, repo, pr.number, DIAGNOSIS_MARKER);
      if (existing && shaOf(existing.body) === run.sha) continue;
      if (existing) {
        await octokit.rest.issues.updateComment({
          ...repo,
          comment_id: existing.id,
          body: notBuildBody(run, reason),
        });
        updated.push(pr.number);
      } else if (note) {
        await octokit.rest.issues.createComment({
          ...repo,
          issue_number: pr.number,
          body: `${header(run)}\n${note}\n`,
        });
        noted.push(pr.number);
      }
    }
    return { action: 'silent', reason, updated, ...(notBuildNote ? { noted } : {}) };
  }

  const comments: { pr: number; id: number; operation: 'created' | 'updated' }[] = [];
  let suggestions = 0;
  for (const pr of pulls) {
    const placed = new Set<string>();
    const tried = new Set<string>();
    for (const item of found) {
      const suggestion = item.diagnosis.found ? item.diagnosis.fix?.suggestion : undefined;
      if (!suggestion || tried.has(suggestionKey(suggestion))) continue;
      tried.add(suggestionKey(suggestion));
      if (await suggestOnLine(octokit, repo, pr.number, run.sha, suggestion)) {
        placed.add(suggestionKey(suggestion));
        suggestions += 1;
      }
    }
    const body = diagnosisBody(run, found, placed);
    const existing = await findComment(octokit, repo, pr.number, DIAGNOSIS_MARKER);
    if (existing) {
      await octokit.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
      comments.push({ pr: pr.number, id: existing.id, operation: 'updated' });
    } else {
      const { data } = await octokit.rest.issues.createComment({ ...repo, issue_number: pr.number, body });
      comments.push({ pr: pr.number, id: data.id, operation: 'created' });
    }
  }
  return { action: 'commented', comments, suggestions };
}

interface FoundComment {
  id: number;
  body: string;
}

/** The bot's comment carrying `marker` on an issue or pull request (a person quoting the marker is not it). */
async function findComment(
  octokit: Octokit,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
): Promise<FoundComment | undefined> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  const mine = comments.find((c) => c.user?.type === 'Bot' && (c.body ?? '').startsWith(marker));
  return mine ? { id: mine.id, body: mine.body ?? '' } : undefined;
}

const SHA_LINE = /^<!-- buildbench:sha ([0-9a-f]{7,64}) -->$/m;

function shaOf(body: string): string | undefined {
  return SHA_LINE.exec(body)?.[1];
}

function suggestionKey(s: LineSuggestion): string {
  return `${s.path}:${s.line}`;
}

/**
 * A review comment with a `suggestion` block on the line the fix concerns, when the pull request's diff shows
 * that line (GitHub refuses review comments elsewhere with a 422 — then the plain comment carries the change).
 * An identical suggestion the bot already left on that line is not repeated.
 */
async function suggestOnLine(
  octokit: Octokit,
  repo: RepoRef,
  pullNumber: number,
  commitId: string,
  s: LineSuggestion,
): Promise<boolean> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    ...repo,
    pull_number: pullNumber,
    per_page: 100,
  });
  const file = files.find((f) => f.filename === s.path);
  if (!file?.patch || !lineInPatch(file.patch, s.line)) return false;
  const body = suggestionBody(s);
  const existing = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
    ...repo,
    pull_number: pullNumber,
    per_page: 100,
  });
  if (
    existing.some((c) => c.user?.type === 'Bot' && c.path === s.path && c.line === s.line && c.body === body)
  ) {
    return true;
  }
  try {
    await octokit.rest.pulls.createReviewComment({
      ...repo,
      pull_number: pullNumber,
      commit_id: commitId,
      path: s.path,
      line: s.line,
      side: 'RIGHT',
      body,
    });
    return true;
  } catch (error) {
    if (httpStatus(error) === 422) return false;
    throw error;
  }
}

/** Whether a line of the new file is on the RIGHT side of a unified diff's hunks (added or context). */
export function lineInPatch(patch: string, line: number): boolean {
  for (const match of patch.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (line >= start && line < start + count) return true;
  }
  return false;
}

export function suggestionBody(s: LineSuggestion): string {
  return `${SUGGESTION_MARKER}\n**buildbench:** ${inline(s.why)}\n\n${codeBlock(s.replacement, 'suggestion')}\n`;
}

/** The markers, then the title: the run's or check's name linked to its page (`link` drops an unsafe URL). */
function header(run: RunInfo): string {
  const sha = /^[0-9a-f]{7,64}$/.test(run.sha) ? `<!-- buildbench:sha ${run.sha} -->\n` : '';
  return `${DIAGNOSIS_MARKER}\n${sha}### buildbench: why ${link(run.title, run.url)} failed\n`;
}

/** The words a note uses for each kind of failure that is not a build problem. */
const NOTE_WORDS: Readonly<Record<string, string>> = {
  'flaky-network': 'a network error while downloading, most likely transient: re-running the job may pass',
  'tests-failed': 'the build succeeded and tests failed',
  'runner-out-of-disk': 'the runner ran out of disk space',
  cancelled: 'the job was cancelled',
  timeout: 'the job ran out of time',
  infrastructure: 'the runner or the CI service failed, not the build',
};

/**
 * The one line of a `not-build-note`: each job's kind of failure (not a build problem) with its evidence line
 * number; undefined when any job's failure is unrecognised or shows no error (nothing is said then).
 */
export function noteLine(diagnosed: readonly Diagnosed[]): string | undefined {
  const parts: string[] = [];
  for (const item of diagnosed) {
    const d = item.diagnosis;
    if (d.found) return undefined;
    const words = NOTE_WORDS[d.kind];
    if (!words) return undefined;
    const line = d.evidence ? ` (line ${d.evidence.line + item.lineOffset})` : '';
    parts.push(`${inline(item.name)}: ${words}${line}`);
  }
  if (parts.length === 0) return undefined;
  return `Not a build problem, so no fix is proposed — ${[...new Set(parts)].join('; ')}.`;
}

export function notBuildBody(run: RunInfo, reason: string): string {
  return (
    header(run) +
    `\nThe latest run (commit ${codeSpan(run.sha.slice(0, 7))}) failed, but not on a build problem: ${neutralise(reason)}. ` +
    'The earlier diagnosis in this comment no longer applies.\n'
  );
}

export function diagnosisBody(run: RunInfo, found: Diagnosed[], placed: Set<string>): string {
  const parts = [header(run)];
  // A matrix failing the same way everywhere: one section, naming every job.
  const groups = new Map<string, Diagnosed[]>();
  for (const item of found) {
    if (!item.diagnosis.found) continue;
    const key = `${item.diagnosis.rootCause.id}\u0000${item.diagnosis.rootCause.message}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  for (const items of groups.values()) {
    const first = items[0]!;
    if (!first.diagnosis.found) continue;
    const { rootCause, fix, confidence } = first.diagnosis;
    const jobs = items
      .map((i) => `${link(i.name, i.url)}${i.step ? ` (step *${inline(i.step)}*)` : ''}`)
      .join(', ');
    parts.push(`\n**Failed:** ${jobs}\n`);
    parts.push(
      md`\n**Root cause** (${md.code(rootCause.id)}, confidence ${confidence}): ${md.prose(rootCause.message)}\n`
        .text,
    );
    if (rootCause.lines.length > 0) {
      const quoted = rootCause.lines.map((l) => `${l.line + first.lineOffset}: ${l.text}`).join('\n');
      const where = first.truncated
        ? 'the log (its last part was read; line numbers are the whole log’s)'
        : 'the log';
      parts.push(`\nFrom ${where}:\n\n${codeBlock(quoted, 'text')}\n`);
    }
    if (rootCause.symptoms?.length) {
      const later = rootCause.symptoms.map((l) => `${l.line + first.lineOffset}: ${l.text}`).join('\n');
      parts.push(`\nLater lines it explains:\n\n${codeBlock(later, 'text')}\n`);
    }
    if (first.diagnosis.stoppedEarly)
      parts.push(`\n${neutralise(describeStop(first.diagnosis.stoppedEarly))}\n`);
    if (fix) {
      parts.push(`\n**Fix:** ${neutralise(fix.summary)}\n`);
      if (fix.packages?.length) parts.push(`\nPackages: ${fix.packages.map((p) => codeSpan(p)).join(' ')}\n`);
      if (fix.lookups?.length) parts.push(`\nLook up: ${fix.lookups.map((p) => codeSpan(p)).join(' ')}\n`);
      if (fix.commands?.length) parts.push(`\n${codeBlock(fix.commands.join('\n'), 'sh')}\n`);
      // A patch that only carries the line suggestion is shown as the suggestion (below).
      if (fix.patch && !fix.suggestion) parts.push(`\n${codeBlock(fix.patch, 'diff')}\n`);
      const s = fix.suggestion;
      if (s) {
        const where = md`${md.code(s.path)} line ${s.line}`.text;
        if (placed.has(suggestionKey(s))) {
          parts.push(`\nA suggested change to ${where} is in the review comments.\n`);
        } else {
          const diff = `-${stripControl(s.original)}\n+${stripControl(s.replacement)}`;
          parts.push(`\nChange ${where} (${inline(s.why)}):\n\n${codeBlock(diff, 'diff')}\n`);
        }
      }
    }
  }
  parts.push('\n<sub>Updated on each failed run of this pull request.</sub>\n');
  return parts.join('');
}
