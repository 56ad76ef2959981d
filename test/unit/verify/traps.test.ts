/**
 * Build trees with planted traps, each judged by the verifiers as BUILD-BENCH would. The trees are made in
 * temp folders (binaries do not belong in git): a binary committed to the repository, an object file as the
 * only output, a vendored submodule that built while the main target failed, a crashing executable and a
 * debug build without debug info. Commands run through the host sandbox, in a copy of the tree.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHostSandbox } from '../../../src/sandbox/host.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { snapshotTree } from '../../../src/verify/artifacts.js';
import { excludeBuildScratch } from '../../../src/verify/exclude.js';
import { scoringPolicyFor } from '../../../src/verify/policy.js';
import { parseSpec } from '../../../src/verify/spec.js';
import type { Expected } from '../../../src/verify/types.js';
import { BuildVerifier } from '../../../src/verify/verifier.js';
import { repoInfo, system } from '../../fakes/repo-info.js';
import { sandboxTestSettings } from '../../helpers/sandbox.js';
import { ET_EXEC, ET_REL, makeArchive, makeElf } from './helpers/elf.js';

const temps: string[] = [];
const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const s of sandboxes) await s.dispose();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const gcc = (() => {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A repository in a temp folder with the given files, copied into a fresh host sandbox. */
async function sandboxWith(files: Record<string, string | Buffer>): Promise<Sandbox> {
  const repo = mkdtempSync(path.join(tmpdir(), 'bb-trap-repo-'));
  const workRoot = mkdtempSync(path.join(tmpdir(), 'bb-trap-work-'));
  temps.push(repo, workRoot);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    writeFileSync(path.join(repo, rel), content);
  }
  const box = await createHostSandbox(sandboxTestSettings('host', { allowHost: true, workRoot }), {
    repoDir: repo,
    name: 'trap',
  });
  sandboxes.push(box);
  return box;
}

async function verifierFor(
  box: Sandbox,
  expected: Expected,
  repo = repoInfo(),
  spec?: string,
): Promise<BuildVerifier> {
  const before = await snapshotTree(box.hostWorkdir, { exclude: excludeBuildScratch });
  return new BuildVerifier({
    root: box.hostWorkdir,
    before,
    expected,
    policy: scoringPolicyFor(repo, expected),
    sandbox: box,
    ...(spec ? { spec: parseSpec(spec, 'spec.yml') } : {}),
  });
}

const elf = makeElf({ bits: 64, little: true, type: ET_EXEC, size: 256 });

