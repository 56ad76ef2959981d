import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RuleKnowledge } from '../../../src/knowledge/repair-rules.js';
import { analyzeLog } from '../../../src/knowledge/log-parser.js';
import { emptyFixes, recipeFor } from '../../../src/agent/strategies/recipes.js';
import { repoInfo, system } from '../../fakes/repo-info.js';

/** Runs repair prelude lines the way the recipe script does: bash with `set -eo pipefail`. */
function runPrelude(dir: string, lines: string[]): number | null {
  return spawnSync('bash', ['-c', `set -eo pipefail\n${lines.join('\n')}`], { cwd: dir }).status;
}

describe('repair scripts run for real', () => {
  it('the removed-glibc-header guard edits the source once and is harmless when run again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-guard-'));
    writeFileSync(path.join(dir, 'os.c'), '#include <stdio.h>\n#include <sys/sysctl.h>\nint main(void) { return 0; }\n');
    const log = 'os.c:2:10: fatal error: sys/sysctl.h: No such file or directory';
    const analysis = analyzeLog(log);
    const [repair] = await new RuleKnowledge().propose(
      {
        rootCause: analysis.rootCause!,
        findings: analysis.findings,
        recipe: recipeFor(system('make'))!,
        fixes: emptyFixes(),
        repo: repoInfo({ root: dir }),
        output: log,
      },
      {},
    );
    expect(runPrelude(dir, repair!.prelude!)).toBe(0);
    const edited = readFileSync(path.join(dir, 'os.c'), 'utf8');
    expect(edited).not.toMatch(/#include <sys\/sysctl.h>/);
    expect(edited).toMatch(/#include <stdio.h>/);
    expect(runPrelude(dir, repair!.prelude!)).toBe(0);
    expect(readFileSync(path.join(dir, 'os.c'), 'utf8')).toBe(edited);
  });
});
