import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  debugInfoOf,
  epilogueResults,
  executablesToProbe,
  judgeRunProbe,
  probeEpilogue,
  readDebugInfo,
  readElfSections,
  type ByteReader,
} from '../../../src/verify/probes.js';
import { removeScratch } from '../../../src/verify/layer2.js';
import type { Artifact } from '../../../src/verify/types.js';
import { makeArchive } from './helpers/elf.js';

interface Section {
  name: string;
  type?: number;
  flags?: number;
  size?: number;
}

/** An ELF image with only a header, section contents and a section header table (names in .shstrtab). */
function elfWithSections(
  bits: 32 | 64,
  little: boolean,
  sections: Section[],
  options: { extended?: boolean } = {},
): Buffer {
  const is64 = bits === 64;
  const ehsize = is64 ? 64 : 52;
  const shentsize = is64 ? 64 : 40;
  const all: Section[] = [{ name: '' }, ...sections, { name: '.shstrtab', type: 3 }];
  const names = Buffer.concat(all.map((s) => Buffer.from(`${s.name}\0`, 'latin1')));
  const nameOffsets: number[] = [];
  let at = 0;
  for (const s of all) {
    nameOffsets.push(at);
    at += s.name.length + 1;
  }
  // contents: each section gets `size` zero bytes, .shstrtab gets the names
  const offsets: number[] = [];
  let cursor = ehsize;
  for (const s of all) {
    offsets.push(cursor);
    cursor += s.name === '.shstrtab' ? names.length : s.type === 8 ? 0 : (s.size ?? 0);
  }
  const shoff = cursor;
  const buf = Buffer.alloc(shoff + all.length * shentsize);
  const u16 = (v: number, o: number): number => (little ? buf.writeUInt16LE(v, o) : buf.writeUInt16BE(v, o));
  const u32 = (v: number, o: number): number => (little ? buf.writeUInt32LE(v, o) : buf.writeUInt32BE(v, o));
  const word = (v: number, o: number): void => {
    if (!is64) u32(v, o);
    else if (little) buf.writeBigUInt64LE(BigInt(v), o);
    else buf.writeBigUInt64BE(BigInt(v), o);
  };
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, little ? 1 : 2, 1]).copy(buf);
  u16(2, 16);
  word(shoff, is64 ? 40 : 32);
  u16(shentsize, is64 ? 58 : 46);
  const strndx = all.length - 1;
  u16(options.extended ? 0 : all.length, is64 ? 60 : 48);
  u16(options.extended ? 0xffff : strndx, is64 ? 62 : 50);
  names.copy(buf, offsets[strndx]);
  all.forEach((s, i) => {
    const h = shoff + i * shentsize;
    u32(nameOffsets[i]!, h);
    u32(s.type ?? 1, h + 4);
    word(s.flags ?? 0, h + 8);
    word(offsets[i]!, h + (is64 ? 24 : 16));
    let size = s.name === '.shstrtab' ? names.length : (s.size ?? 0);
    let link = 0;
    if (i === 0 && options.extended) {
      size = all.length; // the real section count lives in section 0
      link = strndx; // and so does the string table's index
    }
    word(size, h + (is64 ? 32 : 20));
    u32(link, h + (is64 ? 40 : 24));
  });
  return buf;
}

const reader =
  (buf: Buffer): ByteReader =>
  (offset, length) =>
    Promise.resolve(buf.subarray(offset, offset + length));

