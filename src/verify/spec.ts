/**
 * Layer-2 verifier specs (DeployBench style): a declarative YAML file saying what must hold in the final
 * environment — commands to run there and what to expect of them (exit code, files, output patterns, a TCP
 * port that answers, GPU evidence, a QEMU guest's serial log), plus optional functional probes of the
 * binaries. The schema is `verifiers/layer2-spec.schema.json` (for editors); validation here is
 * hand-written so every error names the file, the line and the field:
 *
 *     spec.yml:7: checks[1].expect.exit_code: expected an integer from 0 to 255, a list of them, or 'any'
 *
 * ```yaml
 * name: hello-runs
 * hidden: false            # true: the harness loads it only after the strategy finished (see below)
 * probes: { run: true, debug_info: false }
 * checks:
 *   - name: prints greeting
 *     command: ./build/hello --name world
 *     cwd: .               # relative to the repository root inside the sandbox
 *     timeout: 30s         # seconds or 500ms / 30s / 2m / 1h (default 60s)
 *     env: { LANG: C }
 *     expect:
 *       exit_code: 0       # default 0; not checked by default when a port or serial_log is expected
 *       files: [out.txt, { path: build/hello, non_empty: true, newer_than_start: false }]
 *       stdout: ['hello, world']        # JavaScript regular expressions (multiline), all must match
 *       stderr_not: ['(?:error|warning):']
 *       port: { port: 8080, host: 127.0.0.1, within: 20s }
 *       gpu: { pattern: 'cuda:0' }      # a device is listed AND the target used it: its process among
 *                                       # nvidia-smi's compute apps while it ran, or the pattern in its output
 *       serial_log: { path: guest.log, pattern: 'login:', within: 2m }
 *       metrics:                        # numbers in a JSON file the command wrote (relative to cwd)
 *         - { file: results.json, key: eval.accuracy, min: 0.9, max: 1 }
 * ```
 *
 * Hidden specs: a spec with `hidden: true` is validated when the run starts (so a typo fails fast) but
 * its contents are dropped; it is loaded again only after the strategy has finished, run once, and its
 * result recorded. Nothing from it — commands, patterns, results — ever enters a strategy's context
 * (`TurnContext` or an observation), so a benchmark can keep its acceptance test secret from the agent.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';

import { FileTooLargeError, MAX_INPUT_FILE_BYTES, readTextCapped } from '../base/bounded-file.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import { unknownNameHint } from '../base/suggest.js';

export interface SpecFile {
  path: string;
  /** The file must not be empty (`test -s`). */
  nonEmpty: boolean;
  /** The file's mtime must be later than the moment the check started. */
  newerThanStart: boolean;
}

export interface SpecPort {
  port: number;
  host: string;
  withinMs: number;
}

export interface SpecSerialLog {
  path: string;
  pattern: string;
  withinMs: number;
}

export interface SpecExpect {
  /** Accepted exit codes; undefined: not checked. */
  exitCode?: number[];
  files: SpecFile[];
  /** Regular expressions (JavaScript syntax, multiline) that must / must not match. */
  stdout: string[];
  stdoutNot: string[];
  stderr: string[];
  stderrNot: string[];
  /** Against stdout and stderr together. */
  output: string[];
  outputNot: string[];
  port?: SpecPort;
  /**
   * nvidia-smi lists a device, and the command used it: one of its processes was among nvidia-smi's compute
   * processes while it ran (sampled), or its output matches `pattern` (the framework naming the device it ran
   * on). `pattern`, when given, must match the command's stdout or stderr in any case.
   */
  gpu?: { pattern?: string };
  serialLog?: SpecSerialLog;
  /** Numbers in JSON files the command left (read inside the sandbox after it ended). */
  metrics: SpecMetric[];
}

/**
 * A number in a JSON results file: `file` relative to the check's cwd, `key` a dotted path (`eval.top1`,
 * `runs.0.loss`: a number segment indexes a list), and the bounds it must lie within (inclusive).
 */
export interface SpecMetric {
  file: string;
  key: string;
  min?: number;
  max?: number;
}

export interface SpecCheck {
  name: string;
  command: string;
  /** Relative to the repository root inside the sandbox, or absolute there. */
  cwd?: string;
  timeoutMs: number;
  env: Record<string, string>;
  expect: SpecExpect;
  /** Line of the check in the spec file. */
  line: number;
}

