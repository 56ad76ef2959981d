/**
 * Artifact scanning on a tree the size of a large repository after a build: 100 000 files (small text files
 * in nested directories, ~50 ELF copies of /bin/true, a few `ar` archives). Times `snapshotTree`, then
 * `scanNewArtifacts` after touching text files, adding and rebuilding binaries and adding object files,
 * then the same scan again with a classification cache (what the agent loop does after every turn).
 * Numbers are for a warm page cache: the files were just written.
 */
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

import { mapLimit } from '../src/base/concurrency.js';
import { scanNewArtifacts, snapshotTree, type ClassifiedStamp } from '../src/verify/artifacts.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const TOP_DIRS = 100;
const SUB_DIRS = 10;
const FILES_PER_DIR = 100; // 100 × 10 × 100 = 100 000 files
const ELF_COPIES = 50;
const ARCHIVES = 5;
const ELF_SOURCE = '/bin/true';

/** A valid `ar` archive with one member. */
function arArchive(member: string, content: Buffer): Buffer {
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
  return Buffer.concat([Buffer.from('!<arch>\n'), Buffer.from(header, 'latin1'), content, pad]);
}

/** A 64-bit little-endian ELF header of type ET_REL (an object file), padded. */
function objectFile(): Buffer {
  const buf = Buffer.alloc(512);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(buf);
  buf.writeUInt16LE(1, 16); // ET_REL
  buf.writeUInt16LE(62, 18); // x86-64
  return buf;
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export async function benchArtifacts(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bb-bench-artifacts-'));
  try {
    const setupStart = performance.now();
    const dirs: string[] = [];
    for (let i = 0; i < TOP_DIRS; i++) {
      for (let j = 0; j < SUB_DIRS; j++) dirs.push(path.join(root, `src${i}`, `mod${j}`));
    }
    await mapLimit(dirs, 16, (dir) => mkdir(dir, { recursive: true }).then(() => undefined));
    const files: string[] = [];
    for (const dir of dirs) for (let k = 0; k < FILES_PER_DIR; k++) files.push(path.join(dir, `file${k}.c`));
    const text = '/* generated */\nint f(void) { return 0; }\n';
    await mapLimit(files, 64, (file) => writeFile(file, text));
    await mkdir(path.join(root, '.git', 'objects'), { recursive: true });
    await writeFile(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const binDir = path.join(root, 'prebuilt');
    await mkdir(binDir);
    const elves = Array.from({ length: ELF_COPIES }, (_, i) => path.join(binDir, `tool${i}`));
    await mapLimit(elves, 16, (file) => copyFile(ELF_SOURCE, file));
    const archive = arArchive('a.o', objectFile());
    for (let i = 0; i < ARCHIVES; i++) await writeFile(path.join(binDir, `libpre${i}.a`), archive);
    const totalFiles = files.length + ELF_COPIES + ARCHIVES;
    const setupMs = performance.now() - setupStart;

    const snapStart = performance.now();
    const before = await snapshotTree(root);
    const snapshotMs = performance.now() - snapStart;
    if (before.size !== totalFiles)
      throw new Error(`snapshot saw ${before.size} files, expected ${totalFiles}`);

    // The "build": touch 1 000 sources, add 200 objects, 20 new executables, 2 archives, rebuild 10 binaries.
    const future = new Date(Date.now() + 60_000);
    await mapLimit(files.slice(0, 1000), 64, (file) => utimes(file, future, future));
    const outDir = path.join(root, 'build');
    await mkdir(outDir);
    const objects = Array.from({ length: 200 }, (_, i) => path.join(outDir, `obj${i}.o`));
    await mapLimit(objects, 64, (file) => writeFile(file, objectFile()));
    const built = Array.from({ length: 20 }, (_, i) => path.join(outDir, `app${i}`));
    await mapLimit(built, 16, (file) => copyFile(ELF_SOURCE, file));
    await writeFile(path.join(outDir, 'libnew0.a'), archive);
    await writeFile(path.join(outDir, 'libnew1.a'), archive);
    await mapLimit(elves.slice(0, 10), 16, async (file) => {
      await rm(file);
      await copyFile(ELF_SOURCE, file);
      await utimes(file, future, future);
    });
    const expectedArtifacts = 20 + 2 + 10;

    const cache = new Map<string, ClassifiedStamp>();
    const scanStart = performance.now();
    const artifacts = await scanNewArtifacts(root, before, { cache });
    const scanMs = performance.now() - scanStart;
    if (artifacts.length !== expectedArtifacts) {
      throw new Error(`scan found ${artifacts.length} artifacts, expected ${expectedArtifacts}`);
    }
    const cachedStart = performance.now();
    const again = await scanNewArtifacts(root, before, { cache });
    const cachedMs = performance.now() - cachedStart;
    if (again.length !== expectedArtifacts) throw new Error(`cached scan found ${again.length} artifacts`);
    const walked = totalFiles + objects.length + built.length + 2;

    return [
      { name: 'artifacts.tree_files', value: totalFiles, unit: 'files' },
      { name: 'artifacts.setup', value: round(setupMs, 0), unit: 'ms' },
      { name: 'snapshotTree', value: round(snapshotMs), unit: 'ms' },
      { name: 'snapshotTree.rate', value: round(totalFiles / (snapshotMs / 1000), 0), unit: 'files/s' },
      {
        name: 'scanNewArtifacts.changed_files',
        value: 1000 + objects.length + built.length + 2 + 10,
        unit: 'files',
      },
      { name: 'scanNewArtifacts', value: round(scanMs), unit: 'ms' },
      { name: 'scanNewArtifacts.rate', value: round(walked / (scanMs / 1000), 0), unit: 'files/s' },
      { name: 'scanNewArtifacts.cached', value: round(cachedMs), unit: 'ms' },
      { name: 'scanNewArtifacts.found', value: artifacts.length, unit: 'artifacts' },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
