/**
 * Usage errors write nothing and suggest (issue 33): an argument or configuration error of build, deploy, verify
 * or bench is found before any output folder exists — one line, with a hint, exit 2, and the folder the run
 * would have written (its default or --out) is not created; unknown commands and flags get the nearest one.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../../src/cli/main.js';

async function cli(args: string[]): Promise<{ code: number; err: string; out: string; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-usage-'));
  mkdirSync(path.join(dir, 'repo'));
  mkdirSync(path.join(dir, 'empty'));
  writeFileSync(path.join(dir, 'repo', 'main.c'), 'int main(void) { return 0; }\n');
  writeFileSync(path.join(dir, 'not-a-task.yml'), 'just: text\n');
  const err: string[] = [];
  const out: string[] = [];
  const code = await run(
    args.map((a) => a.replaceAll('$DIR', dir)),
    { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd: dir },
  );
  return { code, err: err.join(''), out: out.join(''), dir };
}

/** What a run left in its folder besides the inputs the test wrote. */
const debris = (dir: string): string[] =>
  readdirSync(dir).filter((n) => !['repo', 'empty', 'not-a-task.yml'].includes(n));

describe('usage errors create no output folder', () => {
  it.each([
    [
      'build: a repository path that does not exist',
      ['build', '$DIR/nope'],
      /repository path '.*nope' does not exist/,
    ],
    ['build: an empty repository folder', ['build', '$DIR/empty'], /repository path '.*empty' is empty/],
    [
      'build: a --spec that cannot be read',
      ['build', '$DIR/repo', '--spec', '$DIR/missing.yml'],
      /--spec: cannot read/,
    ],
    [
      'build: a bad flag value',
      ['build', '$DIR/repo', '--max-turns', 'many'],
      /--max-turns: 'many' is not valid/,
    ],
    ['build: --out given, path wrong', ['build', '$DIR/nope', '--out', '$DIR/out'], /does not exist/],
    ['deploy: no --task', ['deploy', '$DIR/repo'], /deploy: missing --task/],
    [
      'deploy: a task file that is not a task',
      ['deploy', '$DIR/repo', '--task', '$DIR/not-a-task.yml'],
      /kind: required field missing/,
    ],
    ['verify: a folder that does not exist', ['verify', '$DIR/nope'], /is not a directory/],
    ['bench: a task file that does not exist', ['bench', '$DIR/nope.yml'], /no such task file/],
  ] as const)('%s', async (_name, args, message) => {
    const { code, err, out, dir } = await cli([...args]);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(message);
    // one line; a task file's validation says each of its problems on a line of its own
    if (!(args as readonly string[]).includes('--task')) expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/\(.+\)\s*$|; expected /); // the hint
    expect(debris(dir)).toEqual([]);
    expect(existsSync(path.join(dir, 'buildbench-out'))).toBe(false);
  });
});

describe('unknown commands and flags get the nearest one', () => {
  it.each([
    [['biuld', '$DIR/repo'], "unknown command 'biuld' (did you mean 'build'?)"],
    [['build', '$DIR/repo', '--max-turn', '2'], "unknown option '--max-turn' (did you mean '--max-turns'?)"],
    [['deploy', '$DIR/repo', '--max-turn', '2'], "unknown option '--max-turn' (did you mean '--max-turns'?)"],
    [['bench', '$DIR/repo', '--max-turn', '2'], "unknown option '--max-turn' (did you mean '--max-turns'?)"],
  ] as const)('%j', async (args, said) => {
    const { code, err, dir } = await cli([...args]);
    expect(code).toBe(2);
    expect(err).toContain(said);
    expect(debris(dir)).toEqual([]);
  });
});
