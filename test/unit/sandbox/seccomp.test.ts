import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';

import {
  buildSeccompFilter,
  CLONE_NAMESPACE_FLAGS,
  DENIED_SYSCALLS,
  seccompArch,
  SYSCALL_NUMBERS,
  type SeccompArch,
} from '../../../src/sandbox/seccomp.js';

const ARCH = { x86_64: 0xc000003e, aarch64: 0xc00000b7, i386: 0x40000003 };
const ALLOW = 0x7fff0000;
const errno = (n: number): number => 0x00050000 | n;

/** A classic-BPF interpreter for the instructions the filter uses, over one `seccomp_data`. */
function run(filter: Buffer, data: { nr: number; arch: number; args?: number[] }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset >= 16 && (offset - 16) % 8 === 0) return (data.args?.[(offset - 16) / 8] ?? 0) >>> 0;
    throw new Error(`unexpected load at ${offset}`);
  };
  let a = 0;
  for (let pc = 0; pc < filter.length / 8; pc++) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        a = word(k);
        break;
      case 0x15:
        pc += a === k ? jt : jf;
        break;
      case 0x35:
        pc += a >= k ? jt : jf;
        break;
      case 0x45:
        pc += (a & k) !== 0 ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('the filter fell off its end');
}

describe.each(['x86_64', 'aarch64'] as SeccompArch[])('seccomp filter for %s', (arch) => {
  const filter = buildSeccompFilter(arch);
  const nr = SYSCALL_NUMBERS[arch];
  const call = (n: number, args?: number[]): number => run(filter, { nr: n, arch: ARCH[arch], args });

  it('refuses every denied call that exists on the architecture with EPERM', () => {
    for (const name of DENIED_SYSCALLS) {
      const n = nr[name];
      if (n === undefined) continue;
      expect([name, call(n)]).toEqual([name, errno(1)]);
    }
  });

  it('allows ordinary calls (read, write, openat, execve, chroot, ptrace)', () => {
    const ordinary = arch === 'x86_64' ? [0, 1, 257, 59, 161, 101, 39] : [63, 64, 56, 221, 51, 117, 172];
    for (const n of ordinary) expect(call(n)).toBe(ALLOW);
  });

  it('allows clone for threads and processes, refuses it with any namespace flag, and clone3 with ENOSYS', () => {
    const clone = nr.clone!;
    expect(call(clone, [0x003d0f00])).toBe(ALLOW); // pthread_create's flags
    expect(call(clone, [0x01200011])).toBe(ALLOW); // fork()'s
    for (const flag of [0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x04000000, 0x08000000, 0x02000000]) {
      expect(call(clone, [0x01200011 | flag])).toBe(errno(1));
    }
    expect(CLONE_NAMESPACE_FLAGS & 0x003d0f00).toBe(0);
    expect(call(nr.clone3!)).toBe(errno(38));
  });

  it('answers a foreign ABI with ENOSYS', () => {
    expect(run(filter, { nr: nr.mount!, arch: ARCH.i386 })).toBe(errno(38));
  });
});

describe('seccomp filter details', () => {
  it('refuses x32 calls on x86_64', () => {
    const filter = buildSeccompFilter('x86_64');
    expect(run(filter, { nr: 0x40000000 | 165, arch: ARCH.x86_64 })).toBe(errno(1));
    expect(run(filter, { nr: 0x40000000 | 39, arch: ARCH.x86_64 })).toBe(errno(1));
  });

  it('knows the architectures it has tables for', () => {
    expect(seccompArch('x64')).toBe('x86_64');
    expect(seccompArch('arm64')).toBe('aarch64');
    expect(seccompArch('ppc64')).toBeUndefined();
  });

  // The numbers are the kernel's: check them against this machine's uapi headers where they are installed.
  const headers: [SeccompArch, string, RegExp][] = [
    ['x86_64', '/usr/include/x86_64-linux-gnu/asm/unistd_64.h', /^#define __NR_(\w+)\s+(\d+)$/gm],
    ['aarch64', '/usr/include/asm-generic/unistd.h', /^#define __NR(?:3264)?_(\w+)\s+(\d+)$/gm],
  ];
  it.each(headers)('matches the %s numbers of %s', (arch, file, pattern) => {
    if (!existsSync(file)) return;
    const fromHeader = new Map<string, number>();
    for (const m of readFileSync(file, 'utf8').matchAll(pattern)) fromHeader.set(m[1]!, Number(m[2]));
    for (const [name, n] of Object.entries(SYSCALL_NUMBERS[arch])) {
      expect([name, fromHeader.get(name)]).toEqual([name, n]);
    }
    // and a call the header has is not missing from the table
    for (const name of DENIED_SYSCALLS) {
      if (fromHeader.has(name))
        expect([name, SYSCALL_NUMBERS[arch][name]]).toEqual([name, fromHeader.get(name)]);
    }
  });
});
