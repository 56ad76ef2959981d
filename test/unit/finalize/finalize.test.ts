import { describe, expect, it } from '@jest/globals';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { TurnRecord } from '../../../src/agent/types.js';
import { finalizeRun, type FinalizeInput } from '../../../src/finalize/finalize.js';
import { REPLAY_DIR } from '../../../src/finalize/replay.js';
import type {
  CreateSandboxRequest,
  ExecOptions,
  ExecResult,
  Sandbox,
  SandboxSettings,
} from '../../../src/sandbox/types.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { finding, scriptRecipe, turn } from './helpers.js';

/** A replay sandbox on this machine whose "build" is decided by the test from build.sh's text. */
class ReplayFake implements Sandbox {
  readonly kind = 'rootfs' as const;
  readonly id: string;
  readonly workdir = '/workspace';
  readonly image = 'debian:bookworm';
  readonly hostWorkdir: string;
  disposed = false;
  buildSh = '';
  patchFiles: string[] = [];

  constructor(
    repoDir: string,
    private readonly build: (buildSh: string) => boolean,
  ) {
    this.hostWorkdir = mkdtempSync(path.join(tmpdir(), 'bb-replay-fake-'));
    this.id = path.basename(this.hostWorkdir);
    cpSync(repoDir, this.hostWorkdir, { recursive: true });
  }

  exec(script: string, options: ExecOptions): Promise<ExecResult> {
    expect(script).toBe(`bash ${REPLAY_DIR}/build.sh .`);
    this.buildSh = readFileSync(path.join(this.hostWorkdir, REPLAY_DIR, 'build.sh'), 'utf8');
    const patches = path.join(this.hostWorkdir, REPLAY_DIR, 'patches');
    this.patchFiles = existsSync(patches) ? readdirSync(patches) : [];
    const ok = this.build(this.buildSh);
    if (ok) copyFileSync('/bin/true', path.join(this.hostWorkdir, 'hello'));
    const output = ok
      ? '### buildbench: compiler: cc (Fake) 1.0\n'
      : 'make: *** [Makefile:2: hello] Error 1\n';
    if (options.logPath) writeFileSync(options.logPath, output);
    return Promise.resolve({
      exitCode: ok ? 0 : 2,
      timedOut: false,
      cancelled: false,
      durationMs: 5,
      output,
      truncated: false,
      totalBytes: output.length,
      logPath: options.logPath,
    });
  }

  describeLocation(): string {
    return this.hostWorkdir;
  }

  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}

interface Setup {
  input: FinalizeInput;
  sandboxes: ReplayFake[];
  requests: { settings: SandboxSettings; request: CreateSandboxRequest }[];
}

function setup(build: (buildSh: string) => boolean, overrides: Partial<FinalizeInput> = {}): Setup {
  const base = mkdtempSync(path.join(tmpdir(), 'bb-finalize-'));
  const original = path.join(base, 'repo');
  const work = path.join(base, 'work');
  mkdirSync(original);
  writeFileSync(path.join(original, 'Makefile'), 'hello: hello.c\n\t$(CC) -o hello hello.c\n');
  writeFileSync(path.join(original, 'hello.c'), '#include <sys/sysctl.h>\nint main(void) { return 0; }\n');
  cpSync(original, work, { recursive: true });
  writeFileSync(path.join(work, 'hello.c'), '/* dropped */\nint main(void) { return 0; }\n');
  copyFileSync('/bin/true', path.join(work, 'hello'));
  const sandboxes: ReplayFake[] = [];
  const requests: Setup['requests'] = [];
  const history: TurnRecord[] = [
    {
      turn: 0,
      action: {
        kind: 'run',
        script: 'make',
        purpose: 'make',
        reason: 'Makefile found',
        recipe: scriptRecipe(),
      },
      observation: {
        exec: {
          exitCode: 2,
          timedOut: false,
          cancelled: false,
          durationMs: 10,
          truncated: false,
          totalBytes: 10,
        },
        output: '',
        findings: [],
        rootCause: finding('glibc-sysctl-removed', 'sys/sysctl.h was removed from glibc (2.32)'),
        artifacts: [],
        verdict: {
          passed: false,
          metrics: { completion: false, strict: false, flexible: false, matched: [], missing: ['hello'] },
          failures: [],
        },
      },
      notes: [],
    },
    {
      turn: 1,
      action: {
        kind: 'run',
        script: "sed -i '/sysctl/d' hello.c\nmake",
        purpose: 'make + guard-removed-glibc-header',
        reason: 'glibc 2.32 removed <sys/sysctl.h>',
        patches: [{ file: 'files including <sys/sysctl.h>', reason: 'glibc 2.32 removed <sys/sysctl.h>' }],
        recipe: scriptRecipe({ edits: ["sed -i '/sysctl/d' hello.c"] }),
      },
      observation: {
        exec: {
          exitCode: 0,
          timedOut: false,
          cancelled: false,
          durationMs: 10,
          truncated: false,
          totalBytes: 10,
        },
        output: '',
        findings: [],
        artifacts: [{ path: 'hello', kind: 'executable', size: 100 }],
        verdict: {
          passed: true,
          metrics: { completion: true, strict: true, flexible: true, matched: ['hello'], missing: [] },
          failures: [],
        },
      },
      notes: [],
    },
  ];
  const input: FinalizeInput = {
    outDir: path.join(base, 'out'),
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
    date: new Date('2025-01-01T00:00:00Z'),
    createSandbox: (settings, request) => {
      requests.push({ settings, request });
      const box = new ReplayFake(request.repoDir, build);
      sandboxes.push(box);
      return Promise.resolve(box);
    },
    ...overrides,
  };
  mkdirSync(input.outDir, { recursive: true });
  return { input, sandboxes, requests };
}

