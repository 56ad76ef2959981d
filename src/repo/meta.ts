/** CI configurations, Dockerfiles and git submodules. */

import { promises as fs } from 'node:fs';
import path from 'node:path';

import { resolveDirUnder } from '../base/safe-fs.js';
import { baseOf, depthOf, dirOf } from './paths.js';
import type { Submodule } from './types.js';
import { readSmallText } from './walk.js';

const ROOT_CI_FILES = new Set([
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.appveyor.yml',
  'azure-pipelines.yml',
  '.azure-pipelines.yml',
  '.cirrus.yml',
  '.drone.yml',
  'bitbucket-pipelines.yml',
  'Jenkinsfile',
  'buildkite.yml',
]);

/** The repository's own CI definitions: GitHub workflows first, then the other services. */
export function findCiFiles(files: readonly string[]): string[] {
  const workflows: string[] = [];
  const others: string[] = [];
  for (const file of files) {
    const dir = dirOf(file);
    const base = baseOf(file);
    if (dir === '.github/workflows' && /\.ya?ml$/.test(base)) workflows.push(file);
    else if (dir === '' && ROOT_CI_FILES.has(base)) others.push(file);
    else if (
      (dir === '.circleci' && base === 'config.yml') ||
      dir === '.buildkite' ||
      dir === '.azure-pipelines'
    )
      others.push(file);
    else if (dir === '.gitlab-ci' && /\.ya?ml$/.test(base)) others.push(file);
  }
  return [...workflows.sort(), ...others.sort()];
}

/** Dockerfile, Dockerfile.*, *.dockerfile, Containerfile anywhere; shallow ones first. */
export function findDockerfiles(files: readonly string[], limit = 50): string[] {
  return files
    .filter((file) => {
      const base = baseOf(file).toLowerCase();
      return (
        base === 'dockerfile' ||
        base.startsWith('dockerfile.') ||
        base.startsWith('dockerfile-') ||
        base.endsWith('.dockerfile') ||
        base === 'containerfile'
      );
    })
    .sort((a, b) => depthOf(a) - depthOf(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit);
}

/** Parses .gitmodules (git-config syntax) into path/url pairs, in file order. */
export function parseGitmodules(text: string): Array<{ name: string; path: string; url: string }> {
  const out: Array<{ name: string; path: string; url: string }> = [];
  let current: { name: string; path: string; url: string } | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)[#;].*$/, '').trim();
    if (line === '') continue;
    const section = /^\[\s*submodule\s+"([^"]*)"\s*\]$/.exec(line);
    if (section) {
      current = { name: section[1] ?? '', path: '', url: '' };
      out.push(current);
      continue;
    }
    if (line.startsWith('[')) {
      current = undefined;
      continue;
    }
    const kv = /^([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv || !current) continue;
    const key = (kv[1] ?? '').toLowerCase();
    const value = unquote(kv[2] ?? '');
    if (key === 'path') current.path = value.replace(/\/+$/, '');
    else if (key === 'url') current.url = value;
  }
  return out.map((s) => ({ ...s, path: s.path || s.name }));
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

/** Submodules from the root .gitmodules; populated when the directory has anything but a `.git` entry. */
export async function readSubmodules(root: string): Promise<Submodule[]> {
  const text = await readSmallText(root, '.gitmodules', { maxBytes: 512 * 1024 });
  if (text === undefined) return [];
  const out: Submodule[] = [];
  for (const entry of parseGitmodules(text)) {
    if (entry.path === '' || path.isAbsolute(entry.path) || entry.path.split('/').includes('..')) continue;
    out.push({ path: entry.path, url: entry.url, populated: await isPopulated(root, entry.path) });
  }
  return out;
}

/** Whether the submodule's folder holds anything; a folder reached through a link out of the tree does not count. */
async function isPopulated(root: string, rel: string): Promise<boolean> {
  const dir = await resolveDirUnder(root, rel);
  if (!dir) return false;
  try {
    const names = await fs.readdir(dir.toString());
    return names.some((n) => n !== '.git');
  } catch {
    return false;
  }
}
