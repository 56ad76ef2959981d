/**
 * The GitHub App as a Node server: `npm run bot` (this file run directly) reads the environment, checks it,
 * and runs Probot's own server (`run` from probot: the `/ping` route, Probot's logging) with `buildbenchApp`.
 * Deliveries to the webhook route go through the intake (intake.ts: bounded body, signature checked over the
 * raw bytes before parsing, 202 at once, handlers in the background), not through Probot's webhook route,
 * which reads a whole body before checking anything: Probot's route is given a path no request can name.
 *
 * Environment (Probot's names, so Probot's documentation applies):
 *   APP_ID            the App's id (a positive integer)
 *   PRIVATE_KEY       the App's private key (PEM; `\n`-escaped newlines and base64 of the PEM are accepted,
 *                     as Probot does), or PRIVATE_KEY_PATH naming the .pem file
 *   WEBHOOK_SECRET    the App's webhook secret. Required: Probot would otherwise accept deliveries signed
 *                     with the word `development`.
 *   PORT (3000), HOST (localhost; `0.0.0.0` in the container), WEBHOOK_PATH, LOG_LEVEL, LOG_FORMAT
 *   WEBHOOK_MAX_BYTES  the largest body accepted, in bytes (default and most: GitHub's 25 MB payload cap).
 *   WEBHOOK_PROXY_URL is not used: run smee-client beside the bot, aimed at WEBHOOK_PATH (docs/app-setup.md).
 *   GHE_HOST, GHE_PROTOCOL  GitHub Enterprise Server (`https://<GHE_HOST>/api/v3`); the end-to-end test points
 *                     them at a local fake API (`GHE_PROTOCOL=http GHE_HOST=127.0.0.1:<port>`).
 * A missing or malformed variable is one line on stderr naming it, and exit status 2; nothing starts.
 *
 * `.env` files are read before the check (loadDotEnvFiles): `.env` in the folder the server starts in (the
 * project folder under `npm run bot`), then `bot/.env` there, which is where Probot's setup flow writes the new
 * App's APP_ID, PRIVATE_KEY and WEBHOOK_SECRET when run as `cd bot && npx probot run` (it reads `app.yml` from
 * the folder it runs in). A variable already in the environment wins over both files; `.env` over `bot/.env`.
 *
 * `probot run lib/bot/server.js` works too: Probot takes this module's default export as the app function
 * (its resolveAppFunction), and the server only starts when this file is the process's entry. That way runs
 * Probot's own webhook route in front, without the intake's bounds.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { run, type ApplicationFunctionOptions, type Probot } from 'probot';

import { ConfigError, errorMessage } from '../base/errors.js';
import { isProcessEntry } from '../base/entry.js';
import { buildbenchApp } from './app.js';
import { createWebhookIntake, DEFAULT_WEBHOOK_PATH, GITHUB_MAX_PAYLOAD_BYTES } from './intake.js';

/**
 * The path Probot's own webhook route is given: a URL path never holds a raw space (it arrives as `%20`), so
 * no request reaches that route and every delivery goes through the intake at WEBHOOK_PATH.
 */
const PROBOT_UNROUTABLE_PATH = '/ probot route: deliveries go through the buildbench intake';

export interface BotServerEnv {
  APP_ID: string;
  PRIVATE_KEY: string;
  WEBHOOK_SECRET: string;
  PORT: string;
  [name: string]: string | undefined;
}

/** A PEM private key from PRIVATE_KEY's text (PEM, `\n`-escaped PEM, or base64 of a PEM). */
export function decodePrivateKey(text: string, name: string): string {
  let pem = text.trim();
  if (!pem.includes('-----BEGIN')) {
    const decoded = /^[A-Za-z0-9+/=\s]+$/.test(pem) ? Buffer.from(pem, 'base64').toString('utf8') : '';
    if (!decoded.includes('-----BEGIN'))
      throw new ConfigError(`${name} is not a PEM private key (expected "-----BEGIN … PRIVATE KEY-----")`);
    pem = decoded.trim();
  }
  pem = pem.replace(/\\n/g, '\n').trim();
  try {
    createPrivateKey(pem);
  } catch {
    throw new ConfigError(
      `${name} is not a valid PEM private key (the App's .pem file, downloaded from its settings)`,
    );
  }
  return `${pem}\n`;
}

/** WEBHOOK_SECRET, or a ConfigError: without it Probot would verify signatures against `development`. */
export function requireWebhookSecret(env: NodeJS.ProcessEnv): string {
  const secret = env.WEBHOOK_SECRET;
  if (secret === undefined || secret === '')
    throw new ConfigError(
      'WEBHOOK_SECRET is not set (the webhook secret of the GitHub App: deliveries are verified with it)',
    );
  return secret;
}

/** WEBHOOK_MAX_BYTES as a number (GitHub's 25 MB cap when unset), or a ConfigError naming it. */
export function webhookMaxBytes(env: NodeJS.ProcessEnv): number {
  const text = env.WEBHOOK_MAX_BYTES?.trim() ?? '';
  if (text === '') return GITHUB_MAX_PAYLOAD_BYTES;
  const bytes = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(bytes >= 1024 && bytes <= GITHUB_MAX_PAYLOAD_BYTES))
    throw new ConfigError(
      `WEBHOOK_MAX_BYTES must be a number of bytes from 1024 to ${GITHUB_MAX_PAYLOAD_BYTES} (GitHub's 25 MB payload cap), not ${JSON.stringify(text)}`,
    );
  return bytes;
}

/**
 * The environment Probot's `run` will read, checked: every variable the server needs, with the private key
 * decoded (PRIVATE_KEY_PATH read) so that Probot gets a key it will accept. Throws a ConfigError naming the
 * variable.
 */
