/**
 * Imports BUILD-BENCH's public data (StevenZ904/BuildBench, `data/`, copied with a provenance note to
 * `../shared/data/build-bench/`, see its SOURCE.md) into task files:
 *
 *   tasks/build-bench/test/<owner>+<name>.yml   the 149 compilable repositories (expected binaries from
 *                                               compilation_label.json, instruction URLs from
 *                                               test_set_build_trajectories.csv, branch from the JSONL)
 *   tasks/build-bench/validation/<name>.yml     the 70 validation repositories (no expected labels: the
 *                                               engine infers the main targets; their trajectories)
 *   tasks/build-bench/IMPORT.md                 the source files' sha256, every cleaning rule with its
 *                                               counts, and every label or URL the cleaning changed
 *
 *     npm run import:build-bench [-- --source DIR] [-- --out DIR]
 *
 * The source files must have the sha256 SOURCE.md's table lists (and that table the hashes pinned here);
 * otherwise nothing is written. Cleaning is explicit: each rule below is applied to every label, counted,
 * and keeps the original text beside the cleaned one (`label:`) or the dropped label with the reason
 * (`dropped:`). A re-run gives byte-identical files: sorted where the source has no order, no timestamps.
 * The CSVs are read with vega's loader (d3-dsv, RFC 4180: quoted fields with commas and newlines); the
 * output is formatted with the repository's Prettier settings.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { read as readTable } from 'vega';
import { stringify } from 'yaml';

import { ConfigError, errorMessage } from '../src/base/errors.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_SOURCE = path.resolve(REPO_ROOT, '../shared/data/build-bench');
export const DEFAULT_OUT = path.resolve(REPO_ROOT, 'tasks/build-bench');

const UPSTREAM = 'StevenZ904/BuildBench@a65c9bd2b3208e28fb95d849b8ea8c1034443402';

/** The source files and their sha256, as SOURCE.md lists them for the upstream commit above. */
export const PINNED_SHA256: Readonly<Record<string, string>> = {
  'README.md': '891cd5961c2cd464522e2e6c42994f5a5a0b69349addec01892f336df236005f',
  'compilation_label.json': '405881cfe23ec6b69c51cfc4f40dfa56a30a6ee10f8a353db9238c53ca3dcd2e',
  'sampled_repos_149_cleaned_higher_split_compilable.jsonl':
    '61f085fc86cb229c4fc5ae9287e5d47bea06abefe3b3aaca58ac169a6cac87c7',
  'sampled_repos_385_cleaned_higher_split.jsonl':
    '8fb85e9daec453c35f1c2a804c28a520586ad779ad2579403cc78a85cf36ea09',
  'test_set_build_trajectories.csv': '1f1e79d014782ac1aa983d25c0ca19cd3c02489955f512b55c8c7dbe66662261',
  'Compilation_Bench_Validation_Set_70.csv':
    'ef945c92b8e5d23196e3581e2c0124092d42627303c18092e49af2b156d22059',
};

const SCHEMA_COMMENT = '# yaml-language-server: $schema=../../../src/bench/schema/task.schema.json';

// ---------------------------------------------------------------------------------------------------------
// Cleaning rules

/** What a rule does to a label: keep it and count it, rename it (keeping the label), or drop it. */
type Action = 'keep' | 'rename' | 'drop';

interface Rule {
  id: string;
  action: Action;
  /** What the rule does, for IMPORT.md and the README. */
  rule: string;
  /** The reason written beside a dropped label. */
  why?: string;
  test: (label: string) => boolean;
  rename?: (label: string) => string;
}

const DIRECTORY_NAMES = new Set(['bin', 'sbin', 'lib', 'lib64', 'libexec']);

/**
 * Applied in this order; the first that matches decides. The renames give the name the scorer
 * (src/verify/scoring.ts artifactBaseName) reduces the label to anyway, so matching is unchanged while the
 * task file says plainly what is expected.
 */
