/**
 * Declared dependencies installed before turn 0, for real in the rootfs sandbox: a meson project that needs
 * four `-dev` packages the toolchain layer lacks (test/fixtures/repos/meson-four-deps) builds in ONE turn,
 * the four resolved in one look-up, each recorded in result.json with the declaration it came from; the
 * optional dependency is not installed. Without it the repair loop finds them one turn each (measured
 * 2026-12-01 on the 2-core dev machine: 5 turns, 84 s wall with `--no-preinstall`; 1 turn, 51 s with it).
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom } from '../../src/core/settings.js';

const FIXTURE = path.resolve('test/fixtures/repos/meson-four-deps');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-preinstall-'));

describe('declared dependencies are installed before the first turn (rootfs sandbox)', () => {
  it(
    'builds a meson project that needs four missing -dev packages in one turn',
    async () => {
      const result = await runBuild({
        source: FIXTURE,
        outDir: path.join(outRoot, 'after'),
        strategy: 'rules',
        maxTurns: 6,
        timeoutMs: 5 * 60_000,
        turnTimeoutMs: 3 * 60_000,
        expect: ['fourdeps'],
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      });
      expect(result.status).toBe('success');
      expect(result.turns).toHaveLength(1);
      expect(result.preinstalled?.packages).toEqual([
        { package: 'zlib1g-dev', declarations: ["meson.build:4: dependency('zlib')"] },
        { package: 'libpng-dev', declarations: ["meson.build:5: dependency('libpng')"] },
        { package: 'libjansson-dev', declarations: ["meson.build:6: dependency('jansson')"] },
        { package: 'libyaml-dev', declarations: ["meson.build:7: dependency('yaml-0.1')"] },
      ]);
      expect(result.preinstalled?.skipped.map((s) => s.declaration)).toEqual([
        "meson.build:9: dependency('liblzma', required: false)",
      ]);
      expect(result.recipe?.verified).toBe(true);
    },
    8 * 60_000,
  );

  it(
    'builds a Makefile that includes <Eigen/Core> in one turn: the package and its include root from the first script',
    async () => {
      const result = await runBuild({
        source: path.resolve('test/fixtures/repos/header-in-subdir'),
        outDir: path.join(outRoot, 'eigen'),
        strategy: 'rules',
        maxTurns: 6,
        timeoutMs: 5 * 60_000,
        turnTimeoutMs: 3 * 60_000,
        expect: ['norm'],
        json: false,
        keep: false,
        sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
      });
      expect(result.status).toBe('success');
      expect(result.turns).toHaveLength(1);
      expect(result.preinstalled?.packages.map((p) => p.package)).toEqual(['libeigen3-dev']);
      expect(result.preinstalled?.includeDirs).toEqual([
        { dir: '/usr/include/eigen3', declarations: ['norm.cpp:1: #include <Eigen/Core>'] },
      ]);
      const buildSh = readFileSync(path.join(outRoot, 'eigen', 'build.sh'), 'utf8');
      expect(buildSh).toContain('export CPATH=/usr/include/eigen3');
      expect(readFileSync(path.join(outRoot, 'eigen', 'RUNBOOK.md'), 'utf8')).toContain(
        '`/usr/include/eigen3` for norm.cpp:1: #include <Eigen/Core>',
      );
    },
    8 * 60_000,
  );
});
