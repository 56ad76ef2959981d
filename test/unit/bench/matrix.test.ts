/**
 * The benchmark matrix (src/bench/matrix.ts): entries per task × run, runner labels from `requires`, chunks
 * past GitHub's 256-job limit. The golden files under test/fixtures/golden/bench/matrix-*.json are the
 * matrices of the task lists below; after an intended change, regenerate them with
 * `UPDATE_GOLDEN=1 NODE_OPTIONS=--experimental-vm-modules npx jest test/unit/bench/matrix.test.ts` and read the diff.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import {
  buildMatrix,
  matrixChunk,
  parseLabelList,
  parseRunnerLabels,
  runnerLabelsFor,
  type BenchMatrix,
} from '../../../src/bench/matrix.js';
import type { Requirement, Task } from '../../../src/bench/types.js';

const GOLDEN = path.resolve('test/fixtures/golden/bench');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const ROOT = '/repo';

function golden(name: string, matrix: BenchMatrix): void {
  const file = path.join(GOLDEN, name);
  const text = render(matrix);
  if (UPDATE) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
  }
  if (!existsSync(file)) throw new Error(`${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

/** The matrix as JSON with one entry per line, so a diff shows which entries moved. */
function render(matrix: BenchMatrix): string {
  const chunks = matrix.chunks.map(
    (c) =>
      `    {\n      "include": [\n${c.include.map((e) => `        ${JSON.stringify(e)}`).join(',\n')}\n      ]\n    }`,
  );
  const text = `{\n  "size": ${matrix.size},\n  "chunkSize": ${matrix.chunkSize},\n  "chunkIndices": ${JSON.stringify(matrix.chunkIndices)},\n  "chunks": [\n${chunks.join(',\n')}\n  ]\n}\n`;
  expect(JSON.parse(text)).toEqual(matrix);
  return text;
}

function task(id: string, file: string, requires: Requirement[] = []): Task {
  return {
    id,
    kind: 'build',
    repository: { source: `octo/${id}` },
    requires,
    budgets: {},
    notes: [],
    file: path.join(ROOT, file),
    expected: [],
    instructions: [],
  };
}

// Given out of order on purpose: the matrix orders by file, then id.
const LABELLED = [
  task('both', 'tasks/examples/both.yml', ['kvm', 'gpu']),
  task('plain', 'tasks/fixtures/plain.yml'),
  task('gpu-only', 'tasks/examples/gpu.yml', ['gpu']),
  task('kvm-only', 'tasks/examples/kvm.yml', ['kvm']),
];