export interface Layer2Spec {
  /** The file as it was named when loaded. */
  file: string;
  name?: string;
  description?: string;
  hidden: boolean;
  /** Functional probes made required by the spec. */
  probes: { run: boolean; debugInfo: boolean };
  checks: SpecCheck[];
}

export interface SpecIssue {
  file: string;
  line: number;
  /** `checks[1].expect.exit_code`; '' for the document itself. */
  field: string;
  message: string;
}

export function formatIssue(issue: SpecIssue): string {
  return `${issue.file}:${issue.line}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
}

/** A spec that does not parse or validate; `issues` has each problem with its line and field. */
export class SpecError extends ConfigError {
  readonly issues: SpecIssue[];

  constructor(issues: SpecIssue[]) {
    const sorted = [...issues].sort((a, b) => a.line - b.line);
    super(sorted.map(formatIssue).join('\n'));
    this.issues = sorted;
  }
}

export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;
export const DEFAULT_WITHIN_MS = 30_000;
const MAX_TIMEOUT_MS = 24 * 3_600_000;
const MAX_WITHIN_MS = 3_600_000;

/** The keys each mapping accepts (the JSON schema lists the same; a test keeps them in step). */
export const SPEC_KEYS = {
  top: ['version', 'name', 'description', 'hidden', 'probes', 'checks'],
  probes: ['run', 'debug_info'],
  check: ['name', 'command', 'cwd', 'timeout', 'env', 'expect'],
  expect: [
    'exit_code',
    'files',
    'stdout',
    'stdout_not',
    'stderr',
    'stderr_not',
    'output',
    'output_not',
    'port',
    'gpu',
    'serial_log',
    'metrics',
  ],
  file: ['path', 'non_empty', 'newer_than_start'],
  port: ['port', 'host', 'within'],
  gpu: ['pattern'],
  serial_log: ['path', 'pattern', 'within'],
  metric: ['file', 'key', 'min', 'max'],
} as const;

/** Parses `90`, `90s`, `500ms`, `2m`, `1h30m` (a bare number is seconds); undefined when it is not one. */
export function parseSpecDuration(value: unknown): number | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return parseSpecDuration(Number(text));
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    end = re.lastIndex;
  }
  return end === text.length && text.length > 0 && total > 0 ? Math.round(total) : undefined;
}

type Entries = Map<string, { key: Node; value: Node | null }>;

/** Walks the YAML tree, collecting every problem with its line and field path. */
class SpecReader {
  readonly issues: SpecIssue[] = [];

  constructor(
    private readonly file: string,
    private readonly lines: LineCounter,
  ) {}

  line(node: Node | null | undefined, fallback = 1): number {
    const at = node?.range?.[0];
    return at === undefined ? fallback : this.lines.linePos(at).line;
  }

  fail(node: Node | null | undefined, field: string, message: string, fallbackLine = 1): void {
    this.issues.push({ file: this.file, line: this.line(node, fallbackLine), field, message });
  }

  /** A mapping's entries; unknown keys are reported. Undefined (and reported) when the node is not a mapping. */
  map(
    node: Node | null,
    field: string,
    allowed: readonly string[],
    what: string,
    line = 1,
  ): Entries | undefined {
    if (!isMap(node)) {
      this.fail(node, field, `expected ${what} (a mapping of ${allowed.join(', ')})`, line);
      return undefined;
    }
    const entries: Entries = new Map();
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const keyNode = pair.key;
      const key = isScalar(keyNode) ? keyNode.value : undefined;
      if (typeof key !== 'string') {
        this.fail(keyNode, field, 'keys must be plain names', this.line(node));
        continue;
      }
      const path = field ? `${field}.${key}` : key;
      if (!allowed.includes(key)) {
        this.fail(keyNode, path, `unknown field${unknownNameHint(key, allowed)}`);
        continue;
      }
      if (entries.has(key)) {
        this.fail(keyNode, path, 'given twice');
        continue;
      }
      entries.set(key, { key: keyNode, value: pair.value ?? null });
    }
    return entries;
  }

  /** The scalar value of a node (undefined for collections and missing values). */
  private scalar(node: Node | null): unknown {
    return isScalar(node) ? node.value : undefined;
  }

  string(node: Node | null, field: string, options: { nonEmpty?: boolean } = {}): string | undefined {
    const value = this.scalar(node);
    if (typeof value !== 'string' || (options.nonEmpty && value.trim() === '')) {
      this.fail(node, field, options.nonEmpty ? 'expected a non-empty string' : 'expected a string');
      return undefined;
    }
    return value;
  }

  boolean(node: Node | null, field: string): boolean | undefined {
    const value = this.scalar(node);
    if (typeof value !== 'boolean') {
      this.fail(node, field, 'expected true or false');
      return undefined;
    }
    return value;
  }

  integer(node: Node | null, field: string, min: number, max: number): number | undefined {
    const value = this.scalar(node);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(node, field, `expected an integer from ${min} to ${max}`);
      return undefined;
    }
    return value;
  }

  number(node: Node | null, field: string): number | undefined {
    const value = this.scalar(node);
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(node, field, 'expected a number');
      return undefined;
    }
    return value;
  }

  duration(node: Node | null, field: string, max: number): number | undefined {
    const ms = parseSpecDuration(this.scalar(node));
    if (ms === undefined || ms > max) {
      this.fail(
        node,
        field,
        `expected a duration: seconds or a value like 500ms, 30s, 2m${ms !== undefined ? ` (at most ${max / 1000} s)` : ''}`,
      );
      return undefined;
    }
    return ms;
  }

  regex(node: Node | null, field: string): string | undefined {
    const value = this.string(node, field, { nonEmpty: true });
    if (value === undefined) return undefined;
    try {
      new RegExp(value, 'm');
      return value;
    } catch (error) {
      this.fail(node, field, `not a valid regular expression: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** A string or a list of strings, each checked by `item`. */
  list<T>(node: Node | null, field: string, item: (n: Node | null, f: string) => T | undefined): T[] {
    if (isSeq(node)) {
      const out: T[] = [];
      node.items.forEach((child, i) => {
        const value = item(child as Node | null, `${field}[${i}]`);
        if (value !== undefined) out.push(value);
      });
      return out;
    }
    const value = item(node, field);
    return value === undefined ? [] : [value];
  }
}

