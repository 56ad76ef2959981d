import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { BoundedLogWriter, formatBytes } from '../../../src/sandbox/log-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bb-log-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('BoundedLogWriter', () => {
  it('writes everything when the output fits', () => {
    const file = path.join(dir, 'sub', 'small.log');
    const log = new BoundedLogWriter(file, 4096);
    log.write('hello\n');
    log.write(Buffer.from('world\n'));
    expect(log.close()).toEqual({ bytes: 12, truncated: false, dropped: 0 });
    expect(readFileSync(file, 'utf8')).toBe('hello\nworld\n');
  });

  it('keeps the head and the tail with a marker where bytes were dropped, and counts every byte', () => {
    const file = path.join(dir, 'big.log');
    const log = new BoundedLogWriter(file, 4096);
    const lines = Array.from({ length: 2000 }, (_v, i) => `line ${String(i).padStart(5, '0')}\n`);
    for (const line of lines) log.write(line);
    const total = lines.join('').length;
    const summary = log.close();
    expect(summary.bytes).toBe(total);
    expect(summary.truncated).toBe(true);
    expect(summary.dropped).toBe(total - 4096);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('line 00000\n')).toBe(true);
    expect(text.endsWith('line 01999\n')).toBe(true);
    expect(text).toContain(`[... buildbench: ${total - 4096} bytes of output dropped here`);
    expect(Buffer.byteLength(text)).toBeLessThan(4096 + 300);
    expect(log.close().truncated).toBe(true); // idempotent
  });

  it('never cuts a character in two at either end', () => {
    const file = path.join(dir, 'utf8.log');
    const log = new BoundedLogWriter(file, 4096);
    log.write('é'.repeat(5000));
    log.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('\uFFFD');
  });

  it('keeps a tail bigger than one write', () => {
    const file = path.join(dir, 'one-write.log');
    const log = new BoundedLogWriter(file, 4096);
    log.write('a'.repeat(3000) + 'b'.repeat(10_000) + 'END');
    log.close();
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('a'.repeat(2048))).toBe(true);
    expect(text.endsWith('b'.repeat(2045) + 'END')).toBe(true);
  });
});

describe('formatBytes', () => {
  it('prints binary units', () => {
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(10)).toBe('10 bytes');
  });
});
