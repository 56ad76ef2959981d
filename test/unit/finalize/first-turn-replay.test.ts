/**
 * The run's first turn as the recipe's replay (finalize.ts, `freshPassingTurn`): only when that turn was the
 * first script of the run's fresh sandbox, the only turn, passed, ended on its own and made no source edit;
 * then build.sh is its script byte for byte and no replay sandbox is made, and a tracked file its own steps
 * rewrote (no repair claims it) is no patch: build.sh rewrites it again. Otherwise the recipe is replayed in a
 * new sandbox as before.
 */
import { describe, expect, it } from '@jest/globals';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { TurnRecord } from '../../../src/agent/types.js';
import { finalizeRun, type FinalizeInput } from '../../../src/finalize/finalize.js';
import type { ExecResult, Sandbox } from '../../../src/sandbox/types.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { scriptRecipe } from './helpers.js';

const SCRIPT = 'set -eo pipefail\nmake -j"${BB_JOBS:-$(nproc)}"\n';

function runRecord(turn: number, passed: boolean, exitCode: number = passed ? 0 : 2): TurnRecord {
  return {
    turn,
    action: {
      kind: 'run',
      script: SCRIPT,
      purpose: 'make',
      reason: 'Makefile found',
      recipe: scriptRecipe(),
    },
    observation: {
      exec: { exitCode, timedOut: false, cancelled: false, durationMs: 10, truncated: false, totalBytes: 10 },
      output: '',
      findings: [],
      artifacts: passed ? [{ path: 'hello', kind: 'executable', size: 100 }] : [],
      verdict: {
        passed,
        metrics: passed
          ? { completion: true, strict: true, flexible: true, matched: ['hello'], missing: [] }
          : { completion: false, strict: false, flexible: false, matched: [], missing: ['hello'] },
        failures: passed ? [] : ['hello missing'],
      },
      logPath: '',
    },
    notes: [],
  };
}

function setup(history: TurnRecord[], overrides: Partial<FinalizeInput> = {}) {
  const base = mkdtempSync(path.join(tmpdir(), 'bb-first-turn-'));
  const original = path.join(base, 'repo');
  const work = path.join(base, 'work');
  mkdirSync(original);
  writeFileSync(path.join(original, 'Makefile'), 'hello: hello.c\n\t$(CC) -o hello hello.c\n');
  writeFileSync(path.join(original, 'hello.c'), 'int main(void) { return 0; }\n');
  cpSync(original, work, { recursive: true });
  copyFileSync('/bin/true', path.join(work, 'hello'));
  const outDir = path.join(base, 'out');
  mkdirSync(path.join(outDir, 'logs'), { recursive: true });
  for (const record of history) {
    if (record.observation) record.observation.logPath = path.join(outDir, 'logs', 'turn-00.log');
  }
  const made: string[] = [];
  const input: FinalizeInput = {
    outDir,
    repo: 'demo',
    originalDir: original,
    workDir: work,
    sandboxKind: 'rootfs',
    baseImage: 'debian:bookworm',
    sandboxSettings: { ...defaultSandboxSettings({ HOME: base }), choice: 'auto' },
    history,
    status: 'success',
    expected: { names: ['hello'], source: 'inferred' },
    version: '1.2.3',
    replayTimeoutMs: 60_000,
    firstTurnFresh: true,
    createSandbox: (_settings, request) => {
      made.push(request.name);
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-first-turn-replay-'));
      cpSync(request.repoDir, dir, { recursive: true });
      const box: Sandbox = {
        kind: 'rootfs',
        id: 'fake',
        workdir: '/workspace',
        image: 'debian:bookworm',
        hostWorkdir: dir,
        exec: (): Promise<ExecResult> => {
          copyFileSync('/bin/true', path.join(dir, 'hello'));
          return Promise.resolve({
            exitCode: 0,
            timedOut: false,
            cancelled: false,
            durationMs: 5,
            output: '',
            truncated: false,
            totalBytes: 0,
          });
        },
        describeLocation: () => dir,
        dispose: () => Promise.resolve(),
      };
      return Promise.resolve(box);
    },
    ...overrides,
  };
  return { input, made };
}

