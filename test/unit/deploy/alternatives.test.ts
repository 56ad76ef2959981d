/**
 * The deploy alternatives table (verifiers/deploy-alternatives.yaml, src/deploy/alternatives.ts): it loads
 * and validates (an error names the file and the row); every failure it names is a catalog signature and
 * every recipe it names is one a setup offers; a trajectory that ends `impossible` before every row of its
 * ecosystems was tried or ruled out is caught from the trajectory alone (the scripts' markers, the turns'
 * purposes and root causes); and the rules strategy's own plan covers every row it cannot rule out.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  alternativesFacts,
  alternativesSection,
  evaluateAlternatives,
  impossibleGate,
  loadAlternatives,
  openAlternatives,
  parseAlternatives,
  readMarker,
  trajectoryPrematureImpossible,
  type AlternativesTrajectoryLine,
  type AlternativesTurn,
} from '../../../src/deploy/alternatives.js';
import {
  deployRecipes,
  OWN_SCRIPT_NAMES,
  ownScripts,
  targetNeedsBuilding,
} from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { defaultSignatureCatalog } from '../../../src/knowledge/diagnose/signatures.js';
import { ConfigError } from '../../../src/base/errors.js';
import type { EcosystemInfo } from '../../../src/repo/types.js';
import { repoInfo } from '../../fakes/repo-info.js';

function goal(mode: DeployGoal['registries']['mode'], mirrors: Record<string, string> = {}): DeployGoal {
  return {
    target: { command: './run', cwd: '', timeoutMs: 60_000, evidence: {} },
    requires: [],
    registries: { mode, mirrors },
  };
}

const RUST: EcosystemInfo = {
  kind: 'rust',
  manifests: ['Cargo.toml', 'Cargo.lock'],
  dependencies: [{ name: 'rand', constraint: '0.8', manifest: 'Cargo.toml' }],
  notes: [],
};
const JAVA: EcosystemInfo = {
  kind: 'java',
  manifests: ['pom.xml'],
  dependencies: [{ name: 'org.apache.commons:commons-lang3', constraint: '3.12.0', manifest: 'pom.xml' }],
  runtime: { name: 'java', version: '11', why: 'maven.compiler.release 11' },
  notes: [],
};
const PY: EcosystemInfo = {
  kind: 'python',
  manifests: ['requirements.txt'],
  dependencies: [{ name: 'numpy', manifest: 'requirements.txt' }],
  notes: [],
};
const FORTRAN: EcosystemInfo = { kind: 'fortran', manifests: ['Makefile'], dependencies: [], notes: [] };

/** The turns a run of `recipes` (in order) leaves, each failing with `rootCause` when given. */
function turnsOf(
  eco: EcosystemInfo,
  mode: DeployGoal['registries']['mode'],
  runs: { index: number; repair?: string; rootCause?: string }[],
  root = '/nonexistent',
): AlternativesTurn[] {
  const recipes = deployRecipes(repoInfo({ root, ecosystems: [eco] }), goal(mode));
  return runs.map((r, turn) => {
    const recipe = recipes[r.index]!;
    return {
      turn,
      purpose: r.repair ? `${recipe.label} + ${r.repair}` : recipe.label,
      script: recipe.steps.map((s) => s.command).join('\n'),
      rootCause: r.rootCause ? { id: r.rootCause } : undefined,
    };
  });
}

function open(
  eco: EcosystemInfo,
  mode: DeployGoal['registries']['mode'],
  turns: AlternativesTurn[],
): string[] {
  return openAlternatives(
    evaluateAlternatives({ ecosystems: [eco], registries: goal(mode).registries, turns }),
  ).map((s) => `${s.kind}:${s.row.id}`);
}

