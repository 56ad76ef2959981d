/**
 * Verifiers in the rootfs sandbox, for real: layer-2 checks (exit code, a file newer than the check's
 * start, output patterns, a port answered by a server the check started — python3 is in the toolchain
 * layer), the run probe on a crashing binary compiled in the sandbox, and whole runs whose scripted strategy
 * claims SUCCESS early or is overturned by a hidden spec; then `buildbench verify` re-enters the kept tree.
 * Kept small: the machine is shared. Skipped where the rootfs sandbox cannot run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Action, Strategy, TurnContext } from '../../src/agent/types.js';
import { run } from '../../src/cli/main.js';
import type { BuildResult } from '../../src/report/result.js';
import { runBuild } from '../../src/core/run-build.js';
import type { VerifyReport } from '../../src/core/run-verify.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { createRootfsSandbox, type RootfsSandbox } from '../../src/sandbox/rootfs.js';
import type { CreateSandboxRequest, ExecOptions, Sandbox, SandboxSettings } from '../../src/sandbox/types.js';
import { runSpec } from '../../src/verify/layer2.js';
import { probeExecutables } from '../../src/verify/probes.js';
import { parseSpec } from '../../src/verify/spec.js';
import {
  hostMountsUnder,
  makeFixtureRepo,
  rootfsUnavailableReason,
  sandboxTestSettings,
} from '../helpers/sandbox.js';

const unavailable = await rootfsUnavailableReason();
if (unavailable) console.warn(`skipping the rootfs verifier tests: ${unavailable}`);
const describeRootfs = unavailable ? describe.skip : describe;
const settings = sandboxTestSettings('rootfs');
const temps: string[] = [];

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  expect(hostMountsUnder(settings.workRoot)).toEqual([]);
});

describeRootfs('layer-2 checks and probes in the rootfs sandbox', () => {
  let sandbox: RootfsSandbox;
  const port = 20000 + Math.floor(Math.random() * 20000);

  beforeAll(async () => {
    const repo = await makeFixtureRepo();
    temps.push(repo);
    await writeFile(path.join(repo, 'src/crash.c'), 'int main(void) { volatile int *p = 0; return *p; }\n');
    sandbox = await createRootfsSandbox(settings, { repoDir: repo, name: 'verify-int' });
    const built = await sandbox.exec(
      'mkdir -p build && cc -o build/hello src/hello.c && cc -o build/crash src/crash.c',
      {
        timeoutMs: 120_000,
      },
    );
    expect(built.exitCode).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.dispose();
  });

  it('judges exit code, a new file, output patterns and a port answered by a background server', async () => {
    const spec = parseSpec(
      [
        'checks:',
        '  - name: runs',
        '    command: ./build/hello > out.txt; cat out.txt; echo done >&2',
        '    expect:',
        '      exit_code: 0',
        "      stdout: '^hello$'",
        "      stderr: '^done$'",
        "      output_not: 'Segmentation'",
        '      files: [{ path: out.txt, non_empty: true, newer_than_start: true }, { path: src/hello.c, newer_than_start: true }]',
        '  - name: serves',
        `    command: python3 -m http.server ${port} --bind 127.0.0.1 & sleep 0.3; echo started`,
        `    expect: { exit_code: 0, stdout: started, port: { port: ${port}, within: 30s } }`,
        '  - name: wrong exit',
        '    command: ./build/crash',
      ].join('\n'),
      'int.yml',
    );
    const result = await runSpec(spec, sandbox);
    expect(result.checks.map((c) => [c.name, c.passed])).toEqual([
      ['runs', false],
      ['serves', true],
      ['wrong exit', false],
    ]);
    expect(result.checks[0]?.detail).toBe('src/hello.c was not written during the check');
    expect(result.checks[1]?.detail).toMatch(
      /^exit 0; stdout matches \/started\/; port \d+ on 127\.0\.0\.1 answered after [0-9.]+ s$/,
    );
    expect(result.checks[2]?.detail).toMatch(/^exit code 139, expected 0/);
  }, 120_000);

  it('catches a crashing executable with the run probe', async () => {
    const results = await probeExecutables(sandbox, ['build/hello', 'build/crash']);
    expect(results.map((r) => [r.path, r.passed])).toEqual([
      ['build/hello', true],
      ['build/crash', false],
    ]);
    expect(results[1]?.detail).toMatch(/^--version: crashed \(killed by SIGSEGV, exit 139\)/);
  }, 120_000);

  it('tells a program that keeps running (it started) by the time the probe measured', async () => {
    const made = await sandbox.exec(
      "printf '#!/bin/sh\\nexec sleep 30\\n' > build/server && chmod +x build/server",
      { timeoutMs: 30_000 },
    );
    expect(made.exitCode).toBe(0);
    const results = await probeExecutables(sandbox, ['build/server', 'build/hello'], { timeoutMs: 1000 });
    expect(results.map((r) => [r.path, r.passed, r.detail])).toEqual([
      ['build/server', true, '--version: still running after 1 s (stopped); it started'],
      ['build/hello', true, expect.stringMatching(/^--version exited/)],
    ]);
  }, 120_000);
});

/** Plays the given actions in order, repeating the last one. */
class Scripted implements Strategy {
  readonly name = 'scripted';
  constructor(private readonly actions: Action[]) {}
  next(context: TurnContext): Promise<Action> {
    return Promise.resolve(this.actions[Math.min(context.turn, this.actions.length - 1)]!);
  }
}