function readProbes(r: SpecReader, node: Node | null): Layer2Spec['probes'] {
  const probes = { run: false, debugInfo: false };
  const entries = r.map(node, 'probes', SPEC_KEYS.probes, 'the probes to require');
  if (!entries) return probes;
  const run = entries.get('run');
  if (run) probes.run = r.boolean(run.value, 'probes.run') ?? false;
  const debug = entries.get('debug_info');
  if (debug) probes.debugInfo = r.boolean(debug.value, 'probes.debug_info') ?? false;
  return probes;
}

function readFileEntry(r: SpecReader, node: Node | null, field: string): SpecFile | undefined {
  if (isScalar(node)) {
    const path = r.string(node, field, { nonEmpty: true });
    return path === undefined ? undefined : { path, nonEmpty: false, newerThanStart: false };
  }
  const entries = r.map(node, field, SPEC_KEYS.file, 'a path or a file expectation');
  if (!entries) return undefined;
  const pathEntry = entries.get('path');
  if (!pathEntry) {
    r.fail(node, `${field}.path`, 'required field missing');
    return undefined;
  }
  const path = r.string(pathEntry.value, `${field}.path`, { nonEmpty: true });
  const flag = (key: 'non_empty' | 'newer_than_start'): boolean => {
    const entry = entries.get(key);
    return entry ? (r.boolean(entry.value, `${field}.${key}`) ?? false) : false;
  };
  const nonEmpty = flag('non_empty');
  const newerThanStart = flag('newer_than_start');
  return path === undefined ? undefined : { path, nonEmpty, newerThanStart };
}

