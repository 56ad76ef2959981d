/**
 * Issue 29: a deploy claims `impossible` only after every row of its ecosystems' alternatives
 * (verifiers/deploy-alternatives.yaml) was tried or ruled out. Through runBuild with a sandbox whose scripts all
 * fail: a strategy that gives up at once is refused once, told the rows still open, and the trajectory it leaves
 * names the claim as premature when it gives up again; one that tries every alternative first is not refused
 * and its trajectory passes the check the test suite runs over every run (test/helpers/trajectory-check.ts).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Action, Strategy, TurnContext } from '../../../src/agent/types.js';
import { trajectoryPrematureImpossible } from '../../../src/deploy/alternatives.js';
import { deployRecipes } from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { runBuild } from '../../../src/core/run-build.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import type { BuildResult } from '../../../src/report/result.js';
import { defaultSandboxSettings } from '../../../src/sandbox/factory.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { checkRunDir } from '../../helpers/trajectory-check.js';

// Removed when the file ends: the premature claim below is made on purpose, and the suite's global check over
// the runs it wrote must not find it afterwards.
const root = mkdtempSync(path.join(tmpdir(), 'bb-deploy-gate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const repo = path.join(root, 'repo');
mkdirSync(repo);
writeFileSync(path.join(repo, 'requirements.txt'), 'numpy\n');
writeFileSync(path.join(repo, 'run.py'), 'import numpy\nprint("ok")\n');

const goal: DeployGoal = {
  target: { command: 'python3 run.py', cwd: '', timeoutMs: 60_000, evidence: { output: ['ok'] } },
  requires: [],
  registries: { mode: 'auto', mirrors: {} },
};

class TreeSandbox extends FakeSandbox {
  override readonly hostWorkdir: string;
  constructor(tree: string) {
    super(() => ({ exitCode: 1, output: 'it failed in a way no signature knows\n' }));
    this.hostWorkdir = tree;
  }
}

const giveUp: Action = { kind: 'finish', claim: 'impossible', reason: 'nothing works' };

/** Runs the deploy with `strategy`; the result and the trajectory's lines. */
async function deploy(
  name: string,
  strategy: Strategy,
): Promise<{ result: BuildResult; lines: { type?: unknown; data?: unknown }[]; out: string }> {
  const out = path.join(root, `out-${name}`);
  let boxes = 0;
  const settings: BuildSettings = {
    source: repo,
    outDir: out,
    strategy: 'rules',
    maxTurns: 8,
    timeoutMs: 60_000,
    turnTimeoutMs: 10_000,
    json: false,
    keep: false,
    expect: [],
    deploy: goal,
    sandbox: { ...defaultSandboxSettings({ HOME: root }), choice: 'host', allowHost: true },
  };
  const result = await runBuild(
    settings,
    { strategy },
    {
      createSandbox: (_s, request) => {
        const tree = path.join(root, `tree-${name}-${boxes++}`);
        cpSync(request.repoDir, tree, { recursive: true });
        return Promise.resolve(new TreeSandbox(tree));
      },
    },
  );
  const lines = readFileSync(path.join(out, 'trajectory.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type?: unknown; data?: unknown });
  return { result, lines, out };
}

describe("a deploy's claim of impossible (issue 29)", () => {
  it('is refused once while rows are open, naming them; given again, the trajectory check names it premature', async () => {
    const seen: TurnContext[] = [];
    const strategy: Strategy = {
      name: 'gives-up',
      next: (context) => {
        seen.push(context);
        return Promise.resolve(giveUp);
      },
    };
    const { result, lines, out } = await deploy('gives-up', strategy);
    expect(result.status).toBe('failed');
    // the strategy was asked again, with the refusal and the rows on its record
    expect(seen).toHaveLength(2);
    const note = seen[1]!.history[0]!.notes.join('\n');
    expect(note).toMatch(/^finish\(impossible\) refused: alternatives not tried yet/);
    expect(note).toContain('the package index into a virtual environment');
    expect(note).toContain("the distribution's python3-* packages");
    const claims = lines
      .filter((l) => l.type === 'claim')
      .map((l) => (l.data as { accepted: boolean }).accepted);
    expect(claims).toEqual([false, true]);
    // the check reads the trajectory alone: the inspect phase's deploy facts, the turns and the last claim
    const problems = trajectoryPrematureImpossible(lines);
    expect(problems).toEqual([expect.stringContaining('python registry (the package index')]);
    expect(checkRunDir(out).join('\n')).toContain('claimed impossible at turn 1');
    // the facts name no mirror values
    expect(readFileSync(path.join(out, 'trajectory.jsonl'), 'utf8')).toContain('"deploy":{"ecosystems"');
  });

  it('stands when every alternative was tried first, and the trajectory passes the check', async () => {
    const strategy: Strategy = {
      name: 'tries-all',
      next: (context) => {
        const recipes = deployRecipes(context.repo, context.goal!);
        const recipe = recipes[context.turn];
        if (!recipe) return Promise.resolve(giveUp);
        return Promise.resolve({
          kind: 'run',
          script: recipe.steps.map((s) => s.command).join('\n'),
          purpose: recipe.label,
          reason: 'the next alternative',
        });
      },
    };
    const { result, lines, out } = await deploy('tries-all', strategy);
    expect(result.status).toBe('failed');
    const claims = lines
      .filter((l) => l.type === 'claim')
      .map((l) => (l.data as { accepted: boolean }).accepted);
    expect(claims).toEqual([true]);
    expect(trajectoryPrematureImpossible(lines)).toEqual([]);
    expect(checkRunDir(out)).toEqual([]);
    expect(readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8')).toContain('## Alternatives tried');
  });
});