describe('planted traps', () => {
  it('a binary committed to the repository is not a build product', async () => {
    const box = await sandboxWith({ 'prebuilt/tool': elf, Makefile: 'all:\n\ttrue\n' });
    const verifier = await verifierFor(box, { names: ['tool'], source: 'cli' });
    await box.exec('touch Makefile', { timeoutMs: 10_000 }); // the "build" changes nothing else
    const { artifacts, verdict } = await verifier.verify();
    expect(artifacts).toEqual([]);
    expect(verdict).toMatchObject({ passed: false, metrics: { completion: false, strict: false } });
    expect(verdict.failures).toEqual(["expected binary 'tool' (cli) was not produced"]);
  });

  it('an object file alone is not a build product', async () => {
    const box = await sandboxWith({ 'main.c': 'int main(void){return 0;}\n' });
    const verifier = await verifierFor(box, { names: [], source: 'none' });
    writeFileSync(
      path.join(box.hostWorkdir, 'main.o'),
      makeElf({ bits: 64, little: true, type: ET_REL, size: 128 }),
    );
    const { artifacts, verdict } = await verifier.verify();
    expect(artifacts).toEqual([]);
    expect(verdict).toMatchObject({ passed: false, failures: ['no new executable or library was built'] });
    expect(verifier.report().passed).toBe(false);
  });

  it('a vendored submodule that built while the main target failed is neither strict nor success', async () => {
    const box = await sandboxWith({ 'CMakeLists.txt': 'project(app)\n', 'third_party/zlib/zlib.h': '\n' });
    const repo = repoInfo({
      buildSystems: [system('cmake')],
      submodules: [{ path: 'third_party/zlib', url: 'https://example.com/zlib.git', populated: true }],
    });
    const expected: Expected = { names: ['app'], source: 'inferred' };
    const verifier = await verifierFor(box, expected, repo);
    mkdirSync(path.join(box.hostWorkdir, 'build/third_party/zlib'), { recursive: true });
    writeFileSync(
      path.join(box.hostWorkdir, 'build/third_party/zlib/libz.a'),
      makeArchive('adler32.o', Buffer.from('x')),
    );
    writeFileSync(path.join(box.hostWorkdir, 'build/third_party/zlib/example'), elf);
    const { artifacts, verdict } = await verifier.verify();
    expect(artifacts).toEqual([]);
    expect(verdict).toMatchObject({
      passed: false,
      metrics: { completion: false, strict: false, flexible: false },
    });
    expect(verifier.excluded.map((e) => [e.path, e.reason, e.dir])).toEqual([
      ['build/third_party/zlib/example', 'submodule', 'build/third_party/zlib'],
      ['build/third_party/zlib/libz.a', 'submodule', 'build/third_party/zlib'],
    ]);
    const report = verifier.report();
    expect(report.checks).toEqual([
      {
        name: 'artifact app',
        passed: false,
        detail: 'not produced (inferred)',
        source: 'artifacts',
        required: true,
      },
    ]);
  });

  (gcc ? it : it.skip)(
    'a crashing executable is caught by the run probe (advisory unless the spec asks)',
    async () => {
      const files = {
        'crash.c':
          '#include <string.h>\nint main(int c, char **v) { if (c > 1 && strcmp(v[1], "--ok") == 0) return 0; volatile int *p = 0; return *p; }\n',
        'fine.c': '#include <stdio.h>\nint main(void) { puts("fine 1.0"); return 0; }\n',
      };
      const build = 'mkdir -p build && gcc -o build/crash crash.c && gcc -o build/fine fine.c';
      const box = await sandboxWith(files);
      const expected: Expected = { names: ['crash', 'fine'], source: 'cli' };
      const advisory = await verifierFor(box, expected);
      expect((await box.exec(build, { timeoutMs: 60_000 })).exitCode).toBe(0);
      expect((await advisory.verify()).verdict.passed).toBe(true);
      await advisory.finish({ probes: true });
      const report = advisory.report();
      expect(report.passed).toBe(true); // advisory: recorded, does not change the verdict
      const probes = report.checks.filter((c) => c.source === 'probe');
      expect(probes.map((c) => [c.name, c.passed, c.required])).toEqual([
        ['probe run build/crash', false, false],
        ['probe run build/fine', true, false],
      ]);
      expect(probes[0]?.detail).toMatch(/^--version: crashed \(killed by SIGSEGV, exit 139\)/);
      expect(probes[1]?.detail).toBe('--version exited 0: fine 1.0');

      const box2 = await sandboxWith(files);
      const required = await verifierFor(box2, expected, repoInfo(), 'probes: { run: true }\n');
      await box2.exec(build, { timeoutMs: 60_000 });
      const { verdict } = await required.verify();
      expect(verdict.passed).toBe(false);
      expect(verdict.failures).toEqual([
        expect.stringMatching(/^probe run build\/crash: --version: crashed \(killed by SIGSEGV/),
      ]);
    },
  );

  (gcc ? it : it.skip)(
    'the advisory probe starts the expected programs only, when they were built; all of them otherwise',
    async () => {
      const files = {
        'app.c': '#include <stdio.h>\nint main(void) { puts("app 2.0"); return 0; }\n',
        // A benchmark that ignores --version and runs until the probe stops it.
        'bench.c': 'int main(void) { for (;;) {} }\n',
      };
      const build = 'mkdir -p build && gcc -o build/app app.c && gcc -o build/app_perftest bench.c';
      const box = await sandboxWith(files);
      const named = await verifierFor(box, { names: ['app'], source: 'cli' });
      await box.exec(build, { timeoutMs: 60_000 });
      expect((await named.verify()).verdict.passed).toBe(true);
      await named.finish({ probes: true });
      const probes = (v: BuildVerifier): string[] =>
        v
          .report()
          .checks.filter((c) => c.source === 'probe')
          .map((c) => c.name);
      expect(probes(named)).toEqual(['probe run build/app']);

      // Nothing expected by name: every program built is started (the benchmark runs to the limit).
      const box2 = await sandboxWith({ 'app.c': files['app.c'] });
      const any = await verifierFor(box2, { names: [], source: 'none' });
      await box2.exec('mkdir -p build && gcc -o build/app app.c && cp build/app build/other', {
        timeoutMs: 60_000,
      });
      await any.verify();
      await any.finish({ probes: true });
      expect(probes(any)).toEqual(['probe run build/app', 'probe run build/other']);
    },
  );

  (gcc ? it : it.skip)(
    'a debug build asked for but built without -g fails the debug-info probe',
    async () => {
      const box = await sandboxWith({ 'm.c': 'int main(void) { return 0; }\n' });
      const spec = 'probes: { debug_info: true }\n';
      const verifier = await verifierFor(box, { names: ['m'], source: 'cli' }, repoInfo(), spec);
      await box.exec('gcc -O2 -o m m.c', { timeoutMs: 60_000 });
      const { verdict } = await verifier.verify();
      expect(verdict.failures).toEqual([
        'probe debug_info m: no .debug_info section: not built with -g, or stripped',
      ]);
      await box.exec('gcc -g -o m m.c', { timeoutMs: 60_000 });
      expect((await verifier.verify()).verdict.passed).toBe(true);
    },
  );

  it('spec checks do not run while expected binaries are missing, and run once they are built', async () => {
    const box = await sandboxWith({ Makefile: 'x\n' });
    const spec = "checks:\n  - { name: runs, command: ./app, expect: { stdout: '^app$' } }\n";
    const verifier = await verifierFor(box, { names: ['app'], source: 'cli' }, repoInfo(), spec);
    const first = await verifier.verify();
    expect(first.verdict.failures).toEqual([
      "expected binary 'app' (cli) was not produced",
      'spec: runs: not run: the expected binaries are missing',
    ]);
    // a shell script is not a binary: still missing, even though ./app would now print "app"
    writeFileSync(path.join(box.hostWorkdir, 'app'), '#!/bin/sh\necho app\n', { mode: 0o755 });
    expect((await verifier.verify()).verdict.passed).toBe(false);
  });
});
