/**
 * The `host` backend: commands run on this machine itself, in a copy of the repository under the work
 * folder, with a cleared environment (`env -i` + allowlist) and process-group kill. No isolation of the
 * system: only for bare VMs, self-hosted runners and CI, and only when chosen explicitly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, join, posix } from 'node:path';

import { CancelledError, ConfigError } from '../base/errors.js';
import {
  baseSandboxEnv,
  copyRepository,
  dieWithParent,
  makeSandboxId,
  passThroughOptions,
  removeTree,
  runScriptLines,
  SANDBOX_PATH,
  sandboxEnvAssignments,
} from './common.js';
import { QueuedSandbox } from './queued.js';
import { writeOwnerRecord } from './work-dirs.js';
import { HOST_ISOLATION, type IsolationReport } from './isolation.js';
import { hostGpuRecord } from './gpu.js';
import { kvmDevice, kvmNote, kvmPassing, probeKvm } from './kvm.js';
import { runProcess } from '../base/process.js';
import type { CreateSandboxRequest, ExecOptions, ExecResult, Sandbox, SandboxSettings } from './types.js';
import { readIfExistsSync } from '../base/safe-fs.js';

/** `host:<os id>-<version>` from /etc/os-release, e.g. `host:debian-12`. */
export function hostImageName(osRelease?: string): string {
  let text = osRelease;
  if (text === undefined) text = readIfExistsSync(() => readFileSync('/etc/os-release', 'utf8')) ?? '';
  const field = (name: string): string | undefined =>
    new RegExp(`^${name}=("?)(.*)\\1$`, 'm').exec(text ?? '')?.[2];
  const id = field('ID');
  const version = field('VERSION_ID');
  return id ? `host:${id}${version ? `-${version}` : ''}` : `host:${process.platform}`;
}

export class HostSandbox extends QueuedSandbox implements Sandbox {
  readonly kind = 'host' as const;
  readonly image = hostImageName();

  constructor(
    readonly id: string,
    readonly buildDir: string,
    readonly isolation: IsolationReport = HOST_ISOLATION,
    /** Variables of this machine kept through the cleared environment (a GPU task's device selection). */
    private readonly keptEnv: Record<string, string> = {},
  ) {
    super();
  }

  get hostWorkdir(): string {
    return join(this.buildDir, 'workspace');
  }

  get workdir(): string {
    return this.hostWorkdir;
  }

  describeLocation(): string {
    return `repository copy in ${this.hostWorkdir} (commands ran directly on this machine)`;
  }

  protected async execNow(script: string, options: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    const cwd = options.cwd
      ? posix.isAbsolute(options.cwd)
        ? options.cwd
        : posix.join(this.hostWorkdir, options.cwd)
      : this.hostWorkdir;
    const path = process.env.PATH ?? SANDBOX_PATH;
    const env = sandboxEnvAssignments(options.env, {
      ...baseSandboxEnv({ PATH: path, HOME: homedir() }),
      ...this.keptEnv,
    });
    const scriptPath = join(this.buildDir, 'cmd', 'cmd.sh');
    await writeFile(scriptPath, script.endsWith('\n') ? script : `${script}\n`);
    const epiloguePath = join(this.buildDir, 'cmd', 'epilogue.sh');
    if (options.epilogue !== undefined) await writeFile(epiloguePath, `${options.epilogue}\n`);
    else await rm(epiloguePath, { force: true });
    const [command, args] = await dieWithParent('env', [
      '-i',
      ...env,
      '/bin/bash',
      '-c',
      ['cd -- "$1" || exit 1', ...runScriptLines('"$2"', '"$3"')].join('\n'),
      'bash',
      cwd,
      scriptPath,
      epiloguePath,
    ]);
    return runProcess(command, args, {
      env: { PATH: path },
      timeoutMs: options.timeoutMs,
      signal,
      ...passThroughOptions(options),
    });
  }

  protected async release(options: { keep?: boolean }): Promise<void> {
    if (!options.keep) await removeTree(this.buildDir);
  }
}

/** A copy of the repository on this machine; refuses unless `settings.allowHost`. */
export async function createHostSandbox(
  settings: SandboxSettings,
  request: CreateSandboxRequest,
): Promise<HostSandbox> {
  if (!settings.allowHost) {
    throw new ConfigError(
      'the host sandbox runs build commands directly on this machine and was not allowed',
      'choose it explicitly with --sandbox host (allowed by default only in CI), or use --sandbox rootfs or docker',
    );
  }
  const id = makeSandboxId(request.name);
  const gpu = request.devices?.gpu ? hostGpuRecord() : undefined;
  if (gpu) request.onProgress?.(gpu.record.passed ? `GPU: ${gpu.record.how}` : `warning: ${gpu.record.how}`);
  // KVM: nothing to pass, the commands run on this machine and see its device as it is.
  const kvm = request.devices?.kvm
    ? kvmPassing(true, await probeKvm(), 'this machine’s own device')
    : undefined;
  const kvmSaid = kvm && kvmNote(kvm);
  if (kvm && !kvm.passed) request.onProgress?.(`warning: ${kvmSaid}`);
  const devices = [...(gpu ? [gpu.record] : []), ...(kvm ? [kvmDevice(kvm)] : [])];
  const sandbox = new HostSandbox(
    id,
    join(settings.workRoot, id),
    devices.length > 0
      ? { ...HOST_ISOLATION, devices, notes: [...HOST_ISOLATION.notes, ...(kvmSaid ? [kvmSaid] : [])] }
      : HOST_ISOLATION,
    gpu?.env ?? {},
  );
  try {
    await writeOwnerRecord(sandbox.buildDir, 'host');
    await mkdir(join(sandbox.buildDir, 'cmd'), { recursive: true });
    await copyRepository(request.repoDir, sandbox.hostWorkdir, request.signal, request.onCopied);
  } catch (error) {
    await sandbox.dispose().catch(() => undefined);
    if (request.signal?.aborted) throw new CancelledError('creating the host sandbox was cancelled');
    throw error;
  }
  return sandbox;
}

/** A host sandbox whose working copy is an existing folder: nothing is copied, and dispose leaves it alone. */
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

/**
 * A host sandbox that runs commands in `tree` itself (`buildbench verify --sandbox host` on a kept or
 * hand-made build). Its scratch folder (the command script) goes under `workRoot`, or the temp folder when
 * that does not exist; dispose removes only the scratch folder.
 */
export async function createInPlaceHostSandbox(
  tree: string,
  settings: Pick<SandboxSettings, 'workRoot'>,
): Promise<HostSandbox> {
  const id = makeSandboxId(`verify-${basename(tree)}`);
  const buildDir = join(existsSync(settings.workRoot) ? settings.workRoot : tmpdir(), id);
  await writeOwnerRecord(buildDir, 'verify');
  await mkdir(join(buildDir, 'cmd'), { recursive: true });
  return new InPlaceHostSandbox(id, buildDir, tree);
}
