/**
 * The diagnosis in a worker thread (knowledge/diagnose/worker.ts), as the App runs it: the real worker (this
 * module's .ts file, which the worker loads after registering tsx), the time budget, a worker that never
 * answers, one that fails, and the same from a process started by `tsx` as `npm run bot` starts the App.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import {
  describeStop,
  diagnoseLog,
  stoppedEarly,
  type Diagnosis,
} from '../../../../src/knowledge/diagnose/diagnosis.js';
import { diagnoseInWorker } from '../../../../src/knowledge/diagnose/worker.js';
import { benignLog, hostileLog } from '../../../helpers/hostile-log.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const log = (name: string): string => readFileSync(path.join(ROOT, 'test/fixtures/logs', name), 'utf8');
const cause = (d: Diagnosis): string => (d.found ? `${d.rootCause.id}: ${d.rootCause.message}` : d.reason);

describe('diagnoseInWorker', () => {
  it('finds in a worker thread what diagnoseLog finds in this one, files and secrets included', async () => {
    const text = log('missing-header-make.log');
    const files = [
      {
        path: '.github/workflows/ci.yml',
        content: 'jobs:\n  b:\n    steps:\n      - run: sudo apt-get install -y make\n',
      },
    ];
    const here = await diagnoseLog(text, { files, secrets: ['compress'] });
    const there = await diagnoseInWorker(text, { files, secrets: ['compress'] });
    expect(there).toEqual(here);
    expect(there.found && there.fix?.suggestion?.path).toBe('.github/workflows/ci.yml');
  });

  it('keeps the event loop free (max delay under 100 ms) while it diagnoses a hostile 5 MiB log', async () => {
    const hostile = hostileLog(5 * 1024 * 1024);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const diagnosis = await diagnoseInWorker(hostile);
    delay.disable();
    expect(cause(diagnosis)).toBe(cause(await diagnoseLog(benignLog(1024 * 1024))));
    expect(diagnosis.stoppedEarly).toBeUndefined();
    expect(delay.max / 1e6).toBeLessThan(100);
  });

  it('stops at its budget and says how far it got', async () => {
    const diagnosis = await diagnoseInWorker(hostileLog(1024 * 1024), {}, { budgetMs: 0 });
    expect(diagnosis).toMatchObject({ found: false, kind: 'unrecognized', stoppedEarly: { read: 0 } });
    expect(!diagnosis.found && diagnosis.reason).toMatch(
      /^the diagnosis ran out of time \(0 s\) after 0% of the log/,
    );
  });

  it('terminates a worker that does not answer, and says the diagnosis did not finish', async () => {
    const silent = new URL('data:text/javascript,setInterval(() => {}, 1000)');
    const diagnosis = await diagnoseInWorker('x\n', {}, { script: silent, budgetMs: 50, graceMs: 50 });
    expect(diagnosis).toMatchObject({ found: false, kind: 'unrecognized' });
    expect(diagnosis.stoppedEarly?.read).toBeUndefined();
    expect(!diagnosis.found && diagnosis.reason).toMatch(/did not finish in 0\.1 s/);
  });

  it('rejects when the worker fails', async () => {
    const failing = new URL('data:text/javascript,throw new Error("no catalog here")');
    await expect(diagnoseInWorker('x\n', {}, { script: failing })).rejects.toThrow(/no catalog here/);
  });

  it('runs from a process started by tsx, as `npm run bot` starts the App', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-worker-'));
    const script = path.join(dir, 'diagnose.mts');
    const worker = pathToFileURL(path.join(ROOT, 'src/knowledge/diagnose/worker.ts')).href;
    writeFileSync(
      script,
      [
        `import { readFileSync } from 'node:fs';`,
        `import { diagnoseInWorker } from ${JSON.stringify(worker)};`,
        `const text = readFileSync(${JSON.stringify(path.join(ROOT, 'test/fixtures/logs/missing-header-make.log'))}, 'utf8');`,
        `const d: { found: boolean } = await diagnoseInWorker(text);`,
        `console.log(JSON.stringify(d));`,
      ].join('\n'),
    );
    const run = spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), [script], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const diagnosis = JSON.parse(run.stdout) as Diagnosis;
    expect(cause(diagnosis)).toBe(cause(await diagnoseLog(log('missing-header-make.log'))));
  });
});

describe('a diagnosis with a budget', () => {
  it('in this thread: a budget spent before the first slice diagnoses nothing and says so', async () => {
    const d = await diagnoseLog(log('missing-header-make.log'), { budgetMs: -1 });
    expect(d).toMatchObject({ found: false, kind: 'unrecognized', stoppedEarly: { read: 0 } });
    expect(
      (await diagnoseLog(log('missing-header-make.log'), { budgetMs: 60_000 })).stoppedEarly,
    ).toBeUndefined();
  });

  it('a cause found in the part read stands, with one sentence on how far it got', async () => {
    const found = await diagnoseLog(log('missing-header-make.log'));
    const stop = { afterMs: 20_000, read: 2_000_000, total: 5_000_000 };
    expect(stoppedEarly(found, stop)).toEqual({ ...found, stoppedEarly: stop });
    expect(describeStop(stop)).toBe(
      'The diagnosis ran out of time (20 s) after 40% of the log, so a cause further on was not looked for.',
    );
    const flaky: Diagnosis = { found: false, kind: 'flaky-network', reason: 'a network error' };
    expect(stoppedEarly(flaky, stop)).toEqual({ ...flaky, stoppedEarly: stop });
  });
});
