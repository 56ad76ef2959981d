/**
 * The composition root for `buildbench verify`: re-runs the verifiers on a build that already happened.
 *
 * - An output folder of `buildbench build --keep` (its result.json names the kept tree): the tree is scanned
 *   again against the snapshot taken before the build (`snapshot.json.gz`), the expected names of the build
 *   (or `--expect`), and the spec given (or the one the build used). Spec checks and probes run in the kept
 *   rootfs sandbox when it can be entered again (its overlay upper holds what the build installed), on this
 *   machine in the kept tree only with `--sandbox host`, else not at all (scan only; spec checks are then
 *   reported as not run, which fails them).
 * - Any other folder (a build done by hand on a bare VM): scanned against `--expect` or the names inferred
 *   from its build files; files git tracks are not new. Checks run only with `--sandbox host`, in place.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

import { inspectRepo } from '../repo/inspect.js';
import type { RepoInfo } from '../repo/types.js';
import { createInPlaceHostSandbox } from '../sandbox/host.js';
import { reenterKeptRootfs } from '../sandbox/rootfs.js';
import type { Sandbox, SandboxSettings } from '../sandbox/types.js';
import { baselineFor, type BaselineKind, type SnapshotSource } from '../verify/baseline.js';
import type { ExcludedArtifact } from '../verify/policy.js';
import { scoringPolicyFor } from '../verify/policy.js';
import { expectedFrom, normalizeExpected } from '../verify/scoring.js';
import { loadSpec, type Layer2Spec } from '../verify/spec.js';
import type { Artifact, Expected, Metrics } from '../verify/types.js';
import { BuildVerifier } from '../verify/verifier.js';
import type { Verification } from '../verify/verification.js';
import { ConfigError } from '../base/errors.js';
import { checkNamedPath, UnsafePathError } from '../base/safe-fs.js';
import { readBuildResultUnder, RESULT_FILE, type BuildResult } from '../report/result.js';

export const VERIFY_SANDBOX_CHOICES = ['auto', 'rootfs', 'host', 'none'] as const;
export type VerifySandboxChoice = (typeof VERIFY_SANDBOX_CHOICES)[number];

export interface VerifySettings {
  /** An output folder of `buildbench build --keep`, or a build tree. */
  target: string;
  spec?: string;
  /** Names from --expect (empty: the build's, or inferred). */
  expect: string[];
  json: boolean;
  sandbox: VerifySandboxChoice;
  /** Where the rootfs layers are cached (for re-entering a kept rootfs build) and temp folders go. */
  sandboxSettings: SandboxSettings;
}

export const VERIFY_SCHEMA = 'buildbench.verify/v1';

export interface VerifyReport {
  schema: typeof VERIFY_SCHEMA;
  target: string;
  mode: 'out-dir' | 'directory';
  /** The tree that was scanned. */
  tree: string;
  /** What told new files from old: the build's snapshot, git's tracked files, or nothing. */
  baseline: BaselineKind;
  /** Where spec checks and probes ran. */
  execution: 'rootfs' | 'host' | 'none';
  /** Notes for a person: why checks could not run, which spec was reused. */
  notes: string[];
  expected: Expected;
  metrics: Pick<Metrics, 'completion' | 'strict' | 'flexible'>;
  artifacts: Artifact[];
  excludedArtifacts: ExcludedArtifact[];
  verification: Omit<Verification, 'selfStop'>;
  passed: boolean;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** The kept tree of a result: `keptWorkdir`, or read from the `keptAt` sentence of older results. */
export function keptTreeOf(result: Pick<BuildResult, 'sandbox'>): string | undefined {
  if (result.sandbox.keptWorkdir) return result.sandbox.keptWorkdir;
  const m = /repository copy in (\/[^\s,()]+)/.exec(result.sandbox.keptAt ?? '');
  return m?.[1];
}

/** What verify looks at: the folder given, the build's result.json when it has one, and the tree to scan. */
interface VerifyTarget {
  target: string;
  resultFile: string;
  result?: BuildResult;
  tree: string;
  snapshotFile?: SnapshotSource;
}

async function locateTree(settings: VerifySettings): Promise<VerifyTarget> {
  const target = path.resolve(settings.target);
  if (!(await isDirectory(target))) {
    throw new ConfigError(
      `verify: '${settings.target}' is not a directory`,
      'expected an output folder or a build tree',
    );
  }
  const resultFile = path.join(target, RESULT_FILE);
  // Read with no symbolic link on its path: a result.json that is a link is refused, not followed.
  const result = await readBuildResultUnder(target, { command: 'verify' });
  if (!result) return { target, resultFile, tree: target };
  const kept = keptTreeOf(result);
  if (!kept) {
    throw new ConfigError(
      `verify: ${resultFile} names no kept build tree`,
      'run buildbench build with --keep, or pass the build tree itself',
    );
  }
  if (!(await isDirectory(kept)))
    throw new ConfigError(`verify: the kept build tree ${kept} no longer exists`);
  const named = result.files?.snapshot;
  const snapshotFile = named ? { dir: target, rel: named, field: 'files.snapshot' } : undefined;
  if (named) refuseOutside(resultFile, () => checkNamedPath('files.snapshot', named));
  return { target, resultFile, result, tree: kept, ...(snapshotFile ? { snapshotFile } : {}) };
}

/**
 * Runs `step`, which opens a file result.json names; a path that leads out of the output folder (`..`, an
 * absolute path, a symbolic link) becomes a ConfigError naming result.json, the field and the path.
 */
function refuseOutside<T>(resultFile: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw refused(resultFile, error);
  }
}

