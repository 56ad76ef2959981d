/**
 * The sandbox trusts what this machine trusts. Behind a TLS-intercepting proxy (corporate networks,
 * firewalled CI runners) this machine trusts the proxy's CA through `SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS`,
 * `REQUESTS_CA_BUNDLE` and friends or `/usr/local/share/ca-certificates`, and a fresh sandbox does not: every
 * HTTPS download inside fails with `SELF_SIGNED_CERT_IN_CHAIN` / `CERTIFICATE_VERIFY_FAILED`. The fix is the
 * honest one — the host's extra certificates installed into the sandbox's trust store (their own files in
 * the sandbox's `/usr/local/share/ca-certificates`, then `update-ca-certificates`, so a later reinstall of
 * `ca-certificates` keeps them), and the variables that point tools with their own store (Node, pip,
 * requests) at the system bundle — never turning verification off. The distribution's public roots (the
 * host's `/usr/share/ca-certificates`) are left out: every sandbox has them, and only the extras matter.
 * Certificates are public: they may enter a sandbox; their file contents never enter a report, only the
 * variable names and paths they came from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { errorMessage } from '../base/errors.js';
import type { Sandbox } from './types.js';

/** Host variables naming a CA bundle, read in this order. */
export const CA_VARIABLES = [
  'SSL_CERT_FILE',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'PIP_CERT',
  'GIT_SSL_CAINFO',
] as const;

/** Where Debian and Ubuntu keep local CA certificates (`*.crt`, read by `update-ca-certificates`). */
export const LOCAL_CA_DIR = '/usr/local/share/ca-certificates';
/** The distribution's public roots, which every sandbox image has too. */
export const PUBLIC_CA_DIR = '/usr/share/ca-certificates';
/** The folder inside the sandbox that holds the host's certificates. */
export const SANDBOX_CA_DIR = `${LOCAL_CA_DIR}/buildbench-host`;
/** The system bundle inside the sandbox that `update-ca-certificates` writes. */
export const SANDBOX_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** A CA file larger than this is not read (a bundle is ~200 kB). */
const MAX_CA_FILE_BYTES = 8 * 1024 * 1024;
/** Certificates per install command: a docker exec script is one argument, at most 128 kB. */
const CHUNK_CHARS = 64 * 1024;

const PEM_CERT = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

export interface HostTrust {
  /** PEM certificates to install, deduplicated, the distribution's public roots left out. */
  certificates: string[];
  /** Where they came from: `SSL_CERT_FILE (/path)`, a file in /usr/local/share/ca-certificates (names, never contents). */
  sources: string[];
  /** What could not be read, and why. */
  notes: string[];
}

/** The certificates of a PEM text (other blocks, private keys above all, are ignored). */
export function pemCertificates(text: string): string[] {
  return [...text.matchAll(PEM_CERT)].map((m) => m[0].replace(/\r\n/g, '\n'));
}

/** A certificate's identity: its base64 body without line breaks. */
function certKey(pem: string): string {
  return pem
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
    .trim();
}

/**
 * `*.crt` files under `dir`, recursively, at most `limit`; [] when it does not exist. This file reads with
 * synchronous calls: about 150 small files in local system folders, which a promise per call (five each: stat,
 * open, fstat, read, close) made 50–100 ms of a sandbox's start on a loaded machine, against a few ms.
 */
function crtFiles(dir: string, limit = 2000): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 4 || out.length >= limit) return;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path, depth + 1);
      else if (e.name.endsWith('.crt') && out.length < limit) out.push(path);
    }
  };
  walk(dir, 0);
  return out.sort();
}

/** The text of a CA file, or why not (too big, unreadable, not a regular file). */
function readCaFile(path: string): { text?: string; why?: string } {
  try {
    const info = statSync(path);
    if (!info.isFile()) return { why: 'not a regular file' };
    if (info.size > MAX_CA_FILE_BYTES) return { why: `larger than ${MAX_CA_FILE_BYTES} bytes` };
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    return { why: errorMessage(error) };
  }
}

export interface HostTrustOptions {
  localCaDir?: string;
  publicCaDir?: string;
}

/** A file's stamp for the memo: its size and modification time, or `-` when it cannot be read. */
function stamp(path: string): string {
  try {
    const info = statSync(path);
    return `${path}\u0000${info.size}\u0000${info.mtimeMs}`;
  } catch {
    return `${path}\u0000-`;
  }
}

/** The last answer and the stamps of every file it read: a sandbox is made per turn, the files rarely change. */
let remembered: { key: string; trust: HostTrust } | undefined;

/**
 * The CA certificates this machine trusts beyond the distribution's public roots: those in the files the
 * `CA_VARIABLES` name and in `/usr/local/share/ca-certificates`. An unreadable file is a note, not an error.
 * The answer is kept while every file's size and modification time, and the lists of files, stay the same.
 */
