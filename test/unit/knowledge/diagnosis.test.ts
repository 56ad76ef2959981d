import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import {
  diagnoseLog,
  diagnoseLogStream,
  stripCiPrefixes,
  suggestionDiff,
  type Diagnosis,
  type NothingKind,
  type SuggestedFix,
} from '../../../src/knowledge/diagnose/diagnosis.js';
import { run } from '../../../src/cli/main.js';
import { DIAGNOSE_HELP } from '../../../src/cli/diagnose.js';
import {
  CORPUS_DIR,
  NOT_BUILD_KINDS,
  loadCorpus,
  madeHere,
  parseExpectation,
  publicLogs,
  resultTable,
  scoreDiagnosis,
} from '../../helpers/diagnosis-corpus.js';

const LOGS = CORPUS_DIR;

const CORPUS = loadCorpus();
const log = (name: string): string => readFileSync(path.join(CORPUS_DIR, name), 'utf8');

/** A GitHub Actions raw log of `text`: timestamps, a group around it, colours, CRLF. */
function asActionsLog(text: string): string {
  const stamp = (i: number): string => `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}.1234567Z `;
  const lines = [
    '##[group]Run make',
    ...text.split('\n').map((l) => `\u001b[31m${l}\u001b[0m`),
    '##[endgroup]',
  ];
  return lines.map((l, i) => `${stamp(i)}${l}\r`).join('\n');
}

function found(d: Diagnosis): Extract<Diagnosis, { found: true }> {
  if (!d.found) throw new Error(`expected a diagnosis, got ${d.kind}: ${d.reason}`);
  return d;
}

describe('diagnoseLog on real failed build logs (test/fixtures/ci-logs)', () => {
  // Diagnosed once; every test below reads these.
  const results = Promise.all(
    CORPUS.map(async (entry) => {
      const got = await diagnoseLog(entry.text);
      return { log: entry, got, score: scoreDiagnosis(entry.want, got) };
    }),
  );

  it('has at least 42 logs with expectations, 15 from public threads, 10 that are not build problems', () => {
    // loadCorpus itself fails when a log has no expectation, or an expectation no log.
    const names = CORPUS.map((c) => c.name);
    expect(names.length).toBeGreaterThanOrEqual(42);
    const cited = publicLogs();
    const made = madeHere();
    // Every log has a README row: a public thread, or "made here".
    expect([...cited, ...made].sort()).toEqual(names);
    expect(cited.length).toBeGreaterThanOrEqual(15);
    const silent = CORPUS.filter((c) => !c.want.found);
    expect(silent.length).toBeGreaterThanOrEqual(10);
    // every kind of failure that is not a build problem is in the corpus
    expect(new Set(silent.map((c) => (c.want.found ? '' : c.want.kind)))).toEqual(new Set(NOT_BUILD_KINDS));
  });

  it('is right on at least 90 % of the logs (root cause and confirmed fix, or silence of the right kind)', async () => {
    const rows = await results;
    const right = rows.filter((r) => r.score.right).length;
    console.log(`${resultTable(rows)}\n\nright: ${right} of ${rows.length}`);
    expect(right / rows.length).toBeGreaterThanOrEqual(0.9);
  });

  it.each(CORPUS.filter((c) => !c.want.found).map((c) => [c.name, c] as const))(
    '%s is not a build problem: found false with its kind, nothing proposed',
    async (_name, entry) => {
      const row = (await results).find((r) => r.log === entry)!;
      expect(row.got).toMatchObject({ found: false, kind: (entry.want as { kind: string }).kind });
      expect(row.got).not.toHaveProperty('fix');
    },
  );

  it('quotes lines of the file, with their numbers, for every root cause it names', async () => {
    for (const { log: entry, got } of await results) {
      if (!got.found) continue;
      const fileLines = entry.text.split('\n');
      for (const q of [...got.rootCause.lines, ...(got.rootCause.symptoms ?? [])])
        expect({ log: entry.name, line: q.line, text: fileLines[q.line - 1] }).toEqual({
          log: entry.name,
          line: q.line,
          text: q.text,
        });
    }
  });

  it('gives the same answer on the GitHub Actions form of each log, lines numbered in the raw log', async () => {
    for (const { log: entry, got: plain } of await results) {
      const actions = await diagnoseLog(asActionsLog(entry.text));
      if (!plain.found) {
        expect({
          log: entry.name,
          found: actions.found,
          kind: actions.found ? undefined : actions.kind,
        }).toEqual({
          log: entry.name,
          found: false,
          kind: plain.kind,
        });
        continue;
      }
      const a = found(actions);
      expect({ log: entry.name, id: a.rootCause.id, packages: a.fix?.packages }).toEqual({
        log: entry.name,
        id: plain.rootCause.id,
        packages: plain.fix?.packages,
      });
      // One ##[group] line was added before the log: every quoted line moves down by one, same text (the
      // group line itself may join the context when the error is near the top).
      const shifted = plain.rootCause.lines.map((q) => ({ line: q.line + 1, text: q.text }));
      expect(a.rootCause.lines).toEqual(expect.arrayContaining(shifted));
      for (const q of a.rootCause.lines.filter((l) => !shifted.some((s) => s.line === l.line)))
        expect(['Run make', '']).toContain(q.text);
    }
  });
});

