import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createSandboxCgroups,
  defaultMemoryLimit,
  dockerIsolation,
  dockerIsolationArgs,
  removeSandboxCgroups,
} from '../../../src/sandbox/isolation.js';

/** A folder laid out like /sys/fs/cgroup (plain files: what the kernel would create is written by hand). */
async function fakeCgroupRoot(kind: 'v2' | 'v1' | 'v2-no-pids' | 'none'): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'bb-cgroup-'));
  if (kind.startsWith('v2')) {
    await writeFile(
      join(root, 'cgroup.controllers'),
      kind === 'v2' ? 'cpuset cpu io memory pids\n' : 'cpu memory\n',
    );
    await writeFile(join(root, 'cgroup.subtree_control'), '');
  }
  if (kind === 'v1') {
    for (const c of ['memory', 'pids']) {
      await mkdir(join(root, c));
      await writeFile(join(root, c, 'cgroup.procs'), '');
    }
  }
  return root;
}

describe('sandbox cgroups', () => {
  it('uses cgroup v2 under buildbench/<id> with memory.max and pids.max', async () => {
    const root = await fakeCgroupRoot('v2');
    const { cgroups } = await createSandboxCgroups('sb-1', { memoryBytes: 1 << 30, pids: 100 }, root);
    expect(cgroups?.how).toBe('cgroup v2');
    expect(cgroups?.procs).toEqual([join(root, 'buildbench', 'sb-1', 'cgroup.procs')]);
    expect(readFileSync(join(root, 'buildbench', 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');
    expect(readFileSync(join(root, 'buildbench', 'sb-1', 'memory.max'), 'utf8')).toBe(String(1 << 30));
    expect(readFileSync(join(root, 'buildbench', 'sb-1', 'pids.max'), 'utf8')).toBe('100');
  });

  it('uses the v1 memory and pids controllers where those are mounted', async () => {
    const root = await fakeCgroupRoot('v1');
    const { cgroups } = await createSandboxCgroups('sb-2', { memoryBytes: 512 << 20, pids: 64 }, root);
    expect(cgroups?.how).toBe('cgroup v1 (memory, pids)');
    expect(cgroups?.procs).toEqual([
      join(root, 'memory', 'buildbench', 'sb-2', 'cgroup.procs'),
      join(root, 'pids', 'buildbench', 'sb-2', 'cgroup.procs'),
    ]);
    expect(readFileSync(join(root, 'memory', 'buildbench', 'sb-2', 'memory.limit_in_bytes'), 'utf8')).toBe(
      String(512 << 20),
    );
    expect(readFileSync(join(root, 'pids', 'buildbench', 'sb-2', 'pids.max'), 'utf8')).toBe('64');
    await removeSandboxCgroups(cgroups);
    // a real cgroup folder is removed with rmdir; the fake one still holds the files written by hand
    expect(existsSync(join(root, 'pids', 'buildbench', 'sb-2'))).toBe(true);
  });

  it('says why when it cannot enforce the limits, instead of failing', async () => {
    expect((await createSandboxCgroups('x', { pids: 10 }, await fakeCgroupRoot('none'))).reason).toMatch(
      /no cgroup v2 hierarchy/,
    );
    expect(
      (await createSandboxCgroups('x', { pids: 10 }, await fakeCgroupRoot('v2-no-pids'))).reason,
    ).toMatch(/lacks the pids controller/);
    expect((await createSandboxCgroups('x', {}, await fakeCgroupRoot('v2'))).cgroups).toBeUndefined();
  });

  it('defaults the memory limit to three quarters of the machine', () => {
    expect(defaultMemoryLimit(8 * 1024 ** 3)).toBe(6 * 1024 ** 3);
  });
});

describe('docker isolation', () => {
  it('tightens the engine defaults and maps the network modes and limits to docker run flags', () => {
    expect(dockerIsolationArgs({})).toEqual(['--security-opt', 'no-new-privileges', '--cap-drop', 'MKNOD']);
    expect(dockerIsolationArgs({ network: 'host', memoryBytes: 1024, pids: 7 })).toEqual([
      '--security-opt',
      'no-new-privileges',
      '--cap-drop',
      'MKNOD',
      '--network',
      'host',
      '--cap-drop',
      'NET_RAW',
      '--memory',
      '1024',
      '--pids-limit',
      '7',
    ]);
    expect(dockerIsolationArgs({ network: 'none' })).toContain('none');
    expect(dockerIsolation({ network: 'none' }).network).toEqual({ mode: 'none' });
    expect(dockerIsolation({ pids: 5 }).limits).toMatchObject({ pids: 5, enforced: true });
  });
});
