import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../../src/cli/main.js';
import { summaryFor } from '../../../src/cli/engine.js';
import type { BuildResult } from '../../../src/report/result.js';

const GOLDEN = path.resolve('test/fixtures/golden');

describe('one terminal summary', () => {
  it.each(['success', 'partial', 'failed'])(
    '%s: buildbench build prints what buildbench report prints for the same folder',
    async (name) => {
      const dir = path.join(mkdtempSync(path.join(tmpdir(), 'bb-summary-')), name);
      cpSync(path.join(GOLDEN, name), dir, { recursive: true });
      const result = JSON.parse(readFileSync(path.join(dir, 'result.json'), 'utf8')) as BuildResult;
      const out: string[] = [];
      const io = { stdout: (t: string) => out.push(t), stderr: () => undefined, env: {}, cwd: '/' };
      expect(await run(['report', dir], io)).toBe(0);
      const printed = await summaryFor(result, dir);
      expect(printed).toBe(out.join(''));
      expect(printed).toMatch(new RegExp(`^${name.toUpperCase()}: `));
      expect(printed).toContain(`  runbook: ${path.join(dir, 'RUNBOOK.md')}\n`);
    },
  );

  it('a build whose trajectory is missing still prints its summary', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-summary-'));
    const result = JSON.parse(
      readFileSync(path.join(GOLDEN, 'failed', 'result.json'), 'utf8'),
    ) as BuildResult;
    const printed = await summaryFor(result, dir);
    expect(printed).toMatch(/^FAILED: /);
    expect(printed).toContain(`root cause (turn ${result.rootCause!.turn}): ${result.rootCause!.message}`);
  });
});
