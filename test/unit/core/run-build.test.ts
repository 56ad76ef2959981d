/**
 * runBuild with its collaborators injected: a FakeSandbox over a temp copy of a tiny repository (its
 * "build" writes a synthetic ELF into the copy), a scripted strategy and a stepping clock. Each status path
 * ends with result.json, trajectory.jsonl and RUNBOOK.md written; no root, no real sandbox.
 */
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Action, Strategy, TurnContext } from '../../../src/agent/types.js';
import { ConfigError, SandboxError } from '../../../src/base/errors.js';
import { beforeFirstScript } from '../../../src/core/result.js';
import { runBuild, type RunBuildDeps, type RunBuildOptions } from '../../../src/core/run-build.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import type { ExecOptions, ExecResult } from '../../../src/sandbox/types.js';
import type { BuildResult } from '../../../src/report/result.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { ET_EXEC, makeElf } from '../verify/helpers/elf.js';
import { scriptRecipe } from '../finalize/helpers.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-run-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const repo = path.join(root, 'repo');
mkdirSync(repo);
writeFileSync(path.join(repo, 'Makefile'), 'hello: hello.c\n\tcc -o hello hello.c\n');
writeFileSync(path.join(repo, 'hello.c'), 'int main(void) { return 0; }\n');
const elf = makeElf({ bits: 64, little: true, type: ET_EXEC, size: 256 });

/** A sandbox whose tree is a real folder: `bb-make <name>` writes <name> as an ELF, `bb-fail` fails, else exit 0. */
class TreeSandbox extends FakeSandbox {
  override readonly hostWorkdir: string;
  constructor(tree: string, answer?: (script: string, options: ExecOptions) => Partial<ExecResult>) {
    super((script, _n, options) => {
      if (answer) return answer(script, options);
      // A replay runs the build.sh finalize put in the tree: its commands count as the script's.
      const replay = path.join(tree, '.buildbench', 'replay', 'build.sh');
      if (script.includes('build.sh') && existsSync(replay)) script += readFileSync(replay, 'utf8');
      // `bb-edit <file>` changes a file of the repository, as a script's own source edit would.
      for (const [, name] of script.matchAll(/bb-edit ([\w.-]+)/g))
        writeFileSync(path.join(tree, name!), 'edited\n', { flag: 'a' });
      for (const [, name] of script.matchAll(/bb-make ([\w.-]+)/g)) {
        writeFileSync(path.join(tree, name!), elf);
        chmodSync(path.join(tree, name!), 0o755);
      }
      // A full-sequence build.sh tolerates an earlier turn's failure (`… || echo "… going on"`), as bash would.
      const fails = script
        .split('\n')
        .some((line) => /\bbb-fail\b/.test(line) && !line.includes('as it may have in the original run'));
      return fails ? { exitCode: 1, output: 'error: it failed\n' } : { exitCode: 0 };
    });
    this.hostWorkdir = tree;
  }
}

/** A strategy that plays the given actions, then gives up. */
function scripted(actions: (Action | ((context: TurnContext) => Action))[]): Strategy {
  return {
    name: 'scripted',
    next: (context) => {
      const next = actions[context.turn];
      if (!next) return Promise.resolve({ kind: 'finish', claim: 'impossible', reason: 'out of ideas' });
      return Promise.resolve(typeof next === 'function' ? next(context) : next);
    },
  };
}
const run = (script: string, purpose = 'build'): Action => ({ kind: 'run', script, purpose, reason: 'try' });
/** A script a strategy rendered from a recipe (whole and self-contained), optionally with declared edits. */
const rendered = (script: string, patches?: { file: string; reason: string }[]): Action => ({
  kind: 'run',
  script,
  purpose: 'build',
  reason: 'try',
  recipe: scriptRecipe(),
  ...(patches ? { patches } : {}),
});

