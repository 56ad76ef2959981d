/**
 * `buildbench verify <out-dir>` on an output folder that came from elsewhere: result.json and the snapshot it
 * names are read inside the folder, never through a symbolic link, and a snapshot path that leads out of
 * the folder is refused with one line naming the field and the path (issue 28 item 6).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../../src/cli/main.js';
import { snapshotTree } from '../../../src/verify/artifacts.js';
import { saveSnapshot, SNAPSHOT_FILE } from '../../../src/verify/baseline.js';
import { ET_EXEC, makeElf } from '../verify/helpers/elf.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const elf = makeElf({ bits: 64, little: true, type: ET_EXEC, size: 256 });

/** A kept tree with a binary, an output folder naming it, and a folder outside holding a valid snapshot. */
async function setUp(): Promise<{ top: string; out: string; outside: string; kept: string }> {
  const top = mkdtempSync(path.join(tmpdir(), 'bb-verify-links-'));
  temps.push(top);
  const kept = path.join(top, 'kept');
  const out = path.join(top, 'out');
  const outside = path.join(top, 'outside');
  for (const dir of [kept, out, outside]) mkdirSync(dir);
  writeFileSync(path.join(kept, 'hello'), elf);
  // Taken after the build: were it read, `hello` would be old and nothing new built (the existing verify tests
  // show a snapshot inside the folder being used).
  await saveSnapshot(path.join(outside, SNAPSHOT_FILE), await snapshotTree(kept));
  return { top, out, outside, kept };
}

function resultJson(kept: string, snapshot: string): string {
  return JSON.stringify({
    schema: 'buildbench.result/v1',
    expected: { names: ['hello'], source: 'cli', matched: [], missing: [], ignored: [] },
    sandbox: { kind: 'rootfs', keptWorkdir: kept },
    files: { trajectory: 'trajectory.jsonl', logs: 'logs/', artifacts: 'artifacts/', snapshot },
  });
}

async function verify(out: string): Promise<{ code: number; out: string; err: string[] }> {
  const stdout: string[] = [];
  const err: string[] = [];
  const code = await run(['verify', out, '--sandbox', 'none'], {
    stdout: (t) => stdout.push(t),
    stderr: (t) => err.push(t),
    env: { HOME: tmpdir() },
    cwd: tmpdir(),
  });
  return { code, out: stdout.join(''), err };
}

describe('buildbench verify on an output folder from elsewhere', () => {
  it.each([
    ['a path with ..', `../outside/${SNAPSHOT_FILE}`, /'\.\.' is not allowed/],
    ['an absolute path', 'ABSOLUTE', /an absolute path/],
    ['a link out of the folder', SNAPSHOT_FILE, /a symbolic link \(not followed\)/],
    [
      'a file under a linked folder',
      `logs/${SNAPSHOT_FILE}`,
      /the folder logs on its path is a symbolic link/,
    ],
  ])('refuses files.snapshot given as %s, naming the field and the path (exit 2)', async (_, named, why) => {
    const { out, outside, kept } = await setUp();
    const snapshot = named === 'ABSOLUTE' ? path.join(outside, SNAPSHOT_FILE) : named;
    symlinkSync(path.join(outside, SNAPSHOT_FILE), path.join(out, SNAPSHOT_FILE));
    symlinkSync(outside, path.join(out, 'logs'));
    writeFileSync(path.join(out, 'result.json'), resultJson(kept, snapshot));
    const got = await verify(out);
    expect(got.code).toBe(2);
    expect(got.out).toBe('');
    expect(got.err).toHaveLength(1);
    expect(got.err[0]).toContain(
      `buildbench: verify: ${path.join(out, 'result.json')}: files.snapshot ${JSON.stringify(snapshot)}: `,
    );
    expect(got.err[0]).toMatch(why);
    expect(got.err[0]).not.toContain('    at ');
  });

  it('refuses a result.json that is a link to a file outside (exit 2)', async () => {
    const { out, outside, kept } = await setUp();
    writeFileSync(path.join(outside, 'result.json'), resultJson(kept, SNAPSHOT_FILE));
    symlinkSync(path.join(outside, 'result.json'), path.join(out, 'result.json'));
    const got = await verify(out);
    expect(got.code).toBe(2);
    expect(got.err).toEqual([
      `buildbench: verify: ${path.join(out, 'result.json')} is refused: a symbolic link (not followed) (expected the result.json of buildbench build)\n`,
    ]);
  });
});
