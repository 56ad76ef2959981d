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
import { mkdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { inspectRepo } from '../repo/inspect.js';
import { HostSandbox } from '../sandbox/host.js';
import { RootfsSandbox, rootfsPaths, rootfsProblems } from '../sandbox/rootfs.js';
import { makeSandboxId } from '../sandbox/common.js';
import { writeOwnerRecord } from '../sandbox/work-dirs.js';
import type { Sandbox, SandboxSettings } from '../sandbox/types.js';
import { baselineFor, type BaselineKind } from '../verify/baseline.js';
import type { ExcludedArtifact } from '../verify/policy.js';
import { scoringPolicyFor } from '../verify/policy.js';
import { normalizeExpected } from '../verify/scoring.js';
import { loadSpec, type Layer2Spec } from '../verify/spec.js';
import type { Artifact, Expected, Metrics } from '../verify/types.js';
import { BuildVerifier } from '../verify/verifier.js';
import type { Verification } from '../verify/verification.js';
import { ConfigError, errorMessage } from '../base/errors.js';
import type { BuildResult } from '../report/result.js';
import { expectedFrom } from './run-build.js';

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

/** A host sandbox whose working copy is an existing folder (nothing is copied; dispose leaves it alone). */
class InPlaceHostSandbox extends HostSandbox {
  constructor(
    id: string,
    buildDir: string,
    private readonly tree: string,
  ) {
    super(id, buildDir);
  }

  override get hostWorkdir(): string {
    return this.tree;
  }

  override describeLocation(): string {
    return `${this.tree} (commands run directly on this machine)`;
  }
}

async function inPlaceHost(tree: string, settings: SandboxSettings): Promise<Sandbox> {
  const id = makeSandboxId(`verify-${path.basename(tree)}`);
  const buildDir = path.join(existsSync(settings.workRoot) ? settings.workRoot : tmpdir(), id);
  await writeOwnerRecord(buildDir, 'verify');
  await mkdir(path.join(buildDir, 'cmd'), { recursive: true });
  return new InPlaceHostSandbox(id, buildDir, tree);
}

/** The kept rootfs sandbox entered again, or why not. Dispose it with `{ keep: true }`. */
async function keptRootfs(
  tree: string,
  result: BuildResult,
  settings: SandboxSettings,
): Promise<{ sandbox?: Sandbox; why?: string }> {
  if (result.sandbox.kind !== 'rootfs')
    return { why: `the build ran in the ${result.sandbox.kind} sandbox, not rootfs` };
  const buildDir = path.dirname(tree);
  if (path.basename(tree) !== 'workspace' || !existsSync(path.join(buildDir, 'upper'))) {
    return { why: `${buildDir} is not a kept rootfs build folder` };
  }
  const problems = await rootfsProblems(settings);
  if (problems.length > 0) return { why: problems.join('; ') };
  const suite = /^debian:([a-z][a-z0-9-]*)$/.exec(result.sandbox.image)?.[1] ?? settings.suite;
  let paths;
  try {
    paths = rootfsPaths(settings.cacheDir, suite);
  } catch (error) {
    return { why: errorMessage(error) };
  }
  if (!existsSync(path.join(paths.baseDir, 'READY')) || !existsSync(path.join(paths.toolchainDir, 'READY'))) {
    return { why: `the rootfs layers for Debian ${suite} are no longer cached in ${settings.cacheDir}` };
  }
  const layers = {
    suite,
    baseRoot: paths.baseRoot,
    toolchainRoot: paths.toolchainRoot,
    lowerdirs: [paths.toolchainRoot, paths.baseRoot],
  };
  return { sandbox: new RootfsSandbox(path.basename(buildDir), buildDir, layers) };
}

/** A value as a person reads it in an error: `null`, `missing`, `a list`, `the string "…"`, `the number 3`. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${value}`;
  return `a ${typeof value}`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the fields of a result.json that verify reads, so a file of the wrong shape is one ConfigError
 * naming the file and the field, not a TypeError deep inside. Optional parts are checked when present.
 */
export function checkResultShape(value: unknown, file: string): BuildResult {
  const hint = 'expected the result.json of buildbench build';
  const wrong = (field: string, actual: unknown, expected: string): ConfigError =>
    new ConfigError(`verify: ${file}: ${field} is ${shown(actual)}; expected ${expected}`, hint);
  if (!isObject(value)) {
    throw new ConfigError(`verify: ${file} holds ${shown(value)}, not a buildbench result object`, hint);
  }
  const schema = value.schema;
  if (typeof schema !== 'string' || !schema.startsWith('buildbench.result/')) {
    throw new ConfigError(`verify: ${file} is not a buildbench result (schema ${shown(schema)})`, hint);
  }
  const optionalString = (obj: Record<string, unknown>, key: string, where: string): void => {
    if (obj[key] !== undefined && typeof obj[key] !== 'string')
      throw wrong(`${where}.${key}`, obj[key], 'a string');
  };
  const sandbox = value.sandbox;
  if (!isObject(sandbox)) throw wrong('sandbox', sandbox, 'an object with the sandbox kind');
  if (typeof sandbox.kind !== 'string') throw wrong('sandbox.kind', sandbox.kind, 'rootfs, docker or host');
  for (const key of ['image', 'keptAt', 'keptWorkdir']) optionalString(sandbox, key, 'sandbox');
  if (value.files !== undefined) {
    if (!isObject(value.files)) throw wrong('files', value.files, 'an object naming the output files');
    optionalString(value.files, 'snapshot', 'files');
  }
  if (value.expected !== undefined) {
    const expected = value.expected;
    if (!isObject(expected)) throw wrong('expected', expected, 'an object with names and source');
    if (!Array.isArray(expected.names) || !expected.names.every((n) => typeof n === 'string'))
      throw wrong('expected.names', expected.names, 'a list of file names');
    if (typeof expected.source !== 'string') throw wrong('expected.source', expected.source, 'a string');
  }
  if (value.verification !== undefined && value.verification !== null) {
    if (!isObject(value.verification)) throw wrong('verification', value.verification, 'an object');
    const spec = value.verification.spec;
    if (spec !== undefined && spec !== null) {
      if (!isObject(spec)) throw wrong('verification.spec', spec, 'an object with the spec file');
      if (typeof spec.file !== 'string') throw wrong('verification.spec.file', spec.file, 'a path');
    }
  }
  return value as unknown as BuildResult;
}

async function readResult(file: string): Promise<BuildResult> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `verify: cannot read ${file} (${errorMessage(error)})`,
      'expected the result.json of buildbench build',
    );
  }
  return checkResultShape(value, file);
}