describe('ELF section headers and debug info', () => {
  it.each([
    [64, true],
    [64, false],
    [32, true],
    [32, false],
  ] as const)('reads section names of a %i-bit %s-endian file', async (bits, little) => {
    const image = elfWithSections(bits, little, [
      { name: '.text', size: 16 },
      { name: '.debug_info', size: 40 },
    ]);
    const sections = await readElfSections(reader(image));
    expect(sections?.map((s) => s.name)).toEqual(['', '.text', '.debug_info', '.shstrtab']);
    expect(debugInfoOf(sections!)).toEqual({ present: true, detail: '.debug_info (40 bytes)' });
  });

  it('handles extended section numbering, compressed and missing debug info', async () => {
    const extended = await readElfSections(
      reader(elfWithSections(64, true, [{ name: '.debug_info', size: 8, flags: 0x800 }], { extended: true })),
    );
    expect(debugInfoOf(extended!)).toEqual({ present: true, detail: '.debug_info (8 bytes, compressed)' });
    const stripped = await readElfSections(
      reader(
        elfWithSections(64, true, [
          { name: '.text', size: 8 },
          { name: '.gnu_debuglink', size: 8 },
        ]),
      ),
    );
    expect(debugInfoOf(stripped!).present).toBe(false);
    expect(debugInfoOf(stripped!).detail).toMatch(/separate file/);
    const nobits = await readElfSections(
      reader(elfWithSections(64, true, [{ name: '.debug_info', type: 8, size: 100 }])),
    );
    expect(debugInfoOf(nobits!).present).toBe(false);
    expect(await readElfSections(reader(Buffer.from('#!/bin/sh\necho hi\n')))).toBeUndefined();
  });

  it('looks into the member objects of an archive', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-probe-'));
    const withDebug = path.join(dir, 'libd.a');
    writeFileSync(
      withDebug,
      makeArchive('d.o', elfWithSections(64, true, [{ name: '.debug_info', size: 3 }])),
    );
    expect(await readDebugInfo(withDebug)).toEqual({
      present: true,
      detail: '1 of 1 member objects have debug info (.debug_info (3 bytes))',
    });
    const without = path.join(dir, 'libn.a');
    writeFileSync(without, makeArchive('n.o', elfWithSections(64, true, [{ name: '.text', size: 3 }])));
    expect(await readDebugInfo(without)).toEqual({
      present: false,
      detail: 'none of 1 member objects has a .debug_info section',
    });
    const thin = path.join(dir, 'libt.a');
    writeFileSync(thin, makeArchive('t.o', Buffer.from('x'), '!<thin>\n'));
    expect((await readDebugInfo(thin)).present).toBe(false);
  });

  const gcc = (() => {
    try {
      execFileSync('gcc', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  (gcc ? it : it.skip)('tells a -g build from a plain one (real gcc output)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-probe-gcc-'));
    writeFileSync(path.join(dir, 'm.c'), 'int main(void) { return 0; }\n');
    execFileSync('gcc', ['-g', '-o', 'debug', 'm.c'], { cwd: dir });
    execFileSync('gcc', ['-O2', '-o', 'plain', 'm.c'], { cwd: dir });
    execFileSync('gcc', ['-g', '-c', '-o', 'm.o', 'm.c'], { cwd: dir });
    execFileSync('ar', ['rcs', 'libm-debug.a', 'm.o'], { cwd: dir });
    expect((await readDebugInfo(path.join(dir, 'debug'))).present).toBe(true);
    expect(await readDebugInfo(path.join(dir, 'plain'))).toEqual({
      present: false,
      detail: 'no .debug_info section: not built with -g, or stripped',
    });
    expect((await readDebugInfo(path.join(dir, 'libm-debug.a'))).present).toBe(true);
  });
});

describe('run probe verdicts', () => {
  const attempt = (flag: '--version' | '--help', exitCode: number, output = '', durationMs = 10) => ({
    flag,
    exitCode,
    output,
    durationMs,
  });

  it('passes a program that starts, whatever ordinary status it exits with', () => {
    expect(judgeRunProbe([attempt('--version', 0, 'hello 1.2\n')], 5000)).toEqual({
      passed: true,
      detail: '--version exited 0: hello 1.2',
    });
    expect(
      judgeRunProbe([attempt('--version', 1, 'unknown option'), attempt('--help', 2, 'usage: hello')], 5000),
    ).toEqual({
      passed: true,
      detail: '--help exited 2 (an ordinary exit): usage: hello',
    });
    expect(judgeRunProbe([attempt('--version', 124, '', 5003)], 5000).passed).toBe(true);
  });

  it('fails a crash by signal or by its output, and a program that cannot start', () => {
    expect(judgeRunProbe([attempt('--version', 139)], 5000)).toEqual({
      passed: false,
      detail: '--version: crashed (killed by SIGSEGV, exit 139)',
    });
    expect(
      judgeRunProbe([attempt('--version', 134, "terminate called after throwing an instance of 'x'")], 5000)
        .detail,
    ).toMatch(/SIGABRT/);
    expect(
      judgeRunProbe([attempt('--version', 1, '==1==ERROR: AddressSanitizer: SEGV on unknown address')], 5000),
    ).toEqual({
      passed: false,
      detail: '--version: crashed (exit 1): ERROR: AddressSanitizer: SEGV on unknown address',
    });
    expect(
      judgeRunProbe(
        [
          attempt(
            '--version',
            127,
            './x: error while loading shared libraries: libfoo.so.1: cannot open shared object file',
          ),
        ],
        5000,
      ).detail,
    ).toBe(
      '--version: does not start (exit 127): error while loading shared libraries: libfoo.so.1: cannot open shared object file',
    );
    expect(judgeRunProbe([attempt('--version', 124, '', 10)], 5000).passed).toBe(true); // exit 124 of its own is ordinary
    expect(judgeRunProbe([], 5000).passed).toBe(false);
  });

  it('starts expected executables first, at most a few', () => {
    const a = (p: string, kind: Artifact['kind'] = 'executable'): Artifact => ({ path: p, kind, size: 1 });
    const artifacts = [a('b/aux'), a('b/libx.so', 'shared_library'), a('b/main'), a('b/other')];
    expect(executablesToProbe(artifacts, ['b/main'], 2)).toEqual(['b/main', 'b/aux']);
  });
});

