/**
 * A diagnosis of a failed build log with no sandbox: the root cause (the log lines it rests on, with their
 * line numbers), a concrete suggested fix (packages, flags, a patch or commands; a line of a build file to
 * change where one applies) and a confidence — or, plainly, that the failure is not a build problem (a flaky
 * network, failing tests, a runner out of disk, a cancelled or timed-out job) and nothing is proposed.
 * `buildbench diagnose` prints it; the GitHub App comments it.
 *
 * One knowledge, two readers (issue 30): the fix is the plan the engine's own repair rules make for the root
 * cause (knowledge/repair/offline.ts asks them with no tree and no sandbox), rendered for a person; nothing
 * about a fix is written here. Whether a failure is a build problem is the catalog's `repair:` owner.
 *
 * The shape below is the contract the CLI and the bot share; the implementation fills it.
 */
import type { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { linear, linearRegex } from '../../base/linear-regex.js';
import { createRedactor, type Redactor } from '../../trajectory/redact.js';
import { defaultFallbackTable, loadFallbackTable, type FallbackTable } from '../repair/package-fallback.js';
import type { Need } from '../repair/needs.js';
import { plansForLog, treeNeedOf } from '../repair/offline.js';
import type { Repair } from '../repair/repair.js';
import { applyEdits, editsDiff, type EditedFile } from '../repair/source-edits.js';
import type { RepairTables } from '../repair/tables.js';
import { LogAnalyzer, type LogAnalysisDetail } from './log-parser.js';
import { defaultSignatureCatalog, type NotBuildKind, type SignatureCatalog } from './signatures.js';
import { ciTimestampLength, stripAnsi, trimTrailingCr } from './terminal-text.js';
import type { Finding } from './types.js';

/** A line of the log the diagnosis rests on (1-based, after the CI runner's prefixes are removed). */
export interface QuotedLine {
  line: number;
  text: string;
}

/** A change to one line of a build file (a workflow's `apt-get install`, a Makefile's flags). */
export interface LineSuggestion {
  /** Repository-relative path of the file. */
  path: string;
  /** 1-based line number in that file. */
  line: number;
  original: string;
  replacement: string;
  why: string;
}

export interface SuggestedFix {
  kind: 'packages' | 'flags' | 'patch' | 'commands' | 'lookup';
  /** The repair rule whose plan this renders (`Repair.rule`): what the engine would apply. */
  rule: string;
  /** In words, for a person. */
  summary: string;
  /** Debian/Ubuntu packages to install. */
  packages?: string[];
  /** Shell commands to run (e.g. the install line). */
  commands?: string[];
  /** A unified diff: a line of a build file (`suggestion`), or a source edit applied to the files given with --file. */
  patch?: string;
  /** Where the fix belongs in a build file the caller supplied, when one applies. */
  suggestion?: LineSuggestion;
  /**
   * What the package index would be asked (`header zlib.h`), when no offline table names the package — or when
   * the log comes from another distribution (dnf, apk, brew), whose package names these are not.
   */
  lookups?: string[];
}

export type Confidence = 'high' | 'medium' | 'low';

/** A diagnosis that ran out of its time budget (DiagnoseOptions.budgetMs) before the end of the log. */
export interface StoppedEarly {
  /** Milliseconds spent when it stopped. */
  afterMs: number;
  /** Characters of the log read, of `total`; absent when it is not known how far it got (a worker that did not answer). */
  read?: number;
  total: number;
}

export type Diagnosis =
  | {
      found: true;
      rootCause: {
        /** The layer-1 signature's id and category (src/knowledge/diagnose/signatures.ts). */
        id: string;
        category: string;
        message: string;
        lines: QuotedLine[];
        /** Later lines the root cause explains (e.g. `cannot find -lgcc` after an incompatible libgcc.a was skipped). */
        symptoms?: QuotedLine[];
      };
      fix?: SuggestedFix;
      confidence: Confidence;
      /** Set when only the log's first `read` characters were diagnosed: a cause in the rest was not looked for. */
      stoppedEarly?: StoppedEarly;
    }
  | {
      found: false;
      /** Why there is nothing to propose, for a person. */
      reason: string;
      /**
       * A failure that is not a build problem (NotBuildKind), `no-error` (nothing failed in the log) or
       * `unrecognized` (an error no failure signature names).
       */
      kind: NothingKind;
      /** The line that shows it, when there is one. */
      evidence?: QuotedLine;
      stoppedEarly?: StoppedEarly;
    };

export type { NotBuildKind } from './signatures.js';

/** What a diagnosis that proposes nothing says it is. */
export type NothingKind = NotBuildKind | 'no-error' | 'unrecognized';

// ───────────────────────────── implementation ─────────────────────────────

/** A build file the caller supplied, for line suggestions (a workflow, a Makefile, a CMakeLists.txt). */
export interface DiagnoseFile {
  path: string;
  content: string;
}

export interface DiagnoseOptions {
  /** Build files for `suggestion`s: the workflow that ran, a Makefile, a CMakeLists.txt. */
  files?: readonly DiagnoseFile[];
  /** Secret values to redact from quoted lines (token patterns are redacted regardless). */
  secrets?: readonly string[];
  /** The signature catalog (default: `verifiers/signatures.yaml`). */
  catalog?: SignatureCatalog;
  /** Package tables asked in order (default: `packages-fallback.yaml`, then `packages-common.yaml`). */
  packageTables?: readonly FallbackTable[];
  /** The repair tables (default: `verifiers/repairs.yaml`). */
  repairTables?: RepairTables;
  /**
   * Stop reading the log after this many milliseconds and diagnose what was read (`stoppedEarly` says so).
   * The time is checked between slices of BUDGET_SLICE characters, each of which takes linear time.
   */
  budgetMs?: number;
}

export const DEFAULT_COMMON_PACKAGES_URL = new URL(
  '../../../verifiers/packages-common.yaml',
  import.meta.url,
);

let commonTable: FallbackTable | undefined;
/** The offline package table (`verifiers/packages-common.yaml`): what a diagnosis without a package index installs. */
export function commonPackageTable(): FallbackTable {
  return (commonTable ??= loadFallbackTable(DEFAULT_COMMON_PACKAGES_URL));
}

// Every pattern in this file runs on the linear-time engine (base/linear-regex.ts): the log and the build files
// are a stranger's text. test/unit/knowledge/diagnose/linear.test.ts checks that no native RegExp is left here.

/** GitHub Actions workflow commands at the start of a line: `##[group]`, `##[error]`, `::error::`, … */
const GHA_COMMAND = linear`^(?:##\[(?:group|endgroup|error|warning|notice|debug|command|section)\]|::(?:group|endgroup|error|warning|notice|debug)(?: [^:]*)?::)`;

/**
 * One CI log line as a person reads it: CR/LF and ANSI colours removed, the runner's timestamp and the
 * workflow command prefix (`##[error]`, `::group::`) dropped. Line numbers are unchanged: one line in, one out.
 */
export function stripCiPrefixes(raw: string): string {
  let line = stripAnsi(trimTrailingCr(raw));
  if (line.includes('\r')) line = line.slice(line.lastIndexOf('\r') + 1);
  const stamp = ciTimestampLength(line);
  if (stamp > 0) line = line.slice(line.charCodeAt(stamp) === 32 ? stamp + 1 : stamp);
  if (line.startsWith('##[') || line.startsWith('::')) {
    const command = GHA_COMMAND.exec(line);
    if (command) line = line.slice(command[0].length);
  }
  return line;
}

/** What the diagnosis sees besides the analysis: test-run markers and raw error lines, counted while reading. */
interface LogSignals {
  /** The first line that says tests failed (not the build), with its number. */
  testFailure?: QuotedLine;
  /** The first line that reads like an error when no signature matched. */
  errorLine?: QuotedLine;
  /** The log installs packages with another distribution's package manager (dnf, apk, brew, …). */
  otherDistro?: boolean;
}

/** Lines that say a test run failed, not the build: CTest, Automake's test harness, pytest, cargo, go, jest. */
const TEST_FAILURE = [
  linear`^\s*The following tests FAILED:`,
  linear`^\s*Errors while running CTest`,
  linear`\b\d+% tests passed, \d+ tests? failed out of \d+`,
  linear`^\s*# FAIL: +[1-9]`,
  linear`^FAIL: \S`,
  linear`^=+ .*\b\d+ failed\b.* =+$`,
  linear`^test result: FAILED\.`,
  linear`^--- FAIL: `,
  linear`^Tests: +\d+ failed`,
  linear`^\s*\d+ (?:test|example)s?, \d+ failures?`,
  // pytest -q: the short summary (`FAILED tests/test_x.py::test_y - …`) and the last line (`2 failed, 89 passed in 3.42s`)
  linear`^FAILED \S+\.py::\S`,
  linear`^\d+ failed(?:, \d+ [a-z]+)* in \d`,
];
/**
 * A raw error line, for telling an unrecognised failure from a clean log: an error word followed by a colon or
 * a number, or anywhere before an `exit code` on the same line.
 */
const ERRORISH = linear`(?:^|\s)(?:error|fatal|ERROR|FAILED|Error)(?::|\s\d|\b.*\bexit code)|Process completed with exit code [1-9]`;
const ERROR_WORDS = ['rror', 'fatal', 'FAILED', 'exit code'];
const OTHER_DISTRO_WORDS = ['dnf', 'yum', 'apk', 'brew', 'pacman', 'zypper'];

class SignalScanner {
  readonly signals: LogSignals = {};
  private lineNo = 0;
  line(raw: string): string {
    this.lineNo++;
    const line = stripCiPrefixes(raw.length > 16384 ? raw.slice(0, 16384) : raw);
    if (
      !this.signals.testFailure &&
      (line.includes('FAIL') || line.includes('fail') || line.includes('CTest')) &&
      TEST_FAILURE.some((re) => re.test(line))
    )
      this.signals.testFailure = { line: this.lineNo, text: line };
    if (!this.signals.errorLine && ERROR_WORDS.some((w) => line.includes(w)) && ERRORISH.test(line))
      this.signals.errorLine = { line: this.lineNo, text: line };
    if (
      !this.signals.otherDistro &&
      OTHER_DISTRO_WORDS.some((w) => line.includes(w)) &&
      OTHER_DISTRO.test(line)
    )
      this.signals.otherDistro = true;
    return line;
  }
}

function quoteLines(finding: Finding, redact: Redactor): QuotedLine[] {
  const lines = finding.excerpt.split('\n');
  const before = Math.min(3, finding.line - 1, lines.length - 1);
  const start = finding.line - before;
  return lines.map((text, i) => ({ line: start + i, text: redact(text) }));
}

/** The packages of an `apt-get install` line (words after `install` that are not options), up to `&&`, `;`, `|`, `\`. */
const APT_INSTALL = linear`\bapt(?:-get)?\s+(?:[-\w=]+\s+)*install\b`;
const INSTALL_END = linear`\s*(?:&&|\|\||;|\||\\\s*$|#|$)`;
const COMMENT_LINE = linear`^\s*#`;
const WHITESPACE = linear`\s+`;
const WORKFLOW_PATH = linear`(?:^|/)\.github/workflows/[^/]+\.ya?ml$`;
const MAKEFILE_NAME = linear`^(?:GNUmakefile|makefile|Makefile)(?:\.am|\.in)?$|\.mk$`;

function isWorkflow(path: string): boolean {
  return WORKFLOW_PATH.test(path);
}

/** The line's text with `addition` inserted after the install's last package (the rest byte-identical). */
function appendToInstall(line: string, addition: string): string | undefined {
  const m = APT_INSTALL.exec(line);
  if (!m) return undefined;
  const after = m.index + m[0].length;
  const rest = line.slice(after);
  const stop = INSTALL_END.exec(rest);
  const at = after + (stop ? stop.index : rest.length);
  return `${line.slice(0, at)} ${addition}${line.slice(at)}`;
}

function installSuggestion(packages: string[], files: readonly DiagnoseFile[]): LineSuggestion | undefined {
  const ordered = [...files].sort((a, b) => Number(isWorkflow(b.path)) - Number(isWorkflow(a.path)));
  for (const file of ordered) {
    const lines = file.content.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i] as string;
      const cr = raw.endsWith('\r') ? '\r' : '';
      const original = cr ? raw.slice(0, -1) : raw;
      if (COMMENT_LINE.test(original) || !APT_INSTALL.test(original)) continue;
      const words = new Set(WHITESPACE.split(original));
      const missing = packages.filter((p) => !words.has(p));
      if (missing.length === 0) continue;
      const replacement = appendToInstall(original, missing.join(' '));
      if (!replacement) continue;
      return {
        path: file.path,
        line: i + 1,
        original,
        replacement,
        why: `install ${missing.join(', ')} with the other build dependencies`,
      };
    }
  }
  return undefined;
}