describe('the deploy alternatives table', () => {
  const table = loadAlternatives();

  it('loads, and names only catalog signatures and recipes a setup offers', () => {
    expect(table.size).toBeGreaterThanOrEqual(10);
    const catalog = defaultSignatureCatalog();
    const recipeIds = new Set<string>();
    const ecos: EcosystemInfo[] = [
      RUST,
      JAVA,
      PY,
      FORTRAN,
      { ...JAVA, manifests: ['build.gradle'] },
      { kind: 'go', manifests: ['go.mod'], dependencies: [], notes: [] },
      { kind: 'go', manifests: ['go.mod', 'vendor/modules.txt'], dependencies: [], notes: [] },
      { kind: 'javascript', manifests: ['package.json'], dependencies: [], notes: [] },
      { kind: 'r', manifests: ['DESCRIPTION'], dependencies: [], notes: [] },
      { kind: 'julia', manifests: ['Project.toml'], dependencies: [], notes: [] },
      { kind: 'haskell', manifests: ['x.cabal'], dependencies: [], notes: [] },
      { kind: 'lua', manifests: ['x-1.0-1.rockspec'], dependencies: [], notes: [] },
      { kind: 'racket', manifests: ['info.rkt'], dependencies: [], notes: [] },
    ];
    for (const eco of ecos)
      for (const mode of ['auto', 'offline', 'online'] as const)
        for (const recipe of deployRecipes(repoInfo({ root: '/nonexistent', ecosystems: [eco] }), goal(mode)))
          for (const id of readMarker(recipe.steps.map((s) => s.command).join('\n'))?.recipes ?? [])
            recipeIds.add(id);
    for (const [kind, rows] of table) {
      for (const row of rows) {
        for (const id of row.failures ?? [])
          expect({ kind, row: row.id, id, known: catalog.byId.has(id) }).toMatchObject({ known: true });
        for (const entry of row.triedBy) {
          if (entry.startsWith('repair:') || entry.startsWith('own-script:') || entry.startsWith('c-cpp:'))
            continue;
          const known = entry.endsWith(':*')
            ? [...recipeIds].some((r) => r.startsWith(entry.slice(0, -1)))
            : recipeIds.has(entry);
          expect({ kind, row: row.id, entry, known }).toMatchObject({ known: true });
        }
      }
    }
  });

  it('rejects a bad table with one line naming the file and the row', () => {
    const bad = (text: string): string => {
      try {
        parseAlternatives(text, 'alt.yaml');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad('version: 2\necosystems: {}')).toMatch(/^alt\.yaml: unsupported version 2/);
    expect(
      bad("version: 1\necosystems:\n  rust:\n    - { id: x, axis: speed, label: y, tried_by: ['rust:*'] }"),
    ).toMatch(/alt\.yaml: rust\[0\] \(x\): "axis" must be one of/);
    expect(
      bad(
        "version: 1\necosystems:\n  rust:\n    - { id: x, axis: lockfile, label: y, tried_by: ['rust:*'], ruled_out_when: [no-lockfile] }",
      ),
    ).toMatch(/the condition "no-lockfile" needs "lockfiles"/);
    expect(
      bad(
        "version: 1\necosystems:\n  rust:\n    - { id: x, axis: lockfile, label: y, tried_by: ['rust:*'], ruled_out_when: [someday] }",
      ),
    ).toMatch(/unknown condition "someday"/);
    expect(bad('version: 1\necosystems:\n  rust:\n    - { id: x, axis: lockfile, label: y }')).toMatch(
      /"tried_by"/,
    );
  });
});

describe('a claim of impossible, read from the trajectory', () => {
  it('is premature after the registry alone, and complete once the distribution and the re-resolved lock were tried', () => {
    // auto: turn 0 tried the registry (then Debian's crates inside the same script), nothing else
    expect(open(RUST, 'auto', turnsOf(RUST, 'auto', [{ index: 0 }]))).toEqual(['rust:distribution']);
    // the Debian crates tried, the lock never failed: re-resolving it is ruled out with that reason
    const tried = turnsOf(RUST, 'auto', [{ index: 0 }, { index: 1 }]);
    expect(open(RUST, 'auto', tried)).toEqual([]);
    // a lock failure makes the re-resolved lock a row to try, until a turn applied the repair
    const lockFailed = turnsOf(RUST, 'auto', [
      { index: 0 },
      { index: 1, rootCause: 'cargo-version-not-selected' },
    ]);
    expect(open(RUST, 'auto', lockFailed)).toEqual(['rust:lock-re-resolved']);
    const resolved = turnsOf(RUST, 'auto', [
      { index: 0 },
      { index: 1, rootCause: 'cargo-version-not-selected' },
      { index: 1, repair: 'regenerate-cargo-lock' },
    ]);
    expect(open(RUST, 'auto', resolved)).toEqual([]);
  });

  it('Java: the build tool alone leaves building without it (javac) open; offline rules the registry out', () => {
    expect(open(JAVA, 'offline', turnsOf(JAVA, 'offline', [{ index: 0 }]))).toEqual([
      'java:without-build-tool',
    ]);
    expect(open(JAVA, 'offline', turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }]))).toEqual([]);
    // online: Debian's packages and javac over Debian jars are ruled out, the registry is what is left
    const statuses = evaluateAlternatives({
      ecosystems: [JAVA],
      registries: goal('online').registries,
      turns: turnsOf(JAVA, 'online', [{ index: 0 }]),
    });
    expect(statuses.find((s) => s.row.id === 'distribution')?.status).toEqual({
      state: 'ruled-out',
      reason: expect.stringContaining('--registries online'),
    });
    expect(openAlternatives(statuses)).toEqual([]);
  });

  it("the repository's own build script is a row while it is there, tried after every setup", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-alt-'));
    writeFileSync(path.join(root, 'build.sh'), 'javac -d out $(find src -name "*.java")\n');
    expect(ownScripts(root)).toEqual(['build.sh']);
    expect(OWN_SCRIPT_NAMES).toContain('build.sh');
    const recipes = deployRecipes(repoInfo({ root, ecosystems: [JAVA] }), goal('offline'));
    expect(recipes.map((r) => r.id)).toEqual([
      'deploy:java:maven-debian',
      'deploy:java:javac',
      'own-script:build.sh',
    ]);
    expect(recipes[2]!.tools.map((t) => t.command)).toContain('javac');
    const two = turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }], root);
    expect(open(JAVA, 'offline', two)).toEqual(['java:own-script']);
    expect(
      open(JAVA, 'offline', turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }, { index: 2 }], root)),
    ).toEqual([]);
  });

  it('with no ecosystem, a target the tree lacks (`./fit`) is built by its own script first, then run as it is', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-alt-'));
    writeFileSync(path.join(root, 'build.sh'), 'g++ -o fit fit.cpp\n');
    const withTarget = (command: string): DeployGoal => ({
      ...goal('offline'),
      target: { ...goal('offline').target, command },
    });
    const ids = (command: string): string[] =>
      deployRecipes(repoInfo({ root, ecosystems: [] }), withTarget(command)).map((r) => r.id);
    expect(targetNeedsBuilding(root, withTarget('./fit record'))).toBe(true);
    expect(ids('./fit record')).toEqual(['own-script:build.sh', 'deploy:as-is']);
    // A target the tree has (a script, an interpreter's program) may run as it is: that comes first.
    writeFileSync(path.join(root, 'fit'), '#!/bin/sh\n');
    expect(ids('./fit record')).toEqual(['deploy:as-is', 'own-script:build.sh']);
    expect(ids('python3 fit.py')).toEqual(['deploy:as-is', 'own-script:build.sh']);
    expect(targetNeedsBuilding(root, withTarget('../outside/fit'))).toBe(false);
  });

  it('a strictness row opens only when its failure was seen (gfortran >= 10)', () => {
    const once = turnsOf(FORTRAN, 'offline', [{ index: 0, rootCause: 'gfortran-argument-mismatch' }]);
    expect(open(FORTRAN, 'offline', once)).toEqual(['fortran:strictness']);
    const repaired = [
      ...once,
      ...turnsOf(FORTRAN, 'offline', [{ index: 0, repair: 'fortran-allow-argument-mismatch' }]).map((t) => ({
        ...t,
        turn: 1,
      })),
    ];
    expect(open(FORTRAN, 'offline', repaired)).toEqual([]);
  });

  it('the RUNBOOK says how each ecosystem got its dependencies and lists every row', () => {
    const lines = alternativesSection(
      { goal: { registries: goal('auto').registries }, ecosystems: [RUST, PY] },
      turnsOf(RUST, 'auto', [{ index: 0 }, { index: 1 }]),
    );
    expect(lines[0]).toBe('## Alternatives tried');
    expect(lines).toContain("- rust: the distribution's librust-*-dev crates (offline) (turn 1)");
    expect(lines).toContain('- python: no way of obtaining its dependencies was tried');
    expect(lines.join('\n')).toMatch(
      /rust lockfile: Cargo\.lock re-resolved .* — ruled out: no turn failed with cargo-version-not-selected/,
    );
    expect(lines.join('\n')).toMatch(
      /rust registry: the registry mirror passed .* — ruled out: no mirror was passed/,
    );
  });
});

