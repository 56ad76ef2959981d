/**
 * Repairs known before the first script (issue 32): an unconditional include of a header the sandbox's C
 * library removed is repaired before turn 0 by the rule that would repair it after a failure, said with the line
 * that predicted it — and left alone when the sandbox has the header (a build that would pass is unchanged), or
 * with --no-preinstall (nothing up front, for before/after measurements).
 */
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { preemptiveMigrations } from '../../../src/agent/strategies/preemptive.js';
import { RulesStrategy } from '../../../src/agent/strategies/rules.js';
import type { TurnContext } from '../../../src/agent/types.js';
import { RuleKnowledge } from '../../../src/knowledge/repair/rules/index.js';
import type { StrategyServices } from '../../../src/knowledge/repair/repair.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

const repo = repoInfo({
  buildSystems: [system('make')],
  declaredDeps: [
    {
      kind: 'header',
      name: 'sys/sysctl.h',
      required: true,
      source: 'uptime.c:3',
      text: '#include <sys/sysctl.h>',
    },
    { kind: 'header', name: 'stdio.h', required: true, source: 'uptime.c:1', text: '#include <stdio.h>' },
  ],
});

const context = (): TurnContext => ({
  turn: 0,
  maxTurns: 5,
  repo,
  expected: { names: [], source: 'none' },
  workdir: '/workspace',
  history: [],
});

/** A sandbox whose include folders hold `installed`. */
const services = (installed: string[], asked: string[] = []): StrategyServices => ({
  findHeaders: (header) => {
    asked.push(header);
    return Promise.resolve(installed.includes(header) ? [`/usr/include/${header}`] : []);
  },
});

describe('repairs before the first script', () => {
  it('guards a removed glibc header before turn 0, with its reason, its evidence and its patch', async () => {
    const asked: string[] = [];
    const s = new RulesStrategy(new RuleKnowledge(), services(['stdio.h'], asked));
    const a0 = await s.next(context());
    expect(a0.kind).toBe('run');
    if (a0.kind !== 'run') return;
    expect(a0.script).toContain('sys\\/sysctl\\.h');
    expect(a0.reason).toContain(
      'before the first script, guard-removed-glibc-header: glibc 2.32 removed <sys/sysctl.h>',
    );
    expect(a0.reason).toContain('(uptime.c:3: #include <sys/sysctl.h>)');
    expect(a0.patches).toEqual([
      { file: 'files including <sys/sysctl.h>', reason: expect.stringContaining('glibc 2.32 removed') },
    ]);
    // only the header the catalog calls a removed API is looked up in the sandbox
    expect(asked).toEqual(['sys/sysctl.h']);
  });

  it('changes nothing when the sandbox has the header (an older C library)', async () => {
    const s = new RulesStrategy(new RuleKnowledge(), services(['sys/sysctl.h', 'stdio.h']));
    const a0 = await s.next(context());
    if (a0.kind !== 'run') throw new Error('expected a script');
    expect(a0.script).not.toContain('sysctl');
    expect(a0.reason).not.toContain('before the first script');
    expect(a0.patches).toBeUndefined();
  });

  it('changes nothing with --no-preinstall, nor without a way to look in the sandbox', async () => {
    for (const s of [
      new RulesStrategy(new RuleKnowledge(), services([]), { preinstall: false }),
      new RulesStrategy(new RuleKnowledge(), {}),
    ]) {
      const a0 = await s.next(context());
      if (a0.kind !== 'run') throw new Error('expected a script');
      expect(a0.script).not.toContain('sysctl');
    }
  });
});

