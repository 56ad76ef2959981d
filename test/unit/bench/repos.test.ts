import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  createRepositories,
  githubSlug,
  locateRepository,
  RepositoryError,
} from '../../../src/bench/repos.js';
import type { BuildTask, RepositoryRef } from '../../../src/bench/types.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-bench-repos-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const gitIn = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

const origin = path.join(root, 'origin');
const reposDir = path.join(root, 'mirrors');
let first = '';
let second = '';

beforeAll(() => {
  mkdirSync(origin);
  gitIn(origin, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(path.join(origin, 'VERSION'), '1\n');
  gitIn(origin, 'add', '.');
  gitIn(origin, 'commit', '--quiet', '-m', 'one');
  first = gitIn(origin, 'rev-parse', 'HEAD');
  gitIn(origin, 'checkout', '--quiet', '-b', 'feature');
  writeFileSync(path.join(origin, 'FEATURE'), 'yes\n');
  gitIn(origin, 'add', '.');
  gitIn(origin, 'commit', '--quiet', '-m', 'feature');
  gitIn(origin, 'checkout', '--quiet', 'main');
  writeFileSync(path.join(origin, 'VERSION'), '2\n');
  gitIn(origin, 'commit', '--quiet', '-am', 'two');
  second = gitIn(origin, 'rev-parse', 'HEAD');
  mkdirSync(reposDir);
  // A bare mirror, a clone, and a bare mirror in repo/ (the layout of /work/.mirror).
  gitIn(root, 'clone', '--quiet', '--bare', origin, path.join(reposDir, 'acme+bare'));
  gitIn(root, 'clone', '--quiet', origin, path.join(reposDir, 'acme+clone'));
  gitIn(root, 'clone', '--quiet', '--bare', origin, path.join(reposDir, 'Acme+Nested', 'repo'));
  mkdirSync(path.join(reposDir, 'acme+empty'));
});

function task(repository: RepositoryRef, id = 't'): BuildTask {
  return {
    id,
    kind: 'build',
    repository,
    requires: [],
    budgets: {},
    notes: [],
    file: path.join(root, 'tasks', `${id}.yml`),
    expected: [],
    instructions: [],
  };
}

/** Every file under `dir` with its content hash and mtime: a changed mirror changes this. */
function fingerprint(dir: string): string {
  const lines: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else
        lines.push(
          `${path.relative(dir, p)} ${s.mtimeMs} ${createHash('sha1').update(readFileSync(p)).digest('hex')}`,
        );
    }
  };
  walk(dir);
  return lines.join('\n');
}

const read = (dir: string, file: string): string => readFileSync(path.join(dir, file), 'utf8');

describe('githubSlug', () => {
  it.each([
    ['ninja-build/ninja', 'ninja-build/ninja'],
    ['https://github.com/ninja-build/ninja', 'ninja-build/ninja'],
    ['https://github.com/ninja-build/ninja.git', 'ninja-build/ninja'],
    ['git@github.com:jqlang/jq.git', 'jqlang/jq'],
    ['ssh://git@github.com/google/re2', 'google/re2'],
    ['https://gitlab.com/a/b', undefined],
    ['/abs/path', undefined],
    ['./rel/path', undefined],
  ])('%s → %s', (source, slug) => {
    expect(githubSlug(source)).toBe(slug);
  });
});

