/**
 * The artifact zip against hostile archives (issue 28): the zip bomb whose entries all point at one deflated
 * block, an entry that inflates far past the size it declares, sizes deflate cannot produce, overlapping
 * entries. The archives are written byte by byte here (zipSync would never write them); each must be refused
 * with a reason fit for the comment, and refusing must not grow memory by more than a few MiB.
 */
import { describe, expect, it } from '@jest/globals';
import { deflateRawSync } from 'node:zlib';
import { zipSync } from 'fflate';

import {
  ArchiveError,
  centralDirectory,
  crc32,
  MAX_DEFLATE_RATIO,
  readArtifactZip,
} from '../../../src/bot/artifact-zip.js';
import { craftZip, zerosStream } from '../../helpers/zip-bytes.js';

const MiB = 1024 * 1024;

/** Growth of memory across `fn`: the ArrayBuffers still held right after it, and the peak RSS. */
function growth(fn: () => void): { arrayBuffers: number; peakRss: number; error: unknown } {
  const before = process.memoryUsage().arrayBuffers;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  return {
    arrayBuffers: process.memoryUsage().arrayBuffers - before,
    peakRss: process.resourceUsage().maxRSS * 1024 - peakBefore,
    error,
  };
}

describe('the artifact zip against bombs', () => {
  it('refuses 256 entries that share one deflated block, before inflating any (memory stays flat)', () => {
    const size = 4 * MiB; // each at the per-file limit, 1 GiB in all
    const data = zerosStream(4);
    const block = { data, method: 8, crc: crc32(new Uint8Array(size)), compressedSize: data.length, size };
    const zip = craftZip(
      [{ name: 'patches/0000.patch', ...block }],
      Array.from({ length: 256 }, (_, i) => ({
        name: `patches/${String(i).padStart(4, '0')}.patch`,
        ...block,
        local: 0,
      })),
    );
    expect(zip.length).toBeLessThan(32 * 1024);
    const seen = growth(() => readArtifactZip(zip));
    // Today's reader held 1 GiB here (256 × 4 MiB inflated) before it added up the total.
    expect(seen.arrayBuffers).toBeLessThan(16 * MiB);
    expect(seen.peakRss).toBeLessThan(100 * MiB);
    expect(seen.error).toBeInstanceOf(ArchiveError);
    expect((seen.error as Error).message).toBe(
      'the artifact was refused: its entries "patches/0000.patch" and "patches/0001.patch" share the same data ' +
        '(the shape of a zip bomb); nothing of it was inflated',
    );
  });

  it('refuses entries whose ranges overlap without starting together', () => {
    const zip = Buffer.from(zipSync({ 'result.json': Buffer.from('{}'), 'RUNBOOK.md': Buffer.from('# x') }));
    // The first central entry now claims its data runs on over the second entry's local header.
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(zip.readUInt32LE(cd + 20) + 40, cd + 20);
    expect(() => readArtifactZip(zip)).toThrow(
      'its entries "result.json" and "RUNBOOK.md" overlap (the shape of a zip bomb)',
    );
  });

  it('stops inflating an entry that declares 1 KiB and inflates to 32 MiB, as soon as it passes 1 KiB', () => {
    // One ordinary deflate stream (today's reader inflated all of it into a 1 KiB buffer and kept the start).
    const data = new Uint8Array(deflateRawSync(Buffer.alloc(32 * MiB), { level: 9 }));
    const zip = craftZip(
      [{ name: 'RUNBOOK.md', data, method: 8, crc: 0, compressedSize: data.length, size: 1024 }],
      [{ name: 'RUNBOOK.md', data, method: 8, crc: 0, compressedSize: data.length, size: 1024, local: 0 }],
    );
    const seen = growth(() => readArtifactZip(zip));
    expect(seen.error).toBeInstanceOf(ArchiveError);
    expect((seen.error as Error).message).toBe(
      'the artifact was refused: RUNBOOK.md inflates to more than the 1024 bytes it declares; inflating stopped there',
    );
    expect(seen.arrayBuffers).toBeLessThan(16 * MiB);
    expect(seen.peakRss).toBeLessThan(100 * MiB);
  });

  it(`refuses a size deflate cannot produce from the compressed bytes (over ${MAX_DEFLATE_RATIO}:1), uninflated`, () => {
    const data = zerosStream(1, 64 * 1024);
    const size = 4 * MiB;
    const crc = crc32(new Uint8Array(size));
    const zip = craftZip(
      [{ name: 'build.sh', data, method: 8, crc, compressedSize: data.length, size }],
      [{ name: 'build.sh', data, method: 8, crc, compressedSize: data.length, size, local: 0 }],
    );
    expect(() => readArtifactZip(zip)).toThrow(
      `build.sh claims 4.0 MiB from ${data.length} compressed bytes, more than deflate can give (1032:1)`,
    );
  });

  it('refuses a file that inflates to less than it declares, or fails its CRC', () => {
    const data = zerosStream(1);
    const crc = crc32(new Uint8Array(MiB));
    const entry = (size: number, crcOf: number): Uint8Array =>
      craftZip(
        [{ name: 'RUNBOOK.md', data, method: 8, crc: crcOf, compressedSize: data.length, size }],
        [{ name: 'RUNBOOK.md', data, method: 8, crc: crcOf, compressedSize: data.length, size, local: 0 }],
      );
    expect(readArtifactZip(entry(MiB, crc)).get('RUNBOOK.md')?.byteLength).toBe(MiB);
    expect(() => readArtifactZip(entry(MiB + 10, crc))).toThrow(
      'RUNBOOK.md inflates to 1048576 bytes, not the 1048586 it declares',
    );
    expect(() => readArtifactZip(entry(MiB, (crc ^ 1) >>> 0))).toThrow('RUNBOOK.md fails its CRC-32 check');
  });

  it('refuses a central directory that disagrees with the local header', () => {
    const data = zerosStream(1);
    const crc = crc32(new Uint8Array(MiB));
    const local = { name: 'result.json', data, method: 8, crc, compressedSize: data.length, size: 2048 };
    const zip = craftZip([local], [{ ...local, size: MiB, local: 0 }]);
    expect(() => readArtifactZip(zip)).toThrow(
      'result.json declares other sizes in its local header than in the central directory',
    );
    const renamed = craftZip([local], [{ ...local, name: 'build.sh', local: 0 }]);
    expect(() => readArtifactZip(renamed)).toThrow('build.sh has another name in its local header');
  });

  it('refuses more entries than the limit from the directory count, and the sum of declared sizes', () => {
    const many = zipSync(
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`logs/${i}.log`, Buffer.from('x')])),
    );
    expect(centralDirectory(many)).toHaveLength(50);
    expect(() => readArtifactZip(many, { maxEntries: 49 })).toThrow(
      "the artifact lists 50 entries, over the bot's limit of 49; nothing of it was inflated",
    );
    const two = zipSync({ 'RUNBOOK.md': new Uint8Array(600 * 1024), 'build.sh': new Uint8Array(600 * 1024) });
    expect(() => readArtifactZip(two, { maxTotalBytes: MiB })).toThrow(
      'its files are 1.2 MiB unpacked, over the limit of 1.0 MiB',
    );
  });

  it('reads what fflate and stored entries write, with the CRC zip uses', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const files = readArtifactZip(
      zipSync({
        'result.json': [Buffer.from('{"ok":true}'), { level: 0 }],
        'patches/0001-x.patch': Buffer.from('--- a\n+++ b\n'.repeat(200)),
        'logs/turn-00.log': Buffer.from('not wanted'),
      }),
    );
    expect(
      Object.fromEntries([...files].map(([k, v]) => [k, Buffer.from(v).toString('utf8').slice(0, 12)])),
    ).toEqual({
      'result.json': '{"ok":true}',
      'patches/0001-x.patch': '--- a\n+++ b\n',
    });
  });
});
