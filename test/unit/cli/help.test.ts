import { describe, expect, it } from '@jest/globals';

import { BUILD_HELP, REPORT_HELP, run, USAGE } from '../../../src/cli/main.js';
import { VERIFY_HELP } from '../../../src/cli/verify.js';

async function help(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {},
    cwd: '/tmp',
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('help per command', () => {
  it('build --help prints the flags of build, not the general help', async () => {
    for (const argv of [
      ['build', '--help'],
      ['build', '-h'],
      ['build', '.', '--sandbox', 'docker', '--help'],
    ]) {
      const r = await help(argv);
      expect(r).toEqual({ code: 0, out: BUILD_HELP, err: '' });
    }
    expect(BUILD_HELP).toMatch(/^usage: buildbench build <path\|git-url> \[options\]\n/);
    for (const flag of ['--out', '--sandbox', '--max-turns', '--model', '--spec', '--json', '--max-log-size'])
      expect(BUILD_HELP).toContain(`  ${flag} `);
    expect(BUILD_HELP).toContain('Exit status:');
    // Not the general help: no other command's usage, no version banner.
    expect(BUILD_HELP).not.toContain('buildbench report');
    expect(BUILD_HELP).not.toContain('buildbench verify');
    expect(BUILD_HELP).not.toContain('buildbench --help');
  });

  it('report --help and verify --help print their own', async () => {
    expect(await help(['report', '--help'])).toEqual({ code: 0, out: REPORT_HELP, err: '' });
    expect(REPORT_HELP).toMatch(/^usage: buildbench report <out-dir>\n/);
    expect(REPORT_HELP).not.toContain('--max-turns');
    expect(await help(['verify', '--help'])).toEqual({ code: 0, out: VERIFY_HELP, err: '' });
  });

  it('the general help still lists every command and the build flags, and points at per-command help', async () => {
    const r = await help(['--help']);
    expect(r).toEqual({ code: 0, out: USAGE, err: '' });
    expect(USAGE).toContain('buildbench <command> --help');
    for (const line of [
      'buildbench build <path|git-url>',
      'buildbench report <out-dir>',
      'buildbench verify ',
    ])
      expect(USAGE).toContain(line);
    expect(USAGE).toContain(BUILD_HELP.slice(BUILD_HELP.indexOf('build options:')));
  });
});
