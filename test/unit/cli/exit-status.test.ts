import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run, USAGE } from '../../../src/cli/main.js';
import { exitCodeFor } from '../../../src/cli/engine.js';
import { RUN_STATUSES } from '../../../src/base/status.js';
import { fakeResult } from '../../fakes/build-result.js';

describe('the exit status of buildbench build', () => {
  it('gives a sandbox error its own status, apart from a failed build', () => {
    const codes = Object.fromEntries(RUN_STATUSES.map((s) => [s, exitCodeFor(fakeResult({ status: s }))]));
    expect(codes).toEqual({
      success: 0,
      partial: 1,
      failed: 1,
      limits_exceeded: 1,
      stuck: 1,
      stalled: 1,
      sandbox_error: 3,
      provider_error: 1,
      cancelled: 130,
    });
    expect(USAGE.replace(/\s+/g, ' ')).toContain(
      'Exit status: 0 success, 1 partial or failed build, 2 usage or configuration error, 3 sandbox error',
    );
  });

  it('exits 3 when no Docker engine answers (the real engine, no docker on PATH)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-exit-'));
    mkdirSync(path.join(dir, 'repo'));
    writeFileSync(path.join(dir, 'repo', 'main.c'), 'int main(void) { return 0; }\n');
    const err: string[] = [];
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const code = await run(
        ['build', path.join(dir, 'repo'), '--sandbox', 'docker', '--out', path.join(dir, 'out')],
        { stdout: () => undefined, stderr: (t) => err.push(t), env: {}, cwd: dir },
      );
      expect(code).toBe(3);
    } finally {
      process.env.PATH = saved;
    }
    expect(err.join('')).toMatch(/SANDBOX_ERROR: no Docker engine answers `docker info`/);
  });
});
