import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ConfigError, errorMessage } from '../../base/errors.js';
import { makeDirectory, MakeDirError, refusal } from '../../base/make-dir.js';
import { clearFinalizeOutputs } from '../../finalize/finalize.js';
import { SNAPSHOT_FILE } from '../../verify/baseline.js';

/**
 * Makes `--out` (never hanging: see make-dir.ts) and checks that a file can be written in it, so a bad
 * `--out` is one ConfigError before any work starts. Whatever an earlier run left there goes (logs,
 * artifacts, the recipe, patches, replay logs, the snapshot), so a run that fails early never sits beside
 * another run's build.sh.
 */
export async function prepareOutDir(outDir: string): Promise<void> {
  const fail = (why: string): ConfigError =>
    new ConfigError(`--out: cannot write to '${outDir}': ${why}`, 'expected a writable directory');
  const whyOf = (error: unknown): string => (error instanceof MakeDirError ? error.why : errorMessage(error));
  try {
    await makeDirectory(outDir);
  } catch (error) {
    throw fail(whyOf(error));
  }
  try {
    // access(W_OK) is always true for root; only writing tells (read-only mounts, /proc/1, full disks).
    const probe = path.join(outDir, `.buildbench-write-test-${process.pid}`);
    await writeFile(probe, '').catch((error: unknown) => {
      throw new MakeDirError(outDir, refusal(probe, error, 'files'));
    });
    await rm(probe, { force: true });
    await rm(path.join(outDir, 'logs'), { recursive: true, force: true });
    await rm(path.join(outDir, 'artifacts'), { recursive: true, force: true });
    await rm(path.join(outDir, SNAPSHOT_FILE), { force: true });
    await clearFinalizeOutputs(outDir);
    await makeDirectory(path.join(outDir, 'logs'));
  } catch (error) {
    throw fail(whyOf(error));
  }
}
