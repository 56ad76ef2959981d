/**
 * A real HTTP server on 127.0.0.1:<random port> that the real `@actions/cache` saves to and restores from,
 * in both protocols the library speaks:
 *   v1, the REST cache service (GHES): `GET _apis/artifactcache/cache?keys=…&version=…` (200, or 204 on a
 *     miss), `GET _apis/artifactcache/caches?key=…` (the debug listing), `POST _apis/artifactcache/caches`
 *     (reserve; 409 when the key and version are taken), `PATCH _apis/artifactcache/caches/{id}` with
 *     `Content-Range: bytes a-b/*` (chunks, in any order) and `POST _apis/artifactcache/caches/{id}`
 *     (commit `{size}`). The archive is then fetched with one plain GET from `archiveLocation`, here.
 *   v2, the twirp cache service (github.com): JSON `POST /twirp/github.actions.results.api.v1.CacheService/`
 *     `CreateCacheEntry`, `FinalizeCacheEntryUpload` and `GetCacheEntryDownloadURL`, whose signed URLs lead
 *     back here, where enough of the Blob REST API answers the storage SDK: Put Blob, Put Block, Put Block
 *     List, Get Blob Properties and Get Blob with `x-ms-range` or `Range` (206 and Content-Range). The
 *     library gives a download to the SDK only when the URL's host ends in `.blob.core.windows.net`, so by
 *     default the URLs name `devstoreaccount1.blob.core.windows.net` and this server is also the HTTP proxy
 *     that reaches it (env('v2') sets HTTP_PROXY; other hosts get 502); `blobUrls: 'ip'` gives Azurite-style
 *     `127.0.0.1:PORT/devstoreaccount1/…` URLs instead, and restores then take one plain GET.
 * Lookups match as GitHub's do: the version must be equal; the primary key matches exactly, then as a
 * prefix, then each restore key as a prefix in order; among prefix matches the newest entry wins. Entries
 * are immutable: a second reserve or create of the same key and version (even one still uploading) is
 * refused with 409 (v2 as twirp `already_exists`, as github.com answers), which the library reports as
 * "another job may be creating this cache". The two protocols keep separate entries, as the two services
 * do; scopes (branches) are not modelled.
 * It refuses what the real services refuse: a missing or wrong bearer token, a v1 request without
 * `api-version=6.0-preview.1` in Accept, a chunk whose body does not fill its Content-Range, chunks that do
 * not tile the committed size, a finalize size that differs from the blob, a storage request whose `sig` is
 * not the one issued for that blob (upload URLs write, download URLs read), and writes to a finished entry.
 * Every request is recorded; `failNext` injects errors in each protocol's own error format. Blobs live in
 * memory, so tests should keep archives small.
 * It also answers the one REST call of the cache's management the action makes, on `apiUrl`:
 * `DELETE /repos/{owner}/{repo}/actions/caches?key=…&ref=…` (Authorization `token FAKE_GITHUB_TOKEN`), which
 * deletes the key's entries in that ref (200 with the list, 404 when there are none, as GitHub answers), or
 * 403 "Resource not accessible by integration" after `forbidDeletes()`, as for a token without
 * `actions: write`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type CacheProtocol = 'v1' | 'v2';

export interface FakeCacheEntry {
  key: string;
  version: string;
  /** The archive's size in bytes. */
  size: number;
  protocol: CacheProtocol;
}

export interface RecordedCacheRequest {
  method: string;
  /** The request target as received: path and query. */
  path: string;
}

export interface FakeCacheServerOptions {
  /**
   * How v2's signed URLs name this server. `azure` (the default): `http://devstoreaccount1.blob.core.windows.net/…`,
   * reached through HTTP_PROXY pointing here (env('v2') sets it). The library hands a download to the storage
   * SDK only when the URL's host ends in `.blob.core.windows.net`, so this is the only way restores take the
   * SDK's path (HEAD, then 4 MiB ranges) as on github.com. `ip`: `http://127.0.0.1:PORT/devstoreaccount1/…`,
   * no proxy; uploads still go through the SDK but restores fall back to one plain GET.
   */
  blobUrls?: 'azure' | 'ip';
}

