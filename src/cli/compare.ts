/**
 * `buildbench compare A B` and `buildbench leaderboard <dirs…>`: result folders in, text (or JSON) and exit
 * statuses out. Usage and configuration errors are ConfigErrors (the CLI's boundary prints one line, exit 2).
 */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import {
  compareExitCode,
  compareResultSets,
  FAIL_IF_CONDITIONS,
  renderComparison,
  type FailIf,
} from '../bench/compare.js';
import { writeLeaderboard } from '../bench/leaderboard.js';
import { parseCliArgs } from './args.js';

export const COMPARE_USAGE = `usage: buildbench compare <A> <B> [--json] [--fail-if ${FAIL_IF_CONDITIONS.join('|')}] [--system-a NAME] [--system-b NAME]`;

export const COMPARE_HELP = `${COMPARE_USAGE}

Compares two result sets task by task: B (the candidate) against A (the baseline).
  <A>, <B>             a bench folder (or any folder of downloaded run folders), or a leaderboard.json
  --fail-if <cond>     exit 1 when it holds (repeatable): strict-dropped (mean strict success over the
                       tasks both ran is lower in B), flexible-dropped (the same for flexible),
                       any-loss (B lost a task: lower strict, then flexible, then completion rate)
  --system-a <name>    the system of A to compare when A holds several (a label such as
  --system-b <name>    'llm (openai:gpt-4o)', or a strategy name)
  --json               print the comparison as JSON

Only the tasks both ran are compared (the others are listed); none in common is an error.
Exit status: 0 (no --fail-if condition holds), 1 (one holds), 2 usage or configuration error.
`;

export const LEADERBOARD_USAGE = 'usage: buildbench leaderboard <dirs…> [--out DIR] [--title TEXT]';

export const LEADERBOARD_HELP = `${LEADERBOARD_USAGE}

(Re)renders leaderboard.md, leaderboard.json and leaderboard.svg from result folders: every run.json
found under the folders (any layout; symbolic links are not followed), with the result.json beside it.
  --out <dir>          where the three files go (default: the folder itself when one is given)
  --title <text>       the heading of leaderboard.md and the chart

Exit status: 0 written, 2 usage or configuration error (no run.json found).
`;

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

/** `buildbench compare`. */
export async function runCompareCommand(args: string[], io: CommandIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(COMPARE_HELP);
    return 0;
  }
  const { values, positionals } = parseCliArgs(
    args,
    {
      json: { type: 'boolean' },
      'fail-if': { type: 'string', multiple: true },
      'system-a': { type: 'string' },
      'system-b': { type: 'string' },
    },
    { prefix: 'compare: ', hint: COMPARE_USAGE },
  );
  if (positionals.length !== 2) {
    throw new ConfigError(
      `compare: expected two result sets (A and B), got ${positionals.length}${positionals.length > 0 ? `: ${positionals.join(' ')}` : ''}`,
      COMPARE_USAGE,
    );
  }
  const failIf = (values['fail-if'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
  for (const condition of failIf) {
    if (!(FAIL_IF_CONDITIONS as readonly string[]).includes(condition))
      throw new ConfigError(
        `compare: --fail-if '${condition}' is not a condition`,
        `expected one of ${FAIL_IF_CONDITIONS.join(', ')}`,
      );
  }
  const comparison = await compareResultSets(positionals[0]!, positionals[1]!, {
    cwd: io.cwd,
    failIf: failIf as FailIf[],
    ...(values['system-a'] !== undefined ? { systemA: values['system-a'] } : {}),
    ...(values['system-b'] !== undefined ? { systemB: values['system-b'] } : {}),
  });
  io.stdout(values.json ? JSON.stringify(comparison, null, 2) + '\n' : renderComparison(comparison));
  return compareExitCode(comparison);
}

/** `buildbench leaderboard`. */
export async function runLeaderboardCommand(args: string[], io: CommandIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(LEADERBOARD_HELP);
    return 0;
  }
  const { values, positionals } = parseCliArgs(
    args,
    { out: { type: 'string' }, title: { type: 'string' } },
    { prefix: 'leaderboard: ', hint: LEADERBOARD_USAGE },
  );
  if (positionals.length === 0) throw new ConfigError('leaderboard: missing <dirs…>', LEADERBOARD_USAGE);
  if (values.out === undefined && positionals.length > 1)
    throw new ConfigError(
      `leaderboard: ${positionals.length} folders given; say where the leaderboard goes with --out`,
      LEADERBOARD_USAGE,
    );
  const outDir = path.resolve(io.cwd, values.out ?? positionals[0]!);
  const { leaderboard, files } = await writeLeaderboard(positionals, outDir, {
    cwd: io.cwd,
    ...(values.title !== undefined ? { title: values.title } : {}),
  });
  for (const w of leaderboard.warnings) io.stderr(`leaderboard: warning: ${w}\n`);
  for (const p of leaderboard.problems) io.stderr(`leaderboard: ${p.file}: ${p.problem}\n`);
  for (const s of leaderboard.systems) {
    io.stdout(
      `${s.system}: ${s.runs} runs over ${s.tasks} tasks — strict ${pct(s.rates.strict)}, ` +
        `flexible ${pct(s.rates.flexible)}, completion ${pct(s.rates.completion)}\n`,
    );
  }
  io.stdout(`wrote ${files.markdown}, ${files.json}, ${files.svg}\n`);
  return 0;
}

const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;
