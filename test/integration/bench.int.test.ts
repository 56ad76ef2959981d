/**
 * `buildbench bench` end to end in the rootfs sandbox: the fixture suite (tasks/fixtures) twice per task, two
 * at a time, through the real engine; and a benchmark killed with SIGKILL mid-suite (the CLI as a child
 * process in its own process group, killed whole), then resumed: the finished run is not redone, the cut-off
 * one is, and what the killed process left (its sandbox's work folder, its checkout, its lock) does not get in
 * the way.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { BenchManifest, RunRecord } from '../../src/bench/types.js';
import { runBenchmark } from '../../src/core/run-bench.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import {
  eventually,
  hostMountsUnder,
  hostProcessesWith,
  rootfsUnavailableReason,
} from '../helpers/sandbox.js';

const repoRoot = path.resolve('.');
const dir = mkdtempSync(path.join(tmpdir(), 'bb-int-bench-'));
afterAll(() => {
  spawnSync('rm', ['-rf', '--one-file-system', '--', dir]);
});

const unavailable = await rootfsUnavailableReason();
if (unavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
  throw new Error(`BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${unavailable}`);
}
const describeRootfs = unavailable ? describe.skip : describe;

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

const gitIn = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
const makeRepo = (name: string, from: string | undefined, makefile?: string): string => {
  const repo = path.join(dir, name);
  if (from) cpSync(from, repo, { recursive: true });
  else mkdirSync(repo);
  if (makefile) writeFileSync(path.join(repo, 'Makefile'), makefile);
  gitIn(repo, 'init', '--quiet', '--initial-branch=main');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'fixture');
  return repo;
};

describeRootfs('buildbench bench (rootfs sandbox, rules strategy)', () => {
  afterAll(() => {
    expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
  });

  it('runs the fixture suite twice per task, two at a time, each run a full build folder', async () => {
    const out = path.join(dir, 'fixtures');
    const outcome = await runBenchmark({
      tasks: [path.join(repoRoot, 'tasks/fixtures')],
      outDir: out,
      runs: 2,
      concurrency: 2,
      resume: false,
      build: {
        strategy: 'rules',
        maxTurns: 6,
        timeoutMs: 10 * 60_000,
        turnTimeoutMs: 5 * 60_000,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
        secretEnv: [],
      },
    });
    expect(outcome).toMatchObject({ ran: 10, skipped: 0, cut: 0, cancelled: false });
    const byTask = new Map<string, string[]>();
    for (const r of outcome.records) byTask.set(r.task.id, [...(byTask.get(r.task.id) ?? []), r.status]);
    expect(Object.fromEntries(byTask)).toEqual({
      'broken-c': ['failed', 'failed'],
      'cmake-hello': ['success', 'success'],
      'make-hello': ['success', 'success'],
      'undefined-libm': ['success', 'success'],
      'werror-newer-gcc': ['success', 'success'],
    });
    for (const record of outcome.records) {
      const runDir = path.join(out, 'runs', record.task.id, String(record.run));
      for (const file of ['run.json', 'result.json', 'trajectory.jsonl', 'RUNBOOK.md']) {
        expect(existsSync(path.join(runDir, file))).toBe(true);
      }
      expect(readdirSync(path.join(runDir, 'logs')).length).toBeGreaterThan(0);
      const result = readJson<BuildResult>(path.join(runDir, 'result.json'));
      expect(result.status).toBe(record.status);
      expect(result.expected.names).toEqual(record.task.expected);
    }
    // The leaderboard a person reads: strict 80% (broken-c fails), pass@2 per task, the chart beside it.
    const markdown = readFileSync(path.join(out, 'leaderboard.md'), 'utf8');
    expect(markdown).toMatch(/\| rules \| 10 \| 80% \| 80% \| 80% \|/);
    expect(markdown).toMatch(/\| broken-c \| 2 \|/);
    expect(readFileSync(path.join(out, 'leaderboard.svg'), 'utf8')).toMatch(/^<svg/);
    expect(readJson<BenchManifest>(path.join(out, 'bench.json'))).toMatchObject({
      runs: 2,
      state: 'complete',
    });
  }, 600_000);

  it('resumes a benchmark killed with SIGKILL mid-suite: the finished run is kept, the cut-off one redone', async () => {
    const marker = 'sleep 15.37';
    const quick = makeRepo('quick', path.join(repoRoot, 'test/fixtures/repos/make-hello'));
    const slow = makeRepo(
      'slow',
      undefined,
      `slow:\n\t${marker}\n\tprintf 'int main(void){return 0;}\\n' > slow.c\n\tcc -o slow slow.c\n`,
    );
    const tasks = path.join(dir, 'kill-tasks');
    mkdirSync(tasks);
    const quickCommit = gitIn(quick, 'rev-parse', 'HEAD');
    writeFileSync(
      path.join(tasks, 'a-quick.yml'),
      `kind: build\nrepository: { source: ${quick}, commit: ${quickCommit} }\nexpected: [hello]\nbudgets: { maxTurns: 3, timeout: 5m }\n`,
    );
    writeFileSync(
      path.join(tasks, 'b-slow.yml'),
      `kind: build\nrepository: { source: ${slow}, branch: main }\nexpected: [slow]\nbudgets: { maxTurns: 3, timeout: 5m }\n`,
    );
    const out = path.join(dir, 'killed');
    const workRoot = path.join(dir, 'work');
    const env = {
      ...process.env,
      BUILDBENCH_WORK_DIR: workRoot,
      BUILDBENCH_BUILD_CACHE: 'off',
      NODE_OPTIONS: '',
    };
    const cli = (...extra: string[]): string[] => [
      '--import',
      'tsx',
      path.join(repoRoot, 'src/cli/index.ts'),
      'bench',
      tasks,
      '--sandbox',
      'rootfs',
      '--concurrency',
      '2',
      '--out',
      out,
      // The task files' repositories are beside their folder, not inside it: allowed explicitly.
      '--repos-dir',
      dir,
      ...extra,
    ];
    const log = openSync(path.join(dir, 'killed.log'), 'w');
    const first = spawn(process.execPath, cli(), {
      cwd: repoRoot,
      env,
      stdio: ['ignore', log, log],
      detached: true,
    });
    const quickRun = path.join(out, 'runs', 'a-quick', '1');
    const slowRun = path.join(out, 'runs', 'b-slow', '1');
    const quickDone = await eventually(() => existsSync(path.join(quickRun, 'run.json')), 180_000);
    expect(quickDone).toBe(true);
    // The slow run is mid-build: its folder is there, its run.json is not. (On a loaded machine its harness may
    // still be before its first script when the quick run ends: it is waited for, not assumed.)
    expect(await eventually(() => hostProcessesWith(marker).length > 0, 60_000)).toBe(true);
    expect(existsSync(slowRun)).toBe(true);
    expect(existsSync(path.join(slowRun, 'run.json'))).toBe(false);
    process.kill(-first.pid!, 'SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await eventually(() => hostProcessesWith(marker).length === 0, 10_000);
    expect(readJson<BenchManifest>(path.join(out, 'bench.json')).state).toBe('running');
    expect(readdirSync(workRoot).length).toBeGreaterThan(0); // the killed sandbox's folder is still there
    expect(existsSync(path.join(out, '.work', 'checkouts', 'b-slow'))).toBe(true);

    const kept = ['run.json', 'result.json'].map((f) => {
      const file = path.join(quickRun, f);
      return { file, text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs };
    });
    const again = spawnSync(process.execPath, cli('--resume'), {
      cwd: repoRoot,
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect({ status: again.status, stderr: again.stderr }).toMatchObject({ status: 0 });
    expect(again.stdout).toMatch(/2\/2 done \(1 now, 1 before\)/);
    expect(again.stderr).toMatch(/2 runs \(1 already done\)/);
    for (const { file, text, mtime } of kept) {
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(statSync(file).mtimeMs).toBe(mtime);
    }
    const redone = readJson<RunRecord>(path.join(slowRun, 'run.json'));
    expect(redone).toMatchObject({ status: 'success', repository: { branch: 'main' } });
    expect(readJson<BenchManifest>(path.join(out, 'bench.json')).state).toBe('complete');
    expect(readdirSync(workRoot)).toEqual([]); // the killed run's sandbox folder was swept, the new ones removed
    expect(existsSync(path.join(out, '.work', 'checkouts', 'b-slow'))).toBe(false);
    expect(existsSync(path.join(out, '.lock'))).toBe(false);
  }, 600_000);

  it('cancels on SIGINT: the cut-off build is stopped through the engine, leaves no run.json, exit 130', async () => {
    const marker = 'sleep 16.41';
    const slow = makeRepo('slow-int', undefined, `slow:\n\t${marker}\n\ttouch slow\n`);
    const tasks = path.join(dir, 'int-tasks');
    mkdirSync(tasks);
    writeFileSync(
      path.join(tasks, 'slow.yml'),
      `kind: build\nrepository: ${slow}\nexpected: [slow]\nbudgets: { maxTurns: 2, timeout: 5m }\n`,
    );
    const out = path.join(dir, 'interrupted');
    const env = { ...process.env, BUILDBENCH_BUILD_CACHE: 'off', NODE_OPTIONS: '' };
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'src/cli/index.ts'),
        'bench',
        tasks,
        '--sandbox',
        'rootfs',
        '--out',
        out,
        '--repos-dir',
        dir,
      ],
      { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(await eventually(() => hostProcessesWith(marker).length > 0, 180_000)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(hostProcessesWith(marker)).toEqual([]);
    expect(stderr).toMatch(/SIGINT received — stopping the running builds/);
    expect(stderr).toMatch(/slow #1 cut off \(resume redoes it\)/);
    expect(stdout).toMatch(/--out .* --resume/);
    const runDir = path.join(out, 'runs', 'slow', '1');
    expect(existsSync(path.join(runDir, 'result.json'))).toBe(true); // the engine wrote its cancelled result
    expect(readJson<BuildResult>(path.join(runDir, 'result.json')).status).toBe('cancelled');
    expect(existsSync(path.join(runDir, 'run.json'))).toBe(false);
    expect(readJson<BenchManifest>(path.join(out, 'bench.json')).state).toBe('cancelled');
  }, 300_000);
});
