import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../../src/cli/main.js';
import { parseBuildArgs } from '../../../src/cli/build-command.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: {}, cwd: '/tmp' },
  };
}

describe('cli', () => {
  it('prints help with exit 0 and usage with exit 2 when no command is given', async () => {
    const a = io();
    expect(await run(['--help'], a.io)).toBe(0);
    expect(a.out.join('')).toMatch(/buildbench build <path\|git-url>/);
    const b = io();
    expect(await run([], b.io)).toBe(2);
  });

  it('rejects an unknown command with one line and exit 2', async () => {
    const a = io();
    expect(await run(['frobnicate'], a.io)).toBe(2);
    expect(a.err.join('')).toBe(
      "buildbench: unknown command 'frobnicate' (expected one of build, deploy, report, verify, bench, matrix, leaderboard, compare, diagnose) (see buildbench --help)\n",
    );
  });

  it('suggests the nearest command and flag for a typo (issue 33)', async () => {
    const a = io();
    expect(await run(['biuld', '.'], a.io)).toBe(2);
    expect(a.err.join('')).toBe(
      "buildbench: unknown command 'biuld' (did you mean 'build'?) (see buildbench --help)\n",
    );
    const b = io();
    expect(await run(['build', '.', '--max-turn', '3'], b.io)).toBe(2);
    expect(b.err.join('')).toContain("unknown option '--max-turn' (did you mean '--max-turns'?)");
    const c = io();
    expect(await run(['diagnose', 'x.log', '--jsn'], c.io)).toBe(2);
    expect(c.err.join('')).toContain("diagnose: unknown option '--jsn' (did you mean '--json'?)");
  });

  it('rejects unknown flags and bad values naming the flag', async () => {
    const a = io();
    expect(await run(['build', '.', '--bogus'], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/--bogus/);
    const b = io();
    expect(await run(['build', '.', '--sandbox', 'vm'], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(
      /--sandbox: 'vm' is not valid; expected one of auto, rootfs, docker, host/,
    );
    const c = io();
    expect(await run(['build'], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/missing <path\|git-url>/);
  });

  it('reports a missing path and a file that is not a directory with exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-'));
    const a = io();
    expect(await run(['build', path.join(dir, 'nope'), '--out', path.join(dir, 'out')], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/repository path '.*nope' does not exist/);
    writeFileSync(path.join(dir, 'file.txt'), 'x');
    const b = io();
    expect(await run(['build', path.join(dir, 'file.txt'), '--out', path.join(dir, 'out')], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/is not a directory/);
    expect(b.err.join('')).not.toMatch(/\n\s+at /);
  });

  it('reports an unreachable git URL with exit 2 and the reason git gave', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-'));
    const a = io();
    expect(await run(['build', `file://${dir}/no-such-repo.git`, '--out', path.join(dir, 'out')], a.io)).toBe(
      2,
    );
    expect(a.err.join('')).toMatch(
      /cannot clone 'file:\/\/.*no-such-repo\.git': .*expected a reachable git URL/s,
    );
    const last = a.err.join('').trim().split('\n').pop() ?? '';
    expect(last).toMatch(
      /^buildbench: cannot clone '.*': fatal: .*(does not appear to be a git repository|not found|does not exist)/,
    );
  });

  it('reports an unwritable output directory with exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-'));
    writeFileSync(path.join(dir, 'blocker'), 'x');
    const a = io();
    expect(await run(['build', dir, '--out', path.join(dir, 'blocker', 'out')], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/--out: cannot write to/);
  });

  it('builds one typed settings object with defaults', () => {
    const s = parseBuildArgs(['repo', '--expect', 'a,b', '--max-turns', '4', '--timeout', '10m'], {
      env: {},
      cwd: '/w',
    });
    expect(s).toMatchObject({
      source: 'repo',
      outDir: '/w/buildbench-out/repo',
      strategy: 'rules',
      maxTurns: 4,
      timeoutMs: 600_000,
      turnTimeoutMs: 600_000,
      expect: ['a', 'b'],
      keep: false,
      json: false,
    });
    expect(s.sandbox.choice).toBe('auto');
    expect(s.sandbox.allowHost).toBe(false);
    expect(parseBuildArgs(['r', '--sandbox', 'host'], { env: {}, cwd: '/w' }).sandbox.allowHost).toBe(true);
    expect(parseBuildArgs(['r', '--always-replay'], { env: {}, cwd: '/w' }).replay).toBe('always');
    expect(parseBuildArgs(['r'], { env: {}, cwd: '/w' }).replay).toBeUndefined();
    expect(parseBuildArgs(['r'], { env: { CI: 'true' }, cwd: '/w' }).sandbox.allowHost).toBe(true);
  });

  it('reads --network, --memory and --pids over the defaults, and names the flag when one is wrong', () => {
    const io = { env: {}, cwd: '/w' };
    const d = parseBuildArgs(['r'], io).sandbox;
    expect(d.network).toBeUndefined(); // isolated where the machine can give it
    expect(d.memoryBytes).toBeGreaterThan(0);
    expect(d.pids).toBe(16384);
    const s = parseBuildArgs(['r', '--network', 'host', '--memory', '1.5G', '--pids', '512'], io).sandbox;
    expect(s).toMatchObject({ network: 'host', memoryBytes: 1.5 * 1024 ** 3, pids: 512 });
    const off = parseBuildArgs(['r', '--memory', 'off', '--pids', 'off'], io).sandbox;
    expect(off).not.toHaveProperty('memoryBytes');
    expect(off).not.toHaveProperty('pids');
    expect(() => parseBuildArgs(['r', '--network', 'bridge'], io)).toThrow(/--network: 'bridge'/);
    expect(() => parseBuildArgs(['r', '--memory', '12'], io)).toThrow(/--memory: '12'/);
    expect(() => parseBuildArgs(['r', '--pids', '3'], io)).toThrow(
      /--pids: '3' is not valid; expected a whole number from 16/,
    );
  });

  it('takes --build-cache as a folder (relative to the working directory) or off', () => {
    const env = { HOME: '/h' };
    const cache = (args: string[], e: NodeJS.ProcessEnv = env): string | undefined =>
      parseBuildArgs(['r', ...args], { env: e, cwd: '/w' }).sandbox.buildCache;
    expect(cache([])).toBe('/h/.cache/buildbench/build-cache');
    expect(cache([], { ...env, BUILDBENCH_BUILD_CACHE: 'off' })).toBeUndefined();
    expect(cache(['--build-cache', 'bc'])).toBe('/w/bc');
    expect(cache(['--build-cache', '/abs/bc'], { ...env, BUILDBENCH_BUILD_CACHE: 'off' })).toBe('/abs/bc');
    expect(cache(['--build-cache', 'off'])).toBeUndefined();
    expect(() => cache(['--build-cache', 'a:b'])).toThrow(/--build-cache.*cannot be used as a sandbox mount/);
  });
});