function readPort(r: SpecReader, node: Node | null, field: string): SpecPort | undefined {
  if (isScalar(node)) {
    const port = r.integer(node, field, 1, 65535);
    return port === undefined ? undefined : { port, host: '127.0.0.1', withinMs: DEFAULT_WITHIN_MS };
  }
  const entries = r.map(node, field, SPEC_KEYS.port, 'a port number or { port, host, within }');
  if (!entries) return undefined;
  const portEntry = entries.get('port');
  if (!portEntry) {
    r.fail(node, `${field}.port`, 'required field missing');
    return undefined;
  }
  const port = r.integer(portEntry.value, `${field}.port`, 1, 65535);
  let host = '127.0.0.1';
  const hostEntry = entries.get('host');
  if (hostEntry) {
    const value = r.string(hostEntry.value, `${field}.host`, { nonEmpty: true });
    if (value !== undefined && !/^[A-Za-z0-9.:-]+$/.test(value)) {
      r.fail(hostEntry.value, `${field}.host`, 'expected a host name or an IP address');
    } else if (value !== undefined) {
      host = value;
    }
  }
  const withinEntry = entries.get('within');
  const withinMs = withinEntry
    ? r.duration(withinEntry.value, `${field}.within`, MAX_WITHIN_MS)
    : DEFAULT_WITHIN_MS;
  return port === undefined || withinMs === undefined ? undefined : { port, host, withinMs };
}

function readSerialLog(r: SpecReader, node: Node | null, field: string): SpecSerialLog | undefined {
  const entries = r.map(node, field, SPEC_KEYS.serial_log, '{ path, pattern, within }');
  if (!entries) return undefined;
  let ok = true;
  for (const key of ['path', 'pattern'] as const) {
    if (!entries.has(key)) {
      r.fail(node, `${field}.${key}`, 'required field missing');
      ok = false;
    }
  }
  if (!ok) return undefined;
  const path = r.string(entries.get('path')!.value, `${field}.path`, { nonEmpty: true });
  const pattern = r.regex(entries.get('pattern')!.value, `${field}.pattern`);
  const withinEntry = entries.get('within');
  const withinMs = withinEntry
    ? r.duration(withinEntry.value, `${field}.within`, MAX_WITHIN_MS)
    : DEFAULT_WITHIN_MS;
  if (pattern !== undefined && pattern.includes('\n')) {
    r.fail(entries.get('pattern')!.value, `${field}.pattern`, 'a serial log pattern must be one line');
    return undefined;
  }
  return path === undefined || pattern === undefined || withinMs === undefined
    ? undefined
    : { path, pattern, withinMs };
}

const METRIC_KEY = /^[^.\s]+(?:\.[^.\s]+)*$/;

function readMetric(r: SpecReader, node: Node | null, field: string): SpecMetric | undefined {
  const entries = r.map(node, field, SPEC_KEYS.metric, '{ file, key, min, max }');
  if (!entries) return undefined;
  let ok = true;
  for (const key of ['file', 'key'] as const) {
    if (!entries.has(key)) {
      r.fail(node, `${field}.${key}`, 'required field missing');
      ok = false;
    }
  }
  if (!ok) return undefined;
  const file = r.string(entries.get('file')!.value, `${field}.file`, { nonEmpty: true });
  const keyNode = entries.get('key')!.value;
  let key = r.string(keyNode, `${field}.key`, { nonEmpty: true });
  if (key !== undefined && !METRIC_KEY.test(key)) {
    r.fail(keyNode, `${field}.key`, "expected a dotted path such as 'eval.accuracy' or 'runs.0.loss'");
    key = undefined;
  }
  const bound = (name: 'min' | 'max'): number | undefined | 'invalid' => {
    const entry = entries.get(name);
    if (!entry) return undefined;
    return r.number(entry.value, `${field}.${name}`) ?? 'invalid';
  };
  const min = bound('min');
  const max = bound('max');
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    r.fail(entries.get('min')!.value, `${field}.min`, `min (${min}) is greater than max (${max})`);
    return undefined;
  }
  if (file === undefined || key === undefined || min === 'invalid' || max === 'invalid') return undefined;
  return { file, key, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

function readExitCode(r: SpecReader, node: Node | null, field: string): number[] | undefined | 'invalid' {
  const message = "expected an integer from 0 to 255, a list of them, or 'any'";
  if (isScalar(node) && node.value === 'any') return undefined;
  const codes: number[] = [];
  const items = isSeq(node) ? (node.items as (Node | null)[]) : [node];
  for (const [i, item] of items.entries()) {
    const value = isScalar(item) ? item.value : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 255) {
      r.fail(item ?? node, isSeq(node) ? `${field}[${i}]` : field, message, r.line(node));
      return 'invalid';
    }
    codes.push(value);
  }
  if (codes.length === 0) {
    r.fail(node, field, message);
    return 'invalid';
  }
  return codes;
}

