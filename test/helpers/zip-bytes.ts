/**
 * Zip archives written byte by byte, for the tests of hostile artifacts (issue 28): a central directory that may
 * say what its local headers do not, sizes deflate cannot produce, entries sharing one deflated block — archives
 * zipSync would never write. Shared by test/unit/bot/artifact-zip.test.ts and
 * test/integration/bot-untrusted.e2e.int.test.ts.
 */
import { constants, deflateRawSync } from 'node:zlib';

const MiB = 1024 * 1024;

export interface ZipLocal {
  name: string;
  data: Uint8Array;
  method: number;
  crc: number;
  /** The compressed size the headers declare; `data.length` unless given. */
  compressedSize?: number;
  size: number;
}
export interface ZipCentral extends ZipLocal {
  /** Index into the locals whose header this entry points at. */
  local: number;
}

/** A zip written field by field, whose central directory (`central`) may say what its local headers do not. */
export function craftZip(locals: ZipLocal[], central: ZipCentral[]): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const l of locals) {
    const name = Buffer.from(l.name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(l.method, 8);
    header.writeUInt32LE(l.crc, 14);
    header.writeUInt32LE(l.compressedSize ?? l.data.length, 18);
    header.writeUInt32LE(l.size, 22);
    header.writeUInt16LE(name.length, 26);
    offsets.push(at);
    parts.push(header, name, Buffer.from(l.data));
    at += 30 + name.length + l.data.length;
  }
  const cdStart = at;
  for (const c of central) {
    const name = Buffer.from(c.name);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(c.method, 10);
    entry.writeUInt32LE(c.crc, 16);
    entry.writeUInt32LE(c.compressedSize ?? c.data.length, 20);
    entry.writeUInt32LE(c.size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offsets[c.local] ?? 0, 42);
    parts.push(entry, name);
    at += 46 + name.length;
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(central.length, 8);
  eocd.writeUInt16LE(central.length, 10);
  eocd.writeUInt32LE(at - cdStart, 12);
  eocd.writeUInt32LE(cdStart, 16);
  parts.push(eocd);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * A raw deflate stream of `copies` × `blockBytes` zeros built from one sync-flushed block repeated (each block
 * starts with a literal zero, so every copy is valid after any other), ended by an empty final block: ~1 KiB of
 * compressed data per MiB, without deflating the whole.
 */
export function zerosStream(copies: number, blockBytes = MiB): Uint8Array {
  const block = deflateRawSync(Buffer.alloc(blockBytes), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  return new Uint8Array(Buffer.concat([...Array.from({ length: copies }, () => block), Buffer.from([3, 0])]));
}
