/**
 * The docker sandbox against the rootfs sandbox, side by side in one run on this machine (issue 32's measure):
 * the same repositories built by `runBuild` (rules strategy) in each backend, in turn, each build with a fresh,
 * empty build cache (no package downloads, no ccache store), so what differs is the backend alone.
 *
 * - **Warm** (the default): each backend as a runner has it after its first build: the rootfs base and toolchain
 *   layer made, the docker toolchain image made over the image (both made before the timed builds if missing,
 *   untimed, and said).
 * - **First build** (BB_BENCH_COLD=1): both sides start from nothing that buildbench made: a fresh cache folder
 *   for both (the rootfs side debootstraps its base and installs its toolchain layer; the docker side's
 *   toolchain image is removed from the engine first and made again), and the first repository's build on
 *   each side is timed as the first build, reported apart from the warm ones.
 *
 * The docker image is BB_BENCH_DOCKER_IMAGE (default buildbench/bookworm-bare:test: a `docker import` of a
 * minbase Debian bookworm rootfs, as CI makes it). The corpus: vs-hand's (`benchEntries`): the fixtures under
 * test/fixtures/repos that are expected to build (BB_BENCH_FIXTURES limits them; `none` leaves them out) and
 * the real repositories of BB_BENCH_VS_HAND (bench/vs-hand-corpus/corpus.json with BB_BENCH_VS_HAND_SRC). BB_BENCH_REPEAT=n (1-9) runs each side n times in
 * turn and takes each repository's median. Reports per repository both wall times and their ratio
 * (docker / rootfs), the total ratio (sum over sum) and the median ratio, and the first build's extra cost.
 * Run alone: `npx tsx bench/sandbox-backends.ts`, or `npm run bench -- --only sandbox-backends`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { runBuild } from '../src/core/run-build.js';
import type { BuildResult } from '../src/report/result.js';
import { docker, dockerAnswers, ensureDockerImage } from '../src/sandbox/docker.js';
import { ensureToolchainImage, toolchainImageTag } from '../src/sandbox/docker-toolchain.js';
import { ensureRootfsLayers } from '../src/sandbox/rootfs.js';
import type { SandboxSettings } from '../src/sandbox/types.js';
import { quantile } from './harness-overhead.js';
import { FIXTURES, fixtureCorpus, round, type BenchResult } from './rules-vs-baseline.js';
import { benchEntries, type VsHandEntry } from './vs-hand.js';

type Backend = 'rootfs' | 'docker';
const BACKENDS: readonly Backend[] = ['rootfs', 'docker'];

interface Timed {
  ms: number;
  status: BuildResult['status'];
  turns: number;
  /** The docker toolchain image made in this build, and how long that took. */
  madeMs?: number;
}

