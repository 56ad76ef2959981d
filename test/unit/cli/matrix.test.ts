/**
 * `buildbench matrix` through the CLI's one entry (`run(argv, io)`): task files on disk → one line of JSON that
 * `fromJSON` in a workflow reads; bad flags and bad task files → exit 2 and one line naming them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { BenchMatrix, MatrixChunk } from '../../../src/bench/matrix.js';
import { run } from '../../../src/cli/main.js';
import { MATRIX_HELP } from '../../../src/cli/matrix.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'bb-matrix-cli-'));
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('tasks/suite/zlib.yml', 'kind: build\nrepository: madler/zlib\n');
  write('tasks/suite/cuda-thing.yml', 'kind: build\nrepository: octo/cuda-thing\nrequires: [gpu]\n');
  write('tasks/suite/vm.yml', 'kind: build\nid: vm-image\nrepository: octo/vm\nrequires: [kvm, gpu]\n');
  write('tasks/bad/broken.yml', 'kind: build\nrepository: octo/x\nrequires: [tpu]\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {},
    cwd: root,
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('buildbench matrix', () => {
  it('prints the whole matrix on one line, task files relative to the current folder', async () => {
    const r = await cli(['matrix', 'tasks/suite', '--runs', '2']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.endsWith('\n')).toBe(true);
    expect(r.out.trimEnd()).not.toContain('\n');
    const matrix = JSON.parse(r.out) as BenchMatrix;
    expect(matrix).toMatchObject({ size: 6, chunkSize: 256, chunkIndices: [0] });
    expect(
      matrix.chunks[0]!.include.map((e) => `${e.file} ${e.task}#${e.run} ${e['runs-on'].join(',')}`),
    ).toEqual([
      'tasks/suite/cuda-thing.yml cuda-thing#1 self-hosted,gpu',
      'tasks/suite/cuda-thing.yml cuda-thing#2 self-hosted,gpu',
      'tasks/suite/vm.yml vm-image#1 self-hosted,gpu,kvm',
      'tasks/suite/vm.yml vm-image#2 self-hosted,gpu,kvm',
      'tasks/suite/zlib.yml zlib#1 ubuntu-latest',
      'tasks/suite/zlib.yml zlib#2 ubuntu-latest',
    ]);
  });

  it('chunks with --chunk, prints one chunk with --chunk-index, and takes --labels and --default-runner', async () => {
    const all = JSON.parse(
      (await cli(['matrix', 'tasks/suite', '--runs', '3', '--chunk', '4'])).out,
    ) as BenchMatrix;
    expect(all.chunks.map((c) => c.include.length)).toEqual([4, 4, 1]);
    const r = await cli([
      'matrix',
      'tasks/suite/zlib.yml',
      'tasks/suite/cuda-thing.yml',
      '--runs',
      '3',
      '--chunk',
      '4',
      '--chunk-index',
      '1',
      '--labels',
      'gpu=gpu-box',
      '--default-runner',
      'self-hosted,linux',
    ]);
    expect(r.code).toBe(0);
    const chunk = JSON.parse(r.out) as MatrixChunk;
    expect(chunk.include.map((e) => `${e.task}#${e.run} ${e['runs-on'].join(',')}`)).toEqual([
      'zlib#2 self-hosted,linux',
      'zlib#3 self-hosted,linux',
    ]);
  });

  it('answers bad flags and task files with exit 2 and one line naming them', async () => {
    const cases: [string[], string][] = [
      [['matrix'], 'buildbench: matrix: missing <task files or dirs…>'],
      [
        ['matrix', 'tasks/suite', '--chunk', '300'],
        "--chunk: '300' is not valid; expected a whole number from 1 to 256",
      ],
      [['matrix', 'tasks/suite', '--runs', '0'], "--runs: '0' is not valid"],
      [
        ['matrix', 'tasks/suite', '--labels', 'fpga=x'],
        "--labels: 'fpga' is not a requirement a task can have",
      ],
      [
        ['matrix', 'tasks/suite', '--chunk-index', '1'],
        '--chunk-index: 1 is out of range; the matrix has 1 chunk(s)',
      ],
      [['matrix', 'tasks/suite', '--bogus'], "unknown option '--bogus'"],
      [['matrix', 'tasks/bad'], 'broken.yml:3: requires'],
      [['matrix', 'tasks/none'], 'tasks/none'],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(`${argv.join(' ')} → ${r.code}`).toBe(`${argv.join(' ')} → 2`);
      expect(r.out).toBe('');
      expect(r.err).toContain(message);
      expect(r.err.startsWith('buildbench: ')).toBe(true);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });

  it('matrix --help prints its own help', async () => {
    expect(await cli(['matrix', '--help'])).toEqual({ code: 0, out: MATRIX_HELP, err: '' });
  });
});
