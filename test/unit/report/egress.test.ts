/** The RUNBOOK's network parts: the host network line and the egress allowlist with how each host was seen. */
import { describe, expect, it } from '@jest/globals';

import { egressSection, hostNetworkLines } from '../../../src/report/egress.js';
import type { EgressRecord, IsolationReport } from '../../../src/sandbox/isolation.js';

const isolation: IsolationReport = {
  level: 'container',
  tool: 'bubblewrap 0.8.0',
  userNamespace: false,
  noNewPrivs: true,
  network: { mode: 'isolated', via: 'slirp4netns' },
  limits: { enforced: false },
  notes: [],
  hostNetwork: {
    caSources: ['SSL_CERT_FILE (/etc/ssl/certs/ca-certificates.crt)'],
    caCertificates: 1,
    proxyVariables: ['HTTPS_PROXY', 'NO_PROXY'],
    recordingProxy: true,
    notes: [],
  },
};

describe('RUNBOOK network parts', () => {
  it('says which CA certificates and proxy variables the sandbox got, by name', () => {
    const [line] = hostNetworkLines(isolation);
    expect(line).toContain('1 CA certificate this machine trusts beyond the public roots');
    expect(line).toContain('`SSL_CERT_FILE (/etc/ssl/certs/ca-certificates.crt)`');
    expect(line).toContain(
      "this machine's proxy (`HTTPS_PROXY`, `NO_PROXY`) used behind the recording proxy",
    );
    expect(hostNetworkLines({ ...isolation, hostNetwork: undefined })).toEqual([]);
    expect(
      hostNetworkLines({
        ...isolation,
        hostNetwork: { caSources: [], caCertificates: 0, proxyVariables: [], notes: [] },
      }),
    ).toEqual([]);
  });

  it('lists the allowlist with how each host was seen, refusals apart, and a plain list for a firewall', () => {
    const record: EgressRecord = {
      method: 'proxy+logs',
      hosts: [
        { host: 'deb.debian.org', ports: [80], seenBy: ['proxy', 'log'], connections: 3 },
        { host: 'repo.maven.apache.org', ports: [], seenBy: ['log'] },
        { host: 'localhost', ports: [8080], seenBy: ['proxy'], connections: 1, refused: 'loopback' },
      ],
      notes: [],
    };
    const text = egressSection(record).join('\n');
    expect(text).toContain('## Network: egress allowlist');
    expect(text).toContain('needs these 2 hosts');
    expect(text).toContain('| `deb.debian.org` | 80 | recording proxy, log (3) |');
    expect(text).toContain('| `repo.maven.apache.org` | — | log |');
    expect(text).toContain('```text\ndeb.debian.org\nrepo.maven.apache.org\n```');
    expect(text).toContain(
      'Refused by the recording proxy (not part of the allowlist): `localhost` (loopback).',
    );
    expect(text).not.toContain('logs and scripts only');
  });

  it('says when the list comes from logs only, and when nothing was contacted', () => {
    expect(
      egressSection({ method: 'logs', hosts: [], notes: ['the recording proxy did not start: x'] }).join(
        '\n',
      ),
    ).toMatch(
      /No log or script named a download host[\s\S]*from logs and scripts only[\s\S]*- the recording proxy did not start: x/,
    );
    expect(egressSection({ method: 'proxy+logs', hosts: [], notes: [] }).join('\n')).toContain(
      'the run needed no network',
    );
    expect(egressSection(undefined)).toEqual([]);
  });
});
