/**
 * A diagnosis of a failed build log with no sandbox: the root cause (the log lines it rests on, with their
 * line numbers), a concrete suggested fix (packages, flags, a patch or commands; a line of a build file to
 * change where one applies) and a confidence — or, plainly, that nothing build-related was found (a flaky
 * network error, a failing test assertion). `buildbench diagnose` prints it; the GitHub App comments it.
 *
 * The shape below is the contract the CLI and the bot share; the implementation fills it.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createRedactor, type Redactor } from '../../trajectory/redact.js';
import { defaultFallbackTable, loadFallbackTable, type FallbackTable } from '../repair/package-fallback.js';
import { needFromFinding, type Need } from '../repair/needs.js';
import { torchFixCommand } from '../repair/rules/gpu.js';
import { defaultRepairTables, firstMatch, type RepairTables } from '../repair/tables.js';
import { LogAnalyzer, type LogAnalysisDetail } from './log-parser.js';
import { defaultSignatureCatalog, type SignatureCatalog } from './signatures.js';
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
  kind: 'packages' | 'flags' | 'patch' | 'commands';
  /** In words, for a person. */
  summary: string;
  /** Debian/Ubuntu packages to install. */
  packages?: string[];
  /** Shell commands to run (e.g. the install line). */
  commands?: string[];
  /** A unified diff. */
  patch?: string;
  /** Where the fix belongs in a build file the caller supplied, when one applies. */
  suggestion?: LineSuggestion;
}

export type Confidence = 'high' | 'medium' | 'low';

export type Diagnosis =
  | {
      found: true;
      rootCause: {
        /** The layer-1 signature's id and category (src/knowledge/diagnose/signatures.ts). */
        id: string;
        category: string;
        message: string;
        lines: QuotedLine[];
      };
      fix?: SuggestedFix;
      confidence: Confidence;
    }
  | {
      found: false;
      /** Why there is nothing to say (no build error; a network flake; a test failure, not a build problem). */
      reason: string;
      kind: 'clean' | 'not-build' | 'flaky' | 'unknown';
    };

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

/** GitHub Actions workflow commands at the start of a line: `##[group]`, `##[error]`, `::error::`, … */
const GHA_COMMAND =
  /^(?:##\[(?:group|endgroup|error|warning|notice|debug|command|section)\]|::(?:group|endgroup|error|warning|notice|debug)(?: [^:]*)?::)/;
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const GHA_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * One CI log line as a person reads it: CR/LF and ANSI colours removed, the runner's timestamp and the
 * workflow command prefix (`##[error]`, `::group::`) dropped. Line numbers are unchanged: one line in, one out.
 */
export function stripCiPrefixes(raw: string): string {
  let line = raw.endsWith('\r') ? raw.replace(/\r+$/, '') : raw;
  if (line.includes('\u001b')) line = line.replace(ANSI_ESCAPES, '');
  if (line.includes('\r')) line = line.slice(line.lastIndexOf('\r') + 1);
  line = line.replace(GHA_TIMESTAMP, '');
  return line.replace(GHA_COMMAND, '');
}

/** What the diagnosis sees besides the analysis: test-run markers and raw error lines, counted while reading. */
interface LogSignals {
  /** The first line that says tests failed (not the build), with its number. */
  testFailure?: QuotedLine;
  /** The first line that reads like an error when no signature matched. */
  errorLine?: QuotedLine;
}

/** Lines that say a test run failed, not the build: CTest, Automake's test harness, pytest, cargo, go, jest. */
const TEST_FAILURE = [
  /^\s*The following tests FAILED:/,
  /^\s*Errors while running CTest/,
  /\b\d+% tests passed, \d+ tests? failed out of \d+/,
  /^\s*# FAIL: +[1-9]/,
  /^FAIL: \S/,
  /^=+ .*\b\d+ failed\b.* =+$/,
  /^test result: FAILED\./,
  /^--- FAIL: /,
  /^Tests: +\d+ failed/,
  /^\s*\d+ (?:test|example)s?, \d+ failures?/,
];
/** A raw error line, for telling an unrecognised failure from a clean log. */
const ERRORISH =
  /(?:^|\s)(?:error|fatal|ERROR|FAILED|Error)(?::|\s\d|\b(?=.*\bexit code))|Process completed with exit code [1-9]/;

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
    if (!this.signals.errorLine && /rror|fatal|FAILED|exit code/.test(line) && ERRORISH.test(line))
      this.signals.errorLine = { line: this.lineNo, text: line };
    return line;
  }
}

