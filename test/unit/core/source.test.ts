import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import {
  describeSource,
  locateSource,
  normalizeGitUrl,
  repositoryIdentity,
  resolveSource,
} from '../../../src/core/source.js';

describe('normalizeGitUrl', () => {
  it('spells one repository one way', () => {
    const same = [
      'https://github.com/Owner/Repo.git',
      'https://user:token@github.com/owner/repo/',
      'git@github.com:owner/repo.git',
      'ssh://git@GitHub.com/owner/repo',
      'https://www.github.com/owner/repo',
    ];
    for (const url of same) expect(normalizeGitUrl(url)).toBe('github.com/owner/repo');
    expect(normalizeGitUrl('https://example.org:8443/Group/Proj.git')).toBe('example.org:8443/Group/Proj');
    expect(normalizeGitUrl('file:///srv/git/x.git')).toBe('file:/srv/git/x');
    expect(normalizeGitUrl('https://github.com/owner/other')).not.toBe('github.com/owner/repo');
  });
});

describe('repositoryIdentity', () => {
  const git = (dir: string, ...args: string[]): string =>
    execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    }).trim();

  it('is the normalized URL for a URL, and the real path with the origin or first commit for a folder', async () => {
    expect(await repositoryIdentity('git@github.com:a/b.git', '/tmp/clone-xyz')).toBe('url:github.com/a/b');
    const dir = await mkdtemp(join(tmpdir(), 'bb-identity-'));
    const real = await realpath(dir);
    expect(await repositoryIdentity(dir, dir)).toBe(`path:${real}`);
    git(dir, 'init', '-q');
    await writeFile(join(dir, 'a.c'), 'int x;\n');
    git(dir, 'add', 'a.c');
    git(dir, 'commit', '-q', '-m', 'first');
    const root = git(dir, 'rev-parse', 'HEAD');
    await writeFile(join(dir, 'b.c'), 'int y;\n');
    git(dir, 'add', 'b.c');
    git(dir, 'commit', '-q', '-m', 'second');
    expect(await repositoryIdentity(dir, dir)).toBe(`path:${real}\nroot:${root}`);
    git(dir, 'remote', 'add', 'origin', 'https://x:secret@github.com/A/B.git');
    // a folder claiming a URL is still not the clone of that URL
    expect(await repositoryIdentity(dir, dir)).toBe(`path:${real}\nurl:github.com/a/b`);
  });

  it('clones a git URL into a temporary folder with its commit, and cleans it up', async () => {
    const origin = await mkdtemp(join(tmpdir(), 'bb-origin-'));
    git(origin, 'init', '-q');
    await writeFile(join(origin, 'main.c'), 'int main(void) { return 0; }\n');
    git(origin, 'add', 'main.c');
    git(origin, 'commit', '-q', '-m', 'only');
    const head = git(origin, 'rev-parse', 'HEAD');
    const resolved = await resolveSource(`file://${origin}`);
    try {
      expect(resolved.commit).toBe(head);
      expect(existsSync(join(resolved.dir, 'main.c'))).toBe(true);
      expect(resolved.identity).toBe(`url:${normalizeGitUrl(`file://${origin}`)}`);
    } finally {
      await resolved.cleanup();
    }
    expect(existsSync(resolved.dir)).toBe(false);
  });

  it("names git's fatal line when a clone fails", async () => {
    const missing = join(tmpdir(), `bb-no-such-repo-${process.pid}`);
    const error = await resolveSource(`file://${missing}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^cannot clone 'file:\/\/.*': fatal: /);
  });

  it('locates a folder as it is and describes it apart: a folder outside git has no commit and its path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bb-locate-'));
    await writeFile(join(dir, 'main.c'), 'int main(void) { return 0; }\n');
    const located = await locateSource(dir);
    expect(located.dir).toBe(dir);
    expect(await describeSource(dir, located.dir)).toEqual({ identity: `path:${await realpath(dir)}` });
    git(dir, 'init', '-q');
    git(dir, 'add', 'main.c');
    git(dir, 'commit', '-q', '-m', 'only');
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await describeSource(dir, dir)).toEqual({
      commit: head,
      identity: `path:${await realpath(dir)}\nroot:${head}`,
    });
    const empty = await mkdtemp(join(tmpdir(), 'bb-locate-empty-'));
    await expect(locateSource(empty)).rejects.toThrow(/is empty/);
    await expect(locateSource(join(dir, 'main.c'))).rejects.toThrow(/is not a directory/);
  });
});
