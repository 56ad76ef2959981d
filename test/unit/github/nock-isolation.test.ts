/**
 * nock is process-wide inside a jest worker (see test/helpers/nock.ts): a test file that imports nock itself, not
 * through the helper that undoes it after the file, breaks whichever file jest happens to run next in that worker.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe('nock isolation between test files', () => {
  it('every test file gets nock through test/helpers/nock.ts', () => {
    const direct = testFiles('test').filter(
      (file) =>
        path.normalize(file) !== path.normalize('test/helpers/nock.ts') &&
        /\bfrom\s+['"]nock['"]|require\(\s*['"]nock['"]\s*\)|import\(\s*['"]nock['"]\s*\)/.test(
          readFileSync(file, 'utf8'),
        ),
    );
    expect(direct).toEqual([]);
  });
});
