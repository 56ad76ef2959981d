import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../src/base/errors.js';
import {
  SHELL_LIBRARY_URL,
  parseShellLibrary,
  shellFunction,
  shellLibrary,
} from '../../../src/recipe/shell-lib.js';

const LIBRARY = fileURLToPath(SHELL_LIBRARY_URL);
const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;
const requireShellcheck = process.env.BUILDBENCH_REQUIRE_SHELLCHECK === '1';

describe('the shell library (src/recipe/shell/bb-lib.sh)', () => {
  if (!hasShellcheck && !requireShellcheck) {
    console.log(
      'shellcheck is not installed: skipping the shellcheck test (BUILDBENCH_REQUIRE_SHELLCHECK=1 makes it fail)',
    );
  }
  (hasShellcheck || requireShellcheck ? it : it.skip)('passes shellcheck', () => {
    const result = spawnSync('shellcheck', ['--shell=bash', '--severity=style', LIBRARY], {
      encoding: 'utf8',
    });
    if (result.error) throw new Error(`shellcheck could not run: ${result.error.message}`);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('is function definitions only, each with its comment', () => {
    const functions = parseShellLibrary(readFileSync(LIBRARY, 'utf8'), LIBRARY);
    expect(functions.map((f) => f.name)).toEqual([
      'bb_apt_install',
      'bb_need_tools',
      'bb_start_stamp',
      'bb_delete_on_error',
      'bb_compiler_wrappers',
    ]);
    for (const f of functions) expect(f.text).toMatch(/^# /);
    expect(shellFunction('bb_compiler_wrappers')).toMatch(
      /^# Extra compiler flags[\s\S]*\nbb_compiler_wrappers\(\) \{\n[\s\S]*\n\}$/,
    );
    expect(shellLibrary()).not.toContain('shellcheck shell=bash');
    expect(spawnSync('bash', ['-n'], { input: shellLibrary() }).status).toBe(0);
  });

  it('refuses top-level statements and unclosed functions, naming the file and line', () => {
    expect(() => parseShellLibrary('# x\nf() {\n  :\n}\necho hi\n', 'lib.sh')).toThrow(ConfigError);
    expect(() => parseShellLibrary('# x\nf() {\n  :\n}\necho hi\n', 'lib.sh')).toThrow(
      /lib\.sh:5: .*echo hi/,
    );
    expect(() => parseShellLibrary('f() {\n  :\n', 'lib.sh')).toThrow(/function f has no closing/);
    expect(() => shellFunction('bb_nope')).toThrow(/no function bb_nope/);
  });

  it("wraps the compilers with the extra flags after the build's own, in BB_WRAPPER_DIR", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-wrap-'));
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    // A fake compiler that prints its arguments.
    for (const tool of ['cc', 'gcc', 'c++', 'g++']) {
      writeFileSync(path.join(bin, tool), `#!/bin/sh\necho ${tool} "$@"\n`);
      chmodSync(path.join(bin, tool), 0o755);
    }
    const wrappers = path.join(dir, 'wrappers');
    const run = spawnSync(
      'bash',
      [
        '-c',
        `set -eo pipefail\n${shellFunction('bb_compiler_wrappers')}\nbb_compiler_wrappers\ncc -O2 a.c; g++ -O2 b.cc`,
      ],
      {
        encoding: 'utf8',
        env: {
          PATH: `${bin}:/usr/bin:/bin`,
          BB_WRAPPER_DIR: wrappers,
          BB_EXTRA_CFLAGS: '-fcommon -Wno-error',
          BB_EXTRA_CXXFLAGS: '-fpermissive',
        },
      },
    );
    expect(run.stdout).toBe('cc -O2 a.c -fcommon -Wno-error\ng++ -O2 b.cc -fpermissive\n');
    expect(readFileSync(path.join(wrappers, 'cc'), 'utf8')).toBe(
      `#!/bin/sh\nexec ${path.join(bin, 'cc')} "$@" -fcommon -Wno-error\n`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes no wrappers without extra flags', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-wrap-'));
    const wrappers = path.join(dir, 'wrappers');
    const run = spawnSync('bash', ['-c', `${shellFunction('bb_compiler_wrappers')}\nbb_compiler_wrappers`], {
      env: { PATH: '/usr/bin:/bin', BB_WRAPPER_DIR: wrappers },
    });
    expect(run.status).toBe(0);
    expect(existsSync(wrappers)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
