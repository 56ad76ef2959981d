/**
 * The egress record: the recording proxy (real sockets on 127.0.0.1: CONNECT tunnels, plain HTTP, chaining to
 * an upstream proxy with its credentials, refusals), hosts read from logs, and withHostNetwork around a fake
 * sandbox (what a command's environment gets, what the record says — names, never values).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

import { hostsInLog } from '../../../src/sandbox/egress-log.js';
import {
  bypassesProxy,
  parseAuthority,
  refusedAddress,
  rememberedLookups,
  startEgressProxy,
  type EgressProxy,
} from '../../../src/sandbox/egress-proxy.js';
import { hostProxySettings, withHostNetwork } from '../../../src/sandbox/host-network.js';
import type { ExecOptions } from '../../../src/sandbox/types.js';
import { collectSecretValues, createRedactor } from '../../../src/trajectory/redact.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';

let origin: Server;
let originPort: number;
beforeAll(async () => {
  origin = createServer((req, res) =>
    res.end(`origin saw ${req.method} ${req.url} host=${req.headers.host}`),
  );
  await new Promise<void>((ok) => origin.listen(0, '127.0.0.1', ok));
  originPort = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => origin.close(() => ok())));

/** The proxy on 127.0.0.1 with every name resolving to 127.0.0.1 and no destination refused. */
function testProxy(extra: Parameters<typeof startEgressProxy>[0] = {}): Promise<EgressProxy | undefined> {
  return startEgressProxy({
    listen: '127.0.0.1',
    resolve: () => Promise.resolve('127.0.0.1'),
    policy: () => undefined,
    ...extra,
  });
}

