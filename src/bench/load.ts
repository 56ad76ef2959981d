/**
 * Task specs: `tasks/**\/*.yml` read, validated against `src/bench/schema/task.schema.json` (ajv) and turned
 * into the `Task` values the runner, the matrix and the leaderboard share (types.ts). Every problem names the
 * file, the line and the field, the way layer-2 specs do:
 *
 *     tasks/fixtures/make-hello.yml:7: budgets.maxTurns: expected an integer ≥ 1
 *
 * Files and folders may be given; a folder is searched recursively for `*.yml` / `*.yaml` (hidden entries
 * and layer-2 verifier specs, `*.spec.yml`, are skipped), in code-unit order of their paths, so a suite
 * loads in the same order everywhere. Defaults are filled here (requires [], notes [], budgets {},
 * dropped [], verifier hidden), the id defaults to the file's name, local repository paths and verifier
 * specs are resolved against the task file (and must exist), and an id given twice in one load is an error
 * naming both files. All problems of all files are reported together in one `TaskError` (a ConfigError).
 *
 * A task file can come from a stranger (a pull request, a downloaded suite), so it is read under a cap
 * (MAX_INPUT_FILE_BYTES, checked before reading) and its local repository must be inside the work tree that
 * holds it (the nearest folder above it with a `.git`; its own folder when there is none), compared by real
 * path so a symbolic link cannot lead out, unless a folder is allowed explicitly (`--repos-dir`, the Action's
 * input repos-dir): a runner copies that folder into the sandbox, and its files reach the logs.
 */
import { readdir, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';

import {
  FileTooLargeError,
  isWithin,
  MAX_INPUT_FILE_BYTES,
  readTextCapped,
  realPathOf,
  workTreeOf,
} from '../base/bounded-file.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import { unknownNameHint } from '../base/suggest.js';
import { loadSpec, parseSpecDuration } from '../verify/spec.js';
import type { GuestSpec } from '../deploy/types.js';
import type {
  BuildTask,
  DeployTask,
  DroppedLabel,
  ExpectedBinary,
  InstructionUrl,
  RepositoryRef,
  Requirement,
  Task,
  TaskBudgets,
  TargetEvidence,
} from './types.js';

/** The shipped schema (works from src/bench, lib/bench and the ncc bundle alike, like the recipe catalog). */
export const TASK_SCHEMA_URL = new URL('../../src/bench/schema/task.schema.json', import.meta.url);

/** Top-level fields of a task file, for suggestions (the schema is the authority). */
const TOP_FIELDS = [
  'kind',
  'id',
  'repository',
  'requires',
  'budgets',
  'notes',
  'expected',
  'dropped',
  'instructions',
  'paper',
  'target',
  'guest',
  'verifier',
];

export interface TaskIssue {
  file: string;
  line: number;
  /** `budgets.maxTurns`, `expected[2].name`; '' for the document itself. */
  field: string;
  message: string;
}

export function formatTaskIssue(issue: TaskIssue): string {
  return `${issue.file}:${issue.line}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
}

/** Task files that do not parse or validate; `issues` lists every problem, by file and line. */
export class TaskError extends ConfigError {
  readonly issues: TaskIssue[];

  constructor(issues: TaskIssue[]) {
    const sorted = [...issues].sort((a, b) =>
      a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1,
    );
    super(sorted.map(formatTaskIssue).join('\n'), 'see tasks/README.md for the task format');
    this.issues = sorted;
  }
}

export interface LoadTasksOptions {
  /**
   * The folder suites are named from: a task's suite is its folder relative to this root
   * (`tasks/build-bench/test/x.yml` → `build-bench/test`). Default: the nearest folder named `tasks` above the
   * file, so a suite's name does not depend on how it was loaded (one file in a matrix job, the whole folder
   * here); else the folder argument; else a file's own folder name. When the relative folder is empty, the
   * root's own name is the suite.
   */
  root?: string;
  /** Check that local repository folders and verifier specs exist (and that specs are valid). Default true. */
  checkFiles?: boolean;
  /**
   * Folders a local repository may be in besides the work tree that holds its task file: `--repos-dir`, the
   * Action's input repos-dir and workspace.
   */
  allowedRoots?: readonly string[];
}

let validator: ValidateFunction | undefined;

/** The compiled schema, once. */
function schemaValidator(): ValidateFunction {
  if (validator) return validator;
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(TASK_SCHEMA_URL, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read the task schema ${TASK_SCHEMA_URL.pathname}: ${errorMessage(error)}`);
  }
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
  });
  // An editor extension (VS Code, yaml-language-server) the messages below also use.
  ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
  validator = ajv.compile(schema as object);
  return validator;
}

