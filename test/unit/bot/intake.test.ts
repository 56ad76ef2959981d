/**
 * The webhook intake (src/bot/intake.ts) over real HTTP on 127.0.0.1: what is refused before the body is read
 * (the client never sends one byte of it and still gets the answer), what is refused while reading (a chunked
 * body over the limit; the client is still sending when the 413 comes), that nothing unsigned reaches a
 * handler or JSON.parse, and that a signed delivery is answered 202 and handed to the handler.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  createWebhookIntake,
  type IntakeOptions,
  type WebhookDelivery,
  type WebhookIntake,
} from '../../../src/bot/intake.js';
import { checkServerEnv, webhookMaxBytes } from '../../../src/bot/server.js';

const SECRET = 'intake-secret';
const PATH = '/api/github/webhooks';
const sign = (body: string | Buffer, secret = SECRET): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Body bytes the client had written when the answer came. */
  sent: number;
}

/** What the client sends after the headers: a whole body, nothing ever, or a stream of zero bytes. */
type Body = string | Buffer | { never: true } | { stream: number };

let server: Server;
let base: { host: string; port: number };
let intake: WebhookIntake;
let received: WebhookDelivery[];
let logged: { level: string; obj: object; msg: string }[];

function headers(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-github-delivery': 'd-1',
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

function post(hdrs: Record<string, string>, body: Body, method = 'POST', path = PATH): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request({ ...base, method, path, headers: hdrs, agent: false });
    req.on('response', (res) => {
      answered = true;
      const atAnswer = sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      const done = (): void => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, sent: atAnswer });
        req.destroy();
      };
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      req.end(body);
    } else if ('never' in body) {
      req.flushHeaders();
    } else {
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = (): void => {
        while (!answered && !req.destroyed && sent < body.stream) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered && sent >= body.stream) req.end();
      };
      pump();
    }
  });
}

function start(options: Partial<IntakeOptions> = {}): void {
  received = [];
  logged = [];
  const log = (level: string) => (obj: object, msg: string) => void logged.push({ level, obj, msg });
  intake = createWebhookIntake({
    path: PATH,
    secret: SECRET,
    receive: (delivery) => {
      received.push(delivery);
      return Promise.resolve();
    },
    log: { debug: log('debug'), warn: log('warn'), error: log('error') },
    ...options,
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (!intake(req, res)) res.writeHead(404).end('next route');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  jest.restoreAllMocks();
});

const payload = { action: 'created', comment: { body: 'hello' }, installation: { id: 1 } };
const text = JSON.stringify(payload);

describe('refused before the body is read', () => {
  it('a Content-Length over the limit: 413 while the client has sent no byte of the body', async () => {
    start({ maxBytes: 1024 * 1024 });
    const answer = await post(
      headers({ 'x-hub-signature-256': sign('x'), 'content-length': String(200 * 1024 * 1024) }),
      { never: true },
    );
    expect(answer.status).toBe(413);
    expect(answer.sent).toBe(0);
    expect(JSON.parse(answer.text)).toEqual({
      error: `Payload too large: Content-Length ${200 * 1024 * 1024} is over 1048576 bytes`,
    });
    expect(received).toEqual([]);
  });

  it('no X-Hub-Signature-256: 400 naming it, before any byte of the body; no handler, no JSON.parse', async () => {
    start();
    const parse = jest.spyOn(JSON, 'parse');
    const answer = await post(headers({ 'content-length': String(text.length) }), { never: true });
    expect(answer.status).toBe(400);
    expect(answer.sent).toBe(0);
    expect(answer.text).toMatch(/Required headers missing: x-hub-signature-256/);
    // A malformed signature is refused the same way.
    const malformed = await post(
      headers({ 'x-hub-signature-256': 'sha1=abc', 'content-length': String(text.length) }),
      { never: true },
    );
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/x-hub-signature-256 is not sha256= followed by 64 hex digits/);
    expect(received).toEqual([]);
    expect(parse.mock.calls.filter(([arg]) => arg === text)).toEqual([]);
  });

  it('another method is 404, another content type 415; other paths go on to the next route', async () => {
    start();
    expect((await post({}, '', 'GET')).status).toBe(404);
    const form = await post(headers({ 'content-type': 'application/x-www-form-urlencoded' }), 'payload=x');
    expect(form.status).toBe(415);
    const other = await post(headers({ 'x-hub-signature-256': sign(text) }), text, 'POST', '/ping');
    expect(other).toMatchObject({ status: 404, text: 'next route' });
    // Trailing slashes and a query string still name the webhook route.
    const slashed = await post(headers({ 'x-hub-signature-256': sign(text) }), text, 'POST', `${PATH}/?x=1`);
    expect(slashed.status).toBe(202);
  });
});