/** The trajectory lines a deploy run with `turns` that claims `claim` at the end writes (as the loop emits them). */
function trajectory(
  eco: EcosystemInfo,
  mode: DeployGoal['registries']['mode'],
  turns: AlternativesTurn[],
  claim: { claim: string; accepted: boolean }[],
  mirrors: Record<string, string> = {},
): AlternativesTrajectoryLine[] {
  const lines: AlternativesTrajectoryLine[] = [
    { type: 'header', data: { pid: 1 } },
    { type: 'run_start', data: { type: 'run_start', repo: 'r' } },
    {
      type: 'phase',
      data: {
        type: 'phase',
        phase: 'inspect',
        message: 'deploy target: ./run',
        data: { deploy: alternativesFacts(goal(mode, mirrors), repoInfo({ ecosystems: [eco] })) },
      },
    },
  ];
  for (const t of turns) {
    lines.push({
      type: 'turn_start',
      data: { turn: t.turn, action: { kind: 'run', purpose: t.purpose, script: t.script, reason: 'x' } },
    });
    lines.push({
      type: 'turn_end',
      data: {
        turn: t.turn,
        observation: { exec: { exitCode: 1 }, ...(t.rootCause ? { rootCause: t.rootCause } : {}) },
      },
    });
  }
  const last = turns.length;
  claim.forEach((c, i) =>
    lines.push({ type: 'claim', data: { turn: last + i, claim: c.claim, accepted: c.accepted } }),
  );
  return lines;
}