describe('locateRepository', () => {
  it('finds owner/name and GitHub URLs in --repos-dir: bare, clone, in repo/, whatever the case', async () => {
    await expect(locateRepository(task({ source: 'acme/bare' }), reposDir)).resolves.toEqual({
      kind: 'mirror',
      dir: path.join(reposDir, 'acme+bare'),
      bare: true,
      slug: 'acme/bare',
    });
    await expect(
      locateRepository(task({ source: 'https://github.com/acme/clone.git' }), reposDir),
    ).resolves.toMatchObject({
      dir: path.join(reposDir, 'acme+clone'),
      bare: false,
    });
    await expect(locateRepository(task({ source: 'acme/nested' }), reposDir)).resolves.toMatchObject({
      dir: path.join(reposDir, 'Acme+Nested', 'repo'),
      bare: true,
    });
  });

  it('without --repos-dir, owner/name is a GitHub URL; a path is relative to the task file', async () => {
    await expect(locateRepository(task({ source: 'acme/bare' }))).resolves.toEqual({
      kind: 'remote',
      url: 'https://github.com/acme/bare',
    });
    await expect(locateRepository(task({ source: '../origin' }))).resolves.toEqual({
      kind: 'local',
      dir: origin,
      bare: false,
    });
  });

  it('says which task and which repository when it cannot find one', async () => {
    const t = task({ source: 'acme/missing' });
    const error = await locateRepository(t, reposDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect((error as Error).message).toContain(t.file);
    expect((error as Error).message).toContain("'acme/missing'");
    expect((error as Error).message).toContain(path.join(reposDir, 'acme+missing'));
    await expect(locateRepository(task({ source: 'acme/empty' }), reposDir)).rejects.toThrow(
      /holds no git repository; expected a clone or a bare git dir/,
    );
    await expect(locateRepository(task({ source: path.join(root, 'nope') }))).rejects.toThrow(
      /is not a folder/,
    );
  });
});

describe('createRepositories().checkout', () => {
  const workDir = path.join(root, 'work');

  it('uses a local folder without commit or branch as it is', async () => {
    const checkout = await createRepositories({ workDir }).checkout(task({ source: origin }), 'local/1');
    expect(checkout.dir).toBe(origin);
    expect(checkout.commit).toBe(second);
    await checkout.cleanup();
    expect(existsSync(origin)).toBe(true);
  });

  it('checks out a commit and a branch of a bare mirror into a run folder it removes, the mirror unchanged', async () => {
    const mirror = path.join(reposDir, 'acme+bare');
    const before = fingerprint(mirror);
    const repos = createRepositories({ reposDir, workDir });
    const atCommit = await repos.checkout(task({ source: 'acme/bare', commit: first.slice(0, 10) }), 'c/1');
    expect(atCommit.dir).toBe(path.join(workDir, 'checkouts', 'c', '1', 'bare'));
    expect(atCommit.commit).toBe(first);
    expect(read(atCommit.dir, 'VERSION')).toBe('1\n');
    const atBranch = await repos.checkout(task({ source: 'acme/bare', branch: 'feature' }), 'b/1');
    expect(read(atBranch.dir, 'FEATURE')).toBe('yes\n');
    const atDefault = await repos.checkout(task({ source: 'acme/bare' }), 'd/1');
    expect(atDefault.commit).toBe(second);
    // The build may write anything into its checkout: the mirror does not see it.
    writeFileSync(path.join(atCommit.dir, 'VERSION'), 'changed\n');
    gitIn(atCommit.dir, 'commit', '--quiet', '-am', 'local change');
    for (const c of [atCommit, atBranch, atDefault]) await c.cleanup();
    expect(existsSync(atCommit.dir)).toBe(false);
    expect(fingerprint(mirror)).toBe(before);
  });

  it('checks out a commit of a clone mirror and of a local folder, both unchanged', async () => {
    const mirror = path.join(reposDir, 'acme+clone');
    const before = [fingerprint(mirror), fingerprint(origin)];
    const repos = createRepositories({ reposDir, workDir });
    const fromMirror = await repos.checkout(task({ source: 'acme/clone', commit: first }), 'm/1');
    const fromLocal = await repos.checkout(task({ source: origin, commit: first }), 'l/1');
    expect([read(fromMirror.dir, 'VERSION'), read(fromLocal.dir, 'VERSION')]).toEqual(['1\n', '1\n']);
    await fromMirror.cleanup();
    await fromLocal.cleanup();
    expect([fingerprint(mirror), fingerprint(origin)]).toEqual(before);
  });

  it('clones a URL once per benchmark and checks each run out from that clone', async () => {
    const repos = createRepositories({ workDir: path.join(root, 'work-url') });
    const url = `file://${origin}`;
    const one = await repos.checkout(task({ source: url, commit: first }), 'u/1');
    const two = await repos.checkout(task({ source: url, branch: 'feature' }), 'u/2');
    expect(read(one.dir, 'VERSION')).toBe('1\n');
    expect(read(two.dir, 'FEATURE')).toBe('yes\n');
    expect(readdirSync(path.join(root, 'work-url', 'clones'))).toHaveLength(1);
  });

  it('names the task, the repository and the commit or branch it cannot check out', async () => {
    const repos = createRepositories({ reposDir, workDir });
    const t = task({ source: 'acme/bare', commit: 'deadbeefdeadbeef' });
    await expect(repos.checkout(t, 'x/1')).rejects.toThrow(
      new RegExp(`task ${t.file}: repository 'acme/bare': cannot check out commit deadbeefdeadbeef`),
    );
    await expect(repos.checkout(task({ source: 'acme/bare', branch: 'no-such' }), 'x/2')).rejects.toThrow(
      /cannot clone branch no-such/,
    );
    expect(existsSync(path.join(workDir, 'checkouts', 'x', '1'))).toBe(false);
    await expect(
      createRepositories({ workDir }).checkout(task({ source: `file://${root}/absent` }), 'x/3'),
    ).rejects.toThrow(/cannot clone file:\/\//);
  });
});
