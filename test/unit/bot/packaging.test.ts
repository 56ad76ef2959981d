/**
 * The App's packaging, checked without Docker or GitHub: bot/Dockerfile parses, copies only what exists and
 * everything the code reads at run time, runs the built server as a non-root user; bot/app.yml subscribes
 * to exactly the events the App handles, each with the permission GitHub requires for it; the server's and
 * the Action entry's environment checks name the variable.
 */
import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

import { BOT_EVENTS, readBotActionSettings } from '../../../src/bot/action.js';
import { checkServerEnv, decodePrivateKey } from '../../../src/bot/server.js';
import { parseDockerfile } from '../../helpers/dockerfile.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('bot/Dockerfile', () => {
  const parsed = parseDockerfile(read('bot/Dockerfile'));
  const stages: (typeof parsed.instructions)[] = [];
  for (const i of parsed.instructions) {
    if (i.name === 'FROM') stages.push([]);
    stages.at(-1)?.push(i);
  }
  const final = stages.at(-1)!;

  it('parses, on a Node 24 base, in two stages', () => {
    expect(parsed.errors).toEqual([]);
    expect(stages).toHaveLength(2);
    for (const stage of stages) expect(stage[0]!.args).toMatch(/^node:24(-slim)?\b/);
  });

  it('copies only paths that exist in the repository (the build context is its root)', () => {
    const copies = parsed.instructions.filter((i) => i.name === 'COPY' && !/--from=/.test(i.args));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const words = copy.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      for (const source of words.slice(0, -1))
        expect([source, existsSync(path.join(ROOT, source))]).toEqual([source, true]);
    }
  });

  it('installs production dependencies only in the image it runs, and runs as a non-root user', () => {
    const runs = final.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /npm ci\b.*--omit=dev/.test(r))).toBe(true);
    const users = final.filter((i) => i.name === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = final.find((i) => i.name === 'CMD')!;
    expect(final.indexOf(users.at(-1)!)).toBeLessThan(final.indexOf(cmd));
  });

  it('runs the file `npm run build` makes of src/bot/server.ts (tsconfig.build.json: src → lib)', () => {
    const cmd = final.find((i) => i.name === 'CMD')!;
    expect(cmd.json).toEqual(['node', 'lib/bot/server.js']);
    const build = JSON.parse(read('tsconfig.build.json')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'lib' });
    const source = cmd.json![1]!.replace(/^lib\//, 'src/').replace(/\.js$/, '.ts');
    expect(existsSync(path.join(ROOT, source))).toBe(true);
    // The built tree is copied from the build stage, where `npm run build` ran.
    expect(stages[0]!.some((i) => i.name === 'RUN' && /npm run build/.test(i.args))).toBe(true);
    expect(final.some((i) => i.name === 'COPY' && /--from=build\s+\/app\/lib\s+\.\/lib/.test(i.args))).toBe(
      true,
    );
  });

  it('copies every data file the code reads beside lib/ at run time', () => {
    const copied = final
      .filter((i) => i.name === 'COPY' && !/--from=/.test(i.args))
      .flatMap((i) =>
        i.args
          .split(/\s+/)
          .filter((w) => !w.startsWith('--'))
          .slice(0, -1),
      );
    const needed = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/new URL\('((?:\.\.\/)+[^']+)', import\.meta\.url\)/g)) {
        const target = path.relative(ROOT, path.resolve(path.dirname(file), m[1]!));
        needed.add(target.split(path.sep)[0]!);
      }
    }
    expect(needed.size).toBeGreaterThan(0);
    for (const top of needed)
      expect([top, copied.some((c) => c.replace(/\/$/, '') === top)]).toEqual([top, true]);
  });
});

