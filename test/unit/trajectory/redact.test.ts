import { describe, it, expect } from '@jest/globals';

import { collectSecretValues, createRedactor, REDACTED } from '../../../src/trajectory/redact.js';

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
