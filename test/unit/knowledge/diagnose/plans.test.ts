/**
 * One knowledge, two readers (issue 30): `buildbench diagnose` renders the plan the engine's repair rules make
 * for the log's root cause — the same rule, the same packages and flags — and says when a failure is not a build
 * problem instead of proposing anything.
 */
import { describe, expect, it } from '@jest/globals';
import {
  diagnoseLog,
  type Diagnosis,
  type SuggestedFix,
} from '../../../../src/knowledge/diagnose/diagnosis.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import { defaultFallbackTable } from '../../../../src/knowledge/repair/package-fallback.js';
import { plansForLog } from '../../../../src/knowledge/repair/offline.js';
import { commonPackageTable } from '../../../../src/knowledge/diagnose/diagnosis.js';

const fixOf = (d: Diagnosis): SuggestedFix | undefined => (d.found ? d.fix : undefined);

/** Logs of each class, as a build prints them (a few lines around the error, with its follow-up noise). */
const LOGS = {
  multilib: [
    'gcc -m32 -O2 -c main.c -o main.o',
    'gcc -m32 -o prog main.o',
    '/usr/bin/ld: skipping incompatible /usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a when searching for -lgcc',
    '/usr/bin/ld: cannot find -lgcc: No such file or directory',
    'collect2: error: ld returned 1 exit status',
    'make: *** [Makefile:3: prog] Error 1',
  ],
  fcommonWithoutVersion: [
    'gcc -o xedgewarp obj/event.o obj/extensions.o',
    "/usr/bin/ld: obj/extensions.o:(.bss+0x0): multiple definition of `outputs_head'; obj/event.o:(.bss+0x0): first defined here",
    'collect2: error: ld returned 1 exit status',
    'make: *** [Makefile:20: xedgewarp] Error 1',
  ],
  werror: [
    'gcc -Wall -Werror -O2 -c a.c',
    'a.c: In function ‘copy’:',
    'a.c:3:5: error: writing 8 bytes into a region of size 4 [-Werror=stringop-overflow=]',
    'cc1: all warnings being treated as errors',
    'make: *** [Makefile:5: a.o] Error 1',
  ],
  autotoolsNotBootstrapped: [
    'checking for a BSD-compatible install... /usr/bin/install -c',
    './configure: line 2345: AM_INIT_AUTOMAKE: command not found',
    "./configure: line 2350: syntax error near unexpected token `foo'",
  ],
  distutils: [
    'Traceback (most recent call last):',
    '  File "/tmp/pkg/setup.py", line 1, in <module>',
    '    from distutils.core import setup',
    "ModuleNotFoundError: No module named 'distutils'",
  ],
  staleIndex: [
    'Get:1 http://archive.ubuntu.com/ubuntu jammy/main amd64 zlib1g-dev amd64 1:1.2.11.dfsg-2ubuntu9 [164 kB]',
    'Err:2 http://archive.ubuntu.com/ubuntu jammy-updates/main amd64 libssl-dev amd64 3.0.2-0ubuntu1.9',
    '  404  Not Found [IP: 185.125.190.36 80]',
    'E: Failed to fetch http://archive.ubuntu.com/ubuntu/pool/main/o/openssl/libssl-dev_3.0.2-0ubuntu1.9_amd64.deb  404  Not Found [IP: 185.125.190.36 80]',
    'E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?',
  ],
  zlib: [
    'gcc -c main.c',
    'main.c:1:10: fatal error: zlib.h: No such file or directory',
    'compilation terminated.',
  ],
  unknownHeader: ['gcc -c a.c', 'a.c:1:10: fatal error: frobnitz/widget.h: No such file or directory'],
} as const;

const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/** The engine's first plan for the log, from the same rules with the same offline services. */
async function enginePlan(lines: readonly string[]) {
  const analysis = analyzeLog(text(lines));
  const root = analysis.rootCause!;
  const plans = await plansForLog(
    root,
    analysis.findings.filter((f) => f !== root),
    analysis.findings.map((f) => f.excerpt).join('\n'),
    [defaultFallbackTable(), commonPackageTable()],
  );
  return plans[0]!;
}

