/**
 * The patch series: every file of the repository that existed before the build and whose content the run
 * changed becomes one `git format-patch`-style file, `patches/NNNN-<slug>.patch`, whose message says which
 * error the change fixed and why (from the repair that made it). Files the build created are build outputs
 * and never patches; binary files and removed files are listed as skipped.
 *
 * The diffs are real unified diffs from `git diff --no-index` (or `diff -u` where git is missing), so the
 * series applies with `git am` (or `patch -p1`) on the original tree, in order.
 */
import { chmod, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  copyFileNoFollow,
  lstatUnder,
  openUnder,
  readFileUnder,
  readlinkUnder,
  UnsafePathError,
} from '../base/safe-fs.js';
import { errorMessage, SandboxError } from '../base/errors.js';
import { escapeRegex } from '../base/escape-regex.js';
import { runProcess } from '../base/process.js';
import { snapshotTree } from '../verify/artifacts.js';
import { answeredFinding, type ReportTurn } from './turns.js';

export interface ResultPatch {
  /** The patch file, relative to the output directory (`patches/0001-….patch`). */
  file: string;
  /** Repository files it changes. */
  paths: string[];
  subject: string;
  /** Which error it fixed and why, or what changed the file when no repair claims it. */
  reason: string;
  /** The turn whose script made the change, when known. */
  turn?: number;
}

export interface ChangedFile {
  /** Relative to the repository root, '/'-separated. */
  path: string;
  /** Permission bits of the original file. */
  mode: number;
  /** The build replaced the file by a symbolic link: the patch replaces it by the same link (its text, not its target). */
  becameLink?: boolean;
}

export interface SkippedFile {
  path: string;
  why: string;
}

/** Files larger than this are not turned into patches. */
const MAX_PATCH_FILE_BYTES = 8 * 1024 * 1024;
/** A run that rewrote more files than this did not patch sources; the rest are skipped. */
const MAX_PATCHES = 100;
const SNIFF_BYTES = 8000;

/**
 * Compares two files of the same size chunk by chunk (large files are never read whole), each opened under its
 * root without following a symbolic link.
 */
async function sameContent(rootA: string, rootB: string, rel: string): Promise<boolean> {
  const [x, y] = await Promise.all([openUnder(rootA, rel), openUnder(rootB, rel)]);
  try {
    const size = 1 << 20;
    const bx = Buffer.alloc(size);
    const by = Buffer.alloc(size);
    for (let offset = 0; ; offset += size) {
      const [rx, ry] = await Promise.all([
        x.handle.read(bx, 0, size, offset),
        y.handle.read(by, 0, size, offset),
      ]);
      if (rx.bytesRead !== ry.bytesRead) return false;
      if (rx.bytesRead === 0) return true;
      if (!bx.subarray(0, rx.bytesRead).equals(by.subarray(0, ry.bytesRead))) return false;
    }
  } finally {
    await Promise.all([x.handle.close(), y.handle.close()]);
  }
}

async function looksBinary(root: string, rel: string): Promise<boolean> {
  return (await readFileUnder(root, rel, { maxBytes: SNIFF_BYTES })).includes(0);
}

/**
 * Files present in `originalDir` (outside `.git`, regular files only) whose content differs in `workDir`.
 * Files only in `workDir` are build outputs and ignored. Sorted by path.
 *
 * The work tree was written by the build: nothing in it is read through a symbolic link. A file whose folder
 * was replaced by a link is skipped with a note; a file replaced by a link that stays in the tree becomes a
 * patch that replaces it with that link (git's own form, mode 120000 and the link's text), never the target's
 * content; a link that leads outside is skipped with a note.
 */
