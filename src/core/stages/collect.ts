import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

import { DEPLOY_RECORD_DIR } from '../../deploy/recipes/setup-shell.js';
import type { LoopOutcome } from '../../agent/loop.js';
import { errorMessage } from '../../base/errors.js';
import { copyFileNoFollow, lstatUnder, relComponents } from '../../base/safe-fs.js';
import type { Artifact } from '../../verify/types.js';
import { say, type CopiedArtifact, type Opened, type RunState } from './state.js';

/**
 * Stage 4: every new binary is copied to `<out>/artifacts/`: those that count and those the scoring policy
 * set aside (example, test and benchmark programs, vendored code — a library whose only executables are its
 * examples still gives its user those programs; result.json lists them with the reason). The copy is taken
 * from the tree the verifiers judged, before the final checks run anything (a probe with a command of its
 * own): a probed binary could rearrange the tree. (A probe that rode on the last turn's command ran before
 * the judgement, so what it changed was judged and is copied alike.)
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
  if (state.settings.deploy) state.deployRecords = await copyDeployRecords(box.hostWorkdir, state.outDir);
}

/** At most this many record files, each at most this large, are copied (the tree was written by the build). */
const MAX_RECORDS = 32;
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/**
 * Copies the setups' version records (`.buildbench/deploy/*`: a pip freeze, Cargo.lock, `go list -m all`, …)
 * to `<out>/deploy/`, so the user has them without the sandbox: regular files only, never through a link,
 * bounded in number and size. Returns their paths relative to the output folder.
 */
export async function copyDeployRecords(root: string, outDir: string): Promise<string[]> {
  const dir = await lstatUnder(root, DEPLOY_RECORD_DIR).catch(() => undefined);
  if (!dir?.isDirectory()) return [];
  const names = (await readdir(path.join(root, DEPLOY_RECORD_DIR)).catch(() => [] as string[])).sort();
  const out: string[] = [];
  for (const name of names.slice(0, MAX_RECORDS)) {
    const rel = `${DEPLOY_RECORD_DIR}/${name}`;
    const stats = await lstatUnder(root, rel).catch(() => undefined);
    if (!stats?.isFile() || stats.size > MAX_RECORD_BYTES) continue;
    const target = path.join(outDir, 'deploy', name);
    try {
      await mkdir(path.dirname(target), { recursive: true });
      await rm(target, { force: true });
      await copyFileNoFollow(root, rel, target);
      out.push(`deploy/${name}`);
    } catch {
      // A record that cannot be copied safely is left out; the setup's log still names what it installed.
    }
  }
  return out;
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