/** A flag appended to the first Makefile `VAR =` / CMake `set(CMAKE_…_FLAGS "…")` line that sets one of `vars`. */
function flagSuggestion(
  flag: string,
  vars: readonly string[],
  files: readonly DiagnoseFile[],
): LineSuggestion | undefined {
  const names = vars.join('|');
  const make = linearRegex(`^\\s*(?:override\\s+)?(?:${names})\\s*(?:[+:?]?=)`);
  const cmake = linearRegex(`^\\s*set\\s*\\(\\s*CMAKE_(?:C|CXX|EXE_LINKER)_FLAGS\\s+"(?<flags>[^"]*)"`, 'i');
  for (const file of files) {
    const base = file.path.split('/').pop() ?? '';
    const isMake = MAKEFILE_NAME.test(base);
    const isCmake = base === 'CMakeLists.txt' || base.endsWith('.cmake');
    if (!isMake && !isCmake) continue;
    const lines = file.content.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i] as string;
      const original = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (WHITESPACE.split(original).includes(flag)) continue;
      let replacement: string | undefined;
      if (isMake && make.test(original)) {
        const comment = original.indexOf('#');
        const end = comment >= 0 ? comment : original.length;
        const body = original.slice(0, end).trimEnd();
        replacement = `${body} ${flag}${original.slice(body.length)}`;
      } else if (isCmake) {
        const m = cmake.exec(original);
        if (m) {
          const close = m.index + m[0].length - 1;
          const sep = (m.groups.flags ?? '').length > 0 ? ' ' : '';
          replacement = `${original.slice(0, close)}${sep}${flag}${original.slice(close)}`;
        }
      }
      if (replacement) return { path: file.path, line: i + 1, original, replacement, why: `add ${flag}` };
    }
  }
  return undefined;
}