describe('cli: an option where a value should be', () => {
  const oneLine = async (args: string[]): Promise<{ code: number; err: string }> => {
    const a = io();
    const code = await run(args, a.io);
    return { code, err: a.err.join('') };
  };

  it('gives a negative number to the flag, whose own check says what was expected', async () => {
    const cases: [string[], RegExp][] = [
      [['--timeout', '-5'], /^buildbench: --timeout: '-5' is not a duration; expected seconds/],
      [['--turn-timeout', '-1m'], /^buildbench: --turn-timeout: '-1m' is not a duration/],
      [['--max-turns', '-1'], /^buildbench: --max-turns: '-1' is not valid; expected a whole number/],
      [
        ['--model', 'openai:m', '--max-cost', '-0.5'],
        /^buildbench: --max-cost: '-0.5' is not valid; expected a positive amount in US dollars/,
      ],
    ];
    for (const [flags, expected] of cases) {
      const { code, err } = await oneLine(['build', '.', ...flags]);
      expect(code).toBe(2);
      expect(err).toMatch(expected);
      expect(err).not.toMatch(/ambiguous/);
      expect(err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('names the flag when an option or nothing follows it, for every flag that takes a value', async () => {
    for (const flag of [
      '--out',
      '--sandbox',
      '--strategy',
      '--expect',
      '--spec',
      '--model',
      '--build-cache',
    ]) {
      const { code, err } = await oneLine(['build', '.', flag, '-x']);
      expect(code).toBe(2);
      expect(err).toBe(
        `buildbench: ${flag}: expected a value, got '-x', which reads as an option (to pass a value that starts with '-', write ${flag}=-x)\n`,
      );
      const last = await oneLine(['build', '.', flag]);
      expect(last.code).toBe(2);
      expect(last.err).toBe(`buildbench: ${flag}: missing value (see buildbench build --help)\n`);
    }
    const json = await oneLine(['build', '.', '--out', '--json']);
    expect(json.err).toMatch(/^buildbench: --out: expected a value, got '--json'/);
  });

  it('takes a value that starts with a dash when written --flag=value', () => {
    const s = parseBuildArgs(['repo', '--out=-x', '--expect=-y'], { env: {}, cwd: '/w' });
    expect(s.outDir).toBe('/w/-x');
    expect(s.expect).toEqual(['-y']);
  });

  it('does the same for verify', async () => {
    const { code, err } = await oneLine(['verify', '.', '--spec', '--json']);
    expect(code).toBe(2);
    expect(err).toMatch(/^buildbench: verify: --spec: expected a value, got '--json'/);
  });
});
