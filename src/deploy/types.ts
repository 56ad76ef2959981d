/**
 * src/deploy/ — deployment of research artifacts (floor 1): the vocabulary of a deploy job (this file), the
 * setup recipes of each language ecosystem (`recipes/`), the offline mapping of a language registry's
 * packages to the distribution's (`offline.ts`), and the target experiment as a visible layer-2 spec
 * (`target.ts`). Deployment is the build engine with another goal: not "these binaries exist" but "this
 * paper's target experiment runs and leaves this evidence"; the same loop, sandbox, stop-gate, recipe,
 * replay and RUNBOOK. A run without a `DeployGoal` is a build.
 */

/** What a task needs from the machine that runs it; the matrix maps each to runner labels. */
export type Requirement = 'gpu' | 'kvm';

export type { EcosystemKind } from '../repo/types.js';

/** What the target experiment must leave behind to count as having run. */
export interface TargetEvidence {
  /** Files (relative to the target's cwd) that must exist and be non-empty. */
  files?: string[];
  /** Regular expressions the target's output must match. */
  output?: string[];
  /** Numbers in a results file (JSON): `key` is a dotted path; `min`/`max` bound the value. */
  metrics?: { file: string; key: string; min?: number; max?: number }[];
}

/** The paper's designated experiment: the command, where and how long it runs, what it must leave. */
export interface DeployTarget {
  command: string;
  /** Relative to the repository root; '' or '.' for the root. */
  cwd: string;
  timeoutMs: number;
  evidence: TargetEvidence;
}

/**
 * How language registries are reached. `auto`: a setup tries the registry and falls back to the
 * distribution's packages when it is unreachable (said in the log and the RUNBOOK); `offline`: the
 * distribution's packages only; `online`: the registry only. `mirrors` are variables the user passed
 * (`PIP_INDEX_URL`, `CARGO_REGISTRIES_…`, `GOPROXY`, `npm_config_registry`, …), honoured by the setups.
 */
export interface RegistrySettings {
  mode: 'auto' | 'online' | 'offline';
  mirrors: Record<string, string>;
}

/**
 * A guest to build and boot under QEMU (kernel tasks): the build command (default per kind), the image it
 * leaves, the console pattern that proves the boot and its time limit. Filled by the QEMU work (issue 15).
 */
export interface GuestSpec {
  /** `kernel`: a Linux tree built with its own config; `multiboot`: a bare-metal image (`-kernel`). */
  kind: 'kernel' | 'multiboot';
  /** The command that builds the image, run from the repository root (default per kind). */
  build?: string;
  /** A config fragment (relative to the repository root) merged before `make olddefconfig` (kernel). */
  configFragment?: string;
  /** The image to boot, relative to the repository root. */
  image: string;
  /** Extra kernel command line. */
  append?: string;
  /** The serial console must match this regular expression… */
  pattern: string;
  /** …within this long (KVM); TCG gets a longer limit. */
  withinMs: number;
}

/** A deploy run's goal. Everything here is visible to the strategy; the hidden verifier never is. */
export interface DeployGoal {
  target: DeployTarget;
  requires: Requirement[];
  registries: RegistrySettings;
  paper?: { title: string; url?: string };
  guest?: GuestSpec;
  /** The task file it came from, when there is one (for the RUNBOOK). */
  taskFile?: string;
}

/**
 * The deploy environment's activation file, relative to the repository root: setups append `export` lines
 * to it (a virtual environment's `bin/` on PATH, GOPATH, R_LIBS_USER, NODE_PATH, …) and the harness sources
 * it before the target and every verifier command of a deploy run (the final environment is the one the
 * setup made, wherever its tools live). `.buildbench/` is never scanned for artifacts nor kept in patches.
 */
export const DEPLOY_ENV_FILE = '.buildbench/deploy-env.sh';

/** The shell line that runs what follows in the environment the setup made so far (a step, the target). */
export const SOURCE_DEPLOY_ENV = `if [ -f ${DEPLOY_ENV_FILE} ]; then . ./${DEPLOY_ENV_FILE}; fi`;

/**
 * The environment variable a repair sets to take a Python setup's dependencies from Debian even when the index
 * answers (recipes/python.ts reads it; the repair rule that sets it need not load the setup).
 */
export const PYTHON_DEPS_FROM = 'BB_PYTHON_DEPS_FROM';