export const LABEL_RULES: readonly Rule[] = [
  {
    id: 'free-text',
    action: 'drop',
    rule: 'a label with whitespace is a note, not a file name: dropped, its text kept in `notes`',
    why: 'free text, not a file name (kept in notes)',
    test: (l) => /\s/.test(l.trim()),
  },
  {
    id: 'object-file',
    action: 'drop',
    rule: '`*.o` object files: dropped (objects are not counted as build products)',
    why: 'an object file; objects are not counted as build products',
    test: (l) => /\.o$/.test(l),
  },
  {
    id: 'object-file-typo',
    action: 'drop',
    rule: 'a source name ending in `.0` (`makepatch.h.0`): a typo of an object file name, dropped',
    why: 'an object file name with a typo (.0 for .o); objects are not counted',
    test: (l) => /\.(?:c|cc|cpp|cxx|h|hh|hpp)\.0$/.test(l),
  },
  {
    id: 'cmake-config',
    action: 'drop',
    rule: '`*.cmake` package-config files: dropped (a text file, not a binary)',
    why: 'a CMake package-config file (text), not a binary',
    test: (l) => /\.cmake$/i.test(l),
  },
  {
    id: 'not-elf',
    action: 'drop',
    rule: '`*.hex`, `*.map` (firmware image, linker map) and `*.apk` (Android package): dropped (not ELF or ar files, which is what the artifact scanner finds)',
    why: 'not an ELF or ar file (firmware image, linker map or Android package); the artifact scanner cannot see it',
    test: (l) => /\.(?:hex|map|apk)$/i.test(l),
  },
  {
    id: 'directory',
    action: 'drop',
    rule: '`bin`, `lib`, … : a directory name, dropped',
    why: 'a directory name, not a file',
    test: (l) => DIRECTORY_NAMES.has(l),
  },
  {
    id: 'windows-exe',
    action: 'rename',
    rule: '`*.exe` / `*.EXE` (Windows/DOS names): the name without the suffix, which is what a Linux build writes',
    test: (l) => /^.+\.exe$/i.test(l),
    rename: (l) => l.slice(0, -4),
  },
  {
    id: 'python-extension',
    action: 'rename',
    rule: '`*.cpython-310-x86_64-linux-gnu.so` (bound to the labeller’s CPython 3.10): the untagged `*.so`; the scorer matches it against any interpreter’s tag',
    test: (l) => /^.+\.cpython-\d+-[^.]+\.so$/.test(l),
    rename: (l) => l.replace(/\.cpython-\d+-[^.]+\.so$/, '.so'),
  },
  {
    id: 'versioned-so',
    action: 'rename',
    rule: '`libfoo.so.N…` (a version suffix of one release): the unversioned `libfoo.so`; the scorer matches any version',
    test: (l) => /^.+\.so(?:\.\d[0-9A-Za-z_+~-]*)+$/.test(l),
    rename: (l) => l.replace(/^(.+\.so)(?:\.\d[0-9A-Za-z_+~-]*)+$/, '$1'),
  },
  {
    id: 'static-library',
    action: 'keep',
    rule: '`*.a` static libraries (including `liblibleopard.a` and `softfloat.a`): kept as written',
    test: (l) => /\.a$/.test(l),
  },
  {
    id: 'elf-image',
    action: 'keep',
    rule: '`*.elf` firmware and kernel images: kept (they are ELF files)',
    test: (l) => /\.elf$/.test(l),
  },
  {
    id: 'a.out',
    action: 'keep',
    rule: '`a.out`, the compiler’s default output name: kept',
    test: (l) => l === 'a.out',
  },
];

/** Quirks counted beside the label rules (the trajectories, the join, the validation set). */
export const OTHER_QUIRKS: Readonly<Record<string, string>> = {
  'not-compilable':
    'labels with an empty list (judged not compilable): not imported; exactly the repositories outside the 149',
  'shared-name': 'a cleaned name expected by more than one task (kept in each)',
  'no-scoreable-label':
    'a task of the 149 left with no expected name after cleaning: `expected: []` (the engine infers the main targets), with a note',
  'compilable-no-but-labelled':
    'in the 149 with labels although the trajectory CSV says `Compilable? No`: imported, with a note',
  'branch-mismatch': "the trajectory CSV's `default_branch` differs from the JSONL's: the JSONL's is used",
  'trajectory-none': 'the literal trajectory `None`: no instructions, with a note',
  'trajectory-empty': 'an empty trajectory: no instructions',
  'newline-separator': 'a trajectory cell separating URLs with `,\\n` (split like `, `)',
  'trailing-separator': 'a trajectory cell ending in a comma or a space (ignored)',
  'validation-trailing-separator': 'a validation flat trajectory ending in a comma or a space (ignored)',
  'double-space': 'a trajectory cell with a double space after a comma (ignored)',
  'git-suffix': 'a GitHub repository URL ending in `.git`: the suffix dropped, the original kept as `label`',
  'readme-tab-anchor':
    'a `?tab=readme-ov-file` query (GitHub’s README tab): dropped, the original kept as `label`',
  'trajectory-free-text': 'text in a trajectory that is not a URL: kept in `notes`',
  'other-repository':
    'a trajectory URL on another GitHub repository than the task’s (kept: it is where the instructions are)',
  'joined-urls': 'a validation trajectory step holding two URLs joined by ` && `: split, both with that step',
  'flat-json-disagree':
    'a validation row whose flat trajectory and JSON trajectory differ after cleaning (the JSON one is used)',
  'validation-not-compilable': 'a validation repository with `Compilable? No`: imported, with a note',
  'moved-repository': 'a validation trajectory naming the repository under another owner (moved): noted',
  'overlaps-test-set': 'a validation repository that is also in the 385/149 sets: noted (do not tune on it)',
  'readme-instructions-yes': 'validation: `Build Instructions in Readme?` YES (noted)',
  'readme-instructions-no': 'validation: `Build Instructions in Readme?` NO (noted)',
};

