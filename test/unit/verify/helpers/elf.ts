/** Synthetic ELF files for classification tests: only the header, program headers and dynamic segment. */

export const ET_NONE = 0;
export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;
export const ET_CORE = 4;
export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_INTERP = 3;
export const DT_SONAME = 14;
export const DT_FLAGS_1 = 0x6ffffffb;
export const DF_1_PIE = 0x08000000;

export interface SyntheticElf {
  bits: 32 | 64;
  little: boolean;
  type: number;
  /** Program header types, in order; a PT_DYNAMIC entry points at the dynamic segment. */
  phdrs?: number[];
  /** Where the program header table goes. Default: right after the ELF header. */
  phoff?: number;
  /** Dynamic entries (tag, value), DT_NULL appended. */
  dynamic?: [number, number][];
  /** Where the dynamic segment goes. Default: right after the program headers. */
  dynamicOffset?: number;
  /** Pad the file to at least this size. */
  size?: number;
}

export function makeElf(spec: SyntheticElf): Buffer {
  const is64 = spec.bits === 64;
  const ehsize = is64 ? 64 : 52;
  const phentsize = is64 ? 56 : 32;
  const phdrs = spec.phdrs ?? [];
  const phoff = phdrs.length > 0 ? (spec.phoff ?? ehsize) : 0;
  const dynEntries = spec.dynamic ? [...spec.dynamic, [0, 0] as [number, number]] : [];
  const dynEntSize = is64 ? 16 : 8;
  const dynOffset = spec.dynamicOffset ?? phoff + phdrs.length * phentsize;
  const dynSize = dynEntries.length * dynEntSize;
  const size = Math.max(
    spec.size ?? 0,
    ehsize,
    phoff + phdrs.length * phentsize,
    dynEntries.length > 0 ? dynOffset + dynSize : 0,
  );
  const buf = Buffer.alloc(size);
  const u16 = (value: number, at: number): void => {
    if (spec.little) buf.writeUInt16LE(value, at);
    else buf.writeUInt16BE(value, at);
  };
  const u32 = (value: number, at: number): void => {
    if (spec.little) buf.writeUInt32LE(value >>> 0, at);
    else buf.writeUInt32BE(value >>> 0, at);
  };
  const word = (value: number, at: number): void => {
    if (!is64) return u32(value, at);
    if (spec.little) buf.writeBigUInt64LE(BigInt(value), at);
    else buf.writeBigUInt64BE(BigInt(value), at);
  };
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, spec.little ? 1 : 2, 1]).copy(buf);
  u16(spec.type, 16);
  u16(is64 ? 62 : 3, 18); // e_machine: x86-64 / i386 (irrelevant to classification)
  u32(1, 20); // e_version
  word(phoff, is64 ? 32 : 28);
  u16(ehsize, is64 ? 52 : 40);
  u16(phdrs.length > 0 ? phentsize : 0, is64 ? 54 : 42);
  u16(phdrs.length, is64 ? 56 : 44);
  phdrs.forEach((type, i) => {
    const at = phoff + i * phentsize;
    u32(type, at);
    if (type === PT_DYNAMIC && dynEntries.length > 0) {
      word(dynOffset, at + (is64 ? 8 : 4));
      word(dynSize, at + (is64 ? 32 : 16));
    }
  });
  dynEntries.forEach(([tag, value], i) => {
    const at = dynOffset + i * dynEntSize;
    word(tag, at);
    word(value, at + (is64 ? 8 : 4));
  });
  return buf;
}

/** A valid `ar` archive with one member. */
export function makeArchive(member = 'a.o', content: Buffer = Buffer.from('x'), magic = '!<arch>\n'): Buffer {
  const field = (text: string, width: number): string => text.padEnd(width, ' ').slice(0, width);
  const header =
    field(`${member}/`, 16) +
    field('0', 12) +
    field('0', 6) +
    field('0', 6) +
    field('644', 8) +
    field(String(content.length), 10) +
    '`\n';
  const pad = content.length % 2 === 1 ? Buffer.from('\n') : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(magic, 'latin1'), Buffer.from(header, 'latin1'), content, pad]);
}
