/** Paths of the hand-written fixture trees in test/fixtures/inspect, and temporary trees for cases git cannot hold. */

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'inspect');

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** A fresh temporary directory with `files` (path → content) written into it. */
export function tempTree(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'bb-inspect-'));
  for (const [rel, content] of Object.entries(files)) {
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}

export function removeTree(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
