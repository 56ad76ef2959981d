import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import {
  readTrajectory,
  toJsonSafe,
  TrajectoryRecorder,
  TRAJECTORY_SCHEMA,
} from '../../../src/trajectory/recorder.js';
import { createRedactor, REDACTED } from '../../../src/trajectory/redact.js';

const OPENAI = 'sk-proj-' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6';
const GITHUB = 'ghp_' + 'Zyxwvutsrqponmlkjihgfedcba9876543210';

let dir: string;
let file: string;

function lines(): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bb-trajectory-'));
  file = path.join(dir, 'out', 'trajectory.jsonl');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('TrajectoryRecorder', () => {
  it('writes the header and then one line per event, each as it happens', () => {
    let now = Date.parse('2026-01-02T03:04:05.000Z');
    const recorder = new TrajectoryRecorder(file, { now: () => now, header: { repo: 'owner/name' } });
    try {
      expect(lines()).toHaveLength(1);
      const header = JSON.parse(lines()[0] as string) as Record<string, unknown>;
      expect(header).toMatchObject({
        schema: TRAJECTORY_SCHEMA,
        seq: 0,
        type: 'header',
        time: '2026-01-02T03:04:05.000Z',
        elapsedMs: 0,
        data: { repo: 'owner/name', pid: process.pid, node: process.version },
      });

      now += 1500;
      recorder.record('turn_start', { turn: 0, action: { kind: 'run', script: 'make' } });
      expect(lines()).toHaveLength(2); // on disk before close
      now += 250;
      recorder.record('turn_end', { turn: 0, exitCode: 2 });
      recorder.record('note');
      const written = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(written).toHaveLength(4);
      expect(written[1]).toEqual({
        seq: 1,
        type: 'turn_start',
        time: '2026-01-02T03:04:06.500Z',
        elapsedMs: 1500,
        data: { turn: 0, action: { kind: 'run', script: 'make' } },
      });
      expect(written[2]).toMatchObject({ seq: 2, type: 'turn_end', elapsedMs: 1750 });
      expect(written[3]).toEqual({ seq: 3, type: 'note', time: '2026-01-02T03:04:06.750Z', elapsedMs: 1750 });
      expect(written[1]?.schema).toBeUndefined();
      expect(recorder.count).toBe(4);
    } finally {
      recorder.close();
    }
  });

  it('redacts planted keys and exact secret values everywhere before writing, keys included', () => {
    const recorder = new TrajectoryRecorder(file, { secrets: ['my-very-own-secret-value'] });
    const event = recorder.record('turn_end', {
      output: `curl -H "Authorization: Bearer ${OPENAI}" https://api.example.com\n`,
      nested: { list: ['ok', `export GH=${GITHUB}`, 42, null, true] },
      env: { HIDDEN: 'prefix my-very-own-secret-value suffix' },
      ['my-very-own-secret-value']: 'as a key',
    });
    recorder.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(OPENAI);
    expect(text).not.toContain(GITHUB);
    expect(text).not.toContain('my-very-own-secret-value');
    const data = (JSON.parse(lines()[1] as string) as { data: Record<string, unknown> }).data;
    expect(data).toEqual({
      output: `curl -H "Authorization: Bearer ${REDACTED}" https://api.example.com\n`,
      nested: { list: ['ok', `export GH=${REDACTED}`, 42, null, true] },
      env: { HIDDEN: `prefix ${REDACTED} suffix` },
      [REDACTED]: 'as a key',
    });
    expect(event?.data).toEqual(data); // what was written is what is returned
  });

  it('uses the given redactor instead of the default', () => {
    const recorder = new TrajectoryRecorder(file, { redact: (text) => text.replace(/x/g, '#') });
    recorder.record('note', { body: 'xox' });
    recorder.close();
    expect(lines()[1]).toContain('"body":"#o#"');
  });

  it('redacts secrets from the environment by default', () => {
    const name = 'BUILDBENCH_TEST_RECORDER_TOKEN';
    process.env[name] = 'env-secret-0123456789';
    try {
      const recorder = new TrajectoryRecorder(file);
      recorder.record('note', { text: 'value env-secret-0123456789 here' });
      recorder.close();
      expect(readFileSync(file, 'utf8')).not.toContain('env-secret-0123456789');
    } finally {
      delete process.env[name];
    }
  });

  it('drops events after close, and close is idempotent', () => {
    const recorder = new TrajectoryRecorder(file);
    recorder.record('a');
    recorder.close();
    recorder.close();
    expect(recorder.closed).toBe(true);
    expect(recorder.record('late', { x: 1 })).toBeUndefined();
    expect(lines()).toHaveLength(2);
  });

  it('starts afresh unless told to append', () => {
    const first = new TrajectoryRecorder(file);
    first.record('a');
    first.close();
    const second = new TrajectoryRecorder(file);
    second.close();
    expect(lines()).toHaveLength(1);
    const third = new TrajectoryRecorder(file, { append: true });
    third.record('b');
    third.close();
    expect(lines().map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['header', 'header', 'b']);
  });

  it('caps very long strings, keeping head and tail', () => {
    const recorder = new TrajectoryRecorder(file, { maxStringLength: 1000 });
    recorder.record('big', { output: 'H'.repeat(5000) + 'T'.repeat(5000) });
    recorder.close();
    const output = (JSON.parse(lines()[1] as string) as { data: { output: string } }).data.output;
    expect(output.length).toBeLessThan(1100);
    expect(output.startsWith('HHHH')).toBe(true);
    expect(output.endsWith('TTTT')).toBe(true);
    expect(output).toMatch(/characters omitted/);
  });

  it('keeps every event up to the last one when the process is killed', () => {
    const require = createRequire(import.meta.url);
    let tsx: string;
    try {
      tsx = require.resolve('tsx');
    } catch {
      return; // no tsx to run TypeScript in a child
    }
    const recorderPath = path.resolve('src/trajectory/recorder.ts');
    const script = path.join(dir, 'child.mts');
    writeFileSync(
      script,
      `import { TrajectoryRecorder } from ${JSON.stringify(recorderPath)};\n` +
        `const r = new TrajectoryRecorder(${JSON.stringify(file)});\n` +
        `for (let turn = 0; turn < 3; turn++) r.record('turn_end', { turn });\n` +
        `process.kill(process.pid, 'SIGKILL');\n`,
    );
    const child = spawnSync(process.execPath, ['--import', tsx, script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.signal).toBe('SIGKILL');
    expect(lines().map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'header',
      'turn_end',
      'turn_end',
      'turn_end',
    ]);
  });
});