/** A one-line change as a unified diff (what `git apply` takes). */
export function suggestionDiff(s: LineSuggestion): string {
  let p = s.path;
  while (p.startsWith('/')) p = p.slice(1);
  return `--- a/${p}\n+++ b/${p}\n@@ -${s.line} +${s.line} @@\n-${s.original}\n+${s.replacement}\n`;
}

function withSuggestion(fix: SuggestedFix, suggestion: LineSuggestion | undefined): SuggestedFix {
  if (suggestion) {
    fix.suggestion = suggestion;
    fix.patch = suggestionDiff(suggestion);
  }
  return fix;
}

function installCommand(packages: string[]): string {
  return `sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`;
}

/** A log written on another distribution: its package names are not Debian's, so only the missing file is named. */
const OTHER_DISTRO = linear`(?:^|\s)(?:dnf|yum|microdnf|apk|brew|pacman|zypper)\s+(?:-\S+\s+)*(?:install|add|-S)\b`;

/** How a look-up reads: `header zlib.h`, `pkg-config module gtk+-3.0`. */
function describeNeed(need: Need): string {
  const kinds: Record<Need['kind'], string> = {
    header: 'header',
    library: 'library',
    pkgconfig: 'pkg-config module',
    cmake: 'CMake package',
    command: 'command',
    'python-module': 'Python module',
    file: 'file',
    'm4-macro': 'autoconf macro',
  };
  return `${kinds[need.kind]} ${need.name}`;
}

