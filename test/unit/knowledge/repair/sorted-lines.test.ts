/**
 * The on-disk binary search the host-side package indexes share (sorted-lines.ts): every prefix look-up gives
 * exactly the lines a full scan would, in order, on files much larger than one read; lines with multi-byte
 * characters come back whole wherever a read ends; repeated look-ups on one open file stay exact.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SortedLines } from '../../../../src/knowledge/repair/sorted-lines.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-sorted-lines-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Bytewise order, as `LC_ALL=C sort` writes the files. */
function bytewise(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function write(name: string, lines: string[]): string {
  const file = path.join(root, name);
  writeFileSync(file, [...lines].sort(bytewise).join('\n') + '\n');
  return file;
}

/** A small deterministic generator, so a failure names the same file every time. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('SortedLines', () => {
  const random = generator(7);
  const words = ['stdio.h', 'string.h', 'string.hpp', 'zlib.h', 'libz.so', 'expat.pc', 'a', 'b'];
  const lines: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    const word = words[Math.floor(random() * words.length)]!;
    const pad = 'x'.repeat(Math.floor(random() * 120));
    lines.push(`${word}\t/usr/${pad}/${i}\tpkg${i % 97}`);
  }
  // Names between and around the words, and a run of lines with multi-byte characters.
  for (let i = 0; i < 2000; i++)
    lines.push(`string.h\t/usr/share/dokumentation/grüße-${i}-${'€'.repeat(20)}\tpkg-utf`);
  const file = write('big.tsv', lines);
  const sorted = [...lines].sort(bytewise);

  it('finds exactly the lines a scan finds, for every prefix, on one open file', () => {
    const index = SortedLines.open(file)!;
    try {
      for (const prefix of [...words, 'string.h\t', 'str', 'zz', '0', 'libz', 'expat.pc\t/usr/', 'c']) {
        const expected = sorted.filter((l) => l.startsWith(prefix));
        expect([...index.startingWith(prefix)]).toEqual(expected);
      }
      // Again, after the searches above: the probes remembered give the same answers.
      expect([...index.startingWith('string.h\t')]).toEqual(sorted.filter((l) => l.startsWith('string.h\t')));
    } finally {
      index.close();
    }
  });

  it('returns lines with multi-byte characters whole, wherever a read ends', () => {
    const index = SortedLines.open(file)!;
    try {
      const utf = [...index.startingWith('string.h\t/usr/share/dokumentation/')];
      expect(utf).toHaveLength(2000);
      for (const line of utf)
        expect(line).toMatch(/^string\.h\t\/usr\/share\/dokumentation\/grüße-\d+-(?:€){20}\tpkg-utf$/);
    } finally {
      index.close();
    }
  });

  it('answers for the first and the last line, and for a file smaller than one read', () => {
    const small = SortedLines.open(write('small.tsv', ['b\t2', 'a\t1', 'c\t3']))!;
    try {
      expect([...small.startingWith('a')]).toEqual(['a\t1']);
      expect([...small.startingWith('c')]).toEqual(['c\t3']);
      expect([...small.startingWith('d')]).toEqual([]);
    } finally {
      small.close();
    }
    const index = SortedLines.open(file)!;
    try {
      expect([...index.startingWith(sorted[0]!)]).toEqual([sorted[0]]);
      expect([...index.startingWith(sorted[sorted.length - 1]!)]).toEqual([sorted[sorted.length - 1]]);
    } finally {
      index.close();
    }
  });

  it('is undefined for a missing or empty file', () => {
    expect(SortedLines.open(path.join(root, 'none.tsv'))).toBeUndefined();
    writeFileSync(path.join(root, 'empty.tsv'), '');
    expect(SortedLines.open(path.join(root, 'empty.tsv'))).toBeUndefined();
  });
});
