import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  compilerFromOutput,
  replayOutcome,
  replayRecipe,
  REPLAY_DIR,
  type ReplayRequest,
} from '../../../src/finalize/replay.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import type { CreateSandboxRequest, ExecOptions, ExecResult, Sandbox } from '../../../src/sandbox/types.js';
import type { Artifact, Verdict } from '../../../src/verify/types.js';

/** A sandbox whose one exec returns what the test says. */
class ExecFake implements Sandbox {
  readonly kind = 'host' as const;
  readonly id = 'fake';
  readonly workdir = '/workspace';
  readonly image = 'debian:bookworm';
  readonly hostWorkdir = mkdtempSync(path.join(tmpdir(), 'bb-replay-exec-'));
  disposed = false;
  scripts: string[] = [];

  constructor(private readonly result: Partial<ExecResult>) {}

  exec(script: string, options: ExecOptions): Promise<ExecResult> {
    this.scripts.push(script);
    return Promise.resolve({
      exitCode: 0,
      timedOut: false,
      cancelled: false,
      durationMs: 61_400,
      output: '### buildbench: compiler: cc (Fake) 1.0\n',
      truncated: false,
      totalBytes: 40,
      ...(options.logPath ? { logPath: options.logPath } : {}),
      ...this.result,
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

const metrics = (ok: boolean): { artifacts: Artifact[]; verdict: Verdict } => ({
  artifacts: ok ? [{ path: 'hello', kind: 'executable', size: 10 }] : [],
  verdict: {
    passed: ok,
    metrics: {
      completion: ok,
      strict: ok,
      flexible: ok,
      matched: ok ? ['hello'] : [],
      missing: ok ? [] : ['hello'],
    },
    failures: ok ? [] : ["expected binary 'hello' was not produced"],
  },
});

function request(box: Sandbox, overrides: Partial<ReplayRequest> = {}): ReplayRequest {
  return {
    settings: { ...defaultSandboxSettings(), choice: 'host' },
    repoDir: '/nonexistent',
    name: 'hello',
    buildSh: '#!/bin/bash\nmake\n',
    files: [{ path: 'patches/0001-x.patch', content: 'diff\n' }],
    expected: { names: ['hello'], source: 'cli' },
    judge: () => Promise.resolve(metrics(true)),
    timeoutMs: 60_000,
    createSandbox: () => Promise.resolve(box),
    ...overrides,
  };
}

describe('replayRecipe', () => {
  it('places build.sh and the patches, runs it once and passes when the verifiers pass', async () => {
    const box = new ExecFake({});
    const result = await replayRecipe(request(box));
    expect(box.scripts).toEqual([`bash ${REPLAY_DIR}/build.sh .`]);
    expect(readFileSync(path.join(box.hostWorkdir, REPLAY_DIR, 'build.sh'), 'utf8')).toBe(
      '#!/bin/bash\nmake\n',
    );
    expect(readFileSync(path.join(box.hostWorkdir, REPLAY_DIR, 'patches/0001-x.patch'), 'utf8')).toBe(
      'diff\n',
    );
    expect(result).toMatchObject({
      status: 'passed',
      reason: 'build.sh built 1 binary in a fresh host sandbox and the verifiers passed',
      metrics: { completion: true, strict: true, flexible: true },
      compiler: 'cc (Fake) 1.0',
      artifacts: 1,
      image: 'debian:bookworm',
    });
    expect(box.disposed).toBe(true);
    expect(replayOutcome(result)).not.toHaveProperty('artifactList');
  });

  it('gives the replay’s sandbox the devices the run’s had (a GPU task’s GPU)', async () => {
    const asked: CreateSandboxRequest[] = [];
    const box = new ExecFake({});
    await replayRecipe(
      request(box, {
        devices: { gpu: true, kvm: false },
        createSandbox: (_settings, req) => {
          asked.push(req);
          return Promise.resolve(box);
        },
      }),
    );
    expect(asked[0]?.devices).toEqual({ gpu: true, kvm: false });
  });

  it('a replay that exits non-zero confirms nothing, even with every binary built (issue 31)', async () => {
    const failed = await replayRecipe(request(new ExecFake({ exitCode: 1 })));
    expect(failed).toMatchObject({ status: 'failed', reason: 'the verifiers passed but build.sh exited 1' });
  });

  it('names a timeout, failed verifiers, a cancellation and a sandbox that cannot start', async () => {
    expect(await replayRecipe(request(new ExecFake({ timedOut: true, exitCode: 124 })))).toMatchObject({
      status: 'failed',
      reason: 'build.sh was stopped after 61 s',
    });
    const unjudged = request(new ExecFake({ exitCode: 2 }), { judge: () => Promise.resolve(metrics(false)) });
    expect(await replayRecipe(unjudged)).toMatchObject({
      status: 'failed',
      reason: "build.sh exited 2 and the verifiers failed: expected binary 'hello' was not produced",
      missing: ['hello'],
    });
    const cancelled = new ExecFake({ cancelled: true, exitCode: 137 });
    expect(await replayRecipe(request(cancelled))).toMatchObject({
      status: 'error',
      reason: 'the replay was cancelled',
    });
    expect(cancelled.disposed).toBe(true);
    const broken = await replayRecipe(
      request(new ExecFake({}), { createSandbox: () => Promise.reject(new Error('no rootfs here')) }),
    );
    expect(broken).toMatchObject({
      status: 'error',
      reason: 'the replay could not run: no rootfs here',
      metrics: { completion: false, strict: false, flexible: false },
      artifactList: [],
    });
  });

  it('reads the compiler line build.sh prints', () => {
    expect(compilerFromOutput('x\n### buildbench: compiler: gcc (Debian 12.2.0-14) 12.2.0\ny')).toBe(
      'gcc (Debian 12.2.0-14) 12.2.0',
    );
    expect(compilerFromOutput('### buildbench: compiler:  \n')).toBeUndefined();
  });
});