let runs = 0;
interface Case {
  strategy: Strategy;
  settings?: Partial<BuildSettings>;
  deps?: Partial<RunBuildDeps>;
  answer?: (script: string, options: ExecOptions) => Partial<ExecResult>;
  signal?: AbortSignal;
  listeners?: RunBuildOptions['listeners'];
  /** Give the strategy through deps.createStrategy (made from this) instead of options.strategy. */
  viaFactory?: (strategy: Strategy) => RunBuildDeps['createStrategy'];
}

/** Runs a build; returns its result, the result.json it wrote, and the sandboxes it made. */
async function build(
  c: Case,
): Promise<{ result: BuildResult; written: BuildResult; boxes: TreeSandbox[]; out: string }> {
  const out = c.settings?.outDir ?? path.join(root, `out-${++runs}`);
  if (c.settings?.outDir) runs++;
  const boxes: TreeSandbox[] = [];
  const deps: Partial<RunBuildDeps> = {
    createSandbox: (_settings, request) => {
      const tree = path.join(root, `tree-${runs}-${boxes.length}`);
      cpSync(request.repoDir, tree, { recursive: true });
      const box = new TreeSandbox(tree, c.answer);
      boxes.push(box);
      return Promise.resolve(box);
    },
    ...c.deps,
  };
  const settings: BuildSettings = {
    source: repo,
    outDir: out,
    strategy: 'rules',
    maxTurns: 4,
    timeoutMs: 60_000,
    turnTimeoutMs: 10_000,
    expect: ['hello'],
    json: false,
    keep: false,
    sandbox: { ...defaultSandboxSettings({ HOME: root }), choice: 'host', allowHost: true },
    ...c.settings,
  };
  const options = {
    ...(c.viaFactory ? {} : { strategy: c.strategy }),
    ...(c.signal ? { signal: c.signal } : {}),
    ...(c.listeners ? { listeners: c.listeners } : {}),
  };
  if (c.viaFactory) deps.createStrategy = c.viaFactory(c.strategy);
  const result = await runBuild(settings, options, deps);
  const written = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
  expect(existsSync(path.join(out, 'trajectory.jsonl'))).toBe(true);
  return { result, written, boxes, out };
}

