import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from './errors.js';

/** A repository on this machine, ready to be copied into a sandbox. */
export interface ResolvedSource {
  dir: string;
  commit?: string;
  /** Removes a temporary clone. */
  cleanup: () => Promise<void>;
}

export function isGitUrl(source: string): boolean {
  return /^(https?:\/\/|git:\/\/|ssh:\/\/|git@[^:]+:|file:\/\/)/.test(source);
}

function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      signal,
    });
    let out = '';
    const add = (b: Buffer): void => {
      if (out.length < 64 * 1024) out += b.toString();
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: 127, out: out + e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, out });
    });
  });
}

export async function gitHead(dir: string): Promise<string | undefined> {
  const { code, out } = await run('git', ['-C', dir, 'rev-parse', 'HEAD'], 10_000);
  return code === 0 ? out.trim() : undefined;
}

/** Resolves a local path or clones a git URL; every problem is a ConfigError naming the source. */
export async function resolveSource(source: string, signal?: AbortSignal): Promise<ResolvedSource> {
  if (isGitUrl(source)) {
    const parent = await mkdtemp(path.join(tmpdir(), 'buildbench-clone-'));
    const dir = path.join(parent, 'repo');
    const cleanup = (): Promise<void> => rm(parent, { recursive: true, force: true });
    const { code, out } = await run(
      'git',
      ['clone', '--recurse-submodules', '--shallow-submodules', '--depth', '1', source, dir],
      10 * 60_000,
      signal,
    );
    if (code !== 0) {
      await cleanup();
      const lines = out.trim().split('\n').filter(Boolean);
      const last = lines.find((l) => l.startsWith('fatal:')) ?? lines.pop() ?? `git exited with ${code}`;
      throw new ConfigError(
        `cannot clone '${source}': ${last}`,
        'expected a reachable git URL or a local directory',
      );
    }
    return { dir, commit: await gitHead(dir), cleanup };
  }
  const dir = path.resolve(source);
  let info;
  try {
    info = await stat(dir);
  } catch {
    throw new ConfigError(
      `repository path '${source}' does not exist`,
      'expected a directory holding the source code, or a git URL',
    );
  }
  if (!info.isDirectory()) {
    throw new ConfigError(
      `repository path '${source}' is not a directory`,
      'expected a directory holding the source code, or a git URL',
    );
  }
  const entries = (await readdir(dir)).filter((e) => e !== '.git');
  if (entries.length === 0) {
    throw new ConfigError(
      `repository path '${source}' is empty`,
      'expected a directory holding the source code',
    );
  }
  return { dir, commit: await gitHead(dir), cleanup: () => Promise.resolve() };
}