describe('the run probe as an epilogue', () => {
  /** A tree as a build left it: new programs, a library, a script, an old program, a link, scratch. */
  function builtTree(): { root: string; since: number } {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-epilogue-'));
    const since = Date.now() - 1000;
    mkdirSync(path.join(root, 'build'));
    mkdirSync(path.join(root, 'old'));
    mkdirSync(path.join(root, '.buildbench'));
    const program = execFileSync('bash', ['-c', 'type -P true'], { encoding: 'utf8' }).trim();
    for (const p of ['build/tool', 'build/aux', 'build/libx.so.1', 'old/prebuilt', '.buildbench/hidden'])
      copyFileSync(program, path.join(root, p));
    const past = new Date(since - 60_000);
    utimesSync(path.join(root, 'old/prebuilt'), past, past);
    writeFileSync(path.join(root, 'build/script.sh'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(root, 'build/script.sh'), 0o755);
    symlinkSync('build/tool', path.join(root, 'link'));
    return { root, since };
  }

  const runIn = (root: string, script: string): void => {
    execFileSync('bash', ['-c', script], { cwd: root, stdio: 'ignore' });
  };

  it('starts the new ELF programs it finds, expected names first, and answers for those paths', async () => {
    const { root, since } = builtTree();
    try {
      const epilogue = probeEpilogue(['aux'], { since, limit: 8 });
      runIn(root, epilogue.script);
      const results = await epilogueResults(root, epilogue, ['build/tool', 'build/aux']);
      expect(results?.map((r) => [r.path, r.passed])).toEqual([
        ['build/tool', true],
        ['build/aux', true],
      ]);
      expect(results?.[0]?.detail).toMatch(/^--version exited 0: true \(GNU coreutils\)/);
      // Its scratch folder is gone once read.
      expect(existsSync(path.join(root, epilogue.rel))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('leaves out libraries, scripts, old files, links and scratch; keeps expected names within the limit', async () => {
    const { root, since } = builtTree();
    try {
      const one = probeEpilogue(['aux'], { since, limit: 1 });
      runIn(root, one.script);
      expect(await epilogueResults(root, one, ['build/aux'])).toHaveLength(1);
      const all = probeEpilogue([], { since, limit: 8 });
      runIn(root, all.script);
      // Not started: the caller probes these itself.
      for (const other of [
        'build/libx.so.1',
        'build/script.sh',
        'old/prebuilt',
        'link',
        '.buildbench/hidden',
      ]) {
        const again = probeEpilogue([], { since, limit: 8 });
        runIn(root, again.script);
        expect(await epilogueResults(root, again, [other])).toBeUndefined();
      }
      expect((await epilogueResults(root, all, ['build/aux', 'build/tool']))?.length).toBe(2);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('starts nothing when the command is near its limit, and a program writes where it stands, not in the tree', async () => {
    const { root, since } = builtTree();
    try {
      const late = probeEpilogue(['tool'], { since, deadline: Date.now() + 5000 });
      runIn(root, late.script);
      expect(await epilogueResults(root, late, ['build/tool'])).toBeUndefined();
      // Where the programs start: a file written there (by a script run just before each probe) is not the tree's.
      writeFileSync(path.join(root, 'writer.sh'), 'echo x > left-here\n');
      const epilogue = probeEpilogue(['tool'], {
        since,
        deadline: Date.now() + 60_000,
      });
      expect(epilogue.script).toContain('probe "$n"');
      runIn(root, epilogue.script.replace('probe "$n"', 'sh "$R/writer.sh"; probe "$n"'));
      expect(existsSync(path.join(root, 'left-here'))).toBe(false);
      expect(await epilogueResults(root, epilogue, ['build/tool'])).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers nothing when it did not run (the script failed), and removes nothing else', async () => {
    const { root, since } = builtTree();
    try {
      const epilogue = probeEpilogue(['tool'], { since });
      expect(await epilogueResults(root, epilogue, ['build/tool'])).toBeUndefined();
      expect(existsSync(path.join(root, 'build/tool'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('removing a scratch folder', () => {
  it('never follows a folder the commands swapped for a link out of the tree', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-scratch-root-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'bb-scratch-outside-'));
    try {
      // Outside the tree: what the link leads to, shaped like the scratch path (an empty probes folder too).
      mkdirSync(path.join(outside, 'probes', 'x1'), { recursive: true });
      writeFileSync(path.join(outside, 'probes', 'x1', 'keep'), 'mine\n');
      mkdirSync(path.join(outside, 'empty', 'probes'), { recursive: true });
      symlinkSync(outside, path.join(root, '.buildbench'));
      await removeScratch(root, path.join(root, '.buildbench', 'probes', 'x1'));
      expect(existsSync(path.join(outside, 'probes', 'x1', 'keep'))).toBe(true);
      rmSync(path.join(root, '.buildbench'));
      symlinkSync(path.join(outside, 'empty'), path.join(root, '.buildbench'));
      await removeScratch(root, path.join(root, '.buildbench', 'probes', 'gone'));
      expect(existsSync(path.join(outside, 'empty', 'probes'))).toBe(true);
      // A real scratch folder goes, with its empty parents.
      rmSync(path.join(root, '.buildbench'));
      mkdirSync(path.join(root, '.buildbench', 'probes', 'x2'), { recursive: true });
      writeFileSync(path.join(root, '.buildbench', 'probes', 'x2', 'results'), '');
      await removeScratch(root, path.join(root, '.buildbench', 'probes', 'x2'));
      expect(existsSync(path.join(root, '.buildbench'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
