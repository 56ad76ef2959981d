/**
 * The TOML reader of the manifest detectors: a good manifest as plain data, and a bad, deeply nested or
 * hostile one as a one-line note naming the file, never an exception.
 */
import { describe, expect, it } from '@jest/globals';
import {
  readToml,
  TOML_MAX_DEPTH,
  tomlGet,
  tomlString,
  tomlTable,
} from '../../../../src/repo/ecosystems/toml.js';

describe('readToml', () => {
  it('reads tables, arrays of tables, dotted and quoted keys, the four strings, arrays and inline tables', () => {
    const read = readToml(
      'pyproject.toml',
      [
        'title = "a \\"b\\" \\u00e9" # comment',
        "lit = 'C:\\path'",
        'multi = """',
        'one',
        'two"""',
        "raw = '''x\\y'''",
        'n = 1_000',
        'f = -2.5e3',
        'ok = true',
        'when = 1979-05-27T07:32:00Z',
        'day = 1979-05-27',
        '[project]',
        'dependencies = [',
        '  "numpy>=1.20",  # trailing',
        '  "pyyaml",',
        ']',
        'a.b = { c = [1, 2], "d e" = "f" }',
        '[[bin]]',
        'name = "x"',
        '[[bin]]',
        'name = "y"',
        '[tool.poetry.dependencies]',
        'python = "^3.8"',
        "[target.'cfg(unix)'.dependencies]",
        'libc = "0.2"',
      ].join('\n'),
    );
    expect(read.note).toBeUndefined();
    expect(read.table).toEqual({
      title: 'a "b" é',
      lit: 'C:\\path',
      multi: 'one\ntwo',
      raw: 'x\\y',
      n: 1000,
      f: -2500,
      ok: true,
      when: '1979-05-27T07:32:00.000Z',
      day: '1979-05-27',
      project: { dependencies: ['numpy>=1.20', 'pyyaml'], a: { b: { c: [1, 2], 'd e': 'f' } } },
      bin: [{ name: 'x' }, { name: 'y' }],
      tool: { poetry: { dependencies: { python: '^3.8' } } },
      target: { 'cfg(unix)': { dependencies: { libc: '0.2' } } },
    });
    expect(Object.getPrototypeOf(read.table)).toBe(Object.prototype);
  });

  it('gives a note naming the file, the line and what is wrong, never a throw', () => {
    expect(readToml('Cargo.toml', 'a = 1\nb = "open\n')).toEqual({
      note: 'Cargo.toml could not be read as TOML (line 2, column 10: control characters are not allowed in strings)',
    });
    expect(readToml('Pipfile', '[x]\ny = what\n').note).toBe(
      'Pipfile could not be read as TOML (line 2, column 5: invalid value)',
    );
    expect(readToml('pyproject.toml', '[project\nname = 1\n').note).toMatch(
      /^pyproject\.toml could not be read as TOML \(line 1, column \d+: .+\)$/,
    );
    // TOML 1.0 is strict where a hand reader was lenient: a key given twice is an error, as for cargo and pip
    expect(readToml('fpm.toml', 'name = "a"\nname = "b"\n').note).toMatch(
      /^fpm\.toml could not be read as TOML \(line 2, column 1: .*redefine/,
    );
  });

  it('keeps the note to one short line when the bad line is long', () => {
    const note = readToml('Project.toml', `x = "${'a'.repeat(100_000)}\n`).note ?? '';
    expect(note).toMatch(/^Project\.toml could not be read as TOML \(line 1/);
    expect(note).not.toContain('\n');
    expect(note.length).toBeLessThan(200);
  });

  it('refuses nesting deeper than its bound, inline or through dotted keys, with a note', () => {
    const deep = (n: number): string => `x = ${'['.repeat(n)}${']'.repeat(n)}\n`;
    expect(readToml('a.toml', deep(TOML_MAX_DEPTH - 1)).table).toBeDefined();
    expect(readToml('a.toml', deep(100_000)).note).toMatch(
      /^a\.toml could not be read as TOML \(line 1, column \d+: .*nested/,
    );
    expect(readToml('b.toml', `${'{a='.repeat(500)}`).note).toMatch(/^b\.toml could not be read as TOML/);
    const dotted = (n: number): string => `${Array<string>(n).fill('k').join('.')} = 1\n`;
    expect(readToml('c.toml', dotted(TOML_MAX_DEPTH)).table).toBeDefined();
    expect(readToml('c.toml', dotted(50_000)).note).toBe(
      `c.toml could not be read as TOML (tables and arrays nested more than ${TOML_MAX_DEPTH} deep)`,
    );
    expect(readToml('d.toml', `[${Array<string>(1000).fill('t').join('.')}]\n`).note).toMatch(/nested more/);
  });

  it('reads a large manifest, and keeps a big integer as a number', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `dep${i} = { version = "1.${i}" }`);
    const read = readToml('Cargo.toml', `[dependencies]\n${lines.join('\n')}\nbig = 99999999999999999999\n`);
    expect(Object.keys(tomlTable(read.table, 'dependencies') ?? {})).toHaveLength(20_001);
    expect(tomlGet(read.table, 'dependencies', 'big')).toBe(1e20);
  });

  it('keeps keys such as __proto__ as plain entries, without touching any prototype', () => {
    const read = readToml(
      'Pipfile',
      '[packages]\n__proto__ = "1"\nconstructor = "2"\n[packages.toString]\nversion = "3"\n',
    );
    const packages = tomlTable(read.table, 'packages') ?? {};
    expect(Object.keys(packages)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(packages)).toBe(Object.prototype);
    expect(Object.hasOwn(Object.prototype, 'version')).toBe(false);
  });
});

describe('tomlGet, tomlTable, tomlString', () => {
  const table = readToml('Cargo.toml', '[package]\nname = "x"\nedition = 2021\nlist = [1]\n').table ?? {};

  it('follow a path of keys, and say undefined for what is absent or of another kind', () => {
    expect(tomlGet(table, 'package', 'name')).toBe('x');
    expect(tomlGet(table, 'package', 'list', '0')).toBeUndefined();
    expect(tomlGet(table, 'package', 'constructor')).toBeUndefined();
    expect(tomlGet(undefined, 'package')).toBeUndefined();
    expect(tomlTable(table, 'package')).toEqual({ name: 'x', edition: 2021, list: [1] });
    expect(tomlTable(tomlGet(table, 'package'))).toEqual(tomlTable(table, 'package'));
    expect(tomlTable(table, 'package', 'list')).toBeUndefined();
    expect(tomlString(tomlGet(table, 'package', 'edition'))).toBe('2021');
    expect(tomlString(tomlGet(table, 'package', 'list'))).toBeUndefined();
  });
});