const runScript = (script: string): Action => ({ kind: 'run', script, purpose: 'scripted', reason: 'test' });
const claimSuccess: Action = { kind: 'finish', claim: 'success', reason: 'I think it built' };

function buildSettings(repo: string, overrides: Partial<BuildSettings>): BuildSettings {
  const out = mkdtempSync(path.join(tmpdir(), 'bb-verify-int-out-'));
  temps.push(out);
  return {
    source: repo,
    outDir: out,
    strategy: 'rules',
    maxTurns: 3,
    timeoutMs: 10 * 60_000,
    turnTimeoutMs: 5 * 60_000,
    expect: ['hello'],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
    ...overrides,
  };
}

const readResult = (outDir: string): BuildResult =>
  JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8')) as BuildResult;

describeRootfs('the stop-gate and the audit in result.json', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
    temps.push(repo);
  });

  it('a strategy that claims SUCCESS before the verifiers pass ends FAILED, with the failing checks and a wrong self-stop', async () => {
    const s = buildSettings(repo, {});
    const strategy = new Scripted([claimSuccess, runScript('cc -c -o hello.o src/hello.c'), claimSuccess]);
    const result = await runBuild(s, { strategy });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /^the strategy claimed success \(turn 2\) but the verifiers did not pass: artifact hello: not produced \(cli\)/,
    );
    expect(result.claim).toMatchObject({ claim: 'success', turn: 2 });
    expect(result.metrics).toEqual({ completion: false, strict: false, flexible: false });
    const written = readResult(s.outDir);
    expect(written.verification).toMatchObject({
      passed: false,
      checks: [
        {
          name: 'artifact hello',
          passed: false,
          detail: 'not produced (cli)',
          source: 'artifacts',
          required: true,
        },
      ],
      selfStop: { claimed: 'success', verdict: 'failed', wrong: true, refused: 2 },
    });
    expect(written.verification?.selfStop.claims.map((c) => [c.turn, c.accepted])).toEqual([
      [0, false],
      [2, false],
    ]);
  }, 300_000);

  it('a hidden spec turns success into partial; buildbench verify re-runs it in the kept rootfs tree', async () => {
    const specDir = mkdtempSync(path.join(tmpdir(), 'bb-verify-int-spec-'));
    temps.push(specDir);
    const spec = path.join(specDir, 'hidden.yml');
    writeFileSync(
      spec,
      "hidden: true\nchecks:\n  - { name: greets, command: ./hello, expect: { stdout: '^hello, world$' } }\n",
    );
    const s = buildSettings(repo, { spec, keep: true, maxTurns: 2 });
    const strategy = new Scripted([runScript('cc -o hello src/hello.c'), claimSuccess]);
    const result = await runBuild(s, { strategy });
    const keptBuildDir = path.dirname(result.sandbox.keptWorkdir ?? '/nonexistent/workspace');
    temps.push(keptBuildDir);
    expect(result.status).toBe('partial');
    expect(result.reason).toMatch(
      /final verification failed: spec: greets: stdout has no match for \/\^hello, world\$\//,
    );
    expect(result.verification).toMatchObject({
      passed: false,
      spec: { file: spec, hidden: true, checks: 1 },
      selfStop: { claimed: null, verdict: 'failed', wrong: false },
    });
    const checks = result.verification?.checks.map((c) => [c.name, c.passed, c.required, c.hidden ?? false]);
    expect(checks).toEqual([
      ['artifact hello', true, true, false],
      ['spec: greets', false, true, true],
      ['probe run hello', true, false, false],
    ]);
    expect(result.files.snapshot).toBe('snapshot.json.gz');

    // the kept tree, checked again: the recorded spec is reused and run in the kept rootfs sandbox
    const out: string[] = [];
    const io = {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => out.push(t),
      env: process.env,
      cwd: process.cwd(),
    };
    expect(await run(['verify', s.outDir, '--json'], io)).toBe(1);
    const report = JSON.parse(out.join('')) as VerifyReport;
    expect(report).toMatchObject({
      mode: 'out-dir',
      baseline: 'snapshot',
      execution: 'rootfs',
      passed: false,
    });
    expect(report.artifacts.map((a) => a.path)).toEqual(['hello']);
    expect(report.verification.checks.find((c) => c.name === 'spec: greets')?.detail).toMatch(
      /stdout has no match/,
    );
    // a corrected spec passes
    const fixed = path.join(specDir, 'fixed.yml');
    await mkdir(specDir, { recursive: true });
    writeFileSync(fixed, "checks:\n  - { name: greets, command: ./hello, expect: { stdout: '^hello$' } }\n");
    out.length = 0;
    expect(await run(['verify', s.outDir, '--spec', fixed], io)).toBe(0);
    expect(out.join('')).toMatch(/PASS: all 2 required checks passed/);
  }, 600_000);
});

