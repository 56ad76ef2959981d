/**
 * The rootfs sandbox behind this machine's network setup, for real: without the host's extra CA certificates
 * an HTTPS download inside fails where this machine's egress intercepts TLS (it does on the machines the
 * project is built on: SELF_SIGNED_CERT_IN_CHAIN / CERTIFICATE_VERIFY_FAILED); through createSandbox it
 * works, and the recording proxy lists the hosts contacted. Needs the npm registry and Debian's archive.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';

import { outwardAddress } from '../../src/sandbox/egress-proxy.js';
import { createSandbox } from '../../src/sandbox/factory.js';
import { createRootfsSandbox, ensureRootfsLayers } from '../../src/sandbox/rootfs.js';
import { readHostTrust } from '../../src/sandbox/trust.js';
import {
  LAYER_CREATION_TIMEOUT_MS,
  makeFixtureRepo,
  rootfsUnavailableReason,
  sandboxTestSettings,
} from '../helpers/sandbox.js';

const unavailable = await rootfsUnavailableReason();
if (unavailable && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') {
  throw new Error(`BUILDBENCH_REQUIRE_ROOTFS=1 but the rootfs sandbox cannot run here: ${unavailable}`);
}
const describeRootfs = unavailable ? describe.skip : describe;
const settings = sandboxTestSettings('rootfs');

/** Python's urllib (the toolchain layer has python3, not curl): prints the status, or the TLS error. */
const FETCH = `python3 - <<'PY'
import urllib.request
try:
    print('status', urllib.request.urlopen('https://registry.npmjs.org/is-number', timeout=30).status)
except Exception as e:
    print('error', e)
PY`;

/** CONNECT through the sandbox's HTTPS_PROXY to this machine's loopback and own address: prints each answer's status. */
const ESCAPE = `python3 - <<'PY'
import os, socket, urllib.parse
proxy = urllib.parse.urlparse(os.environ['HTTPS_PROXY'])
for host in ['127.0.0.1', os.environ['OWN'], 'localhost']:
    s = socket.create_connection((proxy.hostname, proxy.port), timeout=10)
    s.sendall(('CONNECT %s:%s HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' % (host, os.environ['PORT'])).encode())
    print(host, s.recv(200).decode().split(' ')[1])
    s.close()
PY`;

let service: Server;
let port = 0;
let connections = 0;
const own = outwardAddress() ?? '127.0.0.1';

describeRootfs('the rootfs sandbox trusts what this machine trusts, and records its egress', () => {
  let repo: string;
  beforeAll(async () => {
    service = createServer((socket) => {
      connections++;
      socket.end('HOST SERVICE\n');
    });
    await new Promise<void>((ok) => service.listen(0, '0.0.0.0', ok));
    port = (service.address() as AddressInfo).port;
    repo = await makeFixtureRepo();
    await ensureRootfsLayers({ ...settings, onProgress: (m) => console.log(m) });
  }, LAYER_CREATION_TIMEOUT_MS);
  afterAll(async () => {
    await new Promise<void>((ok) => service.close(() => ok()));
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('a bare sandbox fails HTTPS exactly when this machine has extra CAs; createSandbox’s works', async () => {
    const extra = readHostTrust().certificates.length;
    const bare = await createRootfsSandbox(settings, { repoDir: repo, name: 'trust-bare' });
    try {
      const before = await bare.exec(FETCH, { timeoutMs: 60_000 });
      if (extra > 0) expect(before.output).toMatch(/CERTIFICATE_VERIFY_FAILED|self[- ]signed/i);
      else expect(before.output).toContain('status 200');
    } finally {
      await bare.dispose();
    }

    const sandbox = await createSandbox(settings, { repoDir: repo, name: 'trust-fixed' });
    try {
      expect(sandbox.isolation?.hostNetwork).toMatchObject({ caCertificates: extra, notes: [] });
      // They came from the cached CA layer, not from commands run in this sandbox.
      expect(sandbox.hostCertificatesInstalled === true).toBe(extra > 0);
      const after = await sandbox.exec(`${FETCH}\napt-get update 2>&1 | tail -n 2`, { timeoutMs: 180_000 });
      expect(after.output).toContain('status 200');
      expect(after.exitCode).toBe(0);
      const record = sandbox.egress!();
      expect(record.method).toBe('proxy+logs');
      const byHost = new Map(record.hosts.map((h) => [h.host, h]));
      expect(byHost.get('registry.npmjs.org')).toMatchObject({
        ports: [443],
        seenBy: expect.arrayContaining(['proxy']),
      });
      // The recorder is no way around the isolation: this machine's loopback and own address are refused.
      const escape = await sandbox.exec(ESCAPE, { timeoutMs: 60_000, env: { PORT: String(port), OWN: own } });
      expect(escape.output).toBe(`127.0.0.1 403\n${own} 403\nlocalhost 403\n`);
      expect(connections).toBe(0);
      expect(byHost.get('deb.debian.org')).toMatchObject({
        ports: [80],
        seenBy: expect.arrayContaining(['proxy']),
      });
    } finally {
      await sandbox.dispose();
    }
  }, 300_000);
});