/** Categories whose root cause is a build problem a fix can address (not a flake, not a crash in a test). */
const BUILD_CATEGORIES = new Set([
  'missing-dependency',
  'compile-error',
  'link-error',
  'toolchain-drift',
  'layout',
  'configure-error',
  'permission',
  'gpu',
  'oom',
]);

function quoteLines(finding: Finding, redact: Redactor): QuotedLine[] {
  const lines = finding.excerpt.split('\n');
  const before = Math.min(3, finding.line - 1, lines.length - 1);
  const start = finding.line - before;
  return lines.map((text, i) => ({ line: start + i, text: redact(text) }));
}

function lookupPackages(
  need: Need,
  tables: readonly FallbackTable[],
): { packages: string[]; note?: string } | undefined {
  for (const table of tables) {
    const entry = table.lookup(need);
    if (entry) return { packages: entry.packages.slice(0, 1), note: entry.note };
  }
  return undefined;
}

/** The packages of an `apt-get install` line (words after `install` that are not options), up to `&&`, `;`, `|`, `\`. */
const APT_INSTALL = /\bapt(?:-get)?\s+(?:[-\w=]+\s+)*install\b/;

function isWorkflow(path: string): boolean {
  return /(?:^|\/)\.github\/workflows\/[^/]+\.ya?ml$/.test(path);
}

