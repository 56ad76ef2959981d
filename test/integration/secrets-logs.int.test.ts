/**
 * Secrets and bounded logs, tested as a hostile repository would try them, by what ends up in the output
 * folder (every file, read as bytes), not by the sandbox's internals:
 * - a checkout made by actions/checkout keeps the workflow's token in `.git/config`
 *   (`http.https://github.com/.extraheader = AUTHORIZATION: basic base64(x-access-token:ghs_…)`) and a token
 *   in the remote URL; the Makefile prints `.git/config`;
 * - secrets of the buildbench process's environment (an API key, a DATABASE_URL with a password, a variable
 *   marked with --secret-env) reach the build through a file of the checkout (a developer's `.env`) and the
 *   build prints them;
 * - a build that prints more than --max-log-size keeps the head and the tail of its log, and the true size
 *   is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runBuild } from '../../src/core/run-build.js';
import type { BuildResult } from '../../src/report/result.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { SandboxChoice } from '../../src/sandbox/types.js';
import { ensureTestDockerImage, hostMountsUnder, TEST_DOCKER_IMAGE, dockerHere } from '../helpers/sandbox.js';

// Assembled at run time so no secret-shaped literal sits in the repository for scanners to flag.
const GH_TOKEN = 'ghs_' + 'FAKEtokenFromActionsCheckout0123456789';
const GH_BASIC = Buffer.from(`x-access-token:${GH_TOKEN}`).toString('base64');
const URL_TOKEN = 'ghp_' + 'FAKEremoteUrlToken0123456789abcdefgh';
const API_KEY = 'sk-' + 'FAKEopenaiKeyForTheTest0123456789abcd';
const DB_PASSWORD = 'db-' + 'Passw0rd-in-a-url-4242';
const MARKED = 'marked-' + 'by-secret-env-value-7777';

const root = mkdtempSync(path.join(tmpdir(), 'bb-int-secrets-'));
const saved: Record<string, string | undefined> = {};
const ENV = {
  BB_TEST_OPENAI_API_KEY: API_KEY,
  DATABASE_URL: `postgres://app:${DB_PASSWORD}@db.internal:5432/app`,
  BB_TEST_DEPLOYMENT: MARKED,
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

/** A small C project whose Makefile prints what a hostile build would want to exfiltrate. */
function hostileRepo(name: string): string {
  const dir = path.join(root, name);
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(path.join(dir, 'hello.c'), '#include <stdio.h>\nint main(void){puts("hi");return 0;}\n');
  writeFileSync(path.join(dir, 'README.md'), '# hostile\n');
  writeFileSync(
    path.join(dir, 'Makefile'),
    [
      'hello: hello.c',
      '\t@echo "--- .git/config:"; cat .git/config',
      '\t@echo "--- git config -l:"; git config -l 2>&1 || true',
      '\t@echo "--- .env, as a leak would print it:"; cat .env',
      // the password alone, out of its URL, and the marked value alone
      `\t@echo "password alone: $$(sed -n 's|.*://app:\\([^@]*\\)@.*|\\1|p' .env)"`,
      `\t@echo "marked alone: $$(sed -n 's|^DEPLOY=||p' .env)"`,
      // and into a tracked file, so that the patch series (which the Action may publish) would carry them
      '\t@cat .env >> README.md',
      '\t$(CC) -o hello hello.c',
      '',
    ].join('\n'),
  );
  git(dir, 'init', '-q', '.');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  // A developer's local .env, not committed.
  writeFileSync(
    path.join(dir, '.env'),
    `OPENAI_API_KEY=${API_KEY}\nDATABASE_URL=${ENV.DATABASE_URL}\nDEPLOY=${MARKED}\n`,
  );
  // What actions/checkout leaves behind, and a token pasted into the remote URL.
  git(dir, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${GH_BASIC}`);
  git(dir, 'config', 'remote.origin.url', `https://x-access-token:${URL_TOKEN}@github.com/o/hostile.git`);
  git(dir, 'config', 'credential.helper', 'store');
  return dir;
}

function loudRepo(): string {
  const dir = path.join(root, 'loud');
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(path.join(dir, 'hello.c'), '#include <stdio.h>\nint main(void){puts("hi");return 0;}\n');
  writeFileSync(
    path.join(dir, 'Makefile'),
    'hello: hello.c\n\t@echo FIRST-LINE-OF-THE-LOG\n\t@seq 1 200000\n\t$(CC) -o hello hello.c\n\t@echo LAST-LINE-OF-THE-LOG\n',
  );
  return dir;
}

function settings(
  source: string,
  name: string,
  overrides: Partial<BuildSettings> = {},
  kind: SandboxChoice = 'rootfs',
): BuildSettings {
  return {
    source,
    outDir: path.join(root, 'out', name),
    strategy: 'rules',
    maxTurns: 4,
    timeoutMs: 10 * 60_000,
    turnTimeoutMs: 5 * 60_000,
    expect: ['hello'],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, kind, kind === 'docker' ? TEST_DOCKER_IMAGE : undefined),
    ...overrides,
  };
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? allFiles(full) : entry.isFile() ? [full] : [];
  });
}