/** How a repository source is read: GitHub's owner/name, a git URL, or a local folder. */
export function sourceKind(source: string): 'github' | 'url' | 'local' {
  if (/^(?:\.{1,2}(?:\/|$)|\/)/.test(source)) return 'local';
  if (/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/.test(source)) return 'github';
  return 'url';
}

/** One line about a task, for listings: `id (kind, suite) source[@ref] [requires …]`. */
export function taskSummary(task: Task): string {
  const ref = task.repository.commit ?? task.repository.branch;
  const where =
    sourceKind(task.repository.source) === 'local'
      ? path.relative(process.cwd(), task.repository.source) || '.'
      : task.repository.source;
  const parts = [
    `${task.id} (${task.kind}${task.suite ? `, ${task.suite}` : ''})`,
    `${where}${ref ? `@${ref}` : ''}`,
  ];
  if (task.kind === 'build') parts.push(`${task.expected.length} expected`);
  if (task.requires.length > 0) parts.push(`requires ${task.requires.join(', ')}`);
  return parts.join('  ');
}

/** The names of what a build task expects (after cleaning), as `--expect` takes them. */
export function expectedNames(task: BuildTask): string[] {
  return task.expected.map((e) => e.name);
}

// ---------------------------------------------------------------------------------------------------------
// Finding files

const TASK_FILE = /\.ya?ml$/;
const SPEC_FILE = /\.spec\.ya?ml$/;

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await walk(full, out);
    else if (entry.isFile() && TASK_FILE.test(entry.name) && !SPEC_FILE.test(entry.name)) out.push(full);
  }
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Each argument's task files with the root its suites are named from; a missing path is a ConfigError. */
export async function findTaskFiles(
  paths: readonly string[],
  options: Pick<LoadTasksOptions, 'root'> = {},
): Promise<{ file: string; suite: string }[]> {
  if (paths.length === 0) throw new ConfigError('no task files given', 'expected task files or folders');
  const found: { file: string; suite: string }[] = [];
  const seen = new Set<string>();
  const root = options.root === undefined ? undefined : path.resolve(options.root);
  for (const given of paths) {
    const absolute = path.resolve(given);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      throw new ConfigError(
        `${given}: no such task file or folder (${errorMessage(error)})`,
        'expected task files (.yml) or folders of them',
      );
    }
    let files: string[];
    if (info.isDirectory()) {
      files = [];
      await walk(absolute, files);
      files.sort(byCodeUnits);
      if (files.length === 0) throw new ConfigError(`${given}: no task files (*.yml, *.yaml) in this folder`);
    } else {
      files = [absolute];
    }
    for (const file of files) {
      if (seen.has(file)) continue;
      seen.add(file);
      const base = root ?? tasksFolderAbove(file) ?? (info.isDirectory() ? absolute : undefined);
      found.push({ file, suite: suiteOf(file, base) });
    }
  }
  return found;
}

/** The nearest folder named `tasks` above a file: the default root, so a file's suite is the same however it is loaded. */
function tasksFolderAbove(file: string): string | undefined {
  for (let folder = path.dirname(file); folder !== path.dirname(folder); folder = path.dirname(folder)) {
    if (path.basename(folder) === 'tasks') return folder;
  }
  return undefined;
}

function suiteOf(file: string, root: string | undefined): string {
  const folder = path.dirname(file);
  if (root !== undefined) {
    const relative = path.relative(root, folder);
    if (relative === '') return path.basename(root);
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative.split(path.sep).join('/');
  }
  return path.basename(folder);
}

// ---------------------------------------------------------------------------------------------------------
// Positions

type Segment = string | number;

function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function fieldPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number' || /^\d+$/.test(s)) out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

/** Positions of nodes in one YAML document. */
class Positions {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  lineAt(offset: number | undefined): number {
    return offset === undefined ? 1 : this.lines.linePos(offset).line;
  }

