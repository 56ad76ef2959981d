/**
 * A sorted text file searched on disk: the lines that start with a prefix, found by binary search over byte
 * offsets and read in chunks, so a look-up reads a few kilobytes of a file of any size and nothing is parsed
 * into memory. The file must be sorted bytewise (`LC_ALL=C sort`) and hold ASCII keys, so JavaScript's string
 * order is the file's. The host-side package indexes (contents-index.ts, package-state.ts) are such files.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const CHUNK = 64 * 1024;
/** The first read of a scan, and the span the binary search narrows to. */
const FIRST_CHUNK = 4 * 1024;
/** Probes remembered per open file (each a line): enough for the top levels of every search. */
const MAX_PROBES = 4096;

export class SortedLines {
  /** The binary search's probes so far, by offset (null: no whole line there). */
  private readonly probes = new Map<number, { line: string; start: number } | null>();

  private constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  /** Opens a sorted file; undefined when it does not exist or is empty. */
  static open(file: string): SortedLines | undefined {
    if (!existsSync(file)) return undefined;
    const size = statSync(file).size;
    if (size === 0) return undefined;
    return new SortedLines(openSync(file, 'r'), size);
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * The lines that start with `prefix`, in order, without their newline. The read begins a few kilobytes
   * before the first match and grows chunk by chunk: most look-ups need a few hundred lines, and a whole
   * 64 KiB chunk decoded and split for each cost more than the search.
   */
  *startingWith(prefix: string): Generator<string> {
    let offset = this.lowerBound(prefix);
    let carry = '';
    let chunk = FIRST_CHUNK;
    // A chunk can end inside a character: the decoder keeps its first bytes for the next one.
    const decoder = new StringDecoder('utf8');
    while (offset < this.size) {
      const buffer = Buffer.allocUnsafe(chunk);
      const read = readSync(this.fd, buffer, 0, chunk, offset);
      if (read === 0) break;
      offset += read;
      chunk = Math.min(CHUNK, chunk * 2);
      const lines = (carry + decoder.write(buffer.subarray(0, read))).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (line < prefix) continue;
        if (!line.startsWith(prefix)) return;
        yield line;
      }
    }
    carry += decoder.end();
    if (carry.startsWith(prefix)) yield carry;
  }

  /** The offset of a line start at or before the first line >= key (binary search over byte offsets). */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.size;
    while (hi - lo > FIRST_CHUNK) {
      const mid = Math.floor((lo + hi) / 2);
      const probe = this.probe(mid);
      if (probe === undefined) {
        hi = mid;
        continue;
      }
      if (probe.line < key) lo = probe.start;
      else hi = mid;
    }
    // A line start: 0, or where a probe found a line (probes decode bytes one for one, so offsets are exact).
    return lo;
  }

  /**
   * The first whole line after byte `at`, with its offset; undefined when none fits in 4 KiB. Remembered: every
   * search of one file probes the same offsets first, and a look-up of a hundred names would read them again.
   */
  private probe(at: number): { line: string; start: number } | undefined {
    const known = this.probes.get(at);
    if (known !== undefined) return known ?? undefined;
    const buffer = Buffer.allocUnsafe(4096);
    const read = readSync(this.fd, buffer, 0, buffer.length, at);
    const text = buffer.toString('latin1', 0, read);
    const start = text.indexOf('\n');
    const end = text.indexOf('\n', start + 1);
    const found =
      start < 0 || end < 0 ? undefined : { line: text.slice(start + 1, end), start: at + start + 1 };
    if (this.probes.size >= MAX_PROBES) this.probes.clear();
    this.probes.set(at, found ?? null);
    return found;
  }
}
