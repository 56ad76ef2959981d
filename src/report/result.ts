/**
 * result.json: the schema every reader shares (the Action, benchmarks, the bot, `buildbench report` and
 * `buildbench verify`) and its one reader, `readBuildResult`, which checks the shape with errors naming the
 * file and the field. The parts finalize makes (the recipe, its replay, the patches) are defined there.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { ConfigError, errorMessage } from '../base/errors.js';
import { readFileUnder, readIfExists, UnsafePathError } from '../base/safe-fs.js';
import { RUN_STATUSES, type RunStatus } from '../base/status.js';
import type { EgressRecord, IsolationReport } from '../sandbox/isolation.js';
import type { Artifact, Expected, Metrics } from '../verify/types.js';
import type { ExcludedArtifact } from '../verify/policy.js';
import type { Verification } from '../verify/verification.js';
import type { Finding } from '../knowledge/diagnose/types.js';
import type { BuildSystem, BuildSystemChoice } from '../repo/types.js';
import type { ResultRecipe } from '../finalize/finalize.js';
import type { ResultPatch } from '../finalize/patches.js';
import type { ListenerFailure } from '../agent/events.js';
import type { TrajectoryAnalysis } from '../trajectory/analysis.js';
import type { DeployTarget, RegistrySettings, Requirement } from '../deploy/types.js';
import type { EcosystemKind } from '../repo/types.js';
import type { GpuEnvironment } from '../verify/gpu.js';
import type { PreinstallPlan } from '../knowledge/repair/declared.js';

export const RESULT_SCHEMA = 'buildbench.result/v1';

export interface TurnSummary {
  turn: number;
  purpose: string;
  reason: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  rootCause?: Pick<Finding, 'id' | 'category' | 'message' | 'line'>;
  newArtifacts: number;
  log?: string;
  /** Bytes the script printed in all (the log keeps at most `--max-log-size` of them). */
  logBytes?: number;
  /** True when the log kept only its head and tail (a marker line shows where bytes were dropped). */
  logTruncated?: boolean;
  /** The script ran as the first command of a fresh sandbox from the untouched repository (a repair turn). */
  freshSandbox?: boolean;
}

/** One check of a deploy (the target, a verifier check) with its evidence. */
export interface DeployCheckEvidence {
  /** `spec: target experiment`, `spec: the benchmark runs and sorts`. */
  name: string;
  passed: boolean;
  /** What it showed: the failures, or what passed. */
  detail: string;
  /** When it failed: the last lines its command printed (stdout, then stderr). */
  outputTail?: string;
}

/** Something the setup installed or ran to make the environment, and why (from the turns' recipes). */
export interface DeployInstall {
  /**
   * `package` (a distribution package), `tool` (a package providing a command the setup runs), `step` (a setup
   * command), `env` (a variable a repair exports before the steps).
   */
  kind: 'package' | 'tool' | 'step' | 'env';
  /** The package name(s), the command, or `NAME=value`. */
  what: string;
  why: string;
  /** The turn that first did it. */
  turn: number;
}

/**
 * A deploy run's part of result.json: the goal as the strategy saw it (never the hidden verifier's checks),
 * the ecosystems inspection found, what the setup installed and why, whether it ran through, the target's
 * evidence and the verifier's result.
 */
export interface DeployResult {
  goal: {
    target: DeployTarget;
    requires: Requirement[];
    registries: RegistrySettings;
    paper?: { title: string; url?: string };
    taskFile?: string;
  };
  ecosystems: {
    kind: EcosystemKind;
    manifests: string[];
    dependencies: number;
    runtime?: { name: string; version?: string; why: string };
    notes: string[];
  }[];
  installed: DeployInstall[];
  /** Some setup script ran to its end (exit 0 within its time limit), or through every setup step to the target. */
  setupRan: boolean;
  /**
   * The setups' records of the exact versions installed (`.buildbench/deploy/*` in the sandbox: a pip freeze,
   * Cargo.lock, `go list -m all`, …), copied into the output folder; paths relative to it.
   */
  records?: string[];
  /** The target experiment's check, the last time it ran; absent when it never ran. */
  target?: DeployCheckEvidence;
  /** The task's verifier: its spec file, whether it was hidden, whether it passed, and each check. */
  verifier: { spec?: string; hidden: boolean; passed: boolean; checks: DeployCheckEvidence[] };
  /** The environment file the setup wrote and every check sourced (relative to the repository root). */
  envFile: string;
}

