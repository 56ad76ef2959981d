/**
 * The run-through check over run folders on disk (issue 31: "a script that did not run through is never
 * SUCCESS"): a folder's result.json and trajectory.jsonl are read, and a success whose last turn or recipe replay
 * exited non-zero is a problem, named with the file; so is a deploy whose trajectory claims `impossible` before
 * every row of its ecosystems' alternatives was tried or ruled out (issue 29). Used by the test suite's global teardown
 * (test/setup/check-run-through.ts), and by tests that run builds.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { trajectoryPrematureImpossible } from '../../src/deploy/alternatives.js';
import {
  successWithoutRunThrough,
  trajectorySuccessWithoutRunThrough,
  type RunThroughFacts,
  type TrajectoryLine,
} from '../../src/report/run-through.js';

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The problems of the run written in `dir` (result.json and trajectory.jsonl, each when present and a run's). */
export function checkRunDir(dir: string): string[] {
  const problems: string[] = [];
  const resultFile = path.join(dir, 'result.json');
  const resultText = readText(resultFile);
  if (resultText !== undefined) {
    let result: RunThroughFacts | undefined;
    try {
      result = JSON.parse(resultText) as RunThroughFacts;
    } catch {
      result = undefined; // a hand-made or hostile result.json of a test: not a run's
    }
    if (typeof result?.status === 'string')
      for (const problem of successWithoutRunThrough(result)) problems.push(`${resultFile}: ${problem}`);
  }
  const trajectoryFile = path.join(dir, 'trajectory.jsonl');
  const trajectoryText = readText(trajectoryFile);
  if (trajectoryText !== undefined) {
    const lines: TrajectoryLine[] = [];
    for (const line of trajectoryText.split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === 'object' && parsed !== null) lines.push(parsed);
      } catch {
        // a line cut by a killed run: the rest still counts
      }
    }
    for (const problem of trajectorySuccessWithoutRunThrough(lines))
      problems.push(`${trajectoryFile}: ${problem}`);
    // Issue 29: a deploy claims `impossible` only after every row of its ecosystems' alternatives was tried
    // or ruled out with a reason.
    for (const problem of trajectoryPrematureImpossible(lines))
      problems.push(`${trajectoryFile}: ${problem}`);
  }
  return problems;
}

/**
 * Folders under `root` (itself included, at most `depth` levels down, never into a build's `workspace` or through
 * a link) holding a result.json or trajectory.jsonl written at or after `since` (ms since the epoch).
 */
export function runDirsUnder(root: string, depth: number, since: number, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return out;
  }
  const fresh = (name: string): boolean => {
    try {
      return statSync(path.join(root, name)).mtimeMs >= since;
    } catch {
      return false; // removed meanwhile
    }
  };
  if (
    entries.some(
      (e) => e.isFile() && (e.name === 'result.json' || e.name === 'trajectory.jsonl') && fresh(e.name),
    )
  )
    out.push(root);
  if (depth <= 0) return out;
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.isSymbolicLink() && entry.name !== 'workspace')
      runDirsUnder(path.join(root, entry.name), depth - 1, since, out);
  }
  return out;
}

/**
 * Every run written since `since` in the `bb-*` folders of the temporary directory (where the tests and the
 * benchmarks put their output folders), checked: how many folders were read, and the problems found.
 */
export function checkRecentRuns(since: number, base = tmpdir()): { checked: number; problems: string[] } {
  const dirs: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(base, { withFileTypes: true });
  } catch {
    entries = [];
  }
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name.startsWith('bb-'))
      runDirsUnder(path.join(base, entry.name), 4, since, dirs);
  }
  return { checked: dirs.length, problems: dirs.flatMap((dir) => checkRunDir(dir)) };
}
