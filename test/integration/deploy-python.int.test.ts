/**
 * Python deployments end to end: each fixture "paper" (tasks/deploy-fixtures/) deployed by `runBuild` with
 * the rules strategy in the rootfs sandbox, offline (PyPI is not reachable here: the dependencies resolve
 * through Debian's python3-* packages), judged by a visible spec made from the task's target, and its
 * recipe replayed in a fresh sandbox. One fixture needs the documented NumPy migration (np.float).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { RegistrySettings } from '../../src/deploy/types.js';
import { DEPLOY_FIXTURES, goalOf, loadDeployFixture, targetSpecFile } from '../helpers/deploy-fixtures.js';

const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-py-'));
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

const OFFLINE: RegistrySettings = { mode: 'offline', mirrors: {} };

async function deploy(name: string, registries: RegistrySettings): Promise<BuildSettings> {
  const task = await loadDeployFixture(name);
  const goal = goalOf(task, registries);
  return {
    source: path.join(DEPLOY_FIXTURES, name),
    outDir: path.join(outRoot, `${name}-${registries.mode}`),
    strategy: 'rules',
    maxTurns: 4,
    timeoutMs: 8 * 60_000,
    turnTimeoutMs: 4 * 60_000,
    expect: [],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
    spec: targetSpecFile(goal),
    deploy: goal,
  };
}

function turnLog(outDir: string, turn: number): string {
  return readFileSync(path.join(outDir, 'logs', `turn-${String(turn).padStart(2, '0')}.log`), 'utf8');
}

describe('deploying Python fixtures (rules strategy, rootfs sandbox)', () => {
  it('py-offline-stats: requirements (with an include and a marker) from Debian packages, offline', async () => {
    const settings = await deploy('py-offline-stats', OFFLINE);
    const result = await runBuild(settings);
    expect({ status: result.status, reason: result.reason }).toMatchObject({ status: 'success' });
    expect(result.turns).toHaveLength(1);
    expect(result.recipe?.verified).toBe(true);
    const log = turnLog(settings.outDir, 0);
    expect(log).toMatch(/numpy → Debian package python3-numpy/);
    expect(log).toMatch(/PyYAML → Debian package python3-yaml/);
    expect(log).toMatch(/buildbench: numpy 1\.\d+\.\d+ \(satisfies >=1\.20,<2\)/);
    expect(log).not.toMatch(/pytest →/); // its marker (python_version < "3.6") does not hold
    expect(log).toMatch(/fitted 5000 samples: slope=2\.0/);
  }, 600_000);

  it('py-removed-numpy-alias: the np.float alias NumPy 1.24 removed is migrated as a patch before turn 0', async () => {
    const settings = await deploy('py-removed-numpy-alias', OFFLINE);
    const result = await runBuild(settings);
    expect({ status: result.status, reason: result.reason }).toMatchObject({ status: 'success' });
    expect(result.recipe?.verified).toBe(true);
    // The sources and the migrations table are both there before turn 0 (issue 32): one turn, not two.
    expect(result.turns.map((t) => t.purpose)).toEqual([
      expect.stringMatching(/^python venv \+ Debian packages$/),
    ]);
    expect(result.turns[0]?.reason).toMatch(
      /before the first script, migrate-removed-python-api: NumPy 1\.24 removed .*\(smooth\.py:\d+: .*np\.float/,
    );
    expect(turnLog(settings.outDir, 0)).toMatch(
      /numpy 1\.\d+\.\d+ \(the manifest asks <1\.20: NOT satisfied\)/,
    );
    const patch = result.patches?.find((p) => p.paths.includes('smooth.py'));
    expect(patch?.reason).toMatch(/NumPy 1\.24 removed the aliases.*numpy\.org/);
    const diff = readFileSync(path.join(settings.outDir, patch?.file ?? 'missing'), 'utf8');
    expect(diff).toMatch(/^-\s+kernel = np\.ones\(width, dtype=np\.float\) \/ width$/m);
    expect(diff).toMatch(/^\+\s+kernel = np\.ones\(width, dtype=float\) \/ width$/m);
    expect(diff).toMatch(/^\+\s+n = int\(sys\.argv\[1\]\)/m);
  }, 600_000);
});
