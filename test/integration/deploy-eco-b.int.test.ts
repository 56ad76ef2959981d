/**
 * Deploying the Rust, Go and Java fixtures (tasks/deploy-fixtures/) for real: `runBuild` with a deploy goal
 * and the rules strategy in the rootfs sandbox, offline the way these machines are (only Debian's archive is
 * reachable), so every dependency comes through the distribution's packages. The target experiment and the
 * task's hidden checks run as a visible layer-2 spec that sources the deploy environment file itself (until
 * the deploy command runs the target and the hidden spec on its own); SUCCESS needs that spec, and the
 * recipe must replay in a fresh sandbox.
 *
 * Time, measured on a 2-core machine shared with seven other test runs (a quiet machine is faster): Rust 55 s
 * (cargo + rustc ~30 s of apt per sandbox), Go 205 s (golang-go ~60 s of apt), Java 270 s (default-jdk-headless
 * + maven ~75 s of apt, 260 MB of JDK; the turn 108 s and the replay 140 s). Each runs twice: the run and the
 * replay in a fresh sandbox. Rust again with registries `auto` (the default): 60 s.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import { DEPLOY_ENV_FILE, type DeployGoal } from '../../src/deploy/types.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const FIXTURES = path.resolve('tasks/deploy-fixtures');
const outRoot = mkdtempSync(path.join(tmpdir(), 'bb-int-deploy-eco-b-'));
const RUN_TIMEOUT_MS = 12 * 60_000;

interface DeployCase {
  fixture: string;
  /** The target experiment (as the task file says). */
  target: string;
  /** What the target must print. */
  output: string;
  /** The hidden checks' command and what its stdout must hold. */
  hidden: { command: string; stdout: string[] };
  /** The setup recipe the rules strategy must have used. */
  recipe: RegExp;
  /** What the offline setup must have said about the dependency (a line of the first turn's log). */
  log: RegExp;
}

const CASES: DeployCase[] = [
  {
    fixture: 'rust-prime-sieve',
    target: 'cargo run --release -- 1000000',
    output: 'primes below 1000000: 78498',
    hidden: { command: 'cargo run --release -q -- 100000 && cat results.json', stdout: ['"primes": 9592'] },
    recipe: /cargo/,
    log: /crate itoa -> Debian package librust-itoa-dev/,
  },
  {
    fixture: 'go-welford',
    target: 'go run . 200000',
    output: 'n=200000 .* agree=true',
    hidden: { command: 'go run . 5000 && cat results.json', stdout: ['"agree":true', '"n":5000'] },
    recipe: /go/,
    log: /Go module github\.com\/google\/go-cmp -> Debian package golang-github-google-go-cmp-dev/,
  },
  {
    fixture: 'java-word-stats',
    target: 'java org.example.wordstats.WordStats 20000',
    output: 'words=20000 distinct=7',
    hidden: {
      command: 'java org.example.wordstats.WordStats 700 && cat results.json',
      stdout: ['"words": 700, "distinct": 7, "palindromes": 400'],
    },
    recipe: /maven/,
    log: /Maven artifact org\.apache\.commons:commons-lang3 -> Debian package libcommons-lang3-java/,
  },
];

/** A visible spec: the target and the hidden checks, each after sourcing the deploy environment. */
function visibleSpec(c: DeployCase): string {
  const file = path.join(outRoot, `${c.fixture}.spec.yml`);
  const env = `. ./${DEPLOY_ENV_FILE}`;
  writeFileSync(
    file,
    [
      `name: ${c.fixture}-target`,
      'checks:',
      '  - name: the target experiment',
      `    command: ${JSON.stringify(`${env} && ${c.target}`)}`,
      '    timeout: 5m',
      '    expect:',
      '      files: [{ path: results.json, non_empty: true }]',
      `      output: [${JSON.stringify(c.output)}]`,
      '  - name: the hidden checks',
      `    command: ${JSON.stringify(`${env} && ${c.hidden.command}`)}`,
      '    timeout: 5m',
      '    expect:',
      '      files: [{ path: results.json, non_empty: true, newer_than_start: true }]',
      `      stdout: [${c.hidden.stdout.map((s) => JSON.stringify(s)).join(', ')}]`,
      '',
    ].join('\n'),
  );
  return file;
}

function goal(c: DeployCase, mode: DeployGoal['registries']['mode']): DeployGoal {
  return {
    target: { command: c.target, cwd: '', timeoutMs: 5 * 60_000, evidence: { files: ['results.json'] } },
    requires: [],
    registries: { mode, mirrors: {} },
  };
}

function settings(c: DeployCase, mode: DeployGoal['registries']['mode'], out = c.fixture): BuildSettings {
  return {
    source: path.join(FIXTURES, c.fixture),
    outDir: path.join(outRoot, out),
    strategy: 'rules',
    maxTurns: 4,
    timeoutMs: RUN_TIMEOUT_MS,
    turnTimeoutMs: 8 * 60_000,
    expect: [],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
    spec: visibleSpec(c),
    deploy: goal(c, mode),
  };
}

function summary(result: BuildResult): string {
  return result.turns
    .map(
      (t) =>
        `${t.purpose} → ${t.exitCode}${t.rootCause ? ` (${t.rootCause.id}: ${t.rootCause.message})` : ''}`,
    )
    .join('\n');
}

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
});

describe('deploying the Rust, Go and Java fixtures offline through Debian packages (rootfs sandbox)', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))(
    '%s',
    async (_name, c) => {
      const result = await runBuild(settings(c, 'offline'));
      expect({ status: result.status, turns: summary(result) }).toMatchObject({ status: 'success' });
      expect(result.turns[0]?.purpose).toMatch(c.recipe);
      // The offline setup said which distribution package gave each dependency.
      expect(readFileSync(path.join(outRoot, c.fixture, 'logs', 'turn-00.log'), 'utf8')).toMatch(c.log);
      expect({ fixture: c.fixture, verified: result.recipe?.verified }).toEqual({
        fixture: c.fixture,
        verified: true,
      });
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it(
    'rust-prime-sieve with registries auto (the default): the registry is tried, then the Debian crates',
    async () => {
      const c = CASES[0]!;
      const result = await runBuild(settings(c, 'auto', `${c.fixture}-auto`));
      expect({ status: result.status, turns: summary(result) }).toMatchObject({ status: 'success' });
      const log = readFileSync(path.join(outRoot, `${c.fixture}-auto`, 'logs', 'turn-00.log'), 'utf8');
      expect(log).toMatch(
        /the crate registry is unreachable: falling back to Debian's librust-\*-dev crates/,
      );
      expect(log).toMatch(c.log);
      expect(result.recipe?.verified).toBe(true);
    },
    RUN_TIMEOUT_MS + 60_000,
  );
});
