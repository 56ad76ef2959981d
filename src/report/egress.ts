/**
 * The RUNBOOK's network parts: what the sandbox got of this machine's network setup (extra CA certificates,
 * proxy variables — names only) and the egress allowlist, every host the build, the target and the checks
 * contacted, with how each was seen, as a firewalled runner's administrator needs it.
 */
import type { EgressHost, EgressRecord, EgressSource, IsolationReport } from '../sandbox/isolation.js';

const SEEN_BY: Record<EgressSource, string> = {
  proxy: 'recording proxy',
  log: 'log',
  script: 'script',
};

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

/** The environment line on the host's CA certificates and proxy variables passed into the sandbox. */
export function hostNetworkLines(isolation: IsolationReport | undefined): string[] {
  const net = isolation?.hostNetwork;
  if (!net) return [];
  const parts: string[] = [];
  if (net.caCertificates > 0)
    parts.push(
      `${net.caCertificates} CA certificate${net.caCertificates === 1 ? '' : 's'} this machine trusts beyond the public roots installed into the sandbox's store (from ${net.caSources.map(code).join(', ')})`,
    );
  if (net.proxyVariables.length > 0)
    parts.push(
      net.recordingProxy
        ? `this machine's proxy (${net.proxyVariables.map(code).join(', ')}) used behind the recording proxy, its credentials kept outside`
        : `proxy variables passed: ${net.proxyVariables.map(code).join(', ')}`,
    );
  if (net.recordingProxy) parts.push('HTTP(S)_PROXY inside was buildbench’s recording proxy');
  if (parts.length === 0 && net.notes.length === 0) return [];
  return [
    `- Host network: ${parts.length > 0 ? parts.join('; ') : 'nothing passed'}.`,
    ...net.notes.map((n) => `  - ${n}`),
  ];
}

function hostRow(h: EgressHost): string {
  const ports = h.ports.length > 0 ? h.ports.join(', ') : '—';
  const seen = h.seenBy.map((s) => SEEN_BY[s]).join(', ');
  return `| ${code(h.host)} | ${ports} | ${seen}${h.connections ? ` (${h.connections})` : ''} |`;
}

/** The egress allowlist section; nothing when the result has no record (host backend, older results). */
export function egressSection(record: EgressRecord | undefined): string[] {
  if (!record) return [];
  const allowed = record.hosts.filter((h) => !h.refused);
  const refused = record.hosts.filter((h) => h.refused);
  const out = ['## Network: egress allowlist', ''];
  if (allowed.length === 0) {
    out.push(
      record.method === 'proxy+logs'
        ? 'No host was contacted through the recording proxy, and no log named a download: the run needed no network (or only through tools that print nothing).'
        : 'No log or script named a download host.',
      '',
    );
  } else {
    out.push(
      `A firewalled runner that runs this recipe needs ${allowed.length === 1 ? 'this host' : `these ${allowed.length} hosts`} (the build, the target and the checks contacted them):`,
      '',
      '| host | ports | seen by (connections) |',
      '| --- | --- | --- |',
      ...allowed.map(hostRow),
      '',
      'How each was seen: **recording proxy** — the sandbox’s HTTP(S)_PROXY was buildbench’s recording proxy, which saw the connection (the host name of an HTTPS CONNECT, the URL of plain HTTP); **log** — a download URL in a command’s output (the only record of tools that ignore HTTP(S)_PROXY, such as Maven); **script** — a URL on a fetch command of a script (named there; contacted only if the proxy or a log says so too).',
      '',
      '```text',
      ...allowed.map((h) => h.host),
      '```',
      '',
    );
  }
  if (record.method === 'logs')
    out.push(
      'This list comes from logs and scripts only (no recording proxy served this sandbox): a tool that downloads silently is missing from it.',
      '',
    );
  if (refused.length > 0)
    out.push(
      `Refused by the recording proxy (not part of the allowlist): ${refused.map((h) => `${code(h.host)} (${h.refused})`).join(', ')}.`,
      '',
    );
  for (const note of record.notes) out.push(`- ${note}`);
  if (record.notes.length > 0) out.push('');
  return out;
}
