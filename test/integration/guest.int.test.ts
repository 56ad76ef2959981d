/**
 * Guests under QEMU for real (issue 15), in the rootfs sandbox: the multiboot fixture
 * (tasks/deploy-fixtures/multiboot-hello, a 9 KB kernel written here) built with gcc and booted under
 * Debian's qemu-system-x86_64, installed in the sandbox with apt, by the guest check of
 * src/deploy/guest.ts under TCG (what GitHub's runners have without the udev rule); the task's hidden
 * verifier on the result; a guest that never prints its pattern killed at its limit with no QEMU left
 * behind; and, where this machine's /dev/kvm is usable, the same boot with KVM passed into the sandbox.
 * Then the whole engine: `runBuild` with a deploy goal (the rules strategy's guest recipe installs QEMU and
 * builds the image, the guest check as the visible spec decides, the recipe replays).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

import { loadTaskFile } from '../../src/bench/load.js';
import type { DeployTask } from '../../src/bench/types.js';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import { guestCheck, TCG_SLOWDOWN } from '../../src/deploy/guest.js';
import type { DeployGoal } from '../../src/deploy/types.js';
import { probeKvm } from '../../src/sandbox/kvm.js';
import { createRootfsSandbox, type RootfsSandbox } from '../../src/sandbox/rootfs.js';
import { runSpec } from '../../src/verify/layer2.js';
import { loadSpec, type Layer2Spec, type SpecCheck } from '../../src/verify/spec.js';
import {
  LAYER_CREATION_TIMEOUT_MS,
  rootfsUnavailableReason,
  sandboxTestSettings,
} from '../helpers/sandbox.js';

const TASK = path.resolve('tasks/deploy-fixtures/multiboot-hello.yml');
const unavailable = await rootfsUnavailableReason();
if (unavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
  throw new Error(`BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${unavailable}`);
}
const describeRootfs = unavailable ? describe.skip : describe;
const kvmHere = (await probeKvm()).usable;

/** Installs QEMU in a sandbox; returns the seconds it took (printed: the issue asks how long). */
async function installQemu(sandbox: RootfsSandbox): Promise<number> {
  const started = Date.now();
  const result = await sandbox.exec(
    'command -v qemu-system-x86_64 > /dev/null || { apt-get update -q && apt-get install -y -q --no-install-recommends qemu-system-x86; }',
    { timeoutMs: 10 * 60_000 },
  );
  expect([result.exitCode, result.output.slice(-2000)]).toEqual([0, expect.anything()]);
  return (Date.now() - started) / 1000;
}

/** Pids of QEMU processes on this machine started by a guest check (`-name buildbench-guest`). */
function guestQemuPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes('qemu-system-x86_64') && cmdline.includes('buildbench-guest'))
      pids.push(Number(entry));
  }
  return pids;
}

function specOf(...checks: SpecCheck[]): Layer2Spec {
  return { file: 'guest', hidden: false, probes: { run: false, debugInfo: false }, checks };
}

let goal: DeployGoal;

beforeAll(async () => {
  const task = (await loadTaskFile(TASK)) as DeployTask;
  goal = {
    target: { command: task.target.command, cwd: '', timeoutMs: 120_000, evidence: task.target.evidence },
    requires: task.requires,
    registries: { mode: 'offline', mirrors: {} },
    guest: task.guest!,
    taskFile: TASK,
  };
});