export interface FakeCacheServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** The finished entries, oldest first (reservations still uploading are left out). */
  entries(): FakeCacheEntry[];
  /** Everything received, for assertions. */
  requests: RecordedCacheRequest[];
  /**
   * Env vars that make @actions/cache talk to this server with the given protocol. v1 names a GHES host so the
   * library does not pick v2; the caller should also remove ACTIONS_CACHE_SERVICE_V2 and ACTIONS_CACHE_MODE.
   * v2 with `azure` blob URLs sets HTTP_PROXY; a surrounding HTTPS_PROXY or ALL_PROXY would win over it in
   * the storage SDK, and a NO_PROXY covering the blob host would bypass it, so the caller should remove those.
   */
  env(protocol: CacheProtocol): Record<string, string>;
  /** Make the next n requests whose path matches `pattern` fail with `status` (error injection). */
  failNext(pattern: RegExp, status: number, n?: number): void;
  /** The REST API root for GITHUB_API_URL (`http://127.0.0.1:PORT`). */
  apiUrl: string;
  /** Answer cache deletions with 403, as GitHub does for a token without `actions: write` (or allow them again). */
  forbidDeletes(forbid?: boolean): void;
  close(): Promise<void>;
}

/** The ACTIONS_RUNTIME_TOKEN that `env()` hands out and every service call must carry. */
export const FAKE_RUNTIME_TOKEN = 'fake-actions-runtime-token';
/** The token the REST endpoint accepts (the action's `token` input). */
export const FAKE_GITHUB_TOKEN = 'ghs_fake-github-token';

const V1_PREFIX = '/_apis/artifactcache/';
const V1_API_VERSION = 'api-version=6.0-preview.1';
const TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.CacheService/';
const REST_CACHES = /^\/repos\/[^/]+\/[^/]+\/actions\/caches$/;
const ACCOUNT = 'devstoreaccount1';
const CONTAINER = 'actions-cache';
/** Where blobs live on an Azurite-style address (the account is the first path segment). */
const BLOB_PREFIX = `/${ACCOUNT}/${CONTAINER}/`;
/** The storage account's host name, answered through HTTP_PROXY (see `FakeCacheServerOptions.blobUrls`). */
const AZURE_HOST = `${ACCOUNT}.blob.core.windows.net`;
const STORAGE_VERSION = '2025-01-05';
const SCOPE = 'refs/heads/main';
/** A request body larger than this is refused (413): the fake keeps everything in memory. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

interface Entry {
  id: number;
  /** Creation order; the newest entry wins among prefix matches. */
  seq: number;
  key: string;
  version: string;
  protocol: CacheProtocol;
  createdAt: Date;
  committed: boolean;
  blob: Blob;
  /** v1 chunks by start offset (a retried chunk replaces its earlier copy). */
  chunks: Map<number, Buffer>;
}

interface Blob {
  name: string;
  /** Lets writes in while the entry is being created. */
  uploadSig: string;
  /** Lets reads in once the entry is finished. */
  downloadSig: string;
  data: Buffer | undefined;
  /** Staged (uncommitted) and committed blocks, by block id. */
  staged: Map<string, Buffer>;
  committedBlocks: Map<string, Buffer>;
  etag: string;
  lastModified: Date;
}

interface Fault {
  pattern: RegExp;
  status: number;
  remaining: number;
}

type Kind = 'v1' | 'twirp' | 'blob' | 'rest' | 'other';

