/**
 * Package look-up benchmark: the host-side Contents index (src/knowledge/repair/contents-index.ts) against
 * apt-file, the fallback. Builds the index from the toolchain layer's Contents files into a temporary file
 * (timed: what the first run on a new layer pays once), then times single-need look-ups over a mixed list
 * of needs (lookups per second), and one batched resolution of the same needs through the real resolver in
 * a rootfs sandbox, with the index (apt-cache policy only in the sandbox) and without it (apt-file search).
 * Needs what the rootfs backend needs and lz4cat on this machine. Run alone with `npx tsx bench/package-lookup.ts`.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { buildContentsIndex, ContentsIndex } from '../src/knowledge/repair/contents-index.js';
import { queryFor, type NeedQuery } from '../src/knowledge/repair/package-index.js';
import { resolvePackages, sandboxRunner } from '../src/knowledge/repair/packages.js';
import type { Need } from '../src/knowledge/repair/needs.js';
import {
  createRootfsSandbox,
  defaultSandboxSettings,
  ensureRootfsLayers,
  rootfsProblems,
} from '../src/sandbox/index.js';

export interface BenchMetric {
  name: string;
  value: number;
  unit: string;
}

/** A mix of the needs builds ask for (each kind, common and rare names). */
const NEEDS: Need[] = [
  { kind: 'header', name: 'zlib.h' },
  { kind: 'header', name: 'png.h' },
  { kind: 'header', name: 'ncurses.h' },
  { kind: 'header', name: 'openssl/ssl.h' },
  { kind: 'header', name: 'curl/curl.h' },
  { kind: 'header', name: 'config.h' },
  { kind: 'library', name: 'jansson' },
  { kind: 'library', name: 'z' },
  { kind: 'library', name: 'pcre2-8' },
  { kind: 'pkgconfig', name: 'yaml-0.1' },
  { kind: 'pkgconfig', name: 'glib-2.0' },
  { kind: 'pkgconfig', name: 'libxml-2.0' },
  { kind: 'cmake', name: 'fmt' },
  { kind: 'cmake', name: 'PNG' },
  { kind: 'cmake', name: 'Boost' },
  { kind: 'command', name: 'xxd' },
  { kind: 'command', name: 'bison' },
  { kind: 'python-module', name: 'yaml' },
  { kind: 'python-module', name: 'numpy' },
  { kind: 'm4-macro', name: 'AX_PTHREAD' },
];

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Index build, index look-ups per second, and one batched resolution with and without the index. */
export async function benchPackageLookup(options: { rounds?: number } = {}): Promise<BenchMetric[]> {
  const rounds = options.rounds ?? 20;
  const settings = { ...defaultSandboxSettings(process.env), choice: 'rootfs' as const };
  const problems = await rootfsProblems(settings);
  if (problems.length > 0)
    throw new Error(`the package look-up benchmark needs the rootfs backend: ${problems.join('; ')}`);
  const layers = await ensureRootfsLayers({ ...settings, onProgress: (m) => console.error(m) });
  if (!layers.toolchainRoot) throw new Error('no toolchain layer: nothing to index');
  const lists = join(layers.toolchainRoot, 'var/lib/apt/lists');

  const dir = await mkdtemp(join(tmpdir(), 'bb-bench-index-'));
  const file = join(dir, 'index.tsv');
  const repo = await mkdtemp(join(tmpdir(), 'bb-bench-repo-'));
  await writeFile(join(repo, 'main.c'), 'int main(void) { return 0; }\n');
  try {
    let started = performance.now();
    if (!(await buildContentsIndex(lists, file))) throw new Error(`could not build the index from ${lists}`);
    const buildMs = performance.now() - started;
    const sizeMb = (await stat(file)).size / 1e6;
    const index = ContentsIndex.open(file)!;
    const queries = NEEDS.map((n) => queryFor(n)).filter((q): q is NeedQuery => q !== undefined);

    const single: number[] = [];
    started = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const q of queries) {
        const t = performance.now();
        index.search([q]);
        single.push(performance.now() - t);
      }
    }
    const allMs = performance.now() - started;

    const sandbox = await createRootfsSandbox(settings, { repoDir: repo, name: 'bench-lookup' });
    let withIndexMs = 0;
    let aptFileMs = 0;
    let agree = 0;
    try {
      const runner = sandboxRunner(sandbox);
      started = performance.now();
      const fast = await resolvePackages(NEEDS, runner, { index });
      withIndexMs = performance.now() - started;
      started = performance.now();
      const slow = await resolvePackages(NEEDS, runner);
      aptFileMs = performance.now() - started;
      agree = fast.filter((r, i) => r.package === slow[i]?.package).length;
    } finally {
      await sandbox.dispose();
      index.close();
    }
    return [
      { name: 'package_lookup.index.build', value: round(buildMs / 1000), unit: 's' },
      { name: 'package_lookup.index.size', value: round(sizeMb), unit: 'MB' },
      {
        name: 'package_lookup.index.lookups_per_second',
        value: Math.round((single.length / allMs) * 1000),
        unit: '/s',
      },
      { name: 'package_lookup.index.lookup_median', value: round(median(single), 2), unit: 'ms' },
      { name: 'package_lookup.resolve_batch.needs', value: NEEDS.length, unit: 'needs' },
      { name: 'package_lookup.resolve_batch.index', value: Math.round(withIndexMs), unit: 'ms' },
      { name: 'package_lookup.resolve_batch.apt_file', value: Math.round(aptFileMs), unit: 'ms' },
      { name: 'package_lookup.resolve_batch.speedup', value: round(aptFileMs / withIndexMs), unit: 'x' },
      { name: 'package_lookup.resolve_batch.same_package', value: agree, unit: `of ${NEEDS.length}` },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const metric of await benchPackageLookup())
    console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
