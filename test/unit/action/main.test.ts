import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { ACTION_DOOR } from '../../../src/core/settings.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nock from '../../helpers/nock.js';

import { EARLY_NOTE, run, type ActionDeps } from '../../../src/action/main.js';
import type { PostDeps } from '../../../src/action/post.js';
import { createGitHubClient } from '../../../src/github/client.js';
import { ConfigError } from '../../../src/base/errors.js';
import type { BuildResult } from '../../../src/report/result.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import { failedResult, fakeEngine, fakeResult } from '../../fakes/build-result.js';
import { setUpActionEnv, type ActionEnv } from '../../helpers/action.js';

const API = 'https://api.github.com';

let env: ActionEnv | undefined;
// nock patches process-wide modules: undo it so the next test file starts clean.
afterAll(() => nock.restore());
afterEach(() => {
  env?.restore();
  env = undefined;
  nock.cleanAll();
  nock.enableNetConnect();
});

function deps(engine: ActionDeps['runBuild'], extra: Partial<ActionDeps> = {}): Partial<ActionDeps> {
  return {
    runBuild: engine,
    createGitHub: (token) =>
      createGitHubClient({ token, baseUrl: API, retries: 0, throttle: false, fetch: globalThis.fetch }),
    handleSignals: false,
    ...extra,
  };
}

