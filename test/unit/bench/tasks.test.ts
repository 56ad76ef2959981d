/**
 * Every task file committed under tasks/ loads and validates (schema, local repositories, verifier specs),
 * names its schema for editors on its first line, and the suites hold what tasks/README.md says.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { findTaskFiles, loadTasks } from '../../../src/bench/load.js';

const TASKS = path.resolve('tasks');
const SCHEMA = path.resolve('src/bench/schema/task.schema.json');

describe('the committed task suites', () => {
  it('all load, with unique ids', async () => {
    const tasks = await loadTasks([TASKS]);
    const bySuite = new Map<string, number>();
    for (const task of tasks) bySuite.set(task.suite ?? '', (bySuite.get(task.suite ?? '') ?? 0) + 1);
    expect(Object.fromEntries(bySuite)).toEqual({
      'build-bench/test': 149,
      'build-bench/validation': 70,
      'deploy-fixtures': 1,
      examples: 3,
      fixtures: 5,
    });
  });

  it('each names the schema on its first line, by a path that reaches it', async () => {
    for (const { file } of await findTaskFiles([TASKS])) {
      const first = readFileSync(file, 'utf8').split('\n')[0]!;
      const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect([file, match !== null]).toEqual([file, true]);
      expect([file, path.resolve(path.dirname(file), match![1]!)]).toEqual([file, SCHEMA]);
    }
  });

  it('the fixtures build local fixture repositories; the examples show both runner requirements', async () => {
    const fixtures = await loadTasks([path.join(TASKS, 'fixtures')]);
    for (const task of fixtures) {
      expect(task.kind).toBe('build');
      expect(path.dirname(task.repository.source)).toBe(path.resolve('test/fixtures/repos'));
    }
    const examples = await loadTasks([path.join(TASKS, 'examples')]);
    expect(examples.every((t) => t.kind === 'deploy')).toBe(true);
    expect(examples.map((t) => t.requires).sort()).toEqual([[], ['gpu'], ['kvm']]);
  });
});
