/**
 * Secret redaction, applied to everything the recorder writes. Two layers: exact known secret values (the
 * LLM key, tokens from the environment) and patterns of well-known token formats, for secrets the harness
 * was never told about (a key pasted into a README the model quotes back, a token in a clone URL).
 */

export const REDACTED = '[REDACTED]';

/** Secret values shorter than this are not redacted as exact strings: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Token patterns. Groups named `keep` are left in place (the key name in `password=…`, the scheme in
 * `Bearer …`), everything else in the match is replaced.
 */
const PATTERNS: RegExp[] = [
  // PEM private keys, whole block.
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  // GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained personal access tokens.
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…, sk-svcacct-…).
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  // AWS access key ids (long-term and temporary).
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // Slack tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  // Authorization headers.
  /(?<keep>\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /(?<keep>\bAuthorization:[ \t]*Basic[ \t]+)[A-Za-z0-9+/=]{8,}/gi,
  // Credentials in URLs: https://user:secret@host → https://user:[REDACTED]@host
  /(?<keep>\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+(?=@)/gi,
  // key=value and key: value assignments with a secret-sounding key (API_KEY=…, "password": "…", token: …).
  // Not `==` comparisons nor C++ `Token::Kind`.
  /(?<keep>(?:api[_-]?key|token|secret|passwd|password)["']?[ \t]*(?:=(?!=)|:(?!:))[ \t]*)(?!\[REDACTED\])[^\s,;]+/gi,
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A function replacing secrets in text with `[REDACTED]`: every occurrence of each value in `secrets` that is
 * at least 8 characters long (and its URL-encoded form), and tokens matching well-known formats: GitHub
 * (`ghp_…`, `github_pat_…`), OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`), AWS access key ids, Slack
 * tokens, `Bearer …` and Basic authorization, passwords in URLs, PEM private keys, and assignments such as
 * `API_KEY=…`, `token: …`, `password = …` (the key name is kept, the value replaced).
 *
 * Errs on the side of redacting: `token = next();` in a compiler message loses its right-hand side.
 */
export function createRedactor(secrets: string[]): (text: string) => string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    values.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) values.add(encoded);
  }
  // Longest first, so a secret containing another is replaced whole.
  const exact =
    values.size > 0
      ? new RegExp(
          [...values]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|'),
          'g',
        )
      : undefined;
  return (text: string): string => {
    if (text.length === 0) return text;
    let out = exact ? text.replace(exact, REDACTED) : text;
    for (const pattern of PATTERNS) {
      out = out.replace(pattern, (...args: unknown[]) => {
        const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
        const keep = typeof groups === 'object' && groups ? (groups.keep ?? '') : '';
        return keep + REDACTED;
      });
    }
    return out;
  };
}

/** Environment variable names whose values are treated as secrets. */
const SECRET_NAME =
  /(?:^|[_-])(?:KEY|TOKEN|PAT)$|SECRET|PASSWORD|PASSWD|CREDENTIAL|^GITHUB_TOKEN$|^OPENAI_API_KEY$|^ANTHROPIC_API_KEY$/i;

/**
 * Values of environment variables whose names look secret: `*_KEY`, `*_TOKEN`, `*_PAT`, anything with
 * `SECRET`, `PASSWORD`, `PASSWD` or `CREDENTIAL` in it, and `GITHUB_TOKEN`, `OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY` (names compared without regard to case; `-` counts as `_`, as in Actions'
 * `INPUT_GITHUB-TOKEN`). Empty values are left out, duplicates removed. Pass the result to `createRedactor`.
 */
export function collectSecretValues(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_NAME.test(name)) values.add(value);
  }
  return [...values];
}