function repoIn(workspace: string): string {
  const repo = path.join(workspace, 'hello');
  mkdirSync(path.join(repo, 'src'), { recursive: true });
  writeFileSync(path.join(repo, 'CMakeLists.txt'), 'add_executable(hello src/main.c)\n');
  writeFileSync(path.join(repo, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  return repo;
}

describe('the action (main step)', () => {
  it('runs the engine once, sets every output and writes the job summary', async () => {
    env = setUpActionEnv({
      inputs: {
        path: 'hello',
        sandbox: 'rootfs',
        'max-turns': '3',
        model: 'openai:gpt-test',
        'api-key': 'sk-test-secret-0123456789abcdef',
      },
    });
    repoIn(env.workspace);
    const fake = fakeEngine(fakeResult());
    await run(deps(fake.engine));

    expect(fake.calls).toHaveLength(1);
    const settings = fake.calls[0]!;
    expect(settings).toMatchObject({
      source: path.join(env.workspace, 'hello'),
      maxTurns: 3,
      sandbox: { choice: 'rootfs' },
    });
    expect(settings.sandbox.workRoot.startsWith(path.join(env.runnerTemp, 'buildbench-work-'))).toBe(true);
    // The key goes to the engine's model session (kept in this process), never into the sandbox settings.
    expect(settings.model).toEqual({
      model: 'openai:gpt-test',
      apiKey: 'sk-test-secret-0123456789abcdef',
      apiKeySource: 'input api-key',
      names: ACTION_DOOR.modelNames,
    });
    expect(JSON.stringify(settings.sandbox)).not.toContain('sk-test-secret');

    const outDir = path.join(env.runnerTemp, 'buildbench-out', 'hello');
    expect(env.outputs()).toEqual({
      status: 'success',
      completion: 'true',
      strict: 'true',
      flexible: 'true',
      'verified-recipe': 'true',
      'runbook-path': path.join(outDir, 'RUNBOOK.md'),
      'result-path': path.join(outDir, 'result.json'),
      'out-dir': outDir,
      artifacts: path.join(outDir, 'artifacts'),
      'pull-request-url': '',
      'pull-request-operation': 'none',
    });
    const summary = env.summary();
    expect(summary).toContain('## ✅ buildbench: SUCCESS — hello');
    expect(summary).toContain('| `build/hello` | executable | 16000 |');
    expect(summary).toContain('recipe: **verified**');
    expect(summary).toContain('patch `patches/0001-fix-include.patch`: Include &lt;stdint.h&gt;');
    // Nothing in it points at the runner's disk: the output folder is named by its files and linked
    // through the run's artifacts.
    expect(summary).not.toContain(env.dir);
    expect(summary).toContain('(https://github.com/octo/hello/actions/runs/77#artifacts)');
    expect(env.commands('add-mask')).toContain('::add-mask::sk-test-secret-0123456789abcdef');
    expect(env.errors()).toEqual([]);
    expect(process.exitCode).not.toBe(1);
    // main records that post comes next and where its sandboxes lived (removed, since it was empty).
    expect(env.state().isPost).toBe('true');
    expect(env.state().workRoot).toBe(settings.sandbox.workRoot);
    expect(existsSync(settings.sandbox.workRoot)).toBe(false);
  });

  it('fails a failed build with one message and annotates the root cause at file:line', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    const fake = fakeEngine(failedResult());
    await run(deps(fake.engine));

    expect(process.exitCode).toBe(1);
    const lines = env.stdout.join('').split('\n');
    expect(lines.filter((l) => l.startsWith('::error::'))).toEqual([
      '::error::buildbench: FAILED: missing header foo.h (no package provides it)',
    ]);
    expect(lines).toContain(
      '::error title=buildbench%3A missing-dependency (turn 1),file=hello/src/main.c,line=7,col=10::missing header foo.h',
    );
    expect(env.outputs().status).toBe('failed');
    expect(env.outputs().strict).toBe('false');
    const summary = env.summary();
    expect(summary).toContain('## ❌ buildbench: FAILED — hello');
    expect(summary).toContain('### Root cause (turn 1, missing-dependency)');
    expect(summary).toContain('fatal error: foo.h: No such file or directory');
  });

  it('omits the location when the captured file is not in the checkout', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    const result = failedResult();
    result.rootCause!.captures = { path: '/usr/include/x.h', line: '3' };
    await run(deps(fakeEngine(result).engine));
    expect(env.stdout.join('')).toContain(
      '::error title=buildbench%3A missing-dependency (turn 1)::missing header foo.h',
    );
  });

  it('rejects a bad input before any work, with one message naming it', async () => {
    env = setUpActionEnv({ inputs: { 'max-turns': 'lots' } });
    const fake = fakeEngine(fakeResult());
    await run(deps(fake.engine));
    expect(fake.calls).toHaveLength(0);
    expect(process.exitCode).toBe(1);
    expect(env.errors()).toEqual([
      "input max-turns: 'lots' is not valid; expected a whole number from 1 to 100",
    ]);
    // Every output is set all the same, and out-dir names a folder that exists: an `if: always()` upload
    // of it finds the note saying why.
    const outDir = path.join(env.runnerTemp, 'buildbench-out', 'workspace');
    expect(env.outputs()).toEqual({
      status: 'config_error',
      completion: 'false',
      strict: 'false',
      flexible: 'false',
      'verified-recipe': 'false',
      'runbook-path': '',
      'result-path': '',
      'out-dir': outDir,
      artifacts: '',
      'pull-request-url': '',
      'pull-request-operation': 'none',
    });
    expect(readFileSync(path.join(outDir, EARLY_NOTE), 'utf8')).toBe(
      "status: config_error\ninput max-turns: 'lots' is not valid; expected a whole number from 1 to 100\n",
    );
    const summary = env.summary();
    expect(summary).toContain('## ❌ buildbench: CONFIG_ERROR');
    expect(summary).toContain("input max-turns: 'lots' is not valid");
    expect(summary).toContain(
      "[this run's artifacts](https://github.com/octo/hello/actions/runs/77#artifacts)",
    );
    expect(summary).not.toContain(env.runnerTemp);
  });

  // The benchmark modes run for real in test/unit/action/modes.test.ts; here: each needs its own input.
  it.each([
    ['task', 'task'],
    ['matrix', 'tasks'],
    ['aggregate', 'results'],
  ])('refuses mode %s without input %s, before any work', async (mode, input) => {
    env = setUpActionEnv({ inputs: { mode } });
    const fake = fakeEngine(fakeResult());
    await run(deps(fake.engine));
    expect(fake.calls).toHaveLength(0);
    expect(env.errors()).toHaveLength(1);
    expect(env.errors()[0]).toMatch(
      new RegExp(`^input ${input}: required when mode is ${mode} \\(expected `),
    );
  });

  it('ends a missing sandbox in one clear failure (fake engine)', async () => {
    env = setUpActionEnv({ inputs: { sandbox: 'docker' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'int main(void){return 0;}\n');
    const result: BuildResult = {
      ...failedResult(),
      status: 'sandbox_error',
      reason: 'no Docker engine answers `docker info` (start one, or use --sandbox rootfs)',
      rootCause: undefined,
    };
    await run(deps(fakeEngine(result).engine));
    // The engine's advice in the action's terms: the input, not the CLI's flag.
    expect(env.errors()).toEqual([
      'buildbench: SANDBOX_ERROR: no Docker engine answers `docker info` (start one, or use sandbox: rootfs)',
    ]);
    expect(env.outputs().status).toBe('sandbox_error');
    expect(env.summary()).toContain('(start one, or use sandbox: rootfs)');
    expect(env.summary()).not.toContain('--sandbox');
  });

  it('ends a missing sandbox in one clear failure (real engine, no docker on PATH)', async () => {
    env = setUpActionEnv({ inputs: { sandbox: 'docker', path: 'hello' }, env: { PATH: '/nonexistent' } });
    repoIn(env.workspace);
    await run({ handleSignals: false });
    expect(env.errors()).toHaveLength(1);
    expect(env.errors()[0]).toMatch(/^buildbench: SANDBOX_ERROR: no Docker engine answers `docker info`/);
    expect(env.outputs().status).toBe('sandbox_error');
    expect(JSON.parse(readFileSync(env.outputs()['result-path']!, 'utf8'))).toMatchObject({
      status: 'sandbox_error',
    });
  });

  describe('fork code in privileged events', () => {
    const forkPr = {
      repository: { full_name: 'octo/hello', default_branch: 'main' },
      pull_request: { number: 3, head: { ref: 'feature', repo: { full_name: 'mallory/hello', fork: true } } },
    };

    it('refuses pull_request_target from a fork', async () => {
      env = setUpActionEnv({ event: { name: 'pull_request_target', payload: forkPr } });
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine));
      expect(fake.calls).toHaveLength(0);
      expect(env.errors()).toHaveLength(1);
      expect(env.errors()[0]).toMatch(
        /^refusing to build: this pull_request_target event comes from the fork mallory\/hello, and pull_request_target runs with this repository's secrets/,
      );
    });

    it('refuses workflow_run triggered by a fork', async () => {
      env = setUpActionEnv({
        event: {
          name: 'workflow_run',
          payload: {
            repository: { full_name: 'octo/hello' },
            workflow_run: { head_repository: { full_name: 'mallory/hello', fork: true } },
          },
        },
      });
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine));
      expect(fake.calls).toHaveLength(0);
      expect(env.errors()[0]).toMatch(
        /^refusing to build: this workflow_run event was triggered by code from the fork mallory\/hello/,
      );
    });

    it('builds fork code when allow-fork-code is true, and same-repository pull requests always', async () => {
      env = setUpActionEnv({
        inputs: { 'allow-fork-code': 'true' },
        event: { name: 'pull_request_target', payload: forkPr },
      });
      writeFileSync(path.join(env.workspace, 'main.c'), 'x');
      const allowed = fakeEngine(fakeResult());
      await run(deps(allowed.engine));
      expect(allowed.calls).toHaveLength(1);
      env.restore();

      const samePr = {
        ...forkPr,
        pull_request: { number: 4, head: { repo: { full_name: 'octo/hello', fork: false } } },
      };
      env = setUpActionEnv({ event: { name: 'pull_request_target', payload: samePr } });
      writeFileSync(path.join(env.workspace, 'main.c'), 'x');
      const same = fakeEngine(fakeResult());
      await run(deps(same.engine));
      expect(same.calls).toHaveLength(1);
      expect(env.errors()).toEqual([]);
    });
  });

  describe('fork code on issue_comment and dispatches (the payload does not say whose code is checked out)', () => {
    /** A workspace that is a git repository with one commit; returns that commit. */
    function gitWorkspace(workspace: string): string {
      writeFileSync(path.join(workspace, 'main.c'), 'int main(void) { return 0; }\n');
      const git = (...args: string[]): string =>
        execFileSync('git', ['-C', workspace, ...args], {
          encoding: 'utf8',
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: 't',
            GIT_AUTHOR_EMAIL: 't@e',
            GIT_COMMITTER_NAME: 't',
            GIT_COMMITTER_EMAIL: 't@e',
          },
        }).trim();
      git('init', '-q');
      git('add', '.');
      git('commit', '-qm', 'x');
      return git('rev-parse', 'HEAD');
    }
    const dispatch = { repository: { full_name: 'octo/hello', default_branch: 'main' } };
    const pullOf = (sha: string, headRepo: string | null) => ({
      number: 7,
      head: { sha, ref: 'feature', repo: headRepo === null ? null : { full_name: headRepo } },
      merge_commit_sha: 'f'.repeat(40),
    });

    it('refuses a workflow_dispatch whose checked-out commit is a fork pull request’s head', async () => {
      env = setUpActionEnv({
        inputs: { token: 'ghs_test' },
        event: { name: 'workflow_dispatch', payload: dispatch },
      });
      const sha = gitWorkspace(env.workspace);
      nock.disableNetConnect();
      const scope = nock(API)
        .get(`/repos/octo/hello/commits/${sha}/pulls`)
        .reply(200, [pullOf(sha, 'mallory/hello')]);
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine));
      expect(scope.isDone()).toBe(true);
      expect(fake.calls).toHaveLength(0);
      expect(env.errors()).toHaveLength(1);
      expect(env.errors()[0]).toMatch(
        /^refusing to build: the commit checked out \([0-9a-f]{12}\) is the code of pull request #7 from the fork mallory\/hello, and workflow_dispatch runs with this repository's secrets/,
      );
      expect(env.outputs().status).toBe('config_error');
    });

    it('refuses an issue_comment on a fork pull request when its merge commit is checked out, and a deleted fork', async () => {
      const comment = { ...dispatch, issue: { number: 7, pull_request: { url: 'x' } } };
      env = setUpActionEnv({
        inputs: { token: 'ghs_test' },
        event: { name: 'issue_comment', payload: comment },
      });
      const sha = gitWorkspace(env.workspace);
      nock.disableNetConnect();
      const scope = nock(API)
        .get('/repos/octo/hello/pulls/7')
        .reply(200, { ...pullOf('a'.repeat(40), null), merge_commit_sha: sha });
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine));
      expect(scope.isDone()).toBe(true);
      expect(fake.calls).toHaveLength(0);
      expect(env.errors()[0]).toMatch(/pull request #7 from the fork \(deleted\), and issue_comment runs/);
    });

    it('builds the same repository’s pull requests, other commits, and fork code when allow-fork-code is true', async () => {
      env = setUpActionEnv({
        inputs: { token: 'ghs_test' },
        event: { name: 'workflow_dispatch', payload: dispatch },
      });
      let sha = gitWorkspace(env.workspace);
      nock.disableNetConnect();
      let scope = nock(API)
        .get(`/repos/octo/hello/commits/${sha}/pulls`)
        .reply(200, [pullOf(sha, 'octo/hello'), pullOf('b'.repeat(40), 'mallory/hello')]);
      const same = fakeEngine(fakeResult());
      await run(deps(same.engine));
      expect(scope.isDone()).toBe(true);
      expect(same.calls).toHaveLength(1);
      expect(env.errors()).toEqual([]);
      env.restore();

      env = setUpActionEnv({
        inputs: { token: 'ghs_test', 'allow-fork-code': 'true' },
        event: { name: 'workflow_dispatch', payload: dispatch },
      });
      sha = gitWorkspace(env.workspace);
      scope = nock(API)
        .get(`/repos/octo/hello/commits/${sha}/pulls`)
        .reply(200, [pullOf(sha, 'mallory/hello')]);
      const allowed = fakeEngine(fakeResult());
      await run(deps(allowed.engine));
      expect(allowed.calls).toHaveLength(1);
      expect(scope.isDone()).toBe(false); // allow-fork-code skips the lookup
    });

    it('refuses when the lookup fails, and says how to skip it', async () => {
      env = setUpActionEnv({
        inputs: { token: 'ghs_test' },
        event: { name: 'repository_dispatch', payload: dispatch },
      });
      const sha = gitWorkspace(env.workspace);
      nock.disableNetConnect();
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}/pulls`)
        .reply(403, { message: 'Resource not accessible by integration' });
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine));
      expect(fake.calls).toHaveLength(0);
      expect(env.errors()[0]).toMatch(
        /^refusing to build: could not check whether the commit checked out on repository_dispatch is a fork's pull request/,
      );
    });
  });

  it('rewrites the comment given by comment-id with the outcome', async () => {
    env = setUpActionEnv({ inputs: { token: 'ghs_test', 'comment-id': '901' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    nock.disableNetConnect();
    let body = '';
    const scope = nock(API)
      .patch('/repos/octo/hello/issues/comments/901', (b: { body: string }) => {
        body = b.body;
        return true;
      })
      .reply(200, { id: 901, html_url: 'https://github.com/octo/hello/issues/1#issuecomment-901' });
    await run(deps(fakeEngine(fakeResult()).engine));
    expect(scope.isDone()).toBe(true);
    expect(body).toContain('<!-- buildbench:comment -->');
    expect(body).toContain('✅ buildbench: SUCCESS — hello');
    expect(body).toContain('https://github.com/octo/hello/actions/runs/77');
    expect(env.errors()).toEqual([]);
  });

  it('tells the comment why nothing was built when the engine throws, and fails once', async () => {
    env = setUpActionEnv({ inputs: { token: 'ghs_test', 'comment-id': '903' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    nock.disableNetConnect();
    let body = '';
    const scope = nock(API)
      .patch('/repos/octo/hello/issues/comments/903', (b: { body: string }) => {
        body = b.body;
        return true;
      })
      .reply(200, { id: 903, html_url: 'https://github.com/octo/hello/issues/1#issuecomment-903' });
    await run(
      deps(() => Promise.reject(new ConfigError('--model: no API key for openai', 'set OPENAI_API_KEY'))),
    );
    expect(scope.isDone()).toBe(true);
    expect(body).toContain('### ❌ buildbench could not run');
    expect(body).toContain('input model: no API key for openai (set OPENAI_API_KEY)');
    expect(env.errors()).toEqual(['input model: no API key for openai (set OPENAI_API_KEY)']);
    expect(env.outputs().status).toBe('config_error');
  });

  it('keeps the build outcome when the comment cannot be updated (a warning, not a failure)', async () => {
    env = setUpActionEnv({ inputs: { token: 'ghs_test', 'comment-id': '902' } });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    nock.disableNetConnect();
    const scope = nock(API)
      .patch('/repos/octo/hello/issues/comments/902')
      .reply(404, { message: 'Not Found' });
    await run(deps(fakeEngine(fakeResult()).engine));
    expect(scope.isDone()).toBe(true);
    expect(env.errors()).toEqual([]);
    expect(env.stdout.join('')).toMatch(/::warning::could not update comment 902: Not Found/);
    expect(env.summary()).toContain('could not update comment 902');
  });

  it('uses the engine settings it was given for the output folder', async () => {
    env = setUpActionEnv({ inputs: {} });
    writeFileSync(path.join(env.workspace, 'main.c'), 'x');
    let seen: BuildSettings | undefined;
    await run(
      deps((s) => {
        seen = s;
        return Promise.resolve(fakeResult({ recipe: undefined, patches: undefined }));
      }),
    );
    expect(seen?.outDir).toBe(path.join(env.runnerTemp, 'buildbench-out', 'workspace'));
    // Nothing was written there by this engine: no runbook, no artifacts folder.
    expect(env.outputs()['runbook-path']).toBe('');
    expect(env.outputs().artifacts).toBe('');
    expect(env.outputs()['verified-recipe']).toBe('false');
  });
});

describe('the action: outputs on every path', () => {
  it('sets status error and an out-dir that exists when the engine throws', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    await run(deps(() => Promise.reject(new Error('the disk caught fire'))));
    expect(process.exitCode).toBe(1);
    expect(env.errors()).toEqual(['the disk caught fire']);
    const outputs = env.outputs();
    const outDir = path.join(env.runnerTemp, 'buildbench-out', 'hello');
    expect(outputs).toMatchObject({
      status: 'error',
      'out-dir': outDir,
      'result-path': '',
      completion: 'false',
    });
    expect(readFileSync(path.join(outDir, EARLY_NOTE), 'utf8')).toBe('status: error\nthe disk caught fire\n');
    expect(env.summary()).toContain('## ❌ buildbench: ERROR');
  });

  it.each([
    ['macOS', 'darwin'],
    ['Windows', 'win32'],
  ] as const)(
    'says once that it needs a Linux runner on %s, and still sets the outputs',
    async (os, platform) => {
      env = setUpActionEnv({ inputs: { path: 'hello' }, env: { RUNNER_OS: os } });
      const fake = fakeEngine(fakeResult());
      await run(deps(fake.engine, { platform }));
      expect(fake.calls).toHaveLength(0);
      expect(process.exitCode).toBe(1);
      expect(env.errors()).toEqual([
        `buildbench needs a Linux runner, and this step runs on a ${os} runner: its sandboxes (docker, rootfs) are Linux only; use runs-on: ubuntu-latest (or a self-hosted Linux runner)`,
      ]);
      const outDir = path.join(env.runnerTemp, 'buildbench-out', 'hello');
      expect(env.outputs()).toMatchObject({ status: 'unsupported_runner', 'out-dir': outDir });
      expect(existsSync(path.join(outDir, EARLY_NOTE))).toBe(true);
    },
  );

  it('tells a Linux machine that RUNNER_OS calls macOS apart from process.platform alone', async () => {
    // As the runner runs it on this (Linux) machine: RUNNER_OS alone decides.
    env = setUpActionEnv({ inputs: { path: 'hello' }, env: { RUNNER_OS: 'macOS' } });
    await run(deps(fakeEngine(fakeResult()).engine));
    expect(env.outputs().status).toBe('unsupported_runner');
    env.restore();
    env = setUpActionEnv({ inputs: { path: 'hello' }, env: { RUNNER_OS: 'Linux' } });
    repoIn(env.workspace);
    await run(deps(fakeEngine(fakeResult()).engine));
    expect(env.outputs().status).toBe('success');
  });
});

describe('the action: fail-on', () => {
  const results = {
    partial: (): BuildResult =>
      fakeResult({ status: 'partial', reason: '1 of 2 expected binaries were built' }),
    failed: failedResult,
  };

  it.each([
    ['', 'partial', 'buildbench: PARTIAL: 1 of 2 expected binaries were built'],
    ['partial', 'partial', 'buildbench: PARTIAL: 1 of 2 expected binaries were built'],
    ['failed', 'partial', undefined],
    ['failed', 'failed', 'buildbench: FAILED: missing header foo.h (no package provides it)'],
  ] as const)('fail-on %p with a %s build', async (failOn, kind, error) => {
    const result = results[kind];
    env = setUpActionEnv({ inputs: { path: 'hello', 'fail-on': failOn } });
    repoIn(env.workspace);
    await run(deps(fakeEngine(result()).engine));
    // The step's own error (annotations of the root cause aside).
    expect(env.commands('error::')).toEqual(error ? [`::error::${error}`] : []);
    expect(process.exitCode === 1).toBe(error !== undefined);
    if (!error) {
      expect(env.commands('warning')).toContain(
        '::warning::buildbench: PARTIAL: 1 of 2 expected binaries were built (the step passes: fail-on is failed)',
      );
    }
    expect(env.outputs().status).toBe(result().status);
  });

  it('rejects a fail-on it does not know, naming the input', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello', 'fail-on': 'sometimes' } });
    repoIn(env.workspace);
    const fake = fakeEngine(fakeResult());
    await run(deps(fake.engine));
    expect(fake.calls).toHaveLength(0);
    expect(env.errors()).toEqual([
      "input fail-on: 'sometimes' is not valid; expected one of failed, partial",
    ]);
    expect(env.outputs().status).toBe('config_error');
  });
});

describe('the action: model keys from the step env are masked', () => {
  const base64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

  it('masks OPENAI_API_KEY and ANTHROPIC_API_KEY and the forms they travel in, given in the env only', async () => {
    const openai = 'sk-env-openai-0123456789abcdef';
    const anthropic = 'sk-ant-env-0123456789abcdef/+=';
    env = setUpActionEnv({
      inputs: { path: 'hello', model: 'openai:gpt-test' },
      env: { OPENAI_API_KEY: openai, ANTHROPIC_API_KEY: anthropic },
    });
    repoIn(env.workspace);
    const fake = fakeEngine(fakeResult());
    await run(deps(fake.engine));
    // The key came from the env, not from an input.
    expect(fake.calls[0]!.model).toMatchObject({ apiKey: openai, apiKeySource: 'OPENAI_API_KEY' });
    // As the runner reads the command: its data unescaped (%25 is %).
    const masks = env
      .commands('add-mask')
      .map((l) =>
        l.slice('::add-mask::'.length).replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%'),
      );
    for (const key of [openai, anthropic]) {
      expect(masks).toContain(key);
      // Basic authorization pairs (actions/checkout's x-access-token:<key>, <key>:, :<key>).
      for (const pair of [`x-access-token:${key}`, `${key}:`, `:${key}`])
        expect(masks).toContain(base64(pair));
    }
    expect(masks).toContain(encodeURIComponent(anthropic));
    // The masks come first: no line before them, and no other line, shows a key.
    const lines = env.stdout.join('').split('\n');
    const shown = lines.filter(
      (l) => (l.includes(openai) || l.includes(anthropic)) && !l.startsWith('::add-mask::'),
    );
    expect(shown).toEqual([]);
    expect(lines[0]!.startsWith('::add-mask::')).toBe(true);
  });

  it('masks the password of a base-url and of the model server URLs in the env', async () => {
    env = setUpActionEnv({
      inputs: { path: 'hello', 'base-url': 'https://me:input-url-secret-123@llm.example/v1' },
      env: { ANTHROPIC_BASE_URL: 'https://u:env-url-secret-456@llm.example' },
    });
    repoIn(env.workspace);
    await run(deps(fakeEngine(fakeResult()).engine));
    const masks = env.commands('add-mask');
    expect(masks).toContain('::add-mask::input-url-secret-123');
    expect(masks).toContain('::add-mask::env-url-secret-456');
  });
});

describe('the action (post step)', () => {
  function fakePost(containers: Record<string, string>, removeTree?: (dir: string) => Promise<void>) {
    const calls: string[] = [];
    const post: PostDeps = {
      exec: (command, args) => {
        calls.push([command, ...args].join(' '));
        if (args[0] === 'ps') {
          const id = /label=buildbench\.sandbox=(.+)$/.exec(args.join(' '))?.[1] ?? '';
          return Promise.resolve({ exitCode: 0, output: containers[id] ? `${containers[id]}\n` : '' });
        }
        return Promise.resolve({ exitCode: 0, output: '' });
      },
      hasDocker: () => Promise.resolve(true),
      removeTree:
        removeTree ??
        ((dir) => import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true, force: true }))),
      isRoot: true,
    };
    return { calls, post };
  }

  it('removes the containers and folders a killed main step left', async () => {
    env = setUpActionEnv();
    const workRoot = path.join(env.runnerTemp, 'buildbench-work-abc');
    mkdirSync(path.join(workRoot, 'hello-0011aabb', 'workspace'), { recursive: true });
    mkdirSync(path.join(workRoot, 'hello-ccdd2233'));
    process.env.STATE_isPost = 'true';
    process.env.STATE_workRoot = workRoot;
    const { calls, post } = fakePost({ 'hello-0011aabb': '3f2a1b4c5d6e' });
    const engine = fakeEngine(fakeResult());
    await run(deps(engine.engine, { post }));
    expect(engine.calls).toHaveLength(0);
    expect(calls).toEqual([
      'docker ps -aq --filter label=buildbench.sandbox=hello-0011aabb',
      'docker rm -f 3f2a1b4c5d6e',
      'docker ps -aq --filter label=buildbench.sandbox=hello-ccdd2233',
    ]);
    expect(existsSync(workRoot)).toBe(false);
    expect(env.errors()).toEqual([]);
  });

  it('turns cleanup failures into warnings', async () => {
    env = setUpActionEnv();
    const workRoot = path.join(env.runnerTemp, 'buildbench-work-def');
    mkdirSync(path.join(workRoot, 'hello-0011aabb'), { recursive: true });
    process.env.STATE_isPost = 'true';
    process.env.STATE_workRoot = workRoot;
    const { post } = fakePost({}, () => Promise.reject(new Error('Device or resource busy')));
    await run(deps(fakeEngine(fakeResult()).engine, { post }));
    expect(env.errors()).toEqual([]);
    expect(process.exitCode).not.toBe(1);
    expect(env.stdout.join('')).toContain(
      `::warning::buildbench post: could not remove ${workRoot}: Device or resource busy`,
    );
  });

  it('has nothing to do when main never created a work folder', async () => {
    env = setUpActionEnv();
    process.env.STATE_isPost = 'true';
    const { calls, post } = fakePost({});
    await run(deps(fakeEngine(fakeResult()).engine, { post }));
    expect(calls).toEqual([]);
    expect(env.stdout.join('')).toContain('nothing to clean up');
  });
});