describe('the corpus scorer (test/helpers/diagnosis-corpus.ts)', () => {
  const quoted = [{ line: 1, text: 'x' }];
  const build = (category: string, id: string, fix?: Partial<SuggestedFix>): Diagnosis => ({
    found: true,
    rootCause: { id, category, message: 'm', lines: quoted },
    ...(fix ? { fix: { kind: 'packages', rule: 'r', summary: '', ...fix } } : {}),
    confidence: 'high',
  });
  const silent = (kind: NothingKind): Diagnosis => ({ found: false, kind, reason: 'r' });

  it('a build problem: right category, id and any confirmed package, flag or command', () => {
    const want = { found: true, category: 'missing-dependency', packages: ['a-dev', 'b-dev'] } as const;
    expect(
      scoreDiagnosis(want, build('missing-dependency', 'x', { packages: ['pkg-config', 'b-dev'] })).right,
    ).toBe(true);
    expect(scoreDiagnosis(want, build('missing-dependency', 'x', { packages: ['c-dev'] }))).toEqual({
      right: false,
      why: 'packages c-dev, expected a-dev or b-dev',
    });
    expect(scoreDiagnosis(want, build('link-error', 'x', { packages: ['a-dev'] })).right).toBe(false);
    expect(scoreDiagnosis(want, build('missing-dependency', 'x')).right).toBe(false);
    expect(scoreDiagnosis(want, silent('unrecognized')).right).toBe(false);
    const ids = { found: true, category: ['a', 'b'], ids: ['one'], command: 'autoreconf' } as const;
    expect(scoreDiagnosis(ids, build('b', 'one', { commands: ['autoreconf -fi'] })).right).toBe(true);
    expect(scoreDiagnosis(ids, build('b', 'two', { commands: ['autoreconf -fi'] })).right).toBe(false);
    expect(scoreDiagnosis(ids, build('a', 'one', { commands: ['./configure'] })).right).toBe(false);
    const flag = { found: true, category: 'link-error', flag: '-pthread' } as const;
    expect(scoreDiagnosis(flag, build('link-error', 'x', { summary: 'add -pthread to LDFLAGS' })).right).toBe(
      true,
    );
    expect(
      scoreDiagnosis(flag, build('link-error', 'x', { commands: ['export LDFLAGS=-lpthread'] })).right,
    ).toBe(false);
    const none = { found: true, category: 'configure-error', noFix: true } as const;
    expect(scoreDiagnosis(none, build('configure-error', 'x')).right).toBe(true);
    expect(scoreDiagnosis(none, build('configure-error', 'x', { packages: ['x'] })).right).toBe(false);
  });

  it('not a build problem: only found false with the same kind is right', () => {
    const want = { found: false, kind: 'flaky-network' } as const;
    expect(scoreDiagnosis(want, silent('flaky-network'))).toEqual({
      right: true,
      why: 'silent: flaky-network',
    });
    expect(scoreDiagnosis(want, silent('unrecognized')).right).toBe(false);
    expect(scoreDiagnosis(want, build('network', 'x')).right).toBe(false);
  });

  it('rejects a malformed expectation with one line naming the file, the log and the field', () => {
    expect(() => parseExpectation('e.json', 'a.log', { found: false, kind: 'flaky' })).toThrow(
      /^e\.json: "a\.log": kind: expected one of flaky-network, /,
    );
    expect(() => parseExpectation('e.json', 'a.log', { found: true, category: 'x' })).toThrow(
      'e.json: "a.log": expected exactly one of packages, flag, command, noFix, got none',
    );
    expect(() => parseExpectation('e.json', 'a.log', { found: true, category: 'x', flags: '-O2' })).toThrow(
      'e.json: "a.log": unknown field flags',
    );
    expect(() => parseExpectation('e.json', 'a.log', { found: false, kind: 'timeout', noFix: true })).toThrow(
      'e.json: "a.log": field noFix is not allowed with found: false (only kind)',
    );
  });
});

