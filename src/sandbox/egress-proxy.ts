/**
 * A recording forward proxy on this machine, offered to a sandbox through `HTTP(S)_PROXY`: every host a
 * build or its target contacts through it is recorded by name (the `CONNECT host:port` line of HTTPS, the
 * absolute URL of plain HTTP) — the egress allowlist a firewalled runner needs. It never terminates TLS
 * (a CONNECT is a byte tunnel), and it forwards to this machine's own proxy when one is set, adding that
 * proxy's credentials itself, so they never enter the sandbox.
 *
 * It is no way around the sandbox's network isolation: the rootfs sandbox's user-mode network cannot reach
 * this machine's loopback, so the proxy listens on this machine's own non-loopback address, serves only
 * connections from this machine (the sandbox's slirp4netns connects from here), and refuses destinations
 * on loopback, link-local (cloud metadata) or this machine's own addresses.
 */
import { lookup } from 'node:dns/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';

/** One host contacted through the proxy. */
export interface ProxiedHost {
  host: string;
  port: number;
  /** `https`: a CONNECT tunnel; `http`: a plain request. */
  scheme: 'https' | 'http';
  /** Connections (CONNECT) or requests (plain HTTP). */
  count: number;
  /** Refused by the proxy's policy (never reached). */
  refused?: string;
}

export interface EgressProxy {
  /** `http://<address>:<port>`, for HTTP_PROXY and HTTPS_PROXY inside the sandbox. */
  url: string;
  hosts(): ProxiedHost[];
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** The address to listen on (default: this machine's first non-loopback IPv4 address). */
  listen?: string;
  /** This machine's own proxy for HTTPS (CONNECT) and plain HTTP, from its HTTPS_PROXY / HTTP_PROXY. */
  upstream?: { https?: string; http?: string; noProxy?: string };
  /** Resolves a host name (tests). */
  resolve?: (host: string) => Promise<string>;
  /** Why a resolved address may not be a destination (default: `refusedAddress` with this machine's addresses). */
  policy?: (ip: string) => string | undefined;
}

/** This machine's addresses (loopback included). */
export function localAddresses(): Set<string> {
  const out = new Set<string>(['127.0.0.1', '::1']);
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) out.add(a.address.replace(/^::ffff:/, ''));
  return out;
}

/** The first non-loopback IPv4 address of this machine, if it has one. */
export function outwardAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

/** Why an address may not be a destination (loopback, unspecified, link-local, this machine), or undefined. */
export function refusedAddress(ip: string, own: Set<string>): string | undefined {
  const a = ip.replace(/^::ffff:/, '').toLowerCase();
  if (/^127\./.test(a) || a === '::1') return 'loopback';
  if (a === '0.0.0.0' || a === '::') return 'unspecified address';
  if (/^169\.254\./.test(a) || /^fe[89ab][0-9a-f]:/.test(a)) return 'link-local address';
  if (own.has(a)) return "this machine's own address";
  return undefined;
}

/** Whether `host` matches a NO_PROXY list (`*`, names, `.suffix`, `suffix`; ports ignored). */
export function bypassesProxy(host: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return noProxy
    .split(/[,\s]+/)
    .map((e) => e.trim().toLowerCase().replace(/:\d+$/, ''))
    .filter((e) => e !== '')
    .some(
      (e) =>
        e === '*' ||
        h === e.replace(/^\*?\./, '') ||
        h.endsWith(e.startsWith('.') ? e : `.${e.replace(/^\*\./, '')}`),
    );
}

/** `host:port` of a CONNECT line (`[v6]:443` too), or undefined. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (m[1] ?? m[2]!).toLowerCase(), port };
}

function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

const HOP_HEADERS = new Set([
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
]);

/** How long the proxy keeps a name's address: about one sandbox's downloads. */
const LOOKUP_TTL_MS = 60_000;

/**
 * `resolve` with its answers kept for `LOOKUP_TTL_MS` (a failed look-up is asked again next time). A package
 * manager fetches dozens of files from one host through the proxy; asked once per request, this machine's
 * resolver now and then stalls one of them for its 5 s retry (apt, connecting on its own, asks once). Keeping
 * the address also pins it for the sandbox's connections: a name cannot be re-pointed between two requests.
 */
export function rememberedLookups(
  resolve: (host: string) => Promise<string>,
  now: () => number = Date.now,
): (host: string) => Promise<string> {
  const known = new Map<string, { at: number; address: Promise<string> }>();
  return (host) => {
    const entry = known.get(host);
    if (entry && now() - entry.at < LOOKUP_TTL_MS) return entry.address;
    const address = resolve(host);
    const fresh = { at: now(), address };
    known.set(host, fresh);
    address.catch(() => {
      if (known.get(host) === fresh) known.delete(host);
    });
    return address;
  };
}

/** What the proxy's handlers share: where it may connect, how it resolves names, and what it has seen. */
interface ProxyState {
  /** This machine's addresses: the only clients served. */
  own: Set<string>;
  policy: (ip: string) => string | undefined;
  resolve: (host: string) => Promise<string>;
  upstream: EgressProxyOptions['upstream'];
  /** `scheme://host:port` → what was contacted there. */
  record: Map<string, ProxiedHost>;
}

function proxyState(options: EgressProxyOptions): ProxyState {
  const own = localAddresses();
  return {
    own,
    policy: options.policy ?? ((ip: string) => refusedAddress(ip, own)),
    resolve: rememberedLookups(
      options.resolve ?? (async (host: string) => (isIP(host) ? host : (await lookup(host)).address)),
    ),
    upstream: options.upstream,
    record: new Map(),
  };
}

