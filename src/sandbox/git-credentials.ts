/**
 * The repository copy carries no credentials. A checkout made by actions/checkout keeps the workflow's token
 * in `.git/config` (`http.https://github.com/.extraheader = AUTHORIZATION: basic …`); a developer's clone may
 * hold a token in `remote.origin.url`, a credential helper, or an `url.<base>.insteadOf` rewrite whose base
 * embeds one. The sandbox copies `.git` as it is, so a build script could read them. After the copy is
 * taken, this removes them from the COPY's git configuration (`.git/config`, the submodules'
 * `.git/modules/** /config`, `config.worktree`) with `git config --file` (no includes followed); the user's
 * checkout is never touched. What was removed is reported by name only, never by value.
 */
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

import { SandboxError } from '../base/errors.js';
import { runProcess } from '../base/process.js';

export interface CredentialsRemoval {
  /**
   * What was removed, by name: `http.https://github.com/.extraheader`, `credential.helper`,
   * `remote.origin.url (userinfo)`, `url.https://***@github.com/.insteadof`; a submodule's entries are
   * prefixed by its git folder (`.git/modules/lib/config: …`).
   */
  removed: string[];
  /** The removed secret values (for the redactor; never written anywhere). */
  values: string[];
  /** What was left alone and why (a `.git` file pointing outside the copy, a symlinked config). */
  notes: string[];
}

/** `scheme://userinfo@` at the start of a URL value. */
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/@\s]*)@/i;

/** The credential part of a URL's userinfo, or undefined when it holds none worth removing. */
function urlSecret(value: string): { cleaned: string; secrets: string[] } | undefined {
  const match = URL_USERINFO.exec(value);
  if (!match) return undefined;
  const scheme = match[1]!;
  const userinfo = match[2]!;
  const colon = userinfo.indexOf(':');
  const http = /^https?:\/\//i.test(scheme);
  // ssh://git@host keeps its user name; an http(s) URL needs none (git asks for one when it must), so any
  // userinfo there goes: a bare token as the user name is how tokens are usually pasted.
  if (colon < 0 && !http) return undefined;
  const secrets = colon >= 0 ? [userinfo.slice(colon + 1), userinfo] : [userinfo];
  const keep = colon >= 0 && !http ? `${userinfo.slice(0, colon)}@` : '';
  const decoded = secrets.flatMap((s) => {
    try {
      const d = decodeURIComponent(s);
      return d !== s ? [d] : [];
    } catch {
      return [];
    }
  });
  return { cleaned: scheme + keep + value.slice(match[0].length), secrets: [...secrets, ...decoded] };
}

/** The secret pieces of an authorization header value: the credentials and what a Basic one decodes to. */
function headerSecrets(value: string): string[] {
  const out = [value];
  const match = /authorization:\s*(\S+)\s+(\S+)/i.exec(value) ?? /^\s*(\S+)\s+(\S+)\s*$/.exec(value);
  const scheme = match?.[1];
  const credentials = match?.[2];
  if (credentials) {
    out.push(credentials);
    if (scheme?.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      out.push(decoded);
      const colon = decoded.indexOf(':');
      if (colon >= 0) out.push(decoded.slice(colon + 1));
    }
  }
  return out;
}