function refused(resultFile: string, error: unknown): Error {
  if (!(error instanceof UnsafePathError)) return error instanceof Error ? error : new Error(String(error));
  return new ConfigError(
    `verify: ${resultFile}: ${error.message}`,
    'the files an output folder names must be inside it, reached with no symbolic link',
  );
}

/** The spec given, else the one the build used (when it is still there). */
async function chooseSpec(
  settings: VerifySettings,
  result: BuildResult | undefined,
  notes: string[],
): Promise<Layer2Spec | undefined> {
  let specFile = settings.spec;
  if (specFile === undefined && result?.verification?.spec && existsSync(result.verification.spec.file)) {
    specFile = result.verification.spec.file;
    notes.push(`using the spec the build used: ${specFile}`);
  }
  return specFile !== undefined ? loadSpec(specFile) : undefined;
}

/** `--expect`, else the names the build was to produce, else the names inferred from the build files. */
function expectedOf(settings: VerifySettings, where: VerifyTarget, info: RepoInfo): Expected {
  if (settings.expect.length > 0) return { names: normalizeExpected(settings.expect).names, source: 'cli' };
  if (where.result) {
    if (!where.result.expected) {
      throw new ConfigError(
        `verify: ${where.resultFile}: expected is missing; expected the names the build was to produce`,
        'pass --expect names',
      );
    }
    return { names: where.result.expected.names, source: where.result.expected.source };
  }
  const inferred = expectedFrom({ expect: [] }, info);
  return { names: inferred.names, source: inferred.source };
}

interface ChecksSandbox {
  sandbox?: Sandbox;
  /** Dispose with `{ keep: true }` (a kept rootfs build entered again). */
  keep: boolean;
  execution: VerifyReport['execution'];
}

/** Where spec checks and probes run: in place on this machine, in the kept rootfs build, or nowhere (why in notes). */
async function openChecksSandbox(
  settings: VerifySettings,
  where: VerifyTarget,
  spec: Layer2Spec | undefined,
  notes: string[],
): Promise<ChecksSandbox> {
  if (settings.sandbox === 'host') {
    const sandbox = await createInPlaceHostSandbox(where.tree, settings.sandboxSettings);
    return { sandbox, keep: false, execution: 'host' };
  }
  if (settings.sandbox === 'none') return { keep: false, execution: 'none' };
  if (where.result) {
    const entered = await reenterKeptRootfs(where.tree, where.result.sandbox, settings.sandboxSettings);
    if (entered.sandbox) return { sandbox: entered.sandbox, keep: true, execution: 'rootfs' };
    if (settings.sandbox === 'rootfs') {
      throw new ConfigError(
        `verify: cannot enter the kept rootfs build again: ${entered.why}`,
        'use --sandbox host or none',
      );
    }
    notes.push(
      `checks that run commands were not run: ${entered.why} (pass --sandbox host to run them here)`,
    );
  } else if (settings.sandbox === 'rootfs') {
    throw new ConfigError(
      'verify: --sandbox rootfs re-enters a build kept with --keep; a directory built by hand is checked in place',
      'use --sandbox host to run checks on this machine, or none to scan only',
    );
  } else if (spec) {
    notes.push('spec checks were not run: pass --sandbox host to run them in this directory on this machine');
  }
  return { keep: false, execution: 'none' };
}

/** Re-runs the verifiers. Throws ConfigError for anything the user must fix (exit 2). */
export async function runVerify(
  settings: VerifySettings,
  options: { signal?: AbortSignal } = {},
): Promise<VerifyReport> {
  const notes: string[] = [];
  const where = await locateTree(settings);
  const spec = await chooseSpec(settings, where.result, notes);
  const info = await inspectRepo(where.tree);
  const expected = expectedOf(settings, where, info);
  const {
    before,
    kind: baseline,
    note: baselineNote,
  } = await baselineFor(where.tree, where.snapshotFile).catch((error: unknown) => {
    throw refused(where.resultFile, error);
  });
  if (baselineNote) notes.push(baselineNote);
  else if (baseline === 'none')
    notes.push('no snapshot and not a git checkout: every binary in the tree counts as new');

  const { sandbox, keep, execution } = await openChecksSandbox(settings, where, spec, notes);
  try {
    const verifier = new BuildVerifier({
      root: where.tree,
      before,
      expected,
      policy: scoringPolicyFor(info, expected),
      ...(sandbox ? { sandbox } : {}),
      ...(spec ? { spec } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const { verdict } = await verifier.verify();
    await verifier.finish({ probes: sandbox !== undefined });
    const { selfStop: _selfStop, ...verification } = verifier.report();
    const { completion, strict, flexible } = verdict.metrics;
    return {
      schema: VERIFY_SCHEMA,
      target: where.target,
      mode: where.result ? 'out-dir' : 'directory',
      tree: where.tree,
      baseline,
      execution,
      notes,
      expected,
      metrics: { completion, strict, flexible },
      artifacts: verifier.artifacts,
      excludedArtifacts: verifier.excluded,
      verification,
      passed: verification.passed,
    };
  } finally {
    await sandbox?.dispose({ keep }).catch(() => undefined);
  }
}
