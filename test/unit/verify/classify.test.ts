import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { classifyBinary, missingChunk, HEAD_BYTES, type FileChunk } from '../../../src/verify/artifacts.js';
import {
  makeArchive,
  makeElf,
  DF_1_PIE,
  DT_FLAGS_1,
  DT_SONAME,
  ET_CORE,
  ET_DYN,
  ET_EXEC,
  ET_REL,
  PT_DYNAMIC,
  PT_INTERP,
  PT_LOAD,
} from './helpers/elf.js';

/** What the scanner does: the head, then whatever `missingChunk` asks for. */
function classifyWhole(file: Buffer): ReturnType<typeof classifyBinary> {
  const head = file.subarray(0, HEAD_BYTES);
  const chunks: FileChunk[] = [];
  for (let need = missingChunk(head, chunks); need; need = missingChunk(head, chunks)) {
    chunks.push({ offset: need.offset, bytes: file.subarray(need.offset, need.offset + need.length) });
  }
  return classifyBinary(head, chunks);
}

const LAYOUTS = [
  { bits: 32, little: true },
  { bits: 32, little: false },
  { bits: 64, little: true },
  { bits: 64, little: false },
] as const;

describe('classifyBinary on synthetic headers', () => {
  describe.each(LAYOUTS)('%o', ({ bits, little }) => {
    it('ET_EXEC is an executable, ET_REL an object, ET_CORE nothing', () => {
      expect(classifyBinary(makeElf({ bits, little, type: ET_EXEC, phdrs: [PT_LOAD] }))).toBe('executable');
      expect(classifyBinary(makeElf({ bits, little, type: ET_REL }))).toBe('object');
      expect(classifyBinary(makeElf({ bits, little, type: ET_CORE }))).toBeUndefined();
    });

    it('ET_DYN with PT_INTERP is a PIE executable, without it a shared library', () => {
      expect(classifyBinary(makeElf({ bits, little, type: ET_DYN, phdrs: [PT_LOAD, PT_INTERP] }))).toBe(
        'executable',
      );
      expect(classifyBinary(makeElf({ bits, little, type: ET_DYN, phdrs: [PT_LOAD, PT_DYNAMIC] }))).toBe(
        'shared_library',
      );
    });

    it('reads the dynamic segment: DF_1_PIE means executable, PT_INTERP with DT_SONAME a library', () => {
      const staticPie = makeElf({
        bits,
        little,
        type: ET_DYN,
        phdrs: [PT_LOAD, PT_DYNAMIC],
        dynamic: [[DT_FLAGS_1, DF_1_PIE]],
      });
      expect(classifyBinary(staticPie)).toBe('executable');
      const runnableLibrary = makeElf({
        bits,
        little,
        type: ET_DYN,
        phdrs: [PT_LOAD, PT_INTERP, PT_DYNAMIC],
        dynamic: [[DT_SONAME, 1]],
      });
      expect(classifyBinary(runnableLibrary)).toBe('shared_library');
      const pieWithoutFlag = makeElf({
        bits,
        little,
        type: ET_DYN,
        phdrs: [PT_LOAD, PT_INTERP, PT_DYNAMIC],
        dynamic: [[DT_FLAGS_1, 0]],
      });
      expect(classifyBinary(pieWithoutFlag)).toBe('executable');
    });

    it('asks for program headers that lie beyond the head and classifies with them', () => {
      const file = makeElf({ bits, little, type: ET_DYN, phdrs: [PT_LOAD, PT_INTERP], phoff: 9000 });
      const head = file.subarray(0, HEAD_BYTES);
      // Without them the conservative answer: a shared library.
      expect(classifyBinary(head)).toBe('shared_library');
      const phentsize = bits === 64 ? 56 : 32;
      expect(missingChunk(head)).toEqual({ offset: 9000, length: 2 * phentsize });
      expect(classifyWhole(file)).toBe('executable');
    });

    it('asks for a dynamic segment beyond the head', () => {
      const file = makeElf({
        bits,
        little,
        type: ET_DYN,
        phdrs: [PT_LOAD, PT_INTERP, PT_DYNAMIC],
        dynamic: [[DT_SONAME, 1]],
        dynamicOffset: 20000,
      });
      const head = file.subarray(0, HEAD_BYTES);
      expect(classifyBinary(head)).toBe('executable'); // PT_INTERP alone
      expect(missingChunk(head)).toEqual({ offset: 20000, length: 2 * (bits === 64 ? 16 : 8) });
      expect(classifyWhole(file)).toBe('shared_library');
    });
  });

  it('other ELF types are elf_other, broken identification too', () => {
    expect(classifyBinary(makeElf({ bits: 64, little: true, type: 0xfe00 }))).toBe('elf_other');
    expect(classifyBinary(Buffer.from('\x7fELF', 'latin1'))).toBe('elf_other');
    const badClass = makeElf({ bits: 64, little: true, type: ET_EXEC });
    badClass[4] = 7;
    expect(classifyBinary(badClass)).toBe('elf_other');
  });

  it('an ET_DYN header cut before its program header fields is a shared library', () => {
    const file = makeElf({ bits: 64, little: true, type: ET_DYN, phdrs: [PT_INTERP] });
    expect(classifyBinary(file.subarray(0, 40))).toBe('shared_library');
    expect(missingChunk(file.subarray(0, 40))).toBeUndefined();
  });

  it('an implausible program header table is not read', () => {
    const file = makeElf({ bits: 64, little: true, type: ET_DYN, phdrs: [PT_INTERP] });
    file.writeUInt16LE(0xffff, 56); // PN_XNUM
    expect(missingChunk(file)).toBeUndefined();
    expect(classifyBinary(file)).toBe('shared_library');
  });

  it('ar archives, thin archives; not .deb packages', () => {
    expect(classifyBinary(makeArchive())).toBe('static_library');
    expect(classifyBinary(makeArchive('a.o', Buffer.from('x'), '!<thin>\n'))).toBe('static_library');
    expect(classifyBinary(Buffer.from('!<arch>\n'))).toBe('static_library');
    expect(classifyBinary(makeArchive('debian-binary', Buffer.from('2.0\n')))).toBeUndefined();
  });

  it('anything else is nothing', () => {
    expect(classifyBinary(Buffer.alloc(0))).toBeUndefined();
    expect(classifyBinary(Buffer.from('#!/bin/sh\necho hi\n'))).toBeUndefined();
    expect(classifyBinary(Buffer.from('!<arch>'))).toBeUndefined();
    expect(classifyBinary(Buffer.from('MZ\x90\x00', 'latin1'))).toBeUndefined(); // PE: not a Linux binary
    expect(missingChunk(Buffer.from('hello world'))).toBeUndefined();
  });
});