/**
 * result.json — read by the Action, benchmarks and the bot. Fields are only ever added; `schema` changes
 * when a field changes meaning.
 */
export interface BuildResult {
  schema: typeof RESULT_SCHEMA;
  tool: { name: 'buildbench'; version: string };
  repo: { name: string; source: string; commit?: string };
  status: RunStatus;
  /** One sentence: why the run ended the way it did. */
  reason: string;
  metrics: Pick<Metrics, 'completion' | 'strict' | 'flexible'>;
  expected: Expected & { matched: string[]; missing: string[]; ignored: { name: string; why: string }[] };
  /**
   * `copiedTo`: where the copy is, relative to the output folder (for a name shown escaped, with `pathBase64`,
   * the copy carries the real bytes). `copyError`: why the binary was not copied (a symbolic link on its path, …).
   */
  artifacts: (Artifact & { copiedTo?: string; copyError?: string })[];
  /** The strategy's last claim (finish action), next to the verdict, for self-stop audits. */
  claim?: { claim: string; reason: string; turn: number };
  strategy: string;
  /**
   * `keptWorkdir`: the kept build tree on this machine (`--keep`), re-checked by `buildbench verify`.
   * `buildCache`: the shared build cache folder the sandboxes mounted (package downloads, ccache).
   * `credentialsRemoved`: what was removed from the repository copy's git configuration, by name only
   * (`http.https://github.com/.extraheader`, `credential.helper`, `remote.origin.url (userinfo)`).
   */
  sandbox: {
    kind: string;
    image: string;
    keptAt?: string;
    keptWorkdir?: string;
    buildCache?: string;
    /**
     * The image the sandbox ran, made by buildbench over `image` (the docker backend's toolchain image): `made`
     * and `madeMs` say what this run's first sandbox made and how long it took (the first build over a base).
     */
    derivedImage?: { tag: string; id: string; baseId: string; made?: string[]; madeMs?: number };
    credentialsRemoved?: string[];
    /** What the sandbox isolated: namespaces, capabilities, seccomp, network, limits (see sandbox/isolation.ts). */
    isolation?: IsolationReport;
    /** Every host the build, the target and the checks contacted, and how each was seen (sandbox/host-network.ts). */
    egress?: EgressRecord;
  };
  /**
   * What the final environment offers beyond the sandbox: for a task that requires a GPU, the devices, the
   * driver and CUDA versions, the toolkit and the framework's CUDA build, read in the sandbox after the setup.
   */
  environment?: { gpu?: GpuEnvironment };
  buildSystems: Pick<BuildSystem, 'kind' | 'dir' | 'file'>[];
  /** Set when the documentation named one of the build systems: it was tried first (`buildSystems[0]`), and why. */
  buildSystemChoice?: BuildSystemChoice;
  rootCause?: Pick<Finding, 'id' | 'category' | 'message' | 'line' | 'excerpt' | 'captures'> & {
    turn: number;
  };
  turns: TurnSummary[];
  /**
   * The packages the first script installed because the build files or build docs declare them (each with
   * the declarations it answers), the declarations that led to no install and why, and the look-up's time.
   * Absent when nothing was declared or no package resolver ran.
   */
  preinstalled?: PreinstallPlan;
  /**
   * `scriptsMs`: time inside the sandbox's scripts (every turn, and build.sh in each replay); `harnessMs`:
   * the rest of `totalMs` (lookups, scans, snapshots, copies, sandbox and replay set-up, model calls);
   * `harnessShare`: harnessMs / totalMs (0–1). The three are absent in results written before them.
   */
  timings: {
    startedAt: string;
    finishedAt: string;
    totalMs: number;
    /** The run's sandbox, from the start of its making (while the tree is inspected) to ready. */
    prepareMs: number;
    scriptsMs?: number;
    harnessMs?: number;
    harnessShare?: number;
    /**
     * Up to the first script (absent when none ran): `totalMs` from the start, `sandboxMs` of it inside sandbox
     * commands (the image's package state, look-ups run in the sandbox), `harnessMs` the rest (issue 32's bar:
     * 300 ms for a model-less build), and `phases`: how long each phase lasted (from its first event to the
     * next phase's, the last to the first script), in the order they ran.
     */
    beforeFirstScript?: {
      totalMs: number;
      sandboxMs: number;
      harnessMs: number;
      phases: Record<string, number>;
    };
  };
  /** `snapshot`: the tree before the build (`--keep` only), for `buildbench verify`. */
  files: { trajectory: string; logs: string; artifacts: string; snapshot?: string };
  /**
   * New binaries that do not count toward the metrics (vendored code, submodules, test/example/benchmark
   * directories), with the reason; listed so nothing is dropped silently. They are copied to `artifacts/`
   * too (`copiedTo`, or `copyError` saying why not).
   */
  excludedArtifacts?: (ExcludedArtifact & { copiedTo?: string; copyError?: string })[];
  /** Every verifier check (artifacts, layer-2 spec, probes) and the self-stop audit. */
  verification?: Verification;
  /** The minimised recipe and its replay in a fresh sandbox (finalize; only after a successful build). */
  recipe?: ResultRecipe;
  /** Source changes the run made to files of the repository, one patch per file (finalize). */
  patches?: ResultPatch[];
  /** Model usage (llm and hybrid strategies): calls, tokens and dollars, retrieval included. */
  llm?: { model: string } & Record<string, unknown>;
  /** Where the build instructions came from (scored against BUILD-BENCH's labelled instruction URLs). */
  retrieval?: { mode: string; sufficient: boolean; rounds: number; sources: unknown[]; notes: string[] };
  /** A deploy run's goal, setup and evidence (`buildbench deploy`, a deploy task); absent for a build. */
  deploy?: DeployResult;
  /** Trajectory analysis: sub-commands per phase, recoveries after failed turns, self-stops (trajectory/analysis.ts). */
  analysis?: TrajectoryAnalysis;
  /**
   * The first failure of an observer of the run's events (the trajectory recorder on a full disk, say), with
   * how many failed in all: trajectory.jsonl or the progress display may be missing events.
   */
  observerFailure?: ListenerFailure;
}

