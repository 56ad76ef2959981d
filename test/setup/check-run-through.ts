/**
 * "A script that did not run through is never SUCCESS" (issue 31) checked over every run the suite's tests wrote
 * under the temporary folder (the `bb-*` folders the tests make) since global-setup began: each run folder's
 * result.json and trajectory.jsonl (test/helpers/trajectory-check.ts). Run by test/global-teardown.ts with tsx; a
 * success whose last turn or recipe replay exited non-zero, or a deploy that claimed `impossible` with alternatives
 * neither tried nor ruled out (issue 29), exits 1, naming the file.
 */
import { checkRecentRuns } from '../helpers/trajectory-check.js';

function main(): number {
  const since = Number(process.env.BUILDBENCH_TEST_STARTED ?? Date.now());
  const { checked, problems } = checkRecentRuns(since);
  if (problems.length === 0) {
    console.log(
      `run-through check: ${checked} run folders the tests wrote; no success without a run-through, no premature impossible`,
    );
    return 0;
  }
  console.error(
    `runs that ended SUCCESS without running through (issue 31) or claimed impossible too early (issue 29):\n${problems.join('\n')}`,
  );
  return 1;
}

process.exitCode = main();
