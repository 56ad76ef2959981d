import { describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { checkRunRecord, collectRuns, systemLabel } from '../../../src/bench/collect.js';
import { failedResult, fakeResult } from '../../fakes/build-result.js';
import { record, writeRun } from './bench-fixtures.js';

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'bb-collect-'));
}

describe('collectRuns', () => {
  it('finds run.json at any depth, groups by strategy + model, sorts by task and run', async () => {
    const cwd = await tempDir();
    await writeRun(cwd, {
      dir: 'a/runs/zeta/2',
      task: 'zeta',
      run: 2,
      strategy: 'rules',
      result: fakeResult(),
    });
    await writeRun(cwd, {
      dir: 'a/runs/zeta/1',
      task: 'zeta',
      run: 1,
      strategy: 'rules',
      result: failedResult(),
    });
    await writeRun(cwd, {
      dir: 'a/runs/eta/1',
      task: 'eta',
      run: 1,
      strategy: 'rules',
      result: fakeResult(),
    });
    await writeRun(cwd, {
      dir: 'b/artifacts/deep/er/job-7/out',
      task: 'zeta',
      run: 1,
      strategy: 'llm',
      model: 'anthropic:claude-x',
      result: fakeResult(),
    });
    // a run folder at the root of a folder given
    await writeRun(cwd, {
      dir: 'c',
      task: 'eta',
      run: 1,
      strategy: 'llm',
      model: 'anthropic:claude-x',
      result: fakeResult(),
    });
    const got = await collectRuns(['a', 'b', 'c'], { cwd });
    expect(got.problems).toEqual([]);
    expect(got.warnings).toEqual([]);
    expect(got.found).toBe(5);
    expect(got.systems.map((s) => s.system)).toEqual(['llm (anthropic:claude-x)', 'rules']);
    expect(got.systems[0]!.model).toBe('anthropic:claude-x');
    expect(got.systems[0]!.runs.map((r) => r.where)).toEqual(['c', 'b/artifacts/deep/er/job-7/out']);
    expect(
      got.systems[1]!.runs.map((r) => `${r.record.task.id}/${r.record.run}:${r.result?.status}`),
    ).toEqual(['eta/1:success', 'zeta/1:failed', 'zeta/2:success']);
  });

  it('keeps one copy of a run found twice and says which, with both places', async () => {
    const cwd = await tempDir();
    const spec = { task: 't', run: 1, strategy: 'rules', result: fakeResult() };
    await writeRun(cwd, { ...spec, dir: 'one/t/1' });
    await writeRun(cwd, { ...spec, dir: 'two/t/1' });
    // the same task and run under another system is not a duplicate
    await writeRun(cwd, { ...spec, dir: 'two/t/1-llm', strategy: 'llm', model: 'openai:m' });
    const got = await collectRuns(['one', 'two'], { cwd });
    expect(got.found).toBe(3);
    expect(got.systems.find((s) => s.system === 'rules')!.runs).toHaveLength(1);
    expect(got.warnings).toEqual(['rules: task t run 1 found twice: kept one/t/1, dropped two/t/1']);
  });

  it('reports unreadable and ill-shaped files by path, counts the rest, and does not crash', async () => {
    const cwd = await tempDir();
    await writeRun(cwd, { dir: 'r/good/1', task: 'good', run: 1, strategy: 'rules', result: fakeResult() });
    // result.json that is not JSON
    await writeRun(cwd, {
      dir: 'r/broken/1',
      task: 'broken',
      run: 1,
      strategy: 'rules',
      result: fakeResult(),
    });
    await writeFile(path.join(cwd, 'r/broken/1/result.json'), '{"schema": "buildbench.result/v1", ');
    // result.json of the wrong shape
    await writeRun(cwd, { dir: 'r/shape/1', task: 'shape', run: 1, strategy: 'rules', result: fakeResult() });
    await writeFile(
      path.join(cwd, 'r/shape/1/result.json'),
      JSON.stringify({ ...fakeResult(), metrics: { completion: 'yes', strict: true, flexible: true } }),
    );
    // result.json missing though the record names it
    await writeRun(cwd, { dir: 'r/gone/1', task: 'gone', run: 1, strategy: 'rules', result: fakeResult() });
    await writeFile(path.join(cwd, 'r/gone/1/result.json'), '');
    // a run.json with a bad field, and one pointing its result outside the run folder
    await mkdir(path.join(cwd, 'r/bad/1'), { recursive: true });
    await writeFile(
      path.join(cwd, 'r/bad/1/run.json'),
      JSON.stringify({ ...record({ dir: '', task: 'bad', run: 1, strategy: 'rules' }), run: 0 }),
    );
    await mkdir(path.join(cwd, 'r/escape/1'), { recursive: true });
    await writeFile(
      path.join(cwd, 'r/escape/1/run.json'),
      JSON.stringify({
        ...record({ dir: '', task: 'escape', run: 1, strategy: 'rules', result: fakeResult() }),
        result: '../../good/1/result.json',
      }),
    );
    const got = await collectRuns(['r'], { cwd });
    expect(got.found).toBe(6);
    expect(got.systems[0]!.runs.map((r) => r.record.task.id)).toEqual(['good']);
    const byFile = Object.fromEntries(got.problems.map((p) => [p.file, p.problem]));
    expect(byFile['r/broken/1/result.json']).toMatch(/^not counted: not valid JSON/);
    expect(byFile['r/shape/1/result.json']).toBe(
      'not counted: metrics.completion is the string "yes"; expected true or false',
    );
    expect(byFile['r/gone/1/result.json']).toMatch(/^not counted: not valid JSON/);
    expect(byFile['r/bad/1/run.json']).toBe('not counted: run: expected a run number (1, 2, …)');
    expect(byFile['r/escape/1/run.json']).toMatch(/^not counted: result: .*'\.\.' is not allowed/);
  });

  it('a run that could not start counts without a result; a missing folder is a problem, not a crash', async () => {
    const cwd = await tempDir();
    await writeRun(cwd, {
      dir: 'r/e/1',
      task: 'e',
      run: 1,
      strategy: 'rules',
      status: 'error',
      error: 'no mirror',
    });
    const got = await collectRuns(['r', 'nowhere'], { cwd });
    expect(got.systems[0]!.runs.map((r) => r.where)).toEqual(['r/e/1']);
    expect(got.systems[0]!.runs[0]).not.toHaveProperty('result');
    expect(got.systems[0]!.runs[0]!.record.error).toBe('no mirror');
    expect(got.problems).toEqual([
      { file: 'nowhere', problem: expect.stringMatching(/^cannot list the folder \(.*ENOENT/) },
    ]);
  });

  it('never follows a symbolic link out of the tree: neither a linked folder nor a linked run.json or result.json', async () => {
    const cwd = await tempDir();
    const outside = await tempDir();
    await writeRun(outside, {
      dir: 'elsewhere/1',
      task: 'secret',
      run: 1,
      strategy: 'rules',
      result: fakeResult(),
    });
    await writeRun(cwd, { dir: 'r/real/1', task: 'real', run: 1, strategy: 'rules', result: fakeResult() });
    // a folder that is a link to a tree of runs outside
    await symlink(path.join(outside, 'elsewhere'), path.join(cwd, 'r', 'linked'));
    // a run folder whose run.json is a link
    await mkdir(path.join(cwd, 'r/linkedrecord/1'), { recursive: true });
    await symlink(path.join(outside, 'elsewhere/1/run.json'), path.join(cwd, 'r/linkedrecord/1/run.json'));
    // a run whose result.json is a link to a file outside
    await writeRun(cwd, {
      dir: 'r/linkedresult/1',
      task: 'linkedresult',
      run: 1,
      strategy: 'rules',
      result: fakeResult(),
    });
    const { rm } = await import('node:fs/promises');
    await rm(path.join(cwd, 'r/linkedresult/1/result.json'));
    await symlink(
      path.join(outside, 'elsewhere/1/result.json'),
      path.join(cwd, 'r/linkedresult/1/result.json'),
    );
    const got = await collectRuns(['r'], { cwd });
    expect(got.found).toBe(2);
    expect(got.systems[0]!.runs.map((r) => r.record.task.id)).toEqual(['real']);
    expect(got.problems).toEqual([
      {
        file: 'r/linkedresult/1/result.json',
        problem: expect.stringMatching(/^not counted: cannot be read \(.*link/),
      },
    ]);
  });
});

describe('checkRunRecord and systemLabel', () => {
  it('names the field that is wrong', () => {
    const good = record({ dir: '', task: 't', run: 1, strategy: 'rules', status: 'failed' });
    expect(checkRunRecord(good)).toEqual(good);
    expect(() => checkRunRecord([])).toThrow('expected a JSON object');
    expect(() => checkRunRecord({ ...good, schema: 'buildbench.run/v9' })).toThrow(
      'schema: expected "buildbench.run/v1"',
    );
    expect(() => checkRunRecord({ ...good, task: { id: 't', kind: 'test' } })).toThrow(
      'task.kind: expected build or deploy',
    );
    expect(() => checkRunRecord({ ...good, task: { id: 't', kind: 'build', instructions: 'x' } })).toThrow(
      'task.instructions: expected a list of strings',
    );
    expect(() => checkRunRecord({ ...good, strategy: '' })).toThrow('strategy: expected a non-empty string');
    expect(() => checkRunRecord({ ...good, model: 3 })).toThrow('model: expected a string');
  });

  it('labels a system by strategy, with the model when there is one', () => {
    expect(systemLabel('rules')).toBe('rules');
    expect(systemLabel('llm', 'openai:gpt-4o')).toBe('llm (openai:gpt-4o)');
  });
});
