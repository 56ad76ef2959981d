/**
 * The npm package as a user gets it (issue 33): the working tree's files (what a clean clone has) are copied
 * to a temporary folder and packed there (`npm pack` runs `prepack`, the build), the tarball is installed
 * into an empty prefix (`npm install -g --prefix`), and the installed `buildbench` runs from a folder that
 * is not the clone: `--version`, a build of a tiny repository to SUCCESS in the rootfs sandbox, a
 * `diagnose`, and a model-strategy build against the fake model server. A file the code reads at run time
 * that the package's `files` list leaves out fails the check of the tarball's contents, and the commands
 * that read it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BuildResult } from '../../src/report/result.js';
import { FakeLlmServer } from '../fakes/fake-llm-server.js';
import { oneScriptModel } from '../fakes/serve-fake-llm.js';
import { rootfsUnavailableReason } from '../helpers/sandbox.js';

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
const tmp = mkdtempSync(path.join(tmpdir(), 'bb-pack-install-'));
/** Where the commands run: a fresh folder, neither the clone nor the install prefix. */
const elsewhere = path.join(tmp, 'elsewhere');
const prefix = path.join(tmp, 'prefix');
const bin = path.join(prefix, 'bin', 'buildbench');
/** The children's environment: jest's NODE_OPTIONS and the clone's npm settings are not the user's. */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('npm_') && k !== 'OPENAI_API_KEY',
  ),
);
let tarball = '';
let tarballFiles: string[] = [];

/** Copies the files a clean clone has (tracked, and new ones git does not ignore) from the working tree. */
function copyWorkingTree(to: string): void {
  // safe.directory: CI runs the tests as root in a checkout another user owns
  const args = [
    '-c',
    `safe.directory=${root}`,
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
  ];
  const listed = execFileSync('git', args, {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  })
    .toString('utf8')
    .split('\0')
    .filter(Boolean);
  for (const rel of new Set(listed)) {
    const from = path.join(root, rel);
    // a file deleted in the working tree but still in the index; a submodule or folder entry
    if (!existsSync(from) || !lstatSync(from).isFile()) continue;
    mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
    copyFileSync(from, path.join(to, rel));
  }
}

/** Runs the installed `buildbench` from `elsewhere`. */
async function buildbench(
  args: string[],
  timeout = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(bin, args, {
      cwd: elsewhere,
      env,
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean };
    if (e.killed || typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A git repository with the quick start's example in it, outside the clone. */
function helloRepo(name: string): string {
  const repo = path.join(tmp, name);
  execFileSync('cp', ['-R', path.join(root, 'examples', 'hello'), repo]);
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'hello');
  return repo;
}

/**
 * The files the compiled code reads beside itself: every `new URL('<relative>', import.meta.url)` in src/,
 * resolved from the module's place under lib/ (the data files stay at their src/ paths, verifiers/ and
 * prompts/ at the top). The package's own package.json is always in a tarball.
 */
function runtimeFilesNamedInSources(): string[] {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(file, 'utf8');
        for (const m of text.matchAll(/new URL\(\s*'(\.{1,2}\/[^']+)',\s*import\.meta\.url\s*\)/g)) {
          const module = path.join('lib', path.relative(path.join(root, 'src'), file));
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(module), m[1]!));
          found.add(target.replace(/\/$/, ''));
        }
      }
    }
  };
  walk(path.join(root, 'src'));
  return [...found].sort();
}