/** `-Wl,--push-state,--as-needed,-lm,--pop-state` → `-lm`: the engine links a library only where it is used. */
function plainLibrary(word: string): string {
  const head = '-Wl,--push-state,--as-needed,';
  const tail = ',--pop-state';
  if (!word.startsWith(head) || !word.endsWith(tail)) return word;
  const library = word.slice(head.length, -tail.length);
  return library.startsWith('-l') && !library.includes(',') ? library : word;
}

/** The compiler and linker flags of a plan (the recipe's wrappers read BB_EXTRA_CFLAGS / BB_EXTRA_CXXFLAGS). */
function planFlags(repair: Repair): string[] {
  const env = repair.env ?? {};
  const words = `${env.BB_EXTRA_CFLAGS ?? ''} ${env.BB_EXTRA_CXXFLAGS ?? ''}`
    .split(' ')
    .filter(Boolean)
    .map(plainLibrary);
  return [...new Set(words)];
}

/** Where a flag goes in a Makefile or CMakeLists.txt: link flags with the libraries, the rest with the compiler flags. */
function flagVars(flag: string): string[] {
  return flag.startsWith('-l') || flag === '-pthread'
    ? ['LDLIBS', 'LIBS', 'LDFLAGS', '\\w*_LDADD', '\\w*_LIBADD']
    : ['CFLAGS', 'CXXFLAGS', 'AM_CFLAGS', 'AM_CXXFLAGS', '\\w*_CFLAGS', '\\w*_CXXFLAGS'];
}