describe('stripCiPrefixes', () => {
  it('drops the runner timestamp, workflow commands, colours and CR', () => {
    expect(
      stripCiPrefixes('2024-05-01T10:00:00.1234567Z ##[error]Process completed with exit code 2.\r'),
    ).toBe('Process completed with exit code 2.');
    expect(stripCiPrefixes('2024-05-01T10:00:00.1234567Z ##[group]Run make')).toBe('Run make');
    expect(stripCiPrefixes('2024-05-01T10:00:00Z ##[endgroup]')).toBe('');
    expect(stripCiPrefixes('::error file=a.c,line=3::a.c:3: error: boom')).toBe('a.c:3: error: boom');
    expect(stripCiPrefixes('\u001b[1;31mfatal error:\u001b[0m x')).toBe('fatal error: x');
    expect(stripCiPrefixes('progress 10%\rprogress 100%')).toBe('progress 100%');
    // Text that only looks like a prefix in the middle is left alone.
    expect(stripCiPrefixes('echo ##[error] in a script')).toBe('echo ##[error] in a script');
  });
});

describe('suggestions on a build file line', () => {
  const workflow = [
    'name: ci',
    'jobs:',
    '  build:',
    '    steps:',
    '      # sudo apt-get install -y old-stuff',
    '      - run: sudo apt-get update && sudo apt-get install -y --no-install-recommends libpng-dev  && make',
    '',
  ].join('\n');

  it('appends the missing package to the workflow apt-get install line, the rest byte-identical', async () => {
    const d = found(
      await diagnoseLog(log('zlib-rtlplayground.log'), {
        files: [
          { path: 'Makefile', content: 'all:\n\tgcc -o x x.c\n' },
          { path: '.github/workflows/ci.yml', content: workflow },
        ],
      }),
    );
    const s = d.fix?.suggestion;
    expect(s).toEqual({
      path: '.github/workflows/ci.yml',
      line: 6,
      original:
        '      - run: sudo apt-get update && sudo apt-get install -y --no-install-recommends libpng-dev  && make',
      replacement:
        '      - run: sudo apt-get update && sudo apt-get install -y --no-install-recommends libpng-dev zlib1g-dev  && make',
      why: expect.stringContaining('zlib1g-dev') as unknown as string,
    });
    expect(d.fix?.patch).toBe(suggestionDiff(s!));
    expect(d.fix?.patch).toContain('@@ -6 +6 @@\n-');
  });

  it('inserts before a line continuation and keeps CRLF files intact; no suggestion when the package is there', async () => {
    const crlf = 'steps:\r\n  - run: |\r\n      apt-get install -y \\\r\n        libpng-dev\r\n';
    const d = found(
      await diagnoseLog(log('openssl-rtags.log'), {
        files: [{ path: '.github/workflows/a.yml', content: crlf }],
      }),
    );
    expect(d.fix?.suggestion).toMatchObject({
      line: 3,
      original: '      apt-get install -y \\',
      replacement: '      apt-get install -y libssl-dev \\',
    });
    const already = 'steps:\n  - run: sudo apt-get install -y libssl-dev\n';
    const e = found(
      await diagnoseLog(log('openssl-rtags.log'), {
        files: [{ path: '.github/workflows/a.yml', content: already }],
      }),
    );
    expect(e.fix?.packages).toEqual(['libssl-dev']);
    expect(e.fix?.suggestion).toBeUndefined();
  });

  it('adds a linker flag to the Makefile line that sets the link flags', async () => {
    const makefile = 'CXX ?= g++\noverride LDFLAGS += -lpthread # threads\nall: bin/x\n';
    const d = found(
      await diagnoseLog(log('pthread-highwayhash.log'), { files: [{ path: 'Makefile', content: makefile }] }),
    );
    expect(d.fix?.suggestion).toMatchObject({
      path: 'Makefile',
      line: 2,
      original: 'override LDFLAGS += -lpthread # threads',
      replacement: 'override LDFLAGS += -lpthread -pthread # threads',
    });
    const cmake = 'project(x)\nset(CMAKE_CXX_FLAGS "-std=c++0x -O3 -lrt")\n';
    const c = found(
      await diagnoseLog(log('pthread-scope.log'), { files: [{ path: 'CMakeLists.txt', content: cmake }] }),
    );
    expect(c.fix?.suggestion?.replacement).toBe('set(CMAKE_CXX_FLAGS "-std=c++0x -O3 -lrt -pthread")');
  });
});

