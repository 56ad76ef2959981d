import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../../../src/base/errors.js';
import {
  DEFAULT_REPAIRS_URL,
  defaultRepairTables,
  firstMatch,
  parseRepairTables,
} from '../../../../src/knowledge/repair/tables.js';
import { RULES, rulesById } from '../../../../src/knowledge/repair/rules/index.js';
import { shellRunner } from '../../../../src/knowledge/repair/packages.js';

const shipped = readFileSync(DEFAULT_REPAIRS_URL, 'utf8');

/** The shipped file with one line replaced. */
function edited(from: string, to: string): string {
  expect(shipped).toContain(from);
  return shipped.replace(from, () => to);
}

function errorOf(text: string): ConfigError {
  try {
    parseRepairTables(text, 'repairs.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected the tables to be rejected');
}

describe('the shipped repair tables', () => {
  const tables = defaultRepairTables();

  it('load and answer what the rules ask', () => {
    expect(firstMatch(tables.autoconfMacros, 'AX_CXX_COMPILE_STDCXX')).toEqual(['autoconf-archive']);
    expect(firstMatch(tables.autoconfMacros, 'AM_PATH_GTK_3_0')).toEqual(['libgtk-3-dev']);
    expect(firstMatch(tables.autoconfMacros, 'AM_PATH_GTK_2_0')).toEqual(['libgtk2.0-dev']);
    expect(firstMatch(tables.stdHeaders, 'std::uint8_t')).toBe('cstdint');
    expect(firstMatch(tables.stdHeaders, 'runtime_error')).toBe('stdexcept');
    expect(firstMatch(tables.toolchainLibraries, 'sqrtf')).toBe('-lm');
    expect(firstMatch(tables.toolchainLibraries, 'pthread_create')).toBe('-pthread');
    expect(firstMatch(tables.toolchainLibraries, 'zlibVersion')).toBeUndefined();
    expect(tables.fetchContentSources.get('gtest')).toEqual({
      package: 'googletest',
      dir: '/usr/src/googletest',
    });
    expect(tables.fetchContentSources.has('eigen')).toBe(false); // its package ships headers, not the tree
    expect(tables.shippedSources.find((s) => s.repositories.includes('gitlab.com/libeigen/eigen'))).toEqual(
      expect.objectContaining({ package: 'libeigen3-dev' }),
    );
    // A library entry (no tree): the built library only, never a clone's stand-in nor a FetchContent source.
    expect(tables.shippedSources.find((s) => s.repositories.includes('github.com/kkos/oniguruma'))).toEqual(
      expect.objectContaining({ package: 'libonig-dev', tree: [] }),
    );
    expect(tables.fetchContentSources.has('oniguruma')).toBe(false);
    expect(tables.testFrameworks.has('catch2')).toBe(true);
    expect(tables.testPackages.has('GTEST')).toBe(true);
    expect(tables.cmakePrograms.has('pythoninterp')).toBe(true);
    expect(tables.notNames.has('library')).toBe(true);
    expect(tables.notNames.has('zlib')).toBe(false);
  });

  it('every rule claims its own signature ids', () => {
    expect(() => rulesById(RULES)).not.toThrow();
    expect(() => rulesById([...RULES, { ids: ['missing-header'], propose: () => [] }])).toThrow(
      /"missing-header"/,
    );
  });
});

describe('a bad entry in repairs.yaml', () => {
  it('names the file, the section and the entry', () => {
    const error = errorOf(
      edited("{ pattern: '^PKG_', packages: [pkg-config] }", "{ pattern: '^PKG_(', packages: [pkg-config] }"),
    );
    expect(error.message).toMatch(/^repairs\.yaml: autoconf_macros #2: bad pattern/);
    expect(error.hint).toMatch(/verifiers\/repairs\.yaml/);
  });

  it.each([
    [
      "{ pattern: '^AX_', packages: [autoconf-archive] }",
      "{ pattern: '^AX_', packages: [Autoconf_Archive] }",
      /autoconf_macros #1: "Autoconf_Archive" is not a package name/,
    ],
    [
      "{ symbol: '^(std::)?thread$', header: thread }",
      "{ symbol: '^(std::)?thread$', header: thread, note: x }",
      /std_headers #6: unknown field "note"/,
    ],
    [
      "{ symbol: '^__atomic_\\w+$', flag: -latomic }",
      "{ symbol: '^__atomic_\\w+$', flag: '--whole-archive' }",
      /toolchain_libraries #3: "--whole-archive" is not -l<library> or -pthread/,
    ],
    [
      'tree: { .: /usr/src/googletest }',
      'tree: { .: usr/src }',
      /shipped_sources\.googletest: tree\.\. must be an absolute path, got "usr\/src"/,
    ],
    [
      'tree: { glm: /usr/include/glm }',
      'tree: { ../glm: /usr/include/glm }',
      /shipped_sources\.glm: tree path "\.\.\/glm" must be relative, without "\.\."/,
    ],
    [
      'tree: { glm: /usr/include/glm }',
      'tree: {}',
      /shipped_sources\.glm: "tree", when given, must map paths in the repository to shipped paths/,
    ],
    [
      'repositories: [github.com/g-truc/glm]',
      'repositories: [https://github.com/g-truc/glm]',
      /shipped_sources\.glm: "repositories" must be a list of host\/owner\/name addresses/,
    ],
    [
      'cmake_programs: [BISON,',
      'cmake_programs: [two words,',
      /cmake_programs #1: "two words" is not a single word/,
    ],
    ['version: 1', 'version: 2', /unsupported version 2/],
    ['not_names: [', 'not_name: [', /unknown section "not_name"/],
  ])('rejects %s', (from, to, message) => {
    expect(errorOf(edited(from, to)).message).toMatch(message);
  });

  it('rejects a document that is not YAML, or a missing section', () => {
    expect(errorOf('version: [').message).toMatch(/^repairs\.yaml: not valid YAML/);
    expect(errorOf('version: 1\n').message).toMatch(/autoconf_macros: must be a non-empty list/);
  });
});

describe('the host package-index runner', () => {
  it('keeps the whole output of a large look-up (the default process cap would cut it)', async () => {
    const result = await shellRunner(10_000).run(
      'for i in $(seq 1 30000); do echo "libfoo$i-dev: /usr/include/foo$i.h"; done; echo \'@@end\'',
    );
    expect(result.exitCode).toBe(0);
    const lines = result.output.trimEnd().split('\n');
    expect(lines).toHaveLength(30001);
    expect(lines.at(-1)).toBe('@@end');
  });
});
