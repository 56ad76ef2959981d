/**
 * `buildbench matrix`: task files or folders → the JSON of a GitHub Actions `strategy.matrix` (see
 * src/bench/matrix.ts for its shape and how .github/workflows/benchmark.yml consumes it), on one line, so a
 * workflow step can write it to $GITHUB_OUTPUT as it is.
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { loadTasks } from '../bench/load.js';
import {
  buildMatrix,
  matrixChunk,
  parseLabelList,
  parseRunnerLabels,
  DEFAULT_RUNNER,
  GITHUB_MATRIX_LIMIT,
} from '../bench/matrix.js';
import { parsePositiveInt } from '../core/settings.js';
import { parseCliArgs } from './args.js';

export const MATRIX_USAGE =
  'usage: buildbench matrix <task files or dirs…> [--runs N] [--chunk 256] [--chunk-index I] [--labels req=label,…]… [--default-runner label,…]';

export const MATRIX_HELP = `${MATRIX_USAGE}

Prints the JSON of a GitHub Actions strategy.matrix for a benchmark, on one line: one entry per task × run,
{"task": id, "file": the task file relative to this folder, "run": n, "runs-on": [labels]}, cut into chunks of
at most 256 entries (GitHub's limit for one matrix):
  {"size": N, "chunkSize": 256, "chunkIndices": [0, 1, …], "chunks": [{"include": [entries…]}, …]}
A workflow fans out over chunkIndices and gives chunks[i] to a reusable workflow whose job runs the entries
(see .github/workflows/benchmark.yml). Entries are ordered by task file, id and run: the same tasks give the
same JSON.
  --runs <n>             runs of each task (default: 1)
  --chunk <n>            entries per chunk, 1 to ${GITHUB_MATRIX_LIMIT} (default: ${GITHUB_MATRIX_LIMIT})
  --chunk-index <i>      print only chunk i's {"include": […]} (0-based)
  --labels <req=labels>  runner labels for a requirement, repeatable (default: gpu=self-hosted,gpu and
                         kvm=self-hosted,kvm); a task that requires both runs on the union of their labels
  --default-runner <l>   labels for a task that requires nothing (default: ${DEFAULT_RUNNER.join(',')})
  --repos-dir <dir>      a folder local repositories may be in besides the task file's work tree (as for bench)

Task files are named relative to the current folder: run it from the repository's root.
Exit status: 0, or 2 for bad flags or task files that do not validate.
`;

export async function runMatrixCommand(
  args: string[],
  io: { stdout: (text: string) => void; cwd: string },
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(MATRIX_HELP);
    return 0;
  }
  const { values, positionals } = parseCliArgs(
    args,
    {
      runs: { type: 'string' },
      chunk: { type: 'string' },
      'chunk-index': { type: 'string' },
      labels: { type: 'string', multiple: true },
      'default-runner': { type: 'string' },
      'repos-dir': { type: 'string' },
    },
    { prefix: 'matrix: ', hint: MATRIX_USAGE },
  );
  if (positionals.length === 0) throw new ConfigError('matrix: missing <task files or dirs…>', MATRIX_USAGE);
  const runs = parsePositiveInt(values.runs ?? '1', '--runs');
  const chunkSize = parsePositiveInt(
    values.chunk ?? `${GITHUB_MATRIX_LIMIT}`,
    '--chunk',
    GITHUB_MATRIX_LIMIT,
  );
  const labels = parseRunnerLabels(values.labels ?? [], '--labels');
  const defaultRunner =
    values['default-runner'] !== undefined
      ? parseLabelList(values['default-runner'], '--default-runner')
      : [...DEFAULT_RUNNER];
  const chunkIndex =
    values['chunk-index'] !== undefined
      ? parsePositiveInt(values['chunk-index'], '--chunk-index', Number.MAX_SAFE_INTEGER, 0)
      : undefined;

  const reposDir = values['repos-dir'];
  const tasks = await loadTasks(
    positionals.map((p) => path.resolve(io.cwd, p)),
    reposDir !== undefined ? { allowedRoots: [path.resolve(io.cwd, reposDir)] } : {},
  );
  const matrix = buildMatrix(tasks, { runs, chunkSize, labels, defaultRunner, root: io.cwd });
  const printed = chunkIndex === undefined ? matrix : matrixChunk(matrix, chunkIndex);
  io.stdout(`${JSON.stringify(printed)}\n`);
  return 0;
}
