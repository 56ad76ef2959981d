/**
 * `buildbench report <out-dir>` on output folders that came from elsewhere (a downloaded benchmark artifact,
 * a colleague's results): nothing is read or written through a symbolic link out of the folder, and the
 * paths result.json names stay inside it (issue 28 item 6).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../../src/cli/main.js';
import { loadReportInput } from '../../../src/report/runbook.js';

const GOLDEN = path.resolve('test/fixtures/golden');
const MARKER = 'colleague-results-3f9a1c';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the golden success folder, and a folder outside it holding a colleague's file and a trajectory. */
function setUp(): { out: string; outside: string; victim: string } {
  const top = mkdtempSync(path.join(tmpdir(), 'bb-report-links-'));
  temps.push(top);
  const out = path.join(top, 'out');
  const outside = path.join(top, 'outside');
  cpSync(path.join(GOLDEN, 'success'), out, { recursive: true });
  mkdirSync(outside);
  const victim = path.join(outside, 'RUNBOOK.md');
  writeFileSync(victim, `${MARKER}\n`);
  // A trajectory outside, with turns: reading it would show them.
  cpSync(path.join(out, 'trajectory.jsonl'), path.join(outside, 'trajectory.jsonl'));
  return { out, outside, victim };
}

function withFiles(out: string, files: Record<string, unknown>): void {
  const file = path.join(out, 'result.json');
  const result = JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, unknown> };
  writeFileSync(file, JSON.stringify({ ...result, files: { ...result.files, ...files } }));
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: {}, cwd: tmpdir() },
  };
}

describe('buildbench report on a folder from elsewhere', () => {
  it('replaces a RUNBOOK.md that is a link to a file outside, leaving that file untouched', async () => {
    const { out, victim } = setUp();
    unlinkSync(path.join(out, 'RUNBOOK.md'));
    symlinkSync(victim, path.join(out, 'RUNBOOK.md'));
    const cli = io();
    expect(await run(['report', out], cli.io)).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe(`${MARKER}\n`);
    expect(lstatSync(path.join(out, 'RUNBOOK.md')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8')).toBe(
      readFileSync(path.join(GOLDEN, 'success', 'RUNBOOK.md'), 'utf8'),
    );
    expect(cli.err).toEqual([]);
  });

  it.each([
    [
      'a path with ..',
      '../outside/trajectory.jsonl',
      /"\.\.\/outside\/trajectory\.jsonl": '\.\.' is not allowed/,
    ],
    ['an absolute path', 'ABSOLUTE', /: an absolute path; it must name a file inside the folder/],
    ['a link out of the folder', 'linked.jsonl', /"linked\.jsonl": a symbolic link \(not followed\)/],
    [
      'a file under a linked folder',
      'logs/trajectory.jsonl',
      /"logs\/trajectory\.jsonl": the folder logs on its path is a symbolic link \(not followed\)/,
    ],
  ])('does not read files.trajectory given as %s, and says so', async (_, named, message) => {
    const { out, outside } = setUp();
    const trajectory = named === 'ABSOLUTE' ? path.join(outside, 'trajectory.jsonl') : named;
    symlinkSync(path.join(outside, 'trajectory.jsonl'), path.join(out, 'linked.jsonl'));
    rmSync(path.join(out, 'logs'), { recursive: true, force: true });
    symlinkSync(outside, path.join(out, 'logs')); // like `patches -> /etc`
    withFiles(out, { trajectory });

    const input = await loadReportInput(out);
    expect(input.turns).toEqual([]);
    expect(input.trajectoryRefused).toMatch(/^files\.trajectory /);
    expect(input.trajectoryRefused).toMatch(message);

    const cli = io();
    expect(await run(['report', out], cli.io)).toBe(0);
    expect(cli.err).toHaveLength(1);
    expect(cli.err[0]).toMatch(/^buildbench: report: the trajectory was not read: files\.trajectory /);
    expect(cli.err[0]).not.toContain('    at '); // a message, not a stack trace
    const runbook = readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8');
    expect(runbook).toContain('The trajectory could not be read (files.trajectory ');
  });

  it('refuses a result.json that is a link, with one line naming it (exit 2)', async () => {
    const { out, outside } = setUp();
    cpSync(path.join(out, 'result.json'), path.join(outside, 'result.json'));
    unlinkSync(path.join(out, 'result.json'));
    symlinkSync(path.join(outside, 'result.json'), path.join(out, 'result.json'));
    const cli = io();
    expect(await run(['report', out], cli.io)).toBe(2);
    expect(cli.out).toEqual([]);
    expect(cli.err).toEqual([
      `buildbench: report: ${path.join(out, 'result.json')} is refused: a symbolic link (not followed) (expected the result.json of buildbench build)\n`,
    ]);
  });
});
