/**
 * `buildbench verify` on folders made in temp dirs: a build done by hand (a git checkout with a committed
 * binary, a vendored library, a test binary) and the output folder of a kept build.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../../src/cli/main.js';
import { parseVerifyArgs } from '../../../src/cli/verify.js';
import { keptTreeOf, type VerifyReport } from '../../../src/core/run-verify.js';
import { saveSnapshot, SNAPSHOT_FILE } from '../../../src/verify/baseline.js';
import { snapshotTree } from '../../../src/verify/artifacts.js';
import { ET_EXEC, makeArchive, makeElf } from '../verify/helpers/elf.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      env: { HOME: tmpdir() },
      cwd: tmpdir(),
    },
  };
}

const elf = makeElf({ bits: 64, little: true, type: ET_EXEC, size: 256 });

function tree(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-verify-cli-'));
  temps.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

const git = (dir: string, ...args: string[]): void => {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    cwd: dir,
    stdio: 'ignore',
  });
};

describe('buildbench verify', () => {
  it('scans a build done by hand: committed, vendored and test binaries do not count', async () => {
    const dir = tree({
      Makefile: 'all: app\napp: app.c\n\tcc -o app app.c\n',
      'app.c': 'int main(void){return 0;}\n',
      'prebuilt/app': elf, // committed: not new
    });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'init');
    mkdirSync(path.join(dir, 'third_party/z'), { recursive: true });
    writeFileSync(path.join(dir, 'third_party/z/libz.a'), makeArchive());
    mkdirSync(path.join(dir, 'tests'));
    writeFileSync(path.join(dir, 'tests/unit'), elf);

    const a = io();
    expect(await run(['verify', dir, '--expect', 'app'], a.io)).toBe(1);
    const text = a.out.join('');
    expect(text).toMatch(/^FAIL {4}artifact app {2}not produced \(cli\)$/m);
    expect(text).toMatch(/third_party\/z\/libz\.a \(under third_party\/, vendored code\)/);
    expect(text).toMatch(/tests\/unit \(under tests\/, a test, example or benchmark directory\)/);
    expect(text).toMatch(/baseline git/);
    expect(text).toMatch(/FAIL: 1 of 1 required checks failed\n$/);

    writeFileSync(path.join(dir, 'app'), elf); // the build's product
    const b = io();
    expect(await run(['verify', dir, '--json'], b.io)).toBe(0);
    const report = JSON.parse(b.out.join('')) as VerifyReport;
    expect(report).toMatchObject({
      mode: 'directory',
      baseline: 'git',
      execution: 'none',
      passed: true,
      expected: { names: ['app'], source: 'inferred' },
      metrics: { completion: true, strict: true, flexible: true },
      artifacts: [{ path: 'app', kind: 'executable' }],
    });
    expect(report.excludedArtifacts.map((e) => e.reason)).toEqual(['test', 'vendored']);
  });

  it('re-scans the kept tree of an output folder against the snapshot taken before the build', async () => {
    const kept = tree({ 'src/main.c': 'x\n', 'old-binary': elf });
    const before = await snapshotTree(kept);
    const out = tree({});
    await saveSnapshot(path.join(out, SNAPSHOT_FILE), before);
    writeFileSync(
      path.join(out, 'result.json'),
      JSON.stringify({
        schema: 'buildbench.result/v1',
        expected: { names: ['hello'], source: 'cli', matched: [], missing: [], ignored: [] },
        sandbox: {
          kind: 'docker',
          image: 'ubuntu:22.04',
          keptAt: `repository copy in ${kept} (container c, image i)`,
        },
        files: {
          trajectory: 'trajectory.jsonl',
          logs: 'logs/',
          artifacts: 'artifacts/',
          snapshot: SNAPSHOT_FILE,
        },
      }),
    );
    const a = io();
    expect(await run(['verify', out], a.io)).toBe(1);
    expect(a.out.join('')).toMatch(/artifact hello +not produced \(cli\)/);
    mkdirSync(path.join(kept, 'build'));
    writeFileSync(path.join(kept, 'build/hello'), elf);
    const b = io();
    expect(await run(['verify', out, '--json'], b.io)).toBe(0);
    const report = JSON.parse(b.out.join('')) as VerifyReport;
    expect(report).toMatchObject({ mode: 'out-dir', tree: kept, baseline: 'snapshot', execution: 'none' });
    expect(report.artifacts.map((x) => x.path)).toEqual(['build/hello']); // old-binary was there before
    expect(report.notes.join(' ')).toMatch(/the build ran in the docker sandbox, not rootfs/);
  });

  it('runs a spec in place with --sandbox host and reports it as not run otherwise', async () => {
    const dir = tree({ hello: elf });
    const spec = path.join(dir, '..', `${path.basename(dir)}.yml`);
    temps.push(spec);
    writeFileSync(spec, "checks:\n  - { name: lists, command: ls, expect: { stdout: '^hello$' } }\n");
    const a = io();
    expect(await run(['verify', dir, '--spec', spec, '--sandbox', 'host', '--expect', 'hello'], a.io)).toBe(
      0,
    );
    expect(a.out.join('')).toMatch(/^pass {4}spec: lists +exit 0; stdout matches \/\^hello\$\/$/m);
    const b = io();
    expect(await run(['verify', dir, '--spec', spec, '--expect', 'hello'], b.io)).toBe(1);
    expect(b.out.join('')).toMatch(/spec: lists +not run: no sandbox to run it in \(scan only\)/);
  });

  it('exits 2 on usage errors, naming what was wrong', async () => {
    const dir = tree({ 'a.c': '\n' });
    const typo = path.resolve('test/fixtures/specs/typo.yml');
    const cases: [string[], RegExp][] = [
      [['verify'], /verify: missing <out-dir\|build-tree>/],
      [['verify', dir, dir], /expected one folder, got 2/],
      [['verify', path.join(dir, 'nope')], /is not a directory/],
      [['verify', dir, '--bogus'], /--bogus/],
      [
        ['verify', dir, '--sandbox', 'docker'],
        /--sandbox: 'docker' is not valid; expected one of auto, rootfs, host, none/,
      ],
      [['verify', dir, '--sandbox', 'rootfs'], /--sandbox rootfs re-enters a build kept with --keep/],
      [
        ['verify', dir, '--spec', typo],
        /typo\.yml:7: checks\[0\]\.expect\.exit_cod: unknown field \(did you mean 'exit_code'\?\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const a = io();
      expect(await run(args, a.io)).toBe(2);
      expect(a.err.join('')).toMatch(message);
    }
    const out = tree({
      'result.json': JSON.stringify({
        schema: 'buildbench.result/v1',
        sandbox: { kind: 'rootfs', image: 'x' },
      }),
    });
    const b = io();
    expect(await run(['verify', out], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/names no kept build tree \(run buildbench build with --keep/);
    const h = io();
    expect(await run(['verify', '--help'], h.io)).toBe(0);
    expect(h.out.join('')).toMatch(/^usage: buildbench verify <out-dir\|build-tree>/);
  });

  it('exits 2 on a result.json of the wrong shape, naming the file and the field', async () => {
    const kept = tree({ 'main.c': 'x\n' });
    const base = {
      schema: 'buildbench.result/v1',
      sandbox: { kind: 'docker', image: 'i', keptWorkdir: kept },
    };
    const cases: [unknown, RegExp][] = [
      [null, /result\.json holds null, not a buildbench result object/],
      ['a string', /result\.json holds the string "a string", not a buildbench result object/],
      [[1, 2], /result\.json holds a list, not a buildbench result object/],
      [{ schema: 7 }, /result\.json is not a buildbench result \(schema the number 7\)/],
      [{ schema: 'buildbench.result/v1' }, /result\.json: sandbox is missing; expected an object/],
      [{ ...base, sandbox: null }, /result\.json: sandbox is null; expected an object/],
      [
        { ...base, sandbox: { image: 'i' } },
        /result\.json: sandbox\.kind is missing; expected rootfs, docker or host/,
      ],
      [
        { ...base, sandbox: { kind: 'rootfs', keptWorkdir: 5 } },
        /result\.json: sandbox\.keptWorkdir is the number 5; expected a string/,
      ],
      [{ ...base, files: 'x' }, /result\.json: files is the string "x"; expected an object/],
      [{ ...base, files: { snapshot: [] } }, /result\.json: files\.snapshot is a list; expected a string/],
      [
        { ...base, expected: { names: 'a', source: 'cli' } },
        /result\.json: expected\.names is the string "a"; expected a list/,
      ],
      [
        { ...base, verification: { spec: { file: null } } },
        /result\.json: verification\.spec\.file is null; expected a path/,
      ],
      [
        base,
        /result\.json: expected is missing; expected the names the build was to produce \(pass --expect names\)/,
      ],
    ];
    for (const [content, message] of cases) {
      const out = tree({ 'result.json': JSON.stringify(content) });
      const a = io();
      expect(await run(['verify', out], a.io)).toBe(2);
      const err = a.err.join('');
      expect(err).toMatch(/^buildbench: verify: \/.*\/result\.json/);
      expect(err).toMatch(message);
      expect(err).not.toMatch(/TypeError|Cannot read properties/);
      expect(err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('says so when the snapshot is not gzip, and what it fell back to', async () => {
    const kept = tree({ 'main.c': 'x\n', hello: elf });
    const out = tree({ [SNAPSHOT_FILE]: 'plain text, not gzip' });
    writeFileSync(
      path.join(out, 'result.json'),
      JSON.stringify({
        schema: 'buildbench.result/v1',
        expected: { names: ['hello'], source: 'cli' },
        sandbox: { kind: 'docker', image: 'i', keptWorkdir: kept },
        files: { trajectory: 't', logs: 'logs/', artifacts: 'artifacts/', snapshot: SNAPSHOT_FILE },
      }),
    );
    const a = io();
    expect(await run(['verify', out, '--json'], a.io)).toBe(0);
    const report = JSON.parse(a.out.join('')) as VerifyReport;
    expect(report.baseline).toBe('none');
    expect(report.notes.join('\n')).toMatch(
      /the snapshot .*snapshot\.json\.gz was not used: it is not gzip-compressed \(.*\); fell back to no baseline: every binary in the tree counts as new/,
    );
    git(kept, 'init', '-q');
    git(kept, 'add', 'main.c');
    git(kept, 'commit', '-q', '-m', 'init');
    const b = io();
    expect(await run(['verify', out], b.io)).toBe(0);
    expect(b.out.join('')).toMatch(
      /note: the snapshot .* was not used: it is not gzip-compressed .*; fell back to the files git tracks/,
    );
  });

  it('parses flags into settings and finds the kept tree of older results', () => {
    const s = parseVerifyArgs(['out', '--spec', 's.yml', '--expect', 'a,b', '--sandbox', 'host'], {
      env: { HOME: '/root' },
      cwd: '/w',
    });
    expect(s).toMatchObject({
      target: '/w/out',
      spec: '/w/s.yml',
      expect: ['a', 'b'],
      sandbox: 'host',
      json: false,
    });
    expect(s.sandboxSettings.allowHost).toBe(true);
    expect(
      keptTreeOf({
        sandbox: {
          kind: 'rootfs',
          image: 'debian:bookworm',
          keptAt:
            'build folder /w/x (repository copy in /w/x/workspace, changes to the system in /w/x/upper)',
        },
      }),
    ).toBe('/w/x/workspace');
    expect(keptTreeOf({ sandbox: { kind: 'host', image: 'h', keptWorkdir: '/k' } })).toBe('/k');
  });
});