/** `createSandbox`, with every command the run's sandboxes run recorded (its first line, and its epilogue). */
function countingSandboxes(commands: { first: string; epilogue: boolean }[]) {
  return async (settings: SandboxSettings, request: CreateSandboxRequest): Promise<Sandbox> => {
    const box = await createSandbox(settings, request);
    return new Proxy(box, {
      get(target, property) {
        if (property === 'exec')
          return (script: string, options: ExecOptions) => {
            commands.push({ first: script.split('\n')[0]!, epilogue: options.epilogue !== undefined });
            return target.exec(script, options);
          };
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}

describeRootfs("the advisory run probe on the last turn's command", () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
    temps.push(repo);
  });

  it('starts the built program in the epilogue of the turn that built it: no command of its own', async () => {
    const commands: { first: string; epilogue: boolean }[] = [];
    const s = buildSettings(repo, { maxTurns: 1 });
    const strategy = new Scripted([runScript('mkdir -p build && cc -o build/hello src/hello.c')]);
    const result = await runBuild(s, { strategy }, { createSandbox: countingSandboxes(commands) });
    expect(result.status).toBe('success');
    const probes = result.verification?.checks.filter((c) => c.source === 'probe');
    expect(probes?.map((c) => [c.name, c.passed, c.required, c.detail])).toEqual([
      ['probe run build/hello', true, false, '--version exited 0: hello'],
    ]);
    // The turn's command carried the probe; no probe command of its own ran (a set-up command of a fresh
    // machine, the package state once per stack of layers, may be among them).
    expect(commands.filter((c) => c.first === 'mkdir -p build && cc -o build/hello src/hello.c')).toEqual([
      { first: 'mkdir -p build && cc -o build/hello src/hello.c', epilogue: true },
    ]);
    expect(commands.filter((c) => c.first === 'set +e')).toEqual([]);
  }, 300_000);

  it('probes with a command of its own when the last script failed (no epilogue ran) but the binary is there', async () => {
    const commands: { first: string; epilogue: boolean }[] = [];
    const s = buildSettings(repo, { maxTurns: 1 });
    const strategy = new Scripted([runScript('cc -o hello src/hello.c; exit 3')]);
    const result = await runBuild(s, { strategy }, { createSandbox: countingSandboxes(commands) });
    // the binary is there, but a script that exited 3 is no success (issue 31): the one turn was the last, and
    // the turn limit that ended the run after it is said as PARTIAL with that reason
    expect(result.status).toBe('partial');
    expect(result.reason).toContain('exited 3 after them');
    const probes = result.verification?.checks.filter((c) => c.source === 'probe');
    expect(probes?.map((c) => [c.name, c.passed])).toEqual([['probe run hello', true]]);
    expect(commands.filter((c) => c.first === 'cc -o hello src/hello.c; exit 3')).toEqual([
      { first: 'cc -o hello src/hello.c; exit 3', epilogue: true },
    ]);
    expect(commands.filter((c) => c.first === 'set +e')).toEqual([{ first: 'set +e', epilogue: false }]);
  }, 300_000);
});
