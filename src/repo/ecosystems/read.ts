/**
 * What the ecosystem detectors share: reading a small manifest without following a symbolic link, and the
 * shapes they fill.
 */
import { readFileUnder } from '../../base/safe-fs.js';

/** The most a detector reads of one manifest; a bigger one is read this far (its head declares the dependencies). */
export const MANIFEST_MAX_BYTES = 1024 * 1024;

/** The text of `rel` under `root` (no symbolic link anywhere on the path), or undefined when it cannot be read. */
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

/** The directory part of a relative path ('' at the root). */
export function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

/** The depth of a relative path (0 for a file at the root). */
export function depthOf(rel: string): number {
  return rel.split('/').length - 1;
}
