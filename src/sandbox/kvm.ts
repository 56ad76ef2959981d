/**
 * KVM for guest tasks (`requires: [kvm]`): whether this machine's `/dev/kvm` is usable, and what a sandbox
 * backend does with it. A guest boots under QEMU with KVM when the device reaches the sandbox and under TCG
 * (pure emulation, several times slower) when it does not; either way the run says which, up front and in
 * result.json's isolation record, never silently.
 *
 * "Usable" is what QEMU needs: the path exists, it is a character device, and this process can open it for
 * reading and writing (GitHub's hosted Linux runners have the device but only for root until a udev rule
 * opens it up; a container without `--device /dev/kvm` has no node at all).
 */
import { constants, type Stats } from 'node:fs';
import type { PassedDevice } from './isolation.js';
import { open, stat } from 'node:fs/promises';

export const KVM_DEVICE = '/dev/kvm';

export interface KvmProbe {
  usable: boolean;
  /** Why not, in words with the fix, when it is not usable. */
  why?: string;
}

/** Checks `/dev/kvm` (or `device`, for tests): exists, is a character device, opens read-write. */
export async function probeKvm(device = KVM_DEVICE): Promise<KvmProbe> {
  let info: Stats;
  try {
    info = await stat(device);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? {
          usable: false,
          why: `${device} does not exist (no KVM on this machine: enable virtualization, or nested virtualization in a VM, and load kvm_intel or kvm_amd)`,
        }
      : { usable: false, why: `${device} cannot be examined (${code ?? (error as Error).message})` };
  }
  if (!info.isCharacterDevice()) return { usable: false, why: `${device} is not a character device` };
  try {
    const handle = await open(device, constants.O_RDWR);
    await handle.close();
    return { usable: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      usable: false,
      why: `${device} cannot be opened for reading and writing (${code}): add this user to the kvm group, or open it with a udev rule (KERNEL=="kvm", GROUP="kvm", MODE="0666")`,
    };
  }
}

/** What one sandbox did with a device the run asked for: recorded in result.json's isolation record. */
export interface DevicePassing {
  /** The run asked for it (`requires:`). */
  requested: boolean;
  /** The device reaches the commands inside the sandbox. */
  passed: boolean;
  /** How it was passed, or why not (and what happens instead). */
  detail: string;
}

/** The warning a run without KVM gives before it starts: guests run, slowly. */
export const TCG_FALLBACK =
  'guests boot under QEMU’s TCG emulation instead (several times slower; their time limits are stretched)';

/**
 * What a backend does with `/dev/kvm` when the run asks for it: `how` names the backend's way of passing it
 * (`bubblewrap --dev-bind /dev/kvm`, `docker --device /dev/kvm`) and `probe` is this machine's device.
 * The host backend needs no passing: its commands see the machine's device as it is.
 */
export function kvmPassing(requested: boolean, probe: KvmProbe, how: string): DevicePassing {
  if (!requested) return { requested: false, passed: false, detail: 'not asked for' };
  if (probe.usable) return { requested: true, passed: true, detail: `passed (${how})` };
  return {
    requested: true,
    passed: false,
    detail: `not passed: ${probe.why ?? 'unusable'}; ${TCG_FALLBACK}`,
  };
}

/** The isolation note a sandbox adds for KVM (said in the RUNBOOK's Environment), undefined when not asked for. */
/** The isolation record's entry for KVM (`IsolationReport.devices`, shared with the GPU's). */
export function kvmDevice(passing: DevicePassing): PassedDevice {
  return {
    device: 'kvm',
    passed: passing.passed,
    how: passing.detail,
    ...(passing.passed ? { paths: [KVM_DEVICE] } : {}),
  };
}

export function kvmNote(passing: DevicePassing): string | undefined {
  if (!passing.requested) return undefined;
  return passing.passed
    ? `KVM: /dev/kvm ${passing.detail}; guests run with hardware virtualization`
    : `KVM: /dev/kvm ${passing.detail}`;
}
