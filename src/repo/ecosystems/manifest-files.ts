/**
 * What the detectors of src/repo/ecosystems/ share: reading one manifest as text through the walk's rules
 * (never following a symlink out of the tree, at most `MANIFEST_MAX_BYTES`), and picking manifests out of the
 * walked file list, shallowest first, leaving build outputs and vendored trees out.
 */
import path from 'node:path';
import { readFileUnder } from '../../base/safe-fs.js';

/** A manifest larger than this is read only up to here (a real one is a few KiB). */
export const MANIFEST_MAX_BYTES = 1024 * 1024;

/** How many manifests of one kind a detector reads at most (a monorepo can hold hundreds). */
export const MANIFESTS_PER_KIND = 50;

/** Folders whose files are build outputs or someone else's code, never the repository's manifests. */
const NOT_OWN =
  /(?:^|\/)(?:target|build|vendor|node_modules|\.buildbench|\.git|_build|dist-newstyle|\.stack-work)\//;

/** The text of `rel` under `root`, or undefined when it cannot be read (missing, a symlink out, a folder). */
export async function readManifest(
  root: string,
  rel: string,
  maxBytes = MANIFEST_MAX_BYTES,
): Promise<string | undefined> {
  try {
    return (await readFileUnder(root, rel, { maxBytes })).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Files whose base name passes `test`, shallowest first then by path, outputs and vendored trees left out. */
export function manifestsWhere(
  files: readonly string[],
  test: (base: string, rel: string) => boolean,
  limit: number = MANIFESTS_PER_KIND,
): string[] {
  return files
    .filter((f) => !NOT_OWN.test(f) && test(path.posix.basename(f), f))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit);
}

/** Files named exactly `name`, shallowest first. */
export function manifestsNamed(files: readonly string[], ...names: string[]): string[] {
  return manifestsWhere(files, (base) => names.includes(base));
}

/** `path:line` for the line of `offset` in `text`. */
export function lineRef(manifest: string, text: string, offset: number): string {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return `${manifest}:${line}`;
}

/** The directory part of a relative path ('' at the root). */
export function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

/** The depth of a relative path (0 for a file at the root). */
export function depthOf(rel: string): number {
  return rel.split('/').length - 1;
}