export function readHostTrust(
  env: NodeJS.ProcessEnv = process.env,
  options: HostTrustOptions = {},
): HostTrust {
  const publicFiles = crtFiles(options.publicCaDir ?? PUBLIC_CA_DIR);
  // Files in the order first named, each with the variables that name it (several often name one bundle).
  const named = new Map<string, string[]>();
  for (const name of CA_VARIABLES) {
    const value = env[name];
    if (value) named.set(value, [...(named.get(value) ?? []), name]);
  }
  for (const file of crtFiles(options.localCaDir ?? LOCAL_CA_DIR)) if (!named.has(file)) named.set(file, []);
  // No extra CA file named, none added locally: nothing to compare with the public ones (the usual machine;
  // reading those costs 60 ms at every sandbox's start).
  if (named.size === 0) return { certificates: [], sources: [], notes: [] };

  const stamps = [...publicFiles, ...named.keys()].map(stamp);
  const key = JSON.stringify([publicFiles.length, [...named], stamps]);
  if (remembered?.key === key) return copyTrust(remembered.trust);

  const publicKeys = new Set<string>();
  for (const { text } of publicFiles.map(readCaFile))
    for (const pem of pemCertificates(text ?? '')) publicKeys.add(certKey(pem));
  const texts = [...named.keys()].map(readCaFile);
  const trust: HostTrust = { certificates: [], sources: [], notes: [] };
  const seen = new Set<string>();
  [...named].forEach(([path, names], i) => {
    const label = names.length > 0 ? `${names.join(', ')} (${path})` : path;
    const { text, why } = texts[i] ?? {};
    if (text === undefined) {
      trust.notes.push(`${label}: not read (${why})`);
      return;
    }
    const pems = pemCertificates(text).filter((pem) => !publicKeys.has(certKey(pem)));
    if (pems.length === 0) return;
    trust.sources.push(label);
    for (const pem of pems) {
      const certificate = certKey(pem);
      if (!seen.has(certificate)) {
        seen.add(certificate);
        trust.certificates.push(pem);
      }
    }
  });
  remembered = { key, trust: copyTrust(trust) };
  return trust;
}

function copyTrust(trust: HostTrust): HostTrust {
  return { certificates: [...trust.certificates], sources: [...trust.sources], notes: [...trust.notes] };
}

/**
 * Variables that point tools with their own trust store at the sandbox's system bundle: Node (its bundled
 * roots plus these), pip and requests (certifi otherwise), curl, git, OpenSSL. Empty when there is nothing
 * to install (a sandbox then behaves as it always did).
 */
export function trustEnv(trust: HostTrust): Record<string, string> {
  if (trust.certificates.length === 0) return {};
  return Object.fromEntries(CA_VARIABLES.map((name) => [name, SANDBOX_CA_BUNDLE]));
}

/**
 * Makes the certificates in `SANDBOX_CA_DIR` trusted at once, as `update-ca-certificates` would for new
 * files, without its rehash of the whole store (2 s): each appended to the system bundle, linked as
 * `/etc/ssl/certs/<name>.pem` and by its subject hash (OpenSSL's directory lookup) when `openssl` is there.
 * A later `update-ca-certificates` (a reinstall of `ca-certificates`) keeps them: they are local certificates.
 */
const TRUST_ACTIVATE_SCRIPT = [
  'set -e',
  `dir=${SANDBOX_CA_DIR}; certs=/etc/ssl/certs; bundle=${SANDBOX_CA_BUNDLE}`,
  'mkdir -p "$certs"',
  'for f in "$dir"/*.crt; do',
  '  name="$(basename "$f" .crt).pem"',
  '  cat "$f" >> "$bundle"',
  '  ln -sf "$f" "$certs/$name"',
  '  if command -v openssl >/dev/null 2>&1; then',
  '    h=$(openssl x509 -hash -noout -in "$f") && n=0',
  '    while [ -e "$certs/$h.$n" ] && [ "$n" -lt 9 ]; do n=$((n + 1)); done',
  '    [ -e "$certs/$h.$n" ] || ln -s "$name" "$certs/$h.$n"',
  '  fi',
  'done',
  'grep -c "BEGIN CERTIFICATE" "$bundle"',
].join('\n');

/**
 * The commands that install `certificates` inside a sandbox, each under `CHUNK_CHARS`: their own files in
 * `SANDBOX_CA_DIR`, then `TRUST_ACTIVATE_SCRIPT`, in the last files' command when it fits (in an image
 * without `ca-certificates`, the bundle holds only them until the package is installed, whose
 * `update-ca-certificates` then includes them).
 */
export function trustInstallScripts(certificates: readonly string[]): string[] {
  const scripts: string[] = [];
  let current = '';
  certificates.forEach((pem, i) => {
    const file = `${SANDBOX_CA_DIR}/buildbench-host-${String(i + 1).padStart(3, '0')}.crt`;
    const part = `cat > ${file} <<'BUILDBENCH_CA_END'\n${pem}\nBUILDBENCH_CA_END\n`;
    if (current !== '' && current.length + part.length > CHUNK_CHARS) {
      scripts.push(current);
      current = '';
    }
    if (current === '') current = `set -e\nmkdir -p ${SANDBOX_CA_DIR}\n`;
    current += part;
  });
  // The activation rides with the last files when it fits: one command fewer at each sandbox's start.
  if (current !== '' && current.length + TRUST_ACTIVATE_SCRIPT.length < CHUNK_CHARS)
    scripts.push(`${current}${TRUST_ACTIVATE_SCRIPT}`);
  else scripts.push(...(current !== '' ? [current] : []), TRUST_ACTIVATE_SCRIPT);
  return scripts;
}

/** Installs the host's certificates into a fresh sandbox; returns why not when a command failed. */
export async function installHostTrust(
  sandbox: Pick<Sandbox, 'exec'>,
  trust: HostTrust,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (trust.certificates.length === 0) return undefined;
  for (const script of trustInstallScripts(trust.certificates)) {
    const result = await sandbox.exec(script, { timeoutMs: 120_000, ...(signal ? { signal } : {}) });
    if (result.exitCode !== 0)
      return `installing the host's CA certificates failed (exit ${result.exitCode}): ${result.output.trim().split('\n').slice(-3).join(' | ')}`;
  }
  return undefined;
}
