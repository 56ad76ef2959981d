/**
 * `npm run bot` reads the `.env` Probot's setup flow writes (src/bot/server.ts loadDotEnvFiles): `.env` in the
 * folder it starts in, then `bot/.env`; the environment wins over both. And the server, started as `npm run bot`
 * starts it (tsx src/bot/server.ts) in a folder whose only configuration is a `.env` written the way the setup
 * flow writes it (PRIVATE_KEY a quoted PEM with `\n` escapes), listens and takes a signed delivery at the intake.
 */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { loadDotEnvFiles } from '../../../src/bot/server.js';
import { APP_PRIVATE_KEY, freePort, ROOT, signBody, waitFor } from '../../helpers/bot-server.js';

/** A `.env` as Probot's updateEnv writes it: KEY=value lines, the PEM quoted with its newlines escaped. */
function setupFlowEnv(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([k, v]) => `${k}=${v.replace(/\n/g, '\\n')}`)
    .join('\n');
}

describe('loadDotEnvFiles', () => {
  it('reads .env, then bot/.env; the environment wins, then the earlier file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-dotenv-'));
    mkdirSync(path.join(dir, 'bot'));
    writeFileSync(path.join(dir, '.env'), 'APP_ID=1\nPORT=4000\n');
    writeFileSync(path.join(dir, 'bot/.env'), 'APP_ID=2\nWEBHOOK_SECRET="from bot"\nLOG_LEVEL=debug\n');
    const env: NodeJS.ProcessEnv = { LOG_LEVEL: 'warn' };
    expect(loadDotEnvFiles(env, dir)).toEqual([path.join(dir, '.env'), path.join(dir, 'bot/.env')]);
    expect(env).toEqual({ APP_ID: '1', PORT: '4000', WEBHOOK_SECRET: 'from bot', LOG_LEVEL: 'warn' });
  });

  it('reads nothing where there is no .env, and keeps the environment as it was', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-dotenv-'));
    const env: NodeJS.ProcessEnv = { APP_ID: '9' };
    expect(loadDotEnvFiles(env, dir)).toEqual([]);
    expect(env).toEqual({ APP_ID: '9' });
  });

  it('decodes the quoted, \\n-escaped PEM the setup flow writes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-dotenv-'));
    writeFileSync(path.join(dir, '.env'), setupFlowEnv({ PRIVATE_KEY: `"${APP_PRIVATE_KEY}"` }));
    const env: NodeJS.ProcessEnv = {};
    loadDotEnvFiles(env, dir);
    expect(env.PRIVATE_KEY?.trim()).toBe(APP_PRIVATE_KEY.trim());
  });

  it('names a .env that cannot be read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-dotenv-'));
    mkdirSync(path.join(dir, '.env'));
    expect(() => loadDotEnvFiles({}, dir)).toThrow(`${path.join(dir, '.env')}: cannot read it (EISDIR)`);
  });
});

describe('the server started with only a .env', () => {
  it('listens, answers /ping and accepts a delivery signed with the .env’s secret', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bot-dotenv-run-'));
    const port = await freePort();
    const secret = 'dotenv-secret';
    writeFileSync(
      path.join(dir, '.env'),
      setupFlowEnv({
        APP_ID: '4713',
        PRIVATE_KEY: `"${APP_PRIVATE_KEY}"`,
        WEBHOOK_SECRET: secret,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      }),
    );
    // Only PATH and HOME from this process: everything the server needs comes from the .env.
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/bot/server.ts')], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor(
        'the bot server to answer /ping',
        async () => {
          if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
          return fetch(`${base}/ping`).then(
            (r) => (r.ok ? true : undefined),
            () => undefined,
          );
        },
        60_000,
        () => output,
      );
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const post = (signature: string) =>
        fetch(`${base}/api/github/webhooks`, {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'ping',
            'x-github-delivery': 'dotenv-1',
            'x-hub-signature-256': signature,
          },
        }).then((r) => r.status);
      expect(await post(signBody(body, secret))).toBe(202);
      expect(await post(signBody(body, 'another secret'))).toBe(400); // the intake: a signature mismatch
    } finally {
      child.kill('SIGTERM');
    }
  }, 90_000);
});
