import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  LogAnalyzer,
  analyzeLog,
  analyzeLogFile,
  analyzeLogStream,
  normalizeLogLine,
} from '../../../../src/knowledge/diagnose/log-parser.js';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../../fixtures/logs/${name}`, import.meta.url));
const read = (name: string): string => readFileSync(fixture(name), 'utf8');

describe('root cause on recorded-style logs', () => {
  it.each([
    ['missing-header-make.log', 'missing-header', 10, { header: 'zlib.h', path: 'compress.c', line: '12' }],
    ['configure-error-install.log', 'configure-error', 12, { check: 'png.h' }],
    ['configure-pkg-requirements.log', 'missing-pkgconfig', 6, { pkgconfig: 'glib-2.0' }],
    ['cmake-missing-package.log', 'cmake-missing-find-module', 15, { cmake_package: 'fmt' }],
    ['cmake-submodule.log', 'cmake-subdirectory-missing', 8, { path: '/build/repo/third_party/googletest' }],
    ['werror.log', 'werror', 4, { warning: 'stringop-truncation', path: '/build/repo/src/buffer.c' }],
    ['multiple-definition.log', 'multiple-definition-fcommon', 5, { symbol: 'board' }],
    ['parallel-make.log', 'missing-header', 6, { header: 'png.h' }],
    ['oom.log', 'oom-killed-compiler', 3, { program: 'cc1plus' }],
    ['gha-cmake-zlib.log', 'cmake-could-not-find', 5, { cmake_package: 'ZLIB' }],
    ['followup-only.log', 'make-error', 2, { code: '127' }],
    // Recorded from gcc 12.2 / cmake 3.25 on Debian 12 (see test/fixtures/logs/README.md).
    ['real-gcc12-missing-header.log', 'missing-header', 2, { header: 'nosuchlib.h', path: 'm.c' }],
    ['real-gcc12-fcommon.log', 'multiple-definition-fcommon', 1, { symbol: 'counter' }],
    ['real-cmake325-find-package.log', 'cmake-missing-find-module', 8, { cmake_package: 'Foobarbaz' }],
    ['real-gcc12-werror.log', 'werror', 2, { warning: 'uninitialized' }],
    ['real-gcc12-link.log', 'missing-library', 5, { library: 'nosuchlibxyz' }],
  ] as const)('%s → %s', async (file, id, line, captures) => {
    const analysis = await analyzeLogFile(fixture(file));
    expect(analysis.rootCause?.id).toBe(id);
    expect(analysis.rootCause?.line).toBe(line);
    expect(analysis.rootCause?.captures).toMatchObject(captures);
    // A follow-up is the root cause only when nothing else matched.
    expect(analysis.rootCause?.followUp ?? false).toBe(analysis.findings.every((f) => f.followUp));
    // The in-memory and streaming paths agree.
    expect(analyzeLog(read(file))).toEqual(analysis);
  });

  it('finds nothing in a clean build log full of optional-package noise', () => {
    const analysis = analyzeLog(read('clean.log'));
    expect(analysis.findings).toEqual([]);
    expect(analysis.rootCause).toBeUndefined();
    expect(analysis.lines).toBe(24);
  });

  it('marks make noise after a configure error as follow-ups', () => {
    const analysis = analyzeLog(read('configure-error-install.log'));
    const byId = Object.fromEntries(analysis.findings.map((f) => [f.id, f]));
    expect(byId['make-no-makefile']?.followUp).toBe(true);
    expect(byId['make-no-rule']?.followUp).toBe(true);
    expect(byId['make-no-rule']?.captures.target).toBe('install');
  });

  it('lets the specific message under a generic CMake/configure header win', () => {
    const cmake = analyzeLog(read('cmake-missing-package.log'));
    expect(cmake.findings.find((f) => f.id === 'cmake-error')?.followUp).toBe(true);
    const configure = analyzeLog(read('configure-pkg-requirements.log'));
    expect(configure.findings.map((f) => [f.id, f.followUp ?? false])).toEqual([
      ['configure-error', true],
      ['missing-pkgconfig', false],
      ['missing-pkgconfig', false],
    ]);
  });

  it('prefers a cause printed after the compile errors it causes (make -j)', () => {
    const analysis = analyzeLog(read('parallel-make.log'));
    expect(analysis.findings[0]?.id).toBe('compile-error');
    expect(analysis.rootCause?.id).toBe('missing-header');
  });

  it('does not let a generic error be superseded by a specific one far below it', () => {
    const filler = Array.from({ length: 20 }, (_, i) => `gcc -c f${i}.c`).join('\n');
    const log = `a.c:1:1: error: expected expression\n${filler}\nb.c:2:2: error: 'x' was not declared in this scope\n`;
    const analysis = analyzeLog(log);
    expect(analysis.rootCause?.id).toBe('compile-error');
    expect(analysis.rootCause?.line).toBe(1);
  });

  it('reads CI logs: timestamps, colours and CRLF are stripped', () => {
    const analysis = analyzeLog(read('gha-cmake-zlib.log'));
    expect(analysis.rootCause?.message).toBe('CMake could not find ZLIB');
    expect(analysis.rootCause?.excerpt).toContain(
      'CMake Error at /usr/share/cmake-3.22/Modules/FindPackageHandleStandardArgs.cmake:230',
    );
    expect(analysis.rootCause?.excerpt).not.toContain('\u001b');
    expect(analysis.rootCause?.excerpt).not.toMatch(/\r|2024-05-02T/);
    expect(analysis.findings.find((f) => f.id === 'gha-exit-code')?.followUp).toBe(true);
  });
});

describe('findings', () => {
  it('carry id, category, message, captures, 1-based line, hint and a ±3-line excerpt', () => {
    const analysis = analyzeLog(read('missing-header-make.log'));
    const f = analysis.rootCause;
    expect(f).toMatchObject({
      id: 'missing-header',
      category: 'missing-dependency',
      message: 'missing header zlib.h',
      line: 10,
    });
    expect(f?.hint).toMatch(/apt-file/);
    expect(f?.excerpt.split('\n')).toEqual([
      '   88 |     int tmp;',
      '      |         ^~~',
      'gcc -O2 -Wall -I../include -c compress.c -o compress.o',
      'compress.c:12:10: fatal error: zlib.h: No such file or directory',
      '   12 | #include <zlib.h>',
      '      |          ^~~~~~~~',
      'compilation terminated.',
    ]);
  });

  it('cuts the excerpt at the start and the end of the log', () => {
    const analysis = analyzeLog('bash: cmake: command not found\nnext');
    expect(analysis.rootCause?.excerpt).toBe('bash: cmake: command not found\nnext');
    expect(analysis.lines).toBe(2);
  });

  it('stores the first maxFindings and counts the rest; the root cause is found beyond the cap', () => {
    const noise = Array.from({ length: 50 }, (_, i) => `f${i}.c:1:1: error: expected ';'`).join('\n');
    const log = `${noise}\nmain.c:1:10: fatal error: gmp.h: No such file or directory\n`;
    const analysis = analyzeLog(log, { maxFindings: 10 });
    expect(analysis.findings).toHaveLength(10);
    expect(analysis.droppedFindings).toBe(41);
    expect(analysis.counts).toEqual({ 'compile-error': 50, 'missing-header': 1 });
    expect(analysis.rootCause?.id).toBe('missing-header');
    expect(analysis.rootCause?.line).toBe(51);
    expect(analysis.rootCause?.excerpt).toContain('gmp.h');
  });
});

describe('reading logs', () => {
  it('counts lines and bytes like wc', () => {
    expect(analyzeLog('')).toMatchObject({ lines: 0, bytes: 0, findings: [] });
    expect(analyzeLog('a')).toMatchObject({ lines: 1, bytes: 1 });
    expect(analyzeLog('a\n')).toMatchObject({ lines: 1, bytes: 2 });
    expect(analyzeLog('\n\n')).toMatchObject({ lines: 2 });
    expect(analyzeLog('é\n')).toMatchObject({ lines: 1, bytes: 3 });
  });

  it('splits chunks anywhere, even inside a UTF-8 character', async () => {
    const text = 'café ok\nx.cpp:3:5: error: ‘uint8_t’ does not name a type\nmake: *** [all] Error 2\n';
    const bytes = Buffer.from(text);
    const whole = analyzeLog(text);
    for (const size of [1, 2, 3, 7]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const streamed = await analyzeLogStream(Readable.from(chunks));
      expect(streamed).toEqual(whole);
    }
    expect(whole.rootCause?.captures.type).toBe('uint8_t');
  });

  it('accepts async iterables of strings', async () => {
    async function* gen() {
      yield 'bash: line 1: ninja: comm';
      await Promise.resolve();
      yield 'and not found\n';
    }
    const analysis = await analyzeLogStream(gen());
    expect(analysis.rootCause?.captures.command).toBe('ninja');
  });

  it('truncates huge lines before matching, keeping the start', () => {
    const huge = `src/x.c:1:10: fatal error: zlib.h: No such file or directory ${'y'.repeat(1_000_000)}\nnext line\n`;
    const analysis = analyzeLog(huge, { maxLineLength: 4096 });
    expect(analysis.lines).toBe(2);
    expect(analysis.rootCause?.id).toBe('missing-header');
    expect(analysis.rootCause?.excerpt.length).toBeLessThan(2000);
  });

  it('keeps the last carriage-return segment of progress lines', () => {
    expect(normalizeLogLine('[ 10%]\r[ 55%]\rbash: cmake: command not found\r')).toBe(
      'bash: cmake: command not found',
    );
    expect(
      normalizeLogLine(
        '\u001b[01m\u001b[Ka.c:1:1:\u001b[m\u001b[K \u001b[01;31m\u001b[Kerror:\u001b[m\u001b[K boom',
      ),
    ).toBe('a.c:1:1: error: boom');
    expect(normalizeLogLine('#12 3.456 E: Unable to locate package foo')).toBe(
      'E: Unable to locate package foo',
    );
    expect(normalizeLogLine('x'.repeat(10), 4)).toBe('xxxx');
  });

  it('is reusable as an incremental parser', () => {
    const analyzer = new LogAnalyzer({ contextLines: 0 });
    analyzer.write('/usr/bin/ld: cannot find -lz');
    analyzer.write(': No such file or directory\n');
    const analysis = analyzer.end();
    expect(analysis.rootCause?.captures).toEqual({ library: 'z' });
    expect(analysis.rootCause?.excerpt).toBe('/usr/bin/ld: cannot find -lz: No such file or directory');
    expect(analyzer.end()).toEqual(analysis);
    expect(() => analyzer.write('more')).toThrow();
  });
});