export async function benchSandboxBackends(): Promise<BenchResult[]> {
  const corpus = await fixtureCorpus('sandbox-backends');
  if (!(await dockerAnswers(10_000)))
    throw new Error('the sandbox-backends benchmark needs a Docker engine (docker info)');
  const image = process.env.BB_BENCH_DOCKER_IMAGE || 'buildbench/bookworm-bare:test';
  const entries = benchEntries(corpus);
  if (entries.length === 0) throw new Error('sandbox-backends: no repository to build');
  const repeat = Math.max(1, Math.min(9, Number.parseInt(process.env.BB_BENCH_REPEAT ?? '1', 10) || 1));
  const cold = process.env.BB_BENCH_COLD === '1';
  const scratch = await mkdtemp(path.join(tmpdir(), 'bb-bench-backends-'));
  const cacheDir = cold ? path.join(scratch, 'cache') : corpus.sandbox.cacheDir;
  const settings = (backend: Backend, buildCache: string): SandboxSettings => ({
    ...corpus.sandbox,
    choice: backend,
    image,
    cacheDir,
    buildCache,
  });
  const baseId = await ensureDockerImage(image);
  const out: BenchResult[] = [];
  try {
    if (cold) {
      // Nothing buildbench made: the toolchain image over this base goes (the rootfs side has a fresh folder).
      const tags = [true, false].map((cache) => toolchainImageTag(baseId, cache));
      for (const tag of tags) await docker(['rmi', '-f', tag], { timeoutMs: 120_000 });
    } else {
      // Made before the timed builds (untimed): a runner after its first build.
      await ensureRootfsLayers({ ...corpus.sandbox, cacheDir, onProgress: say });
      await ensureToolchainImage({ baseId, cacheDir, buildCacheSetup: true, onProgress: say });
    }
    const build = async (backend: Backend, entry: VsHandEntry, label: string): Promise<Timed> => {
      const buildCache = await mkdtemp(path.join(scratch, `build-cache-${backend}-`));
      const outDir = path.join(scratch, `out-${entry.name}-${backend}-${label}`);
      const started = performance.now();
      const result = await runBuild({
        source: entry.dir,
        outDir,
        strategy: 'rules',
        maxTurns: 10,
        timeoutMs: 45 * 60_000,
        turnTimeoutMs: 30 * 60_000,
        expect: entry.expect,
        json: false,
        keep: false,
        sandbox: settings(backend, buildCache),
      });
      const ms = performance.now() - started;
      await rm(buildCache, { recursive: true, force: true });
      await rm(outDir, { recursive: true, force: true });
      const made = result.sandbox.derivedImage?.madeMs;
      return {
        ms,
        status: result.status,
        turns: result.turns.length,
        ...(made !== undefined ? { madeMs: made } : {}),
      };
    };

    const rows: { fixture: string; times: Record<Backend, Timed[]> }[] = [];
    for (const [i, entry] of entries.entries()) {
      const fixture = entry.name;
      const times: Record<Backend, Timed[]> = { rootfs: [], docker: [] };
      for (let n = 0; n < repeat; n++) {
        for (const backend of BACKENDS) {
          const timed = await build(backend, entry, String(n));
          say(
            `${fixture} ${backend}: ${timed.status}, ${timed.turns} turn(s), ${round(timed.ms / 1000, 2)} s` +
              (timed.madeMs !== undefined
                ? ` (toolchain image made in ${round(timed.madeMs / 1000, 1)} s)`
                : ''),
          );
          if (cold && i === 0 && n === 0) {
            out.push({
              name: `sandbox_backends.first_build.${fixture}.${backend}`,
              value: sec(timed.ms),
              unit: 's',
            });
            if (timed.madeMs !== undefined)
              out.push({
                name: 'sandbox_backends.first_build.docker_image_made',
                value: sec(timed.madeMs),
                unit: 's',
              });
          } else times[backend].push(timed);
        }
      }
      if (times.rootfs.length > 0) rows.push({ fixture, times });
    }
    out.push(...backendResults(rows));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return out;
}

function sec(ms: number): number {
  return round(ms / 1000, 2);
}

function say(message: string): void {
  console.error(`bench: ${message}`);
}

/** Per repository: each backend's median wall time and the ratio; over all: total and median ratio. */
export function backendResults(
  rows: readonly { fixture: string; times: Record<Backend, readonly Timed[]> }[],
): BenchResult[] {
  const out: BenchResult[] = [];
  const compared: { rootfs: number; docker: number }[] = [];
  for (const { fixture, times } of rows) {
    const median = (b: Backend): number =>
      quantile(
        times[b].map((t) => t.ms),
        0.5,
      );
    const ok = BACKENDS.every((b) => times[b].every((t) => t.status === 'success'));
    const rootfs = median('rootfs');
    const docker = median('docker');
    out.push(
      { name: `sandbox_backends.${fixture}.rootfs`, value: sec(rootfs), unit: 's' },
      { name: `sandbox_backends.${fixture}.docker`, value: sec(docker), unit: 's' },
      { name: `sandbox_backends.${fixture}.ratio`, value: round(docker / rootfs, 2), unit: 'x' },
      { name: `sandbox_backends.${fixture}.both_succeeded`, value: ok ? 1 : 0, unit: 'bool' },
    );
    if (ok) compared.push({ rootfs, docker });
  }
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  out.push(
    { name: 'sandbox_backends.compared', value: compared.length, unit: 'repos' },
    {
      name: 'sandbox_backends.total_rootfs',
      value: sec(sum(compared.map((c) => c.rootfs))),
      unit: 's',
    },
    {
      name: 'sandbox_backends.total_docker',
      value: sec(sum(compared.map((c) => c.docker))),
      unit: 's',
    },
    {
      name: 'sandbox_backends.total_ratio',
      value: compared.length
        ? round(sum(compared.map((c) => c.docker)) / sum(compared.map((c) => c.rootfs)), 2)
        : NaN,
      unit: 'x',
    },
    {
      name: 'sandbox_backends.median_ratio',
      value: round(
        quantile(
          compared.map((c) => c.docker / c.rootfs),
          0.5,
        ),
        2,
      ),
      unit: 'x',
    },
  );
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && existsSync(FIXTURES)) {
  for (const metric of await benchSandboxBackends())
    console.log(`${metric.name}\t${metric.value}\t${metric.unit}`);
}