describeRootfs('a multiboot guest under QEMU in the rootfs sandbox', () => {
  let sandbox: RootfsSandbox;
  const task = (): Promise<DeployTask> => loadTaskFile(TASK) as Promise<DeployTask>;

  beforeAll(async () => {
    sandbox = await createRootfsSandbox(sandboxTestSettings('rootfs'), {
      repoDir: (await task()).repository.source,
      name: 'guest-tcg',
    });
    const seconds = await installQemu(sandbox);
    console.log(`qemu-system-x86 installed in the sandbox in ${seconds.toFixed(1)} s`);
  }, LAYER_CREATION_TIMEOUT_MS);

  afterAll(async () => {
    await sandbox?.dispose();
  });

  it('builds the image and boots it under TCG to its serial line', async () => {
    expect(sandbox.isolation?.devices).toBeUndefined(); // KVM not asked for: not passed
    const started = Date.now();
    const result = await runSpec(specOf(guestCheck(goal, { kvm: false })!), sandbox);
    const [boot] = result.checks;
    console.log(
      `multiboot guest built and booted under TCG in ${(Date.now() - started) / 1000} s: ${boot?.detail}`,
    );
    expect(boot?.passed).toBe(true);
    expect(boot?.detail).toMatch(
      /^\.buildbench\/guest\/serial\.log shows \/\^multiboot-hello: hello from a bare-metal guest\/ after [0-9.]+ s$/,
    );
    expect(guestQemuPids()).toEqual([]); // stopped once the line showed
    const accel = await sandbox.exec('cat .buildbench/guest/accel', { timeoutMs: 10_000 });
    expect(accel.output.trim()).toBe('tcg');
  }, 120_000);

  it("passes the task's hidden verifier", async () => {
    const hidden = await loadSpec((await task()).verifier.spec);
    expect(hidden.hidden).toBe(true);
    const result = await runSpec(hidden, sandbox);
    expect(result.checks.map((c) => [c.name, c.passed, c.detail])).toEqual([
      ['the image is a 32-bit multiboot ELF', true, expect.stringMatching(/stdout matches/)],
      ['boots to its serial line', true, expect.stringMatching(/multiboot-hello-verifier\.log shows/)],
    ]);
  }, 120_000);

  it('kills a guest that never prints its pattern at its limit, and leaves no QEMU running', async () => {
    const silent: DeployGoal = { ...goal, guest: { ...goal.guest!, pattern: '^login:', withinMs: 2000 } };
    const started = Date.now();
    const [boot] = (await runSpec(specOf(guestCheck(silent, { kvm: false })!), sandbox)).checks;
    const seconds = (Date.now() - started) / 1000;
    expect(boot?.passed).toBe(false);
    expect(boot?.detail).toMatch(/^\.buildbench\/guest\/serial\.log has no match for \/\^login:\//);
    // TCG: 4 × 2 s, then timeout's TERM; the wait ends with the guest, not at the check's whole budget.
    expect(seconds).toBeGreaterThanOrEqual(2 * TCG_SLOWDOWN - 1);
    expect(seconds).toBeLessThan(60);
    expect(guestQemuPids()).toEqual([]);
    const log = await sandbox.exec('cat .buildbench/guest/serial.log', { timeoutMs: 10_000 });
    expect(log.output).toContain('multiboot-hello: halting'); // it ran, printed, halted, and was killed
  }, 120_000);
});

(unavailable || !kvmHere ? describe.skip : describe)('the same guest with /dev/kvm passed in', () => {
  let sandbox: RootfsSandbox;

  beforeAll(async () => {
    sandbox = await createRootfsSandbox(sandboxTestSettings('rootfs'), {
      repoDir: path.resolve('tasks/deploy-fixtures/multiboot-hello'),
      name: 'guest-kvm',
      devices: { kvm: true },
    });
    await installQemu(sandbox);
  }, LAYER_CREATION_TIMEOUT_MS);

  afterAll(async () => {
    await sandbox?.dispose();
  });

  it('records KVM as passed and boots with it (where QEMU cannot run a guest on it, under TCG, said)', async () => {
    expect(sandbox.isolation?.devices?.find((d) => d.device === 'kvm')).toEqual({
      device: 'kvm',
      passed: true,
      how: 'passed (bubblewrap --dev-bind /dev/kvm /dev/kvm)',
      paths: ['/dev/kvm'],
    });
    // Whether QEMU can run a guest on this machine's KVM at all (a nested hypervisor may refuse it: QEMU aborts
    // with `failed to set MSR`): the same guest booted directly.
    const out = await sandbox.exec(
      'test -c /dev/kvm && qemu-system-x86_64 -enable-kvm -cpu host -m 64 -nodefaults -display none -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x04 -serial stdio -kernel hello.elf; echo "rc=$?"',
      { timeoutMs: 60_000 },
    );
    const qemuRunsKvm = /multiboot-hello: hello from a bare-metal guest[\s\S]*rc=1/.test(out.output);
    const [boot] = (await runSpec(specOf(guestCheck(goal, { kvm: true })!), sandbox)).checks;
    expect(boot?.passed).toBe(true);
    const accel = await sandbox.exec('cat .buildbench/guest/accel', { timeoutMs: 10_000 });
    expect(accel.output.trim()).toBe(qemuRunsKvm ? 'kvm' : 'tcg');
    if (!qemuRunsKvm)
      console.log(`QEMU cannot run a guest on this machine's KVM: ${out.output.trim().split('\n')[0]}`);
  }, 120_000);
});

describeRootfs('a deploy run with a guest, through the whole engine', () => {
  const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-guest-'));

  afterAll(() => {
    rmSync(outRoot, { recursive: true, force: true });
  });

  it(
    'installs QEMU and builds the image by the guest recipe; the boot check decides; the recipe replays',
    async () => {
      // Until `buildbench deploy` composes the target's spec, the guest check goes in as a visible spec file.
      const specFile = path.join(outRoot, 'guest.spec.yml');
      const check = guestCheck(goal, { kvm: goal.requires.includes('kvm') })!;
      writeFileSync(
        specFile,
        stringify({
          name: 'guest',
          checks: [
            {
              name: check.name,
              command: check.command,
              timeout: `${check.timeoutMs}ms`,
              expect: {
                serial_log: {
                  path: check.expect.serialLog!.path,
                  pattern: check.expect.serialLog!.pattern,
                  within: `${check.expect.serialLog!.withinMs}ms`,
                },
              },
            },
          ],
        }),
      );
      const settings: BuildSettings = {
        source: path.resolve('tasks/deploy-fixtures/multiboot-hello'),
        outDir: path.join(outRoot, 'out'),
        strategy: 'rules',
        maxTurns: 3,
        timeoutMs: 8 * 60_000,
        turnTimeoutMs: 5 * 60_000,
        expect: [],
        spec: specFile,
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
        deploy: goal,
      };
      const started = Date.now();
      const result = await runBuild(settings);
      console.log(`deploy run with a guest: ${result.status} in ${(Date.now() - started) / 1000} s`);
      expect(result.status).toBe('success');
      const boot = result.verification?.checks.find((c) => c.name.startsWith('spec: guest boots'));
      expect(boot).toMatchObject({ passed: true, required: true });
      expect(result.sandbox.isolation?.devices?.find((d) => d.device === 'kvm')).toMatchObject({
        passed: kvmHere,
      });
      expect([result.recipe?.verified, result.recipe?.replay.reason]).toEqual([true, expect.anything()]);
    },
    10 * 60_000,
  );
});
