/**
 * The action end to end: the real engine builds examples/hello in the rootfs sandbox, driven through
 * INPUT_* variables, and the outputs, summary and step state are read back from the runner's files.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { run } from '../../src/action/main.js';
import type { BuildResult } from '../../src/report/result.js';
import { setUpActionEnv, type ActionEnv } from '../helpers/action.js';
import { docker } from '../../src/sandbox/docker.js';
import {
  ensureTestDockerImage,
  rootfsUnavailableReason,
  TEST_DOCKER_IMAGE,
  dockerHere,
} from '../helpers/sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const unavailable = await rootfsUnavailableReason();
const describeRootfs = unavailable ? describe.skip : describe;
const describeDocker = (await dockerHere()) ? describe : describe.skip;
if (unavailable) console.warn(`skipping the action end-to-end test: ${unavailable}`);

let env: ActionEnv | undefined;
afterEach(() => {
  env?.restore();
  env = undefined;
});

describeRootfs('the action on examples/hello (rootfs sandbox)', () => {
  it(
    'builds, verifies the recipe, sets the outputs and leaves nothing for post',
    async () => {
      env = setUpActionEnv({
        inputs: { path: 'examples/hello', sandbox: 'rootfs', 'max-turns': '3', timeout: '10m' },
        env: { GITHUB_WORKSPACE: ROOT },
      });
      await run({ handleSignals: false });

      const outputs = env.outputs();
      expect(env.errors()).toEqual([]);
      expect(outputs).toMatchObject({
        status: 'success',
        completion: 'true',
        strict: 'true',
        flexible: 'true',
      });
      const result = JSON.parse(readFileSync(outputs['result-path']!, 'utf8')) as BuildResult;
      expect(result.status).toBe('success');
      expect(result.sandbox.kind).toBe('rootfs');
      expect(outputs['verified-recipe']).toBe(String(result.recipe?.verified === true));
      expect(existsSync(path.join(outputs.artifacts!, 'build', 'hello'))).toBe(true);
      const summary = env.summary();
      expect(summary).toContain('## ✅ buildbench: SUCCESS — hello');
      // Read as a person on the run's page: the recipe and the evidence inline, no path of the runner.
      expect(summary).toMatch(
        /<details><summary>build\.sh — the recipe as a script \(\d+ lines\)<\/summary>/,
      );
      expect(summary).toContain('<details><summary>RUNBOOK.md — the evidence for SUCCESS</summary>');
      expect(summary).toContain('sandbox: rootfs (image `debian:bookworm`)');
      expect(summary).not.toContain(env.dir);
      expect(summary).not.toContain(ROOT);
      // The log: the phases before the turns in one group, turn 0 in its own with its output's tail
      // fenced off from the runner's command parser, its outcome after the group.
      const log = env.stdout.join('').split('\n');
      const group = log.findIndex((l) => /^::group::\[\d\d:\d\d\] turn 0: cmake/.test(l));
      expect(log.some((l) => /^::group::\[\d\d:\d\d\] prepare: /.test(l))).toBe(true);
      expect(group).toBeGreaterThan(-1);
      const stop = /^::stop-commands::(.+)$/.exec(log[group + 1] ?? '');
      expect(stop).not.toBeNull();
      const resume = log.indexOf(`::${stop![1]}::`);
      expect(resume).toBeGreaterThan(group + 2);
      expect(log[resume + 1]).toBe('::endgroup::');
      expect(log[resume + 2]).toMatch(/^\[\d\d:\d\d\] turn 0: exit 0 in /);
      expect(log.join('\n')).not.toContain(outputs['out-dir']!);

      // The main step disposed of its sandboxes; the post step finds nothing left.
      const workRoot = env.state().workRoot!;
      expect(existsSync(workRoot)).toBe(false);
      process.env.STATE_isPost = 'true';
      process.env.STATE_workRoot = workRoot;
      await run({ handleSignals: false });
      expect(env.stdout.join('')).toContain('the main step cleaned up after itself');
      expect(env.errors()).toEqual([]);
    },
    15 * 60_000,
  );
});

describeRootfs('the action on a repository that does not build (rootfs sandbox)', () => {
  it(
    'fails the step once, annotates the line, and tells a person why in the summary',
    async () => {
      env = setUpActionEnv({
        inputs: { path: 'test/fixtures/repos/broken-c', sandbox: 'rootfs', 'max-turns': '2' },
        env: { GITHUB_WORKSPACE: ROOT },
      });
      await run({ handleSignals: false });
      expect(env.commands('error::')).toEqual([
        expect.stringMatching(/^::error::buildbench: FAILED: /) as unknown as string,
      ]);
      expect(env.outputs()).toMatchObject({ status: 'failed', completion: 'false' });
      expect(env.stdout.join('')).toMatch(
        /::error title=buildbench%3A compile-error \(turn 0\),file=test\/fixtures\/repos\/broken-c\/broken\.c,line=3,col=\d+::/,
      );
      const summary = env.summary();
      expect(summary).toContain('## ❌ buildbench: FAILED — broken-c');
      expect(summary).toMatch(/### Root cause \(turn 0, compile-error\)/);
      expect(summary).toContain('<details><summary>RUNBOOK.md — the evidence for FAILED</summary>');
      expect(summary).not.toContain(ROOT);
      expect(summary).not.toContain(env.dir);
    },
    10 * 60_000,
  );
});

describeDocker('the post step with a real docker engine', () => {
  it(
    'removes the container a killed main step left, found by its buildbench.sandbox label',
    async () => {
      await ensureTestDockerImage();
      env = setUpActionEnv();
      const id = `hello-${Date.now().toString(16)}`;
      const workRoot = path.join(env.runnerTemp, 'buildbench-work-killed');
      mkdirSync(path.join(workRoot, id, 'workspace'), { recursive: true });
      const started = await docker([
        'run',
        '-d',
        '--label',
        `buildbench.sandbox=${id}`,
        TEST_DOCKER_IMAGE,
        'sleep',
        'infinity',
      ]);
      expect(started.exitCode).toBe(0);
      const listed = () =>
        docker(['ps', '-aq', '--filter', `label=buildbench.sandbox=${id}`]).then((r) => r.output.trim());
      expect(await listed()).not.toBe('');

      process.env.STATE_isPost = 'true';
      process.env.STATE_workRoot = workRoot;
      await run({ handleSignals: false });
      expect(await listed()).toBe('');
      expect(existsSync(workRoot)).toBe(false);
      expect(env.errors()).toEqual([]);
    },
    10 * 60_000,
  );
});