describe('silence where there is nothing specific to say', () => {
  it('a clean log', async () => {
    const d = await diagnoseLog('-- Configuring done\n-- Generating done\n[100%] Built target x\n');
    expect(d).toMatchObject({ found: false, kind: 'no-error' });
  });

  it('an empty log', async () => {
    expect(await diagnoseLog('')).toMatchObject({ found: false, kind: 'no-error' });
  });

  it('a network flake', async () => {
    const d = await diagnoseLog(
      asActionsLog(
        "fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com",
      ),
    );
    expect(d).toMatchObject({ found: false, kind: 'flaky-network' });
  });

  it('a test assertion failure after a good build', async () => {
    const text = [
      '[100%] Built target tests',
      "test_parse.c:41: main: Assertion `n == 3' failed.",
      '50% tests passed, 1 tests failed out of 2',
      'The following tests FAILED:',
      '\t  2 - parse (Subprocess aborted)',
      'Errors while running CTest',
    ].join('\n');
    expect(await diagnoseLog(text)).toMatchObject({ found: false, kind: 'tests-failed' });
  });

  it('a crash of a program the job ran (no test summary): not a build problem', async () => {
    const text =
      './run_tests\nSegmentation fault (core dumped)\nError: Process completed with exit code 139.\n';
    expect(await diagnoseLog(text)).toMatchObject({ found: false, kind: 'tests-failed' });
  });

  it('an error no signature knows: unknown, and no made-up fix', async () => {
    const d = await diagnoseLog(
      'Run ./build.sh\nfrobnicator: the widget count is wrong (expected 7)\nError: Process completed with exit code 1.\n',
    );
    expect(d).toMatchObject({ found: false, kind: 'unrecognized' });
    expect(JSON.stringify(d)).not.toContain('packages');
  });

  it('a build error before failing tests is still a build error', async () => {
    const text = 'x.c:1:10: fatal error: zlib.h: No such file or directory\nThe following tests FAILED:\n';
    expect(found(await diagnoseLog(text)).fix?.packages).toEqual(['zlib1g-dev']);
  });
});

describe('redaction', () => {
  it('redacts secrets in quoted lines: known values and token formats', async () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const text = [
      `curl -H "Authorization: token ${token}" https://api.github.com/x`,
      'echo password hunter2-very-secret',
      'src/a.c:3:10: fatal error: zlib.h: No such file or directory',
    ].join('\n');
    const d = found(await diagnoseLog(text, { secrets: ['hunter2-very-secret'] }));
    const quoted = JSON.stringify(d);
    expect(quoted).not.toContain(token);
    expect(quoted).not.toContain('hunter2-very-secret');
    expect(quoted).toContain('[REDACTED]');
    expect(d.rootCause.lines.map((q) => q.line)).toEqual([1, 2, 3]);
  });
});

