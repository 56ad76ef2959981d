import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import {
  findTaskFiles,
  loadTasks,
  parseTask,
  sourceKind,
  TaskError,
  taskSummary,
  TASK_SCHEMA_URL,
} from '../../../src/bench/load.js';
import type { BuildTask, DeployTask } from '../../../src/bench/types.js';

let dir: string;

/** Writes files under the temporary folder (creating folders) and returns the folder. */
function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** The lines of the TaskError that loading `paths` throws, with the temporary folder removed. */
async function errorsOf(...paths: string[]): Promise<string[]> {
  try {
    await loadTasks(paths.map((p) => path.join(dir, p)));
  } catch (error) {
    if (!(error instanceof TaskError)) throw error;
    expect(error).toBeInstanceOf(ConfigError);
    const relative = `${path.relative(process.cwd(), dir)}/`;
    return error.message.split('\n').map((line) => line.split(relative).join('').split(`${dir}/`).join(''));
  }
  throw new Error('expected the tasks to be rejected');
}

function issuesOf(text: string): string[] {
  try {
    parseTask(text, 'task.yml');
  } catch (error) {
    if (error instanceof TaskError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected the task to be rejected');
}

beforeAll(() => {
  // A relative folder name keeps messages short: loadTasks names files relative to the working directory.
  dir = mkdtempSync(path.join(tmpdir(), 'bb-load-'));
  // The folder is the work tree the tasks' local repositories must stay in (`../repo` from a suite).
  mkdirSync(path.join(dir, '.git'));
  mkdirSync(path.join(dir, 'repo'));
  write({
    'verify.spec.yml': 'name: ok\nchecks:\n  - command: ./hello\n',
    'bad.spec.yml': 'name: bad\nchecks:\n  - command: ./hello\n    expect: { exit_cod: 0 }\n',
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('task files', () => {
  it('loads a build task with defaults filled in and its local repository made absolute', async () => {
    write({
      'suite/hello.yml': [
        '# yaml-language-server: $schema=../schema.json',
        'kind: build',
        'repository: ../repo',
        'expected:',
        '  - hello',
        '  - { name: libgdal.so, label: libgdal.so.37.3.12.0 }',
        'instructions: [https://example.org/a, { url: "https://example.org/b", step: 2 }]',
        '',
      ].join('\n'),
    });
    const [task] = (await loadTasks([path.join(dir, 'suite')])) as BuildTask[];
    expect(task).toEqual({
      id: 'hello',
      kind: 'build',
      repository: { source: path.join(dir, 'repo') },
      requires: [],
      budgets: {},
      notes: [],
      suite: 'suite',
      file: path.join(dir, 'suite/hello.yml'),
      expected: [{ name: 'hello' }, { name: 'libgdal.so', label: 'libgdal.so.37.3.12.0' }],
      instructions: [{ url: 'https://example.org/a' }, { url: 'https://example.org/b', step: 2 }],
      dropped: [],
    });
  });

  it('loads a deploy task: the verifier spec resolved beside it and hidden by default, budgets kept', async () => {
    write({
      'deploy/exp.yml': [
        'kind: deploy',
        'id: my-experiment',
        'repository: { source: owner/name, commit: 0123abcd }',
        'paper: { title: A paper, url: "https://arxiv.org/abs/2509.25248" }',
        'target:',
        '  command: python3 run.py',
        '  timeout: 900',
        '  evidence: { files: [results.json], metrics: [{ file: results.json, key: a.b, min: 0.5 }] }',
        'verifier: { spec: ../verify.spec.yml }',
        'requires: [gpu]',
        'budgets: { maxTurns: 20, timeout: 1h, maxCost: 2.5 }',
        'notes: [an example]',
      ].join('\n'),
    });
    const [task] = (await loadTasks([path.join(dir, 'deploy/exp.yml')])) as DeployTask[];
    expect(task).toEqual({
      id: 'my-experiment',
      kind: 'deploy',
      repository: { source: 'owner/name', commit: '0123abcd' },
      requires: ['gpu'],
      budgets: { maxTurns: 20, timeout: '1h', maxCost: 2.5 },
      notes: ['an example'],
      suite: 'deploy',
      file: path.join(dir, 'deploy/exp.yml'),
      paper: { title: 'A paper', url: 'https://arxiv.org/abs/2509.25248' },
      target: {
        command: 'python3 run.py',
        timeout: '900',
        evidence: { files: ['results.json'], metrics: [{ file: 'results.json', key: 'a.b', min: 0.5 }] },
      },
      verifier: { spec: path.join(dir, 'verify.spec.yml'), hidden: true },
    });
    expect(taskSummary(task!)).toBe('my-experiment (deploy, deploy)  owner/name@0123abcd  requires gpu');
  });

  it('names file, line and field for each kind of schema error', () => {
    const text = [
      'kind: build', //                                   1
      'repository:', //                                   2
      '  source: ./repo', //                              3
      '  comit: abc', //                                  4
      'expected:', //                                     5
      '  - hello', //                                     6
      '  - { nam: x }', //                                7
      '  - 3', //                                         8
      'budgets:', //                                      9
      '  maxTurns: 0', //                                10
      '  timeout: 20 min', //                            11
      'requires: [gpu, tpu]', //                         12
      'instructions: [ftp://x]', //                      13
      'colour: blue', //                                 14
    ].join('\n');
    expect(issuesOf(text)).toEqual([
      "task.yml:4: repository.comit: unknown field (did you mean 'commit'?)",
      'task.yml:7: expected[1].name: required field missing',
      "task.yml:7: expected[1].nam: unknown field (did you mean 'name'?)",
      'task.yml:8: expected[2]: expected a string or a mapping',
      'task.yml:10: budgets.maxTurns: expected an integer ≥ 1',
      'task.yml:11: budgets.timeout: expected seconds or a duration like 90s, 20m, 1h, 1h30m',
      'task.yml:12: requires[1]: expected one of gpu, kvm',
      'task.yml:13: instructions[0]: expected an http(s) URL',
      'task.yml:14: colour: unknown field (expected one of kind, id, repository, requires, budgets, notes, expected, dropped, instructions, paper, target, guest, verifier)',
    ]);
  });

  it('rejects fields of the other kind, a missing target, a bad kind, a bad source', () => {
    expect(issuesOf('kind: deploy\nrepository: foo/bar\nexpected: [x]\n')).toEqual([
      'task.yml:1: target: required field missing (kind: deploy needs target and verifier)',
      'task.yml:1: verifier: required field missing (kind: deploy needs target and verifier)',
      'task.yml:3: expected: not a field of a kind: deploy task',
    ]);
    expect(
      issuesOf('kind: build\nrepository: o/n\ntarget: { command: x, evidence: { files: [a] } }\n'),
    ).toEqual(['task.yml:3: target: not a field of a kind: build task']);
    expect(issuesOf('kind: buidl\nrepository: o/n\n')).toEqual([
      'task.yml:1: kind: expected one of build, deploy',
    ]);
    expect(issuesOf('repository: o/n\n')).toEqual(['task.yml:1: kind: required field missing']);
    expect(issuesOf('kind: build\nrepository: "not a source"\n')).toEqual([
      'task.yml:2: repository: expected owner/name, a git URL, or a local path starting with ./, ../ or /',
    ]);
  });

  it('checks what the schema cannot: regular expressions, bounds, zero durations, repeated names', () => {
    const deploy = (evidence: string, timeout = '1m'): string =>
      `kind: deploy\nrepository: o/n\ntarget:\n  command: x\n  timeout: ${timeout}\n  evidence: ${evidence}\nverifier: { spec: v.yml }\n`;
    expect(issuesOf(deploy('{ output: ["("] }'))).toEqual([
      'task.yml:6: target.evidence.output[0]: not a valid regular expression: Invalid regular expression: /(/m: Unterminated group',
    ]);
    expect(issuesOf(deploy('{ metrics: [{ file: r.json, key: a, min: 2, max: 1 }] }'))).toEqual([
      'task.yml:6: target.evidence.metrics[0]: min (2) is greater than max (1)',
    ]);
    expect(issuesOf(deploy('{ files: [a] }', '0s'))).toEqual([
      'task.yml:5: target.timeout: expected a duration greater than zero',
    ]);
    expect(issuesOf('kind: build\nrepository: o/n\nexpected: [a, b, a]\n')).toEqual([
      "task.yml:3: expected[2]: 'a' is already expected[0]",
    ]);
  });

  it('refuses a target folder outside the repository', () => {
    const deploy = (cwd: string): string =>
      `kind: deploy\nrepository: o/n\ntarget: { command: x, cwd: '${cwd}', evidence: { files: [a] } }\nverifier: { spec: v.yml }\n`;
    for (const cwd of ['../../etc', '/etc', 'a/../../b']) {
      expect(issuesOf(deploy(cwd))).toEqual([
        'task.yml:3: target.cwd: expected a folder inside the repository (relative, without ..)',
      ]);
    }
    expect((parseTask(deploy('experiments/../runs'), 'task.yml') as DeployTask).target.cwd).toBe(
      'experiments/../runs',
    );
  });

  it('reads a guest block into a GuestSpec, and names each bad field of one', () => {
    const deploy = (guest: string): string =>
      `kind: deploy\nrepository: o/n\ntarget: { command: x, evidence: { files: [a] } }\nverifier: { spec: v.yml }\nguest:\n${guest}`;
    const task = parseTask(
      deploy(
        '  kind: kernel\n  configFragment: tiny.config\n  image: arch/x86/boot/bzImage\n  append: quiet\n  pattern: "Linux version"\n  within: 2m\n',
      ),
      'task.yml',
    ) as DeployTask;
    expect(task.guest).toEqual({
      kind: 'kernel',
      configFragment: 'tiny.config',
      image: 'arch/x86/boot/bzImage',
      append: 'quiet',
      pattern: 'Linux version',
      withinMs: 120_000,
    });
    expect(
      issuesOf(
        deploy(
          '  kind: multiboot\n  configFragment: ../x.config\n  image: /boot/vmlinuz\n  pattern: "("\n  within: 0s\n',
        ),
      ),
    ).toEqual([
      'task.yml:7: guest.configFragment: expected a path inside the repository (relative, without ..)',
      'task.yml:7: guest.configFragment: only a kind: kernel guest has a config fragment',
      'task.yml:8: guest.image: expected a path inside the repository (relative, without ..)',
      'task.yml:9: guest.pattern: not a valid regular expression: Invalid regular expression: /(/m: Unterminated group',
      'task.yml:10: guest.within: expected a duration greater than zero',
    ]);
    expect(issuesOf(deploy('  kind: vm\n  image: a\n  pattern: x\n'))).toEqual([
      'task.yml:5: guest.within: required field missing',
      'task.yml:6: guest.kind: expected one of kernel, multiboot',
    ]);
    expect(
      issuesOf(
        'kind: build\nrepository: o/n\nguest: { kind: multiboot, image: a, pattern: x, within: 1s }\n',
      ),
    ).toEqual(['task.yml:3: guest: not a field of a kind: build task']);
  });

  it('reports YAML syntax errors and duplicate keys by line', () => {
    expect(issuesOf('kind: build\nrepository: o/n\nnotes: [a\n')).toEqual([
      'task.yml:4: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(issuesOf('kind: build\nrepository: o/n\nrepository: o/m\n')).toEqual([
      'task.yml:3: not valid YAML: Map keys must be unique',
    ]);
    expect(issuesOf('- kind: build\n')).toEqual([
      'task.yml:1: expected a task (a mapping with kind, repository, …)',
    ]);
  });

  it('checks local repositories and verifier specs on disk, with the spec’s own error', async () => {
    write({
      'files/missing.yml': 'kind: build\nrepository: ./nope\n',
      'files/badspec.yml':
        'kind: deploy\nrepository: ../repo\ntarget: { command: x, evidence: { files: [a] } }\nverifier:\n  spec: ../bad.spec.yml\n',
    });
    expect(await errorsOf('files')).toEqual([
      'files/badspec.yml:5: verifier.spec: not a usable layer-2 spec:',
      "    bad.spec.yml:4: checks[0].expect.exit_cod: unknown field (did you mean 'exit_code'?)",
      'files/missing.yml:2: repository: no folder at files/nope',
    ]);
    // Without the file checks the same files load.
    const tasks = await loadTasks([path.join(dir, 'files')], { checkFiles: false });
    expect(tasks.map((t) => t.id)).toEqual(['badspec', 'missing']);
  });

  it('rejects an id used twice, naming both files', async () => {
    write({
      'dup/a/one.yml': 'kind: build\nrepository: o/n\nid: same\n',
      'dup/b/two.yml': 'kind: build\nid: same\nrepository: o/m\n',
    });
    expect(await errorsOf('dup')).toEqual([
      "dup/b/two.yml:2: id: the task id 'same' is also the id of dup/a/one.yml",
    ]);
  });

  it('rejects a file name that is not a valid id unless id is set', () => {
    expect(() => parseTask('kind: build\nrepository: o/n\n', 'has space.yml')).toThrow(
      "has space.yml:1: the file name 'has space' is not a valid task id; rename the file or set id:",
    );
    expect(parseTask('kind: build\nrepository: o/n\nid: ok\n', 'has space.yml').id).toBe('ok');
  });
});

describe('folders', () => {
  it('walks folders recursively in code-unit order, skipping hidden entries and *.spec.yml', async () => {
    write({
      'walk/b.yml': 'kind: build\nrepository: o/b\n',
      'walk/A.yaml': 'kind: build\nrepository: o/a\n',
      'walk/sub/c.yml': 'kind: build\nrepository: o/c\n',
      'walk/sub/c.spec.yml': 'not: a task\n',
      'walk/.hidden/d.yml': 'not: a task\n',
      'walk/sub/readme.txt': 'not a task file',
    });
    const tasks = await loadTasks([path.join(dir, 'walk')]);
    expect(tasks.map((t) => [t.id, t.suite])).toEqual([
      ['A', 'walk'],
      ['b', 'walk'],
      ['c', 'sub'],
    ]);
    // The same file given twice loads once; a root option names suites from higher up.
    const again = await loadTasks([path.join(dir, 'walk/b.yml'), path.join(dir, 'walk')], { root: dir });
    expect(again.map((t) => [t.id, t.suite])).toEqual([
      ['b', 'walk'],
      ['A', 'walk'],
      ['c', 'walk/sub'],
    ]);
  });

  it('says so when a path is missing, a folder has no task files, or nothing is given', async () => {
    mkdirSync(path.join(dir, 'empty'), { recursive: true });
    await expect(findTaskFiles([path.join(dir, 'absent')])).rejects.toThrow(
      /absent: no such task file or folder/,
    );
    await expect(findTaskFiles([path.join(dir, 'empty')])).rejects.toThrow(/empty: no task files/);
    await expect(findTaskFiles([])).rejects.toThrow('no task files given');
  });
});

describe('helpers', () => {
  it('tells the three kinds of repository source apart', () => {
    expect(sourceKind('owner/name')).toBe('github');
    expect(sourceKind('https://github.com/o/n.git')).toBe('url');
    expect(sourceKind('git@github.com:o/n.git')).toBe('url');
    expect(sourceKind('./repo')).toBe('local');
    expect(sourceKind('../x/y')).toBe('local');
    expect(sourceKind('/abs/path')).toBe('local');
  });

  it('has a description on every property of the schema', () => {
    const missing: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      const object = node as Record<string, unknown>;
      const properties = object.properties as Record<string, unknown> | undefined;
      for (const [key, value] of Object.entries(properties ?? {})) {
        if (typeof value === 'object' && value !== null && !('description' in value))
          missing.push(`${where}.${key}`);
      }
      for (const [key, value] of Object.entries(object)) visit(value, `${where}.${key}`);
    };
    const schema: unknown = JSON.parse(readFileSync(TASK_SCHEMA_URL, 'utf8'));
    visit(schema, '#');
    expect(missing).toEqual([]);
  });
});
