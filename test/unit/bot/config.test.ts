import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

import { checkBotConfig, DEFAULT_CONFIG, loadBotConfig } from '../../../src/bot/config.js';

const check = (yamlText: string) => checkBotConfig(parse(yamlText) as unknown);

describe('checkBotConfig', () => {
  it('gives the defaults for no file and fills in what a file leaves out', () => {
    expect(checkBotConfig(null)).toEqual({ config: DEFAULT_CONFIG });
    expect(check('forks: true\ndefaults:\n  strategy: rules\n  maxTurns: 5\n  maxCost: 2.5\n')).toEqual({
      config: {
        ...DEFAULT_CONFIG,
        forks: true,
        defaults: { strategy: 'rules', maxTurns: 5, maxCost: '2.5' },
      },
    });
    expect(
      check(
        'workflow: bot-build.yaml\ncommands: [build]\npermission: maintain\ndiagnose: false\npullRequests: false\n',
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
    ['defaults:\n  maxTurns: 2.5', 'defaults.maxTurns', /must be integer/],
    ['defaults:\n  strategy: magic', 'defaults.strategy', /'magic' is not valid; expected one of rules/],
    ['defaults:\n  model: gpt-4', 'defaults.model', /expected <provider>:<model>/],
    ['defaults:\n  maxCost: -3', 'defaults.maxCost', /positive amount in US dollars/],
    [
      'defaults:\n  turns: 3',
      'defaults.turns',
      /unknown field; the fields here are strategy, model, maxCost, maxTurns/,
    ],
    ['fork: true', 'fork', /unknown field; the fields here are workflow, commands/],
    ['- build', '(the file)', /must be a mapping of fields/],
  ])('%j is an error naming %s', (text, field, message) => {
    const result = check(text);
    expect(result).toEqual({ error: { field, message: expect.stringMatching(message) } });
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
