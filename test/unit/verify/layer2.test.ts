/**
 * Layer-2 checks judged from recorded results (pure), and run for real through the host sandbox in a temp
 * folder (fast: plain bash on this machine). The same checks in the rootfs sandbox: test/integration.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHostSandbox } from '../../../src/sandbox/host.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import {
  envPrelude,
  judgeCheck,
  judgeMetric,
  outputTail,
  parseResults,
  runSpec,
  valueAt,
} from '../../../src/verify/layer2.js';
import { parseSpec, type SpecCheck } from '../../../src/verify/spec.js';
import { sandboxTestSettings } from '../../helpers/sandbox.js';

function check(yaml: string): SpecCheck {
  return parseSpec(`checks:\n${yaml}`, 'spec.yml').checks[0]!;
}

describe('judging a check from its recorded results', () => {
  const captured = { stdout: 'hello\nworld\n', stderr: 'warning: x\n', serial: '', gpu: '' };
  const exec = { exitCode: 0, timedOut: false, output: '' };

  it('passes when every expectation holds and lists what it saw', () => {
    const c = check("  - name: a\n    command: x\n    expect: { stdout: '^world$', stderr_not: 'error' }\n");
    const outcome = judgeCheck(c, parseResults('exit 0 12 0\ndone\n'), captured, exec);
    expect(outcome).toMatchObject({ name: 'a', passed: true, exitCode: 0, durationMs: 12 });
    expect(outcome.detail).toBe('exit 0; stdout matches /^world$/; stderr has no /error/');
  });

  it('names every failure, with the last output for a wrong exit code', () => {
    const c = check(
      "  - name: a\n    command: x\n    expect: { exit_code: 0, stdout: 'bye', stderr_not: 'warning', files: [{ path: out, newer_than_start: true }, gone] }\n",
    );
    const outcome = judgeCheck(c, parseResults('exit 2 5 0\nfile 0 110\nfile 1 000\ndone\n'), captured, exec);
    expect(outcome.passed).toBe(false);
    expect(outcome.detail).toBe(
      'exit code 2, expected 0 (last output: warning: x); stdout has no match for /bye/; stderr matches /warning/: warning: x; ' +
        'out was not written during the check; gone does not exist',
    );
  });

  it('reports a timeout and a script that never recorded anything', () => {
    const c = check('  - name: a\n    command: x\n    timeout: 1s\n');
    expect(judgeCheck(c, parseResults('exit 124 1003 0\n'), captured, exec).detail).toBe(
      'timed out after 1 s',
    );
    expect(
      judgeCheck(c, parseResults(''), captured, {
        exitCode: 1,
        timedOut: false,
        output: 'cd: /nope: No such file or directory\n',
      }).detail,
    ).toBe("the check's script ended early (exit code 1): cd: /nope: No such file or directory");
  });
});

describe('running checks in the host sandbox', () => {
  let sandbox: Sandbox;
  const temps: string[] = [];
  const port = 20000 + Math.floor(Math.random() * 20000);
  const python = (() => {
    try {
      execFileSync('python3', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  beforeAll(async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'bb-layer2-repo-'));
    writeFileSync(path.join(repo, 'old.txt'), 'from the checkout\n');
    utimesSync(path.join(repo, 'old.txt'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const workRoot = mkdtempSync(path.join(tmpdir(), 'bb-layer2-work-'));
    temps.push(repo, workRoot);
    sandbox = await createHostSandbox(sandboxTestSettings('host', { allowHost: true, workRoot }), {
      repoDir: repo,
      name: 'layer2',
    });
  });
  afterAll(async () => {
    await sandbox.dispose();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  it('checks exit code, separate streams, new files and output patterns', async () => {
    const spec = parseSpec(
      [
        'checks:',
        '  - name: writes',
        '    command: |',
        '      echo "built $GREETING" ; echo "oops" >&2',
        '      mkdir -p out && echo data > out/result.txt && : > out/empty',
        '    env: { GREETING: ok }',
        '    expect:',
        '      exit_code: 0',
        "      stdout: '^built ok$'",
        "      stdout_not: 'oops'",
        "      stderr: '^oops$'",
        '      files:',
        '        - { path: out/result.txt, non_empty: true, newer_than_start: true }',
        '        - { path: old.txt, newer_than_start: true }',
        '        - { path: out/empty, non_empty: true }',
        '  - name: fails',
        '    command: exit 3',
        '  - name: elsewhere',
        '    command: pwd',
        '    cwd: out',
        "    expect: { stdout: '/out$' }",
      ].join('\n'),
      'spec.yml',
    );
    const result = await runSpec(spec, sandbox);
    expect(result.checks.map((c) => [c.name, c.passed, c.detail])).toEqual([
      ['writes', false, 'old.txt was not written during the check; out/empty is empty'],
      ['fails', false, 'exit code 3, expected 0'],
      ['elsewhere', true, 'exit 0; stdout matches //out$/'],
    ]);
    expect(result.passed).toBe(false);
    // nothing is left behind in the working copy
    expect(existsSync(path.join(sandbox.hostWorkdir, '.buildbench'))).toBe(false);
  });

  it('stops a command at its timeout', async () => {
    const spec = parseSpec('checks:\n  - { name: slow, command: sleep 30, timeout: 1s }\n', 'spec.yml');
    const started = Date.now();
    const [outcome] = (await runSpec(spec, sandbox)).checks;
    expect(outcome).toMatchObject({ passed: false, detail: 'timed out after 1 s' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  (python ? it : it.skip)(
    'waits for a port that a server started in the same command answers, then stops it',
    async () => {
      const spec = parseSpec(
        [
          'checks:',
          '  - name: serves',
          `    command: sleep 0.5; exec python3 -m http.server ${port} --bind 127.0.0.1`,
          `    expect: { port: { port: ${port}, within: 20s } }`,
          '  - name: nobody',
          '    command: "true"',
          `    expect: { port: { port: ${port}, within: 1s } }`,
        ].join('\n'),
        'spec.yml',
      );
      const [serves, nobody] = (await runSpec(spec, sandbox)).checks;
      expect(serves?.passed).toBe(true);
      expect(serves?.detail).toMatch(
        new RegExp(`^port ${port} on 127\\.0\\.0\\.1 answered after [0-9.]+ s$`),
      );
      expect(serves?.exitCode).toBeNull(); // still serving when the probe answered: stopped, not judged
      expect(nobody).toMatchObject({
        passed: false,
        detail: `port ${port} on 127.0.0.1 did not answer within 1 s`,
      });
    },
  );

  it('waits for a pattern in a serial log and asks nvidia-smi for GPU evidence', async () => {
    const spec = parseSpec(
      [
        'checks:',
        '  - name: boots',
        '    command: \'(sleep 0.3; printf "booting\\nlogin: ") > guest.log & sleep 60\'',
        "    expect: { serial_log: { path: guest.log, pattern: '^login:', within: 15s } }",
        '  - name: gpu',
        '    command: echo using cuda:0',
        "    expect: { gpu: { pattern: 'cuda:\\d' } }",
      ].join('\n'),
      'spec.yml',
    );
    const started = Date.now();
    const [boots, gpu] = (await runSpec(spec, sandbox)).checks;
    expect(boots?.passed).toBe(true);
    expect(boots?.detail).toMatch(/^guest\.log shows \/\^login:\/ after [0-9.]+ s$/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const hasGpu = (() => {
      try {
        return execFileSync('nvidia-smi', ['-L'], { encoding: 'utf8' }).includes('GPU 0');
      } catch {
        return false;
      }
    })();
    expect(gpu?.passed).toBe(hasGpu);
    expect(gpu?.detail).toMatch(
      hasGpu ? /nvidia-smi lists GPU 0/ : /nvidia-smi (is not available|lists no device)/,
    );
  });

  it('never counts a serial log left by an earlier boot', async () => {
    writeFileSync(path.join(sandbox.hostWorkdir, 'stale.log'), 'login: from the last boot\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path.join(sandbox.hostWorkdir, 'stale.log'), old, old);
    const spec = parseSpec(
      [
        'checks:',
        '  - name: stale',
        '    command: sleep 1',
        "    expect: { serial_log: { path: stale.log, pattern: '^login:', within: 10s } }",
      ].join('\n'),
      'spec.yml',
    );
    const [stale] = (await runSpec(spec, sandbox)).checks;
    expect(stale).toMatchObject({ passed: false, detail: 'stale.log is missing or empty after 10 s' });
  });

  it('stops waiting for a serial pattern once the guest has ended without it', async () => {
    const spec = parseSpec(
      [
        'checks:',
        '  - name: panics',
        '    command: printf "Kernel panic\\n" > panic.log',
        "    expect: { serial_log: { path: panic.log, pattern: '^login:', within: 60s } }",
      ].join('\n'),
      'spec.yml',
    );
    const started = Date.now();
    const [panics] = (await runSpec(spec, sandbox)).checks;
    expect(panics).toMatchObject({
      passed: false,
      detail: 'panic.log has no match for /^login:/ within 60 s',
    });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('metrics expectations and a deploy environment file', () => {
  it('reads a number at a dotted key and judges it against its bounds', () => {
    const data = { eval: { top1: 0.81 }, runs: [{ loss: 0.2 }], label: 'x' };
    expect(valueAt(data, 'eval.top1')).toBe(0.81);
    expect(valueAt(data, 'runs.0.loss')).toBe(0.2);
    expect(valueAt(data, 'runs.1.loss')).toBeUndefined();
    expect(valueAt(data, 'eval.top5')).toBeUndefined();
    // Only own keys: a path through the prototype is not a value of the file.
    expect(valueAt(data, 'constructor')).toBeUndefined();
    const text = JSON.stringify(data);
    const metric = { file: 'r.json', key: 'eval.top1' };
    expect(judgeMetric({ ...metric, min: 0.8, max: 1 }, text)).toEqual({
      passed: true,
      detail: 'r.json: eval.top1 = 0.81 (≥ 0.8 and ≤ 1)',
    });
    expect(judgeMetric({ ...metric, min: 0.9 }, text)).toEqual({
      passed: false,
      detail: 'r.json: eval.top1 = 0.81, expected ≥ 0.9',
    });
    expect(judgeMetric({ ...metric, max: 0.5 }, text).passed).toBe(false);
    expect(judgeMetric(metric, text)).toEqual({ passed: true, detail: 'r.json: eval.top1 = 0.81' });
    expect(judgeMetric({ file: 'r.json', key: 'label' }, text)).toEqual({
      passed: false,
      detail: 'r.json: label is "x", not a number',
    });
    expect(judgeMetric({ file: 'r.json', key: 'eval.top5' }, text).detail).toBe(
      'r.json: eval.top5 is missing',
    );
    expect(judgeMetric(metric, '{ not json').detail).toBe('r.json is not valid JSON');
    expect(judgeMetric(metric, undefined).detail).toBe('r.json: eval.top1: not read (no such file)');
  });

  it('keeps a failed check’s last output lines as its evidence', () => {
    const c = check(
      '  - name: a\n    command: x\n    expect: { metrics: [{ file: r.json, key: n, min: 1 }] }\n',
    );
    const captured = {
      stdout: 'line 1\nline 2\n',
      stderr: 'Traceback\nValueError: bad\n',
      serial: '',
      gpu: '',
    };
    const exec = { exitCode: 0, timedOut: false, output: '' };
    const failed = judgeCheck(c, parseResults('exit 0 5 0\nmetric 0 0\ndone\n'), captured, exec);
    expect(failed).toMatchObject({ passed: false, detail: 'r.json: n: not read (no such file)' });
    expect(failed.outputTail).toBe('stdout:\nline 1\nline 2\nstderr:\nTraceback\nValueError: bad');
    const passed = judgeCheck(
      c,
      parseResults('exit 0 5 0\nmetric 0 1\ndone\n'),
      { ...captured, metrics: ['{"n": 3}'] },
      exec,
    );
    expect(passed).toMatchObject({ passed: true, detail: 'exit 0; r.json: n = 3 (≥ 1)' });
    expect(passed.outputTail).toBeUndefined();
    expect(outputTail('', '')).toBe('');
    expect(outputTail(Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n'), '', 3)).toBe(
      'stdout:\nl37\nl38\nl39',
    );
  });

  it('sources the environment file before the command, keeping the check’s folder', () => {
    expect(envPrelude({ workdir: '/work/repo' }, undefined)).toBe('');
    expect(envPrelude({ workdir: '/work/repo' }, '.buildbench/deploy-env.sh')).toBe(
      `if [ -f '/work/repo/.buildbench/deploy-env.sh' ]; then bb_cwd="$PWD"; . '/work/repo/.buildbench/deploy-env.sh'; cd "$bb_cwd" || exit 1; fi\n`,
    );
  });

  describe('in the host sandbox', () => {
    let sandbox: Sandbox;
    const temps: string[] = [];

    beforeAll(async () => {
      const repo = mkdtempSync(path.join(tmpdir(), 'bb-layer2-metrics-'));
      execFileSync('mkdir', ['-p', path.join(repo, 'exp')]);
      const workRoot = mkdtempSync(path.join(tmpdir(), 'bb-layer2-metrics-work-'));
      temps.push(repo, workRoot);
      sandbox = await createHostSandbox(sandboxTestSettings('host', { allowHost: true, workRoot }), {
        repoDir: repo,
        name: 'layer2-metrics',
      });
    });
    afterAll(async () => {
      await sandbox.dispose();
      for (const dir of temps) rmSync(dir, { recursive: true, force: true });
    });

    it('reads metrics from the file the command wrote in its folder, in the environment the file sets', async () => {
      writeFileSync(
        path.join(sandbox.hostWorkdir, '.buildbench-env.sh'),
        'export PAPER_SCALE=7\ncd /\n', // a `cd` in the file must not move the check
      );
      const spec = parseSpec(
        [
          'checks:',
          '  - name: scaled',
          '    cwd: exp',
          '    command: |',
          '      printf \'{"eval": {"score": %s}}\\n\' "$PAPER_SCALE" > r.json',
          '    expect:',
          '      metrics:',
          '        - { file: r.json, key: eval.score, min: 7, max: 7 }',
          '  - name: missing',
          '    command: "true"',
          '    expect:',
          '      metrics: [{ file: none.json, key: a }]',
        ].join('\n'),
        'spec.yml',
      );
      const withEnv = await runSpec(spec, sandbox, { envFile: '.buildbench-env.sh' });
      expect(withEnv.checks.map((c) => [c.name, c.passed, c.detail])).toEqual([
        ['scaled', true, 'exit 0; r.json: eval.score = 7 (≥ 7 and ≤ 7)'],
        ['missing', false, 'none.json: a: not read (no such file)'],
      ]);
      // Without the file, the variable is not there: the metric is not a number.
      const without = await runSpec(spec, sandbox);
      expect(without.checks[0]).toMatchObject({ passed: false });
      expect(without.checks[0]!.detail).toMatch(/r\.json is not valid JSON/);
    });
  });
});
