/**
 * The RUNBOOK of a deploy, DeployBench's shape, from real runs (test/fixtures/golden/deploy-*: the C example
 * to SUCCESS and the runtime-failure fixture to PARTIAL, rootfs sandbox, rules strategy), and the label rule:
 * SUCCESS only with the passing target and verifier checks beside it.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { deployStatus } from '../../../src/report/deploy-runbook.js';
import type { BuildResult } from '../../../src/report/result.js';
import { checkBuildResult } from '../../../src/report/result.js';
import { loadReportInput, renderRunbook, renderSummary } from '../../../src/report/runbook.js';

const GOLDEN = path.resolve('test/fixtures/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function golden(file: string, actual: string): void {
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
    writeFileSync(file, actual);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('deploy RUNBOOK.md golden files', () => {
  it.each([
    ['deploy-success', 'SUCCESS'],
    ['deploy-partial', 'PARTIAL'],
  ])('%s', async (dir, label) => {
    const input = await loadReportInput(path.join(GOLDEN, dir));
    const text = renderRunbook(input);
    expect(text).toContain(`**Status: ${label}**`);
    golden(path.join(GOLDEN, dir, 'RUNBOOK.md'), text);
    golden(
      path.join(GOLDEN, dir, 'summary.txt'),
      renderSummary(input, `buildbench-out/${input.result.repo.name}`),
    );
  });

  it('success: the evidence table, what was installed and why, and the exact commands that run the target', async () => {
    const text = renderRunbook(await loadReportInput(path.join(GOLDEN, 'deploy-success')));
    expect(text).toMatch(/^# sort-benchmark: deploy runbook\n/);
    expect(text).toContain('| target experiment | passed | exit 0; output matches /sorted \\d+ integers/;');
    expect(text).toContain('| verifier: the benchmark runs and sorts | passed |');
    expect(text).toContain('## What was installed and why');
    expect(text).toContain('| `make` | tool | provides make, which the setup runs | 0 |');
    expect(text).toContain('- Ecosystems: c-cpp (`Makefile`; 0 declared dependencies).');
    expect(text).toContain('- Registries: offline.');
    expect(text).toContain(
      [
        '```sh',
        'bash /path/to/this/folder/build.sh   # the setup (it ends with one run of the target)',
        'if [ -f .buildbench/deploy-env.sh ]; then . .buildbench/deploy-env.sh; fi   # the environment the setup made',
        'make && ./sortbench 200000',
        '```',
      ].join('\n'),
    );
    expect(text).toContain('was replayed in a fresh sandbox, where the target passed again');
    expect(text).not.toContain('## What failed and what to try next');
  });

  it('partial: the failing check with its output, the setup that ran, and what to try next', async () => {
    const text = renderRunbook(await loadReportInput(path.join(GOLDEN, 'deploy-partial')));
    expect(text).toContain(
      '**Status: PARTIAL** — the setup ran through, but the target experiment failed: exit code 2',
    );
    expect(text).toContain('| target experiment | **failed** | exit code 2, expected 0');
    expect(text).toContain(
      [
        'What `target experiment` printed last:',
        '',
        '```',
        'stderr:',
        'error: cannot open the parameter file config/params.txt',
        '```',
      ].join('\n'),
    );
    expect(text).toContain(
      "# the setup: no verified recipe; turn 0's script (C/C++: make) ran through — see logs/turn-00.log",
    );
    expect(text).toContain('## What failed and what to try next');
    expect(text).toMatch(/- The target experiment failed \(exit code 2/);
    const summary = renderSummary(await loadReportInput(path.join(GOLDEN, 'deploy-partial')), 'out');
    expect(summary).toMatch(/^PARTIAL: the setup ran through/);
    expect(summary).toContain('  target: FAILED — exit code 2');
    expect(summary).toContain('  verifier (hidden): FAILED — spec: the simulation writes its rate:');
  });
});

describe('deployStatus', () => {
  const base = JSON.parse(
    readFileSync(path.join(GOLDEN, 'deploy-success', 'result.json'), 'utf8'),
  ) as BuildResult;

  it('shows SUCCESS only with the passing target and verifier checks beside it', () => {
    expect(deployStatus(base, base.deploy!)).toEqual({ label: 'SUCCESS', evidence: true });
    const noVerifier = { ...base.deploy!, verifier: { ...base.deploy!.verifier, checks: [], passed: true } };
    expect(deployStatus(base, noVerifier)).toMatchObject({ label: 'PARTIAL', evidence: false });
    const targetFailed = {
      ...base.deploy!,
      setupRan: false,
      target: { ...base.deploy!.target!, passed: false },
    };
    expect(deployStatus(base, targetFailed).label).toBe('FAILED');
    expect(deployStatus({ ...base, status: 'limits_exceeded' }, base.deploy!).label).toBe('FAILED');
    expect(deployStatus({ ...base, status: 'partial' }, base.deploy!).label).toBe('PARTIAL');
  });

  it('result.json with a deploy section reads back; a malformed one names the field', () => {
    expect(checkBuildResult(base, 'result.json').deploy?.setupRan).toBe(true);
    expect(() =>
      checkBuildResult({ ...base, deploy: { ...base.deploy, setupRan: 'yes' } }, 'result.json'),
    ).toThrow('result.json: deploy.setupRan is the string "yes"; expected true or false');
    expect(() => checkBuildResult({ ...base, deploy: { goal: {} } }, 'r.json')).toThrow(
      /r\.json: deploy\.goal\.target is missing/,
    );
  });
});
