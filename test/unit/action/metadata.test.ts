import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

import { OUTPUT_NAMES } from '../../../src/action/main.js';
import {
  INPUT_DEFAULTS,
  INPUT_NAMES,
  readActionSettings,
  type InputName,
} from '../../../src/action/settings.js';

interface ActionYml {
  runs: { using: string; main: string; post: string; 'post-if'?: string };
  inputs: Record<string, { description: string; default?: string; required?: boolean }>;
  outputs: Record<string, { description: string }>;
}

const root = path.resolve(import.meta.dirname, '../../..');
const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8')) as ActionYml;
const sources = readdirSync(path.join(root, 'src/action'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(root, 'src/action', f), 'utf8'))
  .join('\n');

describe('action.yml', () => {
  it('runs one bundle on node24 for main and post', () => {
    expect(action.runs).toEqual({
      using: 'node24',
      main: 'dist/index.js',
      post: 'dist/index.js',
      'post-if': 'always()',
    });
  });

  it('declares exactly the inputs the code reads, each documented', () => {
    // The names readActionSettings asks for, recorded while it runs with defaults.
    const asked = new Set<string>();
    readActionSettings(
      (name) => {
        asked.add(name);
        return '';
      },
      { GITHUB_WORKSPACE: root },
    );
    // Any direct core.getInput('…') elsewhere in src/action counts too.
    for (const m of sources.matchAll(/get(?:Boolean|Multiline)?Input\(\s*'([^']+)'/g)) asked.add(m[1]!);
    expect([...asked].sort()).toEqual(Object.keys(action.inputs).sort());
    expect([...INPUT_NAMES].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(`${name}: ${input.description.trim().length > 20}`).toBe(`${name}: true`);
      expect(input.required ?? false).toBe(false);
    }
  });

  it('gives each input the default the code applies', () => {
    for (const name of INPUT_NAMES) {
      const declared = action.inputs[name]?.default ?? '';
      const expected = name === 'token' ? '${{ github.token }}' : INPUT_DEFAULTS[name as InputName];
      expect(`${name}=${declared}`).toBe(`${name}=${expected}`);
    }
  });

  it('declares exactly the outputs the code sets, each documented', () => {
    const set = new Set<string>(OUTPUT_NAMES);
    for (const m of sources.matchAll(/setOutput\(\s*'([^']+)'/g)) set.add(m[1]!);
    expect([...set].sort()).toEqual(Object.keys(action.outputs).sort());
    for (const output of Object.values(action.outputs)) expect(output.description.length).toBeGreaterThan(10);
  });
});
