/**
 * R and Node deployments end to end, as deploy-python.int.test.ts does for Python: an R script whose
 * library() calls resolve to Debian's r-cran-* packages (offline), and a Node program with an npm dependency
 * (`auto`: the npm registry when the sandbox reaches it, else Debian's node-* package, said in the log).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { RegistrySettings } from '../../src/deploy/types.js';
import { DEPLOY_FIXTURES, goalOf, loadDeployFixture, targetSpecFile } from '../helpers/deploy-fixtures.js';

const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-rn-'));
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

async function deploy(name: string, registries: RegistrySettings): Promise<BuildSettings> {
  const task = await loadDeployFixture(name);
  const goal = goalOf(task, registries);
  return {
    source: path.join(DEPLOY_FIXTURES, name),
    outDir: path.join(outRoot, `${name}-${registries.mode}`),
    strategy: 'rules',
    maxTurns: 3,
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

function log0(outDir: string): string {
  return readFileSync(path.join(outDir, 'logs', 'turn-00.log'), 'utf8');
}

describe('deploying R and Node fixtures (rules strategy, rootfs sandbox)', () => {
  it('r-linear-fit: library(jsonlite) → r-cran-jsonlite, offline', async () => {
    const settings = await deploy('r-linear-fit', { mode: 'offline', mirrors: {} });
    const result = await runBuild(settings);
    expect({ status: result.status, reason: result.reason }).toMatchObject({ status: 'success' });
    expect(result.recipe?.verified).toBe(true);
    const log = log0(settings.outDir);
    expect(log).toMatch(/R package jsonlite → Debian package r-cran-jsonlite/);
    expect(log).toMatch(/R package jsonlite 1\.\d+/);
    expect(log).toMatch(/fitted 500 samples: slope=(2\.9|3\.0)/);
  }, 600_000);

  it('node-monte-carlo: seedrandom from the npm registry, or Debian node-seedrandom when it is unreachable', async () => {
    const settings = await deploy('node-monte-carlo', { mode: 'auto', mirrors: {} });
    const result = await runBuild(settings);
    expect({ status: result.status, reason: result.reason }).toMatchObject({ status: 'success' });
    expect(result.recipe?.verified).toBe(true);
    const log = log0(settings.outDir);
    // whichever way the registry answered, the log says which source the package came from
    expect(log).toMatch(/added \d+ packages?|seedrandom → Debian package node-seedrandom/);
    if (/npm registry is not reachable/.test(log)) {
      expect(log).toMatch(/seedrandom → Debian package node-seedrandom/);
    }
    expect(log).toMatch(/sampled 100000 points: pi=3\.1/);
  }, 600_000);
});
