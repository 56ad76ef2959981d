/**
 * Runs once before all test files. Integration tests share the cached rootfs layers (the default cache,
 * BUILDBENCH_CACHE_DIR or ~/.cache/buildbench). On a fresh machine creating them takes a minute or two, so
 * it happens here, before any test's timeout starts. Jest loads this file outside its module mapping, so
 * the work runs in a child process with tsx (test/setup/prepare-rootfs.ts) from the current sources.
 */
import { spawnSync } from 'node:child_process';

export default function globalSetup(): void {
  process.env.BUILDBENCH_TEST = '1';
  // global-teardown.ts checks the result.json files written from now on
  process.env.BUILDBENCH_TEST_STARTED = String(Date.now());
  const result = spawnSync('npx', ['tsx', 'test/setup/prepare-rootfs.ts'], {
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) {
    throw new Error(
      `global setup: preparing the rootfs layers failed (exit ${result.status ?? result.signal})`,
    );
  }
}