describe('bot/app.yml', () => {
  const manifest = parse(read('bot/app.yml')) as {
    default_events: string[];
    default_permissions: Record<string, string>;
    url: string;
  };
  const registered = [...read('src/bot/app.ts').matchAll(/app\.on\('([a-z_]+)\./g)].map((m) => m[1]!);

  it('subscribes to exactly the events the App registers handlers for (and the Action entry accepts)', () => {
    expect(new Set(registered)).toEqual(new Set(manifest.default_events));
    expect([...BOT_EVENTS].sort()).toEqual([...manifest.default_events].sort());
  });

  it('holds each event’s required permission, and no permission beyond the minimal set', () => {
    // GitHub: an App receives an event only with read access to the permission it belongs to.
    const needs: Record<string, string> = {
      issue_comment: 'issues',
      workflow_run: 'actions',
      check_run: 'checks',
    };
    for (const event of manifest.default_events)
      expect(manifest.default_permissions[needs[event]!]).toBeDefined();
    expect(manifest.default_permissions).toEqual({
      issues: 'write',
      pull_requests: 'write',
      contents: 'write',
      actions: 'write',
      checks: 'read',
      metadata: 'read',
    });
  });
});

describe('the server environment (src/bot/server.ts)', () => {
  const ok = { APP_ID: '12', PRIVATE_KEY: privateKey, WEBHOOK_SECRET: 's' };

  it('accepts a PEM, a \\n-escaped PEM, a base64 PEM and a key file; defaults PORT to 3000', () => {
    expect(checkServerEnv(ok)).toMatchObject({
      APP_ID: '12',
      PORT: '3000',
      PRIVATE_KEY: `${privateKey.trim()}\n`,
    });
    expect(decodePrivateKey(privateKey.replace(/\n/g, '\\n'), 'PRIVATE_KEY')).toBe(`${privateKey.trim()}\n`);
    expect(decodePrivateKey(Buffer.from(privateKey).toString('base64'), 'PRIVATE_KEY')).toBe(
      `${privateKey.trim()}\n`,
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-key-'));
    writeFileSync(path.join(dir, 'app.pem'), privateKey);
    const fromFile = checkServerEnv({
      ...ok,
      PRIVATE_KEY: undefined,
      PRIVATE_KEY_PATH: path.join(dir, 'app.pem'),
    });
    expect(fromFile.PRIVATE_KEY).toBe(`${privateKey.trim()}\n`);
    expect(fromFile.PRIVATE_KEY_PATH).toBeUndefined();
  });

  it.each([
    [{ WEBHOOK_SECRET: '' }, /^WEBHOOK_SECRET is not set/],
    [
      { PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----' },
      /^PRIVATE_KEY is not a valid PEM/,
    ],
    [{ GHE_HOST: 'https://ghe.example.com' }, /^GHE_HOST must be a host name/],
    [{ GHE_PROTOCOL: 'ftp' }, /^GHE_PROTOCOL must be http or https/],
    [{ WEBHOOK_PATH: 'hooks' }, /^WEBHOOK_PATH must start with \//],
    [{ PORT: '0' }, /^PORT must be a port number/],
  ])('%j is refused with a message naming it', (override, message) => {
    expect(() => checkServerEnv({ ...ok, ...override })).toThrow(message);
  });
});

describe('the Action entry (src/bot/action.ts)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bot-action-'));
  const eventPath = path.join(dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify({ action: 'created', comment: { body: '/buildbench help' } }));
  const env = {
    GITHUB_EVENT_NAME: 'issue_comment',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_RUN_ID: '777',
    GITHUB_TOKEN: 'ghs_x',
    GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
  };

  it('reads the event, the run id as the delivery id, the token and the API root', () => {
    expect(readBotActionSettings(env)).toEqual({
      event: {
        id: '777',
        name: 'issue_comment',
        payload: { action: 'created', comment: { body: '/buildbench help' } },
      },
      token: 'ghs_x',
      baseUrl: 'https://ghe.example.com/api/v3',
    });
    expect(readBotActionSettings({ ...env, GITHUB_API_URL: undefined }).baseUrl).toBe(
      'https://api.github.com',
    );
  });

  it.each([
    [{ GITHUB_EVENT_NAME: undefined }, /^GITHUB_EVENT_NAME is not set/],
    [
      { GITHUB_EVENT_NAME: 'push' },
      /^GITHUB_EVENT_NAME is "push": the buildbench App handles issue_comment, workflow_run, check_run/,
    ],
    [{ GITHUB_EVENT_PATH: path.join(dir, 'missing.json') }, /^GITHUB_EVENT_PATH: cannot read the event JSON/],
    [{ GITHUB_RUN_ID: undefined }, /^GITHUB_RUN_ID is not set/],
    [{ GITHUB_TOKEN: '' }, /^GITHUB_TOKEN is not set/],
  ])('%j is refused with a message naming it', (override, message) => {
    expect(() => readBotActionSettings({ ...env, ...override })).toThrow(message);
  });
});