export function checkServerEnv(env: NodeJS.ProcessEnv): BotServerEnv {
  const appId = env.APP_ID?.trim() ?? '';
  if (appId === '') throw new ConfigError("APP_ID is not set (the GitHub App's id, from its settings page)");
  if (!/^[1-9][0-9]*$/.test(appId))
    throw new ConfigError(`APP_ID must be a positive integer, not ${JSON.stringify(appId)}`);

  let privateKey: string;
  if (env.PRIVATE_KEY !== undefined && env.PRIVATE_KEY.trim() !== '') {
    privateKey = decodePrivateKey(env.PRIVATE_KEY, 'PRIVATE_KEY');
  } else if (env.PRIVATE_KEY_PATH !== undefined && env.PRIVATE_KEY_PATH !== '') {
    let text: string;
    try {
      text = readFileSync(env.PRIVATE_KEY_PATH, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `PRIVATE_KEY_PATH: cannot read ${env.PRIVATE_KEY_PATH} (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})`,
      );
    }
    privateKey = decodePrivateKey(text, `PRIVATE_KEY_PATH (${env.PRIVATE_KEY_PATH})`);
  } else {
    throw new ConfigError(
      "PRIVATE_KEY is not set (the GitHub App's private key, PEM), nor PRIVATE_KEY_PATH (its .pem file)",
    );
  }

  const secret = requireWebhookSecret(env);

  const port = env.PORT?.trim() || '3000';
  if (!/^[0-9]+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    throw new ConfigError(`PORT must be a port number from 1 to 65535, not ${JSON.stringify(port)}`);

  if (env.GHE_HOST !== undefined && env.GHE_HOST !== '' && !/^[A-Za-z0-9.-]+(:[0-9]+)?$/.test(env.GHE_HOST))
    throw new ConfigError(
      `GHE_HOST must be a host name with an optional port (e.g. ghe.example.com), not ${JSON.stringify(env.GHE_HOST)}`,
    );
  if (
    env.GHE_PROTOCOL !== undefined &&
    env.GHE_PROTOCOL !== '' &&
    !['http', 'https'].includes(env.GHE_PROTOCOL)
  )
    throw new ConfigError(`GHE_PROTOCOL must be http or https, not ${JSON.stringify(env.GHE_PROTOCOL)}`);
  if (env.WEBHOOK_PATH !== undefined && env.WEBHOOK_PATH !== '' && !env.WEBHOOK_PATH.startsWith('/'))
    throw new ConfigError(`WEBHOOK_PATH must start with /, not ${JSON.stringify(env.WEBHOOK_PATH)}`);
  webhookMaxBytes(env);

  const checked: BotServerEnv = {
    ...env,
    APP_ID: appId,
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: secret,
    PORT: port,
  };
  delete checked.PRIVATE_KEY_PATH;
  return checked;
}

/** The `.env` files the server reads, in order (the first that sets a variable wins), relative to its folder. */
export const DOT_ENV_FILES = ['.env', path.join('bot', '.env')] as const;

/**
 * Fills `env` with the variables of DOT_ENV_FILES under `dir` that `env` does not set already (a variable set in
 * the environment wins; an earlier file wins over a later one). Returns the files read. A file that is absent is
 * skipped; one that cannot be read or parsed is a ConfigError naming it.
 */
export function loadDotEnvFiles(env: NodeJS.ProcessEnv, dir: string = process.cwd()): string[] {
  const read: string[] = [];
  for (const name of DOT_ENV_FILES) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw new ConfigError(`${file}: cannot read it (${code ?? errorMessage(error)})`);
    }
    let vars: Record<string, string>;
    try {
      vars = parseEnv(text) as Record<string, string>;
    } catch (error) {
      throw new ConfigError(`${file}: not a .env file of NAME=value lines (${errorMessage(error)})`);
    }
    for (const [key, value] of Object.entries(vars)) if (env[key] === undefined) env[key] = value;
    read.push(file);
  }
  return read;
}

/** The app function `probot run` loads (this module's default export): buildbenchApp with its default dependencies. */
export default function buildbench(app: Probot): void {
  requireWebhookSecret(process.env);
  buildbenchApp(app);
}

/** Starts the server from `env`; resolves with Probot's Server once it listens. */
export async function startBotServer(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Awaited<ReturnType<typeof run>>> {
  const checked = checkServerEnv(env);
  const path = checked.WEBHOOK_PATH || DEFAULT_WEBHOOK_PATH;
  const probotEnv: BotServerEnv = { ...checked, WEBHOOK_PATH: PROBOT_UNROUTABLE_PATH };
  delete probotEnv.WEBHOOK_PROXY_URL;
  return run(
    (app: Probot, options: ApplicationFunctionOptions) => {
      buildbenchApp(app);
      const log = app.log.child({ name: 'intake' });
      options.addHandler(
        createWebhookIntake({
          path,
          secret: checked.WEBHOOK_SECRET,
          maxBytes: webhookMaxBytes(checked),
          receive: (delivery) => app.receive(delivery as Parameters<Probot['receive']>[0]),
          log,
        }),
      );
      if (checked.WEBHOOK_PROXY_URL)
        log.warn(
          `WEBHOOK_PROXY_URL is not used: run smee-client beside the bot with --target http://<host>:<port>${path}`,
        );
    },
    { env: probotEnv },
  );
}

async function main(): Promise<void> {
  try {
    loadDotEnvFiles(process.env);
    await startBotServer(process.env);
  } catch (error) {
    process.stderr.write(`buildbench bot: ${errorMessage(error)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  }
}

if (isProcessEntry(import.meta.url)) await main();
