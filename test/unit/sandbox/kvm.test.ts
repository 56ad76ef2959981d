/**
 * /dev/kvm detection and what a backend records about it: a missing path, a file that is not a character
 * device and a usable character device (/dev/null stands in: the probe checks the node, not KVM's API), and
 * the bubblewrap arguments that bind the device into the rootfs sandbox only when it was passed.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { kvmNote, kvmPassing, probeKvm, TCG_FALLBACK } from '../../../src/sandbox/kvm.js';
import { bwrapArguments } from '../../../src/sandbox/rootfs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bb-kvm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('probeKvm', () => {
  it('says why a missing device or a plain file is not usable, and accepts a character device it can open', async () => {
    const missing = await probeKvm(path.join(dir, 'kvm'));
    expect(missing.usable).toBe(false);
    expect(missing.why).toMatch(/does not exist \(no KVM on this machine: enable virtualization/);
    writeFileSync(path.join(dir, 'file'), '');
    expect(await probeKvm(path.join(dir, 'file'))).toEqual({
      usable: false,
      why: `${path.join(dir, 'file')} is not a character device`,
    });
    expect(await probeKvm('/dev/null')).toEqual({ usable: true });
  });
});

describe('what a sandbox records', () => {
  it('passes a usable device, and says so with the fallback when it cannot', () => {
    const passed = kvmPassing(true, { usable: true }, 'docker --device /dev/kvm');
    expect(passed).toEqual({ requested: true, passed: true, detail: 'passed (docker --device /dev/kvm)' });
    expect(kvmNote(passed)).toBe(
      'KVM: /dev/kvm passed (docker --device /dev/kvm); guests run with hardware virtualization',
    );
    const missing = kvmPassing(true, { usable: false, why: '/dev/kvm does not exist' }, 'x');
    expect(missing).toEqual({
      requested: true,
      passed: false,
      detail: `not passed: /dev/kvm does not exist; ${TCG_FALLBACK}`,
    });
    expect(kvmNote(missing)).toMatch(
      /^KVM: \/dev\/kvm not passed: .*TCG emulation instead \(several times slower/,
    );
    expect(kvmNote(kvmPassing(false, { usable: true }, 'x'))).toBeUndefined();
  });

  it('binds the device into the rootfs sandbox’s /dev only when it was passed', () => {
    const plan = {
      buildDir: dir,
      workspace: path.join(dir, 'workspace'),
      cwd: '/workspace',
      envAssignments: [],
      network: 'host' as const,
      mounts: [],
      seccomp: false,
    };
    const without = bwrapArguments(plan);
    expect(without.join(' ')).not.toContain('/dev/kvm');
    const withKvm = bwrapArguments({ ...plan, devices: ['/dev/kvm'] });
    const at = withKvm.indexOf('--dev-bind');
    expect(withKvm.slice(at, at + 3)).toEqual(['--dev-bind', '/dev/kvm', '/dev/kvm']);
    expect(at).toBeGreaterThan(withKvm.indexOf('--dev')); // after the minimal /dev is made
  });
});