/** Commands of a plan a person would run: its prelude without the engine's own plumbing, and a new recipe's steps. */
function planCommands(repair: Repair): string[] {
  const commands = (repair.prelude ?? []).filter((c) => !c.includes('BB_'));
  // A replacement recipe's steps (the log's recipe has none): the lines a person runs, without the engine's own
  // markers and environment plumbing.
  for (const step of repair.recipe?.steps ?? [])
    for (const line of step.command.split('\n'))
      if (
        line.trim() &&
        !line.trimStart().startsWith('#') &&
        !line.includes('BB_') &&
        !line.includes('.buildbench')
      )
        commands.push(line.trim());
  // configure arguments: CMake's are -D definitions, a configure script's are --options
  const args = repair.configureArgs ?? [];
  if (args.length)
    commands.push(
      args.every((a) => a.startsWith('-D'))
        ? `cmake -S . -B build ${args.join(' ')}`
        : `./configure ${args.join(' ')}`,
    );
  const env = repair.env ?? {};
  for (const [name, value] of Object.entries(env))
    if (!name.startsWith('BB_')) commands.push(`export ${name}=${JSON.stringify(value)}`);
  // the recipe's own parallelism (BB_JOBS), as make and cmake --build read it
  if (env.BB_JOBS)
    commands.push(`export MAKEFLAGS=-j${env.BB_JOBS} CMAKE_BUILD_PARALLEL_LEVEL=${env.BB_JOBS}`);
  return commands;
}

/** A rendered plan, with the files its source edits changed (their diff is rendered asynchronously, by fixFor). */
export type RenderedFix = SuggestedFix & { changed?: EditedFile[] };

/**
 * A plan of the repair rules, as a person applies it: the packages to install (Debian/Ubuntu names; for a log
 * from another distribution, the files to look up instead), the flags to add (and where, in a build file given
 * with --file), the commands to run, the files a patch changes.
 */
