/** Reading the documents retrieval visits: repository files (confined to the checkout) and web pages. */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { openUnder } from '../base/safe-fs.js';
import { htmlToText } from './html.js';

export const MAX_FILE_BYTES = 256 * 1024;
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** A document's text, or why it could not be read. */
export type DocText = { ok: true; text: string; finalUrl?: string } | { ok: false; error: string };

/**
 * Reads a repository file by its repository-relative path, refusing anything that resolves (through `..` or a
 * symbolic link) outside the checkout. A directory reads as a listing of its entries.
 */
export async function readRepoDoc(root: string, rel: string): Promise<DocText> {
  try {
    const realRoot = await realpath(root);
    const full = await realpath(path.join(realRoot, rel));
    if (full !== realRoot && !full.startsWith(realRoot + path.sep))
      return { ok: false, error: 'outside the repository' };
    const info = await stat(full);
    if (info.isDirectory()) {
      const entries = (await readdir(full, { withFileTypes: true }))
        .filter((e) => !e.name.startsWith('.'))
        .slice(0, 100);
      return {
        ok: true,
        text: entries.map((e) => `- ${e.name}${e.isDirectory() ? '/' : ''}`).join('\n') + '\n',
      };
    }
    if (!info.isFile()) return { ok: false, error: 'not a regular file' };
    // Opened without following a link (the path is already real) and checked to be where it was resolved.
    const { handle } = await openUnder(realRoot, path.relative(realRoot, full));
    try {
      const buffer = Buffer.alloc(Math.min(info.size, MAX_FILE_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const bytes = buffer.subarray(0, bytesRead);
      if (bytes.includes(0)) return { ok: false, error: 'binary file' };
      const text = bytes.toString('utf8');
      return { ok: true, text: /\.html?$/i.test(rel) ? htmlToText(text) : text };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error: code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error),
    };
  }
}

/** Hosts never fetched: cloud metadata services and link-local addresses. */
function forbiddenHost(hostname: string): boolean {
  return /^169\.254\.|^\[?fe80:|^metadata(?:\.google\.internal)?$|^100\.100\.100\.200$/i.test(hostname);
}

export interface FetchPageOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
  maxBytes?: number;
}

/** Fetches a page with global fetch (time-limited, size-capped) and converts HTML to text. Never throws. */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<DocText> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: 'not a URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { ok: false, error: 'not an http(s) URL' };
  if (forbiddenHost(parsed.hostname)) return { ok: false, error: 'host not allowed' };
  const doFetch = options.fetch ?? fetch;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const maxBytes = options.maxBytes ?? MAX_PAGE_BYTES;
  try {
    const response = await doFetch(parsed.href, {
      signal,
      redirect: 'follow',
      headers: {
        accept: 'text/html,text/plain,text/markdown;q=0.9,*/*;q=0.5',
        'user-agent': 'buildbench-retrieval',
      },
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, error: `HTTP ${response.status}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (/^(?:image|video|audio|font)\/|application\/(?:octet-stream|zip|gzip|x-tar|pdf)/i.test(type)) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, error: `not a text document (${type.split(';')[0]})` };
    }
    const body = await readCapped(response, maxBytes);
    const finalUrl = response.url || parsed.href;
    const html = /html/i.test(type) || (!type && /^\s*<(?:!doctype|html)/i.test(body));
    return { ok: true, text: html ? htmlToText(body, finalUrl) : body, finalUrl };
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, error: 'cancelled' };
    if (timeout.aborted) return { ok: false, error: `timed out after ${options.timeoutMs ?? 15_000} ms` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    return { ok: false, error: `fetch failed: ${detail}` };
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= maxBytes) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
