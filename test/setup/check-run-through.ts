/**
 * "A script that did not run through is never SUCCESS" (issue 31) checked over every result.json the suite's runs
 * wrote under the temporary folder (the `bb-*` folders the tests make) since global-setup began; run by
 * test/global-teardown.ts with tsx. A success whose last turn or verifying replay exited non-zero exits 1,
 * naming the file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { successWithoutRunThrough, type RunThroughFacts } from '../../src/report/run-through.js';

/** result.json files under `dir`, at most `depth` folders down, written at or after `since` (ms). */
function results(dir: string, depth: number, since: number, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === 'result.json') {
      try {
        if (statSync(full).mtimeMs >= since) out.push(full);
      } catch {
        // removed meanwhile
      }
    } else if (entry.isDirectory() && !entry.isSymbolicLink() && depth > 0 && entry.name !== 'workspace') {
      results(full, depth - 1, since, out);
    }
  }
}

function main(): number {
  const since = Number(process.env.BUILDBENCH_TEST_STARTED ?? Date.now());
  const files: string[] = [];
  for (const entry of readdirSync(tmpdir(), { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name.startsWith('bb-'))
      results(path.join(tmpdir(), entry.name), 4, since, files);
  }
  const problems: string[] = [];
  for (const file of files) {
    let result: RunThroughFacts;
    try {
      result = JSON.parse(readFileSync(file, 'utf8')) as RunThroughFacts;
    } catch {
      continue; // a hand-made or hostile result.json of a test: not a run's
    }
    if (typeof result?.status !== 'string') continue;
    for (const problem of successWithoutRunThrough(result)) problems.push(`${file}: ${problem}`);
  }
  if (problems.length === 0) {
    console.log(
      `run-through check: ${files.length} result.json files the tests wrote; no success without a run-through`,
    );
    return 0;
  }
  console.error(`runs that ended SUCCESS without running through (issue 31):\n${problems.join('\n')}`);
  return 1;
}

process.exitCode = main();