export function renderPlan(
  repair: Repair,
  finding: Finding,
  files: readonly DiagnoseFile[],
  otherDistro: boolean,
): RenderedFix | undefined {
  const rule = repair.rule;
  const lookups = (repair.lookups ?? []).map(describeNeed);
  if (lookups.length > 0 || (otherDistro && repair.packages?.length)) {
    const what = lookups.length > 0 ? lookups : [finding.message];
    return {
      kind: 'lookup',
      rule,
      summary: `${repair.reason}: install the package of your distribution that provides ${what.join(', ')}`,
      lookups: what,
      commands: lookups.length > 0 ? [`apt-file search ${(repair.lookups ?? [])[0]!.name}`] : [],
    };
  }
  const flagsOf = planFlags(repair);
  const commands = planCommands(repair);
  const packages = repair.packages ?? [];
  if (flagsOf.length > 0) {
    const cflags = flagsOf.filter((f) => !f.startsWith('-l') && f !== '-pthread');
    // libraries go after the objects (LDLIBS for make's rules, LIBS for configure), other link flags before
    const libs = flagsOf.filter((f) => f.startsWith('-l'));
    const ldflags = flagsOf.filter((f) => f === '-pthread');
    const exports = [
      ...(cflags.length
        ? [`export CFLAGS="$CFLAGS ${cflags.join(' ')}" CXXFLAGS="$CXXFLAGS ${cflags.join(' ')}"`]
        : []),
      ...(ldflags.length ? [`export LDFLAGS="$LDFLAGS ${ldflags.join(' ')}"`] : []),
      ...(libs.length ? [`export LDLIBS="$LDLIBS ${libs.join(' ')}" LIBS="$LIBS ${libs.join(' ')}"`] : []),
    ];
    const fix: SuggestedFix = {
      kind: 'flags',
      rule,
      summary: `add ${flagsOf.join(' ')}: ${repair.reason}`,
      commands: [...(packages.length ? [installCommand(packages)] : []), ...exports, ...commands],
      ...(packages.length ? { packages } : {}),
    };
    return withSuggestion(fix, flagSuggestion(flagsOf[0]!, flagVars(flagsOf[0]!), files));
  }
  if (packages.length > 0) {
    const fix: SuggestedFix = {
      kind: 'packages',
      rule,
      summary: `install ${packages.join(', ')}: ${repair.reason}`,
      packages,
      commands: [installCommand(packages), ...commands],
    };
    return withSuggestion(fix, installSuggestion(packages, files));
  }
  if (repair.patches?.length) {
    const changed = applyEdits(repair.edits ?? [], files);
    const shown = changed.length > 0 ? changed.map((f) => f.path) : repair.patches.map((p) => p.file);
    return {
      kind: 'patch',
      rule,
      summary:
        `${repair.reason} (changes ${shown.join(', ')})` +
        (changed.length === 0 && repair.edits?.length
          ? '; give the sources with --file to see the change as a diff'
          : ''),
      commands,
      ...(changed.length > 0 ? { changed } : {}),
    };
  }
  if (commands.length > 0) return { kind: 'commands', rule, summary: repair.reason, commands };
  return undefined;
}

/** The fix for a root cause: the first plan of the engine's repair rules that a person can apply. */
async function fixFor(
  root: Finding,
  findings: readonly Finding[],
  otherDistro: boolean,
  options: DiagnoseOptions,
): Promise<SuggestedFix | undefined> {
  const tables = options.packageTables ?? [defaultFallbackTable(), commonPackageTable()];
  const output = [root, ...findings]
    .map((f) => f.excerpt)
    .join('\n')
    .slice(0, 64 * 1024);
  const plans = await plansForLog(root, findings, output, tables, options.repairTables);
  for (const plan of plans) {
    const fix = renderPlan(plan, root, options.files ?? [], otherDistro);
    if (!fix) continue;
    // A source edit applied to the files given with --file, shown as the diff a person applies.
    const { changed, ...rendered } = fix;
    return changed ? { ...rendered, patch: await editsDiff(changed) } : rendered;
  }
  // A rule that decides only with the repository in hand says so, and what it would read.
  const need = treeNeedOf(root.id);
  return need
    ? {
        kind: 'lookup',
        rule: root.id,
        summary: `the engine's repair decides this with the repository in hand (buildbench build applies it): ${need}`,
        lookups: [],
        commands: [],
      }
    : undefined;
}

/** What the analysis says before a fix is looked for: a diagnosis, and the root cause whose fix to render. */
interface Verdict {
  diagnosis: Diagnosis;
  root?: Finding;
}

function notBuild(kind: NothingKind, reason: string, evidence?: QuotedLine): Diagnosis {
  return { found: false, kind, reason, ...(evidence ? { evidence } : {}) };
}

/** Later findings the root cause explains: the follow-ups within the next lines, not the generic build noise. */
function symptomsOf(root: Finding, findings: readonly Finding[], redact: Redactor): QuotedLine[] {
  return findings
    .filter((f) => f.line > root.line && f.followUp && f.category !== 'build-failed')
    .slice(0, 3)
    .map((f) => ({
      line: f.line,
      text: redact(f.excerpt.split('\n')[Math.min(3, f.line - 1)] ?? f.message),
    }));
}

