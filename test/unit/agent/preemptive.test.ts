/**
 * Repairs known before the first script (issue 32): an unconditional include of a header the sandbox's C
 * library removed is repaired before turn 0 by the rule that would repair it after a failure, said with the line
 * that predicted it — and left alone when the sandbox has the header (a build that would pass is unchanged), or
 * with --no-preinstall (nothing up front, for before/after measurements).
 */
import { describe, expect, it } from '@jest/globals';
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
