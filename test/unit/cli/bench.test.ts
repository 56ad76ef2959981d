import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  BENCH_HELP,
  defaultBenchFolder,
  parseBenchArgs,
  renderBenchSummary,
} from '../../../src/cli/bench.js';
import type { BenchmarkOutcome } from '../../../src/core/run-bench.js';
import { run } from '../../../src/cli/main.js';

const io = { env: { BUILDBENCH_BUILD_CACHE: 'off' }, cwd: '/home/me' };

function capture(): { io: Parameters<typeof run>[1] & object; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: io.env, cwd: process.cwd() },
    out,
    err,
  };
}

describe('parseBenchArgs', () => {
  it('defaults: one run, one at a time, a new timestamped folder under ./buildbench-out, rules', () => {
    const s = parseBenchArgs(['tasks/fixtures'], io, new Date('2026-12-01T15:04:05.678Z'));
    expect(s).toMatchObject({
      tasks: ['/home/me/tasks/fixtures'],
      outDir: '/home/me/buildbench-out/bench-2026-12-01T15-04-05Z',
      runs: 1,
      concurrency: 1,
      resume: false,
      json: false,
      build: { strategy: 'rules', maxTurns: 10, timeoutMs: 3_600_000, sandbox: { choice: 'auto' } },
    });
    expect(s.reposDir).toBeUndefined();
  });

  it('reads the bench flags and the build flags it shares with build', () => {
    const s = parseBenchArgs(
      [
        'a.yml',
        'dir',
        '--runs',
        '3',
        '--concurrency',
        '2',
        '--out',
        'o',
        '--resume',
        '--repos-dir',
        '/m',
        '--sandbox',
        'rootfs',
        '--max-turns',
        '4',
        '--timeout',
        '20m',
        '--network',
        'none',
        '--json',
      ],
      io,
    );
    expect(s).toMatchObject({
      tasks: ['/home/me/a.yml', '/home/me/dir'],
      outDir: '/home/me/o',
      runs: 3,
      concurrency: 2,
      resume: true,
      reposDir: '/m',
      json: true,
      build: { maxTurns: 4, timeoutMs: 1_200_000, sandbox: { choice: 'rootfs', network: 'none' } },
    });
  });

  it.each([
    [[], /missing <task files or dirs…>/],
    [['t', '--resume'], /--resume needs --out/],
    [['t', '--runs', '0'], /--runs: '0' is not valid/],
    [['t', '--concurrency', 'many'], /--concurrency: 'many' is not valid/],
    [['t', '--strategy', 'llm'], /--strategy: 'llm' needs a model/],
    [['t', '--expect', 'x'], /unknown option '--expect'/],
  ])('%j is a configuration error', (args, message) => {
    expect(() => parseBenchArgs(args, io)).toThrow(message);
  });

  it('names folders so that they sort by time', () => {
    expect(defaultBenchFolder(new Date('2026-01-02T03:04:05Z'))).toBe('bench-2026-01-02T03-04-05Z');
  });
});

describe('buildbench bench (the CLI door)', () => {
  it('prints its help, saying what the exit status means', async () => {
    const c = capture();
    await expect(run(['bench', '--help'], c.io)).resolves.toBe(0);
    expect(c.out.join('')).toBe(BENCH_HELP);
    expect(BENCH_HELP).toMatch(/0 when the benchmark ran, whatever its builds did/);
    expect(BENCH_HELP).toMatch(/bench-<UTC date and time>/);
  });

  it('is listed in the general help', async () => {
    const c = capture();
    await run(['--help'], c.io);
    expect(c.out.join('')).toMatch(/buildbench bench <task files or dirs…>/);
  });

  it('exits 2 with one line for an existing benchmark folder without --resume, and for bad task files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-bench-'));
    const out = path.join(dir, 'out');
    mkdirSync(out);
    writeFileSync(
      path.join(out, 'bench.json'),
      JSON.stringify({ schema: 'buildbench.bench/v1', strategy: 'rules' }),
    );
    const c = capture();
    await expect(run(['bench', 'tasks/fixtures/make-hello.yml', '--out', out], c.io)).resolves.toBe(2);
    expect(c.err.join('')).toMatch(/^buildbench: --out: '.*' already holds a benchmark \(bench.json\)/);
    expect(c.err.join('')).toMatch(/--resume/);
    const bad = path.join(dir, 'bad.yml');
    writeFileSync(bad, 'kind: build\n');
    const c2 = capture();
    await expect(run(['bench', bad, '--out', path.join(dir, 'o2')], c2.io)).resolves.toBe(2);
    // The loader names the file relative to the working directory, wherever the checkout is.
    expect(c2.err.join('')).toContain(path.relative(process.cwd(), bad));
  });
});

describe('renderBenchSummary', () => {
  it('says where the folder is, the runs by status, each error, and how to resume a cancelled one', () => {
    const record = (id: string, run: number, status: string, error?: string) => ({
      schema: 'buildbench.run/v1' as const,
      task: { id, kind: 'build' as const },
      run,
      strategy: 'rules',
      startedAt: '',
      finishedAt: '',
      status,
      ...(error ? { error } : {}),
    });
    const outcome = {
      outDir: '/b',
      manifest: { runs: 2 },
      tasks: [{}, {}],
      records: [record('a', 1, 'success'), record('a', 2, 'failed'), record('b', 1, 'error', 'no mirror')],
      ran: 2,
      skipped: 1,
      cut: 1,
      cancelled: true,
    } as unknown as BenchmarkOutcome;
    expect(renderBenchSummary(outcome)).toBe(
      [
        'benchmark: /b',
        '  2 tasks × 2 runs: 3/4 done (2 now, 1 before), 1 not done',
        '  statuses: success 1, failed 1, error 1',
        '  error: b #1: no mirror',
        '  cancelled: continue with buildbench bench <the same tasks> --out /b --resume',
        '',
      ].join('\n'),
    );
  });
});
