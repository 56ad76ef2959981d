import { DEFAULT_PIDS_LIMIT, defaultMemoryLimit } from '../../../src/sandbox/isolation.js';
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ConfigError, errorMessage } from '../../../src/base/errors.js';
import { readActionSettings, toBuildSettings, type InputName } from '../../../src/action/settings.js';

function workspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-action-settings-'));
  mkdirSync(path.join(dir, 'repo'));
  writeFileSync(path.join(dir, 'file.txt'), 'x');
  writeFileSync(path.join(dir, 'verify.yml'), 'checks: []\n');
  return dir;
}

function read(inputs: Partial<Record<InputName, string>>, env: NodeJS.ProcessEnv = {}) {
  const ws = env.GITHUB_WORKSPACE ?? workspace();
  return readActionSettings((name) => inputs[name] ?? '', {
    RUNNER_TEMP: '/runner/temp',
    ...env,
    GITHUB_WORKSPACE: ws,
  });
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('action settings', () => {
  it('applies the defaults when no input is set', () => {
    const ws = workspace();
    const s = read({}, { GITHUB_WORKSPACE: ws });
    expect(s).toEqual({
      mode: 'build',
      source: ws,
      sourceInWorkspace: '',
      strategy: 'rules',
      sandbox: 'auto',
      maxTurns: 10,
      timeoutMs: 3_600_000,
      turnTimeoutMs: 1_800_000,
      idleTimeoutMs: 600_000,
      expect: [],
      openPullRequest: false,
      pullRequestPartial: false,
      pullRequestTarget: 'head',
      token: '',
      allowForkCode: false,
      cache: true,
      cacheMaxBytes: 2 * 1024 ** 3,
      secretEnv: [],
      maxLogBytes: 20 * 1024 * 1024,
      limits: { memoryBytes: defaultMemoryLimit(), pids: DEFAULT_PIDS_LIMIT },
      outDir: path.join('/runner/temp', 'buildbench-out', path.basename(ws)),
      failOn: 'partial',
      progressIntervalMs: 15_000,
      // The benchmark modes' inputs (src/action/modes/inputs.ts; test/unit/action/modes.test.ts).
      bench: {
        run: 1,
        tasks: [],
        runs: 1,
        chunkSize: 256,
        labels: { gpu: ['self-hosted', 'gpu'], kvm: ['self-hosted', 'kvm'] },
        defaultRunner: ['ubuntu-latest'],
        benchDir: path.join('/runner/temp', 'buildbench-bench'),
        leaderboardDir: path.join('/runner/temp', 'buildbench-leaderboard'),
      },
    });
  });

  it('reads pull-request-target and cache-max-size, naming the input when one is wrong', () => {
    const ws = workspace();
    const s = read({ 'pull-request-target': 'comment', 'cache-max-size': '500M' }, { GITHUB_WORKSPACE: ws });
    expect(s.pullRequestTarget).toBe('comment');
    expect(s.cacheMaxBytes).toBe(500 * 1024 ** 2);
    expect(() => read({ 'pull-request-target': 'base' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input pull-request-target: 'base'.*head, default, comment/,
    );
    expect(() => read({ 'cache-max-size': 'lots' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input cache-max-size: 'lots' is not a size/,
    );
  });

  it('reads network, memory and pids into the sandbox settings, naming the input when one is wrong', () => {
    const ws = workspace();
    const s = read({ network: 'none', memory: '2G', pids: 'off' }, { GITHUB_WORKSPACE: ws });
    expect(s.limits).toEqual({ network: 'none', memoryBytes: 2 * 1024 ** 3 });
    const b = toBuildSettings(s, { HOME: '/home/runner' }, '/runner/temp/w');
    expect(b.sandbox.network).toBe('none');
    expect(b.sandbox.memoryBytes).toBe(2 * 1024 ** 3);
    expect(b.sandbox).not.toHaveProperty('pids');
    expect(() => read({ network: 'bridge' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input network: 'bridge'.*isolated, host, none/,
    );
    expect(() => read({ memory: '10M' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input memory: '10M' is too small/,
    );
    expect(() => read({ pids: '-3' }, { GITHUB_WORKSPACE: ws })).toThrow(/input pids: '-3'/);
  });

  it('reads secret-env (and BUILDBENCH_SECRET_ENV) and max-log-size into the engine settings', () => {
    const ws = workspace();
    const s = read(
      { 'secret-env': 'DATABASE_URL, DEPLOY_KEY\nOTHER', 'max-log-size': '512K' },
      { GITHUB_WORKSPACE: ws, BUILDBENCH_SECRET_ENV: 'FROM_ENV' },
    );
    expect(s.secretEnv).toEqual(['FROM_ENV', 'DATABASE_URL', 'DEPLOY_KEY', 'OTHER']);
    expect(s.maxLogBytes).toBe(512 * 1024);
    const b = toBuildSettings(s, { HOME: '/home/runner' }, '/runner/temp/w');
    expect(b).toMatchObject({ secretEnv: s.secretEnv, maxLogBytes: 512 * 1024 });
    expect(() => read({ 'secret-env': 'NOT-A-NAME' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input secret-env: 'NOT-A-NAME' is not a variable name/,
    );
    expect(() => read({ 'max-log-size': '1K' }, { GITHUB_WORKSPACE: ws })).toThrow(
      /input max-log-size: '1K' is not a size of at least 4K/,
    );
  });

  it('defaults the sandbox to docker on GitHub-hosted runners and auto elsewhere', () => {
    expect(read({}, { RUNNER_ENVIRONMENT: 'github-hosted' }).sandbox).toBe('docker');
    expect(read({}, { RUNNER_ENVIRONMENT: 'self-hosted' }).sandbox).toBe('auto');
    expect(read({ sandbox: 'rootfs' }, { RUNNER_ENVIRONMENT: 'github-hosted' }).sandbox).toBe('rootfs');
  });

  it('reads every input into one typed object', () => {
    const ws = workspace();
    const s = read(
      {
        mode: 'build',
        path: 'repo',
        strategy: 'baseline',
        model: 'openai:gpt-4o-mini',
        'api-key': 'sk-test-0123456789abcdef0123',
        'base-url': 'http://localhost:8000/v1',
        sandbox: 'docker',
        image: 'debian:bookworm',
        'max-turns': '5',
        timeout: '20m',
        'turn-timeout': '1h',
        'max-tokens': '200000',
        'max-cost': '2.50',
        expect: 'hello, libgreeting.a',
        verifier: 'verify.yml',
        'open-pull-request': 'true',
        'pull-request-partial': 'True',
        token: 'ghs_abc',
        'comment-id': '12345',
        'allow-fork-code': 'FALSE',
        cache: 'false',
      },
      { GITHUB_WORKSPACE: ws },
    );
    expect(s).toMatchObject({
      source: path.join(ws, 'repo'),
      sourceInWorkspace: 'repo',
      strategy: 'baseline',
      model: {
        model: 'openai:gpt-4o-mini',
        apiKey: 'sk-test-0123456789abcdef0123',
        baseUrl: 'http://localhost:8000/v1',
        maxTokens: 200000,
        maxCostUsd: 2.5,
      },
      sandbox: 'docker',
      image: 'debian:bookworm',
      maxTurns: 5,
      timeoutMs: 1_200_000,
      // The turn cap never exceeds the whole budget.
      turnTimeoutMs: 1_200_000,
      expect: ['hello', 'libgreeting.a'],
      verifier: path.join(ws, 'verify.yml'),
      openPullRequest: true,
      pullRequestPartial: true,
      token: 'ghs_abc',
      commentId: 12345,
      allowForkCode: false,
      cache: false,
    });
  });

  it('keeps a git URL as the source', () => {
    const s = read({ path: 'https://github.com/octo/hello.git' });
    expect(s.source).toBe('https://github.com/octo/hello.git');
    expect(s.sourceInWorkspace).toBeUndefined();
    expect(s.outDir).toBe(path.join('/runner/temp', 'buildbench-out', 'hello'));
  });

  it.each([
    [{ mode: 'deploy' }, "input mode: 'deploy' is not valid; expected one of build, task, matrix, aggregate"],
    [{ strategy: 'magic' }, "input strategy: 'magic' is not valid; expected one of"],
    [{ sandbox: 'vm' }, "input sandbox: 'vm' is not valid; expected one of auto, rootfs, docker, host"],
    [{ 'max-turns': 'ten' }, "input max-turns: 'ten' is not valid; expected a whole number from 1 to 100"],
    [{ 'max-turns': '0' }, 'input max-turns'],
    [
      { timeout: 'soon' },
      "input timeout: 'soon' is not a duration; expected seconds or a value like 90s, 20m, 1h",
    ],
    [{ 'turn-timeout': '-5' }, 'input turn-timeout'],
    [{ model: 'openai:m', 'max-tokens': '1e6' }, "input max-tokens: '1e6' is not valid"],
    [
      { model: 'openai:m', 'max-cost': 'free' },
      "input max-cost: 'free' is not valid; expected a positive amount",
    ],
    [
      { model: 'openai:m', 'base-url': 'localhost:8000' },
      "input base-url: 'localhost:8000' is not an http(s) URL",
    ],
    [
      { model: 'gpt-4o' },
      "input model: 'gpt-4o' is not valid (expected provider:model with provider openai or anthropic",
    ],
    [{ strategy: 'llm' }, "input strategy: 'llm' needs a model"],
    [{ 'api-key': 'sk-x' }, 'input api-key is set but input model is empty'],
    [{ expect: ' , ' }, "input expect: ',' names no file"],
    [
      { 'open-pull-request': 'yes' },
      "input open-pull-request: 'yes' is not a boolean; expected true or false",
    ],
    [{ 'allow-fork-code': '1' }, "input allow-fork-code: '1' is not a boolean"],
    [{ cache: 'on' }, "input cache: 'on' is not a boolean; expected true or false"],
    [{ 'comment-id': 'abc', token: 't' }, "input comment-id: 'abc' is not valid"],
    [{ 'open-pull-request': 'true' }, 'input open-pull-request is true but input token is empty'],
    [{ 'comment-id': '5' }, 'input comment-id is set but input token is empty'],
    [{ path: 'missing' }, "input path: 'missing' does not exist"],
    [{ path: 'file.txt' }, "input path: 'file.txt' is not a directory"],
    [{ verifier: 'nope.yml' }, "input verifier: 'nope.yml' does not exist"],
    [{ verifier: 'repo' }, "input verifier: 'repo' is not a file"],
  ] as [Partial<Record<InputName, string>>, string][])('rejects %j naming the input', (inputs, message) => {
    // What the step's one error line says: the message and its hint.
    expect(errorMessage(errorOf(() => read(inputs)))).toContain(message);
  });

  it('rejects model inputs without a model, as the CLI does', () => {
    expect(errorOf(() => read({ 'max-cost': '0' })).message).toBe(
      'input max-cost is set but input model is empty',
    );
  });

  it('defaults the strategy to hybrid when a model is named', () => {
    expect(read({ model: 'anthropic:claude-sonnet-4-5' }).strategy).toBe('hybrid');
    expect(read({ model: 'anthropic:claude-sonnet-4-5', strategy: 'rules' }).strategy).toBe('rules');
  });

  it('converts to the engine settings with the step work folder; the key goes to the engine, not the sandbox', () => {
    const ws = workspace();
    const s = read(
      {
        path: 'repo',
        sandbox: 'rootfs',
        'api-key': 'sk-secret-value-0123456789',
        model: 'openai:m',
        verifier: 'verify.yml',
      },
      { GITHUB_WORKSPACE: ws },
    );
    const b = toBuildSettings(s, { HOME: '/home/runner' }, '/runner/temp/buildbench-work-x');
    expect(b).toMatchObject({
      source: path.join(ws, 'repo'),
      strategy: 'hybrid',
      maxTurns: 10,
      json: false,
      keep: false,
      sandbox: {
        choice: 'rootfs',
        workRoot: '/runner/temp/buildbench-work-x',
        cacheDir: '/home/runner/.cache/buildbench',
      },
      model: { model: 'openai:m', apiKey: 'sk-secret-value-0123456789' },
      spec: path.join(ws, 'verify.yml'),
    });
    expect(JSON.stringify(b.sandbox)).not.toContain('sk-secret-value');
  });
});
