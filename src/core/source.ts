import { mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../base/errors.js';
import { git, gitFailure } from '../base/git.js';

/** A repository on this machine, ready to be copied into a sandbox. */
export interface ResolvedSource {
  dir: string;
  commit?: string;
  /** Which repository this is, for per-repository caches (`repositoryIdentity`). */
  identity: string;
  /** Removes a temporary clone. */
  cleanup: () => Promise<void>;
}

export function isGitUrl(source: string): boolean {
  return /^(https?:\/\/|git:\/\/|ssh:\/\/|git@[^:]+:|file:\/\/)/.test(source);
}

/** Limits for the git commands this file runs. */
const LIMITS = { queryMs: 10_000, rootsMs: 30_000, cloneMs: 10 * 60_000 };

export async function gitHead(dir: string): Promise<string | undefined> {
  const { code, out } = await git(['-C', dir, 'rev-parse', 'HEAD'], LIMITS.queryMs);
  return code === 0 ? out.trim() : undefined;
}

/**
 * A git URL in one spelling per repository: no scheme, user or password, host in lower case, no trailing
 * `.git` or slash; `git@host:owner/repo` and `https://host/owner/repo.git` are the same. GitHub and GitLab
 * paths are case-insensitive, so they are lower-cased too.
 */
export function normalizeGitUrl(url: string): string {
  const text = url.trim();
  let host = '';
  let rest = text;
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.*)$/.exec(text);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    host = scp[1]!;
    rest = scp[2]!;
  } else {
    try {
      const parsed = new URL(text);
      host = parsed.protocol === 'file:' ? 'file:' : parsed.host;
      rest = decodeURIComponent(parsed.pathname);
    } catch {
      return text;
    }
  }
  host = host.toLowerCase();
  let repoPath = rest
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/^\/+/, '');
  if (/^(www\.)?(github\.com|gitlab\.com)$/.test(host)) repoPath = repoPath.toLowerCase();
  return `${host.replace(/^www\./, '')}/${repoPath}`;
}

/**
 * Which repository a source is, for the per-repository ccache store of the build cache: `url:<normalized URL>`
 * for a git URL (the clone comes from there). A local folder's own `.git` is the repository's and may claim any
 * remote or history (a fork shares its upstream's first commit), so its identity is its real path, with its
 * origin URL (else its first commit) added: a folder never shares a store with a clone, nor with another
 * folder, and another repository moved into the same folder gets a store of its own.
 */
export async function repositoryIdentity(source: string, dir: string): Promise<string> {
  if (isGitUrl(source)) return `url:${normalizeGitUrl(source)}`;
  // The first commit is asked at once, beside the origin, and stopped when the origin answers: each query is
  // a process start, and one after the other they were most of a small build's time before the sandbox.
  const stopRoots = new AbortController();
  const rootsQuery = git(
    ['-C', dir, 'rev-list', '--max-parents=0', 'HEAD'],
    LIMITS.rootsMs,
    stopRoots.signal,
  );
  const [real, origin] = await Promise.all([
    realpath(dir).catch(() => path.resolve(dir)),
    git(['-C', dir, 'config', '--get', 'remote.origin.url'], LIMITS.queryMs),
  ]);
  if (origin.code === 0 && origin.out.trim()) {
    stopRoots.abort();
    rootsQuery.catch(() => undefined);
    return `path:${real}\nurl:${normalizeGitUrl(origin.out.trim().split('\n')[0]!)}`;
  }
  const roots = await rootsQuery;
  const root = roots.code === 0 ? roots.out.trim().split('\n').sort()[0] : undefined;
  return root && /^[0-9a-f]{40,64}$/.test(root) ? `path:${real}\nroot:${root}` : `path:${real}`;
}

/** A located source: the folder to build, and how to remove it when it is a temporary clone. */
export type LocatedSource = Omit<ResolvedSource, 'commit' | 'identity'>;

/** Resolves a local path or clones a git URL; every problem is a ConfigError naming the source. */
export async function resolveSource(source: string, signal?: AbortSignal): Promise<ResolvedSource> {
  const located = await locateSource(source, signal);
  return { ...located, ...(await describeSource(source, located.dir)) };
}

/**
 * The commit and the identity of a located source. It never fails: a folder that is not a git checkout has
 * no commit, and its identity is its path. Side by side: each git query is a process start, and neither
 * needs the other.
 */
export async function describeSource(
  source: string,
  dir: string,
): Promise<Pick<ResolvedSource, 'commit' | 'identity'>> {
  const [commit, identity] = await Promise.all([gitHead(dir), repositoryIdentity(source, dir)]);
  return { ...(commit !== undefined ? { commit } : {}), identity };
}

/**
 * The folder of a source: a local directory as it is, or a shallow clone of a git URL in a temporary folder;
 * every problem is a ConfigError naming the source. `describeSource` says which commit and repository it is.
 */
export async function locateSource(source: string, signal?: AbortSignal): Promise<LocatedSource> {
  if (isGitUrl(source)) {
    const parent = await mkdtemp(path.join(tmpdir(), 'buildbench-clone-'));
    const dir = path.join(parent, 'repo');
    const cleanup = (): Promise<void> => rm(parent, { recursive: true, force: true });
    const { code, out } = await git(
      ['clone', '--recurse-submodules', '--shallow-submodules', '--depth', '1', source, dir],
      LIMITS.cloneMs,
      signal,
    );
    if (code !== 0) {
      await cleanup();
      throw new ConfigError(
        `cannot clone '${source}': ${gitFailure(code, out)}`,
        'expected a reachable git URL or a local directory',
      );
    }
    return { dir, cleanup };
  }
  const dir = path.resolve(source);
  await checkLocalSource(source, dir);
  return { dir, cleanup: () => Promise.resolve() };
}

/**
 * A local repository path is a directory with something in it; otherwise a ConfigError naming `source` as
 * given. Also what the CLI checks before it creates any output folder.
 */
export async function checkLocalSource(source: string, dir = path.resolve(source)): Promise<void> {
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
}