describe('the trajectory check over what a deploy run wrote (issue 29)', () => {
  it('names a claim of impossible with rows open, from the trajectory alone', () => {
    const once = turnsOf(JAVA, 'offline', [{ index: 0 }]);
    const problems = trajectoryPrematureImpossible(
      trajectory(JAVA, 'offline', once, [{ claim: 'impossible', accepted: true }]),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^trajectory: claimed impossible at turn 1 with alternatives neither tried nor ruled out: java without-build-tool \(javac/,
      ),
    ]);
    // every row tried or ruled out: the claim stands
    const both = turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }]);
    expect(
      trajectoryPrematureImpossible(
        trajectory(JAVA, 'offline', both, [{ claim: 'impossible', accepted: true }]),
      ),
    ).toEqual([]);
  });

  it('reads the root causes the turns ended with (a failure opens its row) and ignores what is not a claim of impossible', () => {
    const failed = turnsOf(RUST, 'auto', [
      { index: 0 },
      { index: 1, rootCause: 'cargo-version-not-selected' },
    ]);
    expect(
      trajectoryPrematureImpossible(
        trajectory(RUST, 'auto', failed, [{ claim: 'impossible', accepted: true }]),
      ).join(''),
    ).toContain('rust lock-re-resolved');
    // a refused claim (the gate sent the strategy on) and a partial claim are not premature impossibles
    expect(
      trajectoryPrematureImpossible(
        trajectory(RUST, 'auto', failed, [{ claim: 'impossible', accepted: false }]),
      ),
    ).toEqual([]);
    expect(
      trajectoryPrematureImpossible(trajectory(RUST, 'auto', failed, [{ claim: 'partial', accepted: true }])),
    ).toEqual([]);
    // a build run (no deploy facts) has no alternatives to exhaust
    const build = trajectory(RUST, 'auto', failed, [{ claim: 'impossible', accepted: true }]).filter(
      (l) => l.type !== 'phase',
    );
    expect(trajectoryPrematureImpossible(build)).toEqual([]);
  });

  it('a resumed file counts only its last run; mirrors are recorded by name only', () => {
    const failed = trajectory(JAVA, 'offline', turnsOf(JAVA, 'offline', [{ index: 0 }]), [
      { claim: 'impossible', accepted: true },
    ]);
    const fine = trajectory(JAVA, 'offline', turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }]), [
      { claim: 'impossible', accepted: true },
    ]);
    expect(trajectoryPrematureImpossible([...failed, ...fine.slice(1)])).toEqual([]);
    expect(trajectoryPrematureImpossible([...fine, ...failed.slice(1)])).toHaveLength(1);
    const facts = alternativesFacts(
      goal('auto', { PIP_INDEX_URL: 'https://user:secret@pypi.example/simple' }),
      repoInfo({ ecosystems: [PY] }),
    );
    expect(JSON.stringify(facts)).not.toContain('secret');
    expect(facts.registries.mirrors).toEqual({ PIP_INDEX_URL: '' });
  });
});

describe("the stop-gate's question for a deploy's claim of impossible", () => {
  it('refuses the first claim with rows open, naming them; the same claim again stands; other claims pass', () => {
    const repo = repoInfo({ ecosystems: [JAVA] });
    const gate = impossibleGate(goal('offline'), repo);
    const history = (turns: AlternativesTurn[]) =>
      turns.map((t) => ({
        turn: t.turn,
        action: { kind: 'run' as const, purpose: t.purpose, script: t.script },
        observation: {},
      }));
    const once = history(turnsOf(JAVA, 'offline', [{ index: 0 }]));
    expect(gate('partial', once)).toBeUndefined();
    expect(gate('impossible', once)).toMatch(
      /^finish\(impossible\) refused: alternatives not tried yet, .*java build-tool: javac over the sources/,
    );
    expect(gate('impossible', once)).toBeUndefined();
    const both = history(turnsOf(JAVA, 'offline', [{ index: 0 }, { index: 1 }]));
    expect(impossibleGate(goal('offline'), repo)('impossible', both)).toBeUndefined();
  });
});