function fromAnalysis(analysis: LogAnalysisDetail, signals: LogSignals, options: DiagnoseOptions): Verdict {
  const root = analysis.rootCause;
  const redact = createRedactor(options.secrets ?? []);
  const where = (q: QuotedLine): string => `line ${q.line}: ${redact(q.text.trim()).slice(0, 200)}`;
  const evidenceOf = (f: Finding): QuotedLine => ({
    line: f.line,
    text: redact(f.excerpt.split('\n')[Math.min(3, f.line - 1)] ?? f.message),
  });
  const catalog = options.catalog ?? defaultSignatureCatalog();
  const signature = root ? catalog.byId.get(root.id) : undefined;
  const owner = signature?.repair;
  if (root && owner?.owner === 'not-build' && owner.kind && owner.kind !== 'tests-failed') {
    return {
      diagnosis: notBuild(
        owner.kind,
        `${NOT_BUILD_WORDS[owner.kind]} (${redact(root.message)}, line ${root.line}): not a build problem — ${owner.why}`,
        evidenceOf(root),
      ),
    };
  }
  const buildCause = root !== undefined && !root.followUp && owner?.owner !== 'not-build';
  if (signals.testFailure && !(buildCause && root.line < signals.testFailure.line)) {
    return {
      diagnosis: notBuild(
        'tests-failed',
        `the build succeeded and tests failed (${where(signals.testFailure)}): not a build problem`,
        signals.testFailure,
      ),
    };
  }
  if (!root) {
    return {
      diagnosis: signals.errorLine
        ? notBuild(
            'unrecognized',
            `an error no failure signature recognises (${where(signals.errorLine)})`,
            signals.errorLine,
          )
        : notBuild('no-error', `no error in ${analysis.lines} lines of log`),
    };
  }
  if (owner?.owner === 'not-build' && !root.followUp) {
    return {
      diagnosis: notBuild(
        'tests-failed',
        `${redact(root.message)} (line ${root.line}): a test or the built program failed while it ran — ${owner.why}`,
        evidenceOf(root),
      ),
    };
  }
  if (root.followUp || root.category === 'build-failed') {
    return {
      diagnosis: notBuild(
        'unrecognized',
        `the build failed (${root.message}, line ${root.line}) but no failure signature names the cause`,
        evidenceOf(root),
      ),
    };
  }
  const symptoms = symptomsOf(root, analysis.findings, redact);
  return {
    diagnosis: {
      found: true,
      rootCause: {
        id: root.id,
        category: root.category,
        message: redact(root.message),
        lines: quoteLines(root, redact),
        ...(symptoms.length > 0 ? { symptoms } : {}),
      },
      confidence: signature?.generic ? 'low' : 'medium',
    },
    root,
  };
}

/** The first words of a non-build diagnosis, per kind. */
const NOT_BUILD_WORDS: Record<NotBuildKind, string> = {
  'flaky-network': 'a network error, most likely transient: re-run the job',
  'tests-failed': 'tests failed',
  'runner-out-of-disk': 'the runner ran out of disk space',
  cancelled: 'the job was cancelled',
  timeout: 'the job ran out of time',
  infrastructure: 'the runner or a service it needs failed',
};

/** The verdict with its fix: the engine's plan for the root cause, rendered (async: the rules are). */
async function withFix(
  verdict: Verdict,
  otherDistro: boolean,
  analysisFindings: readonly Finding[],
  options: DiagnoseOptions,
): Promise<Diagnosis> {
  const { diagnosis, root } = verdict;
  if (!diagnosis.found || !root) return diagnosis;
  const fix = await fixFor(
    root,
    analysisFindings.filter((f) => f !== root),
    otherDistro,
    options,
  );
  if (!fix) return diagnosis;
  return {
    ...diagnosis,
    fix,
    confidence:
      diagnosis.confidence === 'low'
        ? 'low'
        : fix.kind === 'lookup' || fix.kind === 'commands'
          ? 'medium'
          : 'high',
  };
}

/** Longest line kept (the rest of a longer line is dropped, so one endless line cannot fill memory). */
const MAX_RAW_LINE = 64 * 1024;
/** Stripped lines are handed to the parser in batches of about this many characters. */
const BATCH = 256 * 1024;

/**
 * Splits a log into lines, strips each line's CI prefixes (noting test-failure and error lines on the way) and
 * hands the stripped lines to the layer-1 parser in batches — one line in, one line out, so the parser's line
 * numbers are the raw log's. Memory is bounded by one line (at most MAX_RAW_LINE) and one batch.
 */
class CiLogFeeder {
  private readonly analyzer: LogAnalyzer;
  readonly scanner = new SignalScanner();
  private partial = '';
  private batch: string[] = [];
  private batchLength = 0;

