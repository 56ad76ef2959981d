/**
 * The sandbox interface: create fresh → exec(script, timeout, env allowlist) → read files → dispose.
 * Every backend keeps the repository's working copy on this machine (`hostWorkdir`), visible inside the
 * sandbox at `workdir`, so scanning and reading files never needs a round trip through the sandbox.
 * What the folder holds besides the interface is said at the top of `index.ts`.
 */
import type { ProcessResult } from '../base/process.js';
import type { EgressRecord, IsolationReport, NetworkMode } from './isolation.js';
import type { CredentialsRemoval } from './git-credentials.js';

export type SandboxKind = 'rootfs' | 'docker' | 'host';
export const SANDBOX_CHOICES = ['auto', 'rootfs', 'docker', 'host'] as const;
export type SandboxChoice = (typeof SANDBOX_CHOICES)[number];

export interface ExecOptions {
  /** Working directory inside the sandbox; absolute, or relative to `workdir`. Default: `workdir`. */
  cwd?: string;
  /** Wall-clock limit; the whole process tree is killed when it is reached. */
  timeoutMs: number;
  /**
   * The command is ended (`stalled` in the result) once it has printed nothing for this long; absent or 0:
   * never. A build that goes silent (a deploy script waiting on a host, a `sleep` loop) ends in minutes.
   */
  idleTimeoutMs?: number;
  /** Extra variables for this command. Nothing else from this process's environment enters the sandbox. */
  env?: Record<string, string>;
  /**
   * When set, the output (stdout and stderr interleaved) is streamed to this file on the host. Sandboxes made
   * by `createSandbox` redact it and bound it (head and tail) by the settings' `output` policy.
   */
  logPath?: string;
  /** Cancels the command: the whole process tree is killed and `cancelled` is true in the result. */
  signal?: AbortSignal;
  /** Called with each chunk of output as it arrives (progress display). */
  onOutput?: (chunk: string) => void;
  /**
   * The command needs no network (a read-only package query, running a built binary): where the backend
   * can, it runs with none at all, only a loopback, whatever the sandbox's network (the rootfs sandbox then
   * starts no user-mode network: faster, and nothing the command runs can reach out). Never for a build.
   */
  offline?: boolean;
  /**
   * A second script run in the same sandbox command right after `script` exits 0 (not after a failure, a
   * time-out or a cancel), with no input; its output is discarded and its status ignored: the result is the
   * script's. It sees the tree exactly as the script left it, before anything else runs in the sandbox, and
   * costs no second entry into it (the advisory run probe of the binaries a turn built). Within `timeoutMs`.
   */
  epilogue?: string;
}

/** One command's outcome; the same shape as a host process's (`ProcessResult` in src/base/process.ts). */
export type ExecResult = ProcessResult;

export interface Sandbox {
  readonly kind: SandboxKind;
  /** A unique id for this sandbox (container name, build directory name). */
  readonly id: string;
  /** The repository's working copy as commands inside the sandbox see it. */
  readonly workdir: string;
  /** The same working copy as this process sees it. */
  readonly hostWorkdir: string;
  /** What the sandbox runs on, for reports and the Dockerfile's FROM line, e.g. `debian:bookworm`. */
  readonly image: string;
  /** The shared build cache folder on this machine mounted into the sandbox (see build-cache.ts), if any. */
  readonly buildCache?: string;
  /**
   * The image's package lists on this machine (`listsDir`, holding apt-file's Contents files) and the folder
   * where host-side indexes of them are cached with the layer (`cacheDir`); absent when not on this machine.
   * `stack` names the stack of layers the sandbox runs on (what is installed differs per stack), and
   * `asImage()` is true while no command in the sandbox has changed its package database or lists: apt
   * inside would still answer as it does in the image.
   */
  readonly packageLists?: { listsDir: string; cacheDir: string; stack: string; asImage(): boolean };
  /**
   * The image the sandbox runs when the backend made one over `image` (the docker backend's toolchain image,
   * docker-toolchain.ts): its tag and id, the base's id, and, when this sandbox's creation made it or copied
   * its package lists (the first build over a base), what and how long that took.
   */
  readonly derivedImage?: { tag: string; id: string; baseId: string; made?: string[]; madeMs?: number };
  /**
   * How long its creation spent inside commands of its own (a first `true` that proves the stack runs, the
   * build cache's setup), for the harness's time before the first script (result.json timings); absent: none.
   */
  readonly setupCommandsMs?: number;
  /** Runs a bash script; failures are results, never exceptions (only a broken sandbox throws SandboxError). */
  exec(script: string, options: ExecOptions): Promise<ExecResult>;
  /** Where the sandbox's own files live on this machine, for `--keep` messages. */
  describeLocation(): string;
  /** What the sandbox isolates (namespaces, capabilities, seccomp, network, limits), for result.json. */
  readonly isolation?: IsolationReport;
  /**
   * Names of the credentials removed from the working copy's git configuration (`http.<url>.extraheader`,
   * `credential.helper`, `remote.origin.url (userinfo)`, …), never their values; set by `createSandbox`.
   */
  readonly credentialsRemoved?: readonly string[];
  /** True when the backend made `CreateSandboxRequest.hostCertificates` trusted itself (no command ran for it). */
  readonly hostCertificatesInstalled?: boolean;
  /** Every host its commands contacted, and how each was seen (host-network.ts); absent for the host backend. */
  egress?(): EgressRecord;
  /** Removes everything the sandbox created. Idempotent. `keep` leaves the files on disk for inspection. */
  dispose(options?: { keep?: boolean }): Promise<void>;
}