function readExpect(r: SpecReader, node: Node | null | undefined, field: string): SpecExpect {
  const expect: SpecExpect = {
    files: [],
    stdout: [],
    stdoutNot: [],
    stderr: [],
    stderrNot: [],
    output: [],
    outputNot: [],
    metrics: [],
  };
  const entries =
    node === undefined ? undefined : r.map(node, field, SPEC_KEYS.expect, 'the expectations of the check');
  let exitCode: number[] | undefined | 'invalid' | 'default' = 'default';
  if (entries) {
    for (const [key, { value }] of entries) {
      const path = `${field}.${key}`;
      switch (key) {
        case 'exit_code':
          exitCode = readExitCode(r, value, path);
          break;
        case 'files':
          expect.files = r.list(value, path, (n, f) => readFileEntry(r, n, f));
          break;
        case 'stdout':
        case 'stdout_not':
        case 'stderr':
        case 'stderr_not':
        case 'output':
        case 'output_not': {
          const target = (
            {
              stdout: 'stdout',
              stdout_not: 'stdoutNot',
              stderr: 'stderr',
              stderr_not: 'stderrNot',
              output: 'output',
              output_not: 'outputNot',
            } as const
          )[key];
          expect[target] = r.list(value, path, (n, f) => r.regex(n, f));
          break;
        }
        case 'port':
          expect.port = readPort(r, value, path);
          break;
        case 'gpu':
          if (isScalar(value) && typeof value.value === 'boolean') {
            if (value.value) expect.gpu = {};
          } else {
            const gpu = r.map(value, path, SPEC_KEYS.gpu, 'true or { pattern }');
            const pattern = gpu?.get('pattern');
            if (gpu) expect.gpu = pattern ? { pattern: r.regex(pattern.value, `${path}.pattern`) } : {};
          }
          break;
        case 'serial_log':
          expect.serialLog = readSerialLog(r, value, path);
          break;
        case 'metrics':
          if (isSeq(value)) {
            value.items.forEach((item, i) => {
              const metric = readMetric(r, item as Node | null, `${path}[${i}]`);
              if (metric) expect.metrics.push(metric);
            });
          } else {
            r.fail(value, path, 'expected a list of { file, key, min, max }', r.line(entries.get(key)?.key));
          }
          break;
      }
    }
  }
  // A server or a guest keeps running: its exit code is not checked unless asked for.
  if (exitCode === 'default') {
    exitCode =
      expect.port || expect.serialLog || entries?.has('port') || entries?.has('serial_log') ? undefined : [0];
  }
  if (exitCode !== 'invalid' && exitCode !== undefined) expect.exitCode = exitCode;
  return expect;
}

function readCheck(
  r: SpecReader,
  node: Node | null,
  index: number,
  names: Set<string>,
): SpecCheck | undefined {
  const field = `checks[${index}]`;
  const entries = r.map(node, field, SPEC_KEYS.check, 'a check');
  if (!entries) return undefined;
  const line = r.line(node);
  const commandEntry = entries.get('command');
  if (!commandEntry) r.fail(node, `${field}.command`, 'required field missing');
  const command = commandEntry
    ? r.string(commandEntry.value, `${field}.command`, { nonEmpty: true })
    : undefined;

  let name = `check-${index + 1}`;
  const nameEntry = entries.get('name');
  if (nameEntry) {
    const value = r.string(nameEntry.value, `${field}.name`, { nonEmpty: true });
    if (value !== undefined) name = value.trim();
  }
  if (names.has(name))
    r.fail(nameEntry?.value ?? node, `${field}.name`, `another check is already named '${name}'`);
  names.add(name);

  let cwd: string | undefined;
  const cwdEntry = entries.get('cwd');
  if (cwdEntry) cwd = r.string(cwdEntry.value, `${field}.cwd`, { nonEmpty: true });

  let timeoutMs: number | undefined = DEFAULT_CHECK_TIMEOUT_MS;
  const timeoutEntry = entries.get('timeout');
  if (timeoutEntry) timeoutMs = r.duration(timeoutEntry.value, `${field}.timeout`, MAX_TIMEOUT_MS);

  const env: Record<string, string> = {};
  const envEntry = entries.get('env');
  if (envEntry) {
    const envNode = envEntry.value;
    if (!isMap(envNode)) {
      r.fail(
        envNode,
        `${field}.env`,
        'expected a mapping of variable names to strings',
        r.line(envEntry.key),
      );
    } else {
      for (const pair of envNode.items as Pair<Node, Node | null>[]) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        const path = `${field}.env.${String(key)}`;
        if (typeof key !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
          r.fail(pair.key, path, 'variable names must match [A-Za-z_][A-Za-z0-9_]*');
          continue;
        }
        const value = isScalar(pair.value) ? pair.value.value : undefined;
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          env[key] = String(value);
        } else {
          r.fail(pair.value ?? pair.key, path, 'expected a string value');
        }
      }
    }
  }

  const expectEntry = entries.get('expect');
  const expect = readExpect(r, expectEntry?.value, `${field}.expect`);
  if (command === undefined || timeoutMs === undefined) return undefined;
  return { name, command, ...(cwd !== undefined ? { cwd } : {}), timeoutMs, env, expect, line };
}

