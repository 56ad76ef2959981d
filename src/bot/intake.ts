/**
 * The webhook intake: the App server's front door for deliveries, standing in front of Probot's handlers
 * (Probot's own route reads a whole body into memory before it checks anything). Everything a stranger can
 * send is hostile data until its signature says otherwise. What it promises, for POSTs to the webhook path:
 *
 * - Refused before one byte of the body is read: another method (404); a Content-Type other than JSON (415);
 *   no `X-GitHub-Event`, `X-GitHub-Delivery` or `X-Hub-Signature-256` header, or a signature that is not
 *   `sha256=` and 64 hex digits (400); a Content-Length over the limit (413, `maxBytes`, GitHub's 25 MB
 *   payload cap by default); a body that does not fit in the shared read budget (503).
 * - While reading (a chunked body too) at most `maxBytes` of one delivery are held: the read stops and the
 *   answer is 413 the moment the limit is passed. Bodies being read together hold at most `bufferBytes`
 *   beyond their first `freeBytes` each (a flood of big bodies cannot crowd out GitHub's small ones); a body
 *   that would pass it is answered 503. A body still arriving after `readTimeoutMs` is answered 408. What a
 *   refused request still sends is read and dropped, never kept, for `lingerMs`; then its connection is closed.
 * - The HMAC-SHA256 of the raw bytes, computed as they arrive, is compared with the signature (timing-safe)
 *   before anything looks at the content: a mismatch is 400 and the body is never parsed.
 * - Only then is it parsed: not JSON, or not a JSON object, is 400 with a one-line message.
 * - A verified delivery is answered 202 at once (GitHub wants an answer within 10 s) and handed to the
 *   handlers in the background, `concurrency` at a time with at most `queueCapacity` waiting; beyond that
 *   the answer is 503 with Retry-After (GitHub does not retry by itself: the App's settings can redeliver).
 *   A handler's failure is logged with the delivery id and event, never lost, never an unhandled rejection.
 * Other paths are not this intake's: it returns false and the server's next route answers.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** GitHub caps webhook payloads at 25 MB; it does not deliver a larger one. */
export const GITHUB_MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;
/** Probot's (and @octokit/webhooks') default webhook route. */
export const DEFAULT_WEBHOOK_PATH = '/api/github/webhooks';

/** A verified delivery, as Probot's `receive` takes it. */
export interface WebhookDelivery {
  id: string;
  name: string;
  payload: Record<string, unknown>;
}

/** The part of a pino logger the intake uses (Probot's `app.log`). */
export interface IntakeLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface IntakeOptions {
  /** The webhook route, e.g. `/api/github/webhooks` (trailing slashes do not matter). */
  path: string;
  /** The App's webhook secret. */
  secret: string;
  /** Runs the handlers of a verified delivery (Probot's `app.receive`). */
  receive: (delivery: WebhookDelivery) => Promise<unknown>;
  log: IntakeLog;
  /** Most bytes one body may have (default GitHub's 25 MB). */
  maxBytes?: number;
  /** Most bytes all bodies being read may hold together beyond their free bytes (default maxBytes). */
  bufferBytes?: number;
  /** Bytes of each body not counted against bufferBytes (default 64 KiB: GitHub's usual payloads). */
  freeBytes?: number;
  /** Deliveries whose handlers run at once (default 8). */
  concurrency?: number;
  /** Verified deliveries that may wait for a handler slot (default 64). */
  queueCapacity?: number;
  /** A body must have arrived within this many ms of the headers (default 10 s, GitHub's own timeout). */
  readTimeoutMs?: number;
  /** How long the rest of a refused body is read and dropped before its connection is closed (default 1 s). */
  lingerMs?: number;
}

/** A Probot server handler (`addHandler`): true when the request was the intake's. */
export interface WebhookIntake {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Resolves when no delivery is running or waiting. */
  idle(): Promise<void>;
  /** Bytes of bodies being read now, counted against bufferBytes. */
  readonly buffered: number;
}

