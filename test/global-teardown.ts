/**
 * Runs once after all test files: checks every result.json the runs of the suite wrote for a success that did not
 * run through (test/setup/check-run-through.ts; issue 31). Like global-setup.ts, the work runs with tsx in a
 * child process, since jest loads this file outside its module mapping.
 */
import { spawnSync } from 'node:child_process';

export default function globalTeardown(): void {
  const result = spawnSync('npx', ['tsx', 'test/setup/check-run-through.ts'], {
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) {
    throw new Error(
      `global teardown: a run ended SUCCESS without running through, or claimed impossible too early (exit ${result.status ?? result.signal}); see above`,
    );
  }
}
