/**
 * Task and spec files are bounded and confined (issue 28 item 7). A local `repository` must resolve inside
 * the work tree that holds the task file (the nearest folder above it with a `.git`), by real path, unless a
 * folder is allowed (`--repos-dir`); the committed suites that name `../../test/fixtures/repos/…` still load.
 * Task and spec files over MAX_INPUT_FILE_BYTES are refused from their size, before they are read: the 50 MB
 * files here are sparse, and memory must not grow by their size.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { FileTooLargeError, MAX_INPUT_FILE_BYTES, readTextCapped } from '../../../src/base/bounded-file.js';
import { loadTaskFile, loadTasks, TaskError } from '../../../src/bench/load.js';
import { loadDeployTask } from '../../../src/core/run-deploy.js';
import { loadSpec } from '../../../src/verify/spec.js';

let top: string;
let tree: string;
let outside: string;

beforeAll(() => {
  top = mkdtempSync(path.join(tmpdir(), 'bb-confined-'));
  tree = path.join(top, 'checkout');
  outside = path.join(top, 'outside');
  mkdirSync(path.join(tree, '.git'), { recursive: true });
  mkdirSync(path.join(tree, 'repos', 'inside'), { recursive: true });
  mkdirSync(path.join(tree, 'tasks', 'suite'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'host file\n');
  symlinkSync(outside, path.join(tree, 'repos', 'link'));
});

afterAll(() => rmSync(top, { recursive: true, force: true }));

/** Writes a build task at tasks/suite/<name>.yml in the work tree whose repository is `repository`. */
function task(name: string, repository: string): string {
  const file = path.join(tree, 'tasks', 'suite', `${name}.yml`);
  writeFileSync(file, `kind: build\nrepository: ${repository}\nexpected: [hello]\n`);
  return file;
}

async function refusal(load: Promise<unknown>): Promise<string> {
  try {
    await load;
  } catch (error) {
    expect(error).toBeInstanceOf(TaskError);
    return (error as Error).message;
  }
  throw new Error('expected the task to be refused');
}

describe('a task’s local repository', () => {
  it('inside the work tree loads', async () => {
    const loaded = await loadTaskFile(task('inside', '../../repos/inside'));
    expect(loaded.repository.source).toBe(path.join(tree, 'repos', 'inside'));
  });

  it('../outside is refused, naming the file, the field, the work tree and the flag', async () => {
    const file = task('up', '../../../outside');
    expect(await refusal(loadTaskFile(file))).toBe(
      `${file}:2: repository: ${outside} is outside ${tree}, the work tree that holds this task file; ` +
        'expected a folder inside it; to allow another folder, pass --repos-dir <dir>',
    );
  });

  it('an absolute path is refused, in the long form too (repository.source)', async () => {
    const file = path.join(tree, 'tasks', 'suite', 'abs.yml');
    writeFileSync(file, `kind: build\nrepository:\n  source: ${outside}\n  branch: main\n`);
    expect(await refusal(loadTaskFile(file))).toContain(
      `abs.yml:3: repository.source: ${outside} is outside ${tree}`,
    );
    expect(await refusal(loadTaskFile(task('etc', '/etc')))).toContain('repository: /etc is outside');
  });

  it('a symbolic link in the work tree that leads out is refused by its real path', async () => {
    expect(await refusal(loadTaskFile(task('link', '../../repos/link')))).toContain(
      `repository: ${path.join(tree, 'repos', 'link')} leads through a symbolic link to ${outside}, outside ${tree}`,
    );
  });

  it('is allowed outside the work tree when a folder is allowed (--repos-dir), links included', async () => {
    const allowed = { allowedRoots: [top] };
    expect((await loadTaskFile(task('up2', '../../../outside'), allowed)).repository.source).toBe(outside);
    expect((await loadTaskFile(task('abs2', outside), allowed)).repository.source).toBe(outside);
    expect((await loadTaskFile(task('link2', '../../repos/link'), allowed)).repository.source).toBe(
      path.join(tree, 'repos', 'link'),
    );
    // loadTasks passes it on; a deploy task is loaded the same way (buildbench deploy --repos-dir).
    const [loaded] = await loadTasks([task('up3', '../../../outside')], allowed);
    expect(loaded?.repository.source).toBe(outside);
    const deploy = path.join(tree, 'tasks', 'suite', 'deploy.yml');
    writeFileSync(path.join(tree, 'tasks', 'v.spec.yml'), 'hidden: true\nchecks:\n  - command: ./x\n');
    writeFileSync(
      deploy,
      `kind: deploy\nrepository: ${outside}\ntarget: { command: ./x, evidence: { files: [r] } }\nverifier: { spec: ../v.spec.yml }\n`,
    );
    await expect(loadDeployTask(deploy)).rejects.toThrow('is outside');
    expect((await loadDeployTask(deploy, top)).repository.source).toBe(outside);
  });

  it('the committed suites that name ../../test/fixtures/repos/… still load', async () => {
    const tasks = await loadTasks([path.resolve('tasks/fixtures')]);
    expect(tasks.length).toBeGreaterThan(0);
    const fixtures = tasks.filter((t) => t.repository.source.includes('test/fixtures/repos'));
    expect(fixtures.length).toBeGreaterThan(0);
  });
});

