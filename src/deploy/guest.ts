/**
 * Guest tasks (kernels and bare-metal images booted under QEMU): the task's `GuestSpec` turned into
 *
 * - `guestRecipe`: the setup part of a deploy recipe — the tools (QEMU, and a kernel build's flex, bison,
 *   bc, libelf, libssl, cpio) and the image build as a step, so a failing kernel build is a turn's log that
 *   the layer-1 signatures and the repair rules read like any other build's;
 * - `guestCheck`: a layer-2 check that builds the image (again: a no-op for make when nothing changed) and
 *   boots it under `qemu-system-x86_64` with the serial console written to a file, judged by the existing
 *   `serial_log` expectation (verify/layer2.ts) against the task's pattern within its time limit.
 *
 * KVM or TCG: the check boots with `-enable-kvm -cpu host` when the sandbox was given a usable /dev/kvm
 * (sandbox/kvm.ts says whether it was) and the device answers inside; otherwise under TCG, with a warning
 * in its output and the time limit stretched by `TCG_SLOWDOWN`. A /dev/kvm QEMU cannot run the guest on (it
 * fails at once, the serial log empty: a nested hypervisor that refuses an MSR) gets the same boot under
 * TCG, said as such. The guest is bounded by `timeout -k`, and
 * the check's own script kills its whole process group when the pattern shows or the limit passes, so no
 * QEMU outlives the check (and the sandbox kills whatever is left of its tree after every command).
 */
import { shellQuote } from '../base/shell.js';
import type { Recipe, ToolNeed } from '../recipe/model.js';
import type { SpecCheck } from '../verify/spec.js';
import type { DeployGoal, GuestSpec } from './types.js';

/** How much longer a guest may take to reach its pattern under TCG than under KVM. */
export const TCG_SLOWDOWN = 4;
/** Where the guest's serial console is written, relative to the repository root (never scanned). */
export const GUEST_SERIAL_LOG = '.buildbench/guest/serial.log';
/** The image build's output in the check (its tail goes to the check's output when it fails). */
export const GUEST_BUILD_LOG = '.buildbench/guest/build.log';
/** Where the check records which accelerator booted the guest (`kvm` or `tcg`). */
export const GUEST_ACCEL_FILE = '.buildbench/guest/accel';
/** QEMU's own error output of the last boot (also copied to the check's output). */
export const GUEST_QEMU_STDERR = '.buildbench/guest/qemu-stderr.log';
/** Memory of the guest, in MiB: a serial line needs little. */
export const GUEST_MEMORY_MB = 256;
/** The image build's limit in the check: a kernel from scratch on a small runner, or a bare-metal image. */
export const GUEST_BUILD_LIMIT_MS: Record<GuestSpec['kind'], number> = {
  kernel: 90 * 60_000,
  multiboot: 10 * 60_000,
};
/** Slack for QEMU's own start and the check's bookkeeping, on top of the limits. */
const CHECK_SLACK_MS = 30_000;

/** The Debian package that provides `qemu-system-x86_64`. */
export const QEMU_TOOL: ToolNeed = { command: 'qemu-system-x86_64', pkg: 'qemu-system-x86' };

/**
 * What a Linux kernel build needs besides the toolchain (Documentation/process/changes.rst): the tools its
 * Makefiles call, and the headers of the host programs it builds — `libelf-dev` for objtool (x86_64's
 * default ORC unwinder), `libssl-dev` for the signing tools and the certificate helpers.
 */
export const KERNEL_BUILD_TOOLS: readonly ToolNeed[] = [
  { command: 'flex', pkg: 'flex' },
  { command: 'bison', pkg: 'bison' },
  { command: 'bc', pkg: 'bc' },
  { command: 'cpio', pkg: 'cpio' },
  { command: 'perl', pkg: 'perl' },
];
export const KERNEL_BUILD_HEADERS = ['libelf-dev', 'libssl-dev'] as const;

/**
 * The command that builds the image. `kernel`: the repository's own `.config` (the architecture's default
 * when it has none), the task's fragment merged into it with the tree's `scripts/kconfig/merge_config.sh`
 * when present (appended otherwise; the later value wins either way), then `make olddefconfig` and the
 * image. `multiboot`: `make`. A task's `build` replaces either.
 */
