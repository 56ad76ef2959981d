/**
 * Where a task's repository comes from, and one checkout of it per run. A task names its repository as a
 * local path, `owner/name` (GitHub) or a git URL, with a commit or a branch. With `--repos-dir DIR`,
 * `owner/name` and GitHub URLs are local mirrors `DIR/owner+name/` (a clone or a bare git dir, or one in
 * `DIR/owner+name/repo/`); otherwise a URL is cloned once per benchmark (bare, under the bench's work folder)
 * and every run checks out from that clone. Each run that needs a commit or a branch gets its own local clone
 * in a folder removed after the run, so a mirror (or the task's own folder) is never modified: a local clone
 * hard-links or copies the object files and writes nothing into its source. Every problem is a
 * `RepositoryError` naming the task file and the repository, which the runner records as the run's error.
 */
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

import { git, gitFailure } from '../base/git.js';
import type { Task } from './types.js';

/** A repository that cannot be found, cloned or checked out: a per-task error, never a crash of the suite. */
export class RepositoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepositoryError';
  }
}

/** Where a repository is, before any checkout. */
export type RepoLocation =
  | { kind: 'local'; dir: string; bare: boolean }
  | { kind: 'mirror'; dir: string; bare: boolean; slug: string }
  | { kind: 'remote'; url: string };

/** One run's copy of the repository, ready to be the engine's source. */
export interface Checkout {
  dir: string;
  /** The commit checked out (undefined for a local folder used as it is that is not a git work tree). */
  commit?: string;
  /** Removes the run's checkout (nothing for a local folder used as it is). */
  cleanup: () => Promise<void>;
}

export interface RepositoriesOptions {
  /** `--repos-dir`: local mirrors `owner+name/`. */
  reposDir?: string;
  /** Where checkouts (`checkouts/`) and clones of URLs (`clones/`) are made; owned by one benchmark. */
  workDir: string;
}

/** Checkouts for the runs of a benchmark; clones of a URL are made once and shared by its runs. */
export interface Repositories {
  checkout(task: Task, label: string, signal?: AbortSignal): Promise<Checkout>;
}

const LIMITS = { queryMs: 30_000, cloneMs: 30 * 60_000, checkoutMs: 10 * 60_000 };
const OWNER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;
const URL_LIKE = /^(https?:\/\/|git:\/\/|ssh:\/\/|git@[^:]+:|file:\/\/)/;

function describe(task: Task): string {
  return `task ${task.file}: repository '${task.repository.source}'`;
}

/** `owner/name` of a GitHub spelling (`owner/name`, https, ssh or scp-style URL), else undefined. */
export function githubSlug(source: string): string | undefined {
  const text = source.trim();
  if (OWNER_NAME.test(text) && !text.startsWith('.')) return text.replace(/\.git$/, '');
  const match =
    /^(?:https?:\/\/|ssh:\/\/(?:[^@/]+@)?|git:\/\/|(?:[^@/:]+@))(?:www\.)?github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(
      text,
    );
  return match ? `${match[1]}/${match[2]}` : undefined;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

async function exists(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined)) !== undefined;
}

/** A git repository at `dir`: a work tree (`.git` inside) or a bare git dir (HEAD and objects/). */
async function gitKind(dir: string): Promise<'worktree' | 'bare' | undefined> {
  if (await exists(path.join(dir, '.git'))) return 'worktree';
  if ((await exists(path.join(dir, 'HEAD'))) && (await isDir(path.join(dir, 'objects')))) return 'bare';
  return undefined;
}

/** `DIR/owner+name/` (the name matched without regard to case, as GitHub does), or its `repo/`. */
async function findMirror(task: Task, reposDir: string, slug: string): Promise<RepoLocation> {
  const folder = slug.replace('/', '+');
  let entries: string[];
  try {
    entries = await readdir(reposDir);
  } catch {
    throw new RepositoryError(
      `--repos-dir '${reposDir}' cannot be read; expected a folder of owner+name/ mirrors`,
    );
  }
  const name = entries.includes(folder)
    ? folder
    : entries.find((e) => e.toLowerCase() === folder.toLowerCase());
  if (name === undefined) {
    throw new RepositoryError(
      `${describe(task)} has no mirror in --repos-dir: expected ${path.join(reposDir, folder)}/`,
    );
  }
  for (const dir of [path.join(reposDir, name), path.join(reposDir, name, 'repo')]) {
    const kind = await gitKind(dir);
    if (kind) return { kind: 'mirror', dir, bare: kind === 'bare', slug };
  }
  throw new RepositoryError(
    `${describe(task)}: ${path.join(reposDir, name)}/ holds no git repository; expected a clone or a bare git dir (there or in repo/)`,
  );
}

