import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { removeGitCredentials } from '../../../src/sandbox/git-credentials.js';

// Assembled at run time so no secret-shaped literal sits in the repository for scanners to flag.
const TOKEN = 'ghs_' + 'FAKE0123456789abcdefghijklmnopqrstuv';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
const PASSWORD = 'pw-' + 'not-a-real-one-42';

const root = mkdtempSync(path.join(tmpdir(), 'bb-git-credentials-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  });

function hostileCopy(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '.');
  git(dir, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${BASIC}`);
  git(dir, 'config', 'remote.origin.url', `https://x-access-token:${TOKEN}@github.com/o/r.git`);
  git(dir, 'config', '--add', 'remote.origin.url', 'https://github.com/o/mirror.git');
  git(dir, 'config', 'remote.origin.pushurl', `https://${TOKEN}@github.com/o/r.git`);
  git(dir, 'config', 'remote.upstream.url', 'ssh://git@github.com/o/up.git');
  git(dir, 'config', 'credential.helper', 'store');
  git(dir, 'config', `url.https://user:${PASSWORD}@example.com/.insteadOf`, 'https://example.com/');
  git(dir, 'config', 'url.https://mirror.example.org/.insteadOf', 'https://example.org/');
  git(dir, 'config', 'user.name', 'Someone');
  // A submodule's git folder, as `git submodule update` leaves it.
  const sub = path.join(dir, '.git', 'modules', 'lib', 'inner');
  mkdirSync(sub, { recursive: true });
  writeFileSync(path.join(sub, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(
    path.join(sub, 'config'),
    `[remote "origin"]\n\turl = https://oauth2:${PASSWORD}@gitlab.example.com/g/lib.git\n[http "https://gitlab.example.com/"]\n\textraheader = Authorization: Bearer ${PASSWORD}\n`,
  );
  return dir;
}

describe('removeGitCredentials', () => {
  it('removes extraheaders, helpers, userinfo and credential rewrites; names them, never their values', async () => {
    const dir = hostileCopy('main');
    const before = readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    expect(before).toContain(BASIC);
    const result = await removeGitCredentials(dir);
    const config = readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    const subConfig = readFileSync(path.join(dir, '.git', 'modules', 'lib', 'inner', 'config'), 'utf8');
    for (const text of [config, subConfig, result.removed.join('\n')]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(BASIC);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toMatch(/extraheader\s*=|helper\s*=/);
    }
    expect(git(dir, 'config', '--get-all', 'remote.origin.url').trim().split('\n')).toEqual([
      'https://github.com/o/r.git',
      'https://github.com/o/mirror.git',
    ]);
    expect(git(dir, 'config', 'remote.origin.pushurl').trim()).toBe('https://github.com/o/r.git');
    expect(git(dir, 'config', 'remote.upstream.url').trim()).toBe('ssh://git@github.com/o/up.git');
    expect(git(dir, 'config', 'url.https://mirror.example.org/.insteadOf').trim()).toBe(
      'https://example.org/',
    );
    expect(git(dir, 'config', 'user.name').trim()).toBe('Someone');
    expect(subConfig).toContain('url = https://gitlab.example.com/g/lib.git');
    expect(result.removed).toEqual(
      expect.arrayContaining([
        'http.https://github.com/.extraheader',
        'credential.helper',
        'remote.origin.url (userinfo)',
        'remote.origin.pushurl (userinfo)',
        'url.https://***@example.com/.insteadof',
        '.git/modules/lib/inner/config: remote.origin.url (userinfo)',
        '.git/modules/lib/inner/config: http.https://gitlab.example.com/.extraheader',
      ]),
    );
    expect(result.removed).not.toContain('remote.upstream.url (userinfo)');
    // The values go to the redactor: the token, the header's base64, the passwords.
    expect(result.values).toEqual(expect.arrayContaining([TOKEN, BASIC, PASSWORD]));
  });

  it('removes nothing from a clean checkout and leaves a .git file pointing outside the copy alone', async () => {
    const clean = path.join(root, 'clean');
    mkdirSync(clean);
    git(clean, 'init', '-q', '.');
    const config = readFileSync(path.join(clean, '.git', 'config'), 'utf8');
    expect(await removeGitCredentials(clean)).toEqual({ removed: [], values: [], notes: [] });
    expect(readFileSync(path.join(clean, '.git', 'config'), 'utf8')).toBe(config);

    const outside = hostileCopy('outside-gitdir');
    const worktree = path.join(root, 'worktree');
    mkdirSync(worktree);
    writeFileSync(path.join(worktree, '.git'), `gitdir: ${path.join(outside, '.git')}\n`);
    const result = await removeGitCredentials(worktree);
    expect(result.removed).toEqual([]);
    expect(result.notes[0]).toMatch(/outside the repository copy/);
    expect(readFileSync(path.join(outside, '.git', 'config'), 'utf8')).toContain(BASIC);
  });

  it('follows a .git file that points inside the copy', async () => {
    const dir = hostileCopy('inside-gitdir');
    execFileSync('mv', [path.join(dir, '.git'), path.join(dir, '.gitdir-moved')]);
    writeFileSync(path.join(dir, '.git'), 'gitdir: .gitdir-moved\n');
    const result = await removeGitCredentials(dir);
    expect(result.removed).toContain('.gitdir-moved/config: http.https://github.com/.extraheader');
    expect(readFileSync(path.join(dir, '.gitdir-moved', 'config'), 'utf8')).not.toContain(BASIC);
  });

  it('cleans nested checkouts too (a vendored clone in third_party/), not through symlinks', async () => {
    const top = path.join(root, 'with-nested');
    mkdirSync(top);
    git(top, 'init', '-q', '.');
    const dep = hostileCopy(path.join('with-nested', 'third_party', 'dep'));
    execFileSync('ln', ['-s', dep, path.join(top, 'linked')]);
    const result = await removeGitCredentials(top);
    expect(result.removed).toContain('third_party/dep/.git/config: http.https://github.com/.extraheader');
    expect(result.removed.some((name) => name.startsWith('linked'))).toBe(false);
    expect(readFileSync(path.join(dep, '.git', 'config'), 'utf8')).not.toContain(BASIC);
  });

  it('drops includes of files outside the copy (where actions/checkout v6 keeps its token) and cleans those inside', async () => {
    const dir = path.join(root, 'includes');
    mkdirSync(dir);
    git(dir, 'init', '-q', '.');
    const elsewhere = path.join(root, 'runner-temp');
    mkdirSync(elsewhere);
    const outside = path.join(elsewhere, 'git-credentials-1234.config');
    writeFileSync(outside, `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${BASIC}\n`);
    writeFileSync(
      path.join(dir, 'inside.inc'),
      `[credential]\n\thelper = "!f() { echo password=${PASSWORD}; }; f"\n`,
    );
    git(dir, 'config', `includeIf.gitdir:${dir}/.git.path`, outside);
    git(dir, 'config', 'include.path', '../inside.inc');
    const result = await removeGitCredentials(dir);
    expect(result.removed).toEqual(
      expect.arrayContaining([
        `includeif.gitdir:${dir}/.git.path (a file outside the copy)`,
        'inside.inc: credential.helper',
      ]),
    );
    const config = readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    expect(config).not.toContain(outside);
    expect(config).toContain('../inside.inc');
    expect(readFileSync(path.join(dir, 'inside.inc'), 'utf8')).not.toContain(PASSWORD);
    expect(readFileSync(outside, 'utf8')).toContain(BASIC); // outside the copy: never touched
    // ... but its values join the redactor's, as do the inside file's
    expect(result.values).toEqual(expect.arrayContaining([BASIC, TOKEN]));
    expect(result.values.some((v) => v.includes(PASSWORD))).toBe(true);
  });
});