export function guestBuildCommand(guest: GuestSpec): string {
  if (guest.build !== undefined) return guest.build;
  if (guest.kind === 'multiboot') return 'make';
  const lines = ['set -e', '[ -f .config ] || make defconfig'];
  if (guest.configFragment !== undefined) {
    const fragment = shellQuote(guest.configFragment);
    lines.push(
      'if [ -f scripts/kconfig/merge_config.sh ]; then',
      `  bash scripts/kconfig/merge_config.sh -m .config ${fragment}`,
      'else',
      `  cat ${fragment} >> .config`,
      'fi',
    );
  }
  lines.push('make olddefconfig', `make -j"$(nproc)" ${kernelTarget(guest.image)}`);
  return lines.join('\n');
}

/** The make target that leaves `image` (`arch/x86/boot/bzImage` → `bzImage`; `vmlinux` → `vmlinux`). */
function kernelTarget(image: string): string {
  const base = image.split('/').pop() ?? image;
  return /^[A-Za-z0-9_.-]+$/.test(base) ? base : 'bzImage';
}

/** The time limits of one guest: its boot under KVM and under TCG, and the check's whole budget. */
export function guestLimits(guest: GuestSpec): { kvmMs: number; tcgMs: number; checkMs: number } {
  const kvmMs = guest.withinMs;
  const tcgMs = guest.withinMs * TCG_SLOWDOWN;
  return { kvmMs, tcgMs, checkMs: GUEST_BUILD_LIMIT_MS[guest.kind] + tcgMs + CHECK_SLACK_MS };
}

/** The deploy recipe's part for a guest: its tools and its build, from the repository root. */
export function guestRecipe(goal: DeployGoal): Recipe | undefined {
  const guest = goal.guest;
  if (!guest) return undefined;
  return {
    id: `guest-${guest.kind}`,
    system: 'deploy',
    label: `${guest.kind === 'kernel' ? 'Linux kernel' : 'multiboot image'} under QEMU`,
    evidence: `the task asks for a ${guest.kind} guest (${guest.image}) booted under QEMU`,
    dir: '',
    tools: guest.kind === 'kernel' ? [...KERNEL_BUILD_TOOLS, QEMU_TOOL] : [QEMU_TOOL],
    steps: [
      ...(guest.kind === 'kernel'
        ? [
            {
              purpose: 'dependencies' as const,
              command: `dpkg -s ${KERNEL_BUILD_HEADERS.join(' ')} > /dev/null 2>&1 || bb_apt_install ${KERNEL_BUILD_HEADERS.join(' ')}`,
            },
          ]
        : []),
      { purpose: 'build', command: guestBuildCommand(guest) },
    ],
  };
}

const seconds = (ms: number): string => String(Math.ceil(ms / 1000));

