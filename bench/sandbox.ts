/**
 * Sandbox benchmark: a fresh rootfs sandbox (overlay over the cached layers) created and disposed, against a
 * full `cp -a` copy of the base rootfs created and removed, N times each. Goal: overlay ≥ 20× faster. And
 * one command (`true`) in a sandbox of each network mode: what entering bubblewrap (and slirp4netns) costs.
 * Needs what the rootfs backend needs (root, overlayfs, unshare); the cached layers are made first if absent
 * (not timed). And create+dispose with the build cache off, empty and full, side by side. Run alone with
 * `npx tsx bench/sandbox.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import {
  createRootfsSandbox,
  defaultSandboxSettings,
  ensureRootfsLayers,
  removeTree,
  rootfsProblems,
  runProcess,
} from '../src/sandbox/index.js';

export interface BenchMetric {
  name: string;
  value: number;
  unit: string;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Packages in the full build cache of the side-by-side rounds. */
const FULL_CACHE_PACKAGES = 2500;

/**
 * Create+dispose with the build cache off, empty and full (FULL_CACHE_PACKAGES files named by a hash, as
 * `apt/` holds them; no package index names these hashes, so apt is never offered one), side by side. The
 * full cache's first sandbox checks every file once (not timed: a warm-up round); later ones see it unchanged.
 */
async function createDisposeByCache(
  settings: ReturnType<typeof defaultSandboxSettings> & { choice: 'rootfs' },
  repo: string,
  n: number,
): Promise<Record<string, number>> {
  const empty = await mkdtemp(join(tmpdir(), 'bb-bench-cache-empty-'));
  const full = await mkdtemp(join(tmpdir(), 'bb-bench-cache-full-'));
  try {
    await mkdir(join(full, 'apt'), { recursive: true });
    for (let i = 0; i < FULL_CACHE_PACKAGES; i++) {
      const name = createHash('sha256').update(`bench-${i}`).digest('hex');
      await writeFile(join(full, 'apt', `${name}.deb`), Buffer.alloc(4096));
    }
    const out: Record<string, number> = {};
    for (const [label, buildCache] of [
      ['off', undefined],
      ['empty', empty],
      [`full_${FULL_CACHE_PACKAGES}`, full],
    ] as const) {
      await (
        await createRootfsSandbox({ ...settings, buildCache }, { repoDir: repo, name: 'bench-cache' })
      ).dispose();
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        const sandbox = await createRootfsSandbox(
          { ...settings, buildCache },
          { repoDir: repo, name: 'bench-cache' },
        );
        await sandbox.dispose();
        times.push(performance.now() - started);
      }
      out[label] = mean(times);
    }
    return out;
  } finally {
    await rm(empty, { recursive: true, force: true });
    await rm(full, { recursive: true, force: true });
  }
}

/** Mean create+dispose times over `n` rounds each (default 10); the copy rounds take seconds each. */
export async function benchSandbox(options: { n?: number } = {}): Promise<BenchMetric[]> {
  const N = options.n ?? 10;
  const settings = { ...defaultSandboxSettings(process.env), choice: 'rootfs' as const };
  const problems = await rootfsProblems(settings);
  if (problems.length > 0)
    throw new Error(`the sandbox benchmark needs the rootfs backend: ${problems.join('; ')}`);
  const layers = await ensureRootfsLayers({ ...settings, onProgress: (m) => console.error(m) });

  const repo = await mkdtemp(join(tmpdir(), 'bb-bench-repo-'));
  await writeFile(join(repo, 'main.c'), 'int main(void) { return 0; }\n');
  const overlay: number[] = [];
  const copy: number[] = [];
  const execMs: Record<string, number> = {};
  const cacheMs: Record<string, number> = {};
  try {
    for (let i = 0; i < N; i++) {
      const started = performance.now();
      const sandbox = await createRootfsSandbox(settings, { repoDir: repo, name: 'bench' }); // includes a `true` probe
      await sandbox.dispose();
      overlay.push(performance.now() - started);
    }
    await mkdir(settings.workRoot, { recursive: true });
    for (let i = 0; i < N; i++) {
      const target = join(settings.workRoot, `bench-copy-${process.pid}-${i}`);
      const started = performance.now();
      const result = await runProcess('cp', ['-a', layers.baseRoot, target], { timeoutMs: 600_000 });
      if (result.exitCode !== 0) throw new Error(`cp -a of the base rootfs failed: ${result.output}`);
      await removeTree(target);
      copy.push(performance.now() - started);
    }
    // One command's cost in each network mode (no build cache: its seeding is another benchmark's).
    for (const network of ['isolated', 'host', 'none'] as const) {
      const sandbox = await createRootfsSandbox(
        { ...settings, network, buildCache: undefined },
        { repoDir: repo, name: `bench-${network}` },
      );
      try {
        const times: number[] = [];
        for (let i = 0; i < N; i++) {
          const started = performance.now();
          const r = await sandbox.exec('true', { timeoutMs: 60_000 });
          if (r.exitCode !== 0) throw new Error(`\`true\` failed in the ${network} sandbox: ${r.output}`);
          times.push(performance.now() - started);
        }
        execMs[network] = mean(times);
      } finally {
        await sandbox.dispose();
      }
    }
    Object.assign(cacheMs, await createDisposeByCache(settings, repo, N));
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  const overlayMs = mean(overlay);
  const copyMs = mean(copy);
  return [
    ...Object.entries(execMs).map(([network, ms]) => ({
      name: `sandbox.rootfs.exec_true.${network}`,
      value: round(ms),
      unit: 'ms',
    })),
    {
      name: 'sandbox.rootfs.exec_true.isolated_over_host',
      value: round(execMs.isolated! / execMs.host!, 2),
      unit: 'x',
    },
    { name: 'sandbox.rootfs.create_dispose.overlay', value: round(overlayMs), unit: 'ms' },
    ...Object.entries(cacheMs).map(([cache, ms]) => ({
      name: `sandbox.rootfs.create_dispose.build_cache_${cache}`,
      value: round(ms),
      unit: 'ms',
    })),
    { name: 'sandbox.rootfs.create_dispose.copy_base', value: round(copyMs), unit: 'ms' },
    { name: 'sandbox.rootfs.create_dispose.speedup', value: round(copyMs / overlayMs), unit: 'x' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const metric of await benchSandbox()) console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