/** An error answer in the shape of the service that gives it. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** twirp's error code, or Azure Storage's `x-ms-error-code`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export async function startFakeCacheServer(options: FakeCacheServerOptions = {}): Promise<FakeCacheServer> {
  const blobUrls = options.blobUrls ?? 'azure';
  const entries: Entry[] = [];
  const blobs = new Map<string, Blob>();
  const requests: RecordedCacheRequest[] = [];
  const faults: Fault[] = [];
  let nextId = 1;
  let seq = 0;
  let deletesForbidden = false;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake-cache-server: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ownHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = `http://${ownHost}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    // Through the proxy the target is absolute (`http://host/path`); record just the path and query.
    const url = new URL(target, origin);
    requests.push({ method, path: url.pathname + url.search });
    const { kind, blobName } = route(url);
    try {
      const body = await readBody(req);
      const fault = takeFault(url.pathname + url.search);
      if (fault) throw new HttpError(fault.status, `injected error ${fault.status}`);
      if (kind === 'v1') handleV1(req, res, method, url, body);
      else if (kind === 'twirp') handleTwirp(req, res, method, url, body);
      else if (kind === 'blob') handleBlob(req, res, method, url, blobName, body);
      else if (kind === 'rest') handleRest(req, res, method, url);
      else if (url.host !== ownHost)
        throw new HttpError(502, `fake-cache-server proxies only ${AZURE_HOST}, not ${url.host}`);
      else throw new HttpError(404, `no route ${method} ${url.pathname}`);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      sendError(req, res, kind, error);
    }
  }

  function route(url: URL): { kind: Kind; blobName: string } {
    const own = url.host === ownHost;
    if (own && url.pathname.startsWith(V1_PREFIX)) return { kind: 'v1', blobName: '' };
    if (own && url.pathname.startsWith(TWIRP_PREFIX)) return { kind: 'twirp', blobName: '' };
    if (own && REST_CACHES.test(url.pathname)) return { kind: 'rest', blobName: '' };
    if (own && url.pathname.startsWith(BLOB_PREFIX))
      return { kind: 'blob', blobName: url.pathname.slice(BLOB_PREFIX.length) };
    if (url.hostname === AZURE_HOST && url.pathname.startsWith(`/${CONTAINER}/`))
      return { kind: 'blob', blobName: url.pathname.slice(CONTAINER.length + 2) };
    return { kind: 'other', blobName: '' };
  }

  function takeFault(target: string): Fault | undefined {
    const fault = faults.find((f) => {
      f.pattern.lastIndex = 0;
      return f.remaining > 0 && f.pattern.test(target);
    });
    if (fault) fault.remaining--;
    return fault;
  }

  // ---- v1: the REST cache service ----

  function handleV1(req: IncomingMessage, res: ServerResponse, method: string, url: URL, body: Buffer): void {
    requireToken(req);
    if (!(req.headers.accept ?? '').includes(V1_API_VERSION))
      throw new HttpError(400, `Accept must name ${V1_API_VERSION}, got '${req.headers.accept ?? ''}'`);
    const resource = url.pathname.slice(V1_PREFIX.length);

    if (method === 'GET' && resource === 'cache') {
      const keys = (url.searchParams.get('keys') ?? '').split(',').filter((k) => k !== '');
      const version = url.searchParams.get('version') ?? '';
      if (keys.length === 0 || version === '') throw new HttpError(400, 'keys and version are required');
      const entry = lookup('v1', keys, version);
      if (!entry) {
        res.writeHead(204).end();
        return;
      }
      sendJson(res, 200, {
        scope: SCOPE,
        cacheKey: entry.key,
        cacheVersion: entry.version,
        creationTime: entry.createdAt.toISOString(),
        // GHES-like: its own storage address, so the library downloads with one plain GET.
        archiveLocation: blobUrl(entry.blob, 'download', 'ip'),
      });
      return;
    }
    if (method === 'GET' && resource === 'caches') {
      const key = url.searchParams.get('key') ?? '';
      const found = entries.filter((e) => e.protocol === 'v1' && e.committed && e.key === key);
      sendJson(res, 200, {
        totalCount: found.length,
        artifactCaches: found.map((e) => ({
          scope: SCOPE,
          cacheKey: e.key,
          cacheVersion: e.version,
          creationTime: e.createdAt.toISOString(),
        })),
      });
      return;
    }
    if (method === 'POST' && resource === 'caches') {
      const request = parseJson(body);
      const key = stringField(request, 'key');
      const version = stringField(request, 'version');
      if (taken('v1', key, version))
        throw new HttpError(
          409,
          `Cache already exists. Scope: ${SCOPE}, Key: ${key}, Version: ${version}`,
          'ArtifactCacheAlreadyExistsException',
        );
      sendJson(res, 200, { cacheId: create('v1', key, version).id });
      return;
    }
    const idMatch = /^caches\/(\d+)$/.exec(resource);
    if (idMatch && (method === 'PATCH' || method === 'POST')) {
      const entry = entries.find((e) => e.protocol === 'v1' && e.id === Number(idMatch[1]));
      if (!entry) throw new HttpError(404, `no cache reservation ${idMatch[1]}`);
      if (entry.committed) throw new HttpError(409, `cache ${entry.id} is already committed`);
      if (method === 'PATCH') uploadChunk(req, entry, body);
      else commitChunks(entry, parseJson(body));
      res.writeHead(204).end();
      return;
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  }

  function uploadChunk(req: IncomingMessage, entry: Entry, body: Buffer): void {
    const range = /^bytes (\d+)-(\d+)\/\*$/.exec(req.headers['content-range'] ?? '');
    if (!range) throw new HttpError(400, `bad Content-Range '${req.headers['content-range'] ?? ''}'`);
    const start = Number(range[1]);
    const end = Number(range[2]);
    if (end < start || body.length !== end - start + 1)
      throw new HttpError(400, `Content-Range ${start}-${end} does not match a body of ${body.length} bytes`);
    entry.chunks.set(start, body);
  }

  function commitChunks(entry: Entry, request: Record<string, unknown>): void {
    const size = request.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
      throw new HttpError(400, 'size must be a whole number of bytes');
    const parts = [...entry.chunks.entries()].sort(([a], [b]) => a - b);
    let offset = 0;
    for (const [start, data] of parts) {
      if (start !== offset)
        throw new HttpError(400, `chunks leave a gap or overlap at byte ${Math.min(start, offset)}`);
      offset += data.length;
    }
    if (offset !== size) throw new HttpError(400, `uploaded ${offset} bytes but the commit says ${size}`);
    entry.blob.data = Buffer.concat(parts.map(([, data]) => data));
    touch(entry.blob);
    entry.chunks.clear();
    entry.committed = true;
  }

  // ---- v2: the twirp cache service ----

  function handleTwirp(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
    body: Buffer,
  ): void {
    const rpc = url.pathname.slice(TWIRP_PREFIX.length);
    if (method !== 'POST') throw new HttpError(404, `twirp routes take POST, not ${method}`, 'bad_route');
    requireToken(req);
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      throw new HttpError(400, 'Content-Type must be application/json', 'malformed');
    const request = parseJson(body);
    // The client sends proto field names (`restore_keys`); protojson also accepts the JSON names.
    const key = stringField(request, 'key');
    const version = stringField(request, 'version');

    if (rpc === 'CreateCacheEntry') {
      if (taken('v2', key, version))
        throw new HttpError(
          409,
          'cache entry with the same key, version, and scope already exists',
          'already_exists',
        );
      const entry = create('v2', key, version);
      sendJson(res, 200, { ok: true, signed_upload_url: blobUrl(entry.blob, 'upload') });
      return;
    }
    if (rpc === 'FinalizeCacheEntryUpload') {
      const sizeBytes = Number(request.size_bytes ?? request.sizeBytes ?? 0);
      const entry = entries.find(
        (e) => e.protocol === 'v2' && !e.committed && e.key === key && e.version === version,
      );
      if (!entry) {
        sendJson(res, 200, { ok: false, message: `no cache entry is being created for key ${key}` });
        return;
      }
      const uploaded = entry.blob.data?.length;
      if (uploaded !== sizeBytes) {
        sendJson(res, 200, {
          ok: false,
          message: `the upload holds ${uploaded ?? 'no'} bytes but size_bytes is ${sizeBytes}`,
        });
        return;
      }
      entry.committed = true;
      sendJson(res, 200, { ok: true, entry_id: String(entry.id) });
      return;
    }
    if (rpc === 'GetCacheEntryDownloadURL') {
      const restoreKeys = request.restore_keys ?? request.restoreKeys ?? [];
      if (!Array.isArray(restoreKeys) || !restoreKeys.every((k) => typeof k === 'string'))
        throw new HttpError(400, 'restore_keys must be a list of strings', 'invalid_argument');
      const entry = lookup('v2', [key, ...restoreKeys], version);
      if (!entry) {
        sendJson(res, 200, { ok: false });
        return;
      }
      sendJson(res, 200, {
        ok: true,
        signed_download_url: blobUrl(entry.blob, 'download'),
        matched_key: entry.key,
      });
      return;
    }
    throw new HttpError(404, `no twirp method ${rpc}`, 'bad_route');
  }

  // ---- Azure Blob Storage, as far as the storage SDK goes here ----

  function handleBlob(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
    blobName: string,
    body: Buffer,
  ): void {
    const blob = blobs.get(decodeURIComponent(blobName));
    const sig = url.searchParams.get('sig');
    const entry = entries.find((e) => e.blob === blob);
    if (!blob || !entry) throw new HttpError(404, 'The specified blob does not exist.', 'BlobNotFound');
    const writing = method === 'PUT';
    if (writing ? sig !== blob.uploadSig || entry.committed : sig !== blob.downloadSig || !entry.committed)
      throw new HttpError(
        403,
        'Server failed to authenticate the request. The signature is not valid for this operation.',
        'AuthenticationFailed',
      );

    const comp = url.searchParams.get('comp');
    if (method === 'PUT' && comp === null) {
      if (req.headers['x-ms-blob-type'] !== 'BlockBlob')
        throw new HttpError(400, 'x-ms-blob-type must be BlockBlob', 'InvalidHeaderValue');
      blob.data = body;
      blob.staged.clear();
      blob.committedBlocks.clear();
      touch(blob);
      sendBlobWrite(req, res, blob, body);
      return;
    }
    if (method === 'PUT' && comp === 'block') {
      const blockId = url.searchParams.get('blockid');
      if (!blockId) throw new HttpError(400, 'blockid is required', 'InvalidQueryParameterValue');
      blob.staged.set(blockId, body);
      sendBlobWrite(req, res, undefined, body);
      return;
    }
    if (method === 'PUT' && comp === 'blocklist') {
      commitBlockList(blob, body.toString('utf8'));
      sendBlobWrite(req, res, blob, undefined);
      return;
    }
    if ((method === 'GET' || method === 'HEAD') && comp === null) {
      const data = blob.data;
      if (!data) throw new HttpError(404, 'The specified blob does not exist.', 'BlobNotFound');
      const headers = { ...storageHeaders(req), ...blobProperties(blob) };
      if (method === 'HEAD') {
        res.writeHead(200, { ...headers, 'content-length': data.length }).end();
        return;
      }
      const rangeHeader = req.headers['x-ms-range'] ?? req.headers.range;
      if (typeof rangeHeader !== 'string') {
        res.writeHead(200, { ...headers, 'content-length': data.length }).end(data);
        return;
      }
      const [start, end] = parseRange(rangeHeader, data.length);
      res
        .writeHead(206, {
          ...headers,
          'content-length': end - start + 1,
          'content-range': `bytes ${start}-${end}/${data.length}`,
        })
        .end(data.subarray(start, end + 1));
      return;
    }
    throw new HttpError(
      400,
      `unsupported blob operation ${method} comp=${comp ?? ''}`,
      'UnsupportedHttpVerb',
    );
  }

  function commitBlockList(blob: Blob, xml: string): void {
    if (!/<BlockList>/.test(xml))
      throw new HttpError(400, 'the body is not a BlockList', 'InvalidXmlDocument');
    const parts: Buffer[] = [];
    const committed = new Map<string, Buffer>();
    for (const [, list, id] of xml.matchAll(/<(Latest|Uncommitted|Committed)>([^<]*)<\/\1>/g)) {
      const block =
        list === 'Committed'
          ? blob.committedBlocks.get(id!)
          : list === 'Uncommitted'
            ? blob.staged.get(id!)
            : (blob.staged.get(id!) ?? blob.committedBlocks.get(id!));
      if (!block) throw new HttpError(400, `block ${id} is not in the ${list} list`, 'InvalidBlockList');
      parts.push(block);
      committed.set(id!, block);
    }
    blob.data = Buffer.concat(parts);
    blob.staged.clear();
    blob.committedBlocks = committed;
    touch(blob);
  }

  function sendBlobWrite(
    req: IncomingMessage,
    res: ServerResponse,
    blob: Blob | undefined,
    body: Buffer | undefined,
  ): void {
    res
      .writeHead(201, {
        ...storageHeaders(req),
        ...(blob ? { etag: blob.etag, 'last-modified': blob.lastModified.toUTCString() } : {}),
        ...(body ? { 'content-md5': createHash('md5').update(body).digest('base64') } : {}),
        'x-ms-request-server-encrypted': 'true',
        'content-length': 0,
      })
      .end();
  }

  // ---- shared ----

  function lookup(protocol: CacheProtocol, keys: string[], version: string): Entry | undefined {
    const candidates = entries
      .filter((e) => e.protocol === protocol && e.committed && e.version === version)
      .sort((a, b) => b.seq - a.seq);
    const [primary, ...restoreKeys] = keys;
    if (primary === undefined) return undefined;
    const exact = candidates.find((e) => e.key === primary);
    if (exact) return exact;
    for (const prefix of [primary, ...restoreKeys]) {
      const found = candidates.find((e) => e.key.startsWith(prefix));
      if (found) return found;
    }
    return undefined;
  }

  function taken(protocol: CacheProtocol, key: string, version: string): boolean {
    return entries.some((e) => e.protocol === protocol && e.key === key && e.version === version);
  }

  function create(protocol: CacheProtocol, key: string, version: string): Entry {
    const id = nextId++;
    const blob: Blob = {
      name: `${protocol}-${id}-${randomUUID()}.tar`,
      uploadSig: randomBytes(16).toString('hex'),
      downloadSig: randomBytes(16).toString('hex'),
      data: undefined,
      staged: new Map(),
      committedBlocks: new Map(),
      etag: '',
      lastModified: new Date(),
    };
    touch(blob);
    blobs.set(blob.name, blob);
    const entry: Entry = {
      id,
      seq: seq++,
      key,
      version,
      protocol,
      createdAt: new Date(),
      committed: false,
      blob,
      chunks: new Map(),
    };
    entries.push(entry);
    return entry;
  }

  function blobUrl(blob: Blob, use: 'upload' | 'download', style = blobUrls): string {
    const expiry = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const query = new URLSearchParams({
      sv: STORAGE_VERSION,
      sr: 'b',
      sp: use === 'upload' ? 'cw' : 'r',
      se: expiry,
      sig: use === 'upload' ? blob.uploadSig : blob.downloadSig,
    });
    const name = encodeURIComponent(blob.name);
    return style === 'azure'
      ? `http://${AZURE_HOST}/${CONTAINER}/${name}?${query.toString()}`
      : `${origin}${BLOB_PREFIX}${name}?${query.toString()}`;
  }

  // ---- REST: the cache's management (what the action's replacer calls) ----

  function handleRest(req: IncomingMessage, res: ServerResponse, method: string, url: URL): void {
    if (req.headers.authorization !== `token ${FAKE_GITHUB_TOKEN}`)
      throw new HttpError(401, 'Bad credentials');
    if (method !== 'DELETE') throw new HttpError(404, 'Not Found');
    const key = url.searchParams.get('key');
    if (!key) throw new HttpError(422, 'key is required');
    if (deletesForbidden) throw new HttpError(403, 'Resource not accessible by integration');
    const ref = url.searchParams.get('ref') ?? SCOPE;
    const gone = ref === SCOPE ? entries.filter((e) => e.key === key) : [];
    if (gone.length === 0) throw new HttpError(404, 'Not Found');
    for (const e of gone) {
      entries.splice(entries.indexOf(e), 1);
      blobs.delete(e.blob.name);
    }
    sendJson(res, 200, {
      total_count: gone.length,
      actions_caches: gone.map((e) => ({
        id: e.id,
        key: e.key,
        ref,
        version: e.version,
        size_in_bytes: e.blob.data?.length ?? 0,
      })),
    });
  }

  function sendError(req: IncomingMessage, res: ServerResponse, kind: Kind, error: HttpError): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (kind === 'twirp') {
      sendJson(res, error.status, { code: error.code ?? twirpCode(error.status), msg: error.message });
    } else if (kind === 'blob') {
      const code = error.code ?? storageCode(error.status);
      const xml =
        '<?xml version="1.0" encoding="utf-8"?>' +
        `<Error><Code>${code}</Code><Message>${escapeXml(error.message)}</Message></Error>`;
      res
        .writeHead(error.status, {
          ...storageHeaders(req),
          'x-ms-error-code': code,
          'content-type': 'application/xml',
          'content-length': Buffer.byteLength(xml),
        })
        .end(req.method === 'HEAD' ? undefined : xml);
    } else {
      sendJson(res, error.status, {
        message: error.message,
        ...(error.code ? { typeKey: error.code } : {}),
      });
    }
  }

  return {
    url: `${origin}/`,
    requests,
    entries: () =>
      entries
        .filter((e) => e.committed)
        .map((e) => ({
          key: e.key,
          version: e.version,
          size: e.blob.data?.length ?? 0,
          protocol: e.protocol,
        })),
    env: (protocol) => {
      if (protocol === 'v1')
        return {
          ACTIONS_CACHE_URL: `${origin}/`,
          ACTIONS_RUNTIME_TOKEN: FAKE_RUNTIME_TOKEN,
          GITHUB_SERVER_URL: 'https://ghe.example.com',
        };
      const env: Record<string, string> = {
        ACTIONS_RESULTS_URL: `${origin}/`,
        ACTIONS_RUNTIME_TOKEN: FAKE_RUNTIME_TOKEN,
        ACTIONS_CACHE_SERVICE_V2: 'true',
        GITHUB_SERVER_URL: 'https://github.com',
      };
      if (blobUrls === 'azure') env.HTTP_PROXY = origin;
      return env;
    },
    failNext: (pattern, status, n = 1) => {
      faults.push({ pattern, status, remaining: n });
    },
    apiUrl: origin,
    forbidDeletes: (forbid = true) => {
      deletesForbidden = forbid;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(
        413,
        `request bodies over ${MAX_BODY_BYTES} bytes are refused`,
        'RequestBodyTooLarge',
      );
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function requireToken(req: IncomingMessage): void {
  if (req.headers.authorization !== `Bearer ${FAKE_RUNTIME_TOKEN}`)
    throw new HttpError(401, 'missing or wrong bearer token');
}

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new HttpError(400, 'the body is not a JSON object', 'malformed');
}

function stringField(request: Record<string, unknown>, name: string): string {
  const value = request[name];
  if (typeof value !== 'string' || value === '')
    throw new HttpError(400, `${name} must be a non-empty string`, 'invalid_argument');
  return value;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
}

function storageHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const version = req.headers['x-ms-version'];
  return {
    'x-ms-request-id': randomUUID(),
    'x-ms-version': typeof version === 'string' ? version : STORAGE_VERSION,
    date: new Date().toUTCString(),
  };
}

function blobProperties(blob: Blob): OutgoingHttpHeaders {
  return {
    etag: blob.etag,
    'last-modified': blob.lastModified.toUTCString(),
    'x-ms-creation-time': blob.lastModified.toUTCString(),
    'x-ms-blob-type': 'BlockBlob',
    'x-ms-lease-status': 'unlocked',
    'x-ms-lease-state': 'available',
    'x-ms-server-encrypted': 'true',
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
}

function touch(blob: Blob): void {
  blob.lastModified = new Date();
  blob.etag = `"0x8D${randomBytes(7).toString('hex').toUpperCase()}"`;
}

/** `bytes=a-b` or `bytes=a-` → inclusive [start, end] within the blob; 416 when it starts past the end. */
function parseRange(header: string, size: number): [number, number] {
  const m = /^bytes=(\d+)-(\d*)$/.exec(header.trim());
  if (!m) throw new HttpError(400, `bad range '${header}'`, 'InvalidHeaderValue');
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start)
    throw new HttpError(
      416,
      'The range specified is invalid for the current size of the resource.',
      'InvalidRange',
    );
  return [start, end];
}

function twirpCode(status: number): string {
  if (status === 400) return 'invalid_argument';
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'not_found';
  if (status === 409) return 'already_exists';
  if (status === 429) return 'resource_exhausted';
  if (status === 503) return 'unavailable';
  return 'internal';
}

function storageCode(status: number): string {
  if (status === 403) return 'AuthenticationFailed';
  if (status === 404) return 'BlobNotFound';
  if (status === 503) return 'ServerBusy';
  if (status < 500) return 'InvalidInput';
  return 'InternalError';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