/** A plain HTTP GET through the proxy (absolute URL). */
function getVia(proxy: EgressProxy, url: string): Promise<{ status: number; body: string }> {
  const p = new URL(proxy.url);
  return new Promise((ok, fail) => {
    const req = request({ host: p.hostname, port: Number(p.port), path: url, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** CONNECT through the proxy, then a plain HTTP request inside the tunnel; returns the raw answer. */
function tunnel(proxy: EgressProxy, authority: string): Promise<string> {
  const p = new URL(proxy.url);
  return new Promise((ok, fail) => {
    const socket: Socket = connect(Number(p.port), p.hostname, () => {
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    let data = '';
    let sent = false;
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
      if (!sent && data.includes('\r\n\r\n') && data.startsWith('HTTP/1.1 200')) {
        sent = true;
        socket.write('GET /inside HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      }
    });
    socket.on('end', () => ok(data));
    socket.on('error', fail);
  });
}

describe('the recording proxy', () => {
  it('tunnels CONNECT and forwards plain HTTP, recording each host by name', async () => {
    const proxy = (await testProxy())!;
    try {
      const tunnelled = await tunnel(proxy, `registry.npmjs.org:${originPort}`);
      expect(tunnelled).toContain('HTTP/1.1 200 Connection Established');
      expect(tunnelled).toContain('origin saw GET /inside');
      const plain = await getVia(proxy, `http://deb.debian.org:${originPort}/debian/dists?x=1`);
      expect(plain).toEqual({
        status: 200,
        body: `origin saw GET /debian/dists?x=1 host=deb.debian.org:${originPort}`,
      });
      expect(proxy.hosts()).toEqual([
        { host: 'registry.npmjs.org', port: originPort, scheme: 'https', count: 1 },
        { host: 'deb.debian.org', port: originPort, scheme: 'http', count: 1 },
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('asks the resolver once per name for many requests, and again after a failure', async () => {
    const asked: string[] = [];
    let failNext = false;
    const proxy = (await testProxy({
      resolve: (host) => {
        asked.push(host);
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('SERVFAIL'));
        }
        return Promise.resolve('127.0.0.1');
      },
    }))!;
    try {
      const answers = await Promise.all(
        [1, 2, 3, 4].map((i) => getVia(proxy, `http://deb.debian.org:${originPort}/pool/${i}.deb`)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(await tunnel(proxy, `deb.debian.org:${originPort}`)).toContain('origin saw GET /inside');
      expect(asked).toEqual(['deb.debian.org']);
      failNext = true;
      expect((await getVia(proxy, `http://pypi.org:${originPort}/simple/`)).status).toBe(403);
      expect((await getVia(proxy, `http://pypi.org:${originPort}/simple/`)).status).toBe(200);
      expect(asked).toEqual(['deb.debian.org', 'pypi.org', 'pypi.org']);
    } finally {
      await proxy.close();
    }
  });

  it('keeps an address for a minute, then asks again', async () => {
    let clock = 0;
    let n = 0;
    const resolve = rememberedLookups(
      () => Promise.resolve(`10.0.0.${++n}`),
      () => clock,
    );
    expect(await resolve('a.example')).toBe('10.0.0.1');
    clock = 59_000;
    expect(await resolve('a.example')).toBe('10.0.0.1');
    expect(await resolve('b.example')).toBe('10.0.0.2');
    clock = 61_000;
    expect(await resolve('a.example')).toBe('10.0.0.3');
  });

  it('refuses loopback, link-local and this machine as destinations (it is no way around the isolation)', async () => {
    const proxy = (await startEgressProxy({ listen: '127.0.0.1' }))!;
    try {
      expect(await tunnel(proxy, `127.0.0.1:${originPort}`)).toMatch(/^HTTP\/1\.1 403 .*\r\n\r\n.*loopback/s);
      expect((await getVia(proxy, `http://localhost:${originPort}/`)).status).toBe(403);
      expect(proxy.hosts().map((h) => h.refused)).toEqual(['loopback', 'loopback']);
    } finally {
      await proxy.close();
    }
    // Also behind this machine's proxy: a proxy on this machine must not reach its own loopback for the sandbox.
    let upstreamSaw = 0;
    const upstream = createServer(() => upstreamSaw++);
    upstream.on('connect', (_req: IncomingMessage, socket: Socket) => {
      upstreamSaw++;
      socket.end('HTTP/1.1 200 OK\r\n\r\n');
    });
    await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
    const at = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const chained = (await startEgressProxy({ listen: '127.0.0.1', upstream: { https: at, http: at } }))!;
    try {
      expect(await tunnel(chained, `127.0.0.1:${originPort}`)).toMatch(/^HTTP\/1\.1 403/);
      expect(await tunnel(chained, `localhost:${originPort}`)).toMatch(/^HTTP\/1\.1 403/);
      expect((await getVia(chained, `http://127.0.0.1:${originPort}/`)).status).toBe(403);
      expect(upstreamSaw).toBe(0);
    } finally {
      await chained.close();
      await new Promise<void>((ok) => upstream.close(() => ok()));
    }
    const own = new Set(['192.0.2.2']);
    expect(refusedAddress('169.254.169.254', own)).toBe('link-local address');
    expect(refusedAddress('::ffff:127.0.0.1', own)).toBe('loopback');
    expect(refusedAddress('192.0.2.2', own)).toBe("this machine's own address");
    expect(refusedAddress('151.101.0.162', own)).toBeUndefined();
  });

  it("chains to this machine's proxy with its credentials, which never reach the client", async () => {
    const seen: { line: string; auth?: string }[] = [];
    const upstream = createServer((req, res) => {
      seen.push({ line: `${req.method} ${req.url}`, auth: req.headers['proxy-authorization'] });
      res.end('from upstream');
    });
    upstream.on('connect', (req: IncomingMessage, socket: Socket) => {
      seen.push({ line: `CONNECT ${req.url}`, auth: req.headers['proxy-authorization'] });
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    });
    await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
    const port = (upstream.address() as AddressInfo).port;
    const proxy = (await testProxy({
      upstream: {
        https: `http://alice:s%3Acret@127.0.0.1:${port}`,
        http: `http://alice:s%3Acret@127.0.0.1:${port}`,
        noProxy: 'internal.example',
      },
    }))!;
    try {
      const answer = await tunnel(proxy, 'crates.io:443');
      expect(answer).toContain('407');
      expect((await getVia(proxy, 'http://ftp.debian.org/x')).body).toBe('from upstream');
      const basic = `Basic ${Buffer.from('alice:s:cret').toString('base64')}`;
      expect(seen).toEqual([
        { line: 'CONNECT crates.io:443', auth: basic },
        { line: 'GET http://ftp.debian.org/x', auth: basic },
      ]);
      // NO_PROXY of this machine: straight to the destination, not through its proxy.
      expect((await getVia(proxy, `http://internal.example:${originPort}/y`)).body).toContain(
        'origin saw GET /y',
      );
      expect(seen).toHaveLength(2);
    } finally {
      await proxy.close();
      await new Promise<void>((ok) => upstream.close(() => ok()));
    }
  });

  it('parses authorities and NO_PROXY lists', () => {
    expect(parseAuthority('pypi.org:443')).toEqual({ host: 'pypi.org', port: 443 });
    expect(parseAuthority('[2001:db8::1]:8443')).toEqual({ host: '2001:db8::1', port: 8443 });
    expect(parseAuthority('pypi.org')).toBeUndefined();
    expect(parseAuthority('a b:1')).toBeUndefined();
    expect(bypassesProxy('files.corp.example', '.corp.example')).toBe(true);
    expect(bypassesProxy('corp.example', 'corp.example:8080')).toBe(true);
    expect(bypassesProxy('x.corp.example', 'corp.example')).toBe(true);
    expect(bypassesProxy('pypi.org', 'corp.example,localhost')).toBe(false);
    expect(bypassesProxy('anything', '*')).toBe(true);
  });
});

describe('hosts in logs', () => {
  it('reads download lines of apt, pip, npm, cargo, go, maven and git; ignores mere mentions', () => {
    const log = [
      'Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]',
      'Hit:2 http://security.debian.org/debian-security bookworm-security InRelease',
      'Looking in indexes: https://user:secret@pypi.corp.example/simple',
      'Downloading https://files.pythonhosted.org/packages/numpy-1.26.whl (18.2 MB)',
      'npm http fetch GET 200 https://registry.npmjs.org/is-number 120ms',
      'Downloading from central: https://repo.maven.apache.org/maven2/junit/junit/4.13/junit-4.13.pom',
      'go: downloading golang.org/x/text v0.3.0 (from https://proxy.golang.org/golang.org/x/text/@v/v0.3.0.zip)',
      "Cloning into 'dep'... https://github.com/org/dep.git",
      'See https://docs.python.org/3/whatsnew for what changed',
      'Connecting to localhost:8080 http://localhost:8080/ and http://127.0.0.1/',
    ].join('\n');
    expect(hostsInLog(log)).toEqual([
      'deb.debian.org',
      'security.debian.org',
      'pypi.corp.example',
      'files.pythonhosted.org',
      'registry.npmjs.org',
      'repo.maven.apache.org',
      'proxy.golang.org',
      'github.com',
    ]);
  });
});

describe('withHostNetwork', () => {
  const trust = {
    certificates: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'],
    sources: ['SSL_CERT_FILE (/etc/ssl/certs/ca-certificates.crt)'],
    notes: [],
  };

  it("passes this machine's proxy variables (both spellings) and the CA variables; records names, never values", async () => {
    const envs: Record<string, string>[] = [];
    const box = new FakeSandbox((script, _n, options: ExecOptions) => {
      envs.push(options.env ?? {});
      return {
        exitCode: 0,
        output: script.includes('pip') ? 'Downloading https://files.pythonhosted.org/a.whl\n' : '',
      };
    });
    (box as { isolation?: unknown }).isolation = {
      level: 'container',
      network: { mode: 'isolated' },
      notes: [],
    };
    const proxyUrl = 'http://bob:hunter2pass@proxy.corp.example:3128';
    const sandbox = await withHostNetwork(box, {
      env: { https_proxy: proxyUrl, HTTP_PROXY: proxyUrl, NO_PROXY: '.corp.example' },
      trust,
      recordingProxy: false,
    });
    await sandbox.exec('pip install numpy', { timeoutMs: 1000, env: { MINE: '1' } });
    const env = envs[envs.length - 1]!;
    expect(env).toMatchObject({
      HTTPS_PROXY: proxyUrl,
      https_proxy: proxyUrl,
      http_proxy: proxyUrl,
      NO_PROXY: '.corp.example,localhost,127.0.0.1,::1',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
      PIP_CERT: '/etc/ssl/certs/ca-certificates.crt',
      MINE: '1',
    });
    const record = JSON.stringify(sandbox.isolation);
    expect(sandbox.isolation?.hostNetwork).toMatchObject({
      caCertificates: 1,
      proxyVariables: ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'],
    });
    expect(record).not.toContain('hunter2pass');
    expect(record).not.toContain('proxy.corp.example');
    expect(sandbox.egress()).toEqual({
      method: 'logs',
      hosts: [{ host: 'files.pythonhosted.org', ports: [], seenBy: ['log'] }],
      notes: [],
    });
    // The proxy's password is a secret wherever it would be written (the run's redactor reads the environment).
    const redact = createRedactor(collectSecretValues({ HTTPS_PROXY: proxyUrl }));
    expect(redact(`export HTTPS_PROXY=${proxyUrl}`)).not.toContain('hunter2pass');
  });

  it('installs the CA certificates with commands, unless the backend says they are trusted already', async () => {
    for (const trustInstalled of [false, true]) {
      const scripts: string[] = [];
      const envs: Record<string, string>[] = [];
      const box = new FakeSandbox((script, _n, options: ExecOptions) => {
        scripts.push(script);
        envs.push(options.env ?? {});
        return { exitCode: 0 };
      });
      const sandbox = await withHostNetwork(box, { env: {}, trust, trustInstalled, recordingProxy: false });
      const installs = scripts.filter((s) => s.includes('ca-certificates'));
      expect(installs.length > 0).toBe(!trustInstalled);
      // Either way the tools inside are pointed at the store that holds them.
      await sandbox.exec('true', { timeoutMs: 1000 });
      expect(scripts[scripts.length - 1]).toBe('true');
      expect(envs[envs.length - 1]?.SSL_CERT_FILE).toBe('/etc/ssl/certs/ca-certificates.crt');
    }
  });

  it('offers the recording proxy instead, this machine’s proxy behind it, and closes it on dispose', async () => {
    const envs: Record<string, string>[] = [];
    const box = new FakeSandbox((_s, _n, options: ExecOptions) => {
      envs.push(options.env ?? {});
      return { exitCode: 0 };
    });
    const sandbox = await withHostNetwork(box, {
      env: { HTTPS_PROXY: 'http://bob:hunter2pass@proxy.corp.example:3128' },
      trust: { certificates: [], sources: [], notes: [] },
      recordingProxy: true,
    });
    await sandbox.exec('true', { timeoutMs: 1000 });
    const env = envs[0]!;
    expect(env.HTTPS_PROXY).toMatch(/^http:\/\/[\d.]+:\d+$/);
    expect(env.https_proxy).toBe(env.HTTPS_PROXY);
    expect(JSON.stringify(env)).not.toContain('hunter2pass');
    expect(env.SSL_CERT_FILE).toBeUndefined(); // nothing to trust: nothing set
    expect(sandbox.egress().method).toBe('proxy+logs');
    await sandbox.dispose();
    expect(box.disposed).toBe(true);
    await expect(
      getVia({ url: env.HTTPS_PROXY!, hosts: () => [], close: async () => {} }, 'http://a.example/'),
    ).rejects.toThrow();
  });

  it('passes a SOCKS proxy through as it is (the recorder chains to http:// proxies only) and says so', async () => {
    const envs: Record<string, string>[] = [];
    const box = new FakeSandbox((_s, _n, options: ExecOptions) => {
      envs.push(options.env ?? {});
      return { exitCode: 0 };
    });
    const sandbox = await withHostNetwork(box, {
      env: { ALL_PROXY: 'socks5h://proxy.corp.example:1080' },
      trust: { certificates: [], sources: [], notes: [] },
      recordingProxy: true,
    });
    await sandbox.exec('true', { timeoutMs: 1000 });
    expect(envs[0]).toMatchObject({
      ALL_PROXY: 'socks5h://proxy.corp.example:1080',
      all_proxy: 'socks5h://proxy.corp.example:1080',
    });
    expect(envs[0]!.HTTPS_PROXY).toBeUndefined();
    const record = sandbox.egress();
    expect(record.method).toBe('logs');
    expect(record.notes).toEqual([expect.stringContaining("this machine's ALL_PROXY is socks5h://")]);
    await sandbox.dispose();
  });

  it('reads the proxy settings of this machine, lower case first', () => {
    expect([
      ...hostProxySettings({ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:2', no_proxy: 'x' }),
    ]).toEqual([
      ['HTTP_PROXY', 'http://a:1'],
      ['NO_PROXY', 'x'],
    ]);
  });
});
