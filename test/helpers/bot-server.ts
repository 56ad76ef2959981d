/**
 * The App server as the end-to-end tests start it: `tsx src/bot/server.ts` as a child process (exactly as
 * `npm run bot` starts it) on 127.0.0.1, with a freshly generated App key, a webhook secret and a local fake
 * GitHub API reached through `GHE_HOST`; and deliveries signed as GitHub signs them (`X-Hub-Signature-256`:
 * HMAC-SHA256 of the body). Shared by test/integration/bot*.e2e.int.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

import { STATUS_MARKER } from '../../src/bot/sticky.js';
import type { FakeGitHubApi } from '../fakes/fake-github-api.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** One App private key (PEM) for the test file that imports this module. */
export const APP_PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every 100 ms until it gives a value; throws naming `what` (and `detail()`) after `ms`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 60_000,
  detail: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const more = detail();
      throw new Error(`timed out waiting for ${what}${more ? `\n${more}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GitHub's signature header value for `body`. */
export const signBody = (body: string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The server's environment: only what it needs (no proxies, no tokens of this machine), plus `extra`. */
export function botServerEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface SpawnedServer {
  child: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output: () => string;
  exited: Promise<number | null>;
}

/** Spawns the server with exactly `env`; does not wait for it. */
export function spawnBotServer(env: NodeJS.ProcessEnv): SpawnedServer {
  const child = spawn(TSX, ['src/bot/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export interface RunningServer extends SpawnedServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  secret: string;
  /** Sends a delivery to the webhook route; `signature` null sends none, a function computes one. */
  deliver: (
    event: string,
    id: string,
    payload: unknown,
    signature?: string | null | ((body: string) => string),
  ) => Promise<{ status: number; text: string }>;
  stop: () => Promise<void>;
}

/**
 * Starts the server on a free port for the App `appId` against the fake GitHub API at `githubHost`, and waits
 * until it answers `/ping`. `env` adds or overrides variables (LOG_LEVEL, WEBHOOK_MAX_BYTES, …).
 */
export async function startBotServer(options: {
  appId: number;
  secret: string;
  githubHost: string;
  env?: Record<string, string | undefined>;
}): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const spawned = spawnBotServer(
    botServerEnv({
      APP_ID: String(options.appId),
      PRIVATE_KEY: APP_PRIVATE_KEY,
      WEBHOOK_SECRET: options.secret,
      PORT: String(port),
      HOST: '127.0.0.1',
      GHE_HOST: options.githubHost,
      GHE_PROTOCOL: 'http',
      LOG_LEVEL: 'warn',
      ...options.env,
    }),
  );
  await waitFor(
    'the bot server to answer /ping',
    async () => {
      if (spawned.child.exitCode !== null) throw new Error(`the server exited:\n${spawned.output()}`);
      return fetch(`${base}/ping`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      );
    },
    60_000,
    spawned.output,
  );
  const deliver: RunningServer['deliver'] = async (
    event,
    id,
    payload,
    signature = (body) => signBody(body, options.secret),
  ) => {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
      'user-agent': 'GitHub-Hookshot/e2e',
    };
    const sig = typeof signature === 'function' ? signature(body) : signature;
    if (sig !== null) headers['x-hub-signature-256'] = sig;
    const res = await fetch(`${base}/api/github/webhooks`, { method: 'POST', headers, body });
    return { status: res.status, text: await res.text() };
  };
  const stop = async (): Promise<void> => {
    if (spawned.child.exitCode === null) {
      spawned.child.kill('SIGTERM');
      await spawned.exited;
    }
  };
  return { ...spawned, port, base, secret: options.secret, deliver, stop };
}

/** The process ids below `pid` (children, grandchildren, …), from /proc/<id>/stat. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = [...parentOf].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), undefined once the process is gone. */
export function processMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The id of the node process that runs the server: tsx runs it in a child node process (and esbuild beside
 * it), so the deepest process below the spawned one whose command line names the server.
 */
export function serverProcessId(server: SpawnedServer): number {
  const runsServer = (pid: number): boolean => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('src/bot/server.ts');
    } catch {
      return false;
    }
  };
  const root = server.child.pid!;
  const candidates = [root, ...descendants(root)].filter(runsServer);
  const deepest = candidates.filter((pid) => !descendants(pid).some(runsServer));
  if (deepest.length !== 1)
    throw new Error(`expected one server process below ${root}, found ${deepest.length}`);
  return deepest[0]!;
}

/**
 * A writer's `/buildbench build` on pull request `pr` of `owner/repo`: stored in the fake first (as GitHub stores a
 * comment before it sends the webhook), then its webhook (the recorded issue_comment payload, for installation
 * `installationId`) delivered as `delivery`; waits for the dispatch and returns the id of the App's status comment.
 */
export async function buildCommand(options: {
  fake: FakeGitHubApi;
  server: RunningServer;
  owner: string;
  repo: string;
  installationId: number;
  pr: number;
  delivery: string;
}): Promise<number> {
  const { fake, server, owner, repo, pr } = options;
  const stored = fake.addComment(owner, repo, pr, '/buildbench build', { login: owner, type: 'User' });
  const payload = JSON.parse(
    readFileSync(path.join(ROOT, 'test/fixtures/webhooks/issue_comment.created.pull_request.json'), 'utf8'),
  ) as Record<string, unknown>;
  (payload.issue as Record<string, unknown>).number = pr;
  Object.assign(payload.comment as Record<string, unknown>, {
    id: stored.id,
    body: stored.body,
    created_at: stored.created_at,
  });
  payload.installation = { id: options.installationId };
  const before = fake.dispatches.length;
  const answer = await server.deliver('issue_comment', options.delivery, payload);
  if (answer.status >= 300)
    throw new Error(`the command's delivery was answered ${answer.status}: ${answer.text}`);
  await waitFor(
    'the dispatch',
    () => (fake.dispatches.length > before ? true : undefined),
    60_000,
    server.output,
  );
  const sticky = [...fake.comments.values()].find(
    (c) => c.issue_number === pr && c.user.type === 'Bot' && c.body.includes(STATUS_MARKER),
  );
  if (!sticky) throw new Error(`no status comment on #${pr} after the dispatch`);
  return sticky.id;
}
