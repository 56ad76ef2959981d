/**
 * What a sandbox gets of this machine's network setup, and what it did with the network, applied by
 * `createSandbox` to the rootfs and docker backends alike (the host backend is this machine already):
 * - **trust** (trust.ts): this machine's extra CA certificates installed into the sandbox's store, and the
 *   variables pointing tools with their own store at it;
 * - **proxy**: the standard proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY, both spellings)
 *   passed when this machine sets them;
 * - **egress record**: every host the commands contacted. The rootfs sandbox is offered the recording proxy
 *   (egress-proxy.ts) as its HTTP(S)_PROXY, which forwards to this machine's proxy when there is one (its
 *   credentials then stay here); every backend's logs and scripts are read for download URLs as well
 *   (egress-log.ts). The record says how each host was seen.
 * result.json records the CA sources and proxy variable names (never values) in `sandbox.isolation.hostNetwork`,
 * and the egress record in `sandbox.egress`.
 */
import { errorMessage } from '../base/errors.js';
import { hostsInLog } from './egress-log.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import type {
  EgressHost,
  EgressRecord,
  EgressSource,
  HostNetworkRecord,
  IsolationReport,
} from './isolation.js';
import { installHostTrust, readHostTrust, trustEnv, type HostTrust } from './trust.js';
import type { ExecOptions, ExecResult, Sandbox } from './types.js';

/** The proxy variables passed into a sandbox when this machine sets them (either spelling). */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'] as const;

/** Always bypassed inside: servers a target or a check starts in the sandbox itself. */
const LOCAL_NO_PROXY = ['localhost', '127.0.0.1', '::1'];

export interface HostNetworkOptions {
  env?: NodeJS.ProcessEnv;
  /** Offer the recording proxy (default: for rootfs sandboxes). */
  recordingProxy?: boolean;
  /** Read the host's CA certificates (default: readHostTrust(env)). */
  trust?: HostTrust;
  /** The sandbox trusts `trust`'s certificates already (the rootfs backend's CA layer): no command installs them. */
  trustInstalled?: boolean;
  signal?: AbortSignal;
}

/** The proxy variables this machine sets: upper-case name → value (the lower-case spelling wins, as curl's). */
export function hostProxySettings(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of PROXY_VARIABLES) {
    const value = env[name.toLowerCase()] || env[name];
    if (value) out.set(name, value);
  }
  return out;
}

/**
 * Why the recording proxy cannot stand in front of this machine's proxy (it chains to plain `http://`
 * proxies only: not SOCKS, not TLS to the proxy), or undefined when it can.
 */
function unchainableProxy(vars: Map<string, string>): string | undefined {
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'] as const) {
    const value = vars.get(name);
    if (!value) continue;
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase() ?? 'http';
    if (scheme !== 'http')
      return `the recording proxy forwards to http:// proxies only and this machine's ${name} is ${scheme}://: the variables were passed as they are, and the egress record comes from logs only`;
  }
  return undefined;
}