  constructor(options: DiagnoseOptions) {
    this.analyzer = new LogAnalyzer(options.catalog ? { catalog: options.catalog } : {});
  }

  write(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) {
        if (this.partial.length < MAX_RAW_LINE)
          this.partial += text.slice(start, start + MAX_RAW_LINE - this.partial.length);
        return;
      }
      let raw = text.slice(start, Math.min(nl, start + MAX_RAW_LINE));
      if (this.partial) {
        raw = (this.partial + raw).slice(0, MAX_RAW_LINE);
        this.partial = '';
      }
      this.line(raw);
      start = nl + 1;
    }
  }

  async end(options: DiagnoseOptions): Promise<Diagnosis> {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    this.flush();
    const analysis = this.analyzer.end();
    const signals = this.scanner.signals;
    return withFix(
      fromAnalysis(analysis, signals, options),
      signals.otherDistro ?? false,
      analysis.findings,
      options,
    );
  }

  private line(raw: string): void {
    const line = this.scanner.line(raw);
    this.batch.push(line);
    this.batchLength += line.length + 1;
    if (this.batchLength >= BATCH) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    this.analyzer.write(`${this.batch.join('\n')}\n`);
    this.batch = [];
    this.batchLength = 0;
  }
}

/** Characters fed between two looks at the clock when the diagnosis has a budget. */
export const BUDGET_SLICE = 256 * 1024;

/** What became of a stopped diagnosis: `ran out of time (20 s) after 41% of the log`. */
function stopDetail(stop: StoppedEarly): string {
  const seconds = Math.round(stop.afterMs / 100) / 10;
  if (stop.read === undefined) return `did not finish in ${seconds} s`;
  const share = stop.total > 0 ? Math.floor((100 * stop.read) / stop.total) : 100;
  return `ran out of time (${seconds} s) after ${share}% of the log`;
}

/** One short sentence for a person: how far a diagnosis that ran out of time got. */
export function describeStop(stop: StoppedEarly): string {
  return `The diagnosis ${stopDetail(stop)}, so a cause further on was not looked for.`;
}

/**
 * The diagnosis of the part of a log that was read before time ran out: a root cause found there stands (with
 * `stoppedEarly`), and so do a flake or a test failure; "nothing found" becomes "unknown", since the rest of the
 * log was not read.
 */
export function stoppedEarly(diagnosis: Diagnosis, stop: StoppedEarly): Diagnosis {
  if (diagnosis.found || (diagnosis.kind !== 'no-error' && diagnosis.kind !== 'unrecognized'))
    return { ...diagnosis, stoppedEarly: stop };
  return {
    found: false,
    kind: 'unrecognized',
    reason: `the diagnosis ${stopDetail(stop)} before it found a cause`,
    stoppedEarly: stop,
  };
}

/** Diagnoses a failed build log held in memory (a CI job's log; GitHub Actions prefixes are understood). */
export async function diagnoseLog(text: string, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const feeder = new CiLogFeeder(options);
  if (options.budgetMs === undefined) {
    feeder.write(text);
    return feeder.end(options);
  }
  const start = performance.now();
  for (let at = 0; at < text.length; at += BUDGET_SLICE) {
    const spent = performance.now() - start;
    if (spent > options.budgetMs)
      return stoppedEarly(await feeder.end(options), { afterMs: spent, read: at, total: text.length });
    feeder.write(text.slice(at, at + BUDGET_SLICE));
  }
  return feeder.end(options);
}

/** Diagnoses a log as it streams (a file, stdin) in bounded memory. Chunks may split lines and characters. */
export async function diagnoseLogStream(
  stream: Readable | AsyncIterable<string | Buffer>,
  options: DiagnoseOptions = {},
): Promise<Diagnosis> {
  const feeder = new CiLogFeeder(options);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of stream as AsyncIterable<unknown>) {
    if (typeof chunk === 'string') feeder.write(chunk);
    else if (chunk instanceof Uint8Array) feeder.write(decoder.write(Buffer.from(chunk)));
    else throw new TypeError(`diagnoseLogStream: expected string or Buffer chunks, got ${typeof chunk}`);
  }
  feeder.write(decoder.end());
  return feeder.end(options);
}
