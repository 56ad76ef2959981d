/**
 * The action reading its output folder back (outputs, job summary) and writing its note into it: nothing is
 * read or written through a symbolic link out of the folder, and the runbook result.json names must be a
 * file of the folder (issue 28 item 6).
 */
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nock from '../../helpers/nock.js';

import { EARLY_NOTE, run, type ActionDeps } from '../../../src/action/main.js';
import type { BuildResult } from '../../../src/report/result.js';
import type { BuildSettings } from '../../../src/core/settings.js';
import { fakeResult, writeOutDir } from '../../fakes/build-result.js';
import { setUpActionEnv, type ActionEnv } from '../../helpers/action.js';

const MARKER = 'outside-the-out-dir-8d41';

let env: ActionEnv | undefined;
afterAll(() => nock.restore());
afterEach(() => {
  env?.restore();
  env = undefined;
});

function repoIn(workspace: string): void {
  mkdirSync(path.join(workspace, 'hello', 'src'), { recursive: true });
  writeFileSync(path.join(workspace, 'hello', 'CMakeLists.txt'), 'add_executable(hello src/main.c)\n');
  writeFileSync(path.join(workspace, 'hello', 'src', 'main.c'), 'int main(void) { return 0; }\n');
}

function deps(engine: (settings: BuildSettings) => Promise<BuildResult>): Partial<ActionDeps> {
  return { runBuild: engine, handleSignals: false };
}

/** Files outside the output folder, in the runner's temp folder. */
function outsideFiles(dir: string): { runbook: string; buildSh: string; note: string } {
  const outside = path.join(dir, 'outside');
  mkdirSync(outside, { recursive: true });
  const files = {
    runbook: path.join(outside, 'RUNBOOK.md'),
    buildSh: path.join(outside, 'build.sh'),
    note: path.join(outside, 'note.txt'),
  };
  writeFileSync(files.runbook, `# x\n\n**Status: SUCCESS**\n\n## Evidence\n\n${MARKER}\n`);
  writeFileSync(files.buildSh, `#!/bin/sh\necho ${MARKER}\n`);
  writeFileSync(files.note, MARKER);
  return files;
}

describe('the action and its output folder', () => {
  it('neither reads a linked RUNBOOK.md, build.sh or artifacts folder nor names them in its outputs', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    const outside = outsideFiles(env.dir);
    const result = fakeResult();
    await run(
      deps(async (settings) => {
        await writeOutDir(settings.outDir, result);
        for (const [name, target] of [
          ['RUNBOOK.md', outside.runbook],
          ['build.sh', outside.buildSh],
          ['artifacts', path.dirname(outside.runbook)],
        ] as const) {
          rmSync(path.join(settings.outDir, name), { recursive: true, force: true });
          symlinkSync(target, path.join(settings.outDir, name));
        }
        return result;
      }),
    );
    expect(env.outputs()).toMatchObject({ status: 'success', 'runbook-path': '', artifacts: '' });
    expect(env.summary()).toContain('buildbench: SUCCESS');
    expect(env.summary()).not.toContain(MARKER);
  });

  it('does not follow files.runbook out of the folder', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    const outside = outsideFiles(env.dir);
    const named = path.relative(path.join(env.runnerTemp, 'buildbench-out', 'hello'), outside.runbook);
    expect(named.startsWith('..')).toBe(true);
    const result = { ...fakeResult(), files: { ...fakeResult().files, runbook: named } } as BuildResult;
    await run(
      deps(async (settings) => {
        await writeOutDir(settings.outDir, result);
        return result;
      }),
    );
    expect(env.outputs()).toMatchObject({ status: 'success', 'runbook-path': '' });
    expect(env.summary()).not.toContain(MARKER);
  });

  it('writes its note as a new file: a link at the note’s name is replaced, not written through', async () => {
    env = setUpActionEnv({ inputs: { path: 'hello' } });
    repoIn(env.workspace);
    const outside = outsideFiles(env.dir);
    await run(
      deps((settings) => {
        mkdirSync(settings.outDir, { recursive: true });
        symlinkSync(outside.note, path.join(settings.outDir, EARLY_NOTE));
        return Promise.reject(new Error('the disk caught fire'));
      }),
    );
    expect(process.exitCode).toBe(1);
    const outDir = path.join(env.runnerTemp, 'buildbench-out', 'hello');
    expect(readFileSync(outside.note, 'utf8')).toBe(MARKER);
    expect(lstatSync(path.join(outDir, EARLY_NOTE)).isFile()).toBe(true);
    expect(readFileSync(path.join(outDir, EARLY_NOTE), 'utf8')).toBe('status: error\nthe disk caught fire\n');
  });
});
