/**
 * Secret redaction, applied to everything buildbench writes: the trajectory, every log, the replay logs and
 * the progress display. Three layers: exact known secret values (the LLM key, tokens from the environment,
 * variables the user marks secret with `--secret-env`, credentials removed from the repository copy) and the
 * forms they travel in (URL-encoded, inside a Basic authorization header); credentials inside URLs and
 * authorization headers; and patterns of well-known token formats, for secrets the harness was never told
 * about (a key pasted into a README the model quotes back).
 */
import { escapeRegex } from '../base/escape-regex.js';

export const REDACTED = '[REDACTED]';

/** Secret values shorter than this are not redacted as exact strings: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Token patterns. Groups named `keep` are left in place (the key name in `password=…`, the scheme in
 * `Bearer …`), everything else in the match is replaced. `literal`: a string every match contains; text
 * without it is not searched (an `includes` instead of a regular-expression pass — these were the dearest
 * patterns on a 100 MB build log).
 */
const PATTERNS: { re: RegExp; literal?: string }[] = [
  // PEM private keys, whole block.
  {
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    literal: 'PRIVATE KEY-----',
  },
  // GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained personal access tokens.
  { re: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…, sk-svcacct-…).
  { re: /\bsk-ant-[A-Za-z0-9_-]{10,}/g },
  { re: /\bsk-[A-Za-z0-9_-]{20,}/g },
  // AWS access key ids (long-term and temporary).
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  // Slack tokens.
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  // Authorization headers, any scheme: `Authorization: Basic <base64>` (actions/checkout's extraheader),
  // `AUTHORIZATION: bearer …`, `Authorization: token …`, `Proxy-Authorization: …`, `authorization=…`.
  {
    re: /(?<keep>\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|digest|negotiate|ntlm|aws4-hmac-sha256)[ \t]+)?)[A-Za-z0-9._~+/=:-]{8,}/gi,
  },
  { re: /(?<keep>\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi },
  // Credentials in URLs: https://user:secret@host → https://user:[REDACTED]@host. The match starts at the
  // literal `://` (the scheme before it stays as it is): a leading `[a-z]…` class is tried at every word
  // and made these two patterns the dearest of all on a 100 MB log.
  { re: /(?<keep>:\/\/[^\s/:@]+:)[^\s/@]+(?=@)/g, literal: '://' },
  // A bare token as a URL's user (https://TOKEN@host): a long user part with a digit in it; short names
  // (`git@`, `deploy@`, `john.doe@`) are kept.
  { re: /(?<keep>:\/\/)(?=[^\s/:@]*[0-9])[A-Za-z0-9._~%+=-]{20,}(?=@)/g, literal: '://' },
  // key=value and key: value assignments with a secret-sounding key (API_KEY=…, "password": "…", token: …).
  // Not `==` comparisons nor C++ `Token::Kind`.
  {
    re: /(?<keep>(?:api[_-]?key|token|secret|passwd|password)["']?[ \t]*(?:=(?!=)|:(?!:))[ \t]*)(?!\[REDACTED\])[^\s,;]+/gi,
  },
];

/** A redactor: a function over text that can learn more secret values while a run goes on. */
export interface Redactor {
  (text: string): string;
  /** Adds exact secret values (each at least 8 characters long; shorter ones are ignored). */
  add: (secrets: readonly string[]) => void;
  /**
   * Replaces the known secret values only, no patterns: for files whose text must stay as it is unless a
   * secret is in it (patches, build.sh), where `password = getpass()` is source code, not a secret.
   */
  exact: (text: string) => string;
}

/** The forms a secret value travels in: itself, URL-encoded, and base64 inside a Basic authorization. */
export function formsOf(secret: string): string[] {
  const forms = [secret];
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) forms.push(encoded);
  // actions/checkout's extraheader: `AUTHORIZATION: basic base64(x-access-token:<token>)`; other tools
  // send `user:<token>` or `<token>:` — the base64 of the whole pair is what appears.
  for (const pair of [`x-access-token:${secret}`, `${secret}:`, `:${secret}`]) {
    forms.push(Buffer.from(pair, 'utf8').toString('base64'));
  }
  return forms;
}

/**
 * A function replacing secrets in text with `[REDACTED]`: every occurrence of each value in `secrets` that is
 * at least 8 characters long (and its URL-encoded form, and the base64 of `x-access-token:<value>` as a Basic
 * authorization carries it), and tokens matching well-known formats: GitHub (`ghp_…`, `github_pat_…`), OpenAI
 * (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`), AWS access key ids, Slack tokens, authorization headers of
 * any scheme (`Authorization: Basic …`, `Bearer …`), passwords in URLs (`scheme://user:pass@host` keeps the
 * scheme, user and host) and long tokens used as a URL's user (`https://TOKEN@host`), PEM private keys, and
 * assignments such as `API_KEY=…`, `token: …`, `password = …` (the key name is kept, the value replaced).
 *
 * Errs on the side of redacting: `token = next();` in a compiler message loses its right-hand side.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const values = new Set<string>();
  let exact: RegExp | undefined;
  const add = (more: readonly string[]): void => {
    const before = values.size;
    for (const secret of more) {
      if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of formsOf(secret)) values.add(form);
    }
    if (values.size === before) return;
    // Longest first, so a secret containing another is replaced whole.
    exact = new RegExp(
      [...values]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegex)
        .join('|'),
      'g',
    );
  };
  add(secrets);
  const redact = (text: string): string => {
    if (text.length === 0) return text;
    let out = exact ? text.replace(exact, REDACTED) : text;
    for (const { re, literal } of PATTERNS) {
      if (literal !== undefined && !out.includes(literal)) continue;
      out = out.replace(re, (...args: unknown[]) => {
        const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
        const keep = typeof groups === 'object' && groups ? (groups.keep ?? '') : '';
        return keep + REDACTED;
      });
    }
    return out;
  };
  const exactOnly = (text: string): string =>
    exact && text.length > 0 ? text.replace(exact, REDACTED) : text;
  return Object.assign(redact, { add, exact: exactOnly });
}

/** Environment variable names whose values are treated as secrets. */
const SECRET_NAME =
  /(?:^|[_-])(?:KEY|TOKEN|PAT)$|SECRET|PASSWORD|PASSWD|CREDENTIAL|^GITHUB_TOKEN$|^OPENAI_API_KEY$|^ANTHROPIC_API_KEY$/i;

/** The password (or a bare token user) of each `scheme://user:pass@host` URL in `value`. */
export function urlCredentials(value: string): string[] {
  const found: string[] = [];
  for (const match of value.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^\s/@]+)@/gi)) {
    const userinfo = match[1] ?? '';
    const colon = userinfo.indexOf(':');
    const secret = colon >= 0 ? userinfo.slice(colon + 1) : userinfo.length >= 20 ? userinfo : '';
    if (!secret) continue;
    found.push(secret);
    try {
      const decoded = decodeURIComponent(secret);
      if (decoded !== secret) found.push(decoded);
    } catch {
      // not percent-encoded
    }
  }
  return found;
}

