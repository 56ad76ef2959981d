import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RuleKnowledge } from '../../../../src/knowledge/repair/rules/index.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import { recipeFor } from '../../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../../src/recipe/model.js';
import { repoInfo, system } from '../../../fakes/repo-info.js';

/** Runs repair prelude lines the way the recipe script does: bash with `set -eo pipefail`. */
function runPrelude(dir: string, lines: string[]): number | null {
  return spawnSync('bash', ['-c', `set -eo pipefail\n${lines.join('\n')}`], { cwd: dir }).status;
}

describe('repair scripts run for real', () => {
  it('the removed-glibc-header guard edits the source once and is harmless when run again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-guard-'));
    writeFileSync(
      path.join(dir, 'os.c'),
      '#include <stdio.h>\n#include <sys/sysctl.h>\nint main(void) { return 0; }\n',
    );
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

describe('CMake dependency downloads that fail offline', () => {
  const log = (notFound: boolean): string =>
    [
      ...(notFound
        ? ['-- Could NOT find GTest (missing: GTEST_LIBRARY GTEST_INCLUDE_DIR GTEST_MAIN_LIBRARY) ']
        : []),
      "[ 11%] Creating directories for 'googletest-populate'",
      "[ 22%] Performing download step (download, verify and extract) for 'googletest-populate'",
      'CMake Error at googletest-subbuild/googletest-populate-prefix/src/googletest-populate-stamp/download-googletest-populate.cmake:170 (message):',
      '  Each download failed!',
      '',
      "    error: downloading 'https://github.com/google/googletest/releases/download/v1.16.0/googletest-1.16.0.tar.gz' failed",
      '          status_code: 6',
      '          status_string: "Couldn\'t resolve host name"',
    ].join('\n');

  async function propose(text: string) {
    const analysis = analyzeLog(text);
    return new RuleKnowledge().propose(
      {
        rootCause: analysis.rootCause!,
        findings: analysis.findings,
        recipe: recipeFor(system('cmake'))!,
        fixes: emptyFixes(),
        repo: repoInfo({ root: '/nonexistent' }),
        output: text,
      },
      {
        resolvePackages: (needs) =>
          Promise.resolve(
            needs.map((need) =>
              need.kind === 'cmake' && need.name === 'GTest'
                ? { need, package: 'libgtest-dev', candidates: ['libgtest-dev'], via: 'apt-file' as const }
                : { need, candidates: [], via: 'none' as const },
            ),
          ),
      },
    );
  }

  it('installs the package CMake looked for before downloading, then uses the packaged sources, then drops the tests', async () => {
    const repairs = await propose(log(true));
    expect(repairs.map((r) => r.rule)).toEqual([
      'install-cmake-package',
      'fetchcontent-from-package',
      'disable-tests',
    ]);
    expect(repairs[0]!.packages).toEqual(['libgtest-dev']);
    expect(repairs[1]).toMatchObject({
      packages: ['googletest'],
      configureArgs: ['-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest'],
    });
    expect(repairs[2]!.configureArgs).toContain('-DBUILD_TESTING=OFF');
    expect(repairs.every((r) => r.prelude?.includes('rm -rf build'))).toBe(true);
  });

  it('without a find_package attempt it goes straight to the packaged sources', async () => {
    const repairs = await propose(log(false));
    expect(repairs[0]?.rule).toBe('fetchcontent-from-package');
  });
});
