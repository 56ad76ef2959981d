/**
 * The guest check's parts (src/deploy/guest.ts): the build command per kind, the limits (TCG ×4), the recipe
 * part, and the boot script run for real in the host sandbox with a stand-in `qemu-system-x86_64` on PATH
 * (a bash script that writes what a guest would to the `-serial file:` it is given, or hangs): the build,
 * the TCG warning, the kill at the limit, a missing QEMU said in words. The real QEMU runs in
 * test/integration/guest.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  guestBuildCommand,
  guestCheck,
  guestLimits,
  guestRecipe,
  GUEST_ACCEL_FILE,
  TCG_SLOWDOWN,
} from '../../../src/deploy/guest.js';
import type { DeployGoal, GuestSpec } from '../../../src/deploy/types.js';
import { createHostSandbox } from '../../../src/sandbox/host.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { runSpec } from '../../../src/verify/layer2.js';
import { sandboxTestSettings } from '../../helpers/sandbox.js';

/** What the check's scripts (the guest script and layer-2's wrapper) run, for a PATH without QEMU. */
const TOOLS = [
  'bash',
  'sh',
  'make',
  'mkdir',
  'dirname',
  'rm',
  'timeout',
  'date',
  'sleep',
  'cat',
  'find',
  'grep',
  'tail',
  'printf',
];

const MULTIBOOT: GuestSpec = {
  kind: 'multiboot',
  image: 'hello.elf',
  pattern: '^hello from the guest',
  withinMs: 2000,
};

function goal(guest: GuestSpec | undefined): DeployGoal {
  return {
    target: { command: 'true', cwd: '', timeoutMs: 60_000, evidence: {} },
    requires: ['kvm'],
    registries: { mode: 'auto', mirrors: {} },
    ...(guest ? { guest } : {}),
  };
}

describe('guest build, limits and recipe', () => {
  it('builds a kernel with its own config, the fragment merged, then olddefconfig', () => {
    const command = guestBuildCommand({
      kind: 'kernel',
      image: 'arch/x86/boot/bzImage',
      configFragment: 'ci/tiny serial.config',
      pattern: 'x',
      withinMs: 1000,
    });
    expect(command.split('\n')).toEqual([
      'set -e',
      '[ -f .config ] || make defconfig',
      'if [ -f scripts/kconfig/merge_config.sh ]; then',
      "  bash scripts/kconfig/merge_config.sh -m .config 'ci/tiny serial.config'",
      'else',
      "  cat 'ci/tiny serial.config' >> .config",
      'fi',
      'make olddefconfig',
      'make -j"$(nproc)" bzImage',
    ]);
    expect(guestBuildCommand(MULTIBOOT)).toBe('make');
    expect(guestBuildCommand({ ...MULTIBOOT, build: './build.sh' })).toBe('./build.sh');
  });

  it('gives TCG four times the KVM limit', () => {
    const limits = guestLimits(MULTIBOOT);
    expect(TCG_SLOWDOWN).toBe(4);
    expect([limits.kvmMs, limits.tcgMs]).toEqual([2000, 8000]);
    expect(limits.checkMs).toBeGreaterThan(limits.tcgMs);
  });

  it('adds QEMU (and a kernel’s build tools) and the image build to the deploy recipe', () => {
    expect(guestRecipe(goal(undefined))).toBeUndefined();
    const multiboot = guestRecipe(goal(MULTIBOOT))!;
    expect(multiboot.tools).toEqual([{ command: 'qemu-system-x86_64', pkg: 'qemu-system-x86' }]);
    expect(multiboot.steps).toEqual([{ purpose: 'build', command: 'make' }]);
    const kernel = guestRecipe(
      goal({ kind: 'kernel', image: 'arch/x86/boot/bzImage', pattern: 'x', withinMs: 1 }),
    )!;
    expect(kernel.tools.map((t) => t.pkg)).toEqual([
      'flex',
      'bison',
      'bc',
      'cpio',
      'perl',
      'qemu-system-x86',
    ]);
    expect(kernel.steps[0]).toEqual({
      purpose: 'dependencies',
      command: 'dpkg -s libelf-dev libssl-dev > /dev/null 2>&1 || bb_apt_install libelf-dev libssl-dev',
    });
  });
});