/** The boot script: build, find QEMU, choose KVM or TCG, boot with the serial console in a file. */
export function guestScript(guest: GuestSpec, options: { kvm: boolean }): string {
  const limits = guestLimits(guest);
  const append = [
    ...(guest.kind === 'kernel' ? ['console=ttyS0', 'panic=-1'] : []),
    ...(guest.append !== undefined ? [guest.append] : []),
  ].join(' ');
  return [
    'set -u',
    `IMG=${shellQuote(guest.image)}`,
    `LOG=${shellQuote(GUEST_SERIAL_LOG)}`,
    'mkdir -p "$(dirname "$LOG")" && rm -f "$LOG"',
    `BLOG=${shellQuote(GUEST_BUILD_LOG)}`,
    `timeout -k 10 ${seconds(GUEST_BUILD_LIMIT_MS[guest.kind])} bash -c ${shellQuote(guestBuildCommand(guest))} > "$BLOG" 2>&1`,
    'rc=$?',
    'if [ "$rc" -ne 0 ]; then',
    '  tail -n 40 "$BLOG" >&2',
    // The check's detail quotes the last line: the first error of the build says more than make's last words.
    `  echo "guest: the image build failed (exit $rc): $(grep -m 1 -E '(error|Error|not found|No such file)' "$BLOG" | cut -c 1-240)" >&2`,
    '  exit 2',
    'fi',
    'if [ ! -s "$IMG" ]; then echo "guest: no image at $IMG after the build" >&2; exit 3; fi',
    'if ! command -v qemu-system-x86_64 > /dev/null 2>&1; then',
    '  echo "guest: qemu-system-x86_64 is not installed in the sandbox (apt-get install qemu-system-x86)" >&2',
    '  exit 127',
    'fi',
    options.kvm
      ? 'if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then kvm=1; else kvm=0; fi'
      : 'kvm=0',
    'if [ "$kvm" = 1 ]; then',
    '  accel="-enable-kvm -cpu host"',
    `  limit=${seconds(limits.kvmMs)}`,
    '  echo "guest: booting $IMG under QEMU with KVM (limit ${limit} s)"',
    'else',
    '  accel="-accel tcg"',
    `  limit=${seconds(limits.tcgMs)}`,
    `  echo "guest: warning: no usable /dev/kvm in the sandbox: booting $IMG under TCG emulation, which is slow (limit \${limit} s, ${TCG_SLOWDOWN}x the KVM limit)"`,
    'fi',
    // Which accelerator booted it, beside the log: evidence for the report (and the tests).
    `ACCEL=${shellQuote(GUEST_ACCEL_FILE)}`,
    'if [ "$kvm" = 1 ]; then echo kvm; else echo tcg; fi > "$ACCEL"',
    `QERR=${shellQuote(GUEST_QEMU_STDERR)}`,
    'boot() {',
    '  start=$(date +%s%N)',
    // -nodefaults: no NIC, no VGA, no ROMs to look for; the one serial port is the console, in a file.
    '  # shellcheck disable=SC2086',
    `  timeout -k 5 "$limit" qemu-system-x86_64 $accel -m ${GUEST_MEMORY_MB} -nodefaults -display none -no-reboot \\`,
    `    -name buildbench-guest -serial "file:$LOG" -kernel "$IMG"${append ? ` -append ${shellQuote(append)}` : ''} 2> "$QERR"`,
    '  rc=$?',
    '  cat "$QERR" >&2',
    '  ms=$(( ($(date +%s%N) - start) / 1000000 ))',
    '  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then',
    '    echo "guest: killed at its time limit of ${limit} s"',
    '  else',
    '    echo "guest: QEMU ended by itself after ${ms} ms (exit $rc)"',
    '  fi',
    '}',
    'boot',
    // A /dev/kvm that opens is not always one QEMU can run a guest on (a nested hypervisor that refuses an
    // MSR: `failed to set MSR 0x10a`, then an abort): QEMU fails at once and the guest never printed a line.
    // The same guest then boots under TCG, said as such, rather than failing the check on the machine.
    'if [ "$kvm" = 1 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && [ ! -s "$LOG" ]; then',
    '  accel="-accel tcg"',
    `  limit=${seconds(limits.tcgMs)}`,
    '  echo tcg > "$ACCEL"',
    '  echo "guest: warning: QEMU could not run the guest with KVM here (exit $rc: $(grep -m 1 . "$QERR" | cut -c 1-200)): booting it again under TCG emulation (limit ${limit} s)"',
    '  rm -f "$LOG"',
    '  boot',
    'fi',
    'exit "$rc"',
  ].join('\n');
}

/**
 * The layer-2 check of a goal's guest: build the image, boot it, and expect the task's pattern on the serial
 * console. `host.kvm`: the sandbox was given a usable /dev/kvm (its isolation record says so); without it
 * the guest boots under TCG with the stretched limit. Undefined when the goal has no guest.
 */
export function guestCheck(goal: DeployGoal, host: { kvm: boolean }): SpecCheck | undefined {
  const guest = goal.guest;
  if (!guest) return undefined;
  const limits = guestLimits(guest);
  return {
    name: `guest boots (${guest.kind}, ${host.kvm ? 'KVM when usable' : 'TCG'})`,
    command: guestScript(guest, host),
    timeoutMs: limits.checkMs,
    env: {},
    expect: {
      files: [],
      metrics: [],
      stdout: [],
      stdoutNot: [],
      stderr: [],
      stderrNot: [],
      output: [],
      outputNot: [],
      serialLog: { path: GUEST_SERIAL_LOG, pattern: guest.pattern, withinMs: limits.checkMs },
    },
    line: 0,
  };
}
