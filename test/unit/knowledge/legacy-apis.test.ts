import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError } from '../../../src/base/errors.js';
import {
  DEFAULT_LEGACY_APIS_URL,
  loadLegacyApis,
  parseLegacyApis,
} from '../../../src/knowledge/diagnose/legacy-apis.js';
import { defaultSignatureCatalog } from '../../../src/knowledge/diagnose/signatures.js';
import { analyzeLog } from '../../../src/knowledge/diagnose/log-parser.js';
import {
  filesInLog,
  migrationLine,
  migrationRepair,
} from '../../../src/knowledge/repair/rules/legacy-apis.js';

const ENTRY = `version: 1
apis:
  - id: demo
    dependency: libdemo
    removedIn: '2.0'
    api: demo_old()
    pattern: "demo_old"
    keywords: [demo_old]
    example: "x.c:1:1: error: implicit declaration of function 'demo_old'"
    migration: use demo_new()
    source: https://example.org/news
`;

describe('legacy API table (verifiers/legacy-apis.yaml)', () => {
  it('loads the shipped table: every entry documented with an https source', () => {
    const apis = loadLegacyApis();
    expect(apis.length).toBeGreaterThanOrEqual(5);
    // A run leaves the patterns to the catalog's first use; here each is compiled and matched with its example.
    const checked = parseLegacyApis(
      readFileSync(DEFAULT_LEGACY_APIS_URL, 'utf8'),
      DEFAULT_LEGACY_APIS_URL.pathname,
      { checkPatterns: true },
    );
    expect(checked).toEqual(apis);
    for (const api of apis) expect(api.source).toMatch(/^https:\/\//);
    expect(apis.filter((a) => a.patch).map((a) => a.id)).toEqual(
      expect.arrayContaining(['glibc-sys-errlist', 'glibc-sys-siglist', 'glibc-sigunused']),
    );
  });

  it('refuses bad entries, naming the file and the field', () => {
    expect(() => parseLegacyApis(ENTRY.replace('https://example.org/news', 'example.org'), 'f.yaml')).toThrow(
      /f\.yaml: apis\[0\]\.source: expected an https:\/\/ URL/,
    );
    expect(() =>
      parseLegacyApis(ENTRY.replace('pattern: "demo_old"', 'pattern: "nomatch"'), 'f.yaml'),
    ).toThrow(ConfigError);
    expect(() => parseLegacyApis(`${ENTRY}    patch: {replace: "a#b", with: x}\n`, 'f.yaml')).toThrow(
      /patch\.replace/,
    );
    expect(parseLegacyApis(ENTRY, 'f.yaml')[0]).toMatchObject({ id: 'demo', removedIn: '2.0' });
  });

  it('makes the root cause say what was removed, by whom and when, with the migration', () => {
    expect(defaultSignatureCatalog().byId.has('legacy-glibc-sys-errlist')).toBe(true);
    const log = [
      'gcc -O2 -c main.c -o main.o',
      "main.c: In function 'main':",
      "main.c:7:40: error: 'sys_errlist' undeclared (first use in this function)",
      'make: *** [Makefile:4: main.o] Error 1',
    ].join('\n');
    const { rootCause } = analyzeLog(log);
    expect(rootCause?.id).toBe('legacy-glibc-sys-errlist');
    expect(rootCause?.message).toBe('uses an API that glibc removed in 2.32 (sys_errlist / sys_nerr)');
    expect(rootCause?.hint).toContain('strerror(errnum)');
  });

  it('applies a mechanical migration to C sources (and only where the API is used)', () => {
    const api = loadLegacyApis().find((a) => a.id === 'glibc-sys-errlist')!;
    expect(migrationRepair(api)).toMatchObject({
      rule: 'migrate-removed-api',
      key: 'legacy:glibc-sys-errlist',
    });
    const { findings } = analyzeLog(
      "gcc -c src/err.c\nsrc/err.c:8:25: error: 'sys_errlist' undeclared (first use in this function)\n",
    );
    expect(filesInLog(findings, api)).toEqual(['err.c']);
    expect(migrationRepair(api, ['err.c']).patches).toEqual([
      { file: 'err.c', reason: expect.stringContaining('glibc removed in 2.32') },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'bb-legacy-'));
    try {
      writeFileSync(join(dir, 'a.c'), '#include <stdio.h>\nint f(int e) { return puts(sys_errlist[e]); }\n');
      writeFileSync(join(dir, 'b.c'), 'int g(void) { return 0; }\n');
      execFileSync('bash', ['-c', migrationLine(api)], { cwd: dir });
      expect(readFileSync(join(dir, 'a.c'), 'utf8')).toBe(
        '#include <string.h>\n#include <stdio.h>\nint f(int e) { return puts(strerror(e)); }\n',
      );
      expect(readFileSync(join(dir, 'b.c'), 'utf8')).toBe('int g(void) { return 0; }\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