describe('the boot check, with a stand-in QEMU', () => {
  let sandbox: Sandbox;
  let repo: string;
  const bin = mkdtempSync(path.join(tmpdir(), 'bb-fake-qemu-'));
  const tools = path.join(bin, 'tools');

  beforeAll(async () => {
    repo = mkdtempSync(path.join(tmpdir(), 'bb-guest-repo-'));
    mkdirSync(path.join(repo, '.git'));
    writeFileSync(path.join(repo, 'Makefile'), 'hello.elf:\n\tprintf "ELF" > hello.elf\n');
    // Prints its arguments, then acts as a guest: writes the serial file given by -serial file:PATH.
    writeFileSync(
      path.join(bin, 'qemu-system-x86_64'),
      [
        '#!/bin/bash',
        'echo "fake qemu $*"',
        'for a in "$@"; do case "$a" in file:*) log=${a#file:} ;; esac; done',
        'case "${FAKE_GUEST:-}" in',
        '  hello) printf "booting\\nhello from the guest\\n" > "$log"; exec sleep 60 ;;',
        '  silent) printf "booting\\n" > "$log"; exec sleep 60 ;;',
        'esac',
      ].join('\n'),
    );
    chmodSync(path.join(bin, 'qemu-system-x86_64'), 0o755);
    mkdirSync(tools);
    for (const tool of TOOLS) {
      const real = ['/usr/bin', '/bin'].map((d) => path.join(d, tool)).find((p) => existsSync(p));
      if (real) symlinkSync(real, path.join(tools, tool));
    }
    sandbox = await createHostSandbox(sandboxTestSettings('host', { allowHost: true }), {
      repoDir: repo,
      name: 'guest-unit',
    });
  });

  afterAll(async () => {
    await sandbox?.dispose();
    rmSync(repo, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  });

  /** The guest check with the stand-in first on PATH and its behaviour chosen by FAKE_GUEST. */
  async function boot(guest: GuestSpec, fake: string, qemu = true) {
    const check = guestCheck(goal(guest), { kvm: false })!;
    const env = {
      // Without the stand-in: only the tools the scripts use (this machine may have a real QEMU).
      PATH: qemu ? `${bin}:/usr/local/bin:/usr/bin:/bin` : tools,
      FAKE_GUEST: fake,
    };
    const spec = {
      file: 'guest',
      hidden: false,
      probes: { run: false, debugInfo: false },
      checks: [{ ...check, env }],
    };
    return (await runSpec(spec, sandbox)).checks[0]!;
  }

  it('builds the image, boots it under TCG with a warning, and passes on the serial line', async () => {
    const outcome = await boot(MULTIBOOT, 'hello');
    expect(outcome).toMatchObject({ passed: true });
    expect(outcome.detail).toMatch(
      /^\.buildbench\/guest\/serial\.log shows \/\^hello from the guest\/ after/,
    );
    expect(readFileSync(path.join(sandbox.hostWorkdir, 'hello.elf'), 'utf8')).toBe('ELF');
    expect(readFileSync(path.join(sandbox.hostWorkdir, GUEST_ACCEL_FILE), 'utf8')).toBe('tcg\n');
  });

  it('kills a guest that stays silent at its TCG limit', async () => {
    const started = Date.now();
    const outcome = await boot({ ...MULTIBOOT, withinMs: 1000 }, 'silent');
    expect(outcome.passed).toBe(false);
    expect(outcome.detail).toMatch(
      /^\.buildbench\/guest\/serial\.log has no match for \/\^hello from the guest\//,
    );
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(TCG_SLOWDOWN - 0.5);
    expect(seconds).toBeLessThan(20);
  }, 30_000);

  it('says when QEMU is not installed, and when the image build fails', async () => {
    const noQemu = await boot(MULTIBOOT, 'hello', false);
    expect(noQemu.passed).toBe(false);
    expect(noQemu.detail).toMatch(
      /^\.buildbench\/guest\/serial\.log is missing or empty after \d+ s \(last output: guest: qemu-system-x86_64 is not installed in the sandbox \(apt-get install qemu-system-x86\)\)$/,
    );
    const broken = await boot({ ...MULTIBOOT, build: 'echo "cc: error" >&2; exit 2' }, 'hello');
    expect(broken.passed).toBe(false);
    expect(broken.detail).toMatch(/\(last output: guest: the image build failed \(exit 2\): cc: error\)$/);
  });
});