export interface QuirkCount {
  /** Tasks (lists, rows) the quirk occurs in. */
  lists: number;
  /** Occurrences (names, URLs, cells). */
  names: number;
}

interface Change {
  task: string;
  quirk: string;
  from: string;
  to: string;
}

export class QuirkCounter {
  readonly counts = new Map<string, { lists: Set<string>; names: number }>();
  readonly changes: Change[] = [];

  add(quirk: string, task: string, n = 1): void {
    const entry = this.counts.get(quirk) ?? { lists: new Set<string>(), names: 0 };
    entry.lists.add(task);
    entry.names += n;
    this.counts.set(quirk, entry);
  }

  change(quirk: string, task: string, from: string, to: string): void {
    this.add(quirk, task);
    this.changes.push({ task, quirk, from, to });
  }

  result(): Record<string, QuirkCount> {
    const out: Record<string, QuirkCount> = {};
    for (const id of [...LABEL_RULES.map((r) => r.id), ...Object.keys(OTHER_QUIRKS)]) {
      const entry = this.counts.get(id);
      out[id] = { lists: entry?.lists.size ?? 0, names: entry?.names ?? 0 };
    }
    return out;
  }
}

export interface CleanedLabels {
  expected: ({ name: string; label?: string } | string)[];
  dropped: { label: string; why: string }[];
  notes: string[];
}

