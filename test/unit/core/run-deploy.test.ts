/**
 * A deploy task becomes the engine's goal the same way for `buildbench deploy`, the bench and the Action's
 * task mode (taskBuildSettings → deployGoalOf), registries and mirrors come from the flag and the
 * environment, and the deploy fixtures load and run as a suite through the bench engine.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { loadTasks } from '../../../src/bench/load.js';
import type { DeployTask } from '../../../src/bench/types.js';
import {
  DEFAULT_TARGET_TIMEOUT_MS,
  deployGoalOf,
  mirrorsFrom,
  registrySettingsFrom,
} from '../../../src/core/deploy-goal.js';
import { deployInstalls } from '../../../src/core/result.js';
import { buildEngine, taskBuildSettings, type SharedBuildSettings } from '../../../src/core/run-bench.js';
import { deployBuildSettings, loadDeployTask } from '../../../src/core/run-deploy.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../../src/core/settings.js';
import type { TurnRecord } from '../../../src/agent/types.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-run-deploy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const shared: SharedBuildSettings = {
  strategy: 'rules',
  maxTurns: 10,
  timeoutMs: 3_600_000,
  turnTimeoutMs: 1_800_000,
  sandbox: sandboxSettingsFrom({}, 'rootfs', undefined),
  secretEnv: [],
};

const task: DeployTask = {
  id: 'd',
  kind: 'deploy',
  repository: { source: '/src/d' },
  requires: ['gpu'],
  budgets: {},
  notes: [],
  file: '/tasks/d.yml',
  paper: { title: 'A paper', url: 'https://example.org/p' },
  target: {
    command: 'python3 run.py',
    cwd: 'exp',
    timeout: '90s',
    evidence: { files: ['out.json'], metrics: [{ file: 'out.json', key: 'acc', min: 0.5 }] },
  },
  verifier: { spec: '/tasks/d.spec.yml', hidden: true },
};

describe('deployGoalOf', () => {
  it('makes the task’s target, requirements, paper and registries the goal', () => {
    const registries = { mode: 'offline' as const, mirrors: { PIP_INDEX_URL: 'http://mirror/simple' } };
    const goal = deployGoalOf(task, registries);
    expect(goal).toEqual({
      target: {
        command: 'python3 run.py',
        cwd: 'exp',
        timeoutMs: 90_000,
        evidence: { files: ['out.json'], metrics: [{ file: 'out.json', key: 'acc', min: 0.5 }] },
      },
      requires: ['gpu'],
      registries,
      paper: { title: 'A paper', url: 'https://example.org/p' },
      taskFile: '/tasks/d.yml',
    });
    // The goal holds copies: a setup that changes it cannot change the task or the settings.
    expect(goal.target.evidence).not.toBe(task.target.evidence);
    expect(goal.registries.mirrors).not.toBe(registries.mirrors);
    // Never the hidden verifier.
    expect(JSON.stringify(goal)).not.toContain('d.spec.yml');
  });

  it('runs from the root with the default time limit when the task names neither', () => {
    const goal = deployGoalOf(
      { ...task, target: { command: 'make run', evidence: {} } },
      { mode: 'auto', mirrors: {} },
    );
    expect(goal.target).toMatchObject({ cwd: '', timeoutMs: DEFAULT_TARGET_TIMEOUT_MS });
  });
});

describe('registries and mirrors', () => {
  it('takes the documented mirror variables of the environment, and nothing else', () => {
    const { mirrors, notes } = mirrorsFrom({
      PIP_INDEX_URL: 'https://pypi.mirror.local/simple',
      GOPROXY: 'https://goproxy.local,direct',
      npm_config_registry: 'https://npm.local/',
      CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
      MAVEN_MIRROR_URL: 'https://maven.local/central',
      HOME: '/root',
      OPENAI_API_KEY: 'sk-secret',
      UV_INDEX_URL: '',
    });
    expect(mirrors).toEqual({
      CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
      GOPROXY: 'https://goproxy.local,direct',
      MAVEN_MIRROR_URL: 'https://maven.local/central',
      PIP_INDEX_URL: 'https://pypi.mirror.local/simple',
      npm_config_registry: 'https://npm.local/',
    });
    expect(notes).toEqual([]);
  });

  it('leaves out a mirror that carries credentials, saying why', () => {
    const { mirrors, notes } = mirrorsFrom({ PIP_INDEX_URL: 'https://user:t0ken@pypi.corp/simple' });
    expect(mirrors).toEqual({});
    expect(notes).toEqual([
      'PIP_INDEX_URL is not passed to the sandbox: it carries credentials (user:password@), and secrets never enter a sandbox',
    ]);
  });

  it('reads --registries (default auto) and names the flag of a bad value', () => {
    expect(registrySettingsFrom(undefined, {}).registries).toEqual({ mode: 'auto', mirrors: {} });
    expect(registrySettingsFrom('offline', { GOPROXY: 'off' }).registries).toEqual({
      mode: 'offline',
      mirrors: { GOPROXY: 'off' },
    });
    expect(() => registrySettingsFrom('airgapped', {})).toThrow(
      "--registries: 'airgapped' is not valid; expected one of auto, online, offline",
    );
  });
});

describe('one task format, one function', () => {
  it('taskBuildSettings makes a deploy task a deploy run (bench, the Action’s task mode, buildbench deploy)', () => {
    const s = taskBuildSettings(task, { ...shared, registries: { mode: 'online', mirrors: {} } }, '/o', '/r');
    expect(s.deploy).toMatchObject({ target: { command: 'python3 run.py' }, registries: { mode: 'online' } });
    expect(s.spec).toBe('/tasks/d.spec.yml');
    expect(s).not.toHaveProperty('registries');
    // Without registries in the shared settings: auto, no mirrors.
    expect(taskBuildSettings(task, shared, '/o', '/r').deploy?.registries).toEqual({
      mode: 'auto',
      mirrors: {},
    });
    const d = deployBuildSettings(task, {
      ...shared,
      source: '/my/checkout',
      taskFile: '/tasks/d.yml',
      outDir: '/my/out',
      json: true,
      keep: true,
      registries: { mode: 'offline', mirrors: {} },
    });
    expect(d).toMatchObject({
      source: '/my/checkout',
      outDir: '/my/out',
      json: true,
      keep: true,
      expect: [],
    });
    expect(d.deploy?.registries.mode).toBe('offline');
  });

  it('the bench engine runs every task of tasks/deploy-fixtures as a deploy', async () => {
    const tasks = await loadTasks(['tasks/deploy-fixtures']);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    const seen: BuildSettings[] = [];
    const engine = buildEngine(shared, (settings) => {
      seen.push(settings);
      return Promise.resolve({ status: 'success' });
    });
    for (const t of tasks) {
      expect(t.kind).toBe('deploy');
      await engine({
        task: t,
        run: 1,
        runDir: path.join(root, t.id),
        repoDir: '/r',
        signal: new AbortController().signal,
      });
    }
    expect(seen.map((s) => s.deploy?.target.command)).toEqual(
      tasks.map((t) => (t.kind === 'deploy' ? t.target.command : undefined)),
    );
    expect(seen.every((s) => s.spec?.endsWith('.spec.yml'))).toBe(true);
  });
});

describe('loadDeployTask', () => {
  it('loads a deploy task and refuses a build task, a missing file and a bad field with the file named', async () => {
    const sort = await loadDeployTask('tasks/examples/sort-benchmark.yml');
    expect(sort.target.command).toBe('make && ./sortbench 200000');
    await expect(loadDeployTask('tasks/fixtures/make-hello.yml')).rejects.toThrow(
      'tasks/fixtures/make-hello.yml: kind: build — buildbench deploy takes a deploy task (kind: deploy, with target and verifier)',
    );
    await expect(loadDeployTask(path.join(root, 'none.yml'))).rejects.toThrow(
      /none\.yml:1: cannot read the file/,
    );
    const bad = path.join(root, 'bad.yml');
    writeFileSync(
      bad,
      'kind: deploy\nrepository: /tmp\ntarget: { command: x, timeout: soon, evidence: {} }\nverifier: { spec: s.yml }\n',
    );
    await expect(loadDeployTask(bad)).rejects.toThrow(/bad\.yml:3: target\.timeout/);
  });
});

describe('deployInstalls', () => {
  const run = (turn: number, recipe: object, reason = 'r', purpose = 'setup'): TurnRecord =>
    ({
      turn,
      action: { kind: 'run', script: 's', purpose, reason, recipe },
      observation: { exec: { exitCode: 0, timedOut: false } },
      notes: [],
    }) as unknown as TurnRecord;
  const recipe = (
    packages: string[],
    steps: { purpose: string; command: string }[],
    env: Record<string, string> = {},
  ) => ({
    tools: [{ command: 'python3', pkg: 'python3' }],
    packages,
    prelude: [],
    edits: [],
    env,
    steps,
  });

  it('lists repair packages with their reason, tools and setup steps once, up to the turn that passed', () => {
    const history = [
      run(
        0,
        recipe([], [{ purpose: 'dependencies', command: 'pip install -r requirements.txt' }]),
        'requirements.txt found',
        'python: venv',
      ),
      run(
        1,
        recipe(
          ['libhdf5-dev'],
          [
            { purpose: 'dependencies', command: 'pip install -r requirements.txt' },
            { purpose: 'build', command: 'make' },
          ],
        ),
        'h5py needs hdf5.h',
      ),
      run(2, recipe(['later'], [])),
    ];
    expect(deployInstalls(history, 1)).toEqual([
      { kind: 'tool', what: 'python3', why: 'provides python3, which the setup runs', turn: 0 },
      {
        kind: 'step',
        what: 'pip install -r requirements.txt',
        why: 'python: venv: requirements.txt found',
        turn: 0,
      },
      { kind: 'package', what: 'libhdf5-dev', why: 'h5py needs hdf5.h', turn: 1 },
    ]);
    expect(deployInstalls(history).map((i) => i.what)).toContain('later');
  });

  it('says why a package installed up front was: the declarations it answers (the target runs bc)', () => {
    const first = run(0, recipe(['bc'], []), 'no manifest of a known ecosystem was found');
    (first.action as { preinstall?: unknown }).preinstall = {
      packages: [{ package: 'bc', declarations: ['series.sh:6: sum=$(printf … | bc)'] }],
      skipped: [],
      lookupMs: 1,
    };
    expect(deployInstalls([first])).toContainEqual({
      kind: 'package',
      what: 'bc',
      why: 'installed up front: series.sh:6: sum=$(printf … | bc)',
      turn: 0,
    });
  });

  it("lists a repair's variable with its reason once, from the turn that first exported it", () => {
    const node = { NODE_OPTIONS: '--openssl-legacy-provider' };
    const history = [
      run(0, recipe([], [])),
      run(1, recipe([], [], node), 'MD4 needs the legacy provider'),
      run(2, recipe([], [], node), 'another repair'),
    ];
    expect(deployInstalls(history).filter((i) => i.kind === 'env')).toEqual([
      {
        kind: 'env',
        what: 'NODE_OPTIONS=--openssl-legacy-provider',
        why: 'MD4 needs the legacy provider',
        turn: 1,
      },
    ]);
  });
});