describe('the first turn as the replay', () => {
  it('writes build.sh as the turn’s script byte for byte and makes no replay sandbox', async () => {
    const { input, made } = setup([runRecord(0, true)], { hiddenVerified: true });
    const out = await finalizeRun(input);
    expect(made).toEqual([]);
    expect(out.recipe).toMatchObject({
      verified: true,
      mode: 'minimal',
      turn: 0,
      files: { buildSh: 'build.sh', dockerfile: 'Dockerfile', patches: [] },
      replay: {
        status: 'passed',
        reusedTurn: 0,
        durationMs: 0,
        exitCode: 0,
        artifacts: 1,
        hiddenVerifier: true,
        log: 'logs/turn-00.log',
        metrics: { completion: true, strict: true, flexible: true },
      },
    });
    expect(out.recipe!.replay.reason).toMatch(
      /^build\.sh is turn 0's script byte for byte;.*hidden verifier included/,
    );
    const buildSh = readFileSync(path.join(input.outDir, 'build.sh'), 'utf8');
    expect(buildSh.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(buildSh.endsWith(`cd "\${1:-.}" || exit 1\nset --\n${SCRIPT}`)).toBe(true);
  });

  it('a repair turn that ran first in a fresh sandbox stands as the replay too', async () => {
    const fresh = { ...runRecord(1, true), freshSandbox: true };
    fresh.observation!.output = '### buildbench: compiler: cc (Debian 12.2.0-14) 12.2.0\nbuilt\n';
    const { input, made } = setup([runRecord(0, false), fresh]);
    const out = await finalizeRun(input);
    // The compiler line the rendered turn script prints stands for the replay's.
    expect(out.recipe?.replay.compiler).toBe('cc (Debian 12.2.0-14) 12.2.0');
    expect(made).toEqual([]);
    expect(out.recipe).toMatchObject({
      verified: true,
      turn: 1,
      replay: { status: 'passed', reusedTurn: 1 },
    });
    expect(out.recipe!.replay.reason).toMatch(
      /^build\.sh is turn 1's script byte for byte; turn 1 ran it as the first script of a fresh/,
    );
    const buildSh = readFileSync(path.join(input.outDir, 'build.sh'), 'utf8');
    expect(buildSh).toContain('the script of turn 1, byte for byte');
    expect(buildSh.endsWith(`set --\n${SCRIPT}`)).toBe(true);
  });

  it.each<[string, TurnRecord[], Partial<FinalizeInput>]>([
    ['the sandbox was not fresh (or --always-replay)', [runRecord(0, true)], { firstTurnFresh: false }],
    ['an earlier turn failed', [runRecord(0, false), runRecord(1, true)], {}],
    [
      'the fresh turn is not the last one that ran',
      [runRecord(0, false), { ...runRecord(1, true), freshSandbox: true }, runRecord(2, false)],
      {},
    ],
    [
      'with --always-replay, even after a fresh turn',
      [runRecord(0, false), { ...runRecord(1, true), freshSandbox: true }],
      { firstTurnFresh: false },
    ],
    ['the turn was ended by a signal', [runRecord(0, true, 137)], {}],
  ])('replays in a new sandbox when %s', async (_why, history, overrides) => {
    const { input, made } = setup(history, overrides);
    const out = await finalizeRun(input);
    expect(made).toHaveLength(1);
    expect(out.recipe?.replay.reusedTurn).toBeUndefined();
    expect(out.recipe?.replay.status).toBe('passed');
    expect(readFileSync(path.join(input.outDir, 'build.sh'), 'utf8')).toContain(
      '# --- build: compile and link',
    );
  });

  it("keeps no patch of what the turn's own script rewrote (a configure that rewrites a committed file): build.sh redoes it", async () => {
    const { input, made } = setup([runRecord(0, true)]);
    writeFileSync(path.join(input.workDir!, 'Makefile'), 'hello: hello.c\n\tcc -O2 -o hello hello.c\n');
    const out = await finalizeRun(input);
    expect(out.patches).toHaveLength(0);
    expect(out.skipped).toEqual([
      { path: 'Makefile', why: expect.stringContaining("rewritten by the build's own steps") },
    ]);
    expect(existsSync(path.join(input.outDir, 'patches'))).toBe(false);
    expect(made).toHaveLength(0);
    expect(out.recipe?.replay.reusedTurn).toBe(0);
    expect(readFileSync(path.join(input.outDir, 'build.sh'), 'utf8')).not.toContain('applying');
  });

  it('replays in a new sandbox when the turn made a source edit (its patch is part of the recipe)', async () => {
    const record = runRecord(0, true);
    if (record.action.kind === 'run')
      record.action.patches = [{ file: 'hello.c', reason: 'a repair edits hello.c' }];
    const { input, made } = setup([record]);
    writeFileSync(path.join(input.workDir!, 'hello.c'), 'int main(void) { return 1; }\n');
    const out = await finalizeRun(input);
    expect(out.patches).toHaveLength(1);
    expect(out.patches[0]!.turn).toBe(0);
    expect(made).toHaveLength(1);
    expect(out.recipe?.replay.reusedTurn).toBeUndefined();
  });
});
