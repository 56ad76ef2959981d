/**
 * The GPU deploy fixture (tasks/gpu/torch-gpu-check) loads and validates, its hidden verifier
 * demands GPU evidence, and the matrix routes it — and any `requires: [gpu]` task — to GPU runner labels.
 * Running it needs a GPU (scripts/gpu-device-check.sh); here it only has to load and route.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { loadTasks } from '../../../src/bench/load.js';
import { buildMatrix, parseRunnerLabels } from '../../../src/bench/matrix.js';
import { parseSpec } from '../../../src/verify/spec.js';

const FIXTURE = 'tasks/gpu/torch-gpu-check';

describe('the torch-gpu-check fixture', () => {
  it('is a deploy task that requires a GPU, with a hidden verifier that needs evidence of GPU use', async () => {
    const [task] = await loadTasks([FIXTURE]);
    expect(task).toMatchObject({ id: 'torch-gpu-check', kind: 'deploy', requires: ['gpu'] });
    if (task?.kind !== 'deploy') throw new Error('not a deploy task');
    expect(task.verifier.hidden).toBe(true);
    const spec = parseSpec(readFileSync(task.verifier.spec, 'utf8'), task.verifier.spec);
    expect(spec.checks[0]?.expect.gpu).toEqual({ pattern: '^device: cuda:\\d+ \\(.+\\)$' });
    expect(spec.checks[0]?.expect.stdoutNot).toEqual(['device: cpu']);
  });

  it('goes to the GPU runners in the matrix; the labels can be changed, a CPU task stays on ubuntu-latest', async () => {
    const tasks = await loadTasks([
      FIXTURE,
      'tasks/examples/sort-benchmark.yml',
      'tasks/examples/kvm-api-version.yml',
    ]);
    const root = path.resolve('.');
    const byTask = (labels?: Parameters<typeof buildMatrix>[1]['labels']) =>
      Object.fromEntries(
        buildMatrix(tasks, {
          runs: 1,
          chunkSize: 256,
          root,
          ...(labels ? { labels } : {}),
        }).chunks[0]!.include.map((e) => [e.task, e['runs-on']]),
      );
    expect(byTask()).toEqual({
      'torch-gpu-check': ['self-hosted', 'gpu'],
      'sort-benchmark': ['ubuntu-latest'],
      'kvm-api-version': ['self-hosted', 'kvm'],
    });
    const labels = parseRunnerLabels(['gpu=self-hosted,linux,gpu-h200'], '--labels');
    expect(byTask(labels)['torch-gpu-check']).toEqual(['self-hosted', 'linux', 'gpu-h200']);
  });
});