/** A section/subsection name safe to report: userinfo inside it replaced by `***`. */
function maskName(name: string): string {
  return name.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

interface Entry {
  key: string;
  value: string | undefined;
}

async function git(args: string[]): Promise<{ exitCode: number; output: string }> {
  const result = await runProcess('git', args, {
    timeoutMs: 60_000,
    env: {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      LC_ALL: 'C',
    },
  });
  return { exitCode: result.exitCode, output: result.output };
}

async function listConfig(file: string): Promise<Entry[]> {
  const result = await git(['config', '--file', file, '--no-includes', '--list', '--null']);
  if (result.exitCode !== 0) {
    throw new SandboxError(
      `could not read ${file} to remove credentials from the repository copy (git config exited ${result.exitCode}): ${result.output.trim().slice(0, 500)}`,
      'check that git is installed and that the repository copy is a readable git checkout',
    );
  }
  return result.output
    .split('\0')
    .filter((item) => item.length > 0)
    .map((item) => {
      const nl = item.indexOf('\n');
      return nl < 0 ? { key: item, value: undefined } : { key: item.slice(0, nl), value: item.slice(nl + 1) };
    });
}

async function edit(file: string, args: string[]): Promise<void> {
  const result = await git(['config', '--file', file, ...args]);
  // 5: the key was not there (already removed with its section).
  if (result.exitCode !== 0 && result.exitCode !== 5) {
    throw new SandboxError(
      `could not remove credentials from ${file} (git config ${args[0]} exited ${result.exitCode}): ${result.output.trim().slice(0, 500)}`,
      'check that the repository copy in the work folder is writable',
    );
  }
}

/** The credential values in a config file this code must not change (read only, as `cleanConfig` sees them). */
async function secretsIn(file: string): Promise<string[]> {
  const entries = await listConfig(file).catch(() => [] as Entry[]);
  return entries.flatMap(({ key, value }) => {
    if (!value) return [];
    const lower = key.toLowerCase();
    if (lower.startsWith('http.') && lower.endsWith('.extraheader')) return headerSecrets(value);
    if (lower.startsWith('credential.')) return [value];
    return urlSecret(value)?.secrets ?? [];
  });
}

/** Removes credentials from one config file; returns the names removed and the values. */
async function cleanConfig(
  file: string,
  root: string,
): Promise<{ removed: string[]; values: string[]; includes: string[] }> {
  const entries = await listConfig(file);
  const removed: string[] = [];
  const values: string[] = [];
  // Included files: those inside the copy are cleaned in turn, those outside are no longer included
  // (actions/checkout v6 keeps its token in such a file under RUNNER_TEMP; the host sandbox could read it).
  const includes: string[] = [];
  const outsideIncludes: Entry[] = [];
  const unset = new Set<string>();
  const sections = new Set<string>();
  const rewrites = new Set<string>();

  for (const { key, value } of entries) {
    const lower = key.toLowerCase();
    const lastDot = key.lastIndexOf('.');
    const section = key.slice(0, lastDot);
    const variable = lower.slice(lastDot + 1);
    if ((lower === 'include.path' || (lower.startsWith('includeif.') && variable === 'path')) && value) {
      const target = path.resolve(path.dirname(file), value);
      const real = await realpath(target).catch(() => target);
      if (!value.startsWith('~') && inside(root, real)) includes.push(real);
      else outsideIncludes.push({ key, value });
      continue;
    }
    if (lower.startsWith('http.') && variable === 'extraheader') {
      unset.add(key);
      if (value) values.push(...headerSecrets(value));
      continue;
    }
    if (lower.startsWith('credential.')) {
      unset.add(key);
      if (value) values.push(value);
      continue;
    }
    if (lower.startsWith('url.') && (variable === 'insteadof' || variable === 'pushinsteadof')) {
      const base = section.slice('url.'.length);
      const secret = urlSecret(base);
      if (secret) {
        sections.add(section);
        values.push(...secret.secrets);
      }
      continue;
    }
    if (value !== undefined) {
      const secret = urlSecret(value);
      if (secret) {
        rewrites.add(key);
        values.push(...secret.secrets);
      }
    }
  }

  for (const key of unset) {
    await edit(file, ['--unset-all', key]);
    removed.push(maskName(key));
  }
  for (const section of sections) {
    await edit(file, ['--remove-section', section]);
    removed.push(`${maskName(section)}.insteadof`);
  }
  for (const { key, value } of outsideIncludes) {
    await edit(file, ['--fixed-value', '--unset-all', key, value!]);
    removed.push(`${key} (a file outside the copy)`);
    // The file itself is left as it is, but the credentials in it join the redactor's values (the host
    // sandbox can read it; an absolute path only, `~/` is not followed).
    if (path.isAbsolute(value!) && (await isPlainFile(value!))) values.push(...(await secretsIn(value!)));
  }
  for (const key of rewrites) {
    // Every value of the key, cleaned, in order (a remote may have several urls).
    const all = entries.filter((e) => e.key === key).map((e) => e.value ?? '');
    await edit(file, ['--unset-all', key]);
    for (const value of all) await edit(file, ['--add', key, urlSecret(value)?.cleaned ?? value]);
    removed.push(`${maskName(key)} (userinfo)`);
  }
  return { removed, values, includes };
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function isPlainFile(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isFile();
  } catch {
    return false;
  }
}

/** Config files of a git folder and of the submodules' git folders below it (`modules/**`). */
async function configFiles(gitDir: string, depth = 0): Promise<string[]> {
  const files: string[] = [];
  for (const name of ['config', 'config.worktree']) {
    if (await isPlainFile(path.join(gitDir, name))) files.push(path.join(gitDir, name));
  }
  if (depth > 8) return files;
  const walk = async (dir: string, level: number): Promise<void> => {
    let names;
    try {
      names = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      if (!entry.isDirectory()) continue; // symlinks are not followed
      const sub = path.join(dir, entry.name);
      if (await isPlainFile(path.join(sub, 'HEAD'))) files.push(...(await configFiles(sub, depth + 1)));
      else if (level < 8) await walk(sub, level + 1); // a submodule named a/b lives in modules/a/b
    }
  };
  await walk(path.join(gitDir, 'modules'), 0);
  return files;
}

/** Nested repositories are looked for this deep below the root (vendored clones: `third_party/x/.git`). */
const NESTED_DEPTH = 6;
/** At most this many folders are looked into for nested repositories. */
const NESTED_FOLDERS = 20_000;

/**
 * The git folder of the checkout in `dir` (its `.git` folder, or where a `.git` file points when that lies
 * inside `root`); undefined, with a note, when it is a symlink or points outside the copy.
 */
async function gitDirOf(root: string, dir: string, notes: string[]): Promise<string | undefined> {
  const dotGit = path.join(dir, '.git');
  const rel = path.relative(root, dotGit);
  let info;
  try {
    info = await lstat(dotGit);
  } catch {
    return undefined;
  }
  if (info.isDirectory()) return dotGit;
  if (!info.isFile()) {
    notes.push(`${rel} is a symlink; left alone`);
    return undefined;
  }
  const text = await readFile(dotGit, 'utf8').catch(() => '');
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (!target) return undefined;
  const resolved = await realpath(path.resolve(dir, target)).catch(() => undefined);
  if (!resolved || !inside(root, resolved)) {
    notes.push(`${rel} is a file pointing outside the repository copy (gitdir: …); left alone`);
    return undefined;
  }
  return resolved;
}

/** Folders below `root` (not `root` itself, never through a symlink) that hold a `.git` entry. */
async function nestedCheckouts(root: string): Promise<string[]> {
  const found: string[] = [];
  let level = [root];
  let visited = 0;
  for (let depth = 0; depth < NESTED_DEPTH && level.length > 0 && visited < NESTED_FOLDERS; depth++) {
    const dirs = level.slice(0, NESTED_FOLDERS - visited);
    visited += dirs.length;
    const listed = await Promise.all(
      dirs.map((dir) =>
        readdir(dir, { withFileTypes: true }).then(
          (entries) => ({ dir, entries }),
          () => undefined,
        ),
      ),
    );
    level = [];
    for (const item of listed) {
      if (!item) continue;
      if (item.dir !== root && item.entries.some((e) => e.name === '.git')) found.push(item.dir);
      for (const entry of item.entries) {
        if (entry.isDirectory() && entry.name !== '.git') level.push(path.join(item.dir, entry.name));
      }
    }
  }
  return found;
}

/**
 * Removes credentials from the git configuration of the repository copy in `copyDir` (the sandbox's working
 * copy on this machine, never the user's checkout): `http.*.extraheader`, `credential.*`, userinfo in URL
 * values (`remote.*.url`, `pushurl`, `http.proxy`, …; an ssh user name is kept) and `url.<base>.insteadOf`
 * rewrites whose base embeds credentials — in the copy's own git folder, its submodules'
 * (`.git/modules/**`) and nested checkouts' (`third_party/x/.git`, up to 6 folders deep). A `.git` file
 * (`gitdir: …`) is followed only when it points inside the copy; a symlinked `.git` is left alone (both noted).
 */
export async function removeGitCredentials(copyDir: string): Promise<CredentialsRemoval> {
  const root = await realpath(copyDir);
  const out: CredentialsRemoval = { removed: [], values: [], notes: [] };
  const gitDirs = new Set<string>();
  for (const dir of [root, ...(await nestedCheckouts(root))]) {
    const gitDir = await gitDirOf(root, dir, out.notes);
    if (gitDir) gitDirs.add(gitDir);
  }
  const files = new Set<string>();
  for (const gitDir of gitDirs) {
    if ((await lstat(path.join(gitDir, 'config')).catch(() => undefined))?.isSymbolicLink()) {
      out.notes.push(`${path.relative(root, path.join(gitDir, 'config'))} is a symlink; left alone`);
    }
    for (const file of await configFiles(gitDir)) files.add(file);
  }
  const queue = [...files];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const { removed, values, includes } = await cleanConfig(file, root);
    const rel = path.relative(root, file);
    const prefix = rel === '.git/config' ? '' : `${rel}: `;
    out.removed.push(...removed.map((name) => prefix + name));
    out.values.push(...values);
    for (const included of includes) {
      if (!files.has(included) && (await isPlainFile(included))) {
        files.add(included);
        queue.push(included);
      }
    }
  }
  out.values = [...new Set(out.values.filter((v) => v.length > 0))];
  return out;
}