describe('diagnoseLogStream', () => {
  it('gives what diagnoseLog gives, chunked at odd places', async () => {
    const text = asActionsLog(log('glib-meson-razercommander.log'));
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    expect(await diagnoseLogStream(Readable.from(chunks))).toEqual(await diagnoseLog(text));
  });
});

describe('diagnoseLogStream bounds', () => {
  it('survives a multi-megabyte line and multi-byte characters split across Buffer chunks', async () => {
    const text = `${'x'.repeat(5 * 1024 * 1024)}\nsrc/ü.c:1:10: fatal error: zlib.h: No such file or directory\n`;
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    const d = found(await diagnoseLogStream(Readable.from([bytes.subarray(0, at), bytes.subarray(at)])));
    expect(d.rootCause.lines.at(-1)).toEqual({
      line: 2,
      text: 'src/ü.c:1:10: fatal error: zlib.h: No such file or directory',
    });
    expect(d.rootCause.lines[0]?.text.length).toBeLessThanOrEqual(500);
  });
});

describe('buildbench diagnose', () => {
  async function cli(argv: string[], stdin?: string, env: NodeJS.ProcessEnv = {}, cwd = LOGS) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(['diagnose', ...argv], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env,
      cwd,
      ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
    });
    return { code, out: out.join(''), err: err.join('') };
  }

  it('prints the root cause with line numbers and the fix: exit 0', async () => {
    const r = await cli(['zlib-rtlplayground.log']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('root cause: missing header zlib.h');
    expect(r.out).toContain('3 | fileadder.c:14:10: fatal error: zlib.h: No such file or directory');
    expect(r.out).toContain('packages: zlib1g-dev');
    expect(r.out).toContain('confidence high');
  });

  it('--json prints the Diagnosis; - reads standard input; --file adds a suggestion as a diff', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'diag-'));
    writeFileSync(path.join(dir, 'ci.yml'), 'steps:\n  - run: sudo apt install -y cmake\n');
    const r = await cli(['-', '--json', '--file', 'ci.yml'], log('openssl-cppserver.log'), {}, dir);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.out) as Diagnosis;
    expect(found(d).fix?.suggestion).toMatchObject({
      path: 'ci.yml',
      line: 2,
      replacement: '  - run: sudo apt install -y cmake libssl-dev',
    });
    const text = await cli(['-', '--file', 'ci.yml'], log('openssl-cppserver.log'), {}, dir);
    expect(text.out).toContain('+  - run: sudo apt install -y cmake libssl-dev');
  });

  it('exit 1 with the reason when nothing build-related is found', async () => {
    const r = await cli(['flaky-apt-503.log']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^nothing build-related to fix \(not a build problem: a network flake\)/);
    const j = await cli(['ctest-mvfst.log', '--json']);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out)).toMatchObject({ found: false, kind: 'tests-failed' });
  });

  it('redacts the environment secrets from what it prints', async () => {
    const secret = 'sEcReT-value-1234567';
    const r = await cli(['-'], `echo ${secret}\nx.c:1:10: fatal error: zlib.h: No such file or directory\n`, {
      MY_API_TOKEN: secret,
    });
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(secret);
    expect(r.out).toContain('[REDACTED]');
  });

  it('usage errors exit 2 naming the file or flag', async () => {
    const missing = await cli(['no-such.log']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no-such.log');
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('expected one log file');
    const badFile = await cli(['gtk3-glrpt.log', '--file', 'nope.yml']);
    expect(badFile.code).toBe(2);
    expect(badFile.err).toContain('--file nope.yml');
    const flag = await cli(['gtk3-glrpt.log', '--bogus']);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('--bogus');
  });

  it('--help prints its own help', async () => {
    const r = await cli(['--help']);
    expect(r).toEqual({ code: 0, out: DIAGNOSE_HELP, err: '' });
    expect(DIAGNOSE_HELP).toMatch(/^usage: buildbench diagnose <log file\|-> \[--json\] \[--file path…\]\n/);
    expect(DIAGNOSE_HELP).not.toContain('buildbench build');
  });
});