describe('task and spec files over the cap', () => {
  /** A sparse file of `bytes` bytes: its size says 50 MB, its blocks are none. */
  function sparse(name: string, bytes: number, head: string): string {
    const file = path.join(top, name);
    writeFileSync(file, head);
    truncateSync(file, bytes);
    return file;
  }

  /** Runs `load` and says how much memory (ArrayBuffers and heap) it left grown. */
  async function growth(load: () => Promise<unknown>): Promise<{ bytes: number; error: unknown }> {
    const before = process.memoryUsage();
    let error: unknown;
    try {
      await load();
    } catch (e) {
      error = e;
    }
    const after = process.memoryUsage();
    return { bytes: after.arrayBuffers - before.arrayBuffers + (after.heapUsed - before.heapUsed), error };
  }

  it('a 50 MB task file is refused from its size, naming the file and the cap, and is not read', async () => {
    const file = sparse('big.yml', 50 * 1024 * 1024, 'kind: build\nrepository: o/n\nnotes:\n  - ');
    const seen = await growth(() => loadTaskFile(file));
    expect(seen.error).toBeInstanceOf(TaskError);
    expect((seen.error as Error).message).toBe(
      `${file}:1: the file is 50.0 MiB, over the cap of 1.0 MiB; nothing of it was read (the cap on task files)`,
    );
    expect(seen.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('a 50 MB spec file is refused the same way', async () => {
    const file = sparse('big.spec.yml', 50 * 1024 * 1024, 'checks:\n  - command: ./x\n#');
    const seen = await growth(() => loadSpec(file));
    expect((seen.error as Error).message).toBe(
      `--spec: ${file} is 50.0 MiB, over the cap of 1.0 MiB; nothing of it was read (the cap on spec files)`,
    );
    expect(seen.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('a file that is larger than its size says (or grows while read) is refused at the cap', async () => {
    // /proc files report size 0 and hold more: the read stops at cap + 1 bytes.
    await expect(readTextCapped('/proc/self/status', 100)).rejects.toThrow(
      new FileTooLargeError('/proc/self/status', 100),
    );
    expect(new FileTooLargeError('/proc/self/status', 100).message).toBe(
      '/proc/self/status grew past the cap of 1 KiB while it was read; refused',
    );
    const exact = path.join(top, 'exact.yml');
    writeFileSync(exact, 'x'.repeat(MAX_INPUT_FILE_BYTES));
    expect((await readTextCapped(exact)).length).toBe(MAX_INPUT_FILE_BYTES);
  });
});