describe('refused while reading', () => {
  it('a chunked body over the limit: 413 while the client is still sending, nothing kept', async () => {
    start({ maxBytes: 256 * 1024 });
    const answer = await post(headers({ 'x-hub-signature-256': sign('x'), 'transfer-encoding': 'chunked' }), {
      stream: 64 * 1024 * 1024,
    });
    expect(answer.status).toBe(413);
    expect(answer.text).toMatch(/Payload too large: the body is over 262144 bytes/);
    // Stopped long before the 64 MiB were sent (the server stopped reading; TCP pushed back).
    expect(answer.sent).toBeLessThan(32 * 1024 * 1024);
    expect(intake.buffered).toBe(0);
    expect(received).toEqual([]);
  });

  it('bodies read together hold at most bufferBytes beyond their free bytes: 503; small ones still pass', async () => {
    start({ bufferBytes: 100 * 1024, freeBytes: 8 * 1024 });
    // One large body takes most of the budget and is never finished.
    const hog = post(headers({ 'x-hub-signature-256': sign('x'), 'content-length': String(90 * 1024) }), {
      never: true,
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(intake.buffered).toBe(82 * 1024);
    const second = await post(
      headers({ 'x-hub-signature-256': sign('x'), 'content-length': String(50 * 1024) }),
      { never: true },
    );
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('10');
    const small = await post(headers({ 'x-hub-signature-256': sign(text) }), text);
    expect(small.status).toBe(202);
    start({ readTimeoutMs: 50 }); // the hog's intake keeps its own budget; a fresh one for the timeout
    const slow = await post(
      headers({ 'x-hub-signature-256': sign(text), 'content-length': String(text.length) }),
      { never: true },
    );
    expect(slow.status).toBe(408);
    server.closeAllConnections();
    await hog.catch(() => undefined);
  });
});

describe('the signature, then the content', () => {
  it('a wrong signature (another secret, or another body) is 400; no handler, no JSON.parse', async () => {
    start();
    const parse = jest.spyOn(JSON, 'parse');
    const forged = await post(headers({ 'x-hub-signature-256': sign(text, 'not-the-secret') }), text);
    expect(forged.status).toBe(400);
    expect(forged.text).toMatch(/signature does not match/);
    const tampered = await post(headers({ 'x-hub-signature-256': sign(`${text} `) }), text);
    expect(tampered.status).toBe(400);
    const chunked = await post(
      headers({ 'x-hub-signature-256': sign('{}'), 'transfer-encoding': 'chunked' }),
      { stream: 64 * 1024 },
    );
    expect(chunked.status).toBe(400);
    expect(received).toEqual([]);
    expect(parse.mock.calls.filter(([arg]) => arg === text)).toEqual([]);
    expect(logged.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(
      Array(3).fill(expect.stringMatching(/signature does not match/)),
    );
  });

  it('a valid signature: 202 at once, and the handler gets the id, the event and the payload', async () => {
    start();
    const answer = await post(headers({ 'x-hub-signature-256': sign(text) }), text);
    expect(answer).toMatchObject({ status: 202, text: 'accepted\n' });
    await intake.idle();
    expect(received).toEqual([{ id: 'd-1', name: 'issue_comment', payload }]);
    // Chunked, signed: the same.
    const chunked = await post(
      headers({
        'x-hub-signature-256': sign(text),
        'x-github-delivery': 'd-2',
        'transfer-encoding': 'chunked',
      }),
      text,
    );
    expect(chunked.status).toBe(202);
    await intake.idle();
    expect(received.map((d) => d.id)).toEqual(['d-1', 'd-2']);
  });

  it('bad JSON (or not an object) after a good signature: 400 with one line, no stack; no handler', async () => {
    start();
    for (const body of ['{"action": "created",', '[1, 2]']) {
      const answer = await post(headers({ 'x-hub-signature-256': sign(body) }), body);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({ error: expect.stringMatching(/^Invalid JSON: the signed/) });
      expect(answer.text).not.toMatch(/\n\s+at /);
    }
    expect(received).toEqual([]);
  });
});

describe('handlers in the background', () => {
  it('answers before the handler finishes; a full line is 503; a failing handler is logged with its id', async () => {
    const releases: (() => void)[] = [];
    start({
      concurrency: 1,
      queueCapacity: 1,
      receive: (delivery) =>
        new Promise<void>((resolve, reject) =>
          releases.push(() => (delivery.id === 'd-2' ? reject(new Error('boom')) : resolve())),
        ),
    });
    const deliver = (id: string): Promise<Answer> =>
      post(headers({ 'x-hub-signature-256': sign(text), 'x-github-delivery': id }), text);
    expect((await deliver('d-1')).status).toBe(202); // running
    expect((await deliver('d-2')).status).toBe(202); // waiting
    const full = await deliver('d-3');
    expect(full.status).toBe(503);
    expect(full.text).toMatch(/too many deliveries waiting/);
    expect(releases).toHaveLength(1);
    releases[0]!();
    await new Promise((r) => setTimeout(r, 10));
    expect(releases).toHaveLength(2);
    releases[1]!();
    await intake.idle();
    expect(logged.filter((l) => l.level === 'error')).toEqual([
      {
        level: 'error',
        obj: expect.objectContaining({ id: 'd-2', event: 'issue_comment' }),
        msg: 'webhook intake: the handlers of delivery d-2 (issue_comment) failed',
      },
    ]);
  });
});

describe('WEBHOOK_MAX_BYTES', () => {
  const ok = {
    APP_ID: '12',
    WEBHOOK_SECRET: 's',
    PRIVATE_KEY: generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey,
  };

  it('defaults to GitHub’s 25 MB, may be smaller, and is refused naming the variable otherwise', () => {
    expect(webhookMaxBytes({})).toBe(25 * 1024 * 1024);
    expect(webhookMaxBytes({ WEBHOOK_MAX_BYTES: '1048576' })).toBe(1048576);
    for (const value of ['abc', '100', '1e6', String(26 * 1024 * 1024)])
      expect(() => checkServerEnv({ ...ok, WEBHOOK_MAX_BYTES: value })).toThrow(
        /^WEBHOOK_MAX_BYTES must be a number of bytes from 1024 to 26214400/,
      );
  });
});
