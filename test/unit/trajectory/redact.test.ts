import { describe, it, expect } from '@jest/globals';

import {
  collectSecretValues,
  createRedactor,
  createStreamRedactor,
  REDACTED,
} from '../../../src/trajectory/redact.js';

// Assembled at run time so no secret-shaped literal sits in the repository for scanners to flag.
const OPENAI = 'sk-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0';
const OPENAI_PROJECT = 'sk-proj-' + 'abcDEF123_ghiJKL456-mnoPQR789stuVWX';
const ANTHROPIC = 'sk-ant-api03-' + 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0-AAAA';
const GITHUB = 'ghp_' + 'abcdefghijklmnopqrstuvwxyz0123456789';
const GITHUB_APP = 'ghs_' + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const GITHUB_PAT = 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE';

describe('createRedactor', () => {
  const redact = createRedactor([]);

  it.each([
    ['OpenAI key', `export OPENAI_KEY_USED=${OPENAI} done`, OPENAI],
    ['OpenAI project key', `key ${OPENAI_PROJECT} in text`, OPENAI_PROJECT],
    ['Anthropic key', `x-api-key: ${ANTHROPIC}`, ANTHROPIC],
    ['GitHub token', `git clone https://${GITHUB}@github.com/o/r`, GITHUB],
    ['GitHub app token', `token ${GITHUB_APP}`, GITHUB_APP],
    ['GitHub fine-grained PAT', `PAT=${GITHUB_PAT}`, GITHUB_PAT],
    ['AWS access key id', `aws_access_key_id = ${AWS}`, AWS],
  ])('redacts a %s', (_label, text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  it('keeps the scheme of Bearer headers and the name of key=value assignments', () => {
    expect(redact('Authorization: Bearer abc.def-ghi_jkl')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe(`Authorization: Basic ${REDACTED}`);
    expect(redact('API_KEY=abc123 next')).toBe(`API_KEY=${REDACTED} next`);
    expect(redact('db password: hunter2')).toBe(`db password: ${REDACTED}`);
    expect(redact('{"api-key": "v4lue", "n": 1}')).toBe(`{"api-key": ${REDACTED}, "n": 1}`);
    expect(redact('MY_SECRET=xyz; other')).toBe(`MY_SECRET=${REDACTED}; other`);
  });

  it('redacts passwords in URLs and private key blocks', () => {
    expect(redact('fetching https://user:s3cr3tpass@example.com/repo.git')).toBe(
      `fetching https://user:${REDACTED}@example.com/repo.git`,
    );
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQ\n-----END RSA PRIVATE KEY-----';
    expect(redact(`key:\n${pem}\nafter`)).toBe(`key:\n${REDACTED}\nafter`);
  });

  it('leaves ordinary build output alone', () => {
    const text = [
      "src/lexer.cpp:12:5: error: 'Token::Kind' has not been declared",
      'if (token == NULL) return;',
      'tokens: 1234, max_tokens: 4096',
      'Basic information about the build',
      'task-runner-1234567890-abcdefghij',
      'git@github.com:owner/repo.git',
    ].join('\n');
    expect(redact(text)).toBe(text);
  });

  it('replaces exact secret values of 8 characters or more, longest first, URL-encoded too', () => {
    const r = createRedactor(['short', 'correct-horse-battery', 'correct-horse', 'p@ss word/with+chars']);
    expect(r('short stays; correct-horse-battery and correct-horse go')).toBe(
      `short stays; ${REDACTED} and ${REDACTED} go`,
    );
    expect(r(`https://example.com/?q=${encodeURIComponent('p@ss word/with+chars')}`)).toBe(
      `https://example.com/?q=${REDACTED}`,
    );
    expect(createRedactor(['a.b*c+d?e'])('x a.b*c+d?e y aXbbcdde')).toBe(`x ${REDACTED} y aXbbcdde`);
  });

  it('is idempotent', () => {
    const once = redact(`API_KEY=${OPENAI} Bearer ${GITHUB}`);
    expect(redact(once)).toBe(once);
  });
});

describe('collectSecretValues', () => {
  it('picks values of secret-looking variables only', () => {
    const values = collectSecretValues({
      PATH: '/usr/bin:/bin',
      HOME: '/root',
      OPENAI_API_KEY: 'v-openai',
      ANTHROPIC_API_KEY: 'v-anthropic',
      GITHUB_TOKEN: 'v-github',
      NPM_TOKEN: 'v-npm',
      'INPUT_GITHUB-TOKEN': 'v-input',
      AWS_SECRET_ACCESS_KEY: 'v-aws',
      DB_PASSWORD: 'v-db',
      my_client_secret_file: 'v-lower',
      SSH_KEY: 'v-ssh',
      KEYBOARD: 'us',
      TOKENIZER_PATH: '/models/tok',
      EMPTY_TOKEN: '',
      DUPLICATE_TOKEN: 'v-github',
      MONKEY: 'banana',
    });
    expect(values.sort()).toEqual([
      'v-anthropic',
      'v-aws',
      'v-db',
      'v-github',
      'v-input',
      'v-lower',
      'v-npm',
      'v-openai',
      'v-ssh',
    ]);
  });
});

describe('credentials in URLs and authorization headers', () => {
  const redact = createRedactor([]);
  const APP = 'ghs_' + 'FAKE0123456789abcdefghijklmnopqrstuv';

  it('keeps scheme, user and host of a URL and replaces its password', () => {
    expect(redact(`remote: https://x-access-token:${APP}@github.com/o/r.git`)).toBe(
      `remote: https://x-access-token:${REDACTED}@github.com/o/r.git`,
    );
    expect(redact('DATABASE_URL=postgres://app:pw-12345@db.internal:5432/app')).not.toContain('pw-12345');
    expect(redact('connecting to postgres://app:pw-12345@db.internal:5432/app')).toBe(
      `connecting to postgres://app:${REDACTED}@db.internal:5432/app`,
    );
  });

  it('replaces a long token used as the user of a URL, not an ordinary user name', () => {
    const token = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
    expect(redact(`git clone https://${token}@git.example.com/o/r`)).toBe(
      `git clone https://${REDACTED}@git.example.com/o/r`,
    );
    for (const kept of [
      'ssh://git@github.com/o/r.git',
      'https://deploy@example.com/x',
      'mailto://john.doe@x.org',
    ]) {
      expect(redact(kept)).toBe(kept);
    }
  });

  it("redacts actions/checkout's extraheader and authorization values of any scheme", () => {
    const basic = Buffer.from(`x-access-token:${APP}`).toString('base64');
    expect(redact(`\textraheader = AUTHORIZATION: basic ${basic}`)).toBe(
      `\textraheader = AUTHORIZATION: basic ${REDACTED}`,
    );
    expect(redact('curl -H "Authorization: token abcdef123456" x')).toBe(
      `curl -H "Authorization: token ${REDACTED}" x`,
    );
    expect(redact('Proxy-Authorization: Negotiate YIIabcdefgh')).toBe(
      `Proxy-Authorization: Negotiate ${REDACTED}`,
    );
  });

  it('redacts the base64 forms of a known secret on their own, and secrets added later', () => {
    const secret = 'plain-secret-value-42';
    const r = createRedactor([secret]);
    const header = Buffer.from(`x-access-token:${secret}`).toString('base64');
    expect(r(`value ${header} end`)).toBe(`value ${REDACTED} end`);
    expect(r('later-added-secret-1')).toBe('later-added-secret-1');
    r.add(['later-added-secret-1', 'short']);
    expect(r('x later-added-secret-1 y short')).toBe(`x ${REDACTED} y short`);
  });
});

describe('collectSecretValues: marked names and URLs', () => {
  it('takes the variables named by --secret-env and the password of any URL in the environment', () => {
    const values = collectSecretValues(
      {
        MY_DEPLOYMENT: 'deploy-value-123',
        DATABASE_URL: 'postgres://app:hunter2hunter2@db:5432/app',
        ENCODED_URL: 'https://u:p%40ssw0rd-long@h/x',
        HOME: '/root',
      },
      ['MY_DEPLOYMENT'],
    );
    expect(values).toEqual(
      expect.arrayContaining(['deploy-value-123', 'hunter2hunter2', 'p%40ssw0rd-long', 'p@ssw0rd-long']),
    );
    expect(values).not.toContain('/root');
    const r = createRedactor(values);
    expect(r('password is hunter2hunter2 and p@ssw0rd-long')).not.toMatch(/hunter2|ssw0rd/);
  });
});

describe('createStreamRedactor', () => {
  const secret = 'a-very-secret-value-0123';
  const redact = createRedactor([secret]);

  const run = (chunks: string[], max?: number): string => {
    const stream = createStreamRedactor(redact, max);
    return chunks.map((c) => stream.push(c)).join('') + stream.end();
  };

  it('finds a secret split across chunks and keeps the text otherwise', () => {
    const text = `line one\nthe value ${secret} here\nlast line without end`;
    for (let cut = 1; cut < text.length; cut += 3) {
      const out = run([text.slice(0, cut), text.slice(cut)]);
      expect(out).toBe(`line one\nthe value ${REDACTED} here\nlast line without end`);
    }
    expect(run(['progress 10%\rprogress ', `${secret.slice(0, 5)}`, `${secret.slice(5)}\r`])).toBe(
      `progress 10%\rprogress ${REDACTED}\r`,
    );
  });

  it('drops a private key block that spans chunks', () => {
    const out = run([
      'before\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n',
      'BBBB\nCCCC\n',
      '-----END OPENSSH PRIVATE KEY-----\nafter\n',
    ]);
    expect(out).not.toMatch(/AAAA|BBBB|CCCC/);
    expect(out).toContain('before\n');
    expect(out).toContain('after\n');
  });

  it('bounds a line without end: it is redacted in pieces cut after whitespace', () => {
    const stream = createStreamRedactor(redact, 100);
    const long = 'word '.repeat(50) + secret + ' tail';
    const first = stream.push(long);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThanOrEqual(long.length);
    expect(first + stream.end()).toBe('word '.repeat(50) + REDACTED + ' tail');
  });
});

describe('Redactor.exact', () => {
  it('replaces the known values only and leaves source code that looks secret alone', () => {
    const r = createRedactor(['known-secret-value-1']);
    const patch = '+password = getpass()\n+token: next()\n+copied known-secret-value-1 here\n';
    expect(r.exact(patch)).toBe(`+password = getpass()\n+token: next()\n+copied ${REDACTED} here\n`);
    expect(createRedactor([]).exact(patch)).toBe(patch);
  });
});