// ---------------------------------------------------------------------------------------------------------
// Reading result.json

/** Fields a reader needs beyond what every result.json has (`schema`, `sandbox.kind`). */
export type RequiredResultField = 'status' | 'metrics' | 'expected' | 'artifacts';

export interface ReadResultOptions {
  /** The command reading the file, first in every message (`verify: …`, `report: …`). */
  command?: string;
  /** What this reader cannot do without; every other part is checked only when present. */
  require?: readonly RequiredResultField[];
}

const HINT = 'expected the result.json of buildbench build';

/** A value as a person reads it in an error: `null`, `missing`, `a list`, `the string "…"`, `the number 3`. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the shape of a parsed result.json, so a file of the wrong shape is one ConfigError naming the file
 * and the field, not a TypeError deep inside a reader. `schema` and `sandbox.kind` are always required, the
 * fields in `options.require` too; every other part is checked when present.
 */
export function checkBuildResult(value: unknown, file: string, options: ReadResultOptions = {}): BuildResult {
  const prefix = options.command ? `${options.command}: ` : '';
  const required = new Set(options.require ?? []);
  const wrong = (field: string, actual: unknown, expected: string): ConfigError =>
    new ConfigError(`${prefix}${file}: ${field} is ${shown(actual)}; expected ${expected}`, HINT);
  if (!isObject(value)) {
    throw new ConfigError(`${prefix}${file} holds ${shown(value)}, not a buildbench result object`, HINT);
  }
  const schema = value.schema;
  if (typeof schema !== 'string' || !schema.startsWith('buildbench.result/')) {
    throw new ConfigError(`${prefix}${file} is not a buildbench result (schema ${shown(schema)})`, HINT);
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
    for (const key of ['trajectory', 'logs', 'artifacts', 'snapshot'])
      optionalString(value.files, key, 'files');
  }
  if (value.expected !== undefined || required.has('expected')) {
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
  if (value.status !== undefined || required.has('status')) {
    if (!RUN_STATUSES.includes(value.status as RunStatus))
      throw wrong('status', value.status, `one of ${RUN_STATUSES.join(', ')}`);
  }
  if (value.metrics !== undefined || required.has('metrics')) {
    const metrics = value.metrics;
    if (!isObject(metrics)) throw wrong('metrics', metrics, 'an object with completion, strict and flexible');
    for (const key of ['completion', 'strict', 'flexible']) {
      if (typeof metrics[key] !== 'boolean') throw wrong(`metrics.${key}`, metrics[key], 'true or false');
    }
  }
  if (value.artifacts !== undefined || required.has('artifacts')) {
    if (!Array.isArray(value.artifacts) || !value.artifacts.every(isObject))
      throw wrong('artifacts', value.artifacts, 'a list of binaries');
  }
  if (value.deploy !== undefined) {
    const deploy = value.deploy;
    if (!isObject(deploy)) throw wrong('deploy', deploy, 'an object (the deploy section)');
    if (!isObject(deploy.goal) || !isObject(deploy.goal.target))
      throw wrong(
        'deploy.goal.target',
        isObject(deploy.goal) ? deploy.goal.target : deploy.goal,
        'an object',
      );
    if (typeof deploy.goal.target.command !== 'string')
      throw wrong('deploy.goal.target.command', deploy.goal.target.command, 'a string');
    if (typeof deploy.setupRan !== 'boolean')
      throw wrong('deploy.setupRan', deploy.setupRan, 'true or false');
    if (!Array.isArray(deploy.installed)) throw wrong('deploy.installed', deploy.installed, 'a list');
    if (!isObject(deploy.verifier) || !Array.isArray(deploy.verifier.checks))
      throw wrong('deploy.verifier', deploy.verifier, 'an object with its checks');
    if (deploy.target !== undefined && !isObject(deploy.target))
      throw wrong('deploy.target', deploy.target, 'an object (the target check)');
  }
  if (value.analysis !== undefined) {
    const analysis = value.analysis;
    if (!isObject(analysis)) throw wrong('analysis', analysis, 'an object (the trajectory analysis)');
    if (typeof analysis.commands !== 'number')
      throw wrong('analysis.commands', analysis.commands, 'a number');
    for (const key of ['phases', 'recoveries', 'selfStops']) {
      if (!isObject(analysis[key])) throw wrong(`analysis.${key}`, analysis[key], 'an object of counts');
    }
  }
  // The parts a reader may rely on are checked above; the rest is what buildbench wrote.
  return value as unknown as BuildResult;
}

/**
 * Reads and checks a result.json (`checkBuildResult`). Every problem is a ConfigError naming the file: it
 * cannot be read, it is not JSON, or a field has the wrong shape.
 */
export async function readBuildResult(file: string, options: ReadResultOptions = {}): Promise<BuildResult> {
  const prefix = options.command ? `${options.command}: ` : '';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${prefix}cannot read ${file} (${errorMessage(error)})`, HINT);
  }
  return parseBuildResult(text, file, options);
}

/** The name of the result in an output folder. */
export const RESULT_FILE = 'result.json';

/**
 * `readBuildResult` of the result.json in the output folder `dir`, opened with no symbolic link on its path
 * (an output folder read back may come from anywhere: a link named result.json is refused, not followed).
 * Undefined when there is none; every other problem is a ConfigError naming the file.
 */
export async function readBuildResultUnder(
  dir: string,
  options: ReadResultOptions = {},
): Promise<BuildResult | undefined> {
  const prefix = options.command ? `${options.command}: ` : '';
  const file = path.join(dir, RESULT_FILE);
  let bytes: Buffer | undefined;
  try {
    bytes = await readIfExists(() => readFileUnder(dir, RESULT_FILE));
  } catch (error) {
    if (error instanceof UnsafePathError)
      throw new ConfigError(`${prefix}${file} is refused: ${error.why}`, HINT);
    throw new ConfigError(`${prefix}cannot read ${file} (${errorMessage(error)})`, HINT);
  }
  return bytes === undefined ? undefined : parseBuildResult(bytes.toString('utf8'), file, options);
}

function parseBuildResult(text: string, file: string, options: ReadResultOptions): BuildResult {
  const prefix = options.command ? `${options.command}: ` : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${prefix}${file} is not valid JSON (${errorMessage(error)})`, HINT);
  }
  return checkBuildResult(value, file, options);
}