/**
 * Parses and validates a spec. `file` names it in messages. Throws SpecError listing every problem found.
 */
export function parseSpec(text: string, file: string): Layer2Spec {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) {
    throw new SpecError(
      doc.errors.map((error) => ({
        file,
        line: lines.linePos(error.pos[0]).line,
        field: '',
        message: `not valid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    );
  }
  const r = new SpecReader(file, lines);
  const root = doc.contents as Node | null;
  const spec: Layer2Spec = { file, hidden: false, probes: { run: false, debugInfo: false }, checks: [] };
  const entries = r.map(root, '', SPEC_KEYS.top, 'a spec');
  if (!entries) throw new SpecError(r.issues);

  const version = entries.get('version');
  if (version && r.integer(version.value, 'version', 1, 1) === undefined) {
    r.issues[r.issues.length - 1]!.message = 'expected 1 (the only spec version)';
  }
  const name = entries.get('name');
  if (name) spec.name = r.string(name.value, 'name', { nonEmpty: true });
  const description = entries.get('description');
  if (description) spec.description = r.string(description.value, 'description');
  const hidden = entries.get('hidden');
  if (hidden) spec.hidden = r.boolean(hidden.value, 'hidden') ?? false;
  const probes = entries.get('probes');
  if (probes) spec.probes = readProbes(r, probes.value);

  const checks = entries.get('checks');
  if (checks) {
    if (!isSeq(checks.value)) {
      r.fail(checks.value, 'checks', 'expected a list of checks', r.line(checks.key));
    } else {
      const names = new Set<string>();
      checks.value.items.forEach((item, i) => {
        const check = readCheck(r, item as Node | null, i, names);
        if (check) spec.checks.push(check);
      });
    }
  }
  if (r.issues.length === 0 && spec.checks.length === 0 && !spec.probes.run && !spec.probes.debugInfo) {
    r.fail(checks?.value ?? root, 'checks', 'a spec needs at least one check or a required probe');
  }
  if (r.issues.length > 0) throw new SpecError(r.issues);
  if (spec.name === undefined) delete spec.name;
  if (spec.description === undefined) delete spec.description;
  return spec;
}

/**
 * Reads and validates a spec file; a missing or unreadable file is a ConfigError, and so is one over
 * MAX_INPUT_FILE_BYTES (checked before reading: a spec can come with a stranger's task).
 */
export async function loadSpec(file: string): Promise<Layer2Spec> {
  let text: string;
  try {
    text = await readTextCapped(file, MAX_INPUT_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError)
      throw new ConfigError(`--spec: ${error.message} (the cap on spec files)`, 'expected a YAML spec file');
    throw new ConfigError(
      `--spec: cannot read '${file}' (${errorMessage(error)})`,
      'expected a YAML spec file',
    );
  }
  return parseSpec(text, file);
}

/**
 * The spec of a build, split by visibility: a visible spec is returned parsed (its checks join every turn's
 * verification); a hidden one is validated now — a typo fails before any work starts — but only its file
 * name is kept, so its contents cannot reach the strategy; `BuildVerifier.finish` loads it again.
 */
export async function prepareSpec(
  file: string | undefined,
): Promise<{ visible?: Layer2Spec; hiddenFile?: string }> {
  if (file === undefined) return {};
  const spec = await loadSpec(file);
  return spec.hidden ? { hiddenFile: file } : { visible: spec };
}
