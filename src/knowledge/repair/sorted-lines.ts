/**
 * A sorted text file searched on disk: the lines that start with a prefix, found by binary search over byte
 * offsets and read in chunks, so a look-up reads a few kilobytes of a file of any size and nothing is parsed
 * into memory. The file must be sorted bytewise (`LC_ALL=C sort`) and hold ASCII keys, so JavaScript's string
 * order is the file's. The host-side package indexes (contents-index.ts, package-state.ts) are such files.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

const CHUNK = 64 * 1024;

export class SortedLines {
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

  /** The lines that start with `prefix`, in order, without their newline. */
  *startingWith(prefix: string): Generator<string> {
    let offset = this.lowerBound(prefix);
    let carry = '';
    const buffer = Buffer.alloc(CHUNK);
    while (offset < this.size) {
      const read = readSync(this.fd, buffer, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      const lines = (carry + buffer.toString('utf8', 0, read)).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (line < prefix) continue;
        if (!line.startsWith(prefix)) return;
        yield line;
      }
    }
    if (carry.startsWith(prefix)) yield carry;
  }

  /** The offset of a line start at or before the first line >= key (binary search over byte offsets). */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.size;
    const buffer = Buffer.alloc(4096);
    while (hi - lo > CHUNK) {
      const mid = Math.floor((lo + hi) / 2);
      const read = readSync(this.fd, buffer, 0, buffer.length, mid);
      const text = buffer.toString('utf8', 0, read);
      const start = text.indexOf('\n');
      const end = text.indexOf('\n', start + 1);
      if (start < 0 || end < 0) {
        hi = mid;
        continue;
      }
      const line = text.slice(start + 1, end);
      if (line < key) lo = mid + start + 1;
      else hi = mid;
    }
    if (lo === 0) return 0;
    // Back to the start of the line lo is in.
    const back = Math.max(0, lo - 4096);
    const read = readSync(this.fd, buffer, 0, lo - back, back);
    const nl = buffer.toString('latin1', 0, read).lastIndexOf('\n');
    return nl >= 0 ? back + nl + 1 : back;
  }
}
