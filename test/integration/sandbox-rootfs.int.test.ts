/**
 * The rootfs backend for real: debootstrapped Debian + toolchain layer + overlay + unshare/chroot.
 * Needs root, util-linux, overlayfs and debootstrap (or a cached base); skipped with a note otherwise, unless
 * BUILDBENCH_REQUIRE_ROOTFS=1. The first run builds the cached layers (~1.5-4 min).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseAptCachePolicy } from '../../src/knowledge/repair/package-index.js';
import {
  checkedPackageState,
  PACKAGE_STATE_SCRIPT,
  PackageState,
} from '../../src/knowledge/repair/package-state.js';
import { createSandbox } from '../../src/sandbox/factory.js';
import {
  createRootfsSandbox,
  ensureRootfsLayers,
  rootfsPaths,
  type RootfsSandbox,
} from '../../src/sandbox/rootfs.js';
import {
  eventually,
  expectEpilogueRuns,
  hostMountsUnder,
  hostProcessesWith,
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  rootfsUnavailableReason,
  sandboxTestSettings,
} from '../helpers/sandbox.js';

const unavailable = await rootfsUnavailableReason();
if (unavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
  throw new Error(`BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${unavailable}`);
}
if (unavailable) console.warn(`skipping the rootfs sandbox tests: ${unavailable}`);
const describeRootfs = unavailable ? describe.skip : describe;

const settings = sandboxTestSettings('rootfs');
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describeRootfs('rootfs sandbox', () => {
  let repo: string;
  let sandbox: RootfsSandbox;

  beforeAll(async () => {
    repo = await makeFixtureRepo();
    await ensureRootfsLayers({ ...settings, onProgress: (m) => console.log(m) });
    sandbox = await createRootfsSandbox(settings, { repoDir: repo, name: 'rootfs-int' });
  }, LAYER_CREATION_TIMEOUT_MS);

  afterAll(async () => {
    await sandbox?.dispose();
    if (repo) await rm(repo, { recursive: true, force: true });
    expect(hostMountsUnder(settings.workRoot)).toEqual([]);
  });

  it('describes itself', () => {
    expect(sandbox.kind).toBe('rootfs');
    expect(sandbox.image).toBe('debian:bookworm');
    expect(sandbox.workdir).toBe('/workspace');
    expect(sandbox.hostWorkdir).toBe(join(settings.workRoot, sandbox.id, 'workspace'));
    expect(sandbox.describeLocation()).toContain(join(settings.workRoot, sandbox.id));
  });

  it('passes exit codes and output through, in /workspace with the .git folder', async () => {
    const result = await sandbox.exec('pwd; cat .git/HEAD; echo to-stderr >&2; exit 3', {
      timeoutMs: 30_000,
    });
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe('/workspace\nref: refs/heads/main\nto-stderr\n');
    const sub = await sandbox.exec('pwd', { timeoutMs: 30_000, cwd: 'src' });
    expect(sub.output).toBe('/workspace/src\n');
    const abs = await sandbox.exec('pwd', { timeoutMs: 30_000, cwd: '/usr/share' });
    expect(abs.output).toBe('/usr/share\n');
  });

  it('runs an epilogue after a script that exits 0, in the same command, its output and status not the result', async () => {
    await expectEpilogueRuns(sandbox);
  });

  it('has the toolchain and compiles into the host working copy', async () => {
    const result = await sandbox.exec('gcc -o hello src/hello.c && ./hello && cmake --version | head -1', {
      timeoutMs: 60_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^hello\ncmake version/);
    expect(existsSync(join(sandbox.hostWorkdir, 'hello'))).toBe(true);
    expect(existsSync(join(repo, 'hello'))).toBe(false);
  });

  it('lets only the allowlist and the given variables in', async () => {
    process.env.BB_PLANTED_SECRET = 'planted-secret-value';
    try {
      const result = await sandbox.exec('env | sort', {
        timeoutMs: 30_000,
        env: { CC: 'gcc', WEIRD: 'a \'b\' "c"\nd' },
      });
      expect(result.output).not.toContain('planted-secret-value');
      const names = result.output
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split('=')[0]);
      expect(names.sort()).toEqual(
        [
          'CC',
          'DEBIAN_FRONTEND',
          'HOME',
          'LANG',
          'OLDPWD',
          'PATH',
          'PWD',
          'SHLVL',
          'TERM',
          'WEIRD',
          '_',
          // The build cache's variables (ccache's store, no configuration file, its size, its mode), when there
          // is one.
          ...(settings.buildCache
            ? ['CCACHE_CONFIGPATH', 'CCACHE_DEPEND', 'CCACHE_DIR', 'CCACHE_MAXSIZE']
            : []),
        ].sort(),
      );
      const weird = await sandbox.exec('printf "%s|" "$WEIRD"', {
        timeoutMs: 30_000,
        env: { WEIRD: 'a \'b\' "c"\nd $HOME' },
      });
      expect(weird.output).toBe('a \'b\' "c"\nd $HOME|');
    } finally {
      delete process.env.BB_PLANTED_SECRET;
    }
  });

  it('keeps system changes across exec calls, but not processes', async () => {
    const write = await sandbox.exec(
      'echo persisted > /usr/local/share/bb-state && (sleep 3107 &) && echo started',
      { timeoutMs: 30_000 },
    );
    expect(write.output).toBe('started\n');
    const read = await sandbox.exec('cat /usr/local/share/bb-state; ps -eo args | grep -c "[s]leep 3107"', {
      timeoutMs: 30_000,
    });
    expect(read.output).toBe('persisted\n0\n');
    expect(hostProcessesWith('sleep 3107')).toEqual([]);
    expect(readFileSync(join(settings.workRoot, sandbox.id, 'upper/usr/local/share/bb-state'), 'utf8')).toBe(
      'persisted\n',
    );
  });

  it('installs a package with apt-get without an update first, and apt-file works offline', async () => {
    const result = await sandbox.exec(
      'apt-get install -y --no-install-recommends tree >/dev/null && tree --version',
      {
        timeoutMs: 300_000,
      },
    );
    expect(result.output).toMatch(/tree v\d/);
    expect(result.exitCode).toBe(0);
    const search = await sandbox.exec('apt-file search --package-only bin/ninja', { timeoutMs: 120_000 });
    expect(search.output).toContain('ninja-build');
  }, 400_000);

  it('kills the whole namespace on timeout and leaves nothing mounted or running', async () => {
    const started = Date.now();
    const result = await sandbox.exec('sleep 3101 & setsid sleep 3102 & (trap "" TERM; sleep 3103)', {
      timeoutMs: 1500,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await eventually(() => hostProcessesWith('sleep 310').length === 0)).toBe(true);
    expect(hostMountsUnder(settings.workRoot)).toEqual([]);
    const after = await sandbox.exec('echo still usable', { timeoutMs: 30_000 });
    expect(after.output).toBe('still usable\n');
  });

  it('cancels through an AbortSignal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const result = await sandbox.exec('sleep 3104', { timeoutMs: 60_000, signal: controller.signal });
    expect(result.cancelled).toBe(true);
    expect(await eventually(() => hostProcessesWith('sleep 3104').length === 0)).toBe(true);
  });

  it('caps the output and streams it all to the log file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-rootfs-log-'));
    try {
      const logPath = join(dir, 'exec.log');
      const chunks: string[] = [];
      const result = await sandbox.exec('seq 1 200000', {
        timeoutMs: 60_000,
        logPath,
        onOutput: (c) => chunks.push(c),
      });
      expect(result.truncated).toBe(true);
      expect(result.totalBytes).toBe(readFileSync(logPath).length);
      expect(result.output.length).toBeLessThan(100_000 + 200);
      expect(result.output).toMatch(/^1\n2\n/);
      expect(result.output).toMatch(/\n200000\n$/);
      expect(chunks.join('')).toBe(readFileSync(logPath, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves nothing running when buildbench itself is killed mid-command', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-rootfs-crash-'));
    let out = '';
    try {
      const script = join(dir, 'crash.mts');
      await writeFile(
        script,
        [
          `import { createRootfsSandbox } from ${JSON.stringify(join(repoRoot, 'src/sandbox/rootfs.ts'))};`,
          `const sandbox = await createRootfsSandbox(${JSON.stringify(settings)}, { repoDir: ${JSON.stringify(repo)}, name: 'crash' });`,
          `console.log('BUILD_DIR=' + sandbox.buildDir);`,
          `await sandbox.exec('echo RUNNING; sleep 3105', { timeoutMs: 60000, onOutput: (c) => process.stdout.write(c) });`,
        ].join('\n'),
      );
      // node itself (not the tsx wrapper, which would run node as a grandchild) is the process that dies.
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      expect(await eventually(() => out.includes('RUNNING'), 60_000)).toBe(true);
      expect(hostProcessesWith('sleep 3105')).toHaveLength(1);
      child.kill('SIGKILL');
      await eventually(() => hostProcessesWith('sleep 3105').length === 0);
      expect(hostProcessesWith('sleep 3105')).toEqual([]);
      expect(hostMountsUnder(settings.workRoot)).toEqual([]);
    } finally {
      const buildDir = /BUILD_DIR=(\S+)/.exec(out)?.[1];
      if (buildDir) await rm(buildDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describeRootfs('rootfs sandbox lifecycle', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
    await ensureRootfsLayers({ ...settings, onProgress: (m) => console.log(m) });
  }, LAYER_CREATION_TIMEOUT_MS);
  afterAll(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('dispose removes everything; a fresh sandbox does not see the old one', async () => {
    const first = await createSandbox(settings, { repoDir: repo, name: 'life' });
    expect(first.kind).toBe('rootfs');
    await first.exec('touch /etc/bb-marker /workspace/made', { timeoutMs: 30_000 });
    const second = await createSandbox(settings, { repoDir: repo, name: 'life' });
    const check = await second.exec(
      'ls /etc/bb-marker /workspace/made 2>&1 | wc -l; ls /etc/bb-marker 2>/dev/null || echo clean',
      {
        timeoutMs: 30_000,
      },
    );
    expect(check.output).toContain('clean');
    const dir = join(settings.workRoot, first.id);
    expect(existsSync(dir)).toBe(true);
    await first.dispose();
    await first.dispose();
    expect(existsSync(dir)).toBe(false);
    await expect(first.exec('true', { timeoutMs: 1000 })).rejects.toThrow(/disposed/);
    await second.dispose();
  });

  it('keep leaves the build folder for inspection', async () => {
    const sandbox = await createSandbox(settings, { repoDir: repo, name: 'kept' });
    await sandbox.exec('echo kept > /workspace/out.txt', { timeoutMs: 30_000 });
    await sandbox.dispose({ keep: true });
    expect(readFileSync(join(sandbox.hostWorkdir, 'out.txt'), 'utf8')).toBe('kept\n');
    expect(hostMountsUnder(settings.workRoot)).toEqual([]);
    await rm(join(settings.workRoot, sandbox.id), { recursive: true, force: true });
  });

  it('an offline command gets only a loopback; the same sandbox’s other commands keep its network', async () => {
    const box = await createRootfsSandbox(
      { ...settings, network: 'isolated' },
      { repoDir: repo, name: 'offline' },
    );
    try {
      const interfaces =
        "awk -F: 'NR > 2 { gsub(/ /, \"\", $1); print $1 }' /proc/net/dev | sort | tr '\\n' ' '";
      const offline = await box.exec(interfaces, { timeoutMs: 30_000, offline: true });
      expect(offline.output.trim()).toBe('lo');
      const online = await box.exec(interfaces, { timeoutMs: 30_000 });
      expect(online.output.trim()).toBe('lo tap0');
    } finally {
      await box.dispose();
    }
  }, 120_000);

  it("answers package look-ups from the image's package state as apt inside does, while nothing changed them", async () => {
    const box = await createRootfsSandbox(settings, { repoDir: repo, name: 'package-state' });
    try {
      const lists = box.packageLists!;
      expect(lists.asImage()).toBe(true);
      // The dump, made in this untouched sandbox, checks; its answers are apt-cache policy's, name for name.
      const scratch = await mkdtemp(join(tmpdir(), 'bb-int-state-'));
      const log = join(scratch, 'dump.log');
      const dump = await box.exec(PACKAGE_STATE_SCRIPT, { timeoutMs: 120_000, offline: true, logPath: log });
      expect(dump.exitCode).toBe(0);
      const checked = checkedPackageState(readFileSync(log, 'utf8'));
      expect(checked).toBeDefined();
      const file = join(scratch, 'state.tsv');
      await writeFile(file, checked!);
      const names = [
        'libc6-dev',
        'gcc',
        'zlib1g-dev',
        'libyaml-dev',
        'libboost-system-dev',
        'no-such-package-x',
      ];
      const inside = await box.exec(`apt-cache policy ${names.join(' ')} 2>/dev/null`, {
        timeoutMs: 60_000,
        offline: true,
      });
      expect(PackageState.open(file)!.policy(names)).toEqual(parseAptCachePolicy(inside.output));

      // A build that only compiles leaves them the image's; one that installs a package does not.
      await box.exec(
        'mkdir -p /tmp/x /workspace/build && echo "int main(){}" > /tmp/x/a.c && cc /tmp/x/a.c -o /tmp/x/a',
        {
          timeoutMs: 60_000,
        },
      );
      expect(lists.asImage()).toBe(true);
      await box.exec('apt-get install -y -q zlib1g-dev >/dev/null 2>&1', { timeoutMs: 300_000 });
      expect(box.packageLists!.asImage()).toBe(false);
    } finally {
      await box.dispose();
    }
    // A build that puts a link where /var/lib was is a change too (and the link is not followed).
    const linked = await createRootfsSandbox(settings, { repoDir: repo, name: 'package-state-link' });
    try {
      expect(linked.packageLists!.asImage()).toBe(true);
      await linked.exec('mv /var/lib /var/lib.old && ln -s /tmp /var/lib', { timeoutMs: 60_000 });
      expect(linked.packageLists!.asImage()).toBe(false);
    } finally {
      await linked.dispose();
    }
    // A sandbox that is gone has no packages to speak of.
    const gone = await createRootfsSandbox(settings, { repoDir: repo, name: 'package-state-gone' });
    expect(gone.packageLists!.asImage()).toBe(true);
    await gone.dispose();
    expect(gone.packageLists!.asImage()).toBe(false);
  }, 600_000);

  it("bakes this machine's extra CA certificates into one cached layer, trusted before anything runs", async () => {
    // A CA made for this test (its key was not kept): the layer's hash covers it, so it gets its own layer.
    const pem = readFileSync(join(repoRoot, 'test/fixtures/ca/test-ca.crt'), 'utf8').trim();
    const body = pem.split('\n')[1]!;
    const check = `grep -c -F '${body}' /etc/ssl/certs/ca-certificates.crt; ls /usr/local/share/ca-certificates/buildbench-host/`;
    const trustLayers = (): string[] =>
      readdirSync(rootfsPaths(settings.cacheDir, settings.suite).suiteDir).filter((n) =>
        n.startsWith('trust-'),
      );
    const boxes: RootfsSandbox[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const box = await createRootfsSandbox(settings, {
          repoDir: repo,
          name: `ca-${i}`,
          hostCertificates: [pem],
        });
        boxes.push(box);
        expect(box.hostCertificatesInstalled).toBe(true);
        const seen = await box.exec(check, { timeoutMs: 30_000 });
        expect(seen.output).toBe('1\nbuildbench-host-001.crt\n');
      }
      // The second sandbox used the layer the first one made.
      expect(boxes[0]!.layers.lowerdirs).toEqual(boxes[1]!.layers.lowerdirs);
      expect(trustLayers().filter((n) => boxes[0]!.layers.lowerdirs[0]!.includes(n))).toHaveLength(1);
      // A sandbox asked for none has none.
      const plain = await createRootfsSandbox(settings, { repoDir: repo, name: 'ca-none' });
      boxes.push(plain);
      expect(plain.hostCertificatesInstalled).toBe(false);
      expect((await plain.exec(check, { timeoutMs: 30_000 })).output).toMatch(/^0\n/);
    } finally {
      for (const box of boxes) await box.dispose();
    }
  }, 300_000);

  it('gives a clear error for a repository that does not exist', async () => {
    await expect(createSandbox(settings, { repoDir: '/nonexistent/repo', name: 'x' })).rejects.toThrow(
      /does not exist/,
    );
  });
});
