/**
 * The sweep of stale work folders: real folders in a temp work root, real pids (a process that has exited,
 * this process), real removal with removeTree.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';

import {
  OWNER_FILE,
  markKeptOnDispose,
  processIsAlive,
  processStartTime,
  readOwnerRecord,
  sweepStaleWorkDirs,
  writeOwnerRecord,
  type OwnerRecord,
} from '../../../src/sandbox/work-dirs.js';
import type { Sandbox } from '../../../src/sandbox/types.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-work-dirs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  const pid = Number(r.stdout.toString().trim());
  expect(processIsAlive(pid, undefined)).toBe(false);
  return pid;
}

const HOUR = 3600_000;

function folder(
  name: string,
  record?: Partial<OwnerRecord>,
  options: { file?: boolean; ageMs?: number } = {},
): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'upper', 'usr'), { recursive: true });
  mkdirSync(path.join(dir, 'workspace'), { recursive: true });
  if (options.file ?? true) writeFileSync(path.join(dir, 'workspace', 'main.c'), 'int main(void){}\n');
  if (record) {
    const full: OwnerRecord = {
      format: 'buildbench.work-dir/v1',
      pid: process.pid,
      host: hostname(),
      createdAt: new Date().toISOString(),
      kind: 'rootfs',
      ...record,
    };
    writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(full));
  }
  if (options.ageMs) {
    const t = (Date.now() - options.ageMs) / 1000;
    utimesSync(dir, t, t);
  }
  return dir;
}

describe('work folder owner records and the sweep', () => {
  it('reads the start time of a process from /proc/<pid>/stat, even with spaces and parentheses in its name', () => {
    const mine = processStartTime(process.pid);
    expect(mine).toMatch(/^\d+$/);
    const odd = path.join(root, 'a b) (c');
    const started = spawnSync(
      'sh',
      ['-c', 'cp /bin/sleep "$1" && { "$1" 30 >/dev/null 2>&1 & echo $!; }', 'sh', odd],
      {
        encoding: 'utf8',
      },
    );
    const pid = Number(started.stdout.trim());
    try {
      expect(processStartTime(pid)).toMatch(/^\d+$/);
      expect(processIsAlive(pid, processStartTime(pid))).toBe(true);
      expect(processIsAlive(pid, '1')).toBe(false); // the same pid, started at another time: not the owner
    } finally {
      process.kill(pid, 'SIGKILL');
      rmSync(odd, { force: true });
    }
  });

  it('removes only the folders whose owner is gone: not live, kept, young, foreign or unrecorded ones', async () => {
    const dead = deadPid();
    const stale = folder('stale-1111', { pid: dead, startTime: '12345' });
    const staleNoStart = folder('stale-2222', { pid: dead });
    // A live pid (this process) recorded with another start time: the pid was reused, the owner is gone.
    const reused = folder('reused-3333', { pid: process.pid, startTime: '1' });
    const live = folder('live-4444', { pid: process.pid, startTime: processStartTime(process.pid)! });
    const kept = folder('kept-5555', { pid: dead, keptAt: new Date().toISOString() });
    const foreign = folder('foreign-6666', { pid: dead, host: 'another-machine' });
    const foreignOld = folder('foreign-old-7777', {
      pid: dead,
      host: 'another-machine',
      createdAt: new Date(Date.now() - 8 * 24 * HOUR).toISOString(),
    });
    const unrecordedYoung = folder('young-8888', undefined, { file: false });
    const unrecordedOldWithFiles = folder('legacy-9999', undefined, { ageMs: 2 * HOUR });
    const unrecordedOldEmpty = folder('empty-aaaa', undefined, { file: false, ageMs: 2 * HOUR });
    const corrupt = folder('corrupt-bbbb');
    writeFileSync(path.join(corrupt, OWNER_FILE), '{ not json');
    writeFileSync(path.join(root, 'a-file'), 'x');

    const report = await sweepStaleWorkDirs(root);
    expect(report.failed).toEqual([]);
    expect(report.removed.map((r) => path.basename(r.dir)).sort()).toEqual(
      ['empty-aaaa', 'foreign-old-7777', 'reused-3333', 'stale-1111', 'stale-2222'].sort(),
    );
    expect(report.removed.find((r) => r.dir === stale)?.why).toMatch(
      new RegExp(`^process ${dead} that made it on .* is gone$`),
    );
    for (const gone of [stale, staleNoStart, reused, foreignOld, unrecordedOldEmpty])
      expect(existsSync(gone)).toBe(false);
    for (const stays of [live, kept, foreign, unrecordedYoung, unrecordedOldWithFiles, corrupt])
      expect(existsSync(path.join(stays, 'upper'))).toBe(true);
    expect(existsSync(path.join(root, 'a-file'))).toBe(true);
    expect(existsSync(path.join(root, '.stale-stale-1111'))).toBe(false);

    // A second sweep finds nothing more to do.
    expect(await sweepStaleWorkDirs(root)).toEqual({ removed: [], failed: [] });
  });

  it('writes a record for this process, and dispose({ keep: true }) marks the folder kept', async () => {
    const dir = path.join(root, 'mine-cccc');
    await writeOwnerRecord(dir, 'host');
    const record = await readOwnerRecord(dir);
    expect(record).toMatchObject({ pid: process.pid, host: hostname(), kind: 'host' });
    expect(record?.startTime).toBe(processStartTime(process.pid));
    expect(record?.keptAt).toBeUndefined();

    const disposed: unknown[] = [];
    const sandbox = markKeptOnDispose(
      {
        id: 'mine-cccc',
        dispose: (o?: { keep?: boolean }) => Promise.resolve(void disposed.push(o)),
      } as unknown as Sandbox,
      root,
    );
    await sandbox.dispose({ keep: true });
    expect(disposed).toEqual([{ keep: true }]);
    expect((await readOwnerRecord(dir))?.keptAt).toMatch(/^\d{4}-/);

    // Kept, then its owner gone: it stays.
    const kept = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as OwnerRecord;
    writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ ...kept, pid: deadPid() }));
    await sweepStaleWorkDirs(root);
    expect(existsSync(dir)).toBe(true);
  });

  it('never throws: a missing work root is nothing to do, a failed removal is reported', async () => {
    expect(await sweepStaleWorkDirs(path.join(root, 'nope'))).toEqual({ removed: [], failed: [] });
    folder('fails-dddd', { pid: deadPid() });
    const report = await sweepStaleWorkDirs(root, { remove: () => Promise.reject(new Error('busy')) });
    expect(report.removed).toEqual([]);
    expect(report.failed).toEqual([{ dir: path.join(root, 'fails-dddd'), error: 'busy' }]);
    // Left aside; a later sweep removes it once the rename is an hour old.
    expect(existsSync(path.join(root, '.stale-fails-dddd'))).toBe(true);
    const later = await sweepStaleWorkDirs(root, { now: Date.now() + 2 * HOUR });
    expect(later.removed.map((r) => path.basename(r.dir))).toContain('.stale-fails-dddd');
    expect(existsSync(path.join(root, '.stale-fails-dddd'))).toBe(false);
  });
});