describe('the diagnosis renders the plan of the rule the engine applies', () => {
  it.each([
    ['multilib', { rule: 'install-multilib', packages: ['gcc-multilib'] }],
    ['fcommonWithoutVersion', { rule: 'gcc10-fcommon', flag: '-fcommon' }],
    ['werror', { rule: 'drop-werror', flag: '-Wno-error=stringop-overflow' }],
    [
      'autotoolsNotBootstrapped',
      { rule: 'autotools-bootstrap', packages: ['autoconf', 'automake', 'libtool'] },
    ],
    ['distutils', { rule: 'install-python-module', packages: ['python3-setuptools'] }],
    ['staleIndex', { rule: 'apt-update-first', command: 'apt-get update' }],
    ['zlib', { rule: 'install-header-package', packages: ['zlib1g-dev'] }],
  ] as const)('%s', async (name, want) => {
    const lines = LOGS[name];
    const fix = fixOf(await diagnoseLog(text(lines)));
    const plan = await enginePlan(lines);
    expect(fix?.rule).toBe(want.rule);
    expect(plan.rule).toBe(want.rule);
    if ('packages' in want) {
      expect(fix?.packages).toEqual(expect.arrayContaining([...want.packages]));
      expect(fix?.packages).toEqual(plan.packages);
    }
    if ('flag' in want) {
      expect(fix?.kind).toBe('flags');
      expect(fix?.commands?.join('\n')).toContain(want.flag);
      expect(plan.env?.BB_EXTRA_CFLAGS).toBe(want.flag);
    }
    if ('command' in want) {
      expect(fix?.commands).toContain(want.command);
      expect(plan.prelude).toContain(want.command);
    }
  });

  it('the root cause of a 32-bit link is the skipped toolchain library, and `cannot find -lgcc` its symptom', async () => {
    const d = await diagnoseLog(text(LOGS.multilib));
    expect(d).toMatchObject({ found: true, rootCause: { id: 'multilib-toolchain-skipped' } });
    expect(d.found && d.rootCause.symptoms?.map((s) => s.line)).toEqual([4]);
  });

  it('a missing file no offline table knows: says what it would look up, names no package', async () => {
    const fix = fixOf(await diagnoseLog(text(LOGS.unknownHeader)));
    expect(fix).toMatchObject({
      kind: 'lookup',
      rule: 'install-header-package',
      lookups: ['header frobnitz/widget.h'],
    });
    expect(fix?.packages).toBeUndefined();
  });

  it('a log from another distribution: the missing file, not a Debian package name', async () => {
    const fix = fixOf(await diagnoseLog(text(['+ dnf install -y gcc make', ...LOGS.zlib])));
    expect(fix?.kind).toBe('lookup');
    expect(fix?.packages).toBeUndefined();
    expect(fix?.summary).toContain('zlib.h');
  });

  it('puts a flag into the build file given with --file', async () => {
    const fix = fixOf(
      await diagnoseLog(text(LOGS.fcommonWithoutVersion), {
        files: [{ path: 'Makefile', content: 'CC = gcc\nCFLAGS = -O2 -Wall\n' }],
      }),
    );
    expect(fix?.suggestion).toMatchObject({
      path: 'Makefile',
      line: 2,
      replacement: 'CFLAGS = -O2 -Wall -fcommon',
    });
  });
});

describe('not build problems are said, and nothing is proposed', () => {
  it.each([
    [
      'runner-out-of-disk',
      [
        'g++ -c big.cpp',
        'cc1plus: fatal error: error writing to /tmp/ccq2k1ab.s: No space left on device',
        'compilation terminated.',
      ],
    ],
    ['cancelled', ['Building...', '##[error]The operation was canceled.']],
    [
      'timeout',
      [
        '##[error]The job running on runner GitHub Actions 2 has exceeded the maximum execution time of 360 minutes.',
      ],
    ],
    [
      'flaky-network',
      [
        'E: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease  Could not connect to archive.ubuntu.com:80 (185.125.190.36), connection timed out',
      ],
    ],
    [
      'tests-failed',
      [
        '[100%] Built target app',
        'The following tests FAILED:',
        '\t  3 - parser (Failed)',
        'Errors while running CTest',
      ],
    ],
    [
      'infrastructure',
      ['The runner has received a shutdown signal. This can happen when the runner service is stopped.'],
    ],
  ] as const)('%s', async (kind, lines) => {
    const d = await diagnoseLog(text(lines));
    expect(d).toMatchObject({ found: false, kind });
    expect(d.found ? undefined : d.evidence?.text).toBeTruthy();
    expect('fix' in d).toBe(false);
  });
});
