/**
 * The seccomp filter of the rootfs sandbox, in the spirit of Docker's default profile: the calls a build never
 * needs and a container escape often does (mounts, new namespaces, kernel modules, kexec, keyrings, bpf,
 * handle-based opens, …) fail with EPERM; `clone` with a namespace flag fails with EPERM and `clone3` with
 * ENOSYS (so the C library falls back to `clone`, whose flags a filter can see — what Docker does too).
 *
 * bubblewrap loads a compiled classic-BPF program (`bwrap --seccomp FD`) and installs it just before it runs
 * the command. The program is generated here rather than with libseccomp: there is no maintained Node binding,
 * the Python binding would add a host dependency, and a deny list this size is a few dozen instructions whose
 * every entry the integration tests call from inside the sandbox. The numbers come from the kernel's uapi
 * headers (asm/unistd_64.h for x86_64, asm-generic/unistd.h for aarch64); a unit test checks them against
 * the headers of this machine when they are installed.
 *
 * Only the native ABI is allowed: on x86_64, x32 calls (nr ≥ 0x40000000) are refused and the i386 compat ABI
 * returns ENOSYS, so 32-bit programs cannot run inside (a build that runs -m32 test programs fails visibly).
 */

export type SeccompArch = 'x86_64' | 'aarch64';

/** The calls the filter refuses with EPERM (besides `clone` with namespace flags and `clone3`). */
export const DENIED_SYSCALLS = [
  'acct',
  'add_key',
  'bpf',
  'clock_adjtime',
  'clock_settime',
  'create_module',
  'delete_module',
  'fanotify_init',
  'finit_module',
  'fsconfig',
  'fsmount',
  'fsopen',
  'fspick',
  'get_kernel_syms',
  'init_module',
  'io_uring_enter',
  'io_uring_register',
  'io_uring_setup',
  'ioperm',
  'iopl',
  'kexec_file_load',
  'kexec_load',
  'keyctl',
  'lookup_dcookie',
  'mbind',
  'migrate_pages',
  'mount',
  'mount_setattr',
  'move_mount',
  'move_pages',
  'name_to_handle_at',
  'nfsservctl',
  'open_by_handle_at',
  'open_tree',
  'perf_event_open',
  'pivot_root',
  'query_module',
  'quotactl',
  'quotactl_fd',
  'reboot',
  'request_key',
  'set_mempolicy',
  'setns',
  'settimeofday',
  'swapoff',
  'swapon',
  'syslog',
  '_sysctl',
  'sysfs',
  'umount2',
  'unshare',
  'uselib',
  'userfaultfd',
  'ustat',
  'vhangup',
] as const;

export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];

/** Syscall numbers per architecture; a call missing on an architecture has no entry there. */
export const SYSCALL_NUMBERS: Record<
  SeccompArch,
  Partial<Record<DeniedSyscall | 'clone' | 'clone3', number>>
> = {
  x86_64: {
    acct: 163,
    add_key: 248,
    bpf: 321,
    clock_adjtime: 305,
    clock_settime: 227,
    create_module: 174,
    delete_module: 176,
    fanotify_init: 300,
    finit_module: 313,
    fsconfig: 431,
    fsmount: 432,
    fsopen: 430,
    fspick: 433,
    get_kernel_syms: 177,
    init_module: 175,
    io_uring_enter: 426,
    io_uring_register: 427,
    io_uring_setup: 425,
    ioperm: 173,
    iopl: 172,
    kexec_file_load: 320,
    kexec_load: 246,
    keyctl: 250,
    lookup_dcookie: 212,
    mbind: 237,
    migrate_pages: 256,
    mount: 165,
    mount_setattr: 442,
    move_mount: 429,
    move_pages: 279,
    name_to_handle_at: 303,
    nfsservctl: 180,
    open_by_handle_at: 304,
    open_tree: 428,
    perf_event_open: 298,
    pivot_root: 155,
    query_module: 178,
    quotactl: 179,
    quotactl_fd: 443,
    reboot: 169,
    request_key: 249,
    set_mempolicy: 238,
    setns: 308,
    settimeofday: 164,
    swapoff: 168,
    swapon: 167,
    syslog: 103,
    _sysctl: 156,
    sysfs: 139,
    umount2: 166,
    unshare: 272,
    uselib: 134,
    userfaultfd: 323,
    ustat: 136,
    vhangup: 153,
    clone: 56,
    clone3: 435,
  },
  aarch64: {
    acct: 89,
    add_key: 217,
    bpf: 280,
    clock_adjtime: 266,
    clock_settime: 112,
    delete_module: 106,
    fanotify_init: 262,
    finit_module: 273,
    fsconfig: 431,
    fsmount: 432,
    fsopen: 430,
    fspick: 433,
    init_module: 105,
    io_uring_enter: 426,
    io_uring_register: 427,
    io_uring_setup: 425,
    kexec_file_load: 294,
    kexec_load: 104,
    keyctl: 219,
    lookup_dcookie: 18,
    mbind: 235,
    migrate_pages: 238,
    mount: 40,
    mount_setattr: 442,
    move_mount: 429,
    move_pages: 239,
    name_to_handle_at: 264,
    nfsservctl: 42,
    open_by_handle_at: 265,
    open_tree: 428,
    perf_event_open: 241,
    pivot_root: 41,
    quotactl: 60,
    quotactl_fd: 443,
    reboot: 142,
    request_key: 218,
    set_mempolicy: 237,
    setns: 268,
    settimeofday: 170,
    swapoff: 225,
    swapon: 224,
    syslog: 116,
    umount2: 39,
    unshare: 97,
    userfaultfd: 282,
    vhangup: 58,
    clone: 220,
    clone3: 435,
  },
};

