import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

import { checkBotConfig, DEFAULT_CONFIG, loadBotConfig } from '../../../src/bot/config.js';

const check = (yamlText: string) => checkBotConfig(parse(yamlText) as unknown);

describe('checkBotConfig', () => {
  it('reads not-build-note (off unless set), and names the key when its value is not a boolean', () => {
    expect(DEFAULT_CONFIG.notBuildNote).toBe(false);
    expect(check('not-build-note: true\n')).toEqual({ config: { ...DEFAULT_CONFIG, notBuildNote: true } });
    expect(check('not-build-note: sometimes\n')).toMatchObject({ error: { field: 'not-build-note' } });
  });

  it('gives the defaults for no file and fills in what a file leaves out', () => {
    expect(checkBotConfig(null)).toEqual({ config: DEFAULT_CONFIG });
    expect(check('forks: true\ndefaults:\n  strategy: rules\n  max-turns: 5\n  max-cost: 2.5\n')).toEqual({
      config: {
        ...DEFAULT_CONFIG,
        forks: true,
        defaults: { strategy: 'rules', maxTurns: 5, maxCost: '2.5' },
      },
    });
    expect(
      check(
        'workflow: bot-build.yaml\ncommands: [build]\npermission: maintain\ndiagnose: false\npull-requests: false\n',
      ),
    ).toEqual({
      config: {
        ...DEFAULT_CONFIG,
        workflow: 'bot-build.yaml',
        commands: ['build'],
        permission: 'maintain',
        diagnose: false,
        pullRequests: false,
      },
    });
  });

  it.each([
    ['permission: read', 'permission', /must be one of write, maintain, admin/],
    ['forks: yes please', 'forks', /must be boolean/],
    ['workflow: ../evil.yml', 'workflow', /expected a workflow file name in .github\/workflows\//],
    ['commands: [build, deploy]', 'commands.1', /must be one of build, help/],
    ['defaults:\n  max-turns: 2.5', 'defaults.max-turns', /must be integer/],
    ['defaults:\n  strategy: magic', 'defaults.strategy', /'magic' is not valid; expected one of rules/],
    ['defaults:\n  model: gpt-4', 'defaults.model', /expected <provider>:<model>/],
    ['defaults:\n  max-cost: -3', 'defaults.max-cost', /positive amount in US dollars/],
    ['defaults:\n  maxCost: -3', 'defaults.max-cost', /positive amount in US dollars/],
    ['defaults:\n  stratgy: llm', 'defaults.stratgy', /^unknown field \(did you mean 'strategy'\?\)$/],
    [
      'defaults:\n  budget: 3',
      'defaults.budget',
      /^unknown field \(expected one of strategy, model, max-cost, max-turns\)$/,
    ],
    ['fork: true', 'fork', /^unknown field \(did you mean 'forks'\?\)$/],
    ['pull-request: true', 'pull-request', /^unknown field \(did you mean 'pull-requests'\?\)$/],
    [
      'defaults:\n  maxCost: 2\n  max-cost: 3',
      'defaults.maxCost',
      /^is the old spelling of defaults.max-cost, which is set too; keep only defaults.max-cost$/,
    ],
    [
      'defaults:\n  strategy: magic',
      'defaults.strategy',
      /^'magic' is not valid; expected one of rules, baseline, llm, hybrid$/,
    ],
    ['- build', '(the file)', /must be a mapping of fields/],
  ])('%j is an error naming %s', (text, field, message) => {
    const result = check(text);
    expect(result).toEqual({ error: { field, message: expect.stringMatching(message) } });
  });
});

describe('the camelCase spelling of earlier versions', () => {
  it('is still read, with one deprecation note per key', () => {
    expect(check('pullRequests: false\ndefaults:\n  maxCost: 2\n  maxTurns: 7\n')).toEqual({
      config: { ...DEFAULT_CONFIG, pullRequests: false, defaults: { maxCost: '2', maxTurns: 7 } },
      notes: [
        ".github/buildbench.yml: `pullRequests` is deprecated; spell it `pull-requests`, as the Action's input is spelled",
        ".github/buildbench.yml: `defaults.maxCost` is deprecated; spell it `defaults.max-cost`, as the Action's input is spelled",
        ".github/buildbench.yml: `defaults.maxTurns` is deprecated; spell it `defaults.max-turns`, as the Action's input is spelled",
      ],
    });
    expect(check('pull-requests: false\n')).toEqual({ config: { ...DEFAULT_CONFIG, pullRequests: false } });
  });

  it('is logged as a warning when the file is loaded', async () => {
    const warned: string[] = [];
    const result = await loadBotConfig({
      config: () => Promise.resolve({ defaults: { maxTurns: 3 } }),
      log: { warn: (message: string) => warned.push(message) },
    } as never);
    expect(result).toMatchObject({ config: { defaults: { maxTurns: 3 } } });
    expect(warned).toEqual([
      ".github/buildbench.yml: `defaults.maxTurns` is deprecated; spell it `defaults.max-turns`, as the Action's input is spelled",
    ]);
  });
});

describe('loadBotConfig', () => {
  it('reads through context.config (no defaults: null when no file)', async () => {
    const names: string[] = [];
    const result = await loadBotConfig({
      config: (name: string) => {
        names.push(name);
        return Promise.resolve(null);
      },
    } as never);
    expect(names).toEqual(['buildbench.yml']);
    expect(result).toEqual({ config: DEFAULT_CONFIG });
  });

  it('turns a file Probot cannot parse into an error on the file, with the line', async () => {
    const cause = { linePos: [{ line: 3, col: 7 }] };
    const result = await loadBotConfig({
      config: () =>
        Promise.reject(
          new Error(
            '[@probot/octokit-plugin-config] Configuration could not be parsed from https://x (invalid YAML)',
            { cause },
          ),
        ),
    } as never);
    expect(result).toEqual({
      error: { field: '(the file)', message: 'is not valid YAML (line 3, column 7)' },
    });
  });
});