describe('runBuild', () => {
  it('success after the first turn: that turn, the first script of the fresh sandbox, is the replay', async () => {
    const { result, boxes, out } = await build({ strategy: scripted([run('bb-make hello')]) });
    expect(result).toMatchObject({ status: 'success', reason: 'the verifiers passed after turn 0 (build)' });
    expect(boxes).toHaveLength(1); // no second sandbox
    expect(result.recipe).toMatchObject({ verified: true, replay: { status: 'passed', reusedTurn: 0 } });
    expect(readFileSync(path.join(out, 'build.sh'), 'utf8')).toMatch(/set --\nbb-make hello\n?$/);
  });

  it('success: the verifiers pass after a turn; with --always-replay the recipe is replayed in a second sandbox', async () => {
    const { result, written, boxes, out } = await build({
      strategy: scripted([run('bb-make hello')]),
      settings: { replay: 'always' },
    });
    expect(result).toMatchObject({ status: 'success', reason: 'the verifiers passed after turn 0 (build)' });
    expect(written.status).toBe('success');
    expect(result.metrics).toEqual({ completion: true, strict: true, flexible: true });
    expect(result.artifacts).toEqual([
      expect.objectContaining({ path: 'hello', copiedTo: 'artifacts/hello' }),
    ]);
    expect(readFileSync(path.join(out, 'artifacts', 'hello'))).toEqual(elf);
    expect(boxes).toHaveLength(2); // the run's and the replay's, both from deps.createSandbox
    expect(boxes[1]!.scripts).toEqual(['bash .buildbench/replay/build.sh .']);
    expect(boxes.every((b) => b.disposed)).toBe(true);
    expect(result.recipe).toMatchObject({ verified: true });
    expect(existsSync(path.join(out, 'build.sh'))).toBe(true);
    expect(existsSync(path.join(out, 'RUNBOOK.md'))).toBe(true);
    expect(result.turns).toEqual([expect.objectContaining({ turn: 0, exitCode: 0, newArtifacts: 1 })]);
  });

  it('a repair turn of a rendered recipe runs first in a fresh sandbox, and passing there, is the replay', async () => {
    const { result, boxes, out } = await build({
      strategy: scripted([rendered('bb-fail'), rendered('bb-make hello')]),
    });
    expect(result).toMatchObject({ status: 'success', reason: 'the verifiers passed after turn 1 (build)' });
    // Turn 0's sandbox, then turn 1's fresh one (the first was disposed); no replay sandbox after the loop.
    expect(boxes).toHaveLength(2);
    expect(boxes[0]!.disposed).toBe(true);
    expect(boxes[0]!.scripts).toEqual(['bb-fail']);
    expect(boxes[1]!.scripts[0]).toBe('bb-make hello');
    expect(result.turns.map((t) => [t.turn, t.freshSandbox])).toEqual([
      [0, undefined],
      [1, true],
    ]);
    expect(result.recipe).toMatchObject({
      verified: true,
      turn: 1,
      replay: { status: 'passed', reusedTurn: 1 },
    });
    expect(readFileSync(path.join(out, 'build.sh'), 'utf8')).toMatch(/set --\nbb-make hello\n?$/);
    expect(result.artifacts.map((a) => a.path)).toEqual(['hello']);
    const trajectory = readFileSync(path.join(out, 'trajectory.jsonl'), 'utf8');
    expect(trajectory).toContain('turn 1 runs in a fresh host sandbox from the untouched repository');
    expect(readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8')).toMatch(
      /\| 1 \| build \(in a fresh sandbox\) \| 0 \|/,
    );
  });

  it("keeps the first sandbox's derived image in result.json: what it made and how long, after a fresh sandbox", async () => {
    const image = { tag: 'buildbench-toolchain:abc-def', id: 'sha256:1', baseId: 'sha256:0' };
    const boxes: TreeSandbox[] = [];
    const { written } = await build({
      strategy: scripted([rendered('bb-fail'), rendered('bb-make hello')]),
      deps: {
        createSandbox: (_settings, request) => {
          const tree = path.join(root, `tree-derived-${boxes.length}`);
          cpSync(request.repoDir, tree, { recursive: true });
          const box = new TreeSandbox(tree, undefined);
          // The first sandbox made the image; the repair turn's fresh one reused it.
          Object.defineProperty(box, 'derivedImage', {
            value: boxes.length === 0 ? { ...image, made: ['image', 'lists'], madeMs: 1234 } : image,
          });
          boxes.push(box);
          return Promise.resolve(box);
        },
      },
    });
    expect(boxes).toHaveLength(2);
    expect(written.sandbox.derivedImage).toEqual({ ...image, made: ['image', 'lists'], madeMs: 1234 });
  });

  it('a fresh sandbox that cannot be made for a repair turn ends the run as a sandbox error', async () => {
    let made = 0;
    const boxes: TreeSandbox[] = [];
    const { result } = await build({
      strategy: scripted([rendered('bb-fail'), rendered('bb-make hello')]),
      deps: {
        createSandbox: (_settings, request) => {
          if (made++ > 0) return Promise.reject(new SandboxError('no space left for a sandbox'));
          const tree = path.join(root, `tree-fresh-fail`);
          cpSync(request.repoDir, tree, { recursive: true });
          const box = new TreeSandbox(tree);
          boxes.push(box);
          return Promise.resolve(box);
        },
      },
    });
    expect(result.status).toBe('sandbox_error');
    expect(result.reason).toMatch(/no space left for a sandbox/);
    expect(result.turns).toHaveLength(1);
    expect(boxes[0]!.disposed).toBe(true);
  });

  it.each<[string, Action[], Partial<BuildSettings>]>([
    ['a free-form script (not rendered from a recipe)', [run('bb-fail'), run('bb-make hello')], {}],
    [
      'an earlier turn changed a file of the repository',
      [rendered('bb-edit hello.c; bb-fail'), rendered('bb-make hello')],
      {},
    ],
    [
      'the turn declares a source edit',
      [rendered('bb-fail'), rendered('bb-make hello', [{ file: 'hello.c', reason: 'fix' }])],
      {},
    ],
    ['--always-replay', [rendered('bb-fail'), rendered('bb-make hello')], { replay: 'always' }],
  ])(
    'no fresh sandbox for a repair turn when %s: the recipe is replayed after the loop',
    async (_why, actions, settings) => {
      const { result, boxes } = await build({ strategy: scripted(actions), settings });
      expect(result.status).toBe('success');
      // Both turns in the run's sandbox; the replays (the minimal recipe, then the full sequence) in others.
      expect(boxes.length).toBeGreaterThanOrEqual(2);
      expect(boxes.slice(1).every((b) => b.scripts.every((x) => x.includes('.buildbench/replay/')))).toBe(
        true,
      );
      expect(boxes[0]!.scripts.slice(0, 2)).toEqual(actions.map((a) => (a.kind === 'run' ? a.script : '')));
      expect(result.recipe?.replay.reusedTurn).toBeUndefined();
    },
  );

  it('records the trajectory analysis and the harness time in result.json and the RUNBOOK', async () => {
    // Every reading 1 s later (from now: the replay checks the deadline on the system clock); every script
    // (FakeSandbox) takes 1 ms.
    let t = Date.now();
    const now = (): number => (t += 1000);
    const { result, written, out } = await build({
      strategy: scripted([
        run('cat Makefile && bb-fail'),
        run('apt-get install -y libx-dev && bb-make hello'),
      ]),
      settings: { timeoutMs: 3_600_000 },
      deps: { now },
    });
    expect(result.status).toBe('success');
    expect(written.analysis).toEqual(result.analysis);
    expect(result.analysis).toMatchObject({
      commands: 4,
      phases: { inspect: 1, install: 1, other: 2 },
      failures: 1,
      recoveries: { adapt: 1, inspect: 0, loop: 0, abort: 0, other: 0 },
      failed: [{ turn: 0, recovery: 'adapt' }],
      selfStops: { count: 0, correct: 0, wrong: 0 },
    });
    // Two turns and the replay's build.sh, 1 ms each; the rest of the wall time is the harness's.
    const { totalMs, scriptsMs, harnessMs, harnessShare } = written.timings;
    expect(result.recipe?.replay.scriptMs).toBe(1);
    expect(scriptsMs).toBe(3);
    expect(harnessMs).toBe(totalMs - 3);
    expect(harnessShare).toBeCloseTo((totalMs - 3) / totalMs, 3);
    // Up to the first script: each phase's time, in the order they ran, and the sandbox commands' share.
    const early = written.timings.beforeFirstScript!;
    expect(Object.keys(early.phases)).toEqual(['fetch', 'inspect', 'retrieve', 'sandbox', 'build']);
    expect(Object.values(early.phases).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(early.totalMs);
    expect(early.harnessMs).toBe(early.totalMs - early.sandboxMs);
    const runbook = readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8');
    expect(runbook).toContain('## Trajectory');
    expect(runbook).toMatch(/1 script failed; after it the run changed the commands once \(turn 0: adapt\)/);
    expect(runbook).toMatch(/inside the scripts 0\.0 s; the harness around them/);
  });

  it('makes the strategy the settings name with deps.createStrategy, given the run sandbox', async () => {
    const seen: string[] = [];
    const { result } = await build({
      strategy: scripted([run('bb-make hello')]),
      settings: { strategy: 'baseline' },
      viaFactory: (strategy) => (choice, strategyDeps) => {
        seen.push(choice, typeof strategyDeps.services, typeof strategyDeps.session);
        return strategy;
      },
    });
    expect(result).toMatchObject({ status: 'success', strategy: 'baseline' });
    expect(seen).toEqual(['baseline', 'object', 'undefined']);
  });

  it('marks result.json when an observer of the events failed (the run goes on)', async () => {
    const warn = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { result, written } = await build({
        strategy: scripted([run('bb-make hello')]),
        listeners: [
          (event) => {
            if (event.type === 'turn_end' || event.type === 'run_end') throw new Error('disk full');
          },
        ],
      });
      expect(result.status).toBe('success');
      expect(written.observerFailure).toEqual({ event: 'turn_end', error: 'disk full', count: 2 });
      const clean = await build({ strategy: scripted([run('bb-make hello')]) });
      expect(clean.written.observerFailure).toBeUndefined();
    } finally {
      warn.mockRestore();
    }
  });

  it('partial: the strategy stops with a PARTIAL claim while some binary but not the expected one exists', async () => {
    const { result } = await build({
      strategy: scripted([
        run('bb-make other'),
        { kind: 'finish', claim: 'partial', reason: 'only other builds' },
      ]),
    });
    expect(result).toMatchObject({ status: 'partial', reason: 'only other builds' });
    expect(result.expected).toMatchObject({ names: ['hello'], missing: ['hello'] });
    expect(result.claim).toEqual({ claim: 'partial', reason: 'only other builds', turn: 1 });
    expect(result.recipe).toBeUndefined();
  });

  it('failed: an IMPOSSIBLE claim with nothing built, the root cause recorded', async () => {
    const { result } = await build({ strategy: scripted([run('bb-fail', 'configure')]) });
    expect(result).toMatchObject({ status: 'failed', reason: 'out of ideas' });
    expect(result.metrics.completion).toBe(false);
    expect(result.turns).toEqual([expect.objectContaining({ exitCode: 1, purpose: 'configure' })]);
  });

  it('limits_exceeded: the turn limit', async () => {
    const { result } = await build({
      strategy: scripted([run('bb-fail; a'), run('bb-fail; b')]),
      settings: { maxTurns: 2 },
    });
    expect(result).toMatchObject({
      status: 'limits_exceeded',
      reason: 'the turn limit (2) was reached before the verifiers passed',
    });
  });

  it('limits_exceeded: the wall clock, read from the injected clock', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const now = (): number => (t += 20_000); // every reading is 20 s later
    const { result } = await build({
      strategy: scripted([run('bb-fail; a'), run('bb-fail; b'), run('bb-fail; c')]),
      settings: { timeoutMs: 90_000 },
      deps: { now },
    });
    expect(result).toMatchObject({ status: 'limits_exceeded', reason: 'the wall-clock budget ran out' });
    expect(result.timings.startedAt).toBe('2026-01-01T00:00:20.000Z');
    // the sandbox's making, from its start in prepare to ready: four readings (the inspect, retrieve and sandbox
    // phases' starts between)
    expect(result.timings.prepareMs).toBe(80_000);
    // the clock ran out before any script: no time before a first script to report
    expect(result.turns).toEqual([]);
    expect(result.timings.beforeFirstScript).toBeUndefined();
  });

  it('limits_exceeded: a strategy whose model budget is spent (StrategyStop budget)', async () => {
    const stop: Action = {
      kind: 'finish',
      claim: 'partial',
      reason: 'the token budget is spent',
      stop: { cause: 'budget', reason: 'the token budget (1000) is spent' },
    };
    const { result } = await build({ strategy: scripted([run('bb-fail'), stop]) });
    expect(result).toMatchObject({ status: 'limits_exceeded', reason: 'the token budget (1000) is spent' });
    expect(result.analysis?.selfStops.count).toBe(0); // the harness's stop, not the strategy's
  });

  it('provider_error: the strategy reports that its model provider failed (StrategyStop)', async () => {
    const stop: Action = {
      kind: 'finish',
      claim: 'partial',
      reason: 'the provider failed',
      stop: { cause: 'provider_error', reason: 'HTTP 500 after 3 tries' },
    };
    const { result } = await build({ strategy: scripted([stop]) });
    expect(result).toMatchObject({ status: 'provider_error', reason: 'HTTP 500 after 3 tries' });
  });

  it('stuck: the same script fails the same way twice', async () => {
    const { result } = await build({ strategy: scripted([run('bb-fail'), run('bb-fail')]) });
    expect(result.status).toBe('stuck');
    expect(result.reason).toMatch(/the same script failed the same way 2 times/);
  });

  it('a refused SUCCESS claim as the last word, then the turn limit: partial with some binary', async () => {
    const claim: Action = { kind: 'finish', claim: 'success', reason: 'it builds' };
    const { result } = await build({
      strategy: scripted([run('bb-make other'), claim]),
      settings: { maxTurns: 2 },
    });
    expect(result.status).toBe('partial');
    expect(result.reason).toMatch(/claimed success \(turn 1\) but the verifiers did not pass/);
    expect(result.verification?.selfStop).toMatchObject({ claimed: 'success', refused: 1, wrong: true });
    expect(result.analysis?.selfStops).toEqual({ count: 1, correct: 0, wrong: 1 });
  });

  it('cancelled: the signal aborts during a turn', async () => {
    const controller = new AbortController();
    const { result } = await build({
      strategy: scripted([
        () => {
          controller.abort();
          return run('bb-make hello');
        },
      ]),
      answer: (_script, options) => ({ exitCode: 130, cancelled: options.signal?.aborted ?? false }),
      signal: controller.signal,
    });
    expect(result).toMatchObject({ status: 'cancelled', reason: 'cancelled during turn 0' });
  });

  it('sandbox_error: the sandbox fails during a turn, or cannot be created', async () => {
    const during = await build({
      strategy: scripted([run('bb-make hello')]),
      answer: () => {
        throw new SandboxError('the overlay could not be mounted');
      },
    });
    expect(during.result).toMatchObject({
      status: 'sandbox_error',
      reason: 'the overlay could not be mounted',
    });
    const creating = await build({
      strategy: scripted([run('bb-make hello')]),
      deps: { createSandbox: () => Promise.reject(new SandboxError('no bubblewrap', 'install bubblewrap')) },
    });
    expect(creating.result).toMatchObject({
      status: 'sandbox_error',
      reason: 'no bubblewrap (install bubblewrap)',
      sandbox: { kind: 'host', image: '' },
    });
    expect(creating.written.status).toBe('sandbox_error');
  });

  it('the sandbox made while the tree is inspected: its progress said in the sandbox phase, discarded when the inspection fails', async () => {
    // Made while the tree is inspected, its progress lines held until the sandbox phase: the trajectory's order.
    const said: string[] = [];
    const made = await build({
      strategy: scripted([run('bb-make hello')]),
      listeners: [(e) => e.type === 'phase' && said.push(`${e.phase}: ${e.message}`)],
      deps: {
        createSandbox: (_settings, request) => {
          request.onProgress?.('making the sandbox');
          const tree = path.join(root, `tree-progress-${runs}`);
          cpSync(request.repoDir, tree, { recursive: true });
          return Promise.resolve(new TreeSandbox(tree));
        },
      },
    });
    expect(made.result.status).toBe('success');
    const making = said.indexOf('sandbox: making the sandbox');
    expect(making).toBeGreaterThan(said.findLastIndex((s) => s.startsWith('retrieve:')));
    expect(said.slice(making + 1).find((s) => s.startsWith('sandbox:'))).toMatch(/sandbox ready/);

    // The tree is gone when the inspection reads it: the sandbox still being made is stopped, awaited and
    // disposed; result.json says why, and the configuration error is thrown after it is written.
    const copy = path.join(root, 'vanishing-repo');
    cpSync(repo, copy, { recursive: true });
    const out = path.join(root, 'out-vanishing');
    const boxes: TreeSandbox[] = [];
    let stopped = false;
    const createSandbox: RunBuildDeps['createSandbox'] = (_settings, request) =>
      new Promise((resolve) => {
        // Slower than the inspection: made after it failed.
        setTimeout(() => {
          stopped = request.signal?.aborted ?? false;
          const box = new TreeSandbox(path.join(root, 'tree-vanishing'));
          boxes.push(box);
          resolve(box);
        }, 200);
      });
    const settings: BuildSettings = {
      source: copy,
      outDir: out,
      strategy: 'rules',
      maxTurns: 2,
      timeoutMs: 60_000,
      turnTimeoutMs: 10_000,
      expect: [],
      json: false,
      keep: false,
      sandbox: { ...defaultSandboxSettings({ HOME: root }), choice: 'host', allowHost: true },
    };
    const listeners: RunBuildOptions['listeners'] = [
      (e) => {
        if (e.type === 'phase' && e.phase === 'inspect') rmSync(copy, { recursive: true, force: true });
      },
    ];
    await expect(
      runBuild(settings, { strategy: scripted([run('bb-make hello')]), listeners }, { createSandbox }),
    ).rejects.toBeInstanceOf(ConfigError);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]!.disposed).toBe(true);
    expect(stopped).toBe(true);
    const written = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
    expect(written.status).toBe('failed');
    expect(existsSync(path.join(out, 'trajectory.jsonl'))).toBe(true);
  });

  it('clears what an earlier run left in --out, even when this run fails before finalize', async () => {
    const out = path.join(root, 'reused-out');
    mkdirSync(path.join(out, 'patches'), { recursive: true });
    mkdirSync(path.join(out, 'replay'), { recursive: true });
    for (const file of [
      'build.sh',
      'Dockerfile',
      'snapshot.json.gz',
      'patches/0001-old.patch',
      'replay/minimal.log',
    ])
      writeFileSync(path.join(out, file), 'from an earlier run');
    const failed = await build({
      strategy: scripted([run('bb-make hello')]),
      settings: { outDir: out },
      deps: { createSandbox: () => Promise.reject(new SandboxError('no bubblewrap')) },
    });
    expect(failed.result.status).toBe('sandbox_error');
    for (const file of ['build.sh', 'Dockerfile', 'snapshot.json.gz', 'patches', 'replay'])
      expect(existsSync(path.join(out, file))).toBe(false);
  });

  it('failed, and thrown: a configuration error before the sandbox exists (result.json still written)', async () => {
    const out = path.join(root, 'out-config');
    const settings: BuildSettings = {
      source: path.join(root, 'no-such-repo'),
      outDir: out,
      strategy: 'rules',
      maxTurns: 2,
      timeoutMs: 60_000,
      turnTimeoutMs: 10_000,
      expect: [],
      json: false,
      keep: false,
      sandbox: { ...defaultSandboxSettings({ HOME: root }), choice: 'host', allowHost: true },
    };
    await expect(runBuild(settings, { strategy: scripted([]) })).rejects.toBeInstanceOf(ConfigError);
    const written = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as BuildResult;
    expect(written.status).toBe('failed');
    expect(written.reason).toMatch(/repository path '.*no-such-repo' does not exist$/);
  });
});

describe('the time before the first script (result.json timings.beforeFirstScript)', () => {
  it('splits it into phases, each to the next one (the last to the script), and the sandbox commands', () => {
    expect(
      beforeFirstScript({
        phases: { fetch: 0, inspect: 40, retrieve: 100, sandbox: 130, build: 900 },
        firstScriptMs: 1_000,
        sandboxMs: 600,
      }),
    ).toEqual({
      totalMs: 1_000,
      sandboxMs: 600,
      harnessMs: 400,
      phases: { fetch: 40, inspect: 60, retrieve: 30, sandbox: 770, build: 100 },
    });
    expect(beforeFirstScript({ phases: { fetch: 0 }, sandboxMs: 5 })).toBeUndefined();
  });
});