/** Redacts one command's output as it streams (see `createStreamRedactor` in src/trajectory/redact.ts). */
export interface OutputRedactor {
  push(chunk: string): string;
  end(): string;
}

/**
 * What happens to every command's output before anything of it is kept or written (log files, the
 * in-memory output, the progress display), applied by `createSandbox` to every backend alike.
 */
export interface OutputPolicy {
  /** A fresh line-buffered redactor for one command's output. */
  openRedactor?: () => OutputRedactor;
  /** Redacts a whole text (error messages). */
  redact?: (text: string) => string;
  /** Told the credential values removed from the repository copy, so that they are redacted too. */
  addSecrets?: (values: string[]) => void;
  /** A log file keeps its first and last half of this many bytes, with a marker between. Default 20 MiB. */
  maxLogBytes?: number;
}

export interface SandboxSettings {
  choice: SandboxChoice;
  /** Docker image (docker backend). */
  image: string;
  /**
   * Docker backend: run a toolchain image made once over `image` (its packages, the build cache's setup, the
   * package lists copied to this machine) instead of `image` as it is (docker-toolchain.ts). Default true;
   * BUILDBENCH_DOCKER_TOOLCHAIN=off turns it off.
   */
  dockerToolchain?: boolean;
  /** Cache directory for the rootfs base and toolchain layer. */
  cacheDir: string;
  /** Debian suite for the rootfs backend. */
  suite: string;
  /** Debian mirror for debootstrap. */
  mirror: string;
  /** Where per-build directories are created. */
  workRoot: string;
  /** Host backend allowed (explicit choice or CI). */
  allowHost: boolean;
  /**
   * The shared build cache on this machine (package downloads and ccache, see build-cache.ts), mounted into
   * rootfs and docker sandboxes; undefined: none. The host backend never uses it.
   */
  buildCache?: string;
  /**
   * The network of rootfs and docker sandboxes (see isolation.ts); undefined: isolated where this machine can
   * give it (rootfs: slirp4netns installed), else the host's, said in the isolation report.
   */
  network?: NetworkMode;
  /** Memory limit in bytes for one sandbox (cgroups; docker --memory); undefined: none. */
  memoryBytes?: number;
  /** Process limit for one sandbox (cgroups; docker --pids-limit); undefined: none. */
  pids?: number;
  /** Redaction and log bounds for every command's output. Default: logs bounded, nothing redacted. */
  output?: OutputPolicy;
}

export interface CreateSandboxRequest {
  /** The repository to copy into the fresh sandbox. */
  repoDir: string;
  /** Short name used in ids and paths. */
  name: string;
  /**
   * The repository's identity (`repositoryIdentity` in src/core/source.ts): which ccache store of the build
   * cache the sandbox gets (see build-cache.ts). Builds and replays of one repository pass the same value;
   * undefined: the resolved `repoDir`.
   */
  cacheKey?: string;
  onProgress?: (message: string) => void;
  /** Called once the repository is copied and its git credentials removed, before anything runs in it. */
  onCopied?: (removal: CredentialsRemoval) => void;
  signal?: AbortSignal;
  /**
   * Devices the run needs (a deploy task's `requires`): `gpu` passes the GPU (docker `--gpus all`, rootfs
   * binds the driver's device nodes and libraries read-only), `kvm` passes `/dev/kvm` when it is usable.
   * A backend that cannot pass one says so in its isolation record; it never fails silently.
   */
  devices?: { gpu?: boolean; kvm?: boolean };
  /**
   * The CA certificates (PEM) this machine trusts beyond the public roots (trust.ts `readHostTrust`), for a
   * backend that can make them trusted before anything runs: the rootfs backend stacks them as a cached layer
   * and sets `hostCertificatesInstalled`. Otherwise createSandbox installs them with commands.
   */
  hostCertificates?: readonly string[];
}
