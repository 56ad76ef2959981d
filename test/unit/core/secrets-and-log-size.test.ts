import { describe, expect, it } from '@jest/globals';

import { parseBuildArgs } from '../../../src/cli/build-command.js';
import { ConfigError } from '../../../src/base/errors.js';
import { parseSecretEnv, parseSize } from '../../../src/core/settings.js';

describe('parseSize', () => {
  it('reads bytes and K, M, G in powers of 1024', () => {
    expect(parseSize('20M', '--max-log-size')).toBe(20 * 1024 * 1024);
    expect(parseSize('512k', '--max-log-size')).toBe(512 * 1024);
    expect(parseSize('1.5G', '--max-log-size')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('8MiB', '--max-log-size')).toBe(8 * 1024 * 1024);
    expect(parseSize('65536', '--max-log-size')).toBe(65536);
  });

  it('says what was expected, naming the flag', () => {
    for (const bad of ['', 'big', '-5M', '1K', '20T']) {
      expect(() => parseSize(bad, '--max-log-size')).toThrow(ConfigError);
    }
    expect(() => parseSize('big', '--max-log-size')).toThrow(
      "--max-log-size: 'big' is not a size of at least 4K; expected bytes or a value like 512K, 20M, 1G",
    );
  });
});

describe('parseSecretEnv', () => {
  it('splits comma lists, drops duplicates and checks names', () => {
    expect(parseSecretEnv(['A,B', ' C , A', ''], '--secret-env')).toEqual(['A', 'B', 'C']);
    expect(() => parseSecretEnv(['OK,not-ok'], '--secret-env')).toThrow(
      "--secret-env: 'not-ok' is not a variable name",
    );
  });
});

describe('buildbench build --secret-env / --max-log-size', () => {
  const io = { env: { HOME: '/home/u', BUILDBENCH_SECRET_ENV: 'FROM_ENV' }, cwd: '/tmp' };

  it('takes repeated --secret-env flags together with BUILDBENCH_SECRET_ENV', () => {
    const s = parseBuildArgs(
      ['repo', '--secret-env', 'DATABASE_URL,X', '--secret-env=Y', '--max-log-size', '1M'],
      io,
    );
    expect(s.secretEnv).toEqual(['FROM_ENV', 'DATABASE_URL', 'X', 'Y']);
    expect(s.maxLogBytes).toBe(1024 * 1024);
  });

  it('leaves the log bound to the default when not given', () => {
    const s = parseBuildArgs(['repo'], { env: { HOME: '/home/u' }, cwd: '/tmp' });
    expect(s.secretEnv).toEqual([]);
    expect(s.maxLogBytes).toBeUndefined();
    expect(() => parseBuildArgs(['repo', '--max-log-size', 'lots'], io)).toThrow(/--max-log-size: 'lots'/);
  });
});