/** Counts one connection (CONNECT) or request (plain HTTP) to `host:port`, and the refusal if there was one. */
function noteHost(
  state: ProxyState,
  host: string,
  port: number,
  scheme: ProxiedHost['scheme'],
  refused?: string,
): void {
  const key = `${scheme}://${host}:${port}`;
  const entry = state.record.get(key) ?? { host, port, scheme, count: 0 };
  entry.count++;
  if (refused) entry.refused = refused;
  state.record.set(key, entry);
}

/** Where to connect for `host`: this machine's proxy (unless NO_PROXY says not), else the host itself. */
function upstreamFor(state: ProxyState, host: string, scheme: 'https' | 'http'): URL | undefined {
  const value = scheme === 'https' ? state.upstream?.https : state.upstream?.http;
  if (!value || bypassesProxy(host, state.upstream?.noProxy)) return undefined;
  try {
    return new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}

/**
 * Checks the destination, also when this machine's proxy will connect (a proxy on this machine would
 * otherwise reach its own loopback for the sandbox); returns the address to connect to, or why not. A name
 * this machine cannot resolve is refused when going direct, and left to the upstream proxy (which may resolve
 * what this machine cannot) otherwise.
 */
async function destination(
  state: ProxyState,
  host: string,
  viaUpstream: boolean,
): Promise<{ ip?: string; refused?: string }> {
  if (host === 'localhost' || host.endsWith('.localhost')) return { refused: 'loopback' };
  try {
    const ip = await state.resolve(host);
    const refused = state.policy(ip);
    return refused ? { refused } : { ip };
  } catch {
    return viaUpstream ? {} : { refused: 'name does not resolve' };
  }
}

/** Headers without the hop-by-hop ones (and without the client's proxy credentials). */
function endToEndHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  return out;
}

/**
 * The byte tunnel of a CONNECT: to the destination's checked address, or chained through this machine's proxy
 * (a CONNECT with its credentials, whose answer goes to the client as it is).
 */
function openTunnel(
  authority: string,
  target: { port: number; ip?: string },
  upstream: URL | undefined,
  client: Socket,
  head: Buffer,
): void {
  const server = upstream
    ? connect(Number(upstream.port || 80), upstream.hostname)
    : connect(target.port, target.ip);
  server.on('error', () => {
    client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    server.destroy();
  });
  server.once('connect', () => {
    if (upstream) {
      // Chain: CONNECT through this machine's proxy; its answer goes to the client as it is.
      const auth = proxyAuthorization(upstream);
      server.write(
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`,
      );
    } else {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    }
    if (head.length > 0) server.write(head);
    server.pipe(client);
    client.pipe(server);
  });
  client.on('close', () => server.destroy());
  server.on('close', () => client.destroy());
}

/** An HTTPS tunnel request (`CONNECT host:port`): recorded, checked, then tunnelled or refused. */
function onConnect(state: ProxyState, req: IncomingMessage, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  void (async () => {
    const upstream = upstreamFor(state, target.host, 'https');
    const checked = await destination(state, target.host, upstream !== undefined);
    noteHost(state, target.host, target.port, 'https', checked.refused);
    if (checked.refused) {
      client.end(`HTTP/1.1 403 Forbidden\r\n\r\nbuildbench egress proxy: ${checked.refused}\n`);
      return;
    }
    openTunnel(req.url ?? '', { port: target.port, ip: checked.ip }, upstream, client, head);
  })();
}

/**
 * Forwards a plain HTTP request: to this machine's proxy with its credentials and the absolute URL, or to the
 * destination's checked address with the original Host; the answer goes back without hop-by-hop headers.
 */
function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  to: { port: number; ip?: string },
  upstream: URL | undefined,
): void {
  const headers = endToEndHeaders(req.headers);
  const auth = upstream ? proxyAuthorization(upstream) : undefined;
  if (auth) headers['proxy-authorization'] = auth;
  const forward = httpRequest(
    upstream
      ? {
          host: upstream.hostname,
          port: Number(upstream.port || 80),
          path: url.href,
          method: req.method,
          headers,
        }
      : {
          host: to.ip,
          port: to.port,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: { ...headers, host: url.host },
        },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
      answer.pipe(res);
    },
  );
  forward.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forward);
}

/** A plain HTTP request (an absolute `http://` URL): recorded, checked, then forwarded or refused. */
function onRequest(state: ProxyState, req: IncomingMessage, res: ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    res.writeHead(400).end('buildbench egress proxy: absolute http:// URLs only\n');
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = Number(url.port || 80);
  void (async () => {
    const upstream = upstreamFor(state, host, 'http');
    const checked = await destination(state, host, upstream !== undefined);
    noteHost(state, host, port, 'http', checked.refused);
    if (checked.refused) {
      res.writeHead(403).end(`buildbench egress proxy: ${checked.refused}\n`);
      return;
    }
    forwardRequest(req, res, url, { port, ip: checked.ip }, upstream);
  })();
}

/** The proxy's server, serving only this machine's connections (the sandbox's slirp4netns connects from here). */
function proxyServer(state: ProxyState): Server {
  const server: Server = createServer((req, res) => onRequest(state, req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) =>
    onConnect(state, req, client, head),
  );
  // Only this machine's connections (the sandbox's slirp4netns connects from here); nobody else's.
  server.on('connection', (socket: Socket) => {
    const from = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!state.own.has(from)) socket.destroy();
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}

/** Starts the proxy; undefined when this machine has no address to offer it on. */
export async function startEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy | undefined> {
  const listen = options.listen ?? outwardAddress();
  if (!listen) return undefined;
  const state = proxyState(options);
  const server = proxyServer(state);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, listen, () => ok());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${listen.includes(':') ? `[${listen}]` : listen}:${port}`,
    hosts: () => [...state.record.values()].map((h) => ({ ...h })),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