describe('toJsonSafe', () => {
  const id = (text: string): string => text;

  it('turns values JSON cannot write faithfully into ones it can', () => {
    const error = Object.assign(new Error('boom'), { code: 'EBOOM' });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { n: 1 };
    const out = toJsonSafe(
      {
        big: 12n,
        when: new Date('2026-01-01T00:00:00Z'),
        bad: new Date(NaN),
        error,
        map: new Map([['k', 1]]),
        set: new Set(['a']),
        buffer: Buffer.from('secret bytes'),
        fn: () => 1,
        missing: undefined,
        list: [undefined, 1],
        cyclic,
        twice: [shared, shared],
      },
      id,
      1000,
    ) as Record<string, unknown>;
    expect(out).toMatchObject({
      big: '12',
      when: '2026-01-01T00:00:00.000Z',
      bad: null,
      error: { name: 'Error', message: 'boom', code: 'EBOOM' },
      map: { k: 1 },
      set: ['a'],
      buffer: '[12 bytes]',
      list: [null, 1],
      cyclic: { name: 'loop', self: '[Circular]' },
      twice: [{ n: 1 }, { n: 1 }],
    });
    expect('fn' in out).toBe(true); // present as undefined, dropped by JSON.stringify
    expect(JSON.parse(JSON.stringify(out))).not.toHaveProperty('fn');
    expect((out.error as { stack?: string }).stack).toMatch(/boom/);
  });

  it('redacts inside errors', () => {
    const out = toJsonSafe(new Error(`failed with ${GITHUB}`), createRedactor([]), 1000) as {
      message: string;
    };
    expect(out.message).toBe(`failed with ${REDACTED}`);
  });
});

describe('readTrajectory', () => {
  it('reads what the recorder wrote', async () => {
    const recorder = new TrajectoryRecorder(file);
    recorder.record('turn_start', { turn: 0 });
    recorder.close();
    const events = await readTrajectory(file);
    expect(events.map((e) => e.type)).toEqual(['header', 'turn_start']);
    expect(events[0]?.schema).toBe(TRAJECTORY_SCHEMA);
    expect(events[1]?.data).toEqual({ turn: 0 });
  });

  it('tolerates a truncated last line', async () => {
    const recorder = new TrajectoryRecorder(file);
    recorder.record('turn_start', { turn: 0 });
    recorder.close();
    appendFileSync(file, '{"seq":2,"type":"turn_end","time":"2026-01-0');
    const events = await readTrajectory(file);
    expect(events.map((e) => e.type)).toEqual(['header', 'turn_start']);
  });

  it('keeps a complete last line that lost only its newline', async () => {
    const recorder = new TrajectoryRecorder(file);
    recorder.close();
    appendFileSync(file, '{"seq":1,"type":"end","time":"t","elapsedMs":1}');
    expect((await readTrajectory(file)).map((e) => e.type)).toEqual(['header', 'end']);
  });

  it('refuses a damaged line in the middle, naming it', async () => {
    const recorder = new TrajectoryRecorder(file);
    recorder.close();
    appendFileSync(file, '{"seq":1,"type":"tu\n{"seq":2,"type":"x","time":"t","elapsedMs":1}\n');
    await expect(readTrajectory(file)).rejects.toThrow(/trajectory\.jsonl:2: not a JSON event/);
  });
});