/** Applies the label rules to one task's labels, counting each rule that matched. */
export function cleanLabels(labels: readonly string[], task: string, counter?: QuirkCounter): CleanedLabels {
  const out: CleanedLabels = { expected: [], dropped: [], notes: [] };
  for (const label of labels) {
    const rule = LABEL_RULES.find((r) => r.test(label));
    if (!rule) {
      out.expected.push(label);
      continue;
    }
    if (rule.action === 'keep') {
      counter?.add(rule.id, task);
      out.expected.push(label);
    } else if (rule.action === 'rename') {
      const name = rule.rename!(label);
      counter?.change(rule.id, task, label, name);
      out.expected.push({ name, label });
    } else {
      counter?.change(rule.id, task, label, '(dropped)');
      out.dropped.push({ label, why: rule.why! });
      if (rule.id === 'free-text') out.notes.push(`BUILD-BENCH label (free text): ${label}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// URLs

export interface CleanedUrl {
  url: string;
  step: number;
  label?: string;
}

/** Cleans one URL: a `.git` suffix on a GitHub repository URL, GitHub's README tab query. */
function cleanUrl(text: string, step: number, task: string, counter: QuirkCounter): CleanedUrl {
  let url = text;
  const quirks: string[] = [];
  if (/^https:\/\/github\.com\/[^/]+\/[^/]+\.git$/.test(url)) {
    url = url.slice(0, -4);
    quirks.push('git-suffix');
  }
  if (/\?tab=readme-ov-file/.test(url)) {
    url = url.replace(/\?tab=readme-ov-file/, '');
    quirks.push('readme-tab-anchor');
  }
  for (const quirk of quirks) counter.change(quirk, task, text, url);
  return url === text ? { url, step } : { url, step, label: text };
}

/** The GitHub `owner/name` of a URL, when it is on github.com. */
function githubRepoOf(url: string): string | undefined {
  const m = /^https:\/\/github\.com\/([^/?#]+)\/([^/?#]+)/.exec(url);
  return m ? `${m[1]}/${m[2]!.replace(/\.git$/, '')}` : undefined;
}

/**
 * A test-set trajectory cell: URLs separated by `, ` or `,\n`, with the quirks SOURCE.md lists (trailing
 * separators, double spaces, `None`, free text after or instead of a URL).
 */
export function parseTrajectoryCell(
  cell: string,
  task: string,
  counter: QuirkCounter,
): { urls: CleanedUrl[]; notes: string[] } {
  const notes: string[] = [];
  if (cell.trim() === '') {
    counter.add('trajectory-empty', task);
    return { urls: [], notes };
  }
  if (cell.trim() === 'None') {
    counter.add('trajectory-none', task);
    notes.push(
      "BUILD-BENCH gives no build-instruction trajectory for this repository (its cell reads 'None').",
    );
    return { urls: [], notes };
  }
  if (/,\n/.test(cell)) counter.add('newline-separator', task);
  if (/[,\s]$/.test(cell)) counter.add('trailing-separator', task);
  if (/, {2}/.test(cell)) counter.add('double-space', task);
  const urls: CleanedUrl[] = [];
  let freeText = false;
  for (const piece of cell.split(/,(?=\s|$)/).map((p) => p.trim())) {
    if (piece === '') continue;
    const m = /^(https?:\/\/\S+?)[,.]?(?:\s+(.*))?$/.exec(piece);
    if (m) urls.push(cleanUrl(m[1]!, urls.length + 1, task, counter));
    const text = m ? m[2] : piece;
    if (text) {
      freeText = true;
      notes.push(`BUILD-BENCH trajectory note: ${text}`);
    }
  }
  if (freeText) counter.add('trajectory-free-text', task);
  return { urls, notes };
}

// ---------------------------------------------------------------------------------------------------------
// The validation set's Python dict repr

/** Parses the Python literals the validation CSV's JSON column holds (dicts, lists, strings, numbers). */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new ConfigError(
      `not a Python literal: ${what} at offset ${i} of ${JSON.stringify(text.slice(0, 60))}`,
    );
  };
  const space = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      const items: unknown[] = [];
      const object: Record<string, unknown> = {};
      space();
      while (text[i] !== close) {
        const key = value();
        space();
        if (c === '{') {
          if (text[i] !== ':') fail("expected ':'");
          i++;
          object[String(key)] = value();
        } else {
          items.push(key);
        }
        space();
        if (text[i] === ',') i++;
        else if (text[i] !== close) fail(`expected ',' or '${close}'`);
        space();
      }
      i++;
      return c === '{' ? object : items;
    }
    if (c === "'" || c === '"') {
      i++;
      let out = '';
      while (text[i] !== c) {
        if (i >= text.length) fail('unterminated string');
        if (text[i] === '\\') {
          const next = text[i + 1];
          out += next === 'n' ? '\n' : next === 't' ? '\t' : (next ?? '');
          i += 2;
        } else {
          out += text[i++];
        }
      }
      i++;
      return out;
    }
    const m = /^(-?\d+(?:\.\d+)?|None|True|False)/.exec(text.slice(i));
    if (!m) return fail('unexpected text');
    i += m[0].length;
    return m[0] === 'None' ? null : m[0] === 'True' ? true : m[0] === 'False' ? false : Number(m[0]);
  };
  const result = value();
  space();
  if (i !== text.length) fail('trailing text');
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Source files

async function sha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** SOURCE.md's table: file → sha256. */
function sourceTable(text: string): Map<string, string> {
  const table = new Map<string, string>();
  for (const m of text.matchAll(/^\| `([^`]+)` \| \d+ \| `([0-9a-f]{64})` \|$/gm)) table.set(m[1]!, m[2]!);
  return table;
}

/** Refuses (ConfigError) unless every source file has the hash SOURCE.md lists and SOURCE.md the pinned ones. */
export async function checkSources(source: string): Promise<{ file: string; sha256: string }[]> {
  let sourceMd: string;
  try {
    sourceMd = await readFile(path.join(source, 'SOURCE.md'), 'utf8');
  } catch (error) {
    throw new ConfigError(`--source: cannot read ${path.join(source, 'SOURCE.md')} (${errorMessage(error)})`);
  }
  const table = sourceTable(sourceMd);
  const checked: { file: string; sha256: string }[] = [];
  for (const [file, pinned] of Object.entries(PINNED_SHA256)) {
    const listed = table.get(file);
    if (listed !== pinned)
      throw new ConfigError(
        `${path.join(source, 'SOURCE.md')}: lists ${listed ?? 'no hash'} for ${file}, not ${pinned} (the copy this importer was written for); refusing to import`,
      );
    let actual: string;
    try {
      actual = await sha256(path.join(source, file));
    } catch (error) {
      throw new ConfigError(`--source: cannot read ${path.join(source, file)} (${errorMessage(error)})`);
    }
    if (actual !== listed)
      throw new ConfigError(
        `${path.join(source, file)}: sha256 ${actual} differs from SOURCE.md's ${listed}; refusing to import`,
      );
    checked.push({ file, sha256: actual });
  }
  return checked;
}

interface RepoRow {
  name: string;
  full_name: string;
  default_branch: string;
  language: string | null;
}

async function jsonl(file: string): Promise<RepoRow[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RepoRow);
}

async function csv(file: string): Promise<Record<string, string>[]> {
  return readTable(await readFile(file, 'utf8'), { type: 'csv' }) as Record<string, string>[];
}

// ---------------------------------------------------------------------------------------------------------
// Writing

type TaskDoc = Record<string, unknown>;

function taskYaml(header: string[], doc: TaskDoc): string {
  return `${[SCHEMA_COMMENT, ...header.map((h) => `# ${h}`)].join('\n')}\n${stringify(doc, { lineWidth: 0 })}`;
}

export interface ImportResult {
  /** Paths relative to `out`, sorted. */
  files: string[];
  counts: Record<string, QuirkCount>;
}

/** Reads the source folder, checks it, and writes the two suites and IMPORT.md under `out`. */
export async function importBuildBench(
  options: { source?: string; out?: string } = {},
): Promise<ImportResult> {
  const source = path.resolve(options.source ?? DEFAULT_SOURCE);
  const out = path.resolve(options.out ?? DEFAULT_OUT);
  const hashes = await checkSources(source);
  const counter = new QuirkCounter();

  const test149 = await jsonl(path.join(source, 'sampled_repos_149_cleaned_higher_split_compilable.jsonl'));
  const all385 = await jsonl(path.join(source, 'sampled_repos_385_cleaned_higher_split.jsonl'));
  const labels = JSON.parse(await readFile(path.join(source, 'compilation_label.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  const trajectories = new Map(
    (await csv(path.join(source, 'test_set_build_trajectories.csv'))).map((r) => [r.Repo_Name!, r]),
  );
  const validation = await csv(path.join(source, 'Compilation_Bench_Validation_Set_70.csv'));

  const files = new Map<string, string>();
  const inTest = new Set(test149.map((r) => r.name));
  for (const [name, list] of Object.entries(labels)) {
    if (list.length === 0 && !inTest.has(name)) counter.add('not-compilable', name);
  }

  // The test set: every JSONL row, joined to its labels by `name` and to its trajectory by `full_name`.
  const nameUse = new Map<string, Set<string>>();
  for (const repo of test149) {
    const id = repo.full_name.replace('/', '+');
    const list = labels[repo.name];
    if (!list || list.length === 0)
      throw new ConfigError(
        `compilation_label.json: no labels for ${repo.name} (${repo.full_name}), which is in the 149`,
      );
    const row = trajectories.get(repo.full_name);
    if (!row) throw new ConfigError(`test_set_build_trajectories.csv: no row for ${repo.full_name}`);
    const cleaned = cleanLabels(list, id, counter);
    const notes = [...cleaned.notes];
    if (row['Compilable?'] !== 'Yes') {
      counter.add('compilable-no-but-labelled', id);
      notes.push(
        `BUILD-BENCH's trajectory file marks it 'Compilable? ${row['Compilable?']}', yet it is in the 149 compilable set with labels.`,
      );
    }
    if (row.default_branch !== repo.default_branch) counter.add('branch-mismatch', id);
    const trajectory = parseTrajectoryCell(row['Build Trajectory'] ?? '', id, counter);
    notes.push(...trajectory.notes);
    if (
      trajectory.urls.some(
        (u) => (githubRepoOf(u.url) ?? repo.full_name).toLowerCase() !== repo.full_name.toLowerCase(),
      )
    )
      counter.add('other-repository', id);
    if (cleaned.expected.length === 0) {
      counter.add('no-scoreable-label', id);
      notes.push(
        'No label is a binary the artifact scanner can see (see dropped): expected is empty, so the engine infers the main targets from the build files.',
      );
    }
    for (const e of cleaned.expected) {
      const name = typeof e === 'string' ? e : e.name;
      nameUse.set(name, (nameUse.get(name) ?? new Set()).add(id));
    }
    const doc: TaskDoc = {
      kind: 'build',
      repository: { source: repo.full_name, branch: repo.default_branch },
      expected: cleaned.expected,
      ...(cleaned.dropped.length > 0 ? { dropped: cleaned.dropped } : {}),
      instructions: trajectory.urls,
      ...(notes.length > 0 ? { notes } : {}),
    };
    files.set(
      `test/${id}.yml`,
      taskYaml(
        [
          `BUILD-BENCH test set: ${repo.full_name} (${repo.language ?? 'no language'}), from ${UPSTREAM} data/.`,
          'Generated by scripts/import-build-bench.ts (npm run import:build-bench); edit the script, not this file.',
        ],
        doc,
      ),
    );
  }
  for (const tasks of nameUse.values()) {
    if (tasks.size > 1) for (const task of [...tasks].sort()) counter.add('shared-name', task);
  }

  // The validation set: identity from Github_Url, trajectory from the JSON column (a Python repr).
  const known = new Map(all385.map((r) => [r.full_name.toLowerCase(), r.full_name]));
  const ids = new Set<string>();
  for (const row of validation) {
    const id = row.Repo_Name!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(id) || ids.has(id))
      throw new ConfigError(
        `Compilation_Bench_Validation_Set_70.csv: Repo_Name '${id}' is not a usable, unique id`,
      );
    ids.add(id);
    const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+?)\/?$/.exec(row.Github_Url ?? '');
    if (!m)
      throw new ConfigError(
        `Compilation_Bench_Validation_Set_70.csv: ${id}: Github_Url '${row.Github_Url}' is not a GitHub repository URL`,
      );
    const fullName = `${m[1]}/${m[2]}`;
    const notes = [
      "BUILD-BENCH's validation set has no expected-binary labels: expected is empty, so the engine infers the main targets from the build files.",
    ];
    const parsed = parsePythonLiteral(row.build_instruction_trajectory_json ?? '') as {
      trajectory: { step: number; url: string }[];
    };
    const urls: CleanedUrl[] = [];
    for (const { step, url } of parsed.trajectory) {
      const parts = url.split(' && ');
      if (parts.length > 1) counter.add('joined-urls', id);
      for (const part of parts) urls.push(cleanUrl(part.trim(), step, id, counter));
    }
    const flat = row.build_instruction_trajectory ?? '';
    if (/[,\s]$/.test(flat)) counter.add('validation-trailing-separator', id);
    const flatUrls = flat
      .split(/,|\s&&\s/)
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const cleanedJson = parsed.trajectory.flatMap((t) => t.url.split(' && ').map((p) => p.trim()));
    if (flatUrls.join('\n') !== cleanedJson.join('\n')) counter.add('flat-json-disagree', id);
    if (row['Compilable?'] !== 'Yes') {
      counter.add('validation-not-compilable', id);
      notes.push(`BUILD-BENCH marks it 'Compilable? ${row['Compilable?']}'.`);
    }
    const readme = row['Build Instructions in Readme?'];
    counter.add(readme === 'YES' ? 'readme-instructions-yes' : 'readme-instructions-no', id);
    notes.push(`BUILD-BENCH: build instructions in the README: ${readme === 'YES' ? 'yes' : 'no'}.`);
    const moved = [
      ...new Set(
        urls
          .map((u) => githubRepoOf(u.url))
          .filter(
            (r): r is string =>
              r !== undefined && r.toLowerCase() !== fullName.toLowerCase() && r.split('/')[1] === m[2],
          ),
      ),
    ];
    if (moved.length > 0) {
      counter.add('moved-repository', id);
      notes.push(
        `The trajectory names the repository as ${moved.join(', ')} (moved since); Github_Url's ${fullName} is used.`,
      );
    }
    const overlap = known.get(fullName.toLowerCase());
    if (overlap) {
      counter.add('overlaps-test-set', id);
      notes.push(
        `Also in BUILD-BENCH's ${inTest.has(overlap.split('/')[1]!) ? '149-repository test set' : '385-repository set'} (${overlap}): do not tune on it before testing on the 149.`,
      );
    }
    const doc: TaskDoc = {
      kind: 'build',
      repository: { source: fullName },
      expected: [],
      instructions: urls,
      notes,
    };
    files.set(
      `validation/${id}.yml`,
      taskYaml(
        [
          `BUILD-BENCH validation set: ${fullName} (${row.Github_Stars} stars when collected), from ${UPSTREAM} data/.`,
          'Generated by scripts/import-build-bench.ts (npm run import:build-bench); edit the script, not this file.',
        ],
        doc,
      ),
    );
  }

  const counts = counter.result();
  files.set('IMPORT.md', importReport(hashes, counts, counter.changes, files));

  // Write, and remove task files of an earlier import that this one did not produce.
  for (const suite of ['test', 'validation']) {
    const dir = path.join(out, suite);
    await mkdir(dir, { recursive: true });
    for (const name of await readdir(dir)) {
      if (name.endsWith('.yml') && !files.has(`${suite}/${name}`)) await rm(path.join(dir, name));
    }
  }
  // Formatted as the repository's Prettier settings say, so `prettier --check .` passes on the output.
  const style = (await resolveConfig(path.join(REPO_ROOT, 'package.json'))) ?? {};
  const sorted = [...files.keys()].sort();
  for (const file of sorted) {
    const text = await format(files.get(file)!, { ...style, filepath: file });
    await writeFile(path.join(out, file), text);
  }
  return { files: sorted, counts };
}

function importReport(
  hashes: { file: string; sha256: string }[],
  counts: Record<string, QuirkCount>,
  changes: Change[],
  files: Map<string, string>,
): string {
  const n = (prefix: string): number => [...files.keys()].filter((f) => f.startsWith(prefix)).length;
  const rules = new Map<string, string>([
    ...LABEL_RULES.map((r): [string, string] => [r.id, `${r.action}: ${r.rule}`]),
    ...Object.entries(OTHER_QUIRKS),
  ]);
  const escape = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, '\\n');
  const lines = [
    '# BUILD-BENCH import',
    '',
    'Generated by `scripts/import-build-bench.ts` (`npm run import:build-bench`); do not edit by hand.',
    `Source: ${UPSTREAM}, \`data/\` (the copy in \`../shared/data/build-bench/\`, see its SOURCE.md).`,
    `Written: ${n('test/')} test tasks (\`test/<owner>+<name>.yml\`), ${n('validation/')} validation tasks (\`validation/<name>.yml\`).`,
    '',
    '## Source files (sha256 checked against SOURCE.md before importing)',
    '',
    '| file | sha256 |',
    '| --- | --- |',
    ...hashes.map((h) => `| \`${h.file}\` | \`${h.sha256}\` |`),
    '',
    '## Cleaning rules and counts',
    '',
    'Label rules are tried in this order on every label of the 149; the first that matches decides.',
    '`lists`: tasks (label lists, CSV rows) it occurs in; `count`: labels, URLs or cells.',
    '',
    '| quirk | lists | count | rule |',
    '| --- | ---: | ---: | --- |',
    ...Object.entries(counts).map(
      ([id, c]) => `| ${id} | ${c.lists} | ${c.names} | ${escape(rules.get(id) ?? '')} |`,
    ),
    '',
    '## Every change',
    '',
    '| task | quirk | original | now |',
    '| --- | --- | --- | --- |',
    ...changes.map(
      (c) =>
        `| ${c.task} | ${c.quirk} | \`${escape(c.from)}\` | ${c.to === '(dropped)' ? 'dropped' : `\`${escape(c.to)}\``} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  let values: { source?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { source: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`import-build-bench: ${errorMessage(error)} (expected --source DIR, --out DIR)\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(
      `usage: npm run import:build-bench -- [--source DIR (default ${path.relative(process.cwd(), DEFAULT_SOURCE)})] [--out DIR (default ${path.relative(process.cwd(), DEFAULT_OUT)})]\n`,
    );
    return 0;
  }
  try {
    const result = await importBuildBench(values);
    const out = path.relative(process.cwd(), path.resolve(values.out ?? DEFAULT_OUT)) || '.';
    process.stdout.write(
      `wrote ${result.files.length} files under ${out} (see ${path.join(out, 'IMPORT.md')})\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`import-build-bench: ${errorMessage(error)}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