/** Where the task's repository is: a local folder, a mirror in `reposDir`, or a URL to clone. */
export async function locateRepository(task: Task, reposDir?: string): Promise<RepoLocation> {
  const source = task.repository.source.trim();
  const slug = githubSlug(source);
  if (reposDir !== undefined && slug !== undefined) return findMirror(task, reposDir, slug);
  if (URL_LIKE.test(source)) return { kind: 'remote', url: source };
  if (slug !== undefined && !path.isAbsolute(source)) {
    return { kind: 'remote', url: `https://github.com/${slug}` };
  }
  const dir = path.resolve(path.dirname(task.file), source);
  if (!(await isDir(dir))) {
    throw new RepositoryError(
      `${describe(task)}: ${dir} is not a folder; expected a local path, owner/name or a git URL`,
    );
  }
  return { kind: 'local', dir, bare: (await gitKind(dir)) === 'bare' };
}

/** A short, safe folder name for the checkout (the engine names the repository after it). */
function checkoutName(task: Task, location: RepoLocation): string {
  const base =
    location.kind === 'remote'
      ? (githubSlug(location.url)?.split('/')[1] ?? location.url.split(/[/:]/).pop() ?? 'repo')
      : location.kind === 'mirror'
        ? location.slug.split('/')[1]!
        : path.basename(location.dir);
  const clean = base
    .replace(/\.git$/, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '');
  return clean || task.id.replace(/[^A-Za-z0-9._-]/g, '_') || 'repo';
}

async function gitOrFail(
  task: Task,
  args: string[],
  timeoutMs: number,
  what: string,
  signal?: AbortSignal,
): Promise<string> {
  const { code, out } = await git(args, timeoutMs, signal);
  if (code !== 0) throw new RepositoryError(`${describe(task)}: ${what}: ${gitFailure(code, out)}`);
  return out;
}

/**
 * A local clone of `from` in `dir` at the task's commit or branch (the default branch when it names
 * neither). `from` is never written to.
 */
async function cloneAt(task: Task, from: string, dir: string, signal?: AbortSignal): Promise<string> {
  const { commit, branch } = task.repository;
  const args = ['clone', '--quiet', ...(commit ? ['--no-checkout'] : branch ? ['--branch', branch] : [])];
  const what = commit || !branch ? `cannot clone ${from}` : `cannot clone branch ${branch} of ${from}`;
  await gitOrFail(task, [...args, '--', from, dir], LIMITS.cloneMs, what, signal);
  if (commit) {
    await gitOrFail(
      task,
      ['-C', dir, 'checkout', '--quiet', '--detach', `${commit}^{commit}`],
      LIMITS.checkoutMs,
      `cannot check out commit ${commit}`,
      signal,
    );
  }
  const head = await gitOrFail(
    task,
    ['-C', dir, 'rev-parse', 'HEAD'],
    LIMITS.queryMs,
    'no HEAD after checkout',
  );
  return head.trim();
}

export function createRepositories(options: RepositoriesOptions): Repositories {
  const clones = new Map<string, Promise<string>>();

  /** A bare clone of `url`, made once per benchmark (a complete one is kept for a resumed benchmark). */
  const cloneOnce = (task: Task, url: string, signal?: AbortSignal): Promise<string> => {
    const key = url
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .toLowerCase();
    let pending = clones.get(key);
    if (!pending) {
      const name = (githubSlug(url)?.replace('/', '+') ?? key.replace(/[^a-z0-9._-]+/g, '_')) + '.git';
      const dir = path.join(options.workDir, 'clones', name);
      pending = (async () => {
        if ((await gitKind(dir)) === 'bare') return dir;
        const part = `${dir}.part`;
        await rm(part, { recursive: true, force: true });
        await mkdir(path.dirname(dir), { recursive: true });
        await gitOrFail(
          task,
          ['clone', '--quiet', '--bare', '--', url, part],
          LIMITS.cloneMs,
          `cannot clone ${url}`,
          signal,
        );
        await rename(part, dir);
        return dir;
      })();
      // A failed clone (a cancel, the network) is tried again by the next run that needs it.
      pending.catch(() => clones.delete(key));
      clones.set(key, pending);
    }
    return pending;
  };

  return {
    async checkout(task, label, signal) {
      const location = await locateRepository(task, options.reposDir);
      const { commit, branch } = task.repository;
      if (location.kind === 'local' && !location.bare && !commit && !branch) {
        const head = await git(['-C', location.dir, 'rev-parse', 'HEAD'], LIMITS.queryMs);
        return {
          dir: location.dir,
          ...(head.code === 0 ? { commit: head.out.trim() } : {}),
          cleanup: () => Promise.resolve(),
        };
      }
      const from = location.kind === 'remote' ? await cloneOnce(task, location.url, signal) : location.dir;
      const parent = path.join(options.workDir, 'checkouts', label);
      await rm(parent, { recursive: true, force: true });
      await mkdir(parent, { recursive: true });
      const cleanup = (): Promise<void> => rm(parent, { recursive: true, force: true });
      try {
        const dir = path.join(parent, checkoutName(task, location));
        return { dir, commit: await cloneAt(task, from, dir, signal), cleanup };
      } catch (error) {
        await cleanup();
        throw error;
      }
    },
  };
}