/**
 * Values of environment variables whose names look secret: `*_KEY`, `*_TOKEN`, `*_PAT`, anything with
 * `SECRET`, `PASSWORD`, `PASSWD` or `CREDENTIAL` in it, and `GITHUB_TOKEN`, `OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY` (names compared without regard to case; `-` counts as `_`, as in Actions'
 * `INPUT_GITHUB-TOKEN`); the values of the variables named in `marked` (`--secret-env`, whatever their name);
 * and the password inside any variable holding a URL with credentials (`DATABASE_URL=postgres://u:pw@db/x`).
 * Empty values are left out, duplicates removed. Pass the result to `createRedactor`.
 */
export function collectSecretValues(env: NodeJS.ProcessEnv, marked: readonly string[] = []): string[] {
  const values = new Set<string>();
  const named = new Set(marked);
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (SECRET_NAME.test(name) || named.has(name)) values.add(value);
    if (value.includes('://')) for (const secret of urlCredentials(value)) values.add(secret);
  }
  return [...values];
}

/** Lines longer than this are redacted in pieces (cut after whitespace where possible). */
export const MAX_PENDING_LINE = 1024 * 1024;

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;

function lastIndexOfPattern(text: string, pattern: RegExp): number {
  let last = -1;
  for (const match of text.matchAll(pattern)) last = match.index ?? last;
  return last;
}

/** Redacts a stream of text chunks line by line (see `createStreamRedactor`). */
export interface StreamRedactor {
  /** Redacted text ready to be written: complete lines only; a partial line waits for its end. */
  push(chunk: string): string;
  /** The rest, redacted. */
  end(): string;
}

/**
 * Applies `redact` to a stream of chunks so that a secret split across two chunks is still found: complete
 * lines (ended by `\n` or `\r`) are redacted together, the partial last line is held back until its end
 * arrives, up to `maxPending` characters (then it is cut after its last whitespace, or hard). A private
 * key block that spans chunks is dropped up to its END line.
 */
export function createStreamRedactor(
  redact: (text: string) => string,
  maxPending = MAX_PENDING_LINE,
): StreamRedactor {
  let pending = '';
  let inKey = false;
  const apply = (text: string): string => {
    let rest = text;
    if (inKey) {
      const end = PEM_END.exec(rest);
      if (!end) return '';
      inKey = false;
      rest = rest.slice(end.index + end[0].length);
    }
    const begin = lastIndexOfPattern(rest, PEM_BEGIN);
    if (begin >= 0 && !PEM_END.test(rest.slice(begin))) inKey = true;
    return redact(rest);
  };
  return {
    push(chunk: string): string {
      if (chunk.length === 0) return '';
      let text = pending + chunk;
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1;
      let out = cut > 0 ? apply(text.slice(0, cut)) : '';
      text = text.slice(cut);
      // A line without end that grew too long: redacted in pieces, each cut after its last whitespace.
      while (text.length > maxPending) {
        const space = text.slice(0, maxPending).search(/\s\S*$/);
        const piece = space > 0 ? space + 1 : maxPending;
        out += apply(text.slice(0, piece));
        text = text.slice(piece);
      }
      pending = text;
      return out;
    },
    end(): string {
      const text = pending;
      pending = '';
      return text ? apply(text) : '';
    },
  };
}

/** A copy of a JSON-like value with every string in it (not the keys) passed through `redact`. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redact(v);
    if (depth > 64 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(v)) out[key] = walk(item, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}
