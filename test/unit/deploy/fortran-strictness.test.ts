/**
 * gfortran >= 10's argument-mismatch errors (the `gfortran-argument-mismatch` signature) answered by
 * `-fallow-argument-mismatch` in the build files' Fortran flags, a recorded patch: the log line through the
 * real catalog and rules, then the repair's own shell lines run on a tree of build files.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deployRecipes } from '../../../src/deploy/recipes/index.js';
import type { DeployGoal } from '../../../src/deploy/types.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import { RuleKnowledge } from '../../../src/knowledge/repair/rules/index.js';
import { emptyFixes } from '../../../src/recipe/model.js';
import type { EcosystemInfo } from '../../../src/repo/types.js';
import { repoInfo } from '../../fakes/repo-info.js';

const FORTRAN: EcosystemInfo = { kind: 'fortran', manifests: ['Makefile'], dependencies: [], notes: [] };
const GOAL: DeployGoal = {
  target: { command: './solve', cwd: '', timeoutMs: 60_000, evidence: {} },
  requires: [],
  registries: { mode: 'offline', mirrors: {} },
};

const LOG = [
  'gfortran -O2 -c solve.f',
  'solve.f:14:72:',
  '',
  '   14 |       CALL AXPY(N, 2.0D0, X, 1, Y, 1)',
  '      |                                                                        1',
  '......',
  '   21 |       CALL AXPY(1, 3.0D0, S, 1, T, 1)',
  '      |                                                                        2',
  'Error: Rank mismatch between actual argument at (1) and actual argument at (2) (scalar and rank-1)',
  'make: *** [Makefile:6: solve.o] Error 1',
].join('\n');

describe('gfortran >= 10 argument mismatches', () => {
  it('the log gives the signature, and the rule a recorded patch of the Fortran flags', async () => {
    const analysis = analyzeLog(LOG);
    expect(analysis.rootCause?.id).toBe('gfortran-argument-mismatch');
    expect(analysis.rootCause?.captures).toMatchObject({ kind: 'Rank', detail: 'scalar and rank-1' });
    const repo = repoInfo({ root: '/nonexistent', ecosystems: [FORTRAN] });
    const [repair] = await new RuleKnowledge().propose(
      {
        rootCause: analysis.rootCause!,
        findings: analysis.findings,
        recipe: deployRecipes(repo, GOAL)[0]!,
        fixes: emptyFixes(),
        repo,
        output: LOG,
        goal: GOAL,
      },
      {},
    );
    expect(repair?.rule).toBe('fortran-allow-argument-mismatch');
    expect(repair?.patches?.[0]?.reason).toMatch(/-fallow-argument-mismatch/);

    const root = mkdtempSync(path.join(tmpdir(), 'bb-fortran-'));
    mkdirSync(path.join(root, 'lib'));
    mkdirSync(path.join(root, 'cm'));
    writeFileSync(
      path.join(root, 'Makefile'),
      'FC = gfortran\nFFLAGS = -O2\nOBJS = a.o \\\n  b.o\nsolve: $(OBJS)\n\t$(FC) $(FFLAGS) -o $@ $^\n',
    );
    writeFileSync(path.join(root, 'lib', 'makefile'), 'lib.a: x.o\n\tar rcs $@ $^\n');
    writeFileSync(
      path.join(root, 'cm', 'CMakeLists.txt'),
      'cmake_minimum_required(VERSION 3.13)\nproject(p Fortran)\n',
    );
    const script = (repair?.prelude ?? []).join('\n');
    for (let i = 0; i < 2; i++) {
      // --norc: a bash whose stdin is a socket (a test worker's) would read /etc/bash.bashrc, which fails under -u
      const run = spawnSync('bash', ['--norc', '-euo', 'pipefail', '-c', script], {
        cwd: root,
        encoding: 'utf8',
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    }
    // each file once, however many turns apply it
    expect(readFileSync(path.join(root, 'Makefile'), 'utf8')).toBe(
      'FC = gfortran -fallow-argument-mismatch\nFFLAGS = -O2 -fallow-argument-mismatch\nOBJS = a.o \\\n  b.o\nsolve: $(OBJS)\n\t$(FC) $(FFLAGS) -o $@ $^\n',
    );
    expect(readFileSync(path.join(root, 'lib', 'makefile'), 'utf8')).toBe(
      'FFLAGS += -fallow-argument-mismatch\nFCFLAGS += -fallow-argument-mismatch\nlib.a: x.o\n\tar rcs $@ $^\n',
    );
    expect(readFileSync(path.join(root, 'cm', 'CMakeLists.txt'), 'utf8')).toMatch(
      /^add_compile_options\("\$<\$<COMPILE_LANGUAGE:Fortran>:-fallow-argument-mismatch>"\)\ncmake_minimum_required/,
    );
  });
});