describe('finalizeRun', () => {
  it('writes the minimal recipe and its patches, replays it in a fresh sandbox of the same kind and verifies it', async () => {
    const { input, sandboxes, requests } = setup(() => true);
    writeFileSync(path.join(input.outDir, 'Dockerfile'), 'stale');
    const out = await finalizeRun(input);
    expect(out.patches).toEqual([
      {
        file: 'patches/0001-hello.c-glibc-2.32-removed-sys-sysctl.h.patch',
        paths: ['hello.c'],
        subject: 'hello.c: glibc 2.32 removed <sys/sysctl.h>',
        reason: 'glibc 2.32 removed <sys/sysctl.h>',
        turn: 1,
      },
    ]);
    expect(out.recipe).toMatchObject({
      verified: true,
      mode: 'minimal',
      fallback: false,
      turn: 1,
      baseImage: 'debian:bookworm',
      files: { buildSh: 'build.sh', dockerfile: 'Dockerfile', patches: [out.patches[0]!.file] },
      replay: {
        status: 'passed',
        metrics: { completion: true, strict: true, flexible: true },
        exitCode: 0,
        compiler: 'cc (Fake) 1.0',
        log: 'replay/minimal.log',
      },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.settings.choice).toBe('rootfs');
    expect(requests[0]!.request.repoDir).toBe(input.originalDir);
    expect(sandboxes[0]!.disposed).toBe(true);
    expect(sandboxes[0]!.patchFiles).toEqual([path.basename(out.patches[0]!.file)]);
    const buildSh = readFileSync(path.join(input.outDir, 'build.sh'), 'utf8');
    expect(sandboxes[0]!.buildSh).toBe(buildSh);
    expect(buildSh).not.toContain('sed -i'); // the edit is carried by the patch
    expect(readFileSync(path.join(input.outDir, 'Dockerfile'), 'utf8')).toMatch(
      /^ARG BASE_IMAGE=debian:bookworm$/m,
    );
    expect(existsSync(path.join(input.outDir, 'replay', 'minimal.log'))).toBe(true);
  });

  it('falls back to the full sequence when the minimal recipe fails its replay, and says so', async () => {
    const { input, sandboxes } = setup((buildSh) => buildSh.includes('# --- turn 0'));
    const out = await finalizeRun(input);
    expect(out.recipe).toMatchObject({
      verified: true,
      mode: 'full',
      fallback: true,
      replay: { status: 'passed', log: 'replay/full.log' },
      minimalReplay: { status: 'failed', exitCode: 2 },
      files: { patches: [] },
    });
    expect(out.recipe!.minimalReplay!.reason).toMatch(
      /build.sh exited 2 and the verifiers failed: expected binary 'hello'/,
    );
    expect(sandboxes).toHaveLength(2);
    expect(sandboxes[1]!.patchFiles).toEqual([]);
    expect(readFileSync(path.join(input.outDir, 'build.sh'), 'utf8')).toContain("sed -i '/sysctl/d' hello.c");
  });

  it('is unverified when both fail; a sandbox that cannot start is not retried', async () => {
    const both = await finalizeRun(setup(() => false).input);
    expect(both.recipe).toMatchObject({
      verified: false,
      mode: 'full',
      fallback: true,
      replay: { status: 'failed' },
    });

    const broken = setup(() => true, {
      createSandbox: () => Promise.reject(new Error('no rootfs here')),
    });
    const out = await finalizeRun(broken.input);
    expect(out.recipe).toMatchObject({
      verified: false,
      mode: 'minimal',
      fallback: false,
      replay: { status: 'error' },
    });
    expect(out.recipe!.replay.reason).toBe('the replay could not run: no rootfs here');
  });

  it('skips the replay when the wall-clock budget is spent', async () => {
    const { input, sandboxes } = setup(() => true, { deadline: Date.now() - 1 });
    const out = await finalizeRun(input);
    expect(out.recipe).toMatchObject({ verified: false, replay: { status: 'skipped' } });
    expect(sandboxes).toHaveLength(0);
  });

  it('collects only patches when the run did not succeed, and removes a stale recipe', async () => {
    const { input, sandboxes } = setup(() => true, { status: 'partial' });
    writeFileSync(path.join(input.outDir, 'build.sh'), 'stale');
    const out = await finalizeRun(input);
    expect(out.recipe).toBeUndefined();
    expect(out.patches).toHaveLength(1);
    expect(existsSync(path.join(input.outDir, 'build.sh'))).toBe(false);
    expect(sandboxes).toHaveLength(0);
  });

  it('keeps the source edits in build.sh when there is no working copy to diff', async () => {
    const { input } = setup(() => true, {
      workDir: undefined,
      history: [turn(0, { passed: true, recipe: scriptRecipe({ edits: ['sed -i s/a/b/ x.c'] }) })],
    });
    const out = await finalizeRun(input);
    expect(out.patches).toEqual([]);
    expect(readFileSync(path.join(input.outDir, 'build.sh'), 'utf8')).toContain('sed -i s/a/b/ x.c');
  });
});
