import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import { checkBuildResult, readBuildResult } from '../../../src/report/result.js';
import { fakeResult } from '../../fakes/build-result.js';

const GOLDEN = path.resolve('test/fixtures/golden');

function file(content: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-result-'));
  const at = path.join(dir, 'result.json');
  writeFileSync(at, content);
  return at;
}

describe('readBuildResult', () => {
  it('reads the results buildbench writes, with every field a reader may require', async () => {
    for (const dir of ['success', 'partial', 'failed']) {
      const result = await readBuildResult(path.join(GOLDEN, dir, 'result.json'), {
        command: 'report',
        require: ['status', 'metrics', 'expected', 'artifacts'],
      });
      expect(result.schema).toBe('buildbench.result/v1');
      expect(result.status).toBe(dir);
    }
    const fake = fakeResult();
    expect(checkBuildResult(JSON.parse(JSON.stringify(fake)), 'r.json')).toEqual(fake);
  });

  it('names the command and the file when it cannot be read or is not JSON', async () => {
    const missing = path.join(tmpdir(), 'bb-result-none', 'result.json');
    await expect(readBuildResult(missing, { command: 'verify' })).rejects.toThrow(ConfigError);
    await expect(readBuildResult(missing, { command: 'verify' })).rejects.toThrow(
      `verify: cannot read ${missing} (`,
    );
    const broken = file('{');
    await expect(readBuildResult(broken, { command: 'report' })).rejects.toThrow(
      new RegExp(`^report: ${broken} is not valid JSON \\(`),
    );
    await expect(readBuildResult(broken)).rejects.toThrow(new RegExp(`^${broken} is not valid JSON`));
  });

  it('names the field of the wrong shape, checking optional parts only when present', () => {
    const base = { schema: 'buildbench.result/v1', sandbox: { kind: 'rootfs' } };
    expect(checkBuildResult(base, 'r.json')).toEqual(base);
    const cases: [unknown, RegExp][] = [
      [{ ...base, status: 'fine' }, /^r\.json: status is the string "fine"; expected one of success, /],
      [{ ...base, metrics: { completion: true, strict: 1 } }, /^r\.json: metrics\.strict is the number 1; /],
      [{ ...base, metrics: [] }, /^r\.json: metrics is a list; expected an object/],
      [{ ...base, artifacts: [1] }, /^r\.json: artifacts is a list; expected a list of binaries/],
      [{ ...base, artifacts: {} }, /^r\.json: artifacts is an object; expected a list of binaries/],
      [
        { ...base, files: { trajectory: 3 } },
        /^r\.json: files\.trajectory is the number 3; expected a string/,
      ],
      [{ ...base, expected: { names: [], source: 2 } }, /^r\.json: expected\.source is the number 2/],
    ];
    for (const [value, message] of cases) {
      expect(() => checkBuildResult(value, 'r.json')).toThrow(ConfigError);
      expect(() => checkBuildResult(value, 'r.json')).toThrow(message);
    }
  });

  it('requires what the reader asks for', () => {
    const base = { schema: 'buildbench.result/v1', sandbox: { kind: 'rootfs' } };
    const need =
      (field: 'status' | 'metrics' | 'expected' | 'artifacts'): (() => unknown) =>
      () =>
        checkBuildResult(base, 'out/result.json', { command: 'report', require: [field] });
    expect(need('status')).toThrow(/^report: out\/result\.json: status is missing; expected one of /);
    expect(need('metrics')).toThrow(/^report: out\/result\.json: metrics is missing; expected an object/);
    expect(need('expected')).toThrow(/^report: out\/result\.json: expected is missing; expected an object/);
    expect(need('artifacts')).toThrow(/^report: out\/result\.json: artifacts is missing; expected a list/);
  });
});