beforeAll(() => {
  for (const [name, value] of Object.entries(ENV)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(root, { recursive: true, force: true });
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

const dockerUp = await dockerHere();
const kinds: SandboxChoice[] = dockerUp ? ['rootfs', 'docker'] : ['rootfs'];

describe.each(kinds)('secrets never reach an output file (%s sandbox)', (kind) => {
  it(
    'a token planted in .git/config and secrets of the environment appear in no file of the out dir',
    async () => {
      if (kind === 'docker') await ensureTestDockerImage();
      const repo = hostileRepo(`hostile-${kind}`);
      // Replayed always: every output file is written (the replay's, and the patch series of the tracked file the
      // build wrote secrets into, which a fresh first turn would leave to build.sh to redo), and each is checked.
      const s = settings(
        repo,
        `hostile-${kind}`,
        { secretEnv: ['BB_TEST_DEPLOYMENT'], replay: 'always' },
        kind,
      );
      const result = await runBuild(s);
      expect(result.status).toBe('success');

      const files = allFiles(s.outDir);
      expect(files.some((f) => f.includes(`${path.sep}logs${path.sep}turn-00.log`))).toBe(true);
      expect(files.some((f) => f.includes(`${path.sep}replay${path.sep}`))).toBe(true);
      expect(files.some((f) => f.includes(`${path.sep}patches${path.sep}`))).toBe(true);
      const secrets = [GH_TOKEN, GH_BASIC, URL_TOKEN, API_KEY, DB_PASSWORD, MARKED];
      const names = ['GH_TOKEN', 'GH_BASIC', 'URL_TOKEN', 'API_KEY', 'DB_PASSWORD', 'MARKED'];
      const leaks = files.flatMap((file) => {
        const bytes = readFileSync(file);
        return secrets.flatMap((secret, i) =>
          bytes.includes(secret) ? [`${path.relative(s.outDir, file)}: ${names[i]}`] : [],
        );
      });
      expect(leaks).toEqual([]);
      // The build really ran and printed what it was after, and found the copy's config clean.
      const log = readFileSync(path.join(s.outDir, 'logs', 'turn-00.log'), 'utf8');
      expect(log).toContain('--- .git/config:');
      expect(log).toContain('password alone: [REDACTED]');
      expect(log).toContain('marked alone: [REDACTED]');
      expect(log).not.toMatch(/extraheader|helper = store/);
      // What was removed is named, never valued, in result.json and the RUNBOOK.
      const written = JSON.parse(readFileSync(path.join(s.outDir, 'result.json'), 'utf8')) as BuildResult;
      expect(written.sandbox.credentialsRemoved).toEqual(
        expect.arrayContaining([
          'http.https://github.com/.extraheader',
          'credential.helper',
          'remote.origin.url (userinfo)',
        ]),
      );
      const runbook = readFileSync(path.join(s.outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('credentials removed from its git configuration');
      // The user's checkout is untouched.
      expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toContain(GH_BASIC);
    },
    15 * 60_000,
  );
});

describe('logs are bounded', () => {
  it(
    'a build printing more than --max-log-size keeps its head and tail and records the true size',
    async () => {
      const max = 64 * 1024;
      const s = settings(loudRepo(), 'loud', { maxLogBytes: max });
      const result = await runBuild(s);
      expect(result.status).toBe('success');
      const turn = result.turns[0]!;
      expect(turn.logTruncated).toBe(true);
      expect(turn.logBytes).toBeGreaterThan(1_000_000);
      const logFile = path.join(s.outDir, turn.log!);
      expect(statSync(logFile).size).toBeLessThan(max + 1024);
      const log = readFileSync(logFile, 'utf8');
      expect(log).toContain('FIRST-LINE-OF-THE-LOG');
      expect(log).toContain('LAST-LINE-OF-THE-LOG');
      expect(log).toMatch(/\[\.\.\. buildbench: \d+ bytes of output dropped here/);
      expect(log).not.toContain('\n100000\n');
      // The replay's log likewise.
      const replay = result.recipe?.replay;
      expect(replay?.status).toBe('passed');
      expect(replay?.logTruncated).toBe(true);
      expect(replay?.logBytes).toBeGreaterThan(1_000_000);
      expect(statSync(path.join(s.outDir, replay!.log!)).size).toBeLessThan(max + 1024);
      const runbook = readFileSync(path.join(s.outDir, 'RUNBOOK.md'), 'utf8');
      expect(runbook).toContain('keep only their head and tail');
    },
    15 * 60_000,
  );
});