beforeAll(async () => {
  mkdirSync(elsewhere);
  const tree = path.join(tmp, 'tree');
  copyWorkingTree(tree);
  // The build needs the clone's development tools (tsc, tsx): the ones `npm ci` installed.
  symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
  const packDir = path.join(tmp, 'pack');
  mkdirSync(packDir);
  const { stdout } = await execFileAsync(
    'npm',
    ['pack', '--json', '--pack-destination', packDir, '--no-audit', '--no-fund'],
    { cwd: tree, env, maxBuffer: 64 * 1024 * 1024, timeout: 10 * 60_000 },
  );
  // npm may print the scripts' output before the JSON, whose top-level array is the last line opening with '['
  const packed = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = path.join(packDir, packed[0]!.filename);
  tarballFiles = packed[0]!.files.map((f) => f.path).sort();
  rmSync(tree, { recursive: true, force: true });
  // From the cache `npm ci` filled where it can; the registry for the rest.
  await execFileAsync(
    'npm',
    ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { cwd: elsewhere, env, maxBuffer: 64 * 1024 * 1024, timeout: 10 * 60_000 },
  );
}, 20 * 60_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the npm package, packed, installed into an empty prefix and run from another folder', () => {
  it('the tarball holds the compiled CLI and every file it reads at run time, and no tests, fixtures or dist/', () => {
    expect(path.basename(tarball)).toBe(`${pkg.name}-${pkg.version}.tgz`);
    expect(tarballFiles).toEqual(
      expect.arrayContaining(['package.json', 'bin/buildbench.js', 'lib/cli/index.js']),
    );
    const needed = runtimeFilesNamedInSources();
    // the scan sees the data files (a scan that found nothing would prove nothing)
    expect(needed).toEqual(expect.arrayContaining(['prompts', 'src/recipe/catalog.yaml', 'lib/data']));
    const missing = needed.filter(
      (file) => !tarballFiles.some((f) => f === file || f.startsWith(`${file}/`)),
    );
    expect(missing).toEqual([]);
    // every verifier table, and the build's JSON of each shipped YAML file
    for (const name of readdirSync(path.join(root, 'verifiers')))
      expect(tarballFiles).toContain(`verifiers/${name}`);
    expect(tarballFiles).toContain('lib/data/signatures.yaml.json');
    const stray = tarballFiles.filter(
      (f) =>
        /^(test|dist|bench|tasks|examples|scripts|\.github|\.ci)\//.test(f) ||
        (f.startsWith('src/') && f.endsWith('.ts')) ||
        f.includes('fixtures/'),
    );
    expect(stray).toEqual([]);
  });

  it('the installed bin answers --version with the package version, from a folder that is not the clone', async () => {
    const { code, stdout } = await buildbench(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(pkg.version);
    // the command is the installed copy, not the clone's
    expect(
      readFileSync(path.join(prefix, 'lib', 'node_modules', pkg.name, 'package.json'), 'utf8'),
    ).toContain(`"version": "${pkg.version}"`);
  }, 60_000);

  it('diagnose explains a small failed log', async () => {
    const log = path.join(elsewhere, 'failed.log');
    writeFileSync(
      log,
      'main.c:3:10: fatal error: zlib.h: No such file or directory\ncompilation terminated.\n',
    );
    const { code, stdout } = await buildbench(['diagnose', log, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      found: true,
      rootCause: { id: 'missing-header' },
      fix: { kind: 'packages', packages: ['zlib1g-dev'] },
    });
  }, 60_000);

  describe('builds in the rootfs sandbox', () => {
    let skip = '';
    let server: FakeLlmServer | undefined;
    beforeAll(async () => {
      skip = await rootfsUnavailableReason();
      if (skip && process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') throw new Error(skip);
      server = await FakeLlmServer.start();
    });
    afterAll(async () => {
      await server?.close();
    });

    async function build(
      repo: string,
      name: string,
      extra: string[] = [],
    ): Promise<{ code: number; result: BuildResult; out: string; stderr: string }> {
      const out = path.join(tmp, `${name}-out`);
      const { code, stderr } = await buildbench(
        ['build', repo, '--sandbox', 'rootfs', '--out', out, '--max-turns', '2', ...extra],
        10 * 60_000,
      );
      const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
      return { code, result, out, stderr };
    }

    it(
      'a rules build of the quick start example succeeds',
      async () => {
        if (skip) return console.warn(`skipped: the rootfs sandbox cannot run here (${skip})`);
        const { code, result, out, stderr } = await build(helloRepo('hello-rules'), 'rules');
        expect({ code, status: result.status }).toEqual({ code: 0, status: 'success' });
        expect(stderr).toContain('SUCCESS');
        expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
        expect(existsSync(path.join(out, 'artifacts', 'build', 'hello'))).toBe(true);
        expect(existsSync(path.join(out, 'build.sh'))).toBe(true);
      },
      11 * 60_000,
    );

    it(
      'a model-strategy build against the fake model server succeeds, and the verifiers decide',
      async () => {
        if (skip) return console.warn(`skipped: the rootfs sandbox cannot run here (${skip})`);
        server!.handler = oneScriptModel('set -euo pipefail\ncmake -S . -B build\ncmake --build build\n');
        const { code, result } = await build(helloRepo('hello-llm'), 'llm', [
          '--strategy',
          'llm',
          '--model',
          'openai:test-model',
          '--base-url',
          server!.openaiBaseUrl,
          '--api-key',
          'test',
        ]);
        expect({ code, status: result.status }).toEqual({ code: 0, status: 'success' });
        expect(result.metrics.strict).toBe(true);
        expect(result.llm).toMatchObject({ model: 'openai:test-model' });
        // the prompts came from the package: the system prompt's opening words reached the server
        const opening = readFileSync(path.join(root, 'prompts', 'system.md'), 'utf8').split('.')[0]!;
        expect(opening.length).toBeGreaterThan(20);
        expect(server!.requests.some((r) => r.raw.includes(JSON.stringify(opening).slice(1, -1)))).toBe(true);
        expect(server!.requests.every((r) => r.headers.authorization === 'Bearer test')).toBe(true);
      },
      11 * 60_000,
    );
  });
});