/** Re-runs the verifiers. Throws ConfigError for anything the user must fix (exit 2). */
export async function runVerify(
  settings: VerifySettings,
  options: { signal?: AbortSignal } = {},
): Promise<VerifyReport> {
  const target = path.resolve(settings.target);
  if (!(await isDirectory(target))) {
    throw new ConfigError(
      `verify: '${settings.target}' is not a directory`,
      'expected an output folder or a build tree',
    );
  }
  const notes: string[] = [];
  const resultFile = path.join(target, 'result.json');
  const result = existsSync(resultFile) ? await readResult(resultFile) : undefined;

  let tree = target;
  let snapshotFile: string | undefined;
  if (result) {
    const kept = keptTreeOf(result);
    if (!kept) {
      throw new ConfigError(
        `verify: ${resultFile} names no kept build tree`,
        'run buildbench build with --keep, or pass the build tree itself',
      );
    }
    if (!(await isDirectory(kept)))
      throw new ConfigError(`verify: the kept build tree ${kept} no longer exists`);
    tree = kept;
    if (result.files?.snapshot) snapshotFile = path.join(target, result.files.snapshot);
  }

  let specFile = settings.spec;
  if (specFile === undefined && result?.verification?.spec && existsSync(result.verification.spec.file)) {
    specFile = result.verification.spec.file;
    notes.push(`using the spec the build used: ${specFile}`);
  }
  const spec: Layer2Spec | undefined = specFile !== undefined ? await loadSpec(specFile) : undefined;

  const info = await inspectRepo(tree);
  let expected: Expected;
  if (settings.expect.length > 0) {
    expected = { names: normalizeExpected(settings.expect).names, source: 'cli' };
  } else if (result) {
    if (!result.expected) {
      throw new ConfigError(
        `verify: ${resultFile}: expected is missing; expected the names the build was to produce`,
        'pass --expect names',
      );
    }
    expected = { names: result.expected.names, source: result.expected.source };
  } else {
    const inferred = expectedFrom({ expect: [] }, info);
    expected = { names: inferred.names, source: inferred.source };
  }
  const { before, kind: baseline, note: baselineNote } = await baselineFor(tree, snapshotFile);
  if (baselineNote) notes.push(baselineNote);
  else if (baseline === 'none')
    notes.push('no snapshot and not a git checkout: every binary in the tree counts as new');

  let sandbox: Sandbox | undefined;
  let keepSandbox = false;
  let execution: VerifyReport['execution'] = 'none';
  if (settings.sandbox === 'host') {
    sandbox = await inPlaceHost(tree, settings.sandboxSettings);
    execution = 'host';
  } else if (settings.sandbox === 'rootfs' || settings.sandbox === 'auto') {
    if (result) {
      const entered = await keptRootfs(tree, result, settings.sandboxSettings);
      if (entered.sandbox) {
        sandbox = entered.sandbox;
        keepSandbox = true;
        execution = 'rootfs';
      } else if (settings.sandbox === 'rootfs') {
        throw new ConfigError(
          `verify: cannot enter the kept rootfs build again: ${entered.why}`,
          'use --sandbox host or none',
        );
      } else {
        notes.push(
          `checks that run commands were not run: ${entered.why} (pass --sandbox host to run them here)`,
        );
      }
    } else if (settings.sandbox === 'rootfs') {
      throw new ConfigError(
        'verify: --sandbox rootfs re-enters a build kept with --keep; a directory built by hand is checked in place',
        'use --sandbox host to run checks on this machine, or none to scan only',
      );
    } else if (spec) {
      notes.push(
        'spec checks were not run: pass --sandbox host to run them in this directory on this machine',
      );
    }
  }

  try {
    const verifier = new BuildVerifier({
      root: tree,
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
    return {
      schema: VERIFY_SCHEMA,
      target,
      mode: result ? 'out-dir' : 'directory',
      tree,
      baseline,
      execution,
      notes,
      expected,
      metrics: {
        completion: verdict.metrics.completion,
        strict: verdict.metrics.strict,
        flexible: verdict.metrics.flexible,
      },
      artifacts: verifier.artifacts,
      excludedArtifacts: verifier.excluded,
      verification,
      passed: verification.passed,
    };
  } finally {
    await sandbox?.dispose({ keep: keepSandbox }).catch(() => undefined);
  }
}
