/**
 * Issue 31, §2: the rules strategy says `impossible` from one function, only when no rule plan, no generic move
 * and no other recipe or retry remains, and its reason says what was tried; a failure that a generic move
 * answers (here a header only in versioned include folders) is a repair turn, not the end at turn 1.
 */
import { describe, expect, it } from '@jest/globals';
import { RulesStrategy, finishClaim, whatWasTried } from '../../../src/agent/strategies/rules.js';
import type { Action, Observation, TurnContext, TurnRecord } from '../../../src/agent/types.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import { RuleKnowledge } from '../../../src/knowledge/repair/rules/index.js';
import type { StrategyServices } from '../../../src/knowledge/repair/repair.js';
import type { RepoInfo } from '../../../src/repo/types.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

function failed(output: string): Observation {
  const analysis = analyzeLog(output);
  return {
    exec: { exitCode: 2, timedOut: false, cancelled: false, durationMs: 5, truncated: false, totalBytes: 10 },
    output,
    findings: analysis.findings,
    rootCause: analysis.rootCause,
    artifacts: [],
    verdict: {
      passed: false,
      metrics: { completion: false, strict: false, flexible: false, matched: [], missing: ['luaver'] },
      failures: ['luaver missing'],
    },
  };
}

function ctx(history: TurnRecord[], repo: RepoInfo): TurnContext {
  return {
    turn: history.length,
    maxTurns: 10,
    repo,
    expected: { names: ['luaver'], source: 'cli' },
    workdir: '/w',
    history,
  };
}

/** Plays the strategy against one failing output per turn; returns its actions and the history. */
async function play(s: RulesStrategy, repo: RepoInfo, output: string): Promise<Action[]> {
  const history: TurnRecord[] = [];
  const actions: Action[] = [];
  for (let i = 0; i < 10; i++) {
    const action = await s.next(ctx(history, repo));
    actions.push(action);
    if (action.kind === 'finish') break;
    history.push({ turn: i, action, observation: failed(output), notes: [] });
  }
  return actions;
}

function services(hits: { pkg: string; path: string }[]): StrategyServices {
  return {
    resolvePackages: (needs) =>
      Promise.resolve(needs.map((need) => ({ need, candidates: [], via: 'none' as const }))),
    searchPaths: () => Promise.resolve(hits),
    knownPackages: (names) => Promise.resolve([...names]),
  };
}

const LOG = 'luaver.c:2:10: fatal error: lua.h: No such file or directory\ncompilation terminated.';
const repo = repoInfo({ root: '/nonexistent', buildSystems: [system('make', '')] });

describe('finishClaim: the one decision to stop', () => {
  it('continues while a plan, a recipe or the serial retry is left', () => {
    const none = { built: false, plansLeft: 0, recipesLeft: 0, serialLeft: false };
    expect(finishClaim({ ...none, plansLeft: 1 })).toBe('continue');
    expect(finishClaim({ ...none, recipesLeft: 2 })).toBe('continue');
    expect(finishClaim({ ...none, serialLeft: true })).toBe('continue');
    expect(finishClaim({ ...none, built: true, plansLeft: 1 })).toBe('continue');
  });

  it('partial when something was built, impossible only when nothing remains', () => {
    const none = { built: false, plansLeft: 0, recipesLeft: 0, serialLeft: false };
    expect(finishClaim({ ...none, built: true })).toBe('partial');
    expect(finishClaim(none)).toBe('impossible');
  });

  it('what was tried lists each script and the generic moves', () => {
    const run = (purpose: string): TurnRecord => ({
      turn: 0,
      action: { kind: 'run', script: 'true', purpose, reason: 'r' },
      notes: [],
    });
    const text = whatWasTried([run('make'), run('make + install-header-package')]);
    expect(text).toBe(
      'tried 2 scripts: make; make + install-header-package; no repair rule, generic move (configure-first, versioned-file-lookup, other-compiler) or other recipe is left',
    );
  });
});

describe('the rules strategy with the generic moves', () => {
  it('a header the index has only in versioned folders: a repair turn, not impossible at turn 1', async () => {
    const lua = [
      { pkg: 'liblua5.3-dev', path: '/usr/include/lua5.3/lua.h' },
      { pkg: 'liblua5.4-dev', path: '/usr/include/lua5.4/lua.h' },
    ];
    const actions = await play(
      new RulesStrategy(new RuleKnowledge(), services(lua), { preinstall: false }),
      repo,
      LOG,
    );
    expect(actions[1]).toMatchObject({ kind: 'run', purpose: 'make + versioned-file-lookup' });
    if (actions[1]?.kind === 'run') {
      expect(actions[1].script).toContain('liblua5.4-dev');
      expect(actions[1].script).toContain('export CPATH=/usr/include/lua5.4');
    }
    // The move applied once and the same failure again: nothing is left, and the reason says what was tried.
    const last = actions[actions.length - 1]!;
    expect(actions).toHaveLength(3);
    expect(last).toMatchObject({ kind: 'finish', claim: 'impossible' });
    if (last.kind === 'finish')
      expect(last.reason).toContain('tried 2 scripts: make; make + versioned-file-lookup; no repair rule');
  });

  it('with no plan and no move: impossible after the one recipe, saying so', async () => {
    const actions = await play(
      new RulesStrategy(new RuleKnowledge(), services([]), { preinstall: false }),
      repo,
      LOG,
    );
    expect(actions.map((a) => a.kind)).toEqual(['run', 'finish']);
    const last = actions[1]!;
    expect(last).toMatchObject({ kind: 'finish', claim: 'impossible' });
    if (last.kind === 'finish') {
      expect(last.reason).toContain('no known repair for the root cause "missing header lua.h"');
      expect(last.reason).toContain('tried 1 script: make;');
    }
  });
});