const hasCc = spawnSync('cc', ['--version']).status === 0 && spawnSync('ar', ['--version']).status === 0;
const describeCc = hasCc ? describe : describe.skip;

describeCc('classifyBinary on binaries built by the host cc', () => {
  let dir: string;
  const cc = (...args: string[]): boolean =>
    spawnSync('cc', args, { cwd: dir, stdio: 'ignore' }).status === 0;
  const classifyFile = (name: string): ReturnType<typeof classifyBinary> =>
    classifyWhole(readFileSync(path.join(dir, name)));

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bb-classify-'));
    writeFileSync(path.join(dir, 'main.c'), 'int main(void) { return 0; }\n');
    writeFileSync(path.join(dir, 'lib.c'), 'int answer(void) { return 42; }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a PIE executable (-pie)', () => {
    expect(cc('-fPIE', '-pie', '-o', 'pie', 'main.c')).toBe(true);
    expect(classifyFile('pie')).toBe('executable');
  });

  it('a non-PIE executable (-no-pie)', () => {
    expect(cc('-fno-pie', '-no-pie', '-o', 'nopie', 'main.c')).toBe(true);
    expect(classifyFile('nopie')).toBe('executable');
  });

  it('a static executable (-static) and a static PIE (-static-pie) when the toolchain has it', () => {
    if (cc('-static', '-o', 'static', 'main.c')) expect(classifyFile('static')).toBe('executable');
    // A static PIE is ET_DYN without PT_INTERP: only DF_1_PIE tells it from a library.
    if (cc('-fPIE', '-static-pie', '-o', 'staticpie', 'main.c'))
      expect(classifyFile('staticpie')).toBe('executable');
  });

  it('a shared library (-shared), with and without a soname', () => {
    expect(cc('-fPIC', '-shared', '-o', 'libplain.so', 'lib.c')).toBe(true);
    expect(classifyFile('libplain.so')).toBe('shared_library');
    expect(cc('-fPIC', '-shared', '-Wl,-soname,libnamed.so.1', '-o', 'libnamed.so.1.2.3', 'lib.c')).toBe(
      true,
    );
    expect(classifyFile('libnamed.so.1.2.3')).toBe('shared_library');
  });

  it('a runnable shared library (PT_INTERP and a soname, like libc.so.6) is a library', () => {
    // An .interp section gives a shared object a PT_INTERP program header.
    writeFileSync(
      path.join(dir, 'run.c'),
      'const char interp[] __attribute__((section(".interp"))) = "/lib64/ld-linux-x86-64.so.2";\n' +
        'int answer(void) { return 42; }\n',
    );
    expect(cc('-fPIC', '-shared', '-Wl,-soname,librun.so.1', '-o', 'librun.so.1', 'run.c')).toBe(true);
    expect(classifyFile('librun.so.1')).toBe('shared_library');
    // The same without a soname reads as a PIE from an old linker: PT_INTERP decides.
    expect(cc('-fPIC', '-shared', '-o', 'librun-nosoname.so', 'run.c')).toBe(true);
    expect(classifyFile('librun-nosoname.so')).toBe('executable');
  });

  it('an object file (-c) is an object, not an artifact', () => {
    expect(cc('-c', '-o', 'lib.o', 'lib.c')).toBe(true);
    expect(classifyFile('lib.o')).toBe('object');
  });

  it('an archive (ar rcs) and a thin archive (ar rcsT)', () => {
    expect(cc('-c', '-o', 'lib.o', 'lib.c')).toBe(true);
    expect(spawnSync('ar', ['rcs', 'libx.a', 'lib.o'], { cwd: dir }).status).toBe(0);
    expect(classifyFile('libx.a')).toBe('static_library');
    expect(spawnSync('ar', ['rcsT', 'libthin.a', 'lib.o'], { cwd: dir }).status).toBe(0);
    expect(readFileSync(path.join(dir, 'libthin.a')).subarray(0, 8).toString()).toBe('!<thin>\n');
    expect(classifyFile('libthin.a')).toBe('static_library');
  });

  it('the host /bin/true, and glibc (runnable, PT_INTERP and a soname) when it is where Debian puts it', () => {
    expect(classifyWhole(readFileSync('/bin/true'))).toBe('executable');
    const libc = '/lib/x86_64-linux-gnu/libc.so.6';
    if (existsSync(libc)) expect(classifyWhole(readFileSync(libc))).toBe('shared_library');
  });
});
