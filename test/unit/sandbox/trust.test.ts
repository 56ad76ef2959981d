/** The host's extra CA certificates for the sandbox (trust.ts): which ones, from where, and how they are installed. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  CA_VARIABLES,
  installHostTrust,
  pemCertificates,
  readHostTrust,
  SANDBOX_CA_BUNDLE,
  trustEnv,
  trustInstallScripts,
} from '../../../src/sandbox/trust.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-trust-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A PEM block with a recognisable body (the parser checks the shape, not the DER). */
function pem(tag: string): string {
  const body = Buffer.from(`certificate ${tag} `.repeat(8)).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
}
const PUBLIC = pem('public root');
const PROXY_CA = pem('corporate proxy');
const LOCAL_CA = pem('local');
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';

function layout(): { publicDir: string; localDir: string; bundle: string } {
  const dir = mkdtempSync(path.join(root, 'case-'));
  const publicDir = path.join(dir, 'share', 'mozilla');
  const localDir = path.join(dir, 'local');
  mkdirSync(publicDir, { recursive: true });
  mkdirSync(path.join(localDir, 'corp'), { recursive: true });
  writeFileSync(path.join(publicDir, 'Root.crt'), `${PUBLIC}\n`);
  writeFileSync(path.join(localDir, 'corp', 'local.crt'), `${LOCAL_CA}\n`);
  writeFileSync(path.join(localDir, 'readme.txt'), 'not a certificate file');
  const bundle = path.join(dir, 'bundle.pem');
  writeFileSync(bundle, `${PUBLIC}\n${KEY}\n${PROXY_CA}\r\n`);
  return { publicDir: path.dirname(publicDir), localDir, bundle };
}

describe('readHostTrust', () => {
  it('takes the extra certificates of the CA variables and the local folder, public roots and keys left out', () => {
    const { publicDir, localDir, bundle } = layout();
    const trust = readHostTrust(
      {
        SSL_CERT_FILE: bundle,
        REQUESTS_CA_BUNDLE: bundle,
        NODE_EXTRA_CA_CERTS: path.join(root, 'missing.pem'),
      },
      { publicCaDir: publicDir, localCaDir: localDir },
    );
    expect(trust.certificates).toEqual([PROXY_CA, LOCAL_CA]);
    expect(trust.sources).toEqual([
      `SSL_CERT_FILE, REQUESTS_CA_BUNDLE (${bundle})`,
      path.join(localDir, 'corp', 'local.crt'),
    ]);
    expect(trust.notes).toEqual([expect.stringMatching(/^NODE_EXTRA_CA_CERTS \(.*missing\.pem\): not read/)]);
    expect(trust.certificates.join('')).not.toContain('PRIVATE KEY');
  });

  it('nothing beyond the public roots: nothing to install, no variables set inside', () => {
    const { publicDir } = layout();
    const onlyPublic = path.join(root, 'public.pem');
    writeFileSync(onlyPublic, PUBLIC);
    const trust = readHostTrust(
      { SSL_CERT_FILE: onlyPublic },
      { publicCaDir: publicDir, localCaDir: path.join(root, 'none') },
    );
    expect(trust).toEqual({ certificates: [], sources: [], notes: [] });
    expect(trustEnv(trust)).toEqual({});
  });

  it('answers again from memory while no file changes, and reads anew when one does', () => {
    const { publicDir, localDir, bundle } = layout();
    const env = { SSL_CERT_FILE: bundle };
    const dirs = { publicCaDir: publicDir, localCaDir: localDir };
    const first = readHostTrust(env, dirs);
    expect(first.certificates).toEqual([PROXY_CA, LOCAL_CA]);
    first.certificates.length = 0; // the caller's copy: the remembered answer is not touched
    expect(readHostTrust(env, dirs).certificates).toEqual([PROXY_CA, LOCAL_CA]);

    const other = pem('another proxy, a longer name');
    writeFileSync(bundle, `${PUBLIC}\n${other}\n`);
    expect(readHostTrust(env, dirs).certificates).toEqual([other, LOCAL_CA]);
    // A certificate removed from the local folder, and one added to it, are seen too.
    rmSync(path.join(localDir, 'corp', 'local.crt'));
    expect(readHostTrust(env, dirs).certificates).toEqual([other]);
    writeFileSync(path.join(localDir, 'added.crt'), `${LOCAL_CA}\n`);
    expect(readHostTrust(env, dirs).certificates).toEqual([other, LOCAL_CA]);
    // Another variable naming the same file is another answer (its source label differs).
    const both = readHostTrust({ ...env, PIP_CERT: bundle }, dirs);
    expect(both.sources[0]).toBe(`SSL_CERT_FILE, PIP_CERT (${bundle})`);
  });

  it('points every CA variable inside at the system bundle when there is something to trust', () => {
    const env = trustEnv({ certificates: [PROXY_CA], sources: [], notes: [] });
    expect(Object.keys(env).sort()).toEqual([...CA_VARIABLES].sort());
    expect(new Set(Object.values(env))).toEqual(new Set([SANDBOX_CA_BUNDLE]));
  });
});

describe('installing them', () => {
  it('writes each certificate to its own file in chunks a docker exec argument can hold, then activates them', () => {
    const many = Array.from({ length: 200 }, (_, i) => pem(`ca number ${i}`));
    const scripts = trustInstallScripts(many);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const script of scripts) expect(script.length).toBeLessThan(128 * 1024);
    const files = scripts.join('\n').match(/buildbench-host-\d{3}\.crt <</g) ?? [];
    expect(files).toHaveLength(200);
    expect(pemCertificates(scripts.join('\n'))).toEqual(many);
    const last = scripts[scripts.length - 1]!;
    expect(last).toContain(`bundle=${SANDBOX_CA_BUNDLE}`);
    expect(last).toContain('openssl x509 -hash');
    expect(scripts.join('\n')).not.toMatch(/insecure|strict-ssl|verify=?\s*false/i);
  });

  it('runs the scripts in the sandbox and reports a failure instead of throwing', async () => {
    const ok = new FakeSandbox(() => ({ exitCode: 0 }));
    expect(await installHostTrust(ok, { certificates: [PROXY_CA], sources: [], notes: [] })).toBeUndefined();
    // A few certificates and their activation: one command.
    expect(ok.scripts).toHaveLength(1);
    expect(ok.scripts[0]).toContain('buildbench-host-001.crt');
    expect(ok.scripts[0]).toContain('openssl x509 -hash');
    const failing = new FakeSandbox(() => ({ exitCode: 1, output: 'mkdir: read-only file system\n' }));
    expect(await installHostTrust(failing, { certificates: [PROXY_CA], sources: [], notes: [] })).toMatch(
      /failed \(exit 1\): mkdir: read-only file system/,
    );
    const none = new FakeSandbox(() => ({ exitCode: 0 }));
    await installHostTrust(none, { certificates: [], sources: [], notes: [] });
    expect(none.scripts).toHaveLength(0);
  });
});