export async function findChangedFiles(
  originalDir: string,
  workDir: string,
  options: { exclude?: (relPath: string, isDirectory: boolean) => boolean } = {},
): Promise<{ changed: ChangedFile[]; skipped: SkippedFile[] }> {
  const before = await snapshotTree(originalDir, { exclude: options.exclude });
  const changed: ChangedFile[] = [];
  const skipped: SkippedFile[] = [];
  for (const rel of [...before.keys()].sort()) {
    const stamp = before.get(rel)!;
    if (stamp.raw) {
      skipped.push({
        path: rel,
        why: 'a file name that is not UTF-8 or holds control characters (not turned into a patch)',
      });
      continue;
    }
    let after;
    try {
      after = await lstatUnder(workDir, rel);
    } catch (error) {
      if (!(error instanceof UnsafePathError)) throw error;
      skipped.push({
        path: rel,
        why: `a folder on its path was replaced by a symbolic link while the build ran (not followed)`,
      });
      continue;
    }
    if (!after) {
      skipped.push({ path: rel, why: 'removed while the build ran (not a source change)' });
      continue;
    }
    if (after.isSymbolicLink()) {
      const text = (await readlinkUnder(workDir, rel)).toString('utf8');
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(rel), text));
      if (path.posix.isAbsolute(text) || resolved === '..' || resolved.startsWith('../')) {
        skipped.push({
          path: rel,
          why: 'replaced by a symbolic link that leads outside the tree (not followed, not a patch)',
        });
        continue;
      }
      const original = await lstat(path.join(originalDir, rel));
      changed.push({ path: rel, mode: original.mode & 0o777, becameLink: true });
      continue;
    }
    if (!after.isFile()) {
      skipped.push({ path: rel, why: 'replaced by something that is not a regular file' });
      continue;
    }
    if (after.size === stamp.size && after.mtimeMs === stamp.mtimeMs) continue;
    if (after.size === stamp.size && (await sameContent(originalDir, workDir, rel))) continue;
    if (Math.max(after.size, stamp.size) > MAX_PATCH_FILE_BYTES) {
      skipped.push({ path: rel, why: `larger than ${MAX_PATCH_FILE_BYTES / 1024 / 1024} MiB` });
      continue;
    }
    if ((await looksBinary(originalDir, rel)) || (await looksBinary(workDir, rel))) {
      skipped.push({ path: rel, why: 'a binary file (rebuilt by the build, not a source change)' });
      continue;
    }
    const original = await lstat(path.join(originalDir, rel));
    changed.push({ path: rel, mode: original.mode & 0o777 });
  }
  return { changed, skipped };
}

// ---------------------------------------------------------------------------------------------------------
// Diffs

/** What one diff may print: two files of MAX_PATCH_FILE_BYTES, whole, with room for the hunk headers. */
const MAX_DIFF_BYTES = 4 * MAX_PATCH_FILE_BYTES;

interface ToolRun {
  /** The exit status; 127 when the program could not be started. */
  code: number;
  /** Its stdout alone, whole (a diff must never lose bytes to the output cap). */
  stdout: string;
  /** Why it could not be started or why it failed, for the error message. */
  problem?: string;
}

/** Runs `git diff` or `diff` through the one host process runner, with a neutral git configuration. */
async function runTool(command: string, args: string[], cwd: string): Promise<ToolRun> {
  let result;
  try {
    result = await runProcess(command, args, {
      cwd,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' },
      discardStderr: true,
      headBytes: MAX_DIFF_BYTES,
      tailBytes: 0,
    });
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return { code: 127, stdout: '', problem: errorMessage(error) };
  }
  if (result.truncated) {
    return { code: 2, stdout: '', problem: `${command} printed more than ${MAX_DIFF_BYTES} bytes` };
  }
  return { code: result.exitCode, stdout: result.output, problem: `${command} exited ${result.exitCode}` };
}

/**
 * A unified diff (`diff --git a/<rel> b/<rel>` …) of one file between two trees, or '' when they are equal.
 * Both copies get the original's mode, so only content changes show.
 */