  /** The line of the node at `segments`: a mapping member's key line, a list item's own line. */
  line(segments: readonly Segment[]): number {
    let node: unknown = this.doc.contents;
    let line = this.lineAt((node as Node | null)?.range?.[0]);
    for (const segment of segments) {
      if (isMap(node)) {
        const pair = (node.items as Pair<Node, Node | null>[]).find(
          (p) => (p.key as { value?: unknown } | null)?.value === segment,
        );
        if (!pair) return line;
        line = this.lineAt(pair.key?.range?.[0]);
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)] as Node | undefined;
        if (!item) return line;
        line = this.lineAt(item.range?.[0]);
        node = item;
      } else {
        return line;
      }
    }
    return line;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Schema errors → messages

function article(type: string): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'array':
      return 'a list';
    case 'object':
      return 'a mapping';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'nothing';
    default:
      return type;
  }
}

/** Branch errors of a failed oneOf that only say "wrong type here" are noise when another branch fits the type. */
function pruneUnions(errors: ErrorObject[]): ErrorObject[] {
  let remaining = errors.filter((e) => e.keyword !== 'if');
  const unions = remaining.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  // Innermost unions first, so an outer union sees its branches already pruned.
  unions.sort((a, b) => b.instancePath.length - a.instancePath.length);
  for (const union of unions) {
    const prefix = `${union.schemaPath}/`;
    const inBranch = (e: ErrorObject): boolean =>
      e.schemaPath.startsWith(prefix) &&
      (e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`));
    // Every branch, including those whose errors come from a $ref (their schemaPath is the definition's).
    const count = Array.isArray(union.schema) ? union.schema.length : 0;
    const branches = new Map<string, ErrorObject[]>(
      Array.from({ length: count }, (_, i) => [String(i), [] as ErrorObject[]]),
    );
    for (const e of remaining.filter(inBranch)) {
      const branch = e.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    const wrongType = (list: ErrorObject[]): boolean =>
      list.some((e) => e.keyword === 'type' && e.instancePath === union.instancePath);
    const fitting = [...branches.values()].filter((list) => !wrongType(list));
    const drop = new Set<ErrorObject>([union, ...[...branches.values()].flat()]);
    let replacement: ErrorObject[];
    if (fitting.length > 0) {
      replacement = fitting.flat();
    } else {
      const types = [...branches.values()]
        .flat()
        .filter((e) => e.keyword === 'type' && e.instancePath === union.instancePath)
        .map((e) => String((e.params as { type: string | string[] }).type));
      replacement = [
        { ...union, keyword: 'type', params: { type: [...new Set(types)] }, message: undefined },
      ];
    }
    remaining = [...remaining.filter((e) => !drop.has(e)), ...replacement];
  }
  return remaining;
}

function issueOf(error: ErrorObject, file: string, where: Positions, kind: unknown): TaskIssue {
  const segments: Segment[] = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const schema = error.parentSchema as
    { patternErrorMessage?: string; properties?: object; type?: string } | undefined;
  const numberWord = schema?.type === 'integer' ? 'an integer' : 'a number';
  let message: string;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = segments.length === 0 ? TOP_FIELDS : Object.keys(schema?.properties ?? {});
      segments.push(key);
      message = `unknown field${unknownNameHint(key, allowed)}`;
      break;
    }
    case 'required':
      segments.push(String(params.missingProperty));
      message = 'required field missing';
      return {
        file,
        line: where.line(segments.slice(0, -1)),
        field: fieldPath(segments),
        message:
          segments.length === 1 && params.missingProperty !== 'kind' && kind === 'deploy'
            ? 'required field missing (kind: deploy needs target and verifier)'
            : message,
      };
    case 'false schema':
      message = `not a field of a kind: ${typeof kind === 'string' ? kind : 'build'} task`;
      break;
    case 'type': {
      const types = ([] as string[]).concat(params.type as string | string[]).flatMap((t) => t.split(','));
      message = `expected ${types.map(article).join(' or ')}`;
      break;
    }
    case 'enum':
      message = `expected one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
      break;
    case 'const':
      message = `expected ${String(params.allowedValue)}`;
      break;
    case 'pattern':
      message = schema?.patternErrorMessage
        ? schema.patternErrorMessage
        : `expected a string matching ${String(params.pattern)}`;
      break;
    case 'minLength':
      message = 'expected a non-empty string';
      break;
    case 'minimum':
      message = `expected ${numberWord} ≥ ${String(params.limit)}`;
      break;
    case 'exclusiveMinimum':
      message = `expected ${numberWord} > ${String(params.limit)}`;
      break;
    case 'maximum':
      message = `expected ${numberWord} ≤ ${String(params.limit)}`;
      break;
    case 'minItems':
      message = `expected a list of at least ${String(params.limit)}`;
      break;
    case 'minProperties':
      message = 'expected at least one field';
      break;
    case 'uniqueItems':
      message = `listed twice (items ${String(params.j)} and ${String(params.i)})`;
      break;
    default:
      message = error.message ?? error.keyword;
  }
  return { file, line: where.line(segments), field: fieldPath(segments), message };
}

// ---------------------------------------------------------------------------------------------------------
// Reading one file

interface RawTask {
  kind: 'build' | 'deploy';
  id?: string;
  repository: string | RepositoryRef;
  requires?: Requirement[];
  budgets?: Omit<TaskBudgets, 'timeout' | 'turnTimeout'> & {
    timeout?: string | number;
    turnTimeout?: string | number;
  };
  notes?: string[];
  expected?: (string | ExpectedBinary)[];
  dropped?: DroppedLabel[];
  instructions?: (string | InstructionUrl)[];
  paper?: { title: string; url?: string };
  target?: {
    command: string;
    cwd?: string;
    timeout?: string | number;
    evidence: TargetEvidence;
  };
  guest?: Omit<GuestSpec, 'withinMs'> & { within: string | number };
  verifier?: { spec: string; hidden?: boolean };
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * Parses and validates one task file's text (no file-system checks). `file` names it in messages and
 * anchors relative paths; `suite` is recorded as given. Throws TaskError with every problem found.
 */
export function parseTask(text: string, file: string, suite?: string): Task {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new TaskError(
      doc.errors.map((error) => ({
        file,
        line: lines.linePos(error.pos[0]).line,
        field: '',
        message: `not valid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    );
  }
  const where = new Positions(doc, lines);
  const data: unknown = doc.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new TaskError([
      {
        file,
        line: where.line([]),
        field: '',
        message: 'expected a task (a mapping with kind, repository, …)',
      },
    ]);
  }
  const validate = schemaValidator();
  if (!validate(data)) {
    const kind = (data as { kind?: unknown }).kind;
    const issues = pruneUnions(validate.errors ?? []).map((e) => issueOf(e, file, where, kind));
    const unique = new Map(issues.map((i) => [formatTaskIssue(i), i]));
    throw new TaskError([...unique.values()]);
  }
  const raw = data as RawTask;
  const issues: TaskIssue[] = [];
  const fail = (segments: Segment[], message: string): void => {
    issues.push({ file, line: where.line(segments), field: fieldPath(segments), message });
  };
  const dir = path.dirname(path.resolve(file));

  const id = raw.id ?? path.basename(file).replace(/\.ya?ml$/, '');
  if (raw.id === undefined && !ID.test(id))
    fail([], `the file name '${id}' is not a valid task id; rename the file or set id:`);

  const duration = (value: string | number | undefined, segments: Segment[]): string | undefined => {
    if (value === undefined) return undefined;
    if (parseSpecDuration(value) === undefined) fail(segments, 'expected a duration greater than zero');
    return String(value);
  };

  const ref: RepositoryRef =
    typeof raw.repository === 'string' ? { source: raw.repository } : { ...raw.repository };
  if (sourceKind(ref.source) === 'local') ref.source = path.resolve(dir, ref.source);

  const budgets: TaskBudgets = {};
  for (const [key, value] of Object.entries(raw.budgets ?? {}) as [keyof TaskBudgets, unknown][]) {
    if (key === 'timeout' || key === 'turnTimeout')
      budgets[key] = duration(value as string | number, ['budgets', key]);
    else budgets[key] = value as number;
  }

  const base = {
    id,
    repository: ref,
    requires: raw.requires ?? [],
    budgets,
    notes: raw.notes ?? [],
    ...(suite !== undefined && suite !== '' ? { suite } : {}),
    file: path.resolve(file),
  };

  let task: Task;
  if (raw.kind === 'build') {
    const build: BuildTask = {
      ...base,
      kind: 'build',
      expected: (raw.expected ?? []).map((e) => (typeof e === 'string' ? { name: e } : { ...e })),
      instructions: (raw.instructions ?? []).map((u) => (typeof u === 'string' ? { url: u } : { ...u })),
      dropped: (raw.dropped ?? []).map((d) => ({ ...d })),
    };
    const names = new Map<string, number>();
    build.expected.forEach((e, i) => {
      const first = names.get(e.name);
      if (first !== undefined) fail(['expected', i], `'${e.name}' is already expected[${first}]`);
      else names.set(e.name, i);
    });
    task = build;
  } else {
    const target = raw.target!;
    const evidence: TargetEvidence = {};
    if (target.evidence.files) evidence.files = [...target.evidence.files];
    if (target.evidence.output) {
      evidence.output = [...target.evidence.output];
      evidence.output.forEach((pattern, i) => {
        try {
          new RegExp(pattern, 'm');
        } catch (error) {
          fail(['target', 'evidence', 'output', i], `not a valid regular expression: ${errorMessage(error)}`);
        }
      });
    }
    if (target.evidence.metrics) {
      evidence.metrics = target.evidence.metrics.map((m) => ({ ...m }));
      evidence.metrics.forEach((m, i) => {
        if (m.min !== undefined && m.max !== undefined && m.min > m.max)
          fail(['target', 'evidence', 'metrics', i], `min (${m.min}) is greater than max (${m.max})`);
      });
    }
    if (target.cwd !== undefined && !insideRepository(target.cwd))
      fail(['target', 'cwd'], 'expected a folder inside the repository (relative, without ..)');
    const timeout = duration(target.timeout, ['target', 'timeout']);
    const deploy: DeployTask = {
      ...base,
      kind: 'deploy',
      ...(raw.paper ? { paper: { ...raw.paper } } : {}),
      target: {
        command: target.command,
        ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
        evidence,
      },
      verifier: { spec: path.resolve(dir, raw.verifier!.spec), hidden: raw.verifier!.hidden ?? true },
    };
    if (raw.guest) {
      const guest = readGuest(raw.guest, fail);
      if (guest) deploy.guest = guest;
    }
    task = deploy;
  }
  if (issues.length > 0) throw new TaskError(issues);
  return task;
}

/**
 * The checks of a `guest:` block the schema cannot make: the time limit as a duration, the pattern as a
 * one-line regular expression, paths inside the repository, and a config fragment only for a kernel.
 */
function readGuest(
  raw: NonNullable<RawTask['guest']>,
  fail: (segments: Segment[], message: string) => void,
): GuestSpec | undefined {
  let ok = true;
  const problem = (field: string, message: string): void => {
    fail(['guest', field], message);
    ok = false;
  };
  const withinMs = parseSpecDuration(raw.within);
  if (withinMs === undefined) problem('within', 'expected a duration greater than zero');
  try {
    new RegExp(raw.pattern, 'm');
  } catch (error) {
    problem('pattern', `not a valid regular expression: ${errorMessage(error)}`);
  }
  if (raw.pattern.includes('\n')) problem('pattern', 'a serial console pattern must be one line');
  for (const field of ['image', 'configFragment'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    if (!insideRepository(value))
      problem(field, 'expected a path inside the repository (relative, without ..)');
  }
  if (raw.configFragment !== undefined && raw.kind !== 'kernel') {
    problem('configFragment', 'only a kind: kernel guest has a config fragment');
  }
  if (!ok || withinMs === undefined) return undefined;
  return {
    kind: raw.kind,
    ...(raw.build !== undefined ? { build: raw.build } : {}),
    ...(raw.configFragment !== undefined ? { configFragment: raw.configFragment } : {}),
    image: raw.image,
    ...(raw.append !== undefined ? { append: raw.append } : {}),
    pattern: raw.pattern,
    withinMs,
  };
}

/** The lines of `repository` and `verifier.spec` in a parsed file, for the file checks' messages. */
function lineOf(text: string, segments: Segment[]): number {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return new Positions(doc, lines).line(segments);
}

/** File-system checks of one parsed task: its local repository folder and its verifier spec. */
async function checkFiles(task: Task, text: string, given: string): Promise<TaskIssue[]> {
  const issues: TaskIssue[] = [];
  if (sourceKind(task.repository.source) === 'local') {
    const folder = task.repository.source;
    const isDir = await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) {
      const segments = repositorySegments(text);
      issues.push({
        file: given,
        line: lineOf(text, segments),
        field: fieldPath(segments),
        message: `no folder at ${folder}`,
      });
    }
  }
  if (task.kind === 'deploy') {
    try {
      await loadSpec(task.verifier.spec);
    } catch (error) {
      const detail = errorMessage(error)
        .replace(/^--spec: /, '')
        .split('\n')
        .join('\n    ');
      issues.push({
        file: given,
        line: lineOf(text, ['verifier', 'spec']),
        field: 'verifier.spec',
        message: `not a usable layer-2 spec:\n    ${detail}`,
      });
    }
  }
  return issues;
}

/** The fields that name the repository's folder: `repository`, or `repository.source` in the long form. */
function repositorySegments(text: string): Segment[] {
  return typeof (parseDocument(text).toJS() as { repository?: unknown }).repository === 'string'
    ? ['repository']
    : ['repository', 'source'];
}

/**
 * A local repository outside the work tree that holds the task file (and outside every allowed folder) is
 * an issue: by the path as written, or by where its symbolic links lead.
 */
async function checkConfined(
  task: Task,
  text: string,
  given: string,
  allowedRoots: readonly string[],
): Promise<TaskIssue[]> {
  if (sourceKind(task.repository.source) !== 'local') return [];
  const folder = task.repository.source;
  const tree = (await workTreeOf(task.file)) ?? path.dirname(task.file);
  const roots = [tree, ...allowedRoots.map((r) => path.resolve(r))];
  const real = await realPathOf(folder);
  const realRoots = await Promise.all(roots.map(realPathOf));
  if (realRoots.some((root) => isWithin(root, real))) return [];
  const segments = repositorySegments(text);
  const where = roots.some((root) => isWithin(root, folder))
    ? `${folder} leads through a symbolic link to ${real}, outside`
    : `${folder} is outside`;
  return [
    {
      file: given,
      line: lineOf(text, segments),
      field: fieldPath(segments),
      message:
        `${where} ${tree}, the work tree that holds this task file${allowedRoots.length > 0 ? ` (and the folders allowed: ${allowedRoots.join(', ')})` : ''}; ` +
        'expected a folder inside it; to allow another folder, pass --repos-dir <dir>',
    },
  ];
}

/** Reads, validates and checks one task file (see loadTasks). */
export async function loadTaskFile(
  file: string,
  options: { suite?: string; checkFiles?: boolean; allowedRoots?: readonly string[] } = {},
): Promise<Task> {
  let text: string;
  try {
    text = await readTextCapped(file, MAX_INPUT_FILE_BYTES);
  } catch (error) {
    const message =
      error instanceof FileTooLargeError
        ? `${errorMessage(error).replace(`${file} `, 'the file ')} (the cap on task files)`
        : `cannot read the file (${errorMessage(error)})`;
    throw new TaskError([{ file, line: 1, field: '', message }]);
  }
  const task = parseTask(text, file, options.suite);
  const confined = await checkConfined(task, text, file, options.allowedRoots ?? []);
  if (confined.length > 0) throw new TaskError(confined);
  if (options.checkFiles !== false) {
    const issues = await checkFiles(task, text, file);
    if (issues.length > 0) throw new TaskError(issues);
  }
  return task;
}

/**
 * Loads task files and folders of them (see the file header): the tasks in a deterministic order, or one
 * TaskError listing every problem of every file, duplicate ids included (naming both files).
 */
export async function loadTasks(paths: readonly string[], options: LoadTasksOptions = {}): Promise<Task[]> {
  const found = await findTaskFiles(paths, options);
  const tasks: Task[] = [];
  const issues: TaskIssue[] = [];
  for (const { file, suite } of found) {
    const given = path.relative(process.cwd(), file) || file;
    try {
      tasks.push(
        await loadTaskFile(given, {
          suite,
          checkFiles: options.checkFiles,
          ...(options.allowedRoots ? { allowedRoots: options.allowedRoots } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof TaskError) issues.push(...error.issues);
      else throw error;
    }
  }
  const owners = new Map<string, Task>();
  for (const task of tasks) {
    const first = owners.get(task.id);
    if (first) {
      const given = path.relative(process.cwd(), task.file) || task.file;
      const text = await readTextCapped(task.file, MAX_INPUT_FILE_BYTES);
      issues.push({
        file: given,
        line: lineOf(text, ['id']),
        field: 'id',
        message: `the task id '${task.id}' is also the id of ${path.relative(process.cwd(), first.file) || first.file}`,
      });
    } else {
      owners.set(task.id, task);
    }
  }
  if (issues.length > 0) throw new TaskError(issues);
  return tasks;
}

/** A relative path that stays inside the repository (`a/b`, `.`), not `/etc` nor `../x`. */
function insideRepository(value: string): boolean {
  const normal = path.posix.normalize(value);
  return !path.posix.isAbsolute(value) && normal !== '..' && !normal.startsWith('../');
}