/** AUDIT_ARCH_* values (linux/audit.h): what `seccomp_data.arch` holds for the native ABI. */
const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };

/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET. */
export const CLONE_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
/** Offsets in `struct seccomp_data`: nr, arch, then args[6] as u64 (the low word first on little endian). */
const DATA_NR = 0;
const DATA_ARCH = 4;
const DATA_ARG0_LOW = 16;

/** The architecture of this process, or undefined where the filter has no table (then no filter is used). */
export function seccompArch(arch: string = process.arch): SeccompArch | undefined {
  if (arch === 'x64') return 'x86_64';
  if (arch === 'arm64') return 'aarch64';
  return undefined;
}

/**
 * The filter as bubblewrap reads it: an array of `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k),
 * little endian (both supported architectures are).
 */
export function buildSeccompFilter(arch: SeccompArch): Buffer {
  const numbers = SYSCALL_NUMBERS[arch];
  const denied = [...new Set(DENIED_SYSCALLS.map((name) => numbers[name]).filter((n) => n !== undefined))];
  const clone = numbers.clone!;
  const clone3 = numbers.clone3!;
  // Layout (labels resolved below): arch check, nr checks, ALLOW, clone's flag check, ENOSYS, EPERM.
  type Target = 'enosys' | 'eperm' | 'clone';
  const body: { code: number; k: number; jt?: Target; jf?: Target }[] = [];
  body.push({ code: LD_W_ABS, k: DATA_ARCH });
  body.push({ code: JMP_JEQ_K, k: AUDIT_ARCH[arch], jf: 'enosys' });
  body.push({ code: LD_W_ABS, k: DATA_NR });
  if (arch === 'x86_64') body.push({ code: JMP_JGE_K, k: X32_SYSCALL_BIT, jt: 'eperm' });
  for (const nr of denied) body.push({ code: JMP_JEQ_K, k: nr, jt: 'eperm' });
  body.push({ code: JMP_JEQ_K, k: clone3, jt: 'enosys' });
  body.push({ code: JMP_JEQ_K, k: clone, jt: 'clone' });
  const labels: Record<Target, number> = { clone: 0, enosys: 0, eperm: 0 };
  body.push({ code: RET_K, k: RET_ALLOW });
  labels.clone = body.length;
  body.push({ code: LD_W_ABS, k: DATA_ARG0_LOW });
  body.push({ code: JMP_JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'eperm' });
  body.push({ code: RET_K, k: RET_ALLOW }); // BPF jumps only forward: clone's own ALLOW
  labels.enosys = body.length;
  body.push({ code: RET_K, k: RET_ERRNO | ENOSYS });
  labels.eperm = body.length;
  body.push({ code: RET_K, k: RET_ERRNO | EPERM });

  const out = Buffer.alloc(body.length * 8);
  body.forEach((insn, index) => {
    const jump = (target: Target | undefined): number => {
      if (target === undefined) return 0;
      const offset = labels[target] - index - 1;
      if (offset < 0 || offset > 255) throw new RangeError(`seccomp jump out of range: ${offset}`);
      return offset;
    };
    out.writeUInt16LE(insn.code, index * 8);
    out.writeUInt8(jump(insn.jt), index * 8 + 2);
    out.writeUInt8(jump(insn.jf), index * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, index * 8 + 4);
  });
  return out;
}