/** The line's text with `addition` inserted after the install's last package (the rest byte-identical). */
function appendToInstall(line: string, addition: string): string | undefined {
  const m = APT_INSTALL.exec(line);
  if (!m) return undefined;
  const after = m.index + m[0].length;
  const rest = line.slice(after);
  const stop = /\s*(?:&&|\|\||;|\||\\\s*$|#|$)/.exec(rest);
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
      if (/^\s*#/.test(original) || !APT_INSTALL.test(original)) continue;
      const words = new Set(original.split(/\s+/));
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
  const make = new RegExp(`^\\s*(?:override\\s+)?(?:${names})\\s*(?:[+:?]?=)`);
  const cmake = new RegExp(`^\\s*set\\s*\\(\\s*CMAKE_(?:C|CXX|EXE_LINKER)_FLAGS\\s+"([^"]*)"`, 'i');
  for (const file of files) {
    const base = file.path.split('/').pop() ?? '';
    const isMake = /^(?:GNUmakefile|makefile|Makefile)(?:\.am|\.in)?$|\.mk$/.test(base);
    const isCmake = base === 'CMakeLists.txt' || base.endsWith('.cmake');
    if (!isMake && !isCmake) continue;
    const lines = file.content.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const original = (lines[i] as string).replace(/\r$/, '');
      if (original.split(/\s+/).includes(flag)) continue;
      let replacement: string | undefined;
      if (isMake && make.test(original)) {
        const comment = original.indexOf('#');
        const end = comment >= 0 ? comment : original.length;
        const body = original.slice(0, end).replace(/\s+$/, '');
        replacement = `${body} ${flag}${original.slice(body.length)}`;
      } else if (isCmake) {
        const m = cmake.exec(original);
        if (m) {
          const close = (m.index ?? 0) + m[0].length - 1;
          const sep = (m[1] ?? '').length > 0 ? ' ' : '';
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
  const p = s.path.replace(/^\/+/, '');
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

/** The concrete fix for a root cause, from the repair knowledge's tables; undefined when they say nothing specific. */
function fixFor(finding: Finding, options: DiagnoseOptions): SuggestedFix | undefined {
  const files = options.files ?? [];
  const tables = options.packageTables ?? [defaultFallbackTable(), commonPackageTable()];
  const repair = options.repairTables ?? defaultRepairTables();
  const torch = torchFixCommand(finding);
  if (torch) return { kind: 'commands', summary: torch.summary, commands: [torch.command] };
  const need = needFromFinding(finding);
  if (need) {
    const found = lookupPackages(need, tables);
    if (!found) return undefined;
    if (found.packages.length === 0) {
      return found.note
        ? { kind: 'commands', summary: `${finding.message}: no package to install (${found.note})` }
        : undefined;
    }
    const packages = found.packages;
    const fix: SuggestedFix = {
      kind: 'packages',
      summary: `install ${packages.join(', ')} (it provides the ${need.kind} ${need.name})`,
      packages,
      commands: [installCommand(packages)],
    };
    return withSuggestion(fix, installSuggestion(packages, files));
  }
  const symbol = finding.captures.symbol?.replace(/@.*$/, '');
  if ((finding.id === 'undefined-reference' || finding.id === 'undefined-reference-dso') && symbol) {
    const flag = firstMatch(repair.toolchainLibraries, symbol);
    if (!flag) return undefined;
    const fix: SuggestedFix = {
      kind: 'flags',
      summary: `link with ${flag}: ${symbol} lives in a toolchain library that is no longer linked implicitly`,
      commands: [`export LDFLAGS="$LDFLAGS ${flag}"`],
    };
    return withSuggestion(
      fix,
      flagSuggestion(flag, ['LDLIBS', 'LIBS', 'LDFLAGS', '\\w*_LDADD', '\\w*_LIBADD'], files),
    );
  }
  if (finding.id === 'multiple-definition-fcommon') {
    const fix: SuggestedFix = {
      kind: 'flags',
      summary:
        'GCC 10 and later default to -fno-common: declare the variable extern in the header and define it in one file, or build with -fcommon',
      commands: ['export CFLAGS="$CFLAGS -fcommon"'],
    };
    return withSuggestion(fix, flagSuggestion('-fcommon', ['CFLAGS', 'AM_CFLAGS', '\\w*_CFLAGS'], files));
  }
  return undefined;
}

function fromAnalysis(analysis: LogAnalysisDetail, signals: LogSignals, options: DiagnoseOptions): Diagnosis {
  const root = analysis.rootCause;
  const redact = createRedactor(options.secrets ?? []);
  const where = (q: QuotedLine): string => `line ${q.line}: ${redact(q.text.trim()).slice(0, 200)}`;
  if (root?.category === 'network') {
    return {
      found: false,
      kind: 'flaky',
      reason: `a network error (${root.message}, line ${root.line}), most likely transient: re-run the job`,
    };
  }
  const buildCause = root !== undefined && !root.followUp && BUILD_CATEGORIES.has(root.category);
  if (signals.testFailure && !(buildCause && root.line < signals.testFailure.line)) {
    return {
      found: false,
      kind: 'not-build',
      reason: `the build succeeded and tests failed (${where(signals.testFailure)}): not a build problem`,
    };
  }
  if (!root) {
    return signals.errorLine
      ? {
          found: false,
          kind: 'unknown',
          reason: `an error no failure signature recognises (${where(signals.errorLine)})`,
        }
      : { found: false, kind: 'clean', reason: `no error in ${analysis.lines} lines of log` };
  }
  if (root.category === 'runtime-crash' && !root.followUp) {
    return {
      found: false,
      kind: 'not-build',
      reason: `a program crashed while it ran (${redact(root.message)}, line ${root.line}): a bug in the code or a test, not a build problem`,
    };
  }
  if (root.followUp || root.category === 'build-failed') {
    return {
      found: false,
      kind: 'unknown',
      reason: `the build failed (${root.message}, line ${root.line}) but no failure signature names the cause`,
    };
  }
  const signature = (options.catalog ?? defaultSignatureCatalog()).byId.get(root.id);
  const fix = BUILD_CATEGORIES.has(root.category) ? fixFor(root, options) : undefined;
  const confidence: Confidence = signature?.generic
    ? 'low'
    : fix && fix.kind !== 'commands'
      ? 'high'
      : 'medium';
  const diagnosis: Diagnosis = {
    found: true,
    rootCause: {
      id: root.id,
      category: root.category,
      message: redact(root.message),
      lines: quoteLines(root, redact),
    },
    confidence,
  };
  if (fix) diagnosis.fix = fix;
  return diagnosis;
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

  end(options: DiagnoseOptions): Diagnosis {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    this.flush();
    return fromAnalysis(this.analyzer.end(), this.scanner.signals, options);
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

/** Diagnoses a failed build log held in memory (a CI job's log; GitHub Actions prefixes are understood). */
export function diagnoseLog(text: string, options: DiagnoseOptions = {}): Diagnosis {
  const feeder = new CiLogFeeder(options);
  feeder.write(text);
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
