import { describe, expect, it } from '@jest/globals';

import { findCommandLine, helpText, parseCommand } from '../../../src/bot/commands.js';
import { codeBlock, codeSpan, neutralise } from '../../../src/bot/text.js';

describe('parseCommand', () => {
  it('reads /buildbench build with every option, in both spellings', () => {
    expect(
      parseCommand(
        '/buildbench build --strategy rules --model openai:gpt-4o-mini --max-cost 2 --max-turns 5',
      ),
    ).toEqual({
      kind: 'build',
      options: { strategy: 'rules', model: 'openai:gpt-4o-mini', 'max-cost': '2', 'max-turns': '5' },
    });
    expect(parseCommand('@buildbench build --strategy=hybrid --max-cost=0.50')).toEqual({
      kind: 'build',
      options: { strategy: 'hybrid', 'max-cost': '0.50' },
    });
    expect(parseCommand('/buildbench build')).toEqual({ kind: 'build', options: {} });
  });

  it('finds the command at the start of any line, not in the middle, in quotes or in code', () => {
    expect(parseCommand('Thanks!\n\n  /buildbench build --max-turns 3\nmore text')).toEqual({
      kind: 'build',
      options: { 'max-turns': '3' },
    });
    expect(parseCommand('please run /buildbench build')).toBeUndefined();
    expect(parseCommand('> /buildbench build\nI agree')).toBeUndefined();
    expect(parseCommand('```\n/buildbench build\n```')).toBeUndefined();
    expect(parseCommand('~~~~\n```\n/buildbench build\n~~~~\n/buildbench help')).toEqual({ kind: 'help' });
    expect(parseCommand('/buildbenchy build')).toBeUndefined();
    expect(parseCommand('@buildbench-bot build')).toBeUndefined();
    expect(parseCommand('no command here')).toBeUndefined();
    expect(parseCommand('')).toBeUndefined();
  });

  it('takes the first command line', () => {
    expect(findCommandLine('/buildbench help\n/buildbench build')).toBe('help');
  });

  it('reads help, a bare /buildbench and unknown commands', () => {
    expect(parseCommand('/buildbench help')).toEqual({ kind: 'help' });
    expect(parseCommand('@buildbench')).toEqual({ kind: 'help' });
    expect(parseCommand('/buildbench deploy now')).toEqual({ kind: 'unknown', name: 'deploy' });
    expect(parseCommand('/buildbench help me')).toMatchObject({ kind: 'invalid', command: 'help' });
  });

  it.each([
    [
      '/buildbench build --strategy magic',
      /--strategy: 'magic' is not valid; expected one of rules, baseline, llm, hybrid/,
    ],
    ['/buildbench build --model gpt-4o', /--model: 'gpt-4o' is not valid; expected <provider>:<model>/],
    ['/buildbench build --model openai:$(id)', /--model: .* is not valid/],
    ['/buildbench build --max-cost -1', /--max-cost: '-1' is not valid; expected a positive amount/],
    [
      '/buildbench build --max-cost 1e3',
      /--max-cost: '1e3' is not valid; expected a positive amount in US dollars/,
    ],
    ['/buildbench build --max-cost 0', /--max-cost: '0' is not valid/],
    [
      '/buildbench build --max-turns 2.5',
      /--max-turns: '2.5' is not valid; expected a whole number from 1 to 100/,
    ],
    ['/buildbench build --max-turns 101', /--max-turns: '101' is not valid/],
    ['/buildbench build --max-turns', /--max-turns needs a value: --max-turns <n>/],
    ['/buildbench build --turbo', /unknown option --turbo; the options are --strategy/],
    ['/buildbench build rules', /unexpected 'rules'; options are written --name value/],
    ['/buildbench build --strategy rules --strategy llm', /--strategy is given twice/],
  ])('%s is a clear error', (body, error) => {
    const parsed = parseCommand(body);
    expect(parsed).toMatchObject({ kind: 'invalid', command: 'build' });
    expect(parsed && 'error' in parsed ? parsed.error : '').toMatch(error);
  });

  it('help lists the allowed commands and the options', () => {
    const text = helpText(['build', 'help'], 'write');
    expect(text).toContain('/buildbench build [options]');
    expect(text).toContain('--max-turns <n>');
    expect(text).toContain('needs write access');
    expect(helpText(['help'], 'write')).not.toContain('/buildbench build');
  });
});

describe('neutralise', () => {
  it('defuses mentions and cross-repository references, keeps e-mail addresses', () => {
    expect(neutralise('ping @octocat and @org/team')).toBe('ping @\u200boctocat and @\u200borg/team');
    expect(neutralise('mail me@example.com')).toBe('mail me@example.com');
    expect(neutralise('see torvalds/linux#1')).toBe('see torvalds/linux#\u200b1');
  });

  it('escapes HTML so the markers, details blocks and images cannot be forged', () => {
    expect(neutralise('<!-- buildbench:status --></details><img src=x>')).toBe(
      '&lt;!-- buildbench:status --&gt;&lt;/details&gt;&lt;img src=x&gt;',
    );
    expect(neutralise('a & b')).toBe('a &amp; b');
  });

  it('removes control and bidi-override characters, keeps newlines and tabs', () => {
    // The `[` is escaped: it could open a link or an image in prose.
    expect(neutralise('a\u0000b\u001b[31mc\r\nd\te\u202Ef\u2066g')).toBe('ab\\[31mc\nd\tefg');
  });
});

describe('codeSpan and codeBlock', () => {
  it('choose fences longer than any backtick run inside', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan('two\nlines')).toBe('`two lines`');
    expect(codeBlock('x\n```\ny', 'sh')).toBe('````sh\nx\n```\ny\n````');
    expect(codeBlock('plain\n\n')).toBe('```\nplain\n```');
  });
});