const REQUIRED_HEADERS = ['x-github-event', 'x-github-delivery', 'x-hub-signature-256'] as const;
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(?:;|$)/i;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** `/a/b//` → `/a/b`, as @octokit/webhooks compares paths. */
function trimSlashes(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

function pathnameOf(url: string | undefined): string | undefined {
  try {
    return new URL(trimSlashes(url ?? '/'), 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

type ReadResult =
  { kind: 'read'; body: Buffer; mac: Buffer } | { kind: 'too-large' | 'busy' | 'timeout' | 'gone' };

/** Handler slots and a bounded waiting line. */
class HandlerQueue {
  private running = 0;
  private readonly waiting: (() => Promise<void>)[] = [];
  private idlers: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly capacity: number,
  ) {}

  /** Starts or queues the job; false when the line is full. */
  offer(job: () => Promise<void>): boolean {
    if (this.running < this.concurrency) {
      this.start(job);
      return true;
    }
    if (this.waiting.length >= this.capacity) return false;
    this.waiting.push(job);
    return true;
  }

  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  private start(job: () => Promise<void>): void {
    this.running++;
    void job().finally(() => {
      this.running--;
      const next = this.waiting.shift();
      if (next) this.start(next);
      else if (this.running === 0) {
        const idlers = this.idlers;
        this.idlers = [];
        for (const resolve of idlers) resolve();
      }
    });
  }
}

/** The bytes of bodies held in memory at once, shared by all requests. */
class ByteBudget {
  used = 0;
  constructor(private readonly limit: number) {}

  /** Takes `n` bytes of the budget, or false when they do not fit. */
  take(n: number): boolean {
    if (n <= 0) return true;
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  release(n: number): void {
    this.used -= n;
  }
}

interface BodyLimits {
  maxBytes: number;
  freeBytes: number;
  readTimeoutMs: number;
  budget: ByteBudget;
}

/**
 * Answers with an error. What the client still sends is read and dropped, never kept, for `lingerMs` so that
 * it can read the answer (closing a socket with unread bytes resets it, and the answer may be lost with it);
 * a body still coming after that loses its connection.
 */
function refuseAfter(
  lingerMs: number,
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  req.resume();
  if (!req.complete) {
    // Node answers a request whose body is unread with `Connection: close` and closes the socket as soon as
    // the answer is written: the unread bytes then reset the connection, often before the client has read
    // the answer. Kept alive, the socket lingers while the rest is dropped, and is closed by the timer.
    res.shouldKeepAlive = true;
    const timer = setTimeout(() => req.socket.destroy(), lingerMs).unref();
    req.once('end', () => clearTimeout(timer));
  }
  const body = `${JSON.stringify({ error: message })}\n`;
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    })
    .end(body);
}

/** Reads the body under the limits, hashing it as it arrives. `reserved`: budget already taken for it. */
function readBody(
  req: IncomingMessage,
  signatureKey: string,
  reserved: number,
  limits: BodyLimits,
): Promise<ReadResult> {
  const { maxBytes, freeBytes, readTimeoutMs, budget } = limits;
  return new Promise((resolve) => {
    const hmac = createHmac('sha256', signatureKey);
    let chunks: Buffer[] = [];
    let received = 0;
    let held = reserved;
    let settled = false;
    const finish = (result: ReadResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      budget.release(held);
      held = 0;
      if (result.kind !== 'read') chunks = [];
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) return finish({ kind: 'too-large' });
      const need = Math.max(0, received - freeBytes) - held;
      if (need > 0) {
        if (!budget.take(need)) return finish({ kind: 'busy' });
        held += need;
      }
      hmac.update(chunk);
      chunks.push(chunk);
    };
    const onEnd = (): void =>
      finish({ kind: 'read', body: Buffer.concat(chunks, received), mac: hmac.digest() });
    const onGone = (): void => finish({ kind: 'gone' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), readTimeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

export function createWebhookIntake(options: IntakeOptions): WebhookIntake {
  const path = trimSlashes(options.path);
  const maxBytes = options.maxBytes ?? GITHUB_MAX_PAYLOAD_BYTES;
  const bufferLimit = options.bufferBytes ?? maxBytes;
  const freeBytes = options.freeBytes ?? 64 * 1024;
  const readTimeoutMs = options.readTimeoutMs ?? 10_000;
  const lingerMs = options.lingerMs ?? 1000;
  const queue = new HandlerQueue(options.concurrency ?? 8, options.queueCapacity ?? 64);
  const { log } = options;
  const budget = new ByteBudget(bufferLimit);
  const limits: BodyLimits = { maxBytes, freeBytes, readTimeoutMs, budget };
  const refuse = refuseAfter.bind(undefined, lingerMs);

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'POST') return refuse(req, res, 404, `Unknown route: ${req.method} ${pathname}`);
    const contentType = header(req, 'content-type');
    if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType))
      return refuse(req, res, 415, 'Unsupported "Content-Type" header value. Must be "application/json"', {
        accept: 'application/json',
      });
    const missing = REQUIRED_HEADERS.filter((name) => header(req, name) === undefined);
    if (missing.length > 0) return refuse(req, res, 400, `Required headers missing: ${missing.join(', ')}`);
    const name = header(req, 'x-github-event') ?? '';
    const id = header(req, 'x-github-delivery') ?? '';
    const signature = SIGNATURE.exec(header(req, 'x-hub-signature-256') ?? '')?.[1];
    if (signature === undefined)
      return refuse(req, res, 400, 'x-hub-signature-256 is not sha256= followed by 64 hex digits');

    const lengthHeader = header(req, 'content-length');
    let reserved = 0;
    if (lengthHeader !== undefined) {
      if (!/^[0-9]+$/.test(lengthHeader)) return refuse(req, res, 400, 'Content-Length is not a number');
      const length = Number(lengthHeader);
      if (length > maxBytes) {
        log.debug({ id, event: name, length }, `webhook intake: ${length} bytes refused before reading`);
        return refuse(req, res, 413, `Payload too large: Content-Length ${length} is over ${maxBytes} bytes`);
      }
      reserved = Math.max(0, length - freeBytes);
      if (!budget.take(reserved)) {
        log.warn({ id, event: name, length }, 'webhook intake: busy reading other bodies');
        return refuse(req, res, 503, 'Busy: too many large bodies are being read; try again', {
          'retry-after': '10',
        });
      }
    }

    const read = await readBody(req, options.secret, reserved, limits);
    if (read.kind !== 'read') {
      if (read.kind === 'too-large') {
        log.debug({ id, event: name }, `webhook intake: body over ${maxBytes} bytes, refused while reading`);
        refuse(req, res, 413, `Payload too large: the body is over ${maxBytes} bytes`);
      } else if (read.kind === 'busy') {
        log.warn({ id, event: name }, 'webhook intake: busy reading other bodies');
        refuse(req, res, 503, 'Busy: too many large bodies are being read; try again', {
          'retry-after': '10',
        });
      } else if (read.kind === 'timeout') {
        refuse(req, res, 408, `Request timeout: the body did not arrive within ${readTimeoutMs} ms`);
      }
      return;
    }

    if (!timingSafeEqual(read.mac, Buffer.from(signature, 'hex'))) {
      log.warn(
        { id, event: name },
        'webhook intake: signature does not match; check that WEBHOOK_SECRET is the App’s webhook secret',
      );
      return refuse(req, res, 400, 'signature does not match the payload and the webhook secret');
    }

    let payload: unknown;
    try {
      payload = JSON.parse(read.body.toString('utf8'));
    } catch {
      return refuse(req, res, 400, 'Invalid JSON: the signed payload is not JSON');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      return refuse(req, res, 400, 'Invalid JSON: the signed payload is not a JSON object');

    const delivery: WebhookDelivery = { id, name, payload: payload as Record<string, unknown> };
    const queued = queue.offer(async () => {
      try {
        await options.receive(delivery);
      } catch (error) {
        log.error(
          { id, event: name, err: error },
          `webhook intake: the handlers of delivery ${id} (${name}) failed`,
        );
      }
    });
    if (!queued) {
      log.warn({ id, event: name }, 'webhook intake: handler queue full, delivery refused');
      return refuse(req, res, 503, 'Busy: too many deliveries waiting for a handler; redeliver later', {
        'retry-after': '30',
      });
    }
    log.debug({ id, event: name }, `${name} event received (id: ${id})`);
    res.writeHead(202, { 'content-type': 'text/plain', 'content-length': '9' }).end('accepted\n');
  }

  const intake = ((req: IncomingMessage, res: ServerResponse): boolean => {
    const pathname = pathnameOf(req.url);
    if (pathname === undefined || trimSlashes(pathname) !== path) return false;
    handle(req, res, pathname).catch((error: unknown) => {
      log.error({ err: error }, 'webhook intake: unexpected failure');
      if (!res.headersSent) refuse(req, res, 500, 'Internal error');
      else req.socket.destroy();
    });
    return true;
  }) as WebhookIntake;
  Object.defineProperties(intake, {
    idle: { value: () => queue.idle() },
    buffered: { get: () => budget.used },
  });
  return intake;
}
