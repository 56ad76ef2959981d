import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';

import type { LoopOutcome } from '../../agent/loop.js';
import { errorMessage } from '../../base/errors.js';
import { copyFileNoFollow, relComponents } from '../../base/safe-fs.js';
import type { Artifact } from '../../verify/types.js';
import { say, type CopiedArtifact, type Opened, type RunState } from './state.js';

/**
 * Stage 4: every new binary is copied to `<out>/artifacts/`: those that count and those the scoring policy
 * set aside (example, test and benchmark programs, vendored code — a library whose only executables are its
 * examples still gives its user those programs; result.json lists them with the reason). The copy is taken
 * before the final checks run the binaries (probes): a probed binary could rearrange the tree.
 */
export async function collect(
  state: RunState,
  { box, verifier }: Opened,
  outcome: LoopOutcome,
): Promise<void> {
  const dest = path.join(state.outDir, 'artifacts');
  const counted = new Set(outcome.artifacts.map((a) => a.pathBase64 ?? a.path));
  const excluded = verifier.excluded.filter((a) => !counted.has(a.pathBase64 ?? a.path));
  say(
    state,
    'collect',
    `copying ${outcome.artifacts.length} binaries${excluded.length > 0 ? ` and ${excluded.length} set aside (examples, tests, vendored)` : ''} to ${dest}`,
  );
  state.copied = await copyArtifacts(box.hostWorkdir, outcome.artifacts, dest);
  state.copiedExcluded = await copyArtifacts(box.hostWorkdir, excluded, dest);
}

/**
 * Copies the new binaries out of the sandbox, keeping their paths relative to the repository root. The tree
 * was written by the build: nothing is copied through a symbolic link (a folder on the way or the file
 * itself), setuid/setgid bits are dropped, and what cannot be copied safely says why in `copyError`.
 */
export async function copyArtifacts<T extends Artifact>(
  root: string,
  artifacts: T[],
  dest: string,
): Promise<(T & Pick<CopiedArtifact, 'copiedTo' | 'copyError'>)[]> {
  const out: (T & Pick<CopiedArtifact, 'copiedTo' | 'copyError'>)[] = [];
  for (const artifact of artifacts) {
    const rel =
      artifact.pathBase64 !== undefined ? Buffer.from(artifact.pathBase64, 'base64') : artifact.path;
    const target = Buffer.concat([Buffer.from(`${dest}/`), Buffer.from(rel)]);
    try {
      relComponents(rel);
      await mkdir(target.subarray(0, target.lastIndexOf(0x2f)), { recursive: true });
      await rm(target, { force: true });
      await copyFileNoFollow(root, rel, target);
      out.push({ ...artifact, copiedTo: path.posix.join(path.basename(dest), artifact.path) });
    } catch (error) {
      out.push({ ...artifact, copyError: `not copied: ${errorMessage(error)}` });
    }
  }
  return out;
}