describe('removed Python APIs migrated before the first script (a deploy with Python)', () => {
  const PY = { kind: 'python' as const, manifests: ['requirements.txt'], dependencies: [], notes: [] };
  const goal = {
    target: { command: 'python3 run.py', cwd: '', timeoutMs: 60_000, evidence: {} },
    requires: [],
    registries: { mode: 'offline' as const, mirrors: {} },
  };

  function pyTree(files: Record<string, string>): string {
    const root = mkdtempSync(path.join(tmpdir(), 'bb-preemptive-py-'));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    return root;
  }

  const deployContext = (root: string): TurnContext => ({
    ...context(),
    repo: repoInfo({ root, ecosystems: [PY] }),
    goal,
  });

  it('every removed API the sources use, at once, each with the line that uses it', async () => {
    const root = pyTree({
      'run.py': 'import numpy as np\nimport collections\n\nx = np.zeros(3, dtype=np.float)\n',
      'lib/util.py': 'from collections import Mapping\n\ndef f(m):\n    return isinstance(m, Mapping)\n',
      '.buildbench/old.py': 'y = np.int(3)\n',
    });
    const found = await preemptiveMigrations(repoInfo({ root }));
    expect(found.map((f) => [f.repair.key, f.evidence])).toEqual([
      ['migrate:numpy-builtin-aliases', 'run.py:4: x = np.zeros(3, dtype=np.float)'],
      ['migrate:collections-abc-import', 'lib/util.py:1: from collections import Mapping'],
    ]);
    const a0 = await new RulesStrategy(new RuleKnowledge(), {}).next(deployContext(root));
    if (a0.kind !== 'run') throw new Error('expected a script');
    expect(a0.reason).toContain('before the first script, migrate-removed-python-api: NumPy 1.24 removed');
    expect(a0.reason).toContain('(lib/util.py:1: from collections import Mapping)');
    expect(a0.patches?.map((p) => p.file)).toEqual([
      '*.py files using removed numpy names',
      '*.py files using removed collections names',
    ]);
    // the edits run by the script, not recorded as the recipe's own preparation
    expect(a0.recipe?.edits).toHaveLength(2);
  });

  it('sources that use none of them: nothing is migrated, and the script is as without the table', async () => {
    const root = pyTree({
      'run.py':
        'import collections.abc\nimport numpy as np\n\nx = np.zeros(3, dtype=float)  # np.float64 is fine\n',
    });
    expect(await preemptiveMigrations(repoInfo({ root }))).toEqual([]);
    const a0 = await new RulesStrategy(new RuleKnowledge(), {}).next(deployContext(root));
    if (a0.kind !== 'run') throw new Error('expected a script');
    expect(a0.reason).not.toContain('before the first script');
    expect(a0.patches).toBeUndefined();
  });

  it('not without Python in the deploy, nor with --no-preinstall', async () => {
    const root = pyTree({ 'run.py': 'x = np.float(1)\n' });
    const noPython = { ...deployContext(root), repo: repoInfo({ root, ecosystems: [] }) };
    const off = new RulesStrategy(new RuleKnowledge(), {}, { preinstall: false });
    for (const [strategy, ctx] of [
      [new RulesStrategy(new RuleKnowledge(), {}), noPython],
      [off, deployContext(root)],
    ] as const) {
      const a0 = await strategy.next(ctx);
      if (a0.kind !== 'run') throw new Error('expected a script');
      expect(a0.reason).not.toContain('migrate-removed-python-api');
    }
  });
});

describe("the documentation's switches for tests, examples and docs", () => {
  const cmakeRepo = (text: string) =>
    repoInfo({
      buildSystems: [system('cmake', '', 'CMakeLists.txt')],
      documented: {
        blocks: [{ source: 'README.md:56', section: 'CMake', text, from: 'docs' }],
        prosePackages: [],
      },
    });
  const first = (names: string[], text: string): TurnContext => ({
    ...context(),
    repo: cmakeRepo(text),
    expected: { names, source: names.length ? 'cli' : 'none' },
  });

  it('configures as the README does (cmake -Bbuild-cmake -DBUILD_TESTING=OFF), with the line as evidence', async () => {
    const a0 = await new RulesStrategy(new RuleKnowledge(), {}).next(
      first(
        ['ninja'],
        'cmake -Bbuild-cmake -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release\ncmake --build build-cmake',
      ),
    );
    if (a0.kind !== 'run') throw new Error('expected a script');
    expect(a0.script).toContain('cmake -S . -B build -DBUILD_TESTING=OFF');
    expect(a0.script).not.toContain('CMAKE_BUILD_TYPE'); // only switches that leave work out
    expect(a0.reason).toContain(
      'before the first script, documented-switches: the documentation configures with -DBUILD_TESTING=OFF',
    );
    expect(a0.reason).toContain('(README.md:56: cmake -Bbuild-cmake -DBUILD_TESTING=OFF');
  });

  it('not when a test binary is expected, nor without such a switch', async () => {
    for (const [names, text] of [
      [['ninja_test'], 'cmake -B b -DBUILD_TESTING=OFF'],
      [['ninja'], 'cmake -B b -DBUILD_TESTING=ON'],
    ] as const) {
      const a0 = await new RulesStrategy(new RuleKnowledge(), {}).next(first([...names], text));
      if (a0.kind !== 'run') throw new Error('expected a script');
      expect(a0.script).not.toContain('-DBUILD_TESTING=OFF');
    }
  });
});
