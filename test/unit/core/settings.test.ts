import { describe, expect, it } from '@jest/globals';
import {
  parseDuration,
  parseExpect,
  parsePositiveInt,
  repoNameOf,
  parseChoice,
} from '../../../src/core/settings.js';
import { ConfigError } from '../../../src/base/errors.js';

describe('settings parsing', () => {
  it('parses durations in seconds, minutes and hours', () => {
    expect(parseDuration('90', '--timeout')).toBe(90_000);
    expect(parseDuration('90s', '--timeout')).toBe(90_000);
    expect(parseDuration('20m', '--timeout')).toBe(1_200_000);
    expect(parseDuration('1h30m', '--timeout')).toBe(5_400_000);
    expect(parseDuration('500ms', '--timeout')).toBe(500);
  });

  it('rejects bad durations naming the flag and the expected form', () => {
    expect(() => parseDuration('soon', '--timeout')).toThrow(ConfigError);
    expect(() => parseDuration('10x', '--turn-timeout')).toThrow(
      /--turn-timeout: '10x' is not a duration; expected/,
    );
    expect(() => parseDuration('0', '--timeout')).toThrow(ConfigError);
  });

  it('validates whole numbers and choices', () => {
    expect(parsePositiveInt('3', '--max-turns')).toBe(3);
    expect(() => parsePositiveInt('0', '--max-turns')).toThrow(
      /--max-turns: '0' is not valid; expected a whole number from 1/,
    );
    expect(() => parsePositiveInt('2.5', '--max-turns')).toThrow(ConfigError);
    expect(parseChoice('rules', ['rules', 'baseline'], '--strategy')).toBe('rules');
    expect(() => parseChoice('magic', ['rules', 'baseline'], '--strategy')).toThrow(
      "--strategy: 'magic' is not valid; expected one of rules, baseline",
    );
  });

  it('splits --expect and refuses an empty list', () => {
    expect(parseExpect(' foo, libbar.so ,')).toEqual(['foo', 'libbar.so']);
    expect(parseExpect(undefined)).toEqual([]);
    expect(() => parseExpect(' , ')).toThrow(/--expect/);
  });

  it('derives repository names from paths and URLs', () => {
    expect(repoNameOf('https://github.com/owner/zlib.git')).toBe('zlib');
    expect(repoNameOf('git@github.com:owner/my-lib.git')).toBe('my-lib');
    expect(repoNameOf('/tmp/some/dir/')).toBe('dir');
    expect(repoNameOf('.')).toBe('repo');
  });
});
