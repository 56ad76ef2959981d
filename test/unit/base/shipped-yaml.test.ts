/**
 * Shipped YAML read fast (issue 32): the build's JSON of a data file is used only when it was made from the very
 * text being read, and it holds exactly what parsing the YAML gives; the signature catalog's patterns compile on
 * first use, with the same group names and every pattern valid.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { LinearRegex, scanGroupNames } from '../../../src/base/linear-regex.js';
import { parseShippedYaml, sha256Hex, shippedDataName } from '../../../src/base/shipped-yaml.js';
import { defaultSignatureCatalog } from '../../../src/knowledge/diagnose/signatures.js';

const dataDir = (): URL => pathToFileURL(`${mkdtempSync(path.join(tmpdir(), 'bb-shipped-'))}/`);

describe('parseShippedYaml', () => {
  const text = 'answer: 42\n';
  it('takes the JSON made from this very text, and parses the YAML otherwise', () => {
    const dir = dataDir();
    const json = new URL(shippedDataName('/x/verifiers/table.yaml'), dir);
    expect(parseShippedYaml(text, '/x/verifiers/table.yaml', dir)).toEqual({ answer: 42 });
    writeFileSync(json, JSON.stringify({ sha256: sha256Hex(text), value: { answer: 'from json' } }));
    expect(parseShippedYaml(text, '/x/verifiers/table.yaml', dir)).toEqual({ answer: 'from json' });
    // the YAML changed since the build: its own value, not the stale JSON
    expect(parseShippedYaml('answer: 43\n', '/x/verifiers/table.yaml', dir)).toEqual({ answer: 43 });
    writeFileSync(json, '{ not json');
    expect(parseShippedYaml(text, '/x/verifiers/table.yaml', dir)).toEqual({ answer: 42 });
  });

  it('scripts/shipped-data.ts writes, for every shipped YAML file, exactly its parsed value', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'bb-shipped-out-'));
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/shipped-data.ts', out], { stdio: 'pipe' });
    const sources = [
      ...readdirSync('verifiers')
        .filter((n) => n.endsWith('.yaml'))
        .map((n) => path.join('verifiers', n)),
      'src/recipe/catalog.yaml',
    ];
    expect(readdirSync(out).sort()).toEqual(sources.map((s) => shippedDataName(s)).sort());
    for (const source of sources) {
      const yaml = readFileSync(source, 'utf8');
      const data = JSON.parse(readFileSync(path.join(out, shippedDataName(source)), 'utf8')) as {
        sha256: string;
        value: unknown;
      };
      expect({ source, sha256: data.sha256 }).toEqual({ source, sha256: sha256Hex(yaml) });
      expect(data.value).toEqual(parse(yaml));
      expect(parseShippedYaml(yaml, source, pathToFileURL(`${out}/`))).toEqual(parse(yaml));
    }
  });
});

describe('patterns compiled on first use', () => {
  it('a deferred pattern reports the group names RE2 does, for every pattern of the catalog', () => {
    for (const s of defaultSignatureCatalog().signatures) {
      for (const regex of [s.regex, ...(s.unless ? [s.unless] : []), ...s.lookbehind.map((l) => l.regex)]) {
        expect({ id: s.id, names: scanGroupNames(regex.source) }).toEqual({
          id: s.id,
          names: new LinearRegex(regex.source, regex.flags).groupNames,
        });
      }
    }
  });

  it('every pattern of the shipped catalog compiles', () => {
    for (const s of defaultSignatureCatalog().signatures)
      expect(() => [
        s.regex.test(''),
        s.unless?.test(''),
        ...s.lookbehind.map((l) => l.regex.test('')),
      ]).not.toThrow();
  });

  it('skips escaped parentheses and character classes when naming groups', () => {
    expect(scanGroupNames(String.raw`\(?<no>x\)[(?<neither>](?<yes>a)(?P<also>b)(?:c)`)).toEqual([
      'yes',
      'also',
    ]);
  });

  it('a deferred pattern with a syntax error throws at its first use, naming the pattern', () => {
    const bad = new LinearRegex('(?<x>a', '', { deferred: true });
    expect(bad.groupNames).toEqual(['x']);
    expect(() => bad.test('a')).toThrow(/\(\?<x>a/);
  });
});
