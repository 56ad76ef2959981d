/**
 * A log file of bounded size: the first half of the bound is written to the file as it arrives, the last
 * half is kept in memory (a ring of chunks) and appended at close behind a marker line that says how many
 * bytes were dropped. The file never holds more than the bound plus the marker; memory never more than half
 * the bound. Writes are synchronous, so a command that prints faster than the disk writes is slowed down
 * instead of filling memory.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

import { incompleteUtf8Tail, skipUtf8Continuation, TailBuffer } from '../base/process.js';

/** Default bound of one log file: 20 MiB. */
export const DEFAULT_MAX_LOG_BYTES = 20 * 1024 * 1024;

export interface BoundedLogSummary {
  /** Bytes handed to the log (after redaction). */
  bytes: number;
  /** True when the middle was dropped. */
  truncated: boolean;
  /** Bytes dropped from the middle. */
  dropped: number;
}

export class BoundedLogWriter {
  private fd: number | undefined;
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private headBytes = 0;
  private readonly tail: TailBuffer;
  private total = 0;

  /** Creates (or truncates) `path`, parent folders too. `maxBytes` below 2 KiB is raised to 2 KiB. */
  constructor(
    readonly path: string,
    readonly maxBytes = DEFAULT_MAX_LOG_BYTES,
  ) {
    const bound = Math.max(2048, Math.floor(maxBytes));
    this.headLimit = Math.floor(bound / 2);
    this.tailLimit = bound - this.headLimit;
    this.tail = new TailBuffer(this.tailLimit);
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
  }

  write(text: string | Buffer): void {
    if (this.fd === undefined) return;
    let buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    if (buf.length === 0) return;
    this.total += buf.length;
    if (this.headBytes < this.headLimit) {
      let take = Math.min(this.headLimit - this.headBytes, buf.length);
      // The head never ends inside a character.
      if (take < buf.length) take -= incompleteUtf8Tail(buf.subarray(0, take));
      if (take > 0) writeAll(this.fd, buf.subarray(0, take));
      this.headBytes += take;
      buf = buf.subarray(take);
      // What did not fit in the head (a cut character included) goes to the tail.
      if (buf.length > 0) this.headBytes = this.headLimit;
    }
    this.tail.push(buf);
  }

  /** Appends the tail (behind a marker line when bytes were dropped) and closes the file. Idempotent. */
  close(): BoundedLogSummary {
    const written = this.headBytes + this.tail.bytes;
    const dropped = Math.max(0, this.total - written);
    const summary = { bytes: this.total, truncated: dropped > 0, dropped };
    if (this.fd === undefined) return summary;
    const fd = this.fd;
    this.fd = undefined;
    try {
      let tail = this.tail.concat();
      if (dropped > 0) {
        // The tail starts at a line of its own, on a whole character.
        tail = skipUtf8Continuation(tail);
        const marker =
          `\n[... buildbench: ${dropped} bytes of output dropped here; a log keeps its first and last ` +
          `${formatBytes(this.tailLimit)} (--max-log-size) ...]\n`;
        writeAll(fd, Buffer.from(marker, 'utf8'));
      }
      if (tail.length > 0) writeAll(fd, tail);
    } finally {
      closeSync(fd);
    }
    return summary;
  }
}

function writeAll(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/** `20971520` → `20 MiB`, `1536` → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[unit]}`;
}
