/** `buildbench deploy`: its own help, and one clear line with exit 2 for every kind of bad input. */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { DEPLOY_HELP, parseDeployArgs } from '../../../src/cli/deploy.js';
import { run, USAGE } from '../../../src/cli/main.js';

async function cli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env,
    cwd: process.cwd(),
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('buildbench deploy', () => {
  it('prints its own help, and the general help lists it', async () => {
    expect(await cli(['deploy', '--help'])).toEqual({ code: 0, out: DEPLOY_HELP, err: '' });
    expect(DEPLOY_HELP).toMatch(
      /^usage: buildbench deploy <path\|git-url> --task <deploy-task\.yml> \[options\]\n/,
    );
    for (const flag of ['--task', '--registries', '--out', '--json'])
      expect(DEPLOY_HELP).toContain(`  ${flag} `);
    expect(DEPLOY_HELP).toContain('PIP_INDEX_URL');
    expect(USAGE).toContain('buildbench deploy <path|git-url> --task <deploy-task.yml>');
  });

  it.each([
    [['deploy'], 'buildbench: deploy: missing <path|git-url>'],
    [['deploy', 'repo'], 'buildbench: deploy: missing --task <deploy-task.yml>'],
    [['deploy', 'a', 'b', '--task', 't.yml'], 'buildbench: deploy: expected one repository, got 2: a b'],
    [['deploy', 'repo', '--task', 't.yml', '--bogus'], "unknown option '--bogus'"],
    [['deploy', 'repo', '--task'], 'buildbench: deploy: --task: missing value'],
    [
      ['deploy', 'repo', '--task', 't.yml', '--registries', 'airgapped'],
      "buildbench: --registries: 'airgapped' is not valid; expected one of auto, online, offline",
    ],
    [
      ['deploy', 'repo', '--task', 't.yml', '--sandbox', 'vm'],
      "buildbench: --sandbox: 'vm' is not valid; expected one of auto, rootfs, docker, host",
    ],
  ])('%j → exit 2: %s', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toContain(message);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('names a task file that does not exist, one that does not validate, and a build task', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-cli-deploy-'));
    const missing = await cli([
      'deploy',
      'tasks/examples/sort-benchmark',
      '--task',
      path.join(dir, 'nope.yml'),
      '--out',
      dir,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.yml:1: cannot read the file/);

    const bad = path.join(dir, 'bad.yml');
    writeFileSync(
      bad,
      'kind: deploy\nrepository: /tmp\ntarget: { comand: x, evidence: {} }\nverifier: { spec: s.yml }\n',
    );
    const invalid = await cli(['deploy', 'tasks/examples/sort-benchmark', '--task', bad, '--out', dir]);
    expect(invalid.code).toBe(2);
    expect(invalid.err).toMatch(/bad\.yml:3: target\.comand: unknown field \(did you mean 'command'\?\)/);

    const build = await cli([
      'deploy',
      'test/fixtures/repos/make-hello',
      '--task',
      'tasks/fixtures/make-hello.yml',
      '--out',
      dir,
    ]);
    expect(build.code).toBe(2);
    expect(build.err).toBe(
      'buildbench: tasks/fixtures/make-hello.yml: kind: build — buildbench deploy takes a deploy task (kind: deploy, with target and verifier) ' +
        '(run a build task with buildbench bench <task file>, or the repository with buildbench build; see tasks/README.md for deploy tasks)\n',
    );
  });

  it('reads the run flags, the registries and the mirrors, and notes a mirror with credentials', () => {
    const s = parseDeployArgs(
      ['repo', '--task', 't.yml', '--registries', 'offline', '--max-turns', '3', '--out', 'o', '--json'],
      { env: { GOPROXY: 'https://proxy.local', PIP_INDEX_URL: 'https://u:p@pypi.corp/simple' }, cwd: '/w' },
    );
    expect(s).toMatchObject({
      source: 'repo',
      taskFile: '/w/t.yml',
      outDir: '/w/o',
      maxTurns: 3,
      json: true,
      keep: false,
      strategy: 'rules',
      registries: { mode: 'offline', mirrors: { GOPROXY: 'https://proxy.local' } },
    });
    expect(s.notes).toEqual([expect.stringMatching(/^PIP_INDEX_URL is not passed to the sandbox/)]);
    expect(parseDeployArgs(['r', '--task', 't.yml'], { env: {}, cwd: '/w' }).outDir).toBe(
      '/w/buildbench-out/r',
    );
  });
});