/** Both spellings of each variable, as tools differ in which they read. */
function bothSpellings(vars: Map<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of vars) {
    out[name] = value;
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** NO_PROXY inside: this machine's list plus the sandbox's own loopback. */
function noProxyInside(host: string | undefined): string {
  const entries = (host ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return [...new Set([...entries, ...LOCAL_NO_PROXY])].join(',');
}

/** Collects what the sandbox's commands contacted, from the proxy and from logs and scripts. */
class EgressCollector {
  private readonly seen = new Map<string, Set<EgressSource>>();

  add(hosts: readonly string[], source: EgressSource): void {
    for (const host of hosts) {
      const set = this.seen.get(host) ?? new Set<EgressSource>();
      set.add(source);
      this.seen.set(host, set);
    }
  }

  record(proxy: EgressProxy | undefined, notes: string[]): EgressRecord {
    const hosts = new Map<string, EgressHost>();
    for (const p of proxy?.hosts() ?? []) {
      const h = hosts.get(p.host) ?? { host: p.host, ports: [], seenBy: ['proxy'], connections: 0 };
      if (!h.ports.includes(p.port)) h.ports.push(p.port);
      h.connections = (h.connections ?? 0) + p.count;
      if (p.refused) h.refused = p.refused;
      hosts.set(p.host, h);
    }
    for (const [host, sources] of this.seen) {
      const h = hosts.get(host) ?? { host, ports: [], seenBy: [] };
      for (const s of sources) if (!h.seenBy.includes(s)) h.seenBy.push(s);
      hosts.set(host, h);
    }
    const list = [...hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
    for (const h of list) h.ports.sort((a, b) => a - b);
    return { method: proxy ? 'proxy+logs' : 'logs', hosts: list, notes: [...notes] };
  }
}

/** A sandbox with the host's network setup applied and its egress recorded (see the file's doc). */
export type HostNetworkSandbox = Sandbox & { egress(): EgressRecord };

/**
 * Applies this machine's trust and proxy settings to a fresh rootfs or docker sandbox and records its
 * egress. Failing to install the certificates or to start the proxy is a note in the record, not an error:
 * the sandbox works as it did before.
 */
export async function withHostNetwork(
  inner: Sandbox,
  options: HostNetworkOptions = {},
): Promise<HostNetworkSandbox> {
  const env = options.env ?? process.env;
  const notes: string[] = [];
  const trust = options.trust ?? readHostTrust(env);
  notes.push(...trust.notes);
  const installProblem = options.trustInstalled
    ? undefined
    : await installHostTrust(inner, trust, options.signal).catch((e: unknown) => errorMessage(e));
  if (installProblem) notes.push(installProblem);

  const proxySettings = hostProxySettings(env);
  const offline = inner.isolation?.network.mode === 'none';
  const unchainable = unchainableProxy(proxySettings);
  if (unchainable) notes.push(unchainable);
  const wantsRecorder = !offline && !unchainable && (options.recordingProxy ?? inner.kind === 'rootfs');
  let proxy: EgressProxy | undefined;
  if (wantsRecorder) {
    const https = proxySettings.get('HTTPS_PROXY') ?? proxySettings.get('ALL_PROXY');
    const http = proxySettings.get('HTTP_PROXY') ?? proxySettings.get('ALL_PROXY');
    const noProxy = proxySettings.get('NO_PROXY');
    proxy = await startEgressProxy({
      upstream: { ...(https ? { https } : {}), ...(http ? { http } : {}), ...(noProxy ? { noProxy } : {}) },
    }).catch((error: unknown) => {
      notes.push(`the recording proxy did not start: ${errorMessage(error)}`);
      return undefined;
    });
    if (!proxy && notes.every((n) => !n.startsWith('the recording proxy')))
      notes.push('the recording proxy did not start: this machine has no non-loopback IPv4 address');
  }

  // Inside: the recorder as the proxy (this machine's proxy behind it), else this machine's variables.
  const proxyEnv: Record<string, string> = proxy
    ? {
        ...bothSpellings(
          new Map([
            ['HTTP_PROXY', proxy.url],
            ['HTTPS_PROXY', proxy.url],
          ]),
        ),
        ...bothSpellings(new Map([['NO_PROXY', noProxyInside(proxySettings.get('NO_PROXY'))]])),
      }
    : proxySettings.size > 0 && !offline
      ? {
          ...bothSpellings(proxySettings),
          ...bothSpellings(new Map([['NO_PROXY', noProxyInside(proxySettings.get('NO_PROXY'))]])),
        }
      : {};
  const extraEnv = { ...trustEnv(trust), ...proxyEnv };
  const collector = new EgressCollector();
  const hostNetwork: HostNetworkRecord = {
    caSources: trust.sources,
    caCertificates: trust.certificates.length,
    proxyVariables: [...proxySettings.keys()],
    ...(proxy ? { recordingProxy: true } : {}),
    notes,
  };
  const isolation: IsolationReport | undefined = inner.isolation
    ? { ...inner.isolation, hostNetwork }
    : undefined;

  const exec = async (script: string, execOptions: ExecOptions): Promise<ExecResult> => {
    collector.add(hostsInLog(script), 'script');
    const result = await inner.exec(script, { ...execOptions, env: { ...extraEnv, ...execOptions.env } });
    collector.add(hostsInLog(result.output), 'log');
    return result;
  };
  const dispose = async (disposeOptions?: { keep?: boolean }): Promise<void> => {
    try {
      await inner.dispose(disposeOptions);
    } finally {
      await proxy?.close();
    }
  };
  const egress = (): EgressRecord =>
    collector.record(
      proxy,
      notes.filter((n) => n.includes('proxy')),
    );
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'exec') return exec;
      if (property === 'dispose') return dispose;
      if (property === 'egress') return egress;
      if (property === 'isolation') return isolation;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as HostNetworkSandbox;
}
