/**
 * Finalize end to end in the rootfs sandbox: a repository that needs a package and a patch is built, the
 * patch series applies with `git am` on the original tree, the minimal recipe is replayed in a fresh
 * sandbox and verified, RUNBOOK.md says SUCCESS with its evidence, and `buildbench report` renders the same
 * runbook from the files alone. Where a Docker engine answers and the test image is present, the
 * Dockerfile is built for real and its binary run. One build, one replay, one optional image.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { run } from '../../src/cli/main.js';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { RECIPE_DIR_NAME } from '../../src/recipe/render-dockerfile.js';
import { replayRecipe } from '../../src/finalize/replay.js';
import { parseDockerfile } from '../helpers/dockerfile.js';
import { docker } from '../../src/sandbox/docker.js';
import {
  hostMountsUnder,
  rootfsUnavailableReason,
  TEST_DOCKER_IMAGE,
  dockerHere,
} from '../helpers/sandbox.js';

const FIXTURE = path.resolve('test/fixtures/finalize/pkg-and-patch');
const unavailable = await rootfsUnavailableReason();
if (unavailable) console.warn(`skipping the finalize integration tests: ${unavailable}`);
const describeRootfs = unavailable ? describe.skip : describe;

const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-finalize-'));
const outDir = path.join(outRoot, 'pkg-and-patch');
let result: BuildResult | undefined;

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

describeRootfs('finalize and report (rootfs sandbox)', () => {
  it('builds with a package and a patch, and replays the minimal recipe in a fresh sandbox', async () => {
    const settings: BuildSettings = {
      source: FIXTURE,
      outDir,
      strategy: 'rules',
      maxTurns: 6,
      timeoutMs: 10 * 60_000,
      turnTimeoutMs: 5 * 60_000,
      expect: [],
      json: false,
      keep: false,
      sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      // The repair path is what this test reads back (a package a turn's error asked for, with that reason);
      // pre-installing the declared zlib would leave no error to repair.
      preinstall: false,
    };
    result = await runBuild(settings);
    expect(result.status).toBe('success');
    expect(result.recipe).toMatchObject({
      verified: true,
      mode: 'minimal',
      fallback: false,
      baseImage: 'debian:bookworm',
      replay: { status: 'passed', metrics: { completion: true, strict: true, flexible: true }, exitCode: 0 },
    });
    expect(result.recipe!.replay.compiler).toMatch(/^cc \(Debian/);
    expect(result.patches).toHaveLength(1);
    expect(result.patches![0]).toMatchObject({
      paths: ['zinfo.c'],
      reason: expect.stringMatching(/sys\/sysctl\.h/) as unknown,
    });
    const buildSh = readFileSync(path.join(outDir, 'build.sh'), 'utf8');
    expect(buildSh).toContain('need_package zlib1g-dev');
    expect(buildSh).toContain(result.patches![0]!.file);
    expect(parseDockerfile(readFileSync(path.join(outDir, 'Dockerfile'), 'utf8')).errors).toEqual([]);
    expect(readFileSync(path.join(outDir, 'replay', 'minimal.log'), 'utf8')).toContain(
      '### buildbench: installing zlib1g-dev',
    );
    const saved = JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8')) as BuildResult;
    expect(saved.recipe).toEqual(result.recipe);
  });

  it('the patch series applies with git am on the original tree', () => {
    if (!result) throw new Error('the build did not run');
    const repo = mkdtempSync(path.join(tmpdir(), 'bb-int-am-'));
    cpSync(FIXTURE, repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'original');
    git(repo, 'am', '-q', ...result.patches!.map((p) => path.join(outDir, p.file)));
    const patched = readFileSync(path.join(repo, 'zinfo.c'), 'utf8');
    expect(patched).not.toMatch(/#\s*include\s*<sys\/sysctl\.h>/);
    expect(patched).toContain('#include <zlib.h>');
  });

  it('RUNBOOK.md says SUCCESS with its evidence, and buildbench report renders the same from the files', async () => {
    if (!result) throw new Error('the build did not run');
    const runbook = readFileSync(path.join(outDir, 'RUNBOOK.md'), 'utf8');
    expect(runbook).toContain('**Status: SUCCESS**');
    expect(runbook).toContain('The recipe is **verified**');
    expect(runbook).toMatch(/\| `zlib1g-dev` \| turn \d fixed turn \d's error: header zlib\.h is missing/);
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: () => undefined, env: {}, cwd: '/' };
    rmSync(path.join(outDir, 'RUNBOOK.md'));
    expect(await run(['report', outDir], io)).toBe(0);
    expect(readFileSync(path.join(outDir, 'RUNBOOK.md'), 'utf8')).toBe(runbook);
    expect(out.join('')).toMatch(/^SUCCESS: [\s\S]*recipe: verified/);
  });
});

const dockerReady =
  !unavailable &&
  (await dockerHere()) &&
  (await docker(['image', 'inspect', TEST_DOCKER_IMAGE], { timeoutMs: 30_000 })).exitCode === 0;
if (!dockerReady)
  console.warn(`skipping the Dockerfile build: no Docker engine answers or ${TEST_DOCKER_IMAGE} is missing`);
const describeDocker = dockerReady ? describe : describe.skip;

describeDocker('the Dockerfile builds for real', () => {
  it(
    `builds FROM ${TEST_DOCKER_IMAGE} and the image holds a working binary`,
    async () => {
      if (!result) throw new Error('the build did not run');
      const context = mkdtempSync(path.join(tmpdir(), 'bb-int-docker-'));
      cpSync(FIXTURE, context, { recursive: true });
      for (const file of ['build.sh', 'Dockerfile', 'patches']) {
        cpSync(path.join(outDir, file), path.join(context, RECIPE_DIR_NAME, file), { recursive: true });
      }
      const tag = `buildbench-finalize-test:${process.pid}`;
      try {
        const build = await docker(
          [
            'build',
            '--build-arg',
            `BASE_IMAGE=${TEST_DOCKER_IMAGE}`,
            '-f',
            path.join(context, RECIPE_DIR_NAME, 'Dockerfile'),
            '-t',
            tag,
            context,
          ],
          { timeoutMs: 8 * 60_000 },
        );
        if (build.exitCode !== 0)
          throw new Error(`docker build failed (exit ${build.exitCode}):\n${build.output.slice(-4000)}`);
        const ran = await docker(['run', '--rm', tag, './zinfo'], { timeoutMs: 60_000 });
        expect(ran.exitCode).toBe(0);
        expect(ran.output).toMatch(/built against zlib \d/);
      } finally {
        await docker(['rmi', '-f', tag], { timeoutMs: 60_000 });
        if (existsSync(context)) rmSync(context, { recursive: true, force: true });
      }
    },
    10 * 60_000,
  );
});

describeRootfs('a first turn that passed is its own replay (rootfs sandbox)', () => {
  it(
    'writes that turn’s script byte for byte as build.sh, which builds again in a fresh sandbox',
    async () => {
      const source = path.resolve('test/fixtures/repos/make-hello');
      const settings: BuildSettings = {
        source,
        outDir: path.join(outRoot, 'make-hello'),
        strategy: 'rules',
        maxTurns: 3,
        timeoutMs: 5 * 60_000,
        turnTimeoutMs: 3 * 60_000,
        expect: ['hello'],
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      };
      const built = await runBuild(settings);
      expect(built.status).toBe('success');
      expect(built.turns).toHaveLength(1);
      expect(built.recipe).toMatchObject({ verified: true, mode: 'minimal', turn: 0 });
      expect(built.recipe!.replay).toMatchObject({ status: 'passed', reusedTurn: 0, durationMs: 0 });
      expect(built.recipe!.replay.log).toBe('logs/turn-00.log');
      expect(existsSync(path.join(settings.outDir, 'replay'))).toBe(false);
      const buildSh = readFileSync(path.join(settings.outDir, 'build.sh'), 'utf8');
      const turn0 = readFileSync(path.join(settings.outDir, 'trajectory.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type?: string; data?: { action?: { script?: string } } })
        .find((e) => e.type === 'turn_start')!.data!.action!.script!;
      expect(buildSh).toContain(`cd "\${1:-.}" || exit 1\nset --\n${turn0}`);
      expect(buildSh.endsWith(turn0)).toBe(true);
      const runbook = readFileSync(path.join(settings.outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('is the script of turn 0 byte for byte');

      // The claim holds: the same file, run in a new fresh sandbox from the untouched repository, builds.
      const again = await replayRecipe({
        settings: { ...settings.sandbox, choice: 'rootfs' },
        repoDir: source,
        name: 'make-hello-again',
        buildSh,
        files: [],
        expected: { names: ['hello'], source: 'cli' },
        timeoutMs: 3 * 60_000,
      });
      expect(again).toMatchObject({ status: 'passed', artifacts: 1 });
    },
    10 * 60_000,
  );
});