export async function diffFile(originalDir: string, workDir: string, file: ChangedFile): Promise<string> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'buildbench-diff-'));
  try {
    const a = path.join(scratch, 'a', file.path);
    const b = path.join(scratch, 'b', file.path);
    await mkdir(path.dirname(a), { recursive: true });
    await mkdir(path.dirname(b), { recursive: true });
    // Neither copy follows a symbolic link; a link in the work tree is copied as a link (its text).
    await copyFileNoFollow(originalDir, file.path, a);
    await chmod(a, file.mode);
    if (file.becameLink) {
      await symlink(await readlinkUnder(workDir, file.path), b);
    } else {
      await copyFileNoFollow(workDir, file.path, b);
      await chmod(b, file.mode);
    }
    const relA = `a/${file.path}`;
    const relB = `b/${file.path}`;
    const git = await runTool(
      'git',
      ['diff', '--no-index', '--no-color', '--no-ext-diff', '--no-prefix', '--full-index', '--', relA, relB],
      scratch,
    );
    if (git.code === 0) return '';
    if (git.code === 1 && git.stdout.startsWith('diff --git ')) {
      // A type change (file → link) is a deletion and a creation, which --no-index names `a/x a/x` and
      // `b/x b/x`; git's own form is `a/x b/x` for both.
      const header = `diff --git ${relA} ${relB}`;
      return git.stdout
        .split('\n')
        .map((line) =>
          line === `diff --git ${relA} ${relA}` || line === `diff --git ${relB} ${relB}` ? header : line,
        )
        .join('\n');
    }
    const diff = await runTool('diff', ['-u', '--label', relA, '--label', relB, relA, relB], scratch);
    if (diff.code === 0) return '';
    if (diff.code !== 1) throw new Error(`cannot diff ${file.path}: ${git.problem}; ${diff.problem}`);
    return `diff --git ${relA} ${relB}\n${diff.stdout}`;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `git diff --stat`-like summary of a diff. */
export function diffStat(diff: string): {
  path: string;
  insertions: number;
  deletions: number;
  text: string;
} {
  let insertions = 0;
  let deletions = 0;
  let inHunk = false;
  let file = '';
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      inHunk = false;
      file = line.replace(/^diff --git a\/(.*) b\/.*$/, '$1');
    } else if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('+')) insertions++;
    else if (inHunk && line.startsWith('-')) deletions++;
  }
  const total = insertions + deletions;
  const width = 40;
  const scale = total > width ? width / total : 1;
  const plus = '+'.repeat(Math.round(insertions * scale));
  const minus = '-'.repeat(Math.round(deletions * scale));
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  const summary = [`1 file changed`];
  if (insertions > 0) summary.push(count(insertions, 'insertion(+)', 'insertions(+)'));
  if (deletions > 0) summary.push(count(deletions, 'deletion(-)', 'deletions(-)'));
  return {
    path: file,
    insertions,
    deletions,
    text: ` ${file} | ${total} ${plus}${minus}\n ${summary.join(', ')}\n`,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Attribution: which repair made a change, and which error it answered

export interface Attribution {
  subject: string;
  reason: string;
  /** The message body (without the diff). */
  body: string;
  turn?: number;
}

interface EditRecord {
  turn: ReportTurn;
  file: string;
  reason: string;
}

const AUTOTOOLS_GENERATED = new Set([
  'configure',
  'Makefile.in',
  'aclocal.m4',
  'config.h.in',
  'ltmain.sh',
  'config.guess',
  'config.sub',
  'install-sh',
  'missing',
  'depcomp',
  'compile',
  'test-driver',
  'ar-lib',
  'libtool.m4',
  'ltoptions.m4',
  'ltsugar.m4',
  'ltversion.m4',
  'lt~obsolete.m4',
]);

function editRecords(turns: readonly ReportTurn[]): EditRecord[] {
  return turns.flatMap((turn) => (turn.patches ?? []).map((p) => ({ turn, file: p.file, reason: p.reason })));
}

/** Whether an Action.patches `file` description (free text) names `rel`, given its original content. */
export function describesFile(description: string, rel: string, originalText: string): boolean {
  const base = path.posix.basename(rel);
  for (const token of description.split(/[,\s]+/)) {
    const name = token.replace(/^\.\//, '').replace(/[()'"`]/g, '');
    if (name === '' || name.startsWith('<')) continue;
    if (
      name === rel ||
      (!name.includes('/') && name === base) ||
      (name.includes('*') && globMatches(name, rel))
    ) {
      return true;
    }
  }
  for (const match of description.matchAll(/<([^<>\s]+)>/g)) {
    const header = match[1]!;
    if (new RegExp(`^[ \\t]*#[ \\t]*include[ \\t]*[<"]${escapeRegex(header)}[>"]`, 'm').test(originalText))
      return true;
  }
  return false;
}

function globMatches(glob: string, rel: string): boolean {
  const re = new RegExp(`(^|/)${glob.split('*').map(escapeRegex).join('[^/]*')}$`);
  return re.test(rel);
}

/** The first clause of a reason, for a subject line. */
function firstClause(reason: string): string {
  const clause = reason.split(/;\s|\.\s/)[0] ?? reason;
  return clause.replace(/\.$/, '').trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function wrap(text: string, width = 72): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/** Who changed `rel` and why: the repairs whose patch descriptions name it, else what most likely did. */
export function attributeChange(
  rel: string,
  originalText: string,
  turns: readonly ReportTurn[],
  version: string,
): Attribution {
  const records = editRecords(turns).filter((r) => describesFile(r.file, rel, originalText));
  const body: string[] = [];
  if (records.length > 0) {
    const reasons = [...new Set(records.map((r) => r.reason))];
    const first = records[0]!;
    for (const record of records) {
      const answered = answeredFinding(turns, record.turn.turn);
      if (answered) {
        body.push(
          `Fixes the error buildbench saw in turn ${answered.turn} (${answered.finding.id}):`,
          '',
          `    ${answered.finding.message}`,
          '',
        );
      }
    }
    const why = reasons.join('; ');
    body.push(...wrap(`Why: ${why}${/[.!?]$/.test(why) ? '' : '.'}`), '');
    const passed = turns.some((t) => t.passed);
    body.push(
      ...wrap(
        `Made by turn ${first.turn.turn} (${first.turn.purpose}) of a buildbench ${version} run` +
          (passed
            ? '; the build passed its verifiers with this change.'
            : '; the build did not pass its verifiers, so this is an attempt, not a proven fix.'),
      ),
    );
    return {
      subject: clip(`${rel}: ${firstClause(first.reason)}`, 72),
      reason: reasons.join('; '),
      body: body.join('\n'),
      turn: first.turn.turn,
    };
  }
  const generated =
    AUTOTOOLS_GENERATED.has(path.posix.basename(rel)) &&
    turns.some(
      (t) => t.recipe?.steps.some((s) => s.purpose === 'generate') ?? /autoreconf|autogen/.test(t.script),
    );
  if (generated) {
    const reason =
      'regenerated by the autotools in the generate step (autoreconf); the committed copy was out of date';
    body.push(...wrap(`${reason}.`), '', ...wrap(`Recorded by buildbench ${version}.`));
    return { subject: clip(`${rel}: regenerate with the autotools`, 72), reason, body: body.join('\n') };
  }
  const reason =
    'changed while the build ran, and no repair says it edits this file: a build step rewrote it; check it before keeping it';
  body.push(...wrap(`${reason}.`), '', ...wrap(`Recorded by buildbench ${version}.`));
  return { subject: clip(`${rel}: changed by the build`, 72), reason, body: body.join('\n') };
}

// ---------------------------------------------------------------------------------------------------------
// Rendering and writing the series

/** `git format-patch`'s file name part: runs of other characters become '-', at most 52 characters. */
export function slugify(subject: string): string {
  const slug = subject
    .replace(/[^A-Za-z0-9.]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 52)
    .replace(/[-.]+$/g, '');
  return slug || 'change';
}

/** RFC 2822 date as git writes it. */
export function rfc2822(date: Date): string {
  return date.toUTCString().replace(/GMT$/, '+0000');
}

/** RFC 2047 encoding for a header with non-ASCII characters. */
function encodeHeader(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

export interface PatchMessage {
  index: number;
  total: number;
  subject: string;
  body: string;
  diff: string;
  date: Date;
  version: string;
  author?: string;
}

/** One patch in `git format-patch` form: mbox From line, headers, message, `---`, diffstat, diff, signature. */
export function renderPatch(message: PatchMessage): string {
  const prefix = message.total > 1 ? `[PATCH ${message.index}/${message.total}]` : '[PATCH]';
  const stat = diffStat(message.diff);
  return [
    'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
    `From: ${message.author ?? 'buildbench <buildbench@localhost>'}`,
    `Date: ${rfc2822(message.date)}`,
    `Subject: ${encodeHeader(`${prefix} ${message.subject}`)}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    message.body.trimEnd(),
    '---',
    stat.text,
    message.diff.endsWith('\n') ? message.diff : `${message.diff}\n`,
    '-- ',
    `buildbench ${message.version}`,
    '',
  ].join('\n');
}

export interface CollectPatchesInput {
  /** The repository as it was checked out (never touched by the build). */
  originalDir: string;
  /** The sandbox's working copy after the run. */
  workDir: string;
  turns: readonly ReportTurn[];
  /** Where `patches/` is written (the output directory). */
  outDir: string;
  version: string;
  date?: Date;
  exclude?: (relPath: string, isDirectory: boolean) => boolean;
}

export interface CollectedPatches {
  patches: ResultPatch[];
  skipped: SkippedFile[];
}

/** Finds the changed files, writes `outDir/patches/NNNN-<slug>.patch` (one per file, by path) and describes them. */
export async function collectPatches(input: CollectPatchesInput): Promise<CollectedPatches> {
  const { changed, skipped } = await findChangedFiles(input.originalDir, input.workDir, {
    exclude: input.exclude,
  });
  const dir = path.join(input.outDir, 'patches');
  await rm(dir, { recursive: true, force: true });
  const kept = changed.slice(0, MAX_PATCHES);
  for (const file of changed.slice(MAX_PATCHES)) {
    skipped.push({
      path: file.path,
      why: `more than ${MAX_PATCHES} files changed; only the first ${MAX_PATCHES} are patches`,
    });
  }
  const prepared: { file: ChangedFile; diff: string; attribution: Attribution }[] = [];
  for (const file of kept) {
    const diff = await diffFile(input.originalDir, input.workDir, file);
    if (diff === '') continue;
    const originalText = (await readFileUnder(input.originalDir, file.path)).toString('utf8');
    prepared.push({
      file,
      diff,
      attribution: attributeChange(file.path, originalText, input.turns, input.version),
    });
  }
  if (prepared.length === 0) return { patches: [], skipped };
  await mkdir(dir, { recursive: true });
  const date = input.date ?? new Date();
  const patches: ResultPatch[] = [];
  for (const [i, item] of prepared.entries()) {
    const number = String(i + 1).padStart(4, '0');
    const name = `${number}-${slugify(item.attribution.subject)}.patch`;
    const text = renderPatch({
      index: i + 1,
      total: prepared.length,
      subject: item.attribution.subject,
      body: item.attribution.body,
      diff: item.diff,
      date,
      version: input.version,
    });
    await writeFile(path.join(dir, name), text);
    patches.push({
      file: `patches/${name}`,
      paths: [item.file.path],
      subject: item.attribution.subject,
      reason: item.attribution.reason,
      ...(item.attribution.turn !== undefined ? { turn: item.attribution.turn } : {}),
    });
  }
  return { patches, skipped };
}