describe('buildMatrix', () => {
  it('gives each task × run an entry with the default labels (gpu, kvm, both, none)', () => {
    const matrix = buildMatrix(LABELLED, { runs: 2, chunkSize: 256, root: ROOT });
    expect(matrix.size).toBe(8);
    expect(matrix.chunkIndices).toEqual([0]);
    const byTask = Object.fromEntries(matrix.chunks[0]!.include.map((e) => [e.task, e['runs-on']]));
    expect(byTask).toEqual({
      both: ['self-hosted', 'gpu', 'kvm'],
      'gpu-only': ['self-hosted', 'gpu'],
      'kvm-only': ['self-hosted', 'kvm'],
      plain: ['ubuntu-latest'],
    });
    golden('matrix-labels.json', matrix);
  });

  it('takes a custom label map and default runner; a requirement missing from the map keeps its default', () => {
    const labels = parseRunnerLabels(['gpu=gpu-runner, linux, x64', 'kvm=self-hosted,kvm,x64'], '--labels');
    const matrix = buildMatrix(LABELLED, {
      runs: 1,
      chunkSize: 256,
      root: ROOT,
      labels,
      defaultRunner: ['self-hosted', 'linux'],
    });
    expect(matrix.chunks[0]!.include.map((e) => `${e.task}: ${e['runs-on'].join(' ')}`)).toEqual([
      'both: gpu-runner linux x64 self-hosted kvm',
      'gpu-only: gpu-runner linux x64',
      'kvm-only: self-hosted kvm x64',
      'plain: self-hosted linux',
    ]);
    golden('matrix-custom-labels.json', matrix);
    expect(runnerLabelsFor(['gpu'], { kvm: ['k'] })).toEqual(['self-hosted', 'gpu']);
  });

  it('cuts 600 entries into chunks of at most 256 (256, 256, 88), every task × run exactly once', () => {
    const tasks = Array.from({ length: 120 }, (_, i) =>
      task(
        `t${String(i).padStart(3, '0')}`,
        `tasks/big/t${String(i).padStart(3, '0')}.yml`,
        i % 40 === 7 ? ['gpu'] : [],
      ),
    );
    const matrix = buildMatrix(tasks.reverse(), { runs: 5, chunkSize: 256, root: ROOT });
    expect(matrix.size).toBe(600);
    expect(matrix.chunks.map((c) => c.include.length)).toEqual([256, 256, 88]);
    expect(matrix.chunkIndices).toEqual([0, 1, 2]);
    const keys = matrix.chunks.flatMap((c) => c.include.map((e) => `${e.task}#${e.run}`));
    expect(new Set(keys).size).toBe(600);
    expect(keys.slice(0, 6)).toEqual(['t000#1', 't000#2', 't000#3', 't000#4', 't000#5', 't001#1']);
    golden('matrix-chunks.json', matrix);
  });

  it('is deterministic: the same entries whatever order the tasks come in', () => {
    const a = buildMatrix(LABELLED, { runs: 3, chunkSize: 5, root: ROOT });
    const b = buildMatrix([...LABELLED].reverse(), { runs: 3, chunkSize: 5, root: ROOT });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.chunks.map((c) => c.include.length)).toEqual([5, 5, 2]);
    expect(matrixChunk(a, 2).include.map((e) => `${e.task}#${e.run}`)).toEqual(['plain#2', 'plain#3']);
  });

  it('refuses what GitHub or the workflow could not run, with a message naming it', () => {
    const bad = (f: () => unknown): string => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(bad(() => buildMatrix(LABELLED, { runs: 1, chunkSize: 257, root: ROOT }))).toContain(
      'chunk size must be a whole number from 1 to 256, got 257',
    );
    expect(bad(() => buildMatrix(LABELLED, { runs: 0, chunkSize: 256, root: ROOT }))).toContain('runs');
    expect(bad(() => buildMatrix([], { runs: 1, chunkSize: 256, root: ROOT }))).toBe(
      'matrix: no tasks to put in the matrix',
    );
    expect(
      bad(() =>
        buildMatrix([task('x', 'a/x.yml'), task('x', 'b/x.yml')], { runs: 1, chunkSize: 256, root: ROOT }),
      ),
    ).toBe("matrix: task id 'x' is used by both a/x.yml and b/x.yml");
    expect(
      bad(() => buildMatrix([task('x', '../elsewhere/x.yml')], { runs: 1, chunkSize: 256, root: ROOT })),
    ).toBe('matrix: task file /elsewhere/x.yml is outside /repo');
    const m = buildMatrix(LABELLED, { runs: 1, chunkSize: 256, root: ROOT });
    expect(bad(() => matrixChunk(m, 1))).toBe(
      '--chunk-index: 1 is out of range; the matrix has 1 chunk(s) (0 to 0)',
    );
    expect(bad(() => parseRunnerLabels(['gpu'], '--labels'))).toBe("--labels: 'gpu' has no '='");
    expect(bad(() => parseRunnerLabels(['tpu=x'], 'input runner-labels'))).toBe(
      "input runner-labels: 'tpu' is not a requirement a task can have",
    );
    expect(bad(() => parseRunnerLabels(['gpu= , '], '--labels'))).toBe(
      '--labels (gpu): no runner label given',
    );
    expect(bad(() => parseLabelList('self hosted', '--default-runner'))).toBe(
      "--default-runner: runner label 'self hosted' has white space in it",
    );
  });
});
